/* The collective operations `bench` runs, by number (gpu/bench_data.h has
 * their names, geometry and data; analyze/bench.h their bandwidth formulas). */
#ifndef ND_MODEL_BENCH_OP_H
#define ND_MODEL_BENCH_OP_H

#include <stddef.h>

enum bench_op {
	BOP_ALL_REDUCE,
	BOP_ALL_GATHER,
	BOP_REDUCE_SCATTER,
	BOP_BROADCAST,
	BOP_REDUCE,
	BOP_ALLTOALL,
	BOP_SENDRECV,
	BOP_GATHER,
	BOP_SCATTER,
	BOP_ALLTOALLV,
	BOP_HYPERCUBE,
	BOP_COUNT
};

/* alltoallv: the bytes rank i sends rank j when every rank sends total
 * bytes, by nccl-tests' distance-weighted pattern (2.19 alltoallv.cu),
 * each a multiple of 16; the pattern is balanced (every rank sends and
 * receives the same total). Its spread (NCCL_TESTS_ALLTOALLV_SPREAD: 0
 * uniform .. 1 by distance, the default; clamped) is set once per process. */
size_t bench_alltoallv_bytes(int i, int j, int nranks, size_t total);
void bench_alltoallv_spread(double spread);
double bench_alltoallv_spread_used(void); /* the spread set, clamped */
/* NCCL_TESTS_ALLTOALLV_MATRIX_FILE: from now on rank i sends rank j
 * m[i * dim + j] bytes (multiples of 16) whatever the size, as nccl-tests'
 * matrix mode (m is copied; dim 1..64; dim 0: the pattern again). */
void bench_alltoallv_matrix(const size_t *m, int dim);
int bench_alltoallv_matrix_dim(void); /* 0: the pattern */
/* The most elements (of es bytes) one rank sends, and one receives, for
 * nccl-tests' per-rank total (AlltoAllvComputeMaxCounts: rank 0's for the
 * balanced pattern, the largest row and column sums of the matrix). */
void bench_alltoallv_max(int nranks, size_t total, size_t es, size_t *send, size_t *recv);

#endif
