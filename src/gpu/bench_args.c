/* Parsing of the worker task `bench`'s arguments (see gpu/bench.c). */
#include "gpu/bench_args.h"
#include "gpu/tasks.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int parse_sizes(const char *list, struct bench_args *a)
{
	char *dup = xstrdup(list), *save = NULL;
	int rc = 0;
	a->nsizes = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (a->nsizes >= MAX_SIZES || parse_ll(t, 10, &a->sizes[a->nsizes]) < 0 || a->sizes[a->nsizes] < 0) {
			rc = -1;
			break;
		}
		a->nsizes++;
	}
	free(dup);
	return rc || a->nsizes == 0 ? -1 : 0;
}

/* "float,double" with parse() of each item; 0 or -1 */
static int parse_list(const char *list, int (*parse)(const char *), int *out, int max, int *n)
{
	char *dup = xstrdup(list), *save = NULL;
	int rc = 0;
	*n = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int v = parse(t);
		if (*n >= max || v < 0) {
			rc = -1;
			break;
		}
		out[(*n)++] = v;
	}
	free(dup);
	return rc || *n == 0 ? -1 : 0;
}

static int parse_root(const char *s)
{
	long long v;
	return parse_ll(s, 10, &v) < 0 || v < 0 || v > 63 ? -1 : (int)v;
}

