/* The collective operations `bench` runs, by number (gpu/bench_data.h has
 * their names, geometry and data; analyze/bench.h their bandwidth formulas). */
#ifndef ND_MODEL_BENCH_OP_H
#define ND_MODEL_BENCH_OP_H

enum bench_op {
	BOP_ALL_REDUCE,
	BOP_ALL_GATHER,
	BOP_REDUCE_SCATTER,
	BOP_BROADCAST,
	BOP_REDUCE,
	BOP_ALLTOALL,
	BOP_SENDRECV,
	BOP_COUNT
};

#endif
