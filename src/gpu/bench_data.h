/* What `bench` runs, independent of any GPU: the operations with their
 * buffer geometry (nccl-tests' getCollByteCount), the data types and
 * reduction operators by nccl-tests' names, the per-rank input values and the
 * check of a result (`#wrong`). Pure functions: the rank task (gpu/bench.c)
 * hands the value tables below to the check kernels (gpu/bench_ptx.h), or,
 * where they do not load, fills host buffers with bench_fill() and checks
 * what it copied back with bench_check(); analyze/bench.h builds the
 * formulas on the same tables.
 *
 * Inputs are small integers chosen so that every expected result is exactly
 * representable in every type (int8 sums wrap as the GPU's do; half and
 * bfloat16 hold them exactly); only `avg` of floating types can round, and
 * is compared with a tolerance. Inputs depend on the repetition number, so a
 * stale result from an earlier call does not pass. */
#ifndef ND_GPU_BENCH_DATA_H
#define ND_GPU_BENCH_DATA_H
#include "model/bench_op.h"

#include <stdbool.h>
#include <stddef.h>

struct bench_op_info {
	const char *name;      /* "all_reduce" */
	const char *program;   /* "all_reduce_perf", as nccl-tests names its binaries */
	bool redop;            /* takes a reduction operator (else "none") */
	bool root;             /* has a root (else -1) */
	const char *no_redop;  /* the reduction column without one: "none", hypercube's "" (nccl-tests' TimeTest calls) */
};

/* NULL for an out-of-range op. */
const struct bench_op_info *bench_op_info(int op);
/* The collective NCCL 2.28+ has for op where it was grouped send/recv
 * before (ncclAlltoAll, ncclGather, ncclScatter); NULL for the others. */
const char *bench_native_call(int op);
/* "all_reduce" or "all_reduce_perf" (also "allreduce"); -1 when unknown. */
int bench_op_parse(const char *name);

enum bench_type {
	BT_INT8, BT_UINT8, BT_INT32, BT_UINT32, BT_INT64, BT_UINT64,
	BT_HALF, BT_FLOAT, BT_DOUBLE, BT_BFLOAT16, BT_COUNT
};
/* nccl-tests' names: int8 uint8 int32 uint32 int64 uint64 half float double
 * bfloat16; NULL when out of range */
const char *bench_type_name(int t);
size_t bench_type_size(int t);
int bench_type_nccl(int t);       /* ncclDataType_t value */
/* The names above and nccl-tests' aliases (char, int, float32, ...); -1. */
int bench_type_parse(const char *s);

enum bench_redop { BR_SUM, BR_PROD, BR_MAX, BR_MIN, BR_AVG, BR_COUNT };
const char *bench_redop_name(int r);  /* "sum", "prod", "max", "min", "avg" */
int bench_redop_parse(const char *s); /* -1 when unknown */
int bench_redop_nccl(int r);          /* ncclRedOp_t value */

/* Element counts of one call for a size of `count` elements (nccl-tests'
 * setupArgs): what each rank sends and receives, the count argument of the
 * NCCL call, and where the in-place send/recv pointers sit (multiplied by
 * the rank, in elements, from the start of the receive buffer). */
struct bench_geom {
	size_t send_count, recv_count, param_count;
	size_t send_inplace_off, recv_inplace_off;
};
void bench_geometry(int op, size_t count, size_t elem_size, int nranks, struct bench_geom *g);
/* Whether the in-place result of op is checked (alltoallv's is not, as in
 * nccl-tests: its "#wrong" is N/A). */
bool bench_checks_inplace(int op);

/* One rank's view of one checked call. */
struct bench_data {
	int op, type, redop, root;
	int rank, nranks;
	int rep;        /* repetition number: changes the inputs */
};

/* Fills host with this rank's input: g->send_count elements of d->type. */
void bench_fill(const struct bench_data *d, const struct bench_geom *g, void *host);
/* Counts the elements of the received result (g->recv_count elements of
 * d->type, as copied back from the receive pointer) that differ from what
 * the operation must give. A reduce is checked on its root only (0
 * elsewhere). */
long long bench_check(const struct bench_data *d, const struct bench_geom *g, const void *host);

/* The same values as tables, for the check kernels (gpu/bench_ptx.h): the
 * inputs and expected results repeat with a period of at most
 * BENCH_PERIOD_MAX elements, so a kernel reads element i's value from
 * table[i % period]. */
#define BENCH_PERIOD_MAX 256
#define BENCH_MAX_BLOCKS 64   /* = the most ranks */

/* Encodes this rank's input: element i of the send buffer is table[i %
 * period] (es bytes each, packed); returns the period. */
size_t bench_input_table(const struct bench_data *d, unsigned char *table);

/* One stretch of the received result with one expected sequence: elements
 * start..start+len-1 hold the values of send indices idx_base.. from rank
 * src (src < 0: reduced over the ranks). */
struct bench_block {
	size_t start, len, idx_base;
	int src;
};
/* The stretches bench_check compares (0 for a reduce off its root); at most
 * max (BENCH_MAX_BLOCKS suffices). */
int bench_check_blocks(const struct bench_data *d, const struct bench_geom *g, struct bench_block *out, int max);
/* The expected values of block b, encoded (es bytes each, packed); returns
 * the period. */
size_t bench_expect_table(const struct bench_data *d, const struct bench_block *b, unsigned char *table);
/* avg of a floating type rounds (NCCL may multiply by 1/n): the relative
 * tolerance a block's comparison allows (two units in the last place),
 * 0 when the comparison is exact. */
double bench_check_tolerance(const struct bench_data *d, const struct bench_block *b);

#endif
