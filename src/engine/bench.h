/* The bench engine (engine/bench.c): a run of nccl-tests' benchmark as
 * rank processes under deadlines, and what it collected from its ranks.
 * `bench` (cmd/bench.c: options) and every trial of the fix search
 * (engine/fix_search.c) run it; bench_report.c renders it (nccl-tests text,
 * -J file, result model for --json, findings). */
#ifndef ND_ENGINE_BENCH_H
#define ND_ENGINE_BENCH_H
#include "analyze/bench.h"
#include "analyze/nccllog.h"
#include "engine/engine.h"
#include "gpu/bench_data.h"
#include "run/ranks.h"
#include "run/worker.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <stdio.h>

#define BENCH_MAX_RANKS 64
/* deadlines of a rank's init and of each collective when not given */
#define BENCH_DEFAULT_INIT_TIMEOUT 60.0
#define BENCH_DEFAULT_COLL_TIMEOUT 60.0

struct bench_opts {
	int op, type, redop, root;   /* type, redop: -1 for "all"; root -1: every rank */
	int types[BT_COUNT], ntypes;     /* what runs, in nccl-tests' order */
	int redops[BR_COUNT], nredops;
	int roots[BENCH_MAX_RANKS], nroots;
	uint64_t min_bytes, max_bytes, step_bytes, step_factor;
	long long iters, warmup, agg, cycles, check, blocking, nthreads, ngpus, average, graph, cputime;
	double coll_timeout;      /* -T, 0: our default */
	double init_timeout;      /* --deadline-init */
	const char *json_file;    /* -J */
	const char *html;        /* --html FILE (cmd/bench.c) */
	const char *rendezvous;   /* --rendezvous HOST:PORT: rank 0's address under a launcher */
	bool local;               /* --local: the launcher's variables ignored, this node's own ranks */
	int pairs;                /* --pairs: BENCH_PAIRS_QUICK or _ALL, a sweep of node pairs */
	bool join_partial;        /* check across nodes: at --join-timeout go on with the ranks that
				   * joined (bench_world_absent names the others), not fail */
	bool world;               /* one rank of a world across processes (bench_world_devices joined it):
				   * not a check's own bench of its node while the node is one of several */
	time_t started;           /* for -J's "start_time" */
	int argc;                 /* the command line, for -J's "args" as nccl-tests */
	char **argv;
	long long per_iter;       /* -I: per-iteration CUDA event times, percentiles */
	long long per_iter_skip;  /* -K: leading samples left out of -I's summary */
	long long timestamps;     /* -S: a timestamp per row */
	long long memory;         /* -M: GPU memory report */
	long long unalign;        /* -u: first element of the buffers (elements, as nccl-tests) */
	long long parallel_init;  /* -p: our ranks always initialise concurrently */
	long long stream_null;    /* -y */
	long long local_register; /* -R */
	long long cta_policy;     /* -x, -1 not set */
	long long device_impl, device_ctas; /* -D, -V */
	bool event_timer, comm_blocking, comm_nonblocking; /* blocking: the default, kept as a flag */
	bool algo;                /* --algo: NCCL prints its algorithm per call */
	bool cuda_alloc;          /* --cuda-alloc: cuMemAlloc, not ncclMemAlloc */
	bool threads;             /* --threads: every rank a thread of one process */
	bool host_check;          /* --host-check: not by the GPU kernels */
	bool force;               /* --force: also on GPUs other processes hold */
	bool progress;            /* progress lines on stderr (util/progress.h): the sizes done, an ETA */
	uint64_t sizes[BENCH_MAX_SIZES];
	int nsizes;
	int nranks;
	/* NCCL_TESTS_SPLIT(_MASK): each rank's group (color), the number of
	 * groups (1 without), and the ranks of rank 0's communicator, whose
	 * geometry and bus bandwidth the rows show (nranks without a split) */
	int colors[BENCH_MAX_RANKS];
	int ngroups, comm_ranks;
	const char *a2av_matrix;  /* NCCL_TESTS_ALLTOALLV_MATRIX_FILE's values as the ranks take them, NULL none */
	const char *a2av_file;    /* and the file, with the dimension of its matrix */
	int a2av_file_dim;
	double a2av_scale;        /* NCCL_TESTS_ALLTOALLV_MATRIX_SCALE as used (0 or more) */
	bool a2av_summary;        /* NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY set (non-zero) for alltoallv */
	int devices[BENCH_MAX_RANKS];
	char visible[BENCH_MAX_RANKS * 48]; /* "CUDA_VISIBLE_DEVICES=GPU-…" for --gpus by UUID or bus id, or "" */
};

