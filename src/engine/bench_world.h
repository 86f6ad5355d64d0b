/* Inside the bench engine: the pieces that the two ways of running one
 * rank per process across nodes share. bench_mpi.c (the MPI build: ranks
 * and the unique id from MPI) and bench_net.c (any launcher's variables and
 * our TCP rendezvous, run/rendezvous.h) both start this process's rank as a
 * worker with the unique id of rank 0's worker and send what the worker
 * said to rank 0 as JSON; bench_world.c holds those steps once and picks
 * the way (engine/bench.h's bench_world_*). */
#ifndef ND_ENGINE_BENCH_WORLD_H
#define ND_ENGINE_BENCH_WORLD_H
#include "engine/bench.h"

#define BENCH_ID_HEX (2 * 128 + 1) /* NCCL_UNIQUE_ID_BYTES in hex, NUL */

/* The arguments of this process's rank (as run/ranks.c builds them). */
struct bench_rank_argv {
	char nranks[16], rank[16], device[16];
	const char *argv[16 + RANKS_MAX_TASK_ARGS];
};

/* Starts this process's worker (rank `rank` of `size`): rank 0's with --id
 * create, whose unique id share() gives to every process (rank 0 passes
 * its id, "" when its worker gave none; the others receive it); then the
 * others' with that id. share returns 0, or -1 when the id did not come
 * (why in w->why through its message). */
void bench_world_start_rank(const struct ranks_spec *spec, struct worker *w, struct bench_rank_argv *a, int rank,
			    int size, int (*share)(char id[BENCH_ID_HEX], void *ctx, char *why, size_t whysz), void *ctx);
/* The same for the `count` ranks base..base+count-1 of one process (-g G
 * under a launcher): ws and a have count entries; rank 0's worker, when
 * base is 0, makes the id and the others start with it. */
void bench_world_start_ranks(const struct ranks_spec *spec, struct worker *ws, struct bench_rank_argv *a, int base,
			     int count, int size, int (*share)(char id[BENCH_ID_HEX], void *ctx, char *why, size_t whysz),
			     void *ctx);
/* What rank 0 needs of a worker, as JSON text (malloc'd); _all: of n
 * workers, as an array. */
char *bench_world_pack(const struct worker *w);
char *bench_world_pack_all(const struct worker *ws, int n);
/* Rank 0: text (from bench_world_pack) into w; false when it is not such.
 * _all: from bench_world_pack_all into ws[0..n): how many were read. */
bool bench_world_unpack(struct worker *w, const char *text, size_t len);
int bench_world_unpack_all(struct worker *ws, int n, const char *text, size_t len);
/* The GPU of local rank `local`: its place in --gpus (indices), else
 * NCCL_TESTS_DEVICE + local. 0, or -EINVAL with the usage error in err. */
int bench_world_local_device(int local, const struct run_opts *opt, int *dev, char *err, size_t errsz);
/* -t, -g, --threads and more ranks than BENCH_MAX_RANKS are usage errors
 * when every process is one rank. */
int bench_world_one_rank_each(const struct bench_opts *o, int size, char *err, size_t errsz);
/* Our rendezvous: each of size processes drives per GPUs (-g), as ranks
 * process x per + k; -t, --threads, --pairs with -g and more ranks than
 * BENCH_MAX_RANKS are usage errors. */
int bench_world_ranks_each(const struct bench_opts *o, int size, int per, char *err, size_t errsz);

/* bench_mpi.c (ND_MPI) */
int bench_mpi_start(char *err, size_t errsz);
bool bench_mpi_active(void);
int bench_mpi_rank(void);
int bench_mpi_devices(struct bench_opts *o, const struct run_opts *opt, char *err, size_t errsz);
int bench_mpi_run(const struct ranks_spec *spec, struct worker *ws);
int bench_mpi_agree(int rc);
int bench_mpi_finish(int rc);

/* bench_net.c: the launcher's variables and run/rendezvous. devices: 0
 * when no launcher started this process (a single node), 1 joined, or
 * -errno (-EINVAL usage). */
int bench_net_devices(struct bench_opts *o, const struct run_opts *opt, char *err, size_t errsz);
bool bench_net_active(void);
int bench_net_rank(void);
int bench_net_run(const struct ranks_spec *spec, struct worker *ws);
int bench_net_agree(int rc);
int bench_net_finish(int rc);
void bench_net_describe(json_t *o);
const char *bench_net_node_env(void);
const char *bench_net_rank_node(int rank);
int bench_net_size(void);
const char *bench_net_absent(void);
int bench_net_per_process(void);
bool bench_net_rank_absent(int rank, char *node, size_t nodesz);
/* the pairwise sweep: every rank's address to every rank (once); then, per
 * round, the world of one pair of nodes (ranks: the pair's global ranks,
 * its leader first), which bench_world_* serve until pair_end */
int bench_net_addresses(char *err, size_t errsz);
int bench_net_pair_begin(const int *ranks, int n, int round, char *err, size_t errsz);
void bench_net_pair_end(void);
int bench_net_gather(const char *what, const char *mine, double timeout, char **all, char *err, size_t errsz);

#endif
