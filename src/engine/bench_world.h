/* Inside the bench engine: the pieces that the two ways of running ranks
 * in processes across nodes share. bench_mpi.c (the MPI build: ranks and
 * the unique id from MPI) and bench_net.c (any launcher's variables and our
 * TCP rendezvous, run/rendezvous.h) both start this process's ranks (one,
 * or G with -g G: ranks process x G + k) as workers with the unique id of
 * rank 0's worker and send what the workers said to rank 0 as JSON;
 * bench_world.c holds those steps once and picks the way (engine/bench.h's
 * bench_world_*). */
#ifndef ND_ENGINE_BENCH_WORLD_H
#define ND_ENGINE_BENCH_WORLD_H
#include "engine/bench.h"

#define BENCH_ID_HEX (2 * 128 + 1) /* NCCL_UNIQUE_ID_BYTES in hex, NUL */

typedef int bench_world_share(char id[BENCH_ID_HEX], void *ctx, char *why, size_t whysz);
/* This process's ranks, proc x per + k for k < per of nprocs x per (-g G:
 * per = G; else 1), started as workers with the unique id of rank 0's
 * worker (rank 0's own worker makes it; share gives it to every process:
 * rank 0 passes its id, "" when its worker gave none, the others receive
 * it; 0, or -1 when it did not come, why in its message) and waited for.
 * Every entry of ws (nprocs x per) is initialised here. Returns what this
 * process's workers said, as JSON text for rank 0 (malloc'd). */
char *bench_world_run_mine(const struct ranks_spec *spec, struct worker *ws, int proc, int per, int nprocs,
			   bench_world_share *share, void *ctx);
/* Rank 0: process proc's text from bench_world_run_mine (NULL: it did not
 * come) into its ranks' workers ws[proc x per ...]; a rank not in it is not
 * finished, stopped in `via` ("rendezvous", "MPI gather"), with why. */
void bench_world_take(struct worker *ws, int proc, int per, const char *text, size_t len, const char *via,
		      const char *why);
/* The GPU of local rank `local`: its place in --gpus (indices), else
 * NCCL_TESTS_DEVICE + local. 0, or -EINVAL with the usage error in err. */
int bench_world_local_device(int local, const struct run_opts *opt, int *dev, char *err, size_t errsz);
/* Each of size processes drives per GPUs (-g G, under MPI or our
 * rendezvous alike), as ranks process x per + k; -t, --threads, --pairs
 * with -g and more ranks than BENCH_MAX_RANKS are usage errors. _my_devices
 * also: the per GPUs of local rank `local` into dev. */
int bench_world_ranks_each(const struct bench_opts *o, int size, int per, char *err, size_t errsz);
int bench_world_my_devices(const struct bench_opts *o, const struct run_opts *opt, int size, int local, int per, int *dev,
			   char *err, size_t errsz);

/* bench_mpi.c (ND_MPI) */
int bench_mpi_start(char *err, size_t errsz);
bool bench_mpi_active(void);
int bench_mpi_rank(void);
int bench_mpi_devices(struct bench_opts *o, const struct run_opts *opt, char *err, size_t errsz);
int bench_mpi_per_process(void);
int bench_mpi_size(void);
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
int bench_net_launcher_rank(void);
bool bench_net_rank_absent(int rank, char *node, size_t nodesz);
/* the pairwise sweep: every rank's address to every rank (once); then, per
 * round, the world of one pair of nodes (ranks: the pair's global ranks,
 * its leader first), which bench_world_* serve until pair_end */
int bench_net_addresses(char *err, size_t errsz);
int bench_net_pair_begin(const int *ranks, int n, int round, char *err, size_t errsz);
void bench_net_pair_end(void);
int bench_net_gather(const char *what, const char *mine, double timeout, char **all, char *err, size_t errsz);

#endif