struct bench_rank {
	int rank, device, pid;
	char host[64], busid[32], name[128], nccl_version[32];
	int nccl_code;
	int devices;              /* GPUs its process sees (cuDeviceGetCount), -1 unknown */
	double init_s;            /* -1 unknown */
	bool nonblocking;
	char entry[32];            /* the NCCL call the op ran as: "ncclAlltoAll", "ncclSend/ncclRecv" */
	char transports[256];     /* "P2P/IPC->1, SHM/direct/direct->3" from NCCL's lines */
	char nics[96];            /* the network NCCL took: "IB [0]mlx5_0:1/IB", "Socket eth0:10.0.0.1<0>", "" */
	const struct worker *w;   /* its process (--threads: the one for all) */
	bool done;                /* reported the end of its sweep */
	char last_line[200];      /* the last NCCL line it printed, "" none */
	char phase[192];          /* --threads: the phase it announced last */
	char checker[8];          /* where it checked results: "gpu", "host", "" unknown */
	char checker_why[256];    /* "host": why not on the GPU */
	char reg_how[16];         /* -R: "local", "symmetric", "" not reported */
	char reg_why[160];        /* -R 2 done as local: why */
	int cta_policy;           /* -x: the CTA policy its communicator got, -1 none */
};

/* One cell per (row, in-place) with each rank's time and #wrong. */
struct bench_cellset {
	int have;                 /* ranks that reported it */
	double time_s[BENCH_MAX_RANKS];
	double cpu_s[BENCH_MAX_RANKS];
	long long wrong[BENCH_MAX_RANKS];
	uint64_t bytes, count;
	double *iter_s;           /* -I: nranks x iters, each rank's per-iteration times */
	double *iter_max;         /* -I: iters, the slowest rank's time of each */
	struct bench_cell cell;   /* combined, when have == nranks */
	double bw_s;              /* the time its bandwidth is of (nccl-tests' deltaSec: never the CPU time) */
	char algo[32];            /* "RING/SIMPLE" from NCCL's tuning line, "" unknown */
};

/* The arguments of every rank's `bench` task (after the rank protocol's)
 * and of the one process of --threads: kept with the run, whose workers
 * refer to them. */
struct bench_task_args {
	char sizes[BENCH_MAX_SIZES * 21 + 1];
	char types[BT_COUNT * 10], redops[BR_COUNT * 6], root[BENCH_MAX_RANKS * 3 + 1], iters[24], warmup[24], agg[24], check[24], cycles[24], blocking[8], unalign[24], reg[8], cta[8], initto[32], collto[32], graph[24];
	const char *argv[RANKS_MAX_TASK_ARGS + 1];
	char devs[BENCH_MAX_RANKS * 6 + 1], nr[16], local[16], dev0[16]; /* --threads */
	char colors[BENCH_MAX_RANKS * 12 + 1]; /* --split-colors */
};

struct bench_run {
	const struct bench_opts *o;
	struct bench_task_args targs;
	struct bench_rank ranks[BENCH_MAX_RANKS];
	struct worker ws[BENCH_MAX_RANKS];  /* one per rank, or ws[0] alone (--threads) */
	int nworkers;
	struct bench_cellset *cells; /* nrows * 2 */
	int nrows;
	long long mem[3];         /* -M: GPU memory of init, buffers, the sweep (bytes, max over ranks), -1 unknown */
	int errors;               /* cells x ranks with wrong > 0 (nccl-tests' count) */
	long long wrong_total;
	double avg_busbw;
	int nbw;
	bool complete;            /* every rank did every cell */
	int failed_rank;          /* first rank that did not finish, -1 */
	char phase[256];          /* "init", "size 1048576 of op all_reduce out-of-place" */
	char not_finished[1024];  /* "0,1,3", or grouped by phase: "0,1 (init); 2 (...)" */
	bool could_not_run;       /* no GPU / library: exit 3 */
	char why[512];
	double min_bw;            /* NCCL_TESTS_MIN_BW, -1 unset */
	char wedged[256];         /* "1, 3": devices busy with no process after the hang */
	bool wedged_dev[BENCH_MAX_RANKS]; /* per rank: its device is wedged (first rank of a device) */
};

/* The configuration and size of a row: rows go type, reduction, root,
 * cycle, size (nccl-tests' order). */
