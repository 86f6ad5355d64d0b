/* nccl-doctor bench: the collective benchmark of nccl-tests, with its flags,
 * numbers and text (byte for byte, so that DCGM's, aznhc's and gcm's
 * scrapers read it), run as one worker process per GPU (as vLLM and torchrun
 * run NCCL), under deadlines: a rank that hangs in init or in a collective is
 * aborted and named with its phase, and the rows done so far stay printed.
 * Each rank also reports its NCCL version, init time and the transports
 * NCCL chose (its own INFO lines, read with analyze/nccllog.h).
 *
 * The bench engine: the launch, collection, combination and diagnosis of
 * the ranks, for `bench` (cmd/bench.c: options; cmd/bench_report.c: the
 * output) and for every trial of the fix search (engine/fix_search.c). The
 * rank task is gpu/bench.c. */
#include "analyze/worker_findings.h"
#include "engine/bench.h"
#include "kb/findings.h"
#include "report/report.h"
#include "run/ranks.h"
#include "util/clock.h"
#include "util/progress.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void bench_opts_init(struct bench_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->op = BOP_ALL_REDUCE, o->type = BT_FLOAT, o->redop = BR_SUM;
	o->min_bytes = o->max_bytes = 32ULL << 20, o->step_bytes = 1ULL << 20, o->step_factor = 1;
	o->iters = 20, o->warmup = 1, o->agg = 1, o->cycles = 1, o->check = 1, o->nthreads = 1, o->average = 1;
	o->init_timeout = BENCH_DEFAULT_INIT_TIMEOUT;
	o->cta_policy = -1, o->device_ctas = 16;
}

int bench_trial_opts(struct bench_opts *o, int ngpus, double coll_timeout, double init_timeout)
{
	bench_opts_init(o);
	if (ngpus < 1 || ngpus > BENCH_MAX_RANKS || !(coll_timeout >= 0 && coll_timeout <= 86400) ||
	    !(init_timeout > 0 && init_timeout <= 86400))
		return -EINVAL;
	long long first = 0;
	const char *e = getenv("NCCL_TESTS_DEVICE");
	if (e && (parse_ll(e, 10, &first) < 0 || first < 0 || first > 1023)) {
		/* said as `bench` says it: the trials were once set up by its parser */
		fputs("nccl-doctor bench: ", stderr);
		report_say(stderr, "NCCL_TESTS_DEVICE is not a GPU index: '%s'", e);
		fputs("try 'nccl-doctor bench --help'\n", stderr);
		return -EINVAL;
	}
	o->iters = 5;
	o->ngpus = ngpus;
	o->coll_timeout = coll_timeout;
	o->init_timeout = init_timeout;
	o->event_timer = true;
	o->nsizes = bench_sizes(o->min_bytes, o->max_bytes, o->step_bytes, o->step_factor, o->sizes, BENCH_MAX_SIZES);
	o->nranks = ngpus;
	for (int i = 0; i < o->nranks; i++)
		o->devices[i] = (int)first + i;
	o->types[o->ntypes++] = BT_FLOAT;
	o->redops[o->nredops++] = BR_SUM;
	o->roots[o->nroots++] = 0;
	return 0;
}

