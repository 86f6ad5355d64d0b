/* nccl-doctor p2p: what really moves between the GPUs (issue 11).
 *
 * `topo` says what the driver claims; `p2p` moves data and checks it. The
 * phases, every GPU call in a worker under its own deadline:
 *   facts    nvml-topo (GPUs, link classes, NVML P2P status), cuda-info
 *            (compute capability), p2p-procs (who holds each GPU), at once
 *   busy     GPUs with compute processes are left out unless --force
 *   gpus     per GPU (full mode): our kernels checked, local device copy and
 *            pinned host copies measured (p2p-gpu), one GPU at a time
 *   function per ordered pair: capability, copy-engine copy, SM stores and
 *            loads across the pair, every byte verified (p2p-pair
 *            --one-way); at the same time NCCL send/recv both ways between
 *            two rank processes (p2p-nccl); disjoint pairs in parallel,
 *            round-robin
 *   wedged   after a round with a hang: a GPU busy with no process is
 *            wedged, and its later results are void
 *   bandwidth (full mode) one pair at a time: p2p-pair --bw
 * Then p2p_why.c joins broken or slow pairs with the PCI path (ACS), the
 * IOMMU and VM facts, and p2p_show.c renders. */
#include "analyze/worker_findings.h"
#include "engine/p2p.h"
#include "collect/collect.h"
#include "report/report.h"
#include "model/visible.h"
#include "run/worker.h"
#include "util/jsonx.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "util/clock.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* every worker numbers GPUs as NVML does: PCI bus order */
static const char *const worker_env[] = { "CUDA_DEVICE_ORDER=PCI_BUS_ID", NULL };

void p2p_progress(const struct p2p_run *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	progress_vsay(&p->prog, fmt, ap);
	va_end(ap);
}

/* --- workers ----------------------------------------------------------- */

static void keep_worker(struct p2p_run *p, const struct worker *w, const char *label)
{
	json_t *j = worker_json(w);
	json_object_set_new(j, "task", json_string(w->spec.task));
	json_object_set_new(j, "label", json_string(label));
	json_array_append_new(p->workers, j);
}

static void keep_outcome(struct p2p_run *p, const struct worker_outcome *o, const char *label)
{
	json_t *j = json_deep_copy(o->summary);
	json_object_set_new(j, "task", json_string(o->task));
	json_object_set_new(j, "label", json_string(label));
	json_array_append_new(p->workers, j);
}

/* nvml-topo and cuda-info (the machine model's: run once per run) and
 * p2p-procs, at once; 0 or -1 with r's error set */
static int facts(struct result *r, struct p2p_run *p)
{
	struct worker w;
	worker_init(&w);
	struct worker_spec s = { .task = "p2p-procs", .env = worker_env, .deadline = opt_deadline(p->opt, DEADLINE_QUERY),
				 .grace = 1 };
	bool started = worker_start(&w, &s) == 0;
	collect_gpus(p->mach, opt_deadline(p->opt, DEADLINE_QUERY));
	struct worker *ws = &w;
	worker_wait(&ws, started ? 1 : 0);
	const struct worker_outcome *on = &p->mach->nvml, *oc = &p->mach->cuda;
	keep_outcome(p, on, "nvml-topo");
	keep_outcome(p, oc, "cuda-info");
	keep_worker(p, &w, "p2p-procs");
	if (machine_answer(on))
		p->topo = json_incref(machine_answer(on));
	if (machine_answer(oc))
		p->cuda = json_incref(machine_answer(oc));
	if (w.status == WORKER_OK && worker_result(&w))
		p->procs = json_incref(worker_result(&w));
	worker_release(&w);
	int rc = 0;
	if (p->topo && !p->cuda) {
		/* NVML answers but the CUDA driver does not: every copy would fail */
		const char *msg = oc->error ? json_string_value(json_object_get(oc->error, "message")) : NULL;
		result_set_error(r, "the CUDA driver cannot be used: %s%s%s", worker_status_name(oc->status),
				 msg || oc->why[0] ? ": " : "", msg ? msg : oc->why);
		rc = -1;
	}
	if (!p->topo) {
		const char *msg = on->error ? json_string_value(json_object_get(on->error, "message")) : NULL;
		if (worker_lib_missing(on))
			result_set_error(r, "cannot test GPU pairs: " NVML_LIB_TEXT " %s (%s); 'nccl-doctor sys', "
					 "'topo' and 'kernel' still work without it", worker_lib_missing(on),
					 msg ? msg : on->why);
		else
			result_set_error(r, "cannot list the GPUs: NVML %s%s%s", worker_status_name(on->status),
					 msg || on->why[0] ? ": " : "", msg ? msg : on->why);
		rc = -1;
	}
	return rc;
}

