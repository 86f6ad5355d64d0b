/* The bench worker's rank (gpu/bench.c) as its parts share it: the rank's
 * state, its messages to the parent with the watchdog that ends a call
 * which blocks (gpu/bench_msg.c), and the NCCL calls of each operation
 * (gpu/bench_launch.c). Internal to the worker task `bench`. */
#ifndef ND_GPU_BENCH_RANK_H
#define ND_GPU_BENCH_RANK_H
#include "gpu/bench_args.h"
#include "gpu/bench_data.h"
#include "gpu/bench_ptx.h"
#include "nvlib/nvlib.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

struct rank_state {
	const struct cuda_api *cu;
	const struct nccl_api *nc;
	int nccl_code;
	ncclComm_t comm;
	CUstream st;
	CUdeviceptr sendbuf, recvbuf;
	bool nccl_alloc;          /* buffers from ncclMemAlloc (nccl-tests since 2.19) */
	size_t bufbytes;
	size_t unalign_off;       /* -u: sendbuf, recvbuf moved by this many bytes from the allocation */
	void *reg[2];             /* -R 1: ncclCommRegister's handles of sendbuf, recvbuf */
	ncclWindow_t win[2];      /* -R 2: ncclCommWindowRegister's windows */
	void *host;
	size_t hostbytes;
	const struct bench_args *a;
	size_t es;
	int rank, device;         /* this rank (--threads: one of the process's) */
	int crank, cranks;        /* its rank in comm and comm's size: rank, nranks unless split */
	ncclComm_t world;         /* --split-colors: the communicator of every rank that comm was split from */
	int type, redop, root;    /* the configuration being run (es: the type's size) */
	char stage[192];          /* the phase this rank announced last */
	struct bench_kern kern;   /* the check kernels; kern.mod NULL: check on the host */
	double limit;             /* the deadline of each step of the size being run (size_limit) */
	long long prev_bytes;     /* the size run before it in this configuration, 0 none */
	double prev_cell_s;       /* and the wall time of its last cell */
	long long prev2_bytes;    /* the size before that, 0 none */
	double prev2_cell_s;      /* and its cell's wall time */
	double wd_at, wd_limit;   /* the watchdog's deadline of the stage (0: none), and the limit it says */
	const char *wd_what;      /* the stage it names: stage, or a clean-up step's name */
	bool wd_on;               /* in the watchdog's list */
};

/* --threads: every rank of the process is a thread (messages carry the rank) */
extern bool br_threads_mode;

/* Announces s's stage; budget > 0: the parent's deadline for it, and the
 * rank's watchdog a second after the rank's own limit (budget - 5). */
void br_stage(struct rank_state *s, double budget, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A clean-up step (abort, destroy) with its own 10 s deadline; the rank's
 * phase stays the one that failed or finished. */
void br_cleanup_stage(struct rank_state *s, const char *name);
/* Sends a result with this rank's number; steals the reference. */
void br_result(struct rank_state *s, json_t *data);
void br_error(const struct rank_state *s, const char *lib, long code, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
/* An error of call (CUDA's, NCCL's with its last error); return 1. */
int br_cu_fail(const struct rank_state *s, const char *call, CUresult r);
int br_nccl_fail(const struct rank_state *s, const char *call, ncclResult_t r);
/* s leaves the watchdog's list (before it is freed). */
void br_watchdog_forget(struct rank_state *s);

/* One call of the operation at iteration iter (the buffer offset moves with
 * it, as nccl-tests' startColl does). */
ncclResult_t br_launch(struct rank_state *s, const struct bench_geom *g, size_t bytes_max, bool inplace, long long iter);
/* The NCCL call an op with a choice runs as (NCCL 2.28's own, or
 * "ncclSend/ncclRecv"); NULL for the other ops. */
const char *br_entry_point(const struct nccl_api *nc, int op);

#endif
