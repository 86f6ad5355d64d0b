/* watch: GPU memory and utilisation of the job's processes. The NVML calls
 * run in the p2p-procs worker (gpu/p2p_procs.c), started without waiting and
 * supervised from the main loop under its own deadline, so a hung NVML costs
 * one worker, never the passthrough of the job's output. Samples are taken
 * at a stall and every WGPU_EVERY seconds while it lasts, not while the job
 * runs normally. A GPU that stays busy while nothing progresses has kernels
 * spinning in a collective; one at 0 % has ranks waiting on the host side. */
#include "analyze/worker_findings.h"
#include "engine/watch_int.h"
#include "kb/findings.h"
#include "util/text.h"
#include "util/clock.h"
#include "util/jsonx.h"

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define WGPU_BUSY 90      /* percent: spinning */
#define WGPU_MAX 64

void wgpu_init(struct watch_gpu *g)
{
	memset(g, 0, sizeof(*g));
	worker_init(&g->w);
}

void wgpu_start(struct watch_gpu *g)
{
	if (g->running || g->hung)
		return;
	worker_release(&g->w);
	worker_init(&g->w);
	struct worker_spec s = { .task = "p2p-procs", .deadline = WGPU_DEADLINE, .grace = 1 };
	g->t_started = nd_now_s();
	if (worker_start(&g->w, &s) < 0) {
		snprintf(g->why, sizeof(g->why), "cannot start the NVML worker: %s", g->w.why);
		return;
	}
	g->running = true;
}

/* Keeps the busy streak: every GPU a job process uses at WGPU_BUSY or more. */
static void count_streak(struct watch_gpu *g)
{
	json_t *o;
	size_t i;
	int used = 0, busy = 0;
	json_array_foreach(json_object_get(g->sample, "gpus"), i, o) {
		if (json_get_int(o, "process_count", 0) <= 0)
			continue;
		used++;
		busy += json_get_int(o, "utilization", -1) >= WGPU_BUSY;
	}
	g->busy_streak = used > 0 && busy == used ? g->busy_streak + 1 : 0;
}

bool wgpu_poll(struct watch_gpu *g)
{
	if (!g->running)
		return false;
	struct worker *ws[1] = { &g->w };
	if (worker_poll(ws, 1, 0) > 0)
		return false;
	g->running = false;
	g->t_done = nd_now_s();
	json_t *res = g->w.status == WORKER_OK ? worker_result(&g->w) : NULL;
	if (res) {
		json_decref(g->sample);
		g->sample = json_incref(res);
		g->nsamples++;
		g->why[0] = '\0';
		count_streak(g);
	} else {
		g->hung = g->w.status == WORKER_HANG;
		struct worker_outcome o;
		worker_outcome_of(&g->w, &o);
		if (worker_lib_missing(&o))
			str_setf(g->why, sizeof(g->why), NVML_LIB_TEXT " %s (%s): the job's GPU memory and "
				 "utilisation are not shown; the rest of the diagnosis does not need it",
				 worker_lib_missing(&o), g->w.why);
		else
			snprintf(g->why, sizeof(g->why), "NVML %s: %s", g->hung ? "did not answer" : "failed", g->w.why);
		worker_outcome_release(&o);
	}
	return true;
}

