/* The bench rank's messages to the parent and its watchdog (bench_rank.h). */
#include "gpu/bench_capture.h"
#include "gpu/bench_rank.h"
#include "gpu/wmsg.h"
#include "util/clock.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

/* --local-ranks (threads mode): every rank of the communicator is a thread
 * of this process; messages are serialised and carry the rank, and each
 * rank announces its phase as a {"kind":"phase"} result too (the process
 * has one stage, the last any thread announced). */
static pthread_mutex_t msg_mu = PTHREAD_MUTEX_INITIALIZER;
bool br_threads_mode;

/* The rank's own watchdog. The communicator is blocking, as nccl-tests'
 * (a nonblocking one returns ncclInProgress from calls that must then be
 * polled, and NCCL 2.2x launches each of its groups from a new thread),
 * so a call into NCCL can block: in init, in a first collective that
 * connects, in a grouped send/recv whose peer never comes. A thread
 * checks each rank's stage deadline every 100 ms; a stage that outlives
 * it is reported as the rank's error, with the NCCL lines captured so
 * far, a second after the rank's own limit and four before the parent's
 * stage deadline (stage budget + 5 s) would kill it unheard; then it
 * announces the stage again with a 1 s budget, so that the parent kills
 * the group at once and removes its /dev/shm segments (run/shmclean.h).
 * It never calls NCCL itself. A wait the rank makes itself
 * (wait_stream, wait_async) ends at the stage's limit first, and aborts
 * the communicator. */
#define WD_MAX_RANKS 64
static struct {
	pthread_mutex_t mu;
	bool started;
	volatile bool fired;      /* it reported a stage: the errors of the call it ends are its echo */
	pthread_t thread;
	struct rank_state *ranks[WD_MAX_RANKS];
	int n;
} wd = { .mu = PTHREAD_MUTEX_INITIALIZER };


static void *watchdog_main(void *arg)
{
	(void)arg;
	for (;;) {
		usleep(100000);
		pthread_mutex_lock(&wd.mu);
		struct rank_state *late = NULL;
		double now = nd_now_s();
		for (int i = 0; i < wd.n && !late; i++)
			if (wd.ranks[i]->wd_at > 0 && now >= wd.ranks[i]->wd_at)
				late = wd.ranks[i];
		pthread_mutex_unlock(&wd.mu);
		if (!late)
			continue;
		br_error(late, "worker", 0, "timeout", "%s did not finish within %g s (blocked in a call into NCCL or CUDA)",
			late->wd_what, late->wd_limit);
		wd.fired = true;
		br_result(late, json_pack("{s:s,s:o}", "kind", "nccl_lines", "lines", capture_take()));
		/* the stage again with a 1 s budget: the parent kills the group at
		 * once and removes its /dev/shm segments (run/shmclean.h); NCCL is
		 * not called from here (an abort beside the blocked call) */
		pthread_mutex_lock(&msg_mu);
		wmsg_stage_budget(1, "%s", late->wd_what);
		pthread_mutex_unlock(&msg_mu);
		for (;;)
			pause();
	}
	return NULL;
}

/* Arms s's watchdog for a stage whose parent deadline is budget seconds
 * (the rank's own limit: budget - 5; the watchdog a second after it);
 * budget 0 disarms it. */
static void watchdog_arm(struct rank_state *s, double budget, const char *what)
{
	pthread_mutex_lock(&wd.mu);
	s->wd_what = what;
	s->wd_limit = budget - 5;
	s->wd_at = budget > 0 ? nd_now_s() + budget - 4 : 0;
	if (!s->wd_on && wd.n < WD_MAX_RANKS) {
		wd.ranks[wd.n++] = s;
		s->wd_on = true;
	}
	if (!wd.started) {
		pthread_t t;
		wd.started = pthread_create(&t, NULL, watchdog_main, NULL) == 0;
		if (wd.started) {
			wd.thread = t;
			pthread_detach(t);
		}
	}
	pthread_mutex_unlock(&wd.mu);
}

void br_watchdog_forget(struct rank_state *s)
{
	pthread_mutex_lock(&wd.mu);
	for (int i = 0; i < wd.n; i++)
		if (wd.ranks[i] == s) {
			wd.ranks[i] = wd.ranks[--wd.n];
			break;
		}
	s->wd_on = false;
	s->wd_at = 0;
	pthread_mutex_unlock(&wd.mu);
}


void br_stage(struct rank_state *s, double budget, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->stage, sizeof(s->stage), fmt, ap);
	va_end(ap);
	watchdog_arm(s, budget, s->stage);
	pthread_mutex_lock(&msg_mu);
	if (budget > 0)
		wmsg_stage_budget(budget, "%s", s->stage);
	else
		wmsg_stage("%s", s->stage);
	if (br_threads_mode)
		wmsg_result(json_pack("{s:s,s:i,s:s}", "kind", "phase", "rank", s->rank, "phase", s->stage));
	pthread_mutex_unlock(&msg_mu);
}

/* A clean-up stage (abort, destroy) with its own deadline; the rank's
 * phase stays the one that failed or finished. */
void br_cleanup_stage(struct rank_state *s, const char *name)
{
	watchdog_arm(s, 10, name);
	pthread_mutex_lock(&msg_mu);
	wmsg_stage_budget(10, "%s", name);
	pthread_mutex_unlock(&msg_mu);
}

/* Sends a result with this rank's number; steals the reference. */
void br_result(struct rank_state *s, json_t *data)
{
	if (data)
		json_object_set_new(data, "rank", json_integer(s->rank));
	pthread_mutex_lock(&msg_mu);
	wmsg_result(data);
	pthread_mutex_unlock(&msg_mu);
}

void br_error(const struct rank_state *s, const char *lib, long code, const char *name, const char *fmt, ...)
{
	char msg[768];
	if (wd.fired && !pthread_equal(pthread_self(), wd.thread))
		return; /* the call the watchdog ended fails after it: its report stands */
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&msg_mu);
	if (br_threads_mode)
		wmsg_error(lib, code, name, "rank %d: %s", s->rank, msg);
	else
		wmsg_error(lib, code, name, "%s", msg);
	pthread_mutex_unlock(&msg_mu);
}

int br_cu_fail(const struct rank_state *s, const char *call, CUresult r)
{
	const char *str = NULL;
	if (s->cu->cuGetErrorString(r, &str) != CUDA_SUCCESS || !str)
		str = "unknown error";
	br_error(s, "cuda", r, cuda_error_name(r), "%s failed: %s (%s %d)", call, str, cuda_error_name(r), r);
	return 1;
}

int br_nccl_fail(const struct rank_state *s, const char *call, ncclResult_t r)
{
	const char *last = s->nc->ncclGetLastError ? s->nc->ncclGetLastError(s->comm) : NULL;
	br_error(s, "nccl", r, nccl_error_name(r), "%s failed: %s%s%s", call, s->nc->ncclGetErrorString(r),
		   last && *last ? ": " : "", last ? last : "");
	return 1;
}