static void build_task_args(const struct bench_opts *o, struct bench_task_args *t)
{
	size_t off = 0;
	for (int i = 0; i < o->nsizes; i++)
		off += (size_t)snprintf(t->sizes + off, sizeof(t->sizes) - off, "%s%llu", i ? "," : "",
					(unsigned long long)o->sizes[i]);
	size_t k = 0;
	for (int i = 0; i < o->ntypes; i++)
		k += (size_t)snprintf(t->types + k, sizeof(t->types) - k, "%s%s", i ? "," : "", bench_type_name(o->types[i]));
	k = 0;
	for (int i = 0; i < o->nredops; i++)
		k += (size_t)snprintf(t->redops + k, sizeof(t->redops) - k, "%s%s", i ? "," : "", bench_redop_name(o->redops[i]));
	k = 0;
	for (int i = 0; i < o->nroots; i++)
		k += (size_t)snprintf(t->root + k, sizeof(t->root) - k, "%s%d", i ? "," : "", o->roots[i]);
	snprintf(t->iters, sizeof(t->iters), "%lld", o->iters);
	snprintf(t->warmup, sizeof(t->warmup), "%lld", o->warmup);
	snprintf(t->agg, sizeof(t->agg), "%lld", o->agg);
	snprintf(t->check, sizeof(t->check), "%lld", o->check);
	snprintf(t->cycles, sizeof(t->cycles), "%lld", o->cycles);
	snprintf(t->blocking, sizeof(t->blocking), "%lld", o->blocking);
	snprintf(t->unalign, sizeof(t->unalign), "%lld", o->unalign);
	snprintf(t->initto, sizeof(t->initto), "%g", o->init_timeout);
	snprintf(t->collto, sizeof(t->collto), "%g", o->coll_timeout);
	int n = 0;
	const char **a = t->argv;
	a[n++] = "--op", a[n++] = bench_op_info(o->op)->name;
	a[n++] = "--type", a[n++] = t->types;
	a[n++] = "--redop", a[n++] = t->redops;
	a[n++] = "--root", a[n++] = t->root;
	a[n++] = "--sizes", a[n++] = t->sizes;
	a[n++] = "--iters", a[n++] = t->iters;
	a[n++] = "--warmup", a[n++] = t->warmup;
	a[n++] = "--agg", a[n++] = t->agg;
	a[n++] = "--check", a[n++] = t->check;
	if (o->cycles != 1) /* the worker's defaults are left out: at most RANKS_MAX_TASK_ARGS */
		a[n++] = "--cycles", a[n++] = t->cycles;
	if (o->blocking)
		a[n++] = "--blocking", a[n++] = t->blocking;
	if (o->unalign)
		a[n++] = "--unalign", a[n++] = t->unalign;
	if (o->per_iter)
		a[n++] = "--per-iter";
	if (o->memory)
		a[n++] = "--memory";
	if (o->stream_null)
		a[n++] = "--stream-null";
	snprintf(t->reg, sizeof(t->reg), "%lld", o->local_register);
	if (o->local_register)
		a[n++] = "--register", a[n++] = t->reg;
	snprintf(t->cta, sizeof(t->cta), "%lld", o->cta_policy);
	if (o->cta_policy >= 0)
		a[n++] = "--cta-policy", a[n++] = t->cta;
	a[n++] = "--init-timeout", a[n++] = t->initto;
	a[n++] = "--coll-timeout", a[n++] = t->collto;
	if (o->event_timer) /* wall: the worker's default */
		a[n++] = "--timer", a[n++] = "event";
	if (o->comm_nonblocking)
		a[n++] = "--comm-nonblocking";
	if (o->cuda_alloc)
		a[n++] = "--cuda-alloc";
	if (o->host_check)
		a[n++] = "--host-check";
	snprintf(t->graph, sizeof(t->graph), "%lld", o->graph);
	if (o->graph)
		a[n++] = "--graph", a[n++] = t->graph;
	if (o->ngroups > 1) { /* NCCL_TESTS_SPLIT: each rank's color */
		k = 0;
		for (int i = 0; i < o->nranks; i++)
			k += (size_t)snprintf(t->colors + k, sizeof(t->colors) - k, "%s%d", i ? "," : "", o->colors[i]);
		a[n++] = "--split-colors", a[n++] = t->colors;
	}
	if (o->a2av_matrix)
		a[n++] = "--a2av-matrix", a[n++] = o->a2av_matrix;
	a[n] = NULL;
}

/* -I: rank i's per-iteration times of a cell ("iter_s", -n of them) */
static void iter_times(const struct bench_run *br, struct bench_cellset *cs, int i, json_t *v)
{
	long long n = br->o->iters;
	if (!br->o->per_iter || !json_is_array(v))
		return;
	if (!cs->iter_s)
		cs->iter_s = xcalloc((size_t)br->o->nranks * (size_t)n, sizeof(double));
	for (long long k = 0; k < n && k < (long long)json_array_size(v); k++)
		cs->iter_s[i * n + k] = json_number_value(json_array_get(v, (size_t)k));
}

/* -I: each iteration's time is the slowest rank's (nccl-tests: the maximum
 * over GPUs, then over processes); the summary leaves out -K leading ones. */
