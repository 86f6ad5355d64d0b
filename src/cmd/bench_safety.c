/* bench's busy-node safety and wedged-GPU check, as `p2p` does them: the
 * worker task `p2p-procs` lists the compute processes and utilisation of
 * every GPU (NVML, in a worker under a deadline). Before the ranks start, a
 * GPU of the run that another process holds stops the run (exit 3) unless
 * --force; after a hang, a GPU of a rank that did not finish which stays
 * busy with no process (two samples 1.5 s apart: NVML averages utilisation
 * over up to a second) is reported as wedged, with the reset command.
 *
 * NVML counts GPUs in PCI order; a rank's device is a CUDA ordinal, mapped
 * through CUDA_VISIBLE_DEVICES (indices or GPU- UUIDs); without it ordinal
 * k is NVML index k (CUDA's default order is by PCI bus on machines of one
 * GPU model; CUDA_DEVICE_ORDER=PCI_BUS_ID makes it so everywhere). */
#include "cmd/bench.h"
#include "kb/findings.h"
#include "report/report.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The p2p-procs answer (new reference) or NULL when NVML did not answer. */
static json_t *procs(const struct run_opts *opt)
{
	struct worker w;
	struct worker_spec s = { .task = "p2p-procs", .deadline = opt_deadline(opt, DEADLINE_QUERY), .grace = 1 };
	worker_run(&w, &s);
	json_t *res = w.status == WORKER_OK ? worker_result(&w) : NULL;
	json_incref(res);
	worker_release(&w);
	return res;
}

/* The p2p-procs entry of CUDA ordinal dev, or NULL. */
static json_t *gpu_of(const struct bench_opts *bo, json_t *res, int dev)
{
	/* --gpus by UUID or bus id: the ranks' own CUDA_VISIBLE_DEVICES */
	const char *cvd = bo->visible[0] ? strchr(bo->visible, '=') + 1 : getenv("CUDA_VISIBLE_DEVICES");
	char item[96] = "";
	if (cvd && *cvd) {
		const char *p = cvd;
		for (int k = 0; k < dev && p; k++)
			if ((p = strchr(p, ',')) != NULL)
				p++;
		if (!p)
			return NULL;
		size_t n = strcspn(p, ",");
		snprintf(item, sizeof(item), "%.*s", (int)(n < sizeof(item) ? n : sizeof(item) - 1), p);
	}
	long long want = dev;
	bool by_uuid = strstr(item, "GPU-") == item;
	if (item[0] && !by_uuid && parse_ll(item, 10, &want) < 0)
		return NULL; /* MIG-... or a name: not mapped */
	size_t i;
	json_t *o;
	json_array_foreach(json_object_get(res, "gpus"), i, o) {
		const char *uuid = json_string_value(json_object_get(o, "uuid"));
		if (by_uuid ? uuid && strncmp(uuid, item, strlen(item)) == 0
			    : json_integer_value(json_object_get(o, "index")) == want)
			return o;
	}
	return NULL;
}

/* "pid 4242 (python3)": the process name from /proc (through the sysroot) */
static void proc_name(long long pid, char *out, size_t sz)
{
	char path[64], comm[64] = "";
	snprintf(path, sizeof(path), "/proc/%lld/comm", pid);
	if (sr_read_str(path, comm, sizeof(comm)) >= 0 && comm[0])
		snprintf(out, sz, "pid %lld (%s)", pid, comm);
	else
		snprintf(out, sz, "pid %lld", pid);
}