static bool is_job_pid(long long pid, const int *pids, int npids)
{
	for (int i = 0; i < npids; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* "1234 (4.1 GiB), 1240 (3.9 GiB)" of the job's processes on one GPU;
 * returns how many. */
static int job_procs(json_t *gpu, const int *pids, int npids, char *out, size_t outsz, long long *mem)
{
	json_t *p;
	size_t i, len = 0;
	int n = 0;
	out[0] = '\0';
	*mem = 0;
	json_array_foreach(json_object_get(gpu, "processes"), i, p) {
		long long pid = json_get_int(p, "pid", -1), m = json_get_int(p, "memory", 0);
		if (!is_job_pid(pid, pids, npids))
			continue;
		char b[32];
		str_appendf(out, outsz, &len, "%s%lld (%s)", n ? ", " : "", pid, fmt_bytes((uint64_t)m, b, sizeof(b)));
		*mem += m;
		n++;
	}
	return n;
}

static void verdict(struct result *r, const struct watch_gpu *g, const char *busy, const char *idle, int nused,
		    int nbusy, int nidle)
{
	if (nused == 0)
		return;
	if (nbusy == nused) {
		struct finding *f = finding_add(r, FID_WATCH_GPU_SPINNING, SEV_WARNING,
						"GPU %s busy (%d %% or more) while the job makes no progress: kernels spin "
						"in a collective", busy, WGPU_BUSY);
		finding_evidence(f, NULL, 0, "NVML utilisation of the job's GPUs in %d sample%s; %s",
				 g->busy_streak, g->busy_streak == 1 ? "" : "s",
				 g->busy_streak >= 2 ? "it stays busy" : "one sample so far (another follows while the "
									  "stall lasts)");
	} else if (nbusy > 0 && nidle > 0) {
		struct finding *f = finding_add(r, FID_WATCH_GPU_SPINNING, SEV_WARNING,
						"GPU %s busy, GPU %s idle: the ranks on the busy GPUs spin in a collective "
						"the others did not enter", busy, idle);
		finding_evidence(f, NULL, 0, "NVML utilisation of the job's GPUs: %d at %d %% or more, %d at 0 %%", nbusy,
				 WGPU_BUSY, nidle);
	} else if (nidle == nused) {
		struct finding *f = finding_add(r, FID_WATCH_GPU_IDLE, SEV_INFO,
						"GPU %s idle (0 %%) while the job waits: no kernel runs", idle);
		finding_evidence(f, NULL, 0, "NVML utilisation 0 %% on every GPU the job's processes hold");
	}
}

void wgpu_add(struct watch_gpu *g, struct result *r, const int *pids, int npids, bool stalled)
{
	static const struct column cols[] = {
		{ "gpu", "GPU", 0 },          { "utilization", "busy %", 0 }, { "memory_used", "memory used", 0 },
		{ "job_memory", "by the job", 0 }, { "job_processes", "job processes (memory)", 0 },
		{ "other_processes", "other processes", 0 },
	};
	if (!g->sample && !g->why[0] && !g->running)
		return;
	struct section *s = result_section(r, "job_gpus", "GPUs of the job (NVML)");
	if (!g->sample) {
		section_add(s, "nvml", "NVML", val_unknown(g->running ? "no answer yet" : g->why));
		return;
	}
	if (g->why[0])
		section_note(s, "the latest sample failed (%s): the numbers are from the one before", g->why);
	struct table *t = section_table(s, "gpus", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	char busy[256] = "", idle[256] = "";
	size_t lb = 0, li = 0;
	int nused = 0, nbusy = 0, nidle = 0, shown = 0;
	json_t *o;
	size_t i;
	json_array_foreach(json_object_get(g->sample, "gpus"), i, o) {
		char list[512];
		long long jmem;
		int nj = job_procs(o, pids, npids, list, sizeof(list), &jmem);
		long long nall = json_get_int(o, "process_count", 0), util = json_get_int(o, "utilization", -1);
		if (nj == 0 || shown >= WGPU_MAX)
			continue;
		shown++;
		int idx = (int)json_get_int(o, "index", -1);
		size_t row = table_add_row(t);
		table_set(t, row, "gpu", val_int(idx));
		table_set(t, row, "utilization", util >= 0 ? val_int(util) : val_unknown("not supported"));
		char b[32];
		json_t *mu = json_object_get(o, "memory_used");
		table_set(t, row, "memory_used", mu ? val_str(fmt_bytes((uint64_t)json_integer_value(mu), b, sizeof(b)))
						   : val_unknown("not supported"));
		table_set(t, row, "job_memory", val_str(fmt_bytes((uint64_t)jmem, b, sizeof(b))));
		table_set(t, row, "job_processes", val_str(list));
		table_set(t, row, "other_processes", val_int(nall - nj));
		if (json_is_true(json_object_get(o, "lost")))
			table_mark(t, row, "gpu", MARK_BAD);
		nused++;
		if (util >= WGPU_BUSY) {
			nbusy++;
			str_appendf(busy, sizeof(busy), &lb, "%s%d", lb ? ", " : "", idx);
		} else if (util == 0) {
			nidle++;
			str_appendf(idle, sizeof(idle), &li, "%s%d", li ? ", " : "", idx);
		}
	}
	section_add(s, "samples", "samples this run", val_int(g->nsamples));
	if (nused == 0)
		section_note(s, "NVML lists no process of the job on any GPU: it has not created a CUDA context yet, "
				"or it runs in another PID namespace (a container) than watch");
	if (stalled)
		verdict(r, g, busy, idle, nused, nbusy, nidle);
}

void wgpu_release(struct watch_gpu *g)
{
	if (g->running && g->w.pid > 0) {
		/* the group of a worker stuck in NVML: killed, then reaped by the poll */
		kill(-g->w.pid, SIGKILL);
		struct worker *ws[1] = { &g->w };
		double t0 = nd_now_s();
		while (worker_poll(ws, 1, 0.05) > 0 && nd_now_s() - t0 < 2)
			;
	}
	worker_release(&g->w);
	json_decref(g->sample);
	g->sample = NULL;
}