static void iter_summary(const struct bench_opts *o, struct bench_cellset *cs)
{
	long long n = o->iters;
	if (!cs->iter_s)
		return;
	double *t = xcalloc((size_t)n, sizeof(double));
	for (long long k = 0; k < n; k++)
		for (int r = 0; r < o->nranks; r++)
			t[k] = cs->iter_s[r * n + k] > t[k] ? cs->iter_s[r * n + k] : t[k];
	bench_iter_stats(t + o->per_iter_skip, (int)(n - o->per_iter_skip), &cs->cell.iter);
	cs->cell.has_iter = true;
	free(cs->iter_max);
	cs->iter_max = t;
}

static void copy_str(char *dst, size_t sz, json_t *v)
{
	const char *s = json_string_value(v);
	snprintf(dst, sz, "%s", s ? s : "");
}

/* NCCL's "F: N Bytes -> Algo A proto P" line: the rows whose call moves N bytes */
static void algo_line(struct bench_run *br, const char *line)
{
	unsigned long long bytes;
	char ap[32];
	if (bench_parse_algo(line, &bytes, ap, sizeof(ap)) < 0)
		return;
	const struct bench_opts *o = br->o;
	for (int row = 0; row < br->nrows; row++) {
		int type, redop, root;
		uint64_t size;
		bench_row_config(o, row, &type, &redop, &root, &size);
		size_t es = bench_type_size(type);
		struct bench_geom g;
		bench_geometry(o->op, (size_t)(size / es), es, bench_comm_ranks(o), &g);
		for (int ip = 0; ip < 2; ip++)
			if (g.param_count * es == bytes && !br->cells[row * 2 + ip].algo[0])
				snprintf(br->cells[row * 2 + ip].algo, sizeof(br->cells[0].algo), "%s", ap);
	}
}

/* --threads: one process prints every rank's "via" lines; each goes to
 * the rank that is its source (not with NCCL_TESTS_SPLIT: a group's source
 * rank does not say which group) */
static void via_line(struct bench_run *br, const char *line)
{
	int src, dst;
	char kind[64], item[96];
	if (!br->o->threads || br->o->ngroups > 1 || bench_parse_via(line, &src, &dst, kind, sizeof(kind)) < 0 ||
	    src < 0 || src >= br->o->nranks)
		return;
	struct bench_rank *rk = &br->ranks[src];
	snprintf(item, sizeof(item), "%s->%d", kind, dst);
	size_t off = strlen(rk->transports), il = strlen(item);
	for (const char *p = rk->transports; (p = strstr(p, item)) != NULL; p += il)
		if ((p == rk->transports || p[-1] == ' ') && (p[il] == ',' || p[il] == '\0'))
			return; /* already listed */
	if (off + il + 3 < sizeof(rk->transports))
		snprintf(rk->transports + off, sizeof(rk->transports) - off, "%s%s", off ? ", " : "", item);
}

/* NCCL numbers a group's peers by their rank in the group
 * (NCCL_TESTS_SPLIT): peer p of rank i's group as a rank of the run */
static int run_rank(const struct bench_opts *o, int i, int p)
{
	for (int j = 0, k = 0; o->ngroups > 1 && j < o->nranks; j++)
		if (o->colors[j] == o->colors[i] && k++ == p)
			return j;
	return p;
}

/* "P2P/IPC->1, SHM/direct/direct->3": the transports NCCL printed; and the
 * algorithm lines. split_from: the lines of the communicator a group was
 * split from, whose transports are not the ones measured: only its last
 * line counts. */