static int busy_check(const struct bench_opts *o, const struct run_opts *opt)
{
	json_t *res = procs(opt);
	if (!res)
		return 0; /* no NVML: the ranks will say what is wrong */
	struct result *r = NULL;
	char first[512] = "";
	for (int i = 0; i < o->nranks; i++) {
		json_t *g = gpu_of(o, res, o->devices[i]);
		long long n = json_integer_value(json_object_get(g, "process_count"));
		bool dup = false;
		for (int j = 0; j < i; j++)
			dup |= o->devices[j] == o->devices[i];
		if (!g || n <= 0 || dup)
			continue;
		json_t *pr = json_array_get(json_object_get(g, "processes"), 0);
		char who[128], mem[32], used[32];
		proc_name(json_integer_value(json_object_get(pr, "pid")), who, sizeof(who));
		fmt_bytes((uint64_t)json_integer_value(json_object_get(pr, "memory")), mem, sizeof(mem));
		fmt_bytes((uint64_t)json_integer_value(json_object_get(g, "memory_used")), used, sizeof(used));
		char line[512];
		snprintf(line, sizeof(line), "GPU %d is in use by %s with %s (%lld compute process%s, %s in use)", o->devices[i],
			 who, mem, n, n == 1 ? "" : "es", used);
		if (!r) {
			r = result_new("bench");
			snprintf(first, sizeof(first), "%s", line);
		}
		finding_add(r, FID_BENCH_GPU_BUSY, SEV_WARNING, "%s", line);
	}
	json_decref(res);
	if (!r)
		return 0;
	result_set_error(r, "%s; not run (--force runs anyway)", first);
	if (opt->json || opt->markdown)
		return cmd_finish(r, opt);
	report_say(stderr, "nccl-doctor bench: %s", r->error);
	result_free(r);
	return EXIT_CANNOT_RUN;
}

/* GPUs (indices into br->ranks) busy with no process now */
static bool idle_busy(const struct bench_run *br, const struct run_opts *opt, bool *busy)
{
	json_t *res = procs(opt);
	if (!res)
		return false;
	for (int i = 0; i < br->o->nranks; i++) {
		json_t *g = gpu_of(br->o, res, br->ranks[i].device);
		busy[i] = g && json_integer_value(json_object_get(g, "utilization")) > 0 &&
			  json_is_integer(json_object_get(g, "process_count")) &&
			  json_integer_value(json_object_get(g, "process_count")) == 0;
	}
	json_decref(res);
	return true;
}

/* mpirun/srun: every process checks its own GPU (NVML sees only its node)
 * and all stop when one is busy */
int bench_busy_check(const struct bench_opts *o, const struct run_opts *opt)
{
	if (!o->world)
		return busy_check(o, opt);
	static struct bench_opts one;
	one = *o;
	one.nranks = bench_world_per_process(); /* this process's GPUs (-g) */
	for (int k = 0; k < one.nranks; k++)
		one.devices[k] = o->devices[bench_world_rank() * one.nranks + k];
	return bench_world_agree(busy_check(&one, opt));
}

/* after a hang; not under MPI (rank 0's NVML sees its own node only) */
void bench_wedged_check(struct bench_run *br, const struct run_opts *opt)
{
	bool b1[BENCH_MAX_RANKS] = { false }, b2[BENCH_MAX_RANKS] = { false }, any = false;
	if (br->o->world || br->failed_rank < 0 || br->could_not_run || !idle_busy(br, opt, b1))
		return;
	for (int i = 0; i < br->o->nranks; i++)
		any |= b1[i] && !br->ranks[i].done;
	if (!any)
		return;
	struct timespec ts = { 1, 500000000 };
	nanosleep(&ts, NULL);
	if (!idle_busy(br, opt, b2))
		return;
	size_t off = 0;
	for (int i = 0; i < br->o->nranks && off < sizeof(br->wedged) - 8; i++) {
		bool seen = false;
		for (int j = 0; j < i; j++)
			seen |= br->ranks[j].device == br->ranks[i].device && br->wedged_dev[j];
		if (!b1[i] || !b2[i] || br->ranks[i].done || seen)
			continue;
		br->wedged_dev[i] = true;
		off += (size_t)snprintf(br->wedged + off, sizeof(br->wedged) - off, "%s%d", off ? ", " : "", br->ranks[i].device);
	}
}