/* GPUs, link classes (NV# from the NVLink remotes, as topo counts them) */
static void build_gpus(struct p2p_run *p)
{
	json_t *o;
	size_t i;
	p->driver = json_string_value(json_object_get(p->topo, "driver_version"));
	json_array_foreach(json_object_get(p->topo, "gpus"), i, o) {
		if (p->n >= P2P_MAX_GPUS)
			break;
		struct pgpu *g = &p->g[p->n++];
		memset(g, 0, sizeof(*g));
		g->index = (int)json_get_int(o, "index", (long long)i);
		const char *bdf = json_string_value(json_object_get(o, "bdf"));
		str_copy(g->bdf, bdf ? bdf : "", sizeof(g->bdf));
		g->name = json_string_value(json_object_get(o, "name"));
		g->uuid = json_string_value(json_object_get(o, "uuid"));
		g->gen = (int)json_get_int(o, "pcie_max_gen", 0);
		g->width = (int)json_get_int(o, "pcie_cur_width", 0);
		g->lost = json_is_true(json_object_get(o, "lost"));
		g->selected = gpusel_match(&p->opt->gpus, g->index, g->uuid, g->bdf);
	}
	json_array_foreach(json_object_get(p->cuda, "devices"), i, o) {
		const char *bdf = json_string_value(json_object_get(o, "bdf"));
		const char *cc = json_string_value(json_object_get(o, "compute_capability"));
		for (int k = 0; bdf && cc && k < p->n; k++)
			if (strcmp(p->g[k].bdf, bdf) == 0)
				p->g[k].cc_major = atoi(cc);
	}
	p->env[0] = worker_env[0];
	p->env[1] = NULL;
	/* the workers see the GPUs in NVML order, as devices 0..n-1; without a
	 * UUID for each (or with an odd one) they keep CUDA's own order */
	const char *ids[P2P_MAX_GPUS];
	for (int k = 0; k < p->n; k++)
		ids[k] = p->g[k].uuid;
	if (cvd_format(p->visible, sizeof(p->visible), ids, (size_t)p->n, NULL) == 0)
		p->env[1] = p->visible;
	int *nv = xcalloc((size_t)p->n * (size_t)p->n + 1, sizeof(*nv));
	link_nv_matrix(json_object_get(p->topo, "gpus"), p->n, nv);
	for (int a = 0; a < p->n; a++)
		for (int b = 0; b < p->n; b++) {
			p->link[a][b].nvlinks = nv[a * p->n + b];
			str_copy(p->nvml_p2p[a][b], a == b ? "X" : "?", sizeof(p->nvml_p2p[a][b]));
		}
	free(nv);
	json_array_foreach(json_object_get(p->topo, "pairs"), i, o) {
		int a = (int)json_get_int(o, "a", -1), b = (int)json_get_int(o, "b", -1);
		if (a < 0 || b < 0 || a >= p->n || b >= p->n)
			continue;
		/* NVML's answers are symmetric; a listing of one order fills both */
		for (int k = 0; k < 2; k++) {
			int x = k ? b : a, y = k ? a : b;
			if (p->link[x][y].nvlinks)
				p->link[x][y].cls = LINK_NV;
			else if (json_is_integer(json_object_get(o, "level")))
				p->link[x][y].cls = link_of_nvml_level(json_get_int(o, "level", -1));
			const char *rd = json_string_value(json_object_get(json_object_get(o, "p2p"), "read"));
			if (k == 0 || strcmp(p->nvml_p2p[x][y], "?") == 0) {
				str_copy(p->nvml_p2p[x][y], rd ? rd : "?", sizeof(p->nvml_p2p[x][y]));
				p->nvml_caps[x][y] = json_object_get(o, "p2p");
			}
		}
	}
}

/* the busy check (p2p-procs): GPUs with compute processes */
static void busy_check(struct p2p_run *p)
{
	json_t *o;
	size_t i;
	json_array_foreach(json_object_get(p->procs, "gpus"), i, o) {
		int idx = (int)json_get_int(o, "index", -1);
		for (int k = 0; k < p->n; k++) {
			if (p->g[k].index != idx)
				continue;
			long long n = json_get_int(o, "process_count", 0);
			if (n <= 0)
				continue;
			p->g[k].busy = true;
			char buf[32];
			json_t *pr = json_array_get(json_object_get(o, "processes"), 0);
			snprintf(p->g[k].busy_why, sizeof(p->g[k].busy_why), "%lld compute process%s (pid %lld, %s), %s in use", n,
				 n == 1 ? "" : "es", json_get_int(pr, "pid", -1), fmt_bytes((uint64_t)json_get_int(pr, "memory", 0), buf, sizeof(buf)),
				 fmt_bytes((uint64_t)json_get_int(o, "memory_used", 0), buf + 16, 16));
		}
	}
	p->ntested = 0;
	for (int k = 0; k < p->n; k++)
		if (p->g[k].selected && !p->g[k].lost && (!p->g[k].busy || p->force))
			p->tested[p->ntested++] = k;
}