static void transports(struct bench_run *br, struct bench_rank *rk, json_t *lines, bool split_from)
{
	if (split_from) {
		size_t i;
		json_t *l;
		json_array_foreach(lines, i, l) {
			const char *s = json_string_value(l);
			if (s && (strstr(s, " NCCL INFO ") || strstr(s, " NCCL WARN ")))
				snprintf(rk->last_line, sizeof(rk->last_line), "%s", s);
		}
		return;
	}
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "rank");
	size_t i;
	json_t *l;
	uint64_t n = 0;
	json_array_foreach(lines, i, l) {
		const char *s = json_string_value(l);
		if (!s)
			continue;
		algo_line(br, s);
		via_line(br, s);
		if (strstr(s, " NCCL INFO ") || strstr(s, " NCCL WARN "))
			snprintf(rk->last_line, sizeof(rk->last_line), "%s", s);
		char *dup = xstrdup(s);
		nccllog_feed(&lg, f, dup, strlen(dup), ++n);
		free(dup);
	}
	nccllog_end_file(&lg, f, n, 0, 0, false);
	size_t off = strlen(rk->transports);
	int nprocs = br->o->threads ? 0 : lg.nprocs; /* --threads: per rank from the via lines instead */
	for (int p = 0; p < nprocs; p++)
		for (int t = 0; t < lg.procs[p].ntr && off < sizeof(rk->transports) - 1; t++)
			off += (size_t)snprintf(rk->transports + off, sizeof(rk->transports) - off, "%s%s->%d",
						off ? ", " : "", lg.procs[p].tr[t].kind,
						run_rank(br->o, rk->rank, lg.procs[p].tr[t].peer));
	if (off >= sizeof(rk->transports))
		rk->transports[sizeof(rk->transports) - 1] = '\0';
	for (int p = 0; p < lg.nprocs && !rk->nics[0]; p++) /* the network NCCL took: its IB HCAs, else its socket */
		if (lg.procs[p].ib_hcas[0] && strcmp(lg.procs[p].ib_hcas, "none") != 0)
			snprintf(rk->nics, sizeof(rk->nics), "IB %s", lg.procs[p].ib_hcas);
		else if (lg.procs[p].socket_if[0])
			snprintf(rk->nics, sizeof(rk->nics), "Socket %s", lg.procs[p].socket_if);
	nccllog_release(&lg);
}

/* The results of worker w; each names its rank (else the worker's index). */
static void collect_worker(struct bench_run *br, int w)
{
	size_t k;
	json_t *res;
	json_array_foreach(br->ws[w].results, k, res) {
		const char *kind = json_string_value(json_object_get(res, "kind"));
		json_t *rj = json_object_get(res, "rank");
		int i = json_is_integer(rj) ? (int)json_integer_value(rj) : w;
		if (!kind || i < 0 || i >= br->o->nranks)
			continue;
		struct bench_rank *rk = &br->ranks[i];
		if (strcmp(kind, "rank") == 0) {
			rk->pid = (int)json_integer_value(json_object_get(res, "pid"));
			copy_str(rk->host, sizeof(rk->host), json_object_get(res, "host"));
			copy_str(rk->busid, sizeof(rk->busid), json_object_get(res, "busid"));
			copy_str(rk->name, sizeof(rk->name), json_object_get(res, "name"));
			copy_str(rk->nccl_version, sizeof(rk->nccl_version), json_object_get(res, "nccl_version"));
			rk->nccl_code = (int)json_integer_value(json_object_get(res, "nccl_code"));
			json_t *dv = json_object_get(res, "devices");
			rk->devices = json_is_integer(dv) ? (int)json_integer_value(dv) : -1;
		} else if (strcmp(kind, "init") == 0) {
			rk->init_s = json_number_value(json_object_get(res, "init_s"));
			rk->nonblocking = json_is_true(json_object_get(res, "nonblocking"));
			json_t *cta = json_object_get(res, "cta_policy");
			rk->cta_policy = cta ? (int)json_integer_value(cta) : -1;
			const char *entry = json_string_value(json_object_get(res, "entry"));
			snprintf(rk->entry, sizeof(rk->entry), "%s", entry ? entry : "");
		} else if (strcmp(kind, "nccl_lines") == 0) {
			transports(br, rk, json_object_get(res, "lines"), json_is_true(json_object_get(res, "split_from")));
		} else if (strcmp(kind, "phase") == 0) {
			copy_str(rk->phase, sizeof(rk->phase), json_object_get(res, "phase"));
		} else if (strcmp(kind, "checker") == 0) {
			copy_str(rk->checker, sizeof(rk->checker), json_object_get(res, "where"));
			copy_str(rk->checker_why, sizeof(rk->checker_why), json_object_get(res, "why"));
		} else if (strcmp(kind, "done") == 0) {
			rk->done = true;
		} else if (strcmp(kind, "register") == 0) {
			copy_str(rk->reg_how, sizeof(rk->reg_how), json_object_get(res, "how"));
			copy_str(rk->reg_why, sizeof(rk->reg_why), json_object_get(res, "why"));
		} else if (strcmp(kind, "memory") == 0) {
			static const char *const keys[3] = { "init", "buffers", "collective" };
			for (int m = 0; m < 3; m++) { /* the largest of the ranks, as nccl-tests */
				long long v = (long long)json_integer_value(json_object_get(res, keys[m]));
				br->mem[m] = v > br->mem[m] ? v : br->mem[m];
			}
		} else if (strcmp(kind, "cell") == 0) {
			int row = (int)json_integer_value(json_object_get(res, "row"));
			int ip = json_is_true(json_object_get(res, "inplace"));
			if (row < 0 || row >= br->nrows)
				continue;
			struct bench_cellset *cs = &br->cells[row * 2 + ip];
			cs->time_s[i] = json_number_value(json_object_get(res, "time_s"));
			cs->cpu_s[i] = json_number_value(json_object_get(res, "cputime_s"));
			cs->wrong[i] = (long long)json_integer_value(json_object_get(res, "wrong"));
			cs->bytes = (uint64_t)json_integer_value(json_object_get(res, "bytes"));
			cs->count = (uint64_t)json_integer_value(json_object_get(res, "count"));
			iter_times(br, cs, i, json_object_get(res, "iter_s"));
			cs->have++;
		}
	}
}

