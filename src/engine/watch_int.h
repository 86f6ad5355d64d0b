/* The parts of `watch` beside the supervision loop (cmd/watch.c):
 *   watch_gpu.c     GPU memory and utilisation per process, sampled by the
 *                   p2p-procs NVML worker (never in this process) at a stall
 *                   and every few seconds while it lasts;
 *   watch_kernel.c  the kernel log since the job started (/dev/kmsg from its
 *                   end at start, or a growing file given with --kernel-log);
 *   watch_nccl.c    --nccl-diag (NCCL_RUN_DIAGNOSTICS for NCCL 2.31+) and the
 *                   NCCL RAS status query at a stall (probe/ras.h);
 *   watch_retry.c   --retry-with-fix: the job stopped, the fix search
 *                   (engine/fix.h) on its GPUs, the configuration to
 *                   relaunch with.
 * Each adds sections and findings to the diagnosis result; only
 * watch_retry.c prints (the search's table and its decision, to the stream
 * it is given). */
#ifndef ND_ENGINE_WATCH_INT_H
#define ND_ENGINE_WATCH_INT_H
#include "analyze/kernel_parse.h"
#include "analyze/kmsg.h"
#include "engine/fix.h"
#include "model/result.h"
#include "run/supervise.h"
#include "run/worker.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdio.h>

/* ---- the job's processes and sockets (watch_procs.c) ---- */
#define WATCH_MAX_PIDS 512

struct watch_cpu {         /* CPU time per pid at the last sample */
	int pid[WATCH_MAX_PIDS];
	unsigned long long ticks[WATCH_MAX_PIDS];
	int n;
	double t;              /* when it was taken (monotonic), 0 before */
};
struct nccllog;
/* The "processes" section: each of pids (the job's tree) that loaded a GPU
 * library, wrote NCCL lines (lg) or has a role, with its CPU use since the
 * last call (c). Counts in *nranks the processes with NCCL, in *nvllm the
 * vLLM workers; returns how many mapped a GPU library. */
int wprocs_add(struct watch_cpu *c, const struct nccllog *lg, struct result *r, const int *pids, int npids, int *nranks,
	       int *nvllm);
/* The "sockets" section (the TCP ports pids listen on, with their
 * connections) and, for a torch.distributed job whose world is larger than
 * the ranks running, WATCH_RANKS_NOT_STARTED. */
void wprocs_add_net(struct result *r, const int *pids, int npids);

/* ---- GPU samples (watch_gpu.c) ---- */
#define WGPU_WAIT 3.0      /* seconds a diagnosis waits for a sample */
#define WGPU_DEADLINE 8.0  /* the worker's own deadline */
#define WGPU_EVERY 5.0     /* seconds between samples while a stall lasts */

struct watch_gpu {
	struct worker w;
	bool running;          /* a sample is being taken */
	bool hung;             /* NVML hung once: no more samples this run */
	double t_started, t_done;
	json_t *sample;        /* the latest result ({"gpus": [...]}), or NULL */
	int nsamples;
	int busy_streak;       /* consecutive samples with every job GPU busy */
	char why[600];         /* why the latest sample failed, "" when it did not */
};

void wgpu_init(struct watch_gpu *g);
/* Starts a sample unless one runs or NVML hung before. */
void wgpu_start(struct watch_gpu *g);
/* Supervises a running sample without waiting; true when one finished now. */
bool wgpu_poll(struct watch_gpu *g);
/* The GPUs the job's processes (pids) use: a section and, at a stall
 * (stalled), whether they spin or idle. */
void wgpu_add(struct watch_gpu *g, struct result *r, const int *pids, int npids, bool stalled);
/* Stops a running sample (its process group is killed) and frees. */
void wgpu_release(struct watch_gpu *g);

/* ---- the kernel log (watch_kernel.c) ---- */
struct watch_kmsg {
	int fd;                /* -1 when not readable */
	bool live;             /* /dev/kmsg; else a text file or a FIFO */
	bool fifo;             /* --kernel-log names a FIFO */
	int open_err;          /* why it could not be opened (-errno), 0 */
	char path[4096];
	char why[4400];        /* why wkmsg_open refused it */
	struct kparser kp;
	struct kreader kr;
	struct strbuf partial; /* file: an unfinished last line */
	uint64_t records;      /* read since the start */
	int read_err;          /* the last read's error, 0 */
};

/* Opens the source and moves to its end: only what comes later is read.
 * file NULL: /dev/kmsg through the sysroot. file: a regular file (from its
 * end), a FIFO (opened and read without blocking: what is written to it
 * from now on) or the kernel's /dev/kmsg device (1:11); anything else (a
 * character device such as /dev/zero, a block device, a socket, a
 * directory) is refused before it is opened: -SR_ESPECIAL (or -EISDIR) with
 * the reason in k->why, and the caller stops. A source that cannot be
 * opened (missing, no permission) is remembered and said in the diagnosis:
 * 0. The caller releases k either way. */