static int parse_devices(const char *list, struct bench_args *a)
{
	char *dup = xstrdup(list), *save = NULL;
	int rc = 0;
	a->ndevices = 0;
	for (char *t = strtok_r(dup, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		long long d;
		if (a->ndevices >= 64 || parse_ll(t, 10, &d) < 0 || d < 0 || d > 1023) {
			rc = -1;
			break;
		}
		a->devices[a->ndevices++] = (int)d;
	}
	free(dup);
	return rc;
}

/* --split-colors: a color per rank */
static int colors_opt(void *t, const char *v, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	struct bench_args *a = t;
	char *dup = xstrdup(v), *save = NULL;
	int rc = 0;
	a->ncolors = 0;
	for (char *tok = strtok_r(dup, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		long long c;
		if (a->ncolors >= 64 || parse_ll(tok, 10, &c) < 0 || c < 0 || c > INT32_MAX)
			rc = -1;
		else
			a->colors[a->ncolors++] = (int)c;
	}
	free(dup);
	return rc;
}

/* --a2av-matrix: dim x dim byte counts, row by row, set as alltoallv's
 * traffic (model/bench_op.h) */
static int matrix_opt(void *t, const char *v, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	struct bench_args *a = t;
	size_t *m = xcalloc(64 * 64, sizeof(*m)), n = 0;
	char *dup = xstrdup(v), *save = NULL;
	int rc = 0;
	for (char *tok = strtok_r(dup, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
		unsigned long long b;
		if (n >= 64 * 64 || parse_ull(tok, 10, &b) < 0 || b % 16)
			rc = -1;
		else
			m[n++] = (size_t)b;
	}
	int dim = 0;
	while ((size_t)(dim + 1) * (size_t)(dim + 1) <= n)
		dim++;
	if (rc || n == 0 || (size_t)dim * (size_t)dim != n)
		rc = -1;
	else
		bench_alltoallv_matrix(m, a->a2av_dim = dim);
	free(dup);
	free(m);
	return rc;
}

/* the list options as opt_fns (util/options.h) of the whole bench_args */
static int op_opt(void *t, const char *v, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	struct bench_args *a = t;
	return (a->op = bench_op_parse(v)) < 0 ? -1 : 0;
}

static int types_opt(void *t, const char *v, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	struct bench_args *a = t;
	return parse_list(v, bench_type_parse, a->types, BT_COUNT, &a->ntypes);
}

static int redops_opt(void *t, const char *v, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	struct bench_args *a = t;
	return parse_list(v, bench_redop_parse, a->redops, BR_COUNT, &a->nredops);
}

static int roots_opt(void *t, const char *v, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	struct bench_args *a = t;
	return parse_list(v, parse_root, a->roots, 64, &a->nroots);
}

static int sizes_opt(void *t, const char *v, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	return parse_sizes(v, t);
}

static int devices_opt(void *t, const char *v, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	return parse_devices(v, t);
}

int bench_parse_args(int argc, char **argv, struct bench_args *a)
{
	static const char *const timers[] = { "wall", "event", NULL };
	memset(a, 0, sizeof(*a));
	a->op = -1;
	a->iters = 20, a->warmup = 1, a->agg = 1, a->check = 1, a->cycles = 1;
	a->init_timeout = 60, a->coll_timeout = 60;
	a->local = 1;
	a->cta_policy = -1;
	struct rank_args ra = { .rank = -1 };
	int timer = 0;
	const struct opt_spec own[] = {
		OPT_STRING("nccl", 0, &a->nccl, "the libnccl.so.2 to load"),
		OPT_CALL("op", 0, a, op_opt, "an operation", "the collective"),
		OPT_CALL("type", 0, a, types_opt, "a list of data types", "data types"),
		OPT_CALL("redop", 0, a, redops_opt, "a list of reductions", "reductions"),
		OPT_CALL("root", 0, a, roots_opt, "a list of ranks from 0 to 63", "roots"),
		OPT_CALL("sizes", 0, a, sizes_opt, "a list of byte counts", "sizes"),
		OPT_INT("iters", 0, &a->iters, 1, 1e15, "iterations"),
		OPT_INT("warmup", 0, &a->warmup, 0, 1e15, "warm-up iterations"),
		OPT_INT("agg", 0, &a->agg, 1, 1e15, "calls aggregated in a group"),
		OPT_INT("check", 0, &a->check, 0, 1e15, "check results"),
		OPT_INT("cycles", 0, &a->cycles, 1, 1e15, "sweeps"),
		OPT_INT("blocking", 0, &a->blocking, 0, 3, "-z: wait after each iteration"),
		OPT_INT("unalign", 0, &a->unalign, 0, 1 << 20, "-u: first element of the buffers"),
		OPT_FLAG("per-iter", 0, &a->per_iter, "-I: per-iteration times"),
		OPT_FLAG("memory", 0, &a->memory, "-M: memory usage"),
		OPT_FLAG("stream-null", 0, &a->stream_null, "-y 1: the NULL stream"),
		OPT_INT("register", 0, &a->reg, 0, 2, "-R: buffer registration"),
		OPT_INT("cta-policy", 0, &a->cta_policy, -1, 2, "-x: NCCL's CTA policy"),
		OPT_ENUM("timer", 0, &timer, timers, "CPU clock or CUDA events"),
		OPT_SECONDS_ABOVE("init-timeout", 0, &a->init_timeout, 0, 1e15, "deadline of init"),
		OPT_SECONDS_ABOVE("coll-timeout", 0, &a->coll_timeout, 0, 1e15, "deadline of a collective"),
		OPT_FLAG("comm-nonblocking", 0, &a->comm_nonblocking, "nonblocking communicator"),
		OPT_FLAG("cuda-alloc", 0, &a->cuda_alloc, "buffers from cuMemAlloc"),
		OPT_INT("local-ranks", 0, &a->local, 1, 64, "ranks of this process (threads)"),
		OPT_CALL("devices", 0, a, devices_opt, "a list of CUDA ordinals", "device of each local rank"),
		OPT_FLAG("host-check", 0, &a->host_check, "check results on the host"),
		OPT_INT("graph", 0, &a->graph, 0, 1e15, "CUDA graph launches"),
		OPT_CALL("split-colors", 0, a, colors_opt, "a list of colors", "each rank's group (NCCL_TESTS_SPLIT)"),
		OPT_CALL("a2av-matrix", 0, a, matrix_opt, "n x n byte counts", "alltoallv's traffic matrix"),
		OPT_END(),
	};
	if (gpu_rank_args(argc, argv, &ra, own) < 0)
		return -2; /* said */
	a->nranks = ra.nranks, a->rank = ra.rank, a->device = ra.device, a->idhex = ra.id;
	a->event_timer = timer == 1;
	if (a->nranks < 1 || a->nranks > 64 || a->rank < 0 || a->rank >= a->nranks || !a->idhex || a->op < 0 ||
	    a->ntypes == 0 || a->nsizes == 0)
		return -1;
	if (a->nredops == 0)
		a->redops[a->nredops++] = BR_SUM;
	if (a->nroots == 0)
		a->roots[a->nroots++] = 0;
	for (int i = 0; i < a->nroots; i++)
		if (a->roots[i] >= a->nranks)
			return -1;
	if (a->local > 1 && (a->rank + a->local > a->nranks || a->ndevices < a->local))
		return -1;
	if (a->ncolors && a->ncolors != a->nranks)
		return -1;
	return 0;
}