/* The last NCCL line in a worker's output tail (its lines were not sent:
 * killed by the parent) */
static void last_line_from_tail(const struct worker *w, char *out, size_t sz)
{
	const char *t = strbuf_str(&w->tail), *best = NULL;
	for (const char *p = t; (p = strstr(p, " NCCL ")) != NULL; p++)
		if (strncmp(p, " NCCL INFO ", 11) == 0 || strncmp(p, " NCCL WARN ", 11) == 0)
			best = p;
	if (!best)
		return;
	const char *start = best, *end = strchr(best, '\n');
	while (start > t && start[-1] != '\n')
		start--;
	size_t n = end ? (size_t)(end - start) : strlen(start);
	snprintf(out, sz, "%.*s", (int)(n < sz ? n : sz - 1), start);
}

static void collect(struct bench_run *br)
{
	for (int i = 0; i < br->o->nranks; i++) {
		struct bench_rank *rk = &br->ranks[i];
		rk->rank = i;
		rk->device = br->o->devices[i];
		rk->init_s = -1;
		rk->devices = -1;
		rk->cta_policy = -1;
		rk->w = &br->ws[br->o->threads ? 0 : i];
	}
	for (int w = 0; w < br->nworkers; w++)
		collect_worker(br, w);
	for (int i = 0; i < br->o->nranks; i++) {
		if (!br->ranks[i].last_line[0] && !br->o->threads)
			last_line_from_tail(br->ranks[i].w, br->ranks[i].last_line, sizeof(br->ranks[i].last_line));
		const char *node = bench_world_rank_node(i); /* a rank that hung before saying where it runs */
		if (!br->ranks[i].host[0] && node)
			snprintf(br->ranks[i].host, sizeof(br->ranks[i].host), "%s", node);
	}
}

/* Where a rank stopped, in the words of the issue: bootstrap, init, or the
 * row ("size N of op X ..."). */
static void phase_of_text(const char *stage, char *out, size_t sz)
{
	if (strncmp(stage, "size ", 5) == 0 || strncmp(stage, "warm-up ", 8) == 0 || strcmp(stage, "init") == 0)
		snprintf(out, sz, "%s", stage);
	else if (strncmp(stage, "ncclComm", 8) == 0 || strncmp(stage, "cuMem", 5) == 0 ||
		 strncmp(stage, "cuStream", 8) == 0)
		snprintf(out, sz, "%s", stage);
	else
		snprintf(out, sz, "bootstrap (%.200s)", stage[0] ? stage : "not started");
}