/* GPUs busy with no process now, per p2p-procs; false when it failed */
static bool idle_busy(struct p2p_run *p, bool *busy, const char *label)
{
	struct worker w;
	struct worker_spec s = { .task = "p2p-procs", .env = p->env, .deadline = opt_deadline(p->opt, DEADLINE_QUERY),
				 .grace = 1 };
	worker_run(&w, &s);
	keep_worker(p, &w, label);
	json_t *o, *res = w.status == WORKER_OK ? worker_result(&w) : NULL;
	size_t i;
	json_array_foreach(json_object_get(res, "gpus"), i, o) {
		int idx = (int)json_get_int(o, "index", -1);
		for (int k = 0; k < p->n; k++)
			if (p->g[k].index == idx)
				busy[k] = json_get_int(o, "utilization", 0) > 0 && json_get_int(o, "process_count", 1) == 0;
	}
	worker_release(&w);
	return res != NULL;
}

/* after a hang: a GPU of the hung pairs that shows utilisation with no
 * process, twice 1.5 s apart (NVML averages over up to a second, which may
 * still hold the killed worker's own work), is wedged */
static void wedged_check(struct p2p_run *p, const bool *hung, const char *after)
{
	bool b1[P2P_MAX_GPUS] = { false }, b2[P2P_MAX_GPUS] = { false };
	if (!idle_busy(p, b1, "wedged check"))
		return;
	bool any = false;
	for (int k = 0; k < p->n; k++)
		any |= hung[k] && b1[k] && !p->g[k].wedged;
	if (!any)
		return;
	struct timespec ts = { 1, 500000000 };
	nanosleep(&ts, NULL);
	if (!idle_busy(p, b2, "wedged check, second sample"))
		return;
	for (int k = 0; k < p->n; k++)
		if (hung[k] && b1[k] && b2[k] && !p->g[k].wedged) {
			p->g[k].wedged = true;
			str_copy(p->g[k].wedged_after, after, sizeof(p->g[k].wedged_after));
			p2p_progress(p, "p2p: GPU %d stays busy with no process after the hang: wedged", p->g[k].index);
		}
}

/* --- per-GPU numbers ---------------------------------------------------- */

static void gpu_numbers(struct p2p_run *p)
{
	progress_count(&p->prog, "GPUs", p->ntested, nd_now_s());
	for (int t = 0; t < p->ntested; t++) {
		struct pgpu *g = &p->g[p->tested[t]];
		progress_done(&p->prog, t);
		char dev[16], size[32], reps[16];
		snprintf(dev, sizeof(dev), "%d", g->index);
		snprintf(size, sizeof(size), "%lld", p->gsize);
		snprintf(reps, sizeof(reps), "%lld", p->reps);
		const char *args[] = { "--device", dev, "--size", size, "--reps", reps, NULL };
		/* K=4 copies of S bytes, N+1 times, four kinds, at >= 2 GB/s */
		double need = 20 + 4.0 * 4 * (double)p->gsize * (double)(p->reps + 1) / 2e9 + 10;
		struct worker_spec s = { .task = "p2p-gpu", .args = args, .env = p->env,
					 .deadline = p->opt->timeout > 0 ? p->opt->timeout : need, .stage_deadline = 15, .grace = 1 };
		struct worker w;
		p2p_progress(p, "p2p: GPU %d: kernels and local bandwidth", g->index);
		worker_run(&w, &s);
		keep_worker(p, &w, dev);
		g->measured = true;
		json_t *o;
		size_t i;
		json_array_foreach(w.results, i, o) {
			const char *step = json_string_value(json_object_get(o, "step"));
			const char *bdf = json_string_value(json_object_get(o, "bdf"));
			if (step && strcmp(step, "verify") == 0 && bdf && *bdf && strcmp(bdf, g->bdf) != 0) {
				char want[PCI_BDF_LEN + 16];
				str_copy(want, g->bdf, sizeof(want));
				g->status = P2P_ERROR;
				snprintf(g->detail, sizeof(g->detail), "CUDA device %d is %.32s, not NVML's %.32s: device order", g->index,
					 bdf, want);
			}
			if (step && strcmp(step, "verify") == 0 && json_object_get(o, "failed")) {
				g->status = P2P_CORRUPT;
				snprintf(g->detail, sizeof(g->detail), "%s gave wrong data at offset %lld",
					 json_string_value(json_object_get(o, "failed")), json_get_int(o, "first_bad_offset", -1));
			}
			if (step && strcmp(step, "bandwidth") == 0) {
				g->ce = json_number_value(json_object_get(o, "local_copy_ce_gbs"));
				g->sm = json_number_value(json_object_get(o, "local_copy_sm_gbs"));
				g->h2d = json_number_value(json_object_get(o, "h2d_gbs"));
				g->d2h = json_number_value(json_object_get(o, "d2h_gbs"));
			}
		}
		if (g->status == P2P_OK && w.status != WORKER_OK) {
			json_t *e = worker_error(&w);
			const char *name = e ? json_string_value(json_object_get(e, "name")) : NULL;
			g->status = w.status == WORKER_HANG ? P2P_HANG : P2P_ERROR;
			snprintf(g->detail, sizeof(g->detail), "%s at '%.120s'%s%.40s", worker_status_name(w.status), w.stage,
				 name ? ": " : "", name ? name : "");
		}
		worker_release(&w);
	}
}

/* --- pair function tests ---------------------------------------------- */