static inline void bench_row_config(const struct bench_opts *o, int row, int *type, int *redop, int *root, uint64_t *size)
{
	int conf = (int)(row / (o->cycles * o->nsizes));
	*size = o->sizes[row % o->nsizes];
	*root = o->roots[conf % o->nroots];
	*redop = o->redops[(conf / o->nroots) % o->nredops];
	*type = o->types[conf / (o->nroots * o->nredops)];
}

/* The ranks of rank 0's communicator: o->comm_ranks with a split, else
 * every rank. */
static inline int bench_comm_ranks(const struct bench_opts *o)
{
	return o->comm_ranks > 0 ? o->comm_ranks : o->nranks;
}

/* bench's defaults (nccl-tests'): all_reduce, float, sum, 32 MiB, 20
 * iterations, 1 warm-up, checked, one thread, init deadline 60 s. */
void bench_opts_init(struct bench_opts *o);
/* One trial of the fix search: all_reduce, float, sum on ngpus GPUs (one
 * process each), 5 iterations, 1 warm-up, checked, CUDA event timer, with
 * these deadlines; the caller sets sizes and devices. As `bench -n 5 -w 1
 * -c 1 -g N -T COLL --deadline-init INIT --timer event` sets them; 0, or
 * -EINVAL for values that command line refuses (said on stderr when it is
 * NCCL_TESTS_DEVICE). */
int bench_trial_opts(struct bench_opts *o, int ngpus, double coll_timeout, double init_timeout);
/* Runs o's ranks (one process per rank, or --threads) with extra_env
 * ("NAME=value", or "NAME" to remove it; NULL-terminated, at most
 * BENCH_MAX_ENV; may be NULL) on top
 * of ours (NCCL_DEBUG=INFO unless set), under o's deadlines and
 * opt->timeout for the whole run; collects, combines and diagnoses. *out
 * (free with bench_run_free) refers to o, which must outlive it. Returns 0,
 * or -errno when rank 0 could not be started. `fix` and `check` call it per
 * candidate configuration. The run keeps its own state: calls do not share any. */
#define BENCH_MAX_ENV 40
int bench_execute(const struct bench_opts *o, const struct run_opts *opt, const char *const *extra_env,
		  struct bench_run **out);
void bench_run_free(struct bench_run *br);
/* The run ended at the deadline of the whole run (opt->timeout) while every
 * rank still running was within its phase's deadline: not finished, which
 * shows no hang (run/worker.h's cut). */
bool bench_run_cut(const struct bench_run *br);

/* bench_report.c: nccl-tests text, -J file, result model for --json,
 * findings */
int bench_one_rank_of(const struct bench_run *br);
void bench_print_text(const struct bench_run *br, FILE *out);
/* -J: reserves FILE (else FILE.1, ...; never overwrites, as nccl-tests);
 * returns the fd with the name in used, or -errno with a message in err. */
int bench_open_json_file(const char *path, char *used, size_t usedsz, char *err, size_t errsz);
/* Writes nccl-tests' JSON to fd and closes it; 0 or -EIO with err. */
int bench_write_json_file(const struct bench_run *br, int fd, const char *path, char *err, size_t errsz);
struct result *bench_result(const struct bench_run *br);
/* bench_pairs.c: the pairwise node sweep under a launcher (bench --pairs):
 * rounds of disjoint node pairs, each pair's ranks in a world of their
 * own; every process calls bench_pairs_run (0, or -errno: *out then says
 * why), rank 0 gets the links; bench_pairs_print: the node x node busbw
 * matrix and the slow links and nodes as text; bench_pairs_result: the
 * same as a result (FLEET_OUTLIER per slow link or node, BENCH_HANG per
 * link that did not finish; JSON bench.pairs). */
enum { BENCH_PAIRS_NONE, BENCH_PAIRS_QUICK, BENCH_PAIRS_ALL };
struct bench_link {
	int a, b;                 /* node indices, a < b */
	int round;
	bool complete, slow;
	double busbw;             /* average busbw of the pair's run */
	double median, mad;       /* of its class, -1 when the class has fewer than 3 links */
	char cls[128];            /* the class: the GPU model of the pair's first rank */
	char phase[256];          /* where it stopped, "" when complete */
};
struct bench_pairs {
	int mode, rounds;
	int nnodes;
	char (*nodes)[64];
	struct bench_link *links;
	int nlinks;
	bool *slow_node;
	double *node_best;        /* each node's fastest link (-1 none), by bench_pairs_judge */
	double *node_median;      /* the median of its class's fastest links (0: fewer than 3 nodes) */
	char why[512];            /* the sweep could not run */
};
int bench_pairs_run(const struct bench_opts *o, const struct run_opts *opt, struct bench_pairs **out);
/* The pure steps (unit-tested): the links of p->mode between p->nnodes
 * nodes put in rounds (p->links, nlinks, rounds: allocated here); the
 * slow links and nodes from the links' complete, busbw and cls. */