static void phase_of(const struct worker *w, char *out, size_t sz)
{
	/* the stage of the first error (later stages are the clean-up) */
	const char *st = json_string_value(json_object_get(worker_error(w), "stage"));
	phase_of_text(st && *st ? st : w->stage, out, sz);
}

static void combine(struct bench_run *br)
{
	const struct bench_opts *o = br->o;
	int n = o->nranks;
	double bwsum = 0;
	br->complete = true;
	for (int c = 0; c < br->nrows * 2; c++) {
		struct bench_cellset *cs = &br->cells[c];
		if (cs->have != n) {
			br->complete = false;
			continue;
		}
		int type, redop, root;
		uint64_t size;
		bench_row_config(o, c / 2, &type, &redop, &root, &size);
		size_t es = bench_type_size(type);
		double t = bench_combine(cs->time_s, n, (int)o->average);
		double shown = o->cputime ? bench_combine(cs->cpu_s, n, (int)o->average) : t;
		cs->cell.present = true;
		cs->cell.time_us = shown * 1e6;
		cs->bw_s = t;
		/* a split: every rank's time, rank 0's communicator's bytes and
		 * factor (nccl-tests' rank 0 prints its own getBw) */
		bench_bw(o->op, (size_t)cs->count, es, t, bench_comm_ranks(o), &cs->cell.algbw, &cs->cell.busbw);
		bool checked = o->check && (c % 2 == 0 || bench_checks_inplace(o->op)); /* c odd: in place */
		cs->cell.wrong = checked ? 0 : -1;
		for (int r = 0; r < n && checked; r++) {
			if (cs->wrong[r] > 0) {
				cs->cell.wrong += cs->wrong[r];
				br->errors++;
			}
		}
		iter_summary(o, cs);
		br->wrong_total += cs->cell.wrong > 0 ? cs->cell.wrong : 0;
		bwsum += cs->cell.busbw;
		br->nbw++;
	}
	br->avg_busbw = br->nbw ? bwsum / br->nbw : 0;
}

/* The ranks that did not finish, grouped by the phase each was in:
 * "0,1,2,3", or "0,1 (size 8 of op sendrecv out-of-place); 2,3 (...)" */
static void diagnose(struct bench_run *br)
{
	const struct bench_opts *o = br->o;
	char phases[BENCH_MAX_RANKS][256];
	bool done[BENCH_MAX_RANKS] = { false };
	int ngroups = 0;
	br->failed_rank = -1;
	for (int i = 0; i < o->nranks; i++) {
		const struct bench_rank *rk = &br->ranks[i];
		done[i] = rk->done && rk->w->status != WORKER_CRASH;
		if (!done[i] && o->threads && rk->phase[0])
			phase_of_text(rk->phase, phases[i], sizeof(phases[i]));
		else if (!done[i])
			phase_of(rk->w, phases[i], sizeof(phases[i]));
		if (!done[i] && br->failed_rank < 0) {
			br->failed_rank = i;
			snprintf(br->phase, sizeof(br->phase), "%s", phases[i]);
		}
	}
	/* a rank that failed by itself (not at a deadline) explains the others,
	 * which then wait for it until theirs */
	for (int i = 0; i < o->nranks && br->failed_rank >= 0; i++) {
		const struct worker *w = br->ranks[i].w;
		const char *name = json_string_value(json_object_get(worker_error(w), "name"));
		if (!done[i] && !o->threads && (w->status == WORKER_CRASH || (w->status == WORKER_ERROR && !(name && strcmp(name, "timeout") == 0)))) {
			br->failed_rank = i;
			snprintf(br->phase, sizeof(br->phase), "%s", phases[i]);
			break;
		}
	}
	size_t off = 0, cap = sizeof(br->not_finished);
	bool one_phase = true;
	for (int i = 0; i < o->nranks; i++)
		if (!done[i] && strcmp(phases[i], br->phase) != 0)
			one_phase = false;
	for (int i = 0; i < o->nranks && off < cap - 1; i++) {
		if (done[i])
			continue;
		bool first_of_phase = true;
		for (int j = 0; j < i; j++)
			if (!done[j] && strcmp(phases[j], phases[i]) == 0)
				first_of_phase = false;
		if (!first_of_phase)
			continue;
		int k = 0;
		off += (size_t)snprintf(br->not_finished + off, cap - off, "%s", ngroups++ ? "; " : "");
		for (int j = i; j < o->nranks && off < cap - 1; j++)
			if (!done[j] && strcmp(phases[j], phases[i]) == 0)
				off += (size_t)snprintf(br->not_finished + off, cap - off, "%s%d", k++ ? "," : "", j);
		if (!one_phase && off < cap - 1)
			off += (size_t)snprintf(br->not_finished + off, cap - off, " (%s)", phases[i]);
	}
	if (off >= cap)
		br->not_finished[cap - 1] = '\0';
	if (br->failed_rank < 0)
		return;
	/* could not run at all: no library, no GPU (every rank stopped before init) */
	const struct worker *w = br->ranks[br->failed_rank].w;
	json_t *err = worker_error(w);
	const char *lib = json_string_value(json_object_get(err, "lib"));
	const char *msg = json_string_value(json_object_get(err, "message"));
	snprintf(br->why, sizeof(br->why), "%s", msg ? msg : w->why);
	if (br->ranks[br->failed_rank].init_s < 0 && w->status == WORKER_ERROR &&
	    ((lib && strcmp(lib, "loader") == 0) || strcmp(w->stage, "cuInit") == 0 || strcmp(w->stage, "cuDeviceGet") == 0))
		br->could_not_run = true;
}