struct pjob {
	struct worker w;
	char a[16], b[16], size[32], seed[16];
	const char *args[12];
	int src, dst;              /* positions */
};

static void start_pair(struct p2p_run *p, struct pjob *j, int src, int dst, unsigned seed, double deadline)
{
	j->src = src;
	j->dst = dst;
	snprintf(j->a, sizeof(j->a), "%d", p->g[src].index);
	snprintf(j->b, sizeof(j->b), "%d", p->g[dst].index);
	snprintf(j->size, sizeof(j->size), "%lld", p->fsize);
	snprintf(j->seed, sizeof(j->seed), "%u", seed);
	const char *args[] = { "--a", j->a, "--b", j->b, "--size", j->size, "--seed", j->seed, "--one-way", NULL };
	memcpy(j->args, args, sizeof(args));
	struct worker_spec s = { .task = "p2p-pair", .args = j->args, .env = p->env,
				 .deadline = deadline, .stage_deadline = 15, .grace = 1 };
	worker_init(&j->w);
	worker_start(&j->w, &s);
}

/* the worker's CUDA devices must be the GPUs NVML named (device order) */
static void check_order(struct p2p_run *p, struct p2p_result *r, json_t *results)
{
	json_t *o;
	size_t i;
	json_array_foreach(results, i, o) {
		const char *ba = json_string_value(json_object_get(o, "a_bdf"));
		const char *bb = json_string_value(json_object_get(o, "b_bdf"));
		if (!ba || !bb || !*ba || !*bb)
			continue;
		if (strcmp(ba, p->g[r->src].bdf) != 0 || strcmp(bb, p->g[r->dst].bdf) != 0) {
			snprintf(r->error, sizeof(r->error), "CUDA devices are %s and %s, not NVML's", ba, bb);
			p2p_result_raise(r, P2P_ERROR, "device order");
		}
	}
}

static void void_pair(struct p2p_run *p, int a, int b, int why)
{
	struct p2p_result *r = pres(p, a, b);
	char step[160];
	snprintf(step, sizeof(step), "GPU %d wedged after %s", p->g[why].index, p->g[why].wedged_after);
	p2p_result_raise(r, P2P_VOID, step);
}

/* --- NCCL send/recv between two rank processes ------------------------ */

/* One pair's communicator: the rank protocol of run/ranks.h, launched here
 * so that the pairs of a round start together (rank 0 creates the id, rank
 * 1 starts once it is known). */
struct njob {
	struct worker w[2];
	int a, b;                  /* positions */
	bool started[2];
	char dev[2][16], count[24], id[300];
	const char *args[2][16];
	double deadline;
};

static void nccl_start(struct p2p_run *p, struct njob *j, int rank)
{
	const char **v = j->args[rank];
	int n = 0;
	v[n++] = "--nranks";
	v[n++] = "2";
	v[n++] = "--rank";
	v[n++] = rank ? "1" : "0";
	v[n++] = "--device";
	v[n++] = j->dev[rank];
	v[n++] = "--count";
	v[n++] = j->count;
	v[n++] = "--id";
	v[n++] = rank ? j->id : "create";
	if (p->opt->nccl) {
		v[n++] = "--nccl";
		v[n++] = p->opt->nccl;
	}
	v[n] = NULL;
	struct worker_spec s = { .task = "p2p-nccl", .args = v, .env = p->env, .deadline = j->deadline, .grace = 1 };
	j->started[rank] = worker_start(&j->w[rank], &s) == 0;
}

/* A variable the user set that NCCL's output (the ranks' tails, the
 * error NCCL gave) implicates when the pair's communicator failed: the
 * NCCL step says nothing about the pair then. */
static bool nccl_user_env(struct p2p_run *p, struct njob *j)
{
	if (!p->uenv.n || (j->w[0].status == WORKER_OK && j->w[1].status == WORKER_OK))
		return false;
	struct strbuf text;
	strbuf_init(&text, 1 << 16);
	for (int k = 0; k < 2; k++) {
		strbuf_addf(&text, "%s\n", strbuf_str(&j->w[k].tail));
		const char *msg = json_string_value(json_object_get(worker_error(&j->w[k]), "message"));
		if (msg)
			strbuf_addf(&text, "%s\n", msg);
	}
	struct uenv_hit h[UENV_MAX];
	int n = uenv_run_hits(&p->uenv, strbuf_str(&text), h, UENV_MAX);
	strbuf_release(&text);
	for (int k = 0; k < n; k++)
		if (h[k].fatal) {
			if (!p->nccl_env.name[0])
				p->nccl_env = h[k];
			p->nccl_env_pairs++;
			return true;
		}
	return false;
}