int wkmsg_open(struct watch_kmsg *k, const char *file);
/* Reads what arrived, without blocking, for at most deadline seconds. */
void wkmsg_read(struct watch_kmsg *k, double deadline);
/* The kernel section and the events' findings (Xid, AER, IOMMU faults). */
void wkmsg_add(struct watch_kmsg *k, struct result *r);
void wkmsg_release(struct watch_kmsg *k);

/* ---- NCCL's own diagnostics (watch_nccl.c) ---- */
/* --nccl-diag before the start: which libnccl CMD will load (nccl_path from
 * --nccl, else the library probe: PyTorch's copy for a Python launcher, else
 * the one ld.so picks) and whether it is 2.31 or newer. Writes into env
 * (size envsz) "NCCL_RUN_DIAGNOSTICS=1" or "" and into note a line for the
 * user. */
void wnccl_diag_env(char *const *argv, const char *nccl_path, char *env, size_t envsz, char *note, size_t notesz);
/* At a stall: when a job process runs NCCL 2.24 or newer (its log's
 * version, else the libnccl it mapped) and RAS is not off in its
 * environment, queries RAS and adds its verdict. pids: the job's processes,
 * pids[0] its first: only a RAS socket they hold is asked (probe/ras.h).
 * versions: the NCCL versions the logs show ("2.28.9"), nver of them. */
void wnccl_ras_add(struct result *r, const int *pids, int npids, const char *const *versions, int nver);

/* ---- --retry-with-fix (watch_retry.c) ---- */
#define WRETRY_ENV_LEN 96
#define WRETRY_MAX_ENV 4
#define WRETRY_MAX_PIDS 512
#define WRETRY_MAX_ARGS 32

struct watch_retry {
	double budget;                  /* --retry-budget: seconds for the whole search */
	struct fix_opts fo;             /* --retry-fix-args, parsed */
	char *args;                     /* the text fo points into */
	char *argv[WRETRY_MAX_ARGS + 2];
	/* the job at the stall, before it is stopped */
	int pids[WRETRY_MAX_PIDS];
	char comm[WRETRY_MAX_PIDS][64];
	unsigned long long start[WRETRY_MAX_PIDS]; /* their start times (/proc/PID/stat) */
	int npids;
	char gpus[1024];                /* the GPUs the search runs on, as --gpus; "" all */
	const char *gpus_from;          /* "CUDA_VISIBLE_DEVICES", "nvml", "all" */
	char wedged[256];               /* NVML indices of the job's GPUs wedged after it stopped: "0,3" */
	/* the outcome */
	char env[WRETRY_MAX_ENV][WRETRY_ENV_LEN];
	int nenv;                       /* > 0: relaunched with env */
	char name[64];                  /* the winner, "" none */
	char why_not[512];              /* not relaunched: why, for the summary */
	int first_code;                 /* the stopped run's status */
	json_t *json;                   /* the "retry" member of --json, NULL before a stall */
};

/* At the first stall, with its diagnosis diag. When an error of it says a
 * rank is missing or dead: said on out, false (the job keeps running; no
 * search). Else the job is stopped: its process group (SIGTERM, SIGKILL
 * after 5 s; its output still passed on through fn), then its processes
 * that left the group (SIGTERM, SIGKILL 3 s later; each only while it is
 * the process noted at the stall: pid, command and start time, signalled
 * through a pidfd opened before that check), then NVML is asked
 * until none of them holds GPU memory (at most 15 s; not when NVML hung in
 * g), and whether a GPU of the job stays busy with no process (wedged: no
 * search, no relaunch); and the fix search runs on the job's GPUs (its CUDA_VISIBLE_DEVICES,
 * else those g's latest sample showed its processes on, else all), seeded
 * with diag's cause classes, within the budget; its table and the decision
 * on out. Returns true (stopped); wr->nenv > 0 when the job is to run again
 * with wr->env (not when NCCL works as given, nothing works or the search
 * could not run). While it searches, SIGINT/SIGTERM/SIGHUP stop the
 * search's workers and end watch (run/worker.h): the caller's handlers are
 * to be installed again after. */
bool wretry_run(struct watch_retry *wr, struct sup *job, sup_output_fn fn, void *ctx, const struct watch_gpu *g,
		const struct result *diag, const struct run_opts *opt, FILE *out);
/* Adds the "retry" member to a --json document; relaunch_code: the
 * relaunched job's status, -1 while it runs or when there was none. */
void wretry_json(const struct watch_retry *wr, json_t *doc, int relaunch_code);
/* The summary's line about the retry (nothing when no stall met it). */
void wretry_summary(const struct watch_retry *wr, FILE *out);
/* The relaunch the search decided is not made after all (why: said on out,
 * kept for the summary and --json). */
void wretry_cancel(struct watch_retry *wr, FILE *out, const char *why);
void wretry_release(struct watch_retry *wr);

#endif
