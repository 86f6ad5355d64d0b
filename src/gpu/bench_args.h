/* The arguments of the worker task `bench` (gpu/bench.c describes them). */
#ifndef ND_GPU_BENCH_ARGS_H
#define ND_GPU_BENCH_ARGS_H
#include "gpu/bench_data.h"

#include <stdbool.h>

#define MAX_SIZES 4096

struct bench_args {
	long long nranks, rank, device;
	const char *idhex, *nccl;
	int op;
	int types[BT_COUNT], ntypes;     /* -d (all: every type) */
	int redops[BR_COUNT], nredops;   /* -o */
	int roots[64], nroots;           /* -r (-1: every rank) */
	long long sizes[MAX_SIZES];
	int nsizes;
	long long iters, warmup, agg, check, cycles, blocking; /* blocking: -z 0..3 */
	long long unalign;        /* -u: buffers start at this element */
	bool per_iter;            /* -I: per-iteration event times in each cell */
	bool memory;              /* -M: GPU memory used by init, buffers, the sweep */
	bool stream_null;         /* -y 1: the legacy default stream */
	long long reg;            /* -R: 1 ncclCommRegister, 2 ncclCommWindowRegister */
	long long cta_policy;     /* -x, -1 not set */
	bool event_timer, comm_nonblocking, cuda_alloc, host_check;
	long long graph;          /* -G: launches of a graph of the iterations, 0 none */
	double init_timeout, coll_timeout;
	long long local;          /* --local-ranks: ranks rank..rank+local-1 as threads */
	int devices[64];          /* --devices: device of each local rank */
	int ndevices;
	int colors[64];           /* --split-colors: each rank's group (NCCL_TESTS_SPLIT), ncolors 0 none */
	int ncolors;
	int a2av_dim;             /* --a2av-matrix: alltoallv's bytes from rank i to j, dim x dim; 0 none */
};

/* Parses the task's arguments into a (reset first); 0, -1 (an argument
 * missing or out of range), or -2 after reporting a usage error. */
int bench_parse_args(int argc, char **argv, struct bench_args *a);

#endif