static void nccl_apply(struct p2p_run *p, struct njob *j)
{
	struct p2p_result *ab = pres(p, j->a, j->b), *ba = pres(p, j->b, j->a);
	if (nccl_user_env(p, j)) {
		for (int k = 0; k < 2; k++) {
			char label[64];
			snprintf(label, sizeof(label), "nccl %d<->%d rank %d", p->g[j->a].index, p->g[j->b].index, k);
			keep_worker(p, &j->w[k], label);
			j->w[k].spec.args = NULL;
		}
		p2p_progress(p, "p2p: nccl %d<->%d: not run: %s=%s set by you (%s)", p->g[j->a].index, p->g[j->b].index,
			     p->nccl_env.name, p->nccl_env.value, p->nccl_env.line);
		return;
	}
	for (int k = 0; k < 2; k++) {
		struct worker *w = &j->w[k];
		json_t *res = NULL, *o;
		size_t x;
		json_array_foreach(w->results, x, o)
			if (json_object_get(o, "step"))
				res = o;
		/* rank 0 (GPU a) receives b -> a */
		struct p2p_result *recv = k == 0 ? ba : ab, *send = k == 0 ? ab : ba;
		enum worker_status st = w->status;
		if (!j->started[k] || st == WORKER_RUNNING) {
			st = WORKER_ERROR;
			if (!w->why[0])
				snprintf(w->why, sizeof(w->why), "not started: rank 0 gave no unique id");
		}
		p2p_apply_nccl(recv, st == WORKER_OK ? NULL : send, st, res, w->stage, worker_error(w), w->signal);
		char label[64];
		snprintf(label, sizeof(label), "nccl %d<->%d rank %d", p->g[j->a].index, p->g[j->b].index, k);
		keep_worker(p, w, label);
		w->spec.args = NULL;
	}
	/* NCCL's own outcome: the pair's status also holds its copies' (a
	 * copy that hung must not read as "nccl ... HANG at 'ce copy'") */
	for (int k = 0; k < 2; k++) {
		const struct worker *w = &j->w[k];
		if (!j->started[k] || w->status == WORKER_OK)
			continue;
		p2p_progress(p, "p2p: nccl %d<->%d: rank %d %s at '%s'", p->g[j->a].index, p->g[j->b].index, k,
			     j->started[k] ? worker_status_name(w->status) : "not started", w->stage);
		break;
	}
}

/* Runs the communicators of jobs while the extra workers (the function
 * tests of the same round) run too; returns when every one has ended. */
static void nccl_round(struct p2p_run *p, struct njob *jobs, int nj, struct worker **extra, size_t nextra)
{
	for (int k = 0; k < nj; k++)
		nccl_start(p, &jobs[k], 0);
	/* start each rank 1 as soon as its rank 0 has reported the id; the
	 * others are polled meanwhile so that their deadlines hold */
	for (;;) {
		struct worker *wait[3 * P2P_MAX_GPUS];
		size_t nw = 0;
		bool pending = false;
		for (int k = 0; k < nj; k++) {
			struct njob *j = &jobs[k];
			if (j->started[1] || !j->started[0])
				continue;
			json_t *res = worker_result(&j->w[0]);
			const char *id = res ? json_string_value(json_object_get(res, "unique_id")) : NULL;
			if (id) {
				str_copy(j->id, id, sizeof(j->id));
				nccl_start(p, j, 1);
			} else if (j->w[0].status == WORKER_RUNNING) {
				wait[nw++] = &j->w[0];
				pending = true;
			}
		}
		if (!pending)
			break;
		for (size_t x = 0; x < nextra; x++)
			if (extra[x]->status == WORKER_RUNNING)
				wait[nw++] = extra[x];
		worker_poll(wait, nw, 0.05);
	}
	struct worker *all[3 * P2P_MAX_GPUS];
	size_t na = 0;
	for (int k = 0; k < nj; k++)
		for (int r = 0; r < 2; r++)
			if (jobs[k].started[r] && jobs[k].w[r].status == WORKER_RUNNING)
				all[na++] = &jobs[k].w[r];
	for (size_t x = 0; x < nextra; x++)
		if (extra[x]->status == WORKER_RUNNING)
			all[na++] = extra[x];
	worker_wait(all, na);
}

static void nccl_job_init(struct p2p_run *p, struct njob *j, int a, int b, double deadline)
{
	memset(j, 0, sizeof(*j));
	j->deadline = deadline;
	worker_init(&j->w[0]);
	worker_init(&j->w[1]);
	j->a = a;
	j->b = b;
	snprintf(j->dev[0], sizeof(j->dev[0]), "%d", p->g[a].index);
	snprintf(j->dev[1], sizeof(j->dev[1]), "%d", p->g[b].index);
	snprintf(j->count, sizeof(j->count), "%lld", p->fsize / 4);
}

/* A link class as a key: "PXB" and "NV12" apart, NV12 and NV18 apart. */
static int class_key(const struct p2p_run *p, int a, int b)
{
	return ((int)p->link[a][b].cls * 64 + (p->link[a][b].nvlinks < 63 ? p->link[a][b].nvlinks : 63)) & 1023;
}

struct plan_state {
	double t0, slowest_ok;    /* the slowest worker that ended well, s */
	bool hung[1024];          /* by class key: a pair of the class hung */
	bool nccl_done[1024];     /* by class key: NCCL tested on one of its pairs */
};

static void plan_ended(struct plan_state *ps, const struct worker *w)
{
	if (w->status == WORKER_OK && w->t_end > w->t_start && w->t_end - w->t_start > ps->slowest_ok)
		ps->slowest_ok = w->t_end - w->t_start;
}

