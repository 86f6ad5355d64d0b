/* Parsing of the worker task `bench`'s arguments (see gpu/bench.c). */
#include "gpu/bench_args.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <getopt.h>
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

int bench_parse_args(int argc, char **argv, struct bench_args *a)
{
	static const struct option opts[] = {
		{ "nranks", required_argument, NULL, 'N' }, { "rank", required_argument, NULL, 'r' },
		{ "device", required_argument, NULL, 'd' }, { "id", required_argument, NULL, 'i' },
		{ "nccl", required_argument, NULL, 'n' },   { "count", required_argument, NULL, 'c' },
		{ "op", required_argument, NULL, 'o' },     { "type", required_argument, NULL, 't' },
		{ "redop", required_argument, NULL, 'R' },  { "root", required_argument, NULL, 'x' },
		{ "sizes", required_argument, NULL, 's' },  { "iters", required_argument, NULL, 'I' },
		{ "warmup", required_argument, NULL, 'w' }, { "agg", required_argument, NULL, 'm' },
		{ "check", required_argument, NULL, 'C' },  { "cycles", required_argument, NULL, 'y' },
		{ "blocking", required_argument, NULL, 'z' }, { "timer", required_argument, NULL, 'T' },
		{ "init-timeout", required_argument, NULL, 'a' }, { "coll-timeout", required_argument, NULL, 'b' },
		{ "comm-blocking", no_argument, NULL, 'B' }, { "cuda-alloc", no_argument, NULL, 'M' },
		{ "local-ranks", required_argument, NULL, 'L' }, { "devices", required_argument, NULL, 'D' },
		{ "host-check", no_argument, NULL, 'H' },         { "graph", required_argument, NULL, 'g' },
		{ NULL, 0, NULL, 0 },
	};
	memset(a, 0, sizeof(*a));
	a->rank = -1;
	a->op = -1;
	a->iters = 20, a->warmup = 1, a->agg = 1, a->check = 1, a->cycles = 1;
	a->init_timeout = 60, a->coll_timeout = 60;
	a->local = 1;
	long long dummy;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case 'N': bad = parse_ll(optarg, 10, &a->nranks); break;
		case 'r': bad = parse_ll(optarg, 10, &a->rank); break;
		case 'd': bad = parse_ll(optarg, 10, &a->device); break;
		case 'c': bad = parse_ll(optarg, 10, &dummy); break;
		case 'i': a->idhex = optarg; break;
		case 'n': a->nccl = optarg; break;
		case 'o': bad = (a->op = bench_op_parse(optarg)) < 0; break;
		case 't': bad = parse_list(optarg, bench_type_parse, a->types, BT_COUNT, &a->ntypes); break;
		case 'R': bad = parse_list(optarg, bench_redop_parse, a->redops, BR_COUNT, &a->nredops); break;
		case 'x': bad = parse_list(optarg, parse_root, a->roots, 64, &a->nroots); break;
		case 's': bad = parse_sizes(optarg, a); break;
		case 'I': bad = parse_ll(optarg, 10, &a->iters) || a->iters < 1; break;
		case 'w': bad = parse_ll(optarg, 10, &a->warmup) || a->warmup < 0; break;
		case 'm': bad = parse_ll(optarg, 10, &a->agg) || a->agg < 1; break;
		case 'C': bad = parse_ll(optarg, 10, &a->check) || a->check < 0; break;
		case 'y': bad = parse_ll(optarg, 10, &a->cycles) || a->cycles < 1; break;
		case 'z': bad = parse_ll(optarg, 10, &a->blocking); break;
		case 'T': a->event_timer = strcmp(optarg, "event") == 0; bad = !a->event_timer && strcmp(optarg, "wall"); break;
		case 'a': bad = parse_double(optarg, &a->init_timeout) || a->init_timeout <= 0; break;
		case 'b': bad = parse_double(optarg, &a->coll_timeout) || a->coll_timeout <= 0; break;
		case 'B': a->comm_blocking = true; break;
		case 'M': a->cuda_alloc = true; break;
		case 'H': a->host_check = true; break;
		case 'g': bad = parse_ll(optarg, 10, &a->graph) || a->graph < 0; break;
		case 'L': bad = parse_ll(optarg, 10, &a->local) || a->local < 1 || a->local > 64; break;
		case 'D': bad = parse_devices(optarg, a); break;
		default: bad = 1;
		}
		if (bad)
			return -1;
	}
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
	return 0;
}