/* bench's progress: the rows rank 0 finished (its out-of-place "cell"
 * results, one per row: a size of the sweep), said when it grows */
struct bench_tick {
	const struct bench_run *br;
	struct progress pr;
	int last;
};

static void bench_tick(void *ctx, const struct worker *ws, int n)
{
	struct bench_tick *tk = ctx;
	if (n < 1 || !ws[0].results)
		return;
	int done = 0;
	long long bytes = 0;
	size_t i;
	json_t *res;
	json_array_foreach(ws[0].results, i, res) {
		const char *kind = json_string_value(json_object_get(res, "kind"));
		if (kind && strcmp(kind, "cell") == 0 && !json_is_true(json_object_get(res, "inplace"))) {
			done++;
			bytes = (long long)json_integer_value(json_object_get(res, "bytes"));
		}
	}
	if (done == tk->last || done == 0)
		return;
	tk->last = done;
	progress_done(&tk->pr, done);
	progress_say(&tk->pr, "bench: %lld B done", bytes);
}

/* --threads: one worker process runs every rank as a thread
 * (`--local-ranks N --devices LIST`), with the deadlines of spec. */
static int run_threads(const struct bench_opts *o, const struct ranks_spec *spec, struct bench_run *br)
{
	char *devs = br->targs.devs, *nr = br->targs.nr, *local = br->targs.local, *dev0 = br->targs.dev0;
	size_t off = 0;
	for (int i = 0; i < o->nranks; i++)
		off += (size_t)snprintf(devs + off, sizeof(br->targs.devs) - off, "%s%d", i ? "," : "", o->devices[i]);
	snprintf(nr, sizeof(br->targs.nr), "%d", o->nranks);
	snprintf(local, sizeof(br->targs.local), "%d", o->nranks);
	snprintf(dev0, sizeof(br->targs.dev0), "%d", o->devices[0]);
	const char *args[RANKS_MAX_TASK_ARGS + 20];
	int n = 0;
	args[n++] = "--nranks", args[n++] = nr, args[n++] = "--rank", args[n++] = "0", args[n++] = "--device", args[n++] = dev0;
	args[n++] = "--id", args[n++] = "create", args[n++] = "--local-ranks", args[n++] = local;
	args[n++] = "--devices", args[n++] = devs;
	if (spec->nccl)
		args[n++] = "--nccl", args[n++] = spec->nccl;
	for (int k = 0; spec->task_args[k] && n < RANKS_MAX_TASK_ARGS + 19; k++)
		args[n++] = spec->task_args[k];
	args[n] = NULL;
	struct worker_spec ws = {
		.task = spec->task, .args = args, .env = spec->env, .deadline = spec->deadline,
		.stage_deadline = spec->stage_deadline, .grace = spec->grace,
	};
	worker_init(&br->ws[0]);
	int r = worker_start(&br->ws[0], &ws);
	if (r == 0)
		worker_wait((struct worker *[]){ &br->ws[0] }, 1);
	br->ws[0].spec.args = NULL; /* args lives on this stack */
	return r;
}