/* The deadline of round r0's workers (default: def) under the budget. */
static double plan_round_deadline(struct p2p_run *p, const struct plan_state *ps, int r0, double def)
{
	if (p->budget <= 0)
		return def;
	double left = p->budget - (nd_now_s() - ps->t0);
	double d = left / (p->rounds - r0 > 0 ? p->rounds - r0 : 1);
	if (d > def)
		d = def;
	if (d < P2P_PLAN_FLOOR)
		d = def < P2P_PLAN_FLOOR ? def : P2P_PLAN_FLOOR;
	if (r0 == 0)
		p->plan.first_deadline = d;
	return d;
}

/* A pair of a class that already hung: long enough for a pair that works
 * (three times the slowest that ended well), not a full round's wait. */
static double plan_pair_deadline(struct p2p_run *p, const struct plan_state *ps, int key, double d)
{
	if (p->budget <= 0 || !ps->hung[key])
		return d;
	double s = 3 * ps->slowest_ok;
	if (s < P2P_PLAN_SHORT)
		s = P2P_PLAN_SHORT;
	if (s >= d)
		return d;
	p->plan.shortened++;
	p->plan.short_deadline = s;
	return s;
}

static void function_tests(struct p2p_run *p)
{
	int (*pairs)[2] = xcalloc((size_t)P2P_MAX_GPUS * P2P_MAX_GPUS, sizeof(*pairs));
	int *round = xcalloc((size_t)P2P_MAX_GPUS * P2P_MAX_GPUS, sizeof(int));
	int np = p2p_schedule(p->ntested, pairs, round, P2P_MAX_GPUS * P2P_MAX_GPUS);
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid() << 16;
	p->rounds = np ? round[np - 1] + 1 : 0;
	struct pjob *jobs = xcalloc((size_t)P2P_MAX_GPUS, sizeof(*jobs));
	struct njob *njobs = xcalloc((size_t)P2P_MAX_GPUS, sizeof(*njobs));
	struct plan_state *ps = xcalloc(1, sizeof(*ps));
	ps->t0 = nd_now_s();
	double def_pair = opt_deadline(p->opt, DEADLINE_QUERY), def_nccl = opt_deadline(p->opt, DEADLINE_RANKS);
	/* every round at NCCL's default deadline would not fit: NCCL on one
	 * pair per link class (the copies still test every pair) */
	p->plan.nccl_per_class = p->budget > 0 && !p->no_nccl && p->rounds * def_nccl > p->budget;
	progress_count(&p->prog, "pairs", np, nd_now_s());
	for (int k = 0; k < np;) {
		progress_done(&p->prog, k);
		int r0 = round[k], nj = 0, nn = 0;
		bool hung[P2P_MAX_GPUS] = { false };
		char after[64] = "";
		double dp = plan_round_deadline(p, ps, r0, def_pair), dn = plan_round_deadline(p, ps, r0, def_nccl);
		for (; k < np && round[k] == r0; k++) {
			int a = p->tested[pairs[k][0]], b = p->tested[pairs[k][1]];
			int wa = p->g[a].wedged ? a : p->g[b].wedged ? b : -1;
			if (wa >= 0) {
				void_pair(p, a, b, wa);
				void_pair(p, b, a, wa);
				p->pair_run[a][b] = p->pair_run[b][a] = true;
				continue;
			}
			int key = class_key(p, a, b);
			double d = plan_pair_deadline(p, ps, key, dp);
			if (p->budget > 0 && (p->plan.min_deadline <= 0 || d < p->plan.min_deadline))
				p->plan.min_deadline = d;
			start_pair(p, &jobs[nj++], a, b, seed + (unsigned)k * 16, d);
			start_pair(p, &jobs[nj++], b, a, seed + (unsigned)k * 16 + 8, d);
			if (p->no_nccl)
				continue;
			if (p->plan.nccl_per_class && ps->nccl_done[key]) {
				p->plan.nccl_skipped++;
				continue;
			}
			ps->nccl_done[key] = true;
			nccl_job_init(p, &njobs[nn++], a, b, ps->hung[key] ? d : dn);
		}
		p2p_progress(p, "p2p: round %d/%d: %d transfer%s and %d NCCL pair%s under test", r0 + 1, p->rounds, nj,
			     nj == 1 ? "" : "s", nn, nn == 1 ? "" : "s");
		struct worker *ws[P2P_MAX_GPUS];
		size_t nw = 0;
		for (int j = 0; j < nj; j++)
			if (jobs[j].w.status == WORKER_RUNNING)
				ws[nw++] = &jobs[j].w;
		/* NCCL between the same GPUs at the same time: a round costs the
		 * longer of the two, not their sum */
		nccl_round(p, njobs, nn, ws, nw);
		for (int j = 0; j < nj; j++) {
			struct pjob *jb = &jobs[j];
			struct p2p_result *r = pres(p, jb->src, jb->dst);
			p->pair_run[jb->src][jb->dst] = true;
			plan_ended(ps, &jb->w);
			p2p_apply_pair_worker(r, jb->w.status, jb->w.results, jb->w.stage, worker_error(&jb->w), jb->w.signal);
			check_order(p, r, jb->w.results);
			char label[64];
			snprintf(label, sizeof(label), "%d->%d", p->g[jb->src].index, p->g[jb->dst].index);
			keep_worker(p, &jb->w, label);
			if (r->status == P2P_HANG) {
				hung[jb->src] = hung[jb->dst] = true;
				ps->hung[class_key(p, jb->src, jb->dst)] = true;
				snprintf(after, sizeof(after), "the hang of %.40s", label);
			}
			if (r->status >= P2P_ERROR)
				p2p_progress(p, "p2p: %s: %s at '%s'", label, p2p_status_name(r->status), r->step);
			jb->w.spec.args = NULL;
			worker_release(&jb->w);
		}
		for (int j = 0; j < nn; j++) {
			struct njob *nb = &njobs[j];
			plan_ended(ps, &nb->w[0]);
			plan_ended(ps, &nb->w[1]);
			nccl_apply(p, nb);
			if (pres(p, nb->a, nb->b)->status == P2P_HANG || pres(p, nb->b, nb->a)->status == P2P_HANG) {
				hung[nb->a] = hung[nb->b] = true;
				ps->hung[class_key(p, nb->a, nb->b)] = true;
				if (!after[0])
					snprintf(after, sizeof(after), "the NCCL hang of %d<->%d", p->g[nb->a].index, p->g[nb->b].index);
			}
			worker_release(&nb->w[0]);
			worker_release(&nb->w[1]);
		}
		if (after[0])
			wedged_check(p, hung, after);
	}
	free(ps);
	free(jobs);
	free(njobs);
	free(pairs);
	free(round);
}

