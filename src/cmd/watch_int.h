/* The parts of `watch` beside the supervision loop (cmd/watch.c):
 *   watch_gpu.c     GPU memory and utilisation per process, sampled by the
 *                   p2p-procs NVML worker (never in this process) at a stall
 *                   and every few seconds while it lasts;
 *   watch_kernel.c  the kernel log since the job started (/dev/kmsg from its
 *                   end at start, or a growing file given with --kernel-log);
 *   watch_nccl.c    --nccl-diag (NCCL_RUN_DIAGNOSTICS for NCCL 2.31+) and the
 *                   NCCL RAS status query at a stall (probe/ras.h);
 *   watch_retry.c   --retry-with-fix: the configuration to relaunch with.
 * Each adds sections and findings to the diagnosis result; only
 * watch_retry.c prints (the candidates, to the stream it is given). */
#ifndef ND_CMD_WATCH_INT_H
#define ND_CMD_WATCH_INT_H
#include "analyze/kernel_parse.h"
#include "analyze/kmsg.h"
#include "model/result.h"
#include "run/worker.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdio.h>

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
	bool live;             /* /dev/kmsg; else a text file */
	int open_err;          /* why it could not be opened (-errno), 0 */
	char path[4096];
	struct kparser kp;
	struct kreader kr;
	struct strbuf partial; /* file: an unfinished last line */
	uint64_t records;      /* read since the start */
	int read_err;          /* the last read's error, 0 */
};

/* Opens the source and moves to its end: only what comes later is read.
 * file NULL: /dev/kmsg through the sysroot. Never fails: a source that
 * cannot be read is remembered and said in the diagnosis. */
void wkmsg_open(struct watch_kmsg *k, const char *file);
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
 * environment, queries RAS and adds its verdict. versions: the NCCL versions
 * the logs show ("2.28.9"), nver of them. */
void wnccl_ras_add(struct result *r, const int *pids, int npids, const char *const *versions, int nver);

/* ---- --retry-with-fix (watch_retry.c) ---- */
#define WRETRY_ENV_LEN 96
#define WRETRY_MAX_ENV 4
/* From the stall's diagnosis: prints the candidate configurations to out and
 * writes the chosen one's "NAME=value" entries into env (at most max) and
 * its name; returns how many, 0 when the job should not be relaunched
 * (a missing or dead rank; no candidate changes anything). */
int wretry_plan(const struct result *diag, char env[][WRETRY_ENV_LEN], int max, char *name, size_t namesz, FILE *out);

#endif