int bench_execute(const struct bench_opts *o, const struct run_opts *opt, const char *const *extra_env,
		  struct bench_run **out)
{
	const char *env[BENCH_MAX_ENV + 4]; /* visible, extra, NCCL_DEBUG, SUBSYS, node, NULL */
	int nenv = 0;
	if (o->visible[0])
		env[nenv++] = o->visible;
	for (int k = 0; extra_env && extra_env[k] && nenv < BENCH_MAX_ENV; k++)
		env[nenv++] = extra_env[k];
	if (!getenv("NCCL_DEBUG") || o->algo)
		env[nenv++] = "NCCL_DEBUG=INFO";
	if (o->algo)
		env[nenv++] = "NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING";
	if (o->world && bench_world_node_env())
		env[nenv++] = bench_world_node_env();
	env[nenv] = NULL;
	struct bench_run *br = xcalloc(1, sizeof(*br));
	br->o = o;
	build_task_args(o, &br->targs);
	br->nrows = (int)(o->ntypes * o->nredops * o->nroots * o->nsizes * o->cycles);
	br->cells = xcalloc((size_t)br->nrows * 2, sizeof(*br->cells));
	const char *mb = getenv("NCCL_TESTS_MIN_BW");
	br->min_bw = mb ? atof(mb) : -1;
	double whole = o->init_timeout + 30 + (double)br->nrows * 2 * (o->coll_timeout + 5) + o->coll_timeout;
	struct ranks_spec spec = {
		.task = "bench",
		.task_args = br->targs.argv,
		.nranks = o->nranks,
		.devices = o->devices,
		.nccl = opt->nccl,
		.count = 1,
		.deadline = opt->timeout > 0 ? opt->timeout : whole < 86400 ? whole : 86400,
		.stage_deadline = (o->init_timeout > o->coll_timeout ? o->init_timeout : o->coll_timeout) + 10,
		.grace = 2,
		.env = env,
	};
	struct bench_tick tk = { .br = br, .last = -1 };
	progress_init(&tk.pr, "bench", nd_now_s(), o->progress ? stderr : NULL);
	progress_count(&tk.pr, "sizes", br->nrows, nd_now_s());
	if (o->progress) {
		spec.tick = bench_tick, spec.tick_ctx = &tk;
		progress_say(&tk.pr, "bench: %s, %d rank%s, init ...", bench_op_info(o->op)->program, o->nranks,
			     o->nranks == 1 ? "" : "s");
	}
	int r = o->threads ? run_threads(o, &spec, br) : o->world ? bench_world_run(&spec, br->ws) : ranks_run(&spec, br->ws);
	br->nworkers = o->threads ? 1 : o->nranks;
	for (int i = 0; i < br->nworkers; i++)
		br->ws[i].spec.env = NULL; /* env lives on this stack */
	if (r < 0) {
		bench_run_free(br);
		return r;
	}
	if (!o->world || bench_world_root()) { /* under a launcher, rank 0 collects for every process */
		collect(br);
		combine(br);
		diagnose(br);
	}
	*out = br;
	return 0;
}

bool bench_run_cut(const struct bench_run *br)
{
	if (!br || br->failed_rank < 0 || br->could_not_run)
		return false;
	bool any = false;
	for (int i = 0; i < br->o->nranks; i++) {
		const struct worker *w = br->ranks[i].w;
		if (br->ranks[i].done || !w)
			continue;
		if (w->status != WORKER_HANG || !w->cut)
			return false;
		any = true;
	}
	return any;
}

void bench_run_free(struct bench_run *br)
{
	if (!br)
		return;
	for (int i = 0; i < br->nworkers; i++)
		worker_release(&br->ws[i]);
	for (int c = 0; br->cells && c < br->nrows * 2; c++)
		free(br->cells[c].iter_s), free(br->cells[c].iter_max);
	free(br->cells);
	free(br);
}