/* --- bandwidth, one pair at a time -------------------------------------- */

static void bandwidth(struct p2p_run *p)
{
	long long nbw = 0, done = 0;
	for (int i = 0; i < p->ntested; i++)
		for (int j = i + 1; j < p->ntested; j++)
			nbw += pres(p, p->tested[i], p->tested[j])->status < P2P_ERROR &&
			       pres(p, p->tested[j], p->tested[i])->status < P2P_ERROR;
	progress_count(&p->prog, "pairs", nbw, nd_now_s());
	for (int i = 0; i < p->ntested; i++)
		for (int j = i + 1; j < p->ntested; j++) {
			int a = p->tested[i], b = p->tested[j];
			struct p2p_result *ab = pres(p, a, b), *ba = pres(p, b, a);
			if (ab->status >= P2P_ERROR || ba->status >= P2P_ERROR)
				continue;
			progress_done(&p->prog, done++);
			char sa[16], sb[16], size[32], reps[16];
			snprintf(sa, sizeof(sa), "%d", p->g[a].index);
			snprintf(sb, sizeof(sb), "%d", p->g[b].index);
			snprintf(size, sizeof(size), "%lld", p->bsize);
			snprintf(reps, sizeof(reps), "%lld", p->reps);
			const char *args[] = { "--a", sa, "--b", sb, "--size", size, "--reps", reps, "--bw", NULL };
			/* both passes, both ways, 3 kinds, K=4 copies, N+1 times, at >= 1 GB/s */
			double need = 20 + 2 * 2 * 3 * 4.0 * (double)p->bsize * (double)(p->reps + 1) / 1e9;
			struct worker_spec s = { .task = "p2p-pair", .args = args, .env = p->env,
						 .deadline = p->opt->timeout > 0 ? p->opt->timeout : need, .stage_deadline = 15,
						 .grace = 1 };
			struct worker w;
			p2p_progress(p, "p2p: bandwidth %s<->%s", sa, sb);
			worker_run(&w, &s);
			char label[64];
			snprintf(label, sizeof(label), "bandwidth %s<->%s", sa, sb);
			keep_worker(p, &w, label);
			p2p_apply_bandwidth(ab, ba, w.results);
			if (w.status != WORKER_OK) {
				/* a GPU that hangs or fails under load is a finding, not a gap */
				json_t *e = worker_error(&w);
				const char *name = e ? json_string_value(json_object_get(e, "name")) : NULL;
				char step[160];
				snprintf(step, sizeof(step), "bandwidth %.140s", w.stage);
				for (int k = 0; k < 2; k++) {
					struct p2p_result *x = k ? ba : ab;
					if (w.status == WORKER_CRASH)
						snprintf(x->error, sizeof(x->error), "signal %d", w.signal);
					else
						snprintf(x->error, sizeof(x->error), "%.90s", name ? name : worker_status_name(w.status));
					p2p_result_raise(x, w.status == WORKER_HANG ? P2P_HANG : P2P_ERROR, step);
				}
			}
			w.spec.args = NULL;
			worker_release(&w);
			for (int k = 0; k < 2; k++) {
				struct p2p_result *r = k ? ba : ab;
				bool p2p_on = r->can_access == 1;
				struct pgpu *gs = &p->g[r->src], *gd = &p->g[r->dst];
				int gen = gs->gen && gd->gen ? (gs->gen < gd->gen ? gs->gen : gd->gen) : 0;
				int width = gs->width && gd->width ? (gs->width < gd->width ? gs->width : gd->width) : 0;
				int cc = gs->cc_major < gd->cc_major ? gs->cc_major : gd->cc_major;
				p2p_judge_speed(r, p2p_expected_gbs(&p->link[r->src][r->dst], cc, gen, width, p2p_on));
			}
		}
}

