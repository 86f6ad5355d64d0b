/* Worker processes with hard deadlines (the parent side of the worker
 * protocol, gpu/wmsg.h).
 *
 * worker_start() re-executes this binary as `nccl-doctor __worker TASK ARGS`
 * in its own process group, with the message pipe on fd 3 and stdout+stderr
 * on a second pipe. worker_wait() runs the supervision loop for one or more
 * workers at once (one per GPU): it reads their JSON lines, and when a worker
 * passes its task deadline or its stage deadline (no message for that long)
 * it sends SIGTERM to the whole group, waits the grace period, then SIGKILL.
 * Every worker is reaped, and its group is killed when it exits, so nothing
 * is left behind. The outcome is one of ok, error, hang (with the last stage
 * reported and the output tail) or crash (the signal).
 *
 * From the first worker_start on, SIGINT, SIGTERM and SIGHUP of the parent
 * are forwarded to every live worker's group (a vendor library's own child
 * processes are in it); after the grace period the groups are killed and
 * reaped, and the parent exits with 128 + the signal (130, 143, 129). A
 * signal the parent ignored (nohup) stays ignored.
 *
 * Functions return 0 or a negative errno and print nothing. */
#ifndef ND_RUN_WORKER_H
#define ND_RUN_WORKER_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "model/worker.h"
#include "util/strbuf.h"

/* Default deadlines, one per kind of GPU work; --timeout replaces them.
 * A query is one NVML or CUDA worker (topo); ranks is a communicator of rank
 * processes from start to destroy. A worker_spec with deadline 0 gets
 * DEADLINE_QUERY. */
#define DEADLINE_QUERY 20.0
#define DEADLINE_RANKS 30.0

#define WORKER_STAGE_START "start"
#define WORKER_STAGE_UNNAMED "unnamed stage"

#define WORKER_TAIL_MAX 4096   /* bytes of output kept */
#define WORKER_LINE_MAX (1 << 20) /* longest protocol line */

struct worker_spec {
	const char *task;
	const char *const *args;  /* NULL-terminated; may be NULL */
	const char *const *env;   /* extra "NAME=value" entries ("NAME" alone: removed); may be NULL */
	double deadline;          /* seconds for the whole task; 0: DEADLINE_QUERY */
	double stage_deadline;    /* seconds without any message; 0: none */
	double grace;             /* SIGTERM to SIGKILL; 0: 1 second */
	const char *exe;          /* binary; NULL: env ND_WORKER_EXE (as root only when
	                           * root-owned and safe: util/priv.h), else /proc/self/exe */
};

struct worker {
	struct worker_spec spec;
	pid_t pid;
	int msg_fd, out_fd;
	enum worker_status status;
	int exit_code;            /* when exited */
	int signal;               /* when killed by a signal */
	char stage[256];          /* last stage reported, never empty: WORKER_STAGE_START
	                           * before the first, WORKER_STAGE_UNNAMED for a
	                           * stage message without a name */
	char why[512];            /* hang: which deadline; error: a summary */
	double t_start, t_last, t_end, stage_budget, t_term;
	bool term_sent, kill_sent, hung;
	bool cut;                 /* hung: the task deadline ended it while its stage was still within its budget
				   * (cut short by the caller's time, not shown to be stuck) */
	json_t *results;          /* array of the "data" of result messages */
	json_t *errors;           /* array of error messages */
	json_t *stages;           /* array of {"stage","t"} */
	struct strbuf line;       /* partial protocol line */
	bool line_overflow;
	struct strbuf tail;       /* last WORKER_TAIL_MAX bytes of stdout+stderr */
};

void worker_init(struct worker *w);
/* Forks and execs the worker; on failure w->status is WORKER_ERROR with why. */
int worker_start(struct worker *w, const struct worker_spec *spec);
/* Supervises the n started workers until every one has ended. */
void worker_wait(struct worker **ws, size_t n);
/* One round of supervision (reads, deadlines, reaping), waiting at most
 * max_wait seconds (at most 50 ms); returns how many are still running.
 * At most 64 workers per call. */
size_t worker_poll(struct worker **ws, size_t n, double max_wait);
/* Installs the forwarding handlers of SIGINT, SIGTERM and SIGHUP again
 * (worker_start does it once): for a caller that put its own handlers in
 * place after the first worker_start and wants the workers' back while it
 * runs GPU work (watch during --retry-with-fix's search). */
void worker_forward_signals(void);
/* worker_init + worker_start + worker_wait. */
int worker_run(struct worker *w, const struct worker_spec *spec);
void worker_release(struct worker *w);

/* The first result's data (borrowed), or NULL. */
json_t *worker_result(const struct worker *w);
/* The first error message (borrowed), or NULL. */
json_t *worker_error(const struct worker *w);
/* {"status","stage","elapsed_s","why","signal","exit_code","errors","tail"}; new reference. */
json_t *worker_json(const struct worker *w);
/* Seconds from start to end. */
double worker_elapsed(const struct worker *w);
/* w's outcome as data (model/worker.h): copies, so it outlives w. */
void worker_outcome_of(const struct worker *w, struct worker_outcome *o);

#endif
