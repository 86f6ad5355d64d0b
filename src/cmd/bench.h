/* What the files of `bench` share: cmd/bench.c (options, the GPUs),
 * cmd/bench_safety.c (busy and wedged GPUs), cmd/bench_env.c (nccl-tests'
 * split and alltoallv matrix variables); the run and its output are
 * the bench engine's (engine/bench.h). */
#ifndef ND_CMD_BENCH_H
#define ND_CMD_BENCH_H
#include "cmd/cmd.h"
#include "engine/bench.h"

#include <stdbool.h>
#include <stdio.h>

/* The options of `bench` ARGS into o (argv[0] the command name;
 * --gpus of opt picks the devices); 0, -1 after -h (usage printed), or 64
 * (usage error printed). */
int bench_parse_opts(int argc, char **argv, struct bench_opts *o, const struct run_opts *opt);
/* bench_safety.c: before the ranks, 0 when no GPU of the run is held by
 * another process, else the exit status after saying which (3); after a
 * hang, fills br->wedged. Both run the p2p-procs worker (NVML). */
int bench_busy_check(const struct bench_opts *o, const struct run_opts *opt);
void bench_wedged_check(struct bench_run *br, const struct run_opts *opt);
/* bench_env.c, after the ranks and sizes are known: NCCL_TESTS_SPLIT_MASK
 * and NCCL_TESTS_SPLIT into o's colors, groups and comm_ranks, with the
 * sizes of the smallest and largest group (-r, hypercube checked against
 * them); NCCL_TESTS_ALLTOALLV_SPREAD checked and set, and for alltoallv
 * NCCL_TESTS_ALLTOALLV_MATRIX_FILE (and _SCALE) read, checked against the largest group and -b/-e as nccl-tests does,
 * set as the traffic (model/bench_op.h) and in o->a2av_matrix for the
 * ranks. 0, or 64 after a one-line error. */
int bench_env_split(struct bench_opts *o, int *smallest, int *largest);
int bench_env_alltoallv(struct bench_opts *o, int largest);

#endif