static void release_run(struct p2p_run *p)
{
	json_decref(p->topo);
	json_decref(p->cuda);
	json_decref(p->procs);
	json_decref(p->workers);
	free(p->res);
	if (p->own_mach) {
		machine_release(p->mach);
		free(p->mach);
	}
	free(p);
}

/* What the budget planner shortened, in the report (text and JSON). */
static void plan_report(struct result *r, const struct p2p_run *p)
{
	if (p->budget <= 0 || p->rounds == 0)
		return;
	const struct p2p_plan *pl = &p->plan;
	json_t *j = json_pack("{s:f,s:i,s:f,s:f,s:b,s:i,s:i,s:f}", "budget_s", round(p->budget * 10) / 10, "rounds",
			      p->rounds, "first_deadline_s", round(pl->first_deadline * 10) / 10, "min_deadline_s",
			      round(pl->min_deadline * 10) / 10, "nccl_per_class", pl->nccl_per_class, "nccl_skipped",
			      pl->nccl_skipped, "shortened", pl->shortened, "short_deadline_s",
			      round(pl->short_deadline * 10) / 10);
	if (j)
		json_object_set_new(r->extra, "plan", j);
	/* the text says it only when the plan shortened something */
	if (pl->first_deadline >= opt_deadline(p->opt, DEADLINE_RANKS) && !pl->nccl_per_class && !pl->shortened)
		return;
	struct section *s = result_section(r, "plan", "Plan");
	section_add(s, "budget", "budget", val_strf("%.0f s for %d round%s of disjoint pairs, first round's deadline %.1f s "
						    "(default %.0f s)", p->budget, p->rounds, p->rounds == 1 ? "" : "s",
						    pl->first_deadline, opt_deadline(p->opt, DEADLINE_RANKS)));
	if (pl->nccl_per_class)
		section_note(s, "NCCL tested on one pair per link class (%d pair%s left out): every pair at the default "
				"deadline would not fit the budget; the copies test every pair",
			     pl->nccl_skipped, pl->nccl_skipped == 1 ? "" : "s");
	if (pl->shortened)
		section_note(s, "%d pair%s of a link class that already hung got %.1f s (3x the slowest pair that worked) "
				"instead of the round's deadline", pl->shortened, pl->shortened == 1 ? "" : "s",
			     pl->short_deadline);
}

struct p2p_run *p2p_run_new(const struct run_opts *opt)
{
	struct p2p_run *p = xcalloc(1, sizeof(*p));
	p->opt = opt;
	p->fsize = 4 << 20;
	p->bsize = 64 << 20;
	p->gsize = 512 << 20;
	p->reps = 10;
	return p;
}

void p2p_run_free(struct p2p_run *p)
{
	release_run(p);
}

void p2p_execute(struct result *r, struct p2p_run *p)
{
	p->t_start = nd_now_s();
	uenv_run_load(&p->uenv);
	p->workers = json_array();
	if (!p->mach) {
		p->mach = xcalloc(1, sizeof(*p->mach));
		machine_init(p->mach);
		p->own_mach = true;
	}
	if (facts(r, p) == 0) {
		build_gpus(p);
		p->res = xcalloc((size_t)p->n * (size_t)(p->n ? p->n : 1), sizeof(*p->res));
		for (int a = 0; a < p->n; a++)
			for (int b = 0; b < p->n; b++)
				p2p_result_init(pres(p, a, b), a, b);
		busy_check(p);
		int nsel = 0;
		for (int k = 0; k < p->n; k++)
			nsel += p->g[k].selected;
		if (p->n == 0)
			result_set_error(r, "NVML lists no GPU");
		else if (nsel == 0)
			result_set_error(r, "--gpus '%s' selects none of the %d GPUs", p->opt->gpus.text, p->n);
		double t = nd_now_s();
		if (!p->quick && !r->error)
			gpu_numbers(p);
		p->t_gpus = nd_now_s() - t;
		t = nd_now_s();
		if (!r->error)
			function_tests(p);
		p->t_func = nd_now_s() - t;
		t = nd_now_s();
		if (!r->error && !p->quick)
			bandwidth(p);
		p->t_bw = nd_now_s() - t;
		if (!r->error) {
			collect_pci(p->mach);
			collect_host(p->mach);
			p->pci = &p->mach->pci;
			p->have_pci = p->mach->pci_err >= 0;
			p->host = &p->mach->host;
			p->have_host = true;
			p2p_show(r, p);
			plan_report(r, p);
			p2p_findings(r, p);
		}
	}
	json_object_set_new(r->extra, "workers", json_incref(p->workers));
}
