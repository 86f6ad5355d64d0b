/* An NCCL communicator run as one worker process per rank (as vLLM and
 * torchrun do). Each rank runs a worker task (default `nccl-init`) with
 * `--nranks N --rank R --device D --count C --id HEX|create [--nccl PATH]`
 * followed by the spec's task_args; any task that follows that protocol
 * (reports {"unique_id": HEX} first when given --id create) can be launched
 * this way. Rank 0 creates the unique id and reports it, the parent then
 * starts the other ranks with it, and supervises all of them under one
 * deadline. Starting fewer ranks than the communicator has (started <
 * nranks) models a peer that never comes: the started ranks hang in
 * ncclCommInitRank and are reported as such. */
#ifndef ND_RUN_RANKS_H
#define ND_RUN_RANKS_H
#include "run/worker.h"

#define RANKS_MAX_TASK_ARGS 48

struct ranks_spec {
	const char *task;         /* worker task of every rank; NULL: "nccl-init" */
	const char *const *task_args; /* extra arguments after the common ones; NULL-terminated, may be NULL */
	int nranks;               /* communicator size, 1..64 */
	int started;              /* ranks actually started (0: all) */
	const int *devices;       /* device of each rank; NULL: rank i on device i */
	const char *nccl;         /* --nccl PATH or NULL */
	long long count;          /* floats per all-reduce; 0: 1 Mi */
	double deadline;          /* seconds for the whole run */
	double stage_deadline;    /* seconds without progress; 0: none */
	double grace;
	const char *const *env;   /* extra environment of every rank */
	const char *exe;          /* worker binary, NULL as worker_spec */
	/* called while the ranks run, after each wait for their messages (at
	 * most 0.25 s apart): the caller's progress (bench's sizes); NULL: none */
	void (*tick)(void *ctx, const struct worker *ws, int n);
	void *tick_ctx;
};

/* ws has nranks entries; each is initialised here and must be released by
 * the caller (worker_release) whether or not it was started. Returns 0, or a
 * negative errno when rank 0 could not be started. */
int ranks_run(const struct ranks_spec *spec, struct worker *ws);

#endif