void bench_pairs_schedule(struct bench_pairs *p);
void bench_pairs_judge(struct bench_pairs *p);
void bench_pairs_print(const struct bench_pairs *p, const struct bench_opts *o, FILE *out);
struct result *bench_pairs_result(const struct bench_pairs *p, const struct bench_opts *o);
json_t *bench_pairs_json(const struct bench_pairs *p);
void bench_pairs_free(struct bench_pairs *p);

/* bench_nodes.c: a run across nodes by node (each rank's host): how many
 * nodes; a line per node (ranks, network, ranks not finished with status
 * and stage) when there are several; the same as a JSON array. */
struct strbuf;
int bench_node_count(const struct bench_run *br);
void bench_nodes_text(const struct bench_run *br, struct strbuf *sb);
json_t *bench_nodes_json(const struct bench_run *br);
/* A warning (FLEET_VERSION_DIFFERS) into r when the ranks loaded different
 * NCCL versions, naming each version's nodes. */
void bench_nodes_versions(const struct bench_run *br, struct result *r);

/* One rank per process (G with -g G), the processes started by a launcher
 * on one or many nodes (bench_world.c): under mpirun/srun in the MPI build (MPI
 * gives ranks and the unique id, bench_mpi.c), else under any launcher
 * whose variables util/launcher.h reads, through our TCP rendezvous
 * (bench_net.c, --rendezvous). bench_world_start: MPI_Init when MPI's
 * launcher started this process (0, or -errno with a message in err);
 * bench_world_devices: this process's place, its GPUs and every rank's
 * (-g: G ranks a process; no -t): 0 no launcher (a single node, our own ranks), 1 one
 * rank of a world, -EINVAL a usage error, another -errno the rendezvous
 * failed (who is missing in err); bench_world_run: this process's ranks as
 * workers, every worker gathered into ws on rank 0 (ws has world size
 * x G entries, each to be released); bench_world_agree: the largest rc of all
 * processes; bench_world_finish: rank 0's rc for every process, then the
 * world closed; bench_world_node_env: "NCCL_DOCTOR_NODE=NAME" for the
 * rank's worker (its node in the report), NULL; bench_world_rank_node: the
 * node of a rank as it joined (NULL unknown); bench_world_describe: the
 * launcher and every rank's node into o's "launcher". */
struct ranks_spec;
int bench_world_start(char *err, size_t errsz);
int bench_world_devices(struct bench_opts *o, const struct run_opts *opt, char *err, size_t errsz);
bool bench_world_active(void);
bool bench_world_root(void);
int bench_world_rank(void);
int bench_world_run(const struct ranks_spec *spec, struct worker *ws);
int bench_world_agree(int rc);
int bench_world_finish(int rc);
const char *bench_world_node_env(void);
const char *bench_world_rank_node(int rank);
/* The rendezvous' world (not MPI's): its size (1 without one); every rank's
 * text to rank 0, which gets them in all[0..size) (heap, NULL for a rank
 * whose text did not come; each to be freed); 0 or -errno with who did not
 * send in err. check across nodes sends each node's result this way. */
int bench_world_size(void);
int bench_world_gather(const char *what, const char *mine, double timeout, char **all, char *err, size_t errsz);
void bench_world_describe(json_t *o);
/* With join_partial: why some ranks never joined ("rank 2 (node n2) never
 * joined within 5 s"), NULL when all did; whether rank never joined, with
 * its node's name (the launcher's, else "rankK") into node. */
const char *bench_world_absent(void);
/* The ranks each process of the world drives (-g G under a launcher, MPI's
 * or our rendezvous: ranks process x G + k), 1 otherwise. */
int bench_world_per_process(void);
bool bench_world_rank_absent(int rank, char *node, size_t nodesz);
/* The rank the launcher gave this process, joined or not (rank 0 names
 * the ranks that never joined when bench_world_devices failed); -1 when no
 * launcher started it. */
int bench_world_launcher_rank(void);

#endif
