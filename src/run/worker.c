/* The worker supervisor (see worker.h): fork/exec into a new process group,
 * JSON lines on a pipe, deadlines per task and per stage, SIGTERM, grace,
 * SIGKILL of the group, reaping. The wait loop uses waitid(WNOWAIT) to see
 * an exit before reaping, so the group can still be killed by its id without
 * any risk of the id having been reused. */
#include "run/worker.h"
#include "run/shmclean.h"
#include "run/supervise.h"
#include "util/counters.h"
#include "util/jsonx.h"
#include "util/priv.h"
#include "util/xalloc.h"
#include "util/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---- live workers, for SIGINT/SIGTERM/SIGHUP ----
 * The parent's handler forwards the signal to the process group of every
 * live worker (a vendor library's own children are in it), waits the
 * longest grace period, kills the groups, reaps the leaders (waiting at
 * most 2 s for one stuck in the driver) and exits with 128 + the signal
 * (130, 143, 129). Without it the parent would die at once
 * and leave those children running. Only async-signal-safe calls in the
 * handler; the table holds plain pids that the handler only reads. */
#define LIVE_MAX 256
static volatile sig_atomic_t g_live_pid[LIVE_MAX];
static volatile sig_atomic_t g_live_grace_ms[LIVE_MAX];
static bool g_handlers;
static const int g_fwd_signals[] = { SIGINT, SIGTERM, SIGHUP };

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

static bool leader_exited(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == pid;
}

/* Waits at most ms for every process of group pgid to be gone (a member
 * killed a moment ago still maps its segments while it exits). */
static void wait_group_gone(pid_t pgid, long ms)
{
	for (long waited = 0; waited < ms && kill(-pgid, 0) == 0; waited += 5)
		sleep_ms(5);
}

static void on_fatal_signal(int sig)
{
	int saved = errno;
	long grace = 0;
	/* stopped while what they have in /dev/shm is noted (run/shmclean.h) */
	pid_t groups[LIVE_MAX];
	size_t ng = 0;
	for (int i = 0; i < LIVE_MAX; i++) {
		pid_t pid = (pid_t)g_live_pid[i];
		if (pid > 0) {
			kill(-pid, SIGSTOP);
			groups[ng++] = pid;
		}
	}
	shmclean_note_groups(groups, ng);
	for (int i = 0; i < LIVE_MAX; i++) {
		pid_t pid = (pid_t)g_live_pid[i];
		if (pid > 0) {
			kill(-pid, sig);
			kill(-pid, SIGCONT);
			if (g_live_grace_ms[i] > grace)
				grace = g_live_grace_ms[i];
		}
	}
	for (long waited = 0; waited < grace; waited += 10) {
		bool all = true;
		for (int i = 0; i < LIVE_MAX && all; i++)
			if (g_live_pid[i] > 0 && !leader_exited((pid_t)g_live_pid[i]))
				all = false;
		if (all)
			break;
		sleep_ms(10);
	}
	/* the leaders are not reaped yet: their group ids are still ours */
	for (int i = 0; i < LIVE_MAX; i++)
		if (g_live_pid[i] > 0)
			kill(-(pid_t)g_live_pid[i], SIGKILL);
	/* reap, but never wait long: a worker stuck in the driver (state D)
	 * dies only when the call returns, and must not hold the exit */
	for (long waited = 0; waited <= 2000; waited += 10) {
		bool all = true;
		for (int i = 0; i < LIVE_MAX; i++) {
			pid_t pid = (pid_t)g_live_pid[i];
			if (pid <= 0)
				continue;
			pid_t w = waitpid(pid, NULL, WNOHANG);
			if (w == pid || (w < 0 && errno == ECHILD))
				g_live_pid[i] = 0;
			else
				all = false;
		}
		if (all)
			break;
		sleep_ms(10);
	}
	/* what the killed groups left in /dev/shm, once they are gone */
	for (size_t i = 0; i < ng; i++)
		wait_group_gone(groups[i], 200);
	shmclean_sweep();
	errno = saved;
	_exit(128 + sig);
}

static void install_handlers(void)
{
	if (g_handlers)
		return;
	g_handlers = true;
	for (size_t i = 0; i < sizeof(g_fwd_signals) / sizeof(g_fwd_signals[0]); i++) {
		struct sigaction old;
		if (sigaction(g_fwd_signals[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue; /* nohup, or a background job: keep ignoring it */
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_fatal_signal;
		sigfillset(&sa.sa_mask);
		sigaction(g_fwd_signals[i], &sa, NULL);
	}
}

void worker_forward_signals(void)
{
	g_handlers = false;
	install_handlers();
}

/* Blocks (or restores) the forwarded signals around changes of the table
 * and of the workers it names. */
static void block_fwd(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(g_fwd_signals) / sizeof(g_fwd_signals[0]); i++)
		sigaddset(&set, g_fwd_signals[i]);
	sigprocmask(SIG_BLOCK, &set, old);
}

static void live_add(pid_t pid, double grace)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (g_live_pid[i] == 0) {
			double ms = grace * 1000;
			g_live_grace_ms[i] = ms > 10000 ? 10000 : (sig_atomic_t)ms;
			g_live_pid[i] = pid;
			return;
		}
}

static void live_remove(pid_t pid)
{
	for (int i = 0; i < LIVE_MAX; i++)
		if (g_live_pid[i] == pid)
			g_live_pid[i] = 0;
}

void worker_init(struct worker *w)
{
	memset(w, 0, sizeof(*w));
	w->pid = -1;
	w->msg_fd = w->out_fd = -1;
	w->status = WORKER_ERROR;
	w->results = json_array();
	w->errors = json_array();
	w->stages = json_array();
	strbuf_init(&w->line, WORKER_LINE_MAX);
	strbuf_init(&w->tail, 0);
}

void worker_release(struct worker *w)
{
	if (w->msg_fd >= 0)
		close(w->msg_fd);
	if (w->out_fd >= 0)
		close(w->out_fd);
	w->msg_fd = w->out_fd = -1;
	json_decref(w->results);
	json_decref(w->errors);
	json_decref(w->stages);
	w->results = w->errors = w->stages = NULL;
	strbuf_release(&w->line);
	strbuf_release(&w->tail);
}

/* The child after fork: only async-signal-safe calls until exec. */
static void child_exec(const char *exe, char **argv, int msg_w, int out_w, int devnull)
{
	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	/* signals the parent may have ignored, caught or blocked come back to
	 * default, dispositions first: the parent's forwarding handler must
	 * never run here */
	signal(SIGPIPE, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	/* move the pipes above the targets first: a dup2 onto itself would keep
	 * FD_CLOEXEC (and could clobber another source) when the parent had fds
	 * 0-3 closed and pipe2 handed them out */
	int in = fcntl(devnull, F_DUPFD, 10), out = fcntl(out_w, F_DUPFD, 10), msg = fcntl(msg_w, F_DUPFD, 10);
	if (in < 0 || out < 0 || msg < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(msg, 3) < 0)
		_exit(127);
	run_close_from(4, -1, -1);
	execv(exe, argv);
	static const char emsg[] = "{\"type\":\"error\",\"stage\":\"exec\",\"lib\":\"worker\",\"code\":0,"
				  "\"message\":\"cannot execute the worker binary\"}\n";
	ssize_t n = write(3, emsg, sizeof(emsg) - 1);
	(void)n;
	_exit(127);
}

int worker_start(struct worker *w, const struct worker_spec *spec)
{
	w->spec = *spec;
	if (spec->task && strcmp(spec->task, "nvml-topo") == 0)
		nd_count(ND_COUNT_WORKER_NVML);
	else if (spec->task && strcmp(spec->task, "cuda-info") == 0)
		nd_count(ND_COUNT_WORKER_CUDA);
	if (w->spec.deadline <= 0)
		w->spec.deadline = DEADLINE_QUERY;
	if (w->spec.grace <= 0)
		w->spec.grace = 1;
	const char *exe = spec->exe;
	char trusted_exe[PATH_MAX];
	if (!exe) {
		/* the test override; as root only a root-owned, safe binary
		 * (util/priv.h), by its resolved path */
		exe = getenv("ND_WORKER_EXE");
		if (exe && *exe && priv_is_elevated())
			exe = priv_path_trusted(exe, trusted_exe, sizeof(trusted_exe), NULL, 0) == 0 ? trusted_exe : NULL;
	}
	if (!exe || !*exe)
		exe = "/proc/self/exe";

	size_t nargs = 0;
	while (spec->args && spec->args[nargs])
		nargs++;
	char **argv = xcalloc(nargs + 4, sizeof(char *));
	argv[0] = "nccl-doctor";
	argv[1] = "__worker";
	argv[2] = (char *)spec->task;
	for (size_t i = 0; i < nargs; i++)
		argv[3 + i] = (char *)spec->args[i];

	int mp[2], op[2];
	if (pipe2(mp, O_CLOEXEC) < 0) {
		int e = -errno;
		free(argv);
		snprintf(w->why, sizeof(w->why), "cannot create a pipe: %s", strerror(-e));
		return e;
	}
	if (pipe2(op, O_CLOEXEC) < 0) {
		int e = -errno;
		close(mp[0]);
		close(mp[1]);
		free(argv);
		snprintf(w->why, sizeof(w->why), "cannot create a pipe: %s", strerror(-e));
		return e;
	}
	int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
	fflush(NULL);
	/* environment for the child: prepared before fork */
	size_t nenv = 0;
	while (spec->env && spec->env[nenv])
		nenv++;
	w->t_start = w->t_last = nd_now_s();
	install_handlers();
	sigset_t oldmask;
	block_fwd(&oldmask); /* no signal between fork and live_add */
	pid_t pid = fork();
	if (pid < 0) {
		int e = -errno;
		sigprocmask(SIG_SETMASK, &oldmask, NULL);
		close(mp[0]); close(mp[1]); close(op[0]); close(op[1]);
		if (devnull >= 0)
			close(devnull);
		free(argv);
		snprintf(w->why, sizeof(w->why), "cannot fork: %s", strerror(-e));
		return e;
	}
	if (pid == 0) {
		/* putenv is not async-signal-safe, but this process has one thread */
		for (size_t i = 0; i < nenv; i++) {
			if (strchr(spec->env[i], '='))
				putenv((char *)spec->env[i]);
			else
				unsetenv(spec->env[i]); /* "NAME": removed */
		}
		putenv("ND_WORKER_FD=3");
		child_exec(exe, argv, mp[1], op[1], devnull < 0 ? op[1] : devnull);
	}
	setpgid(pid, pid); /* also here: no race with a kill before the child ran */
	live_add(pid, w->spec.grace);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	close(mp[1]);
	close(op[1]);
	if (devnull >= 0)
		close(devnull);
	free(argv);
	fcntl(mp[0], F_SETFL, O_NONBLOCK);
	fcntl(op[0], F_SETFL, O_NONBLOCK);
	w->pid = pid;
	w->msg_fd = mp[0];
	w->out_fd = op[0];
	w->status = WORKER_RUNNING;
	w->stage_budget = spec->stage_deadline;
	snprintf(w->stage, sizeof(w->stage), "%s", WORKER_STAGE_START);
	return 0;
}

static void handle_line(struct worker *w, const char *line, size_t len)
{
	json_error_t jerr;
	json_t *m = json_loadb(line, len, 0, &jerr);
	if (!m || !json_is_object(m)) {
		json_decref(m);
		/* not protocol: keep it with the output */
		strbuf_add(&w->tail, line, len);
		strbuf_addch(&w->tail, '\n');
		return;
	}
	const char *type = json_string_value(json_object_get(m, "type"));
	w->t_last = nd_now_s();
	if (type && strcmp(type, "stage") == 0) {
		const char *st = json_string_value(json_object_get(m, "stage"));
		/* never an empty name: it would print as '' */
		snprintf(w->stage, sizeof(w->stage), "%s", st && *st ? st : WORKER_STAGE_UNNAMED);
		json_t *b = json_object_get(m, "budget");
		w->stage_budget = json_is_number(b) && json_number_value(b) > 0 ? json_number_value(b) : w->spec.stage_deadline;
		json_array_append_new(w->stages, json_pack("{s:s,s:f}", "stage", w->stage, "t", w->t_last - w->t_start));
	} else if (type && strcmp(type, "result") == 0) {
		json_t *d = json_object_get(m, "data");
		json_array_append(w->results, d ? d : json_null());
	} else if (type && strcmp(type, "error") == 0) {
		json_array_append(w->errors, m);
	}
	json_decref(m);
}

static void keep_tail(struct worker *w)
{
	if (w->tail.len > 2 * WORKER_TAIL_MAX) {
		size_t drop = w->tail.len - WORKER_TAIL_MAX;
		memmove(w->tail.buf, w->tail.buf + drop, WORKER_TAIL_MAX);
		w->tail.len = WORKER_TAIL_MAX;
		w->tail.buf[w->tail.len] = '\0';
	}
}

/* Feeds what a non-blocking fd holds to eat(); returns false at end of file. */
static bool drain(struct worker *w, int fd, void (*eat)(struct worker *w, const char *buf, size_t n))
{
	char buf[8192];
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN;
		if (n == 0)
			return false;
		eat(w, buf, (size_t)n);
	}
}

/* The message pipe: JSON lines, an over-long line is dropped whole. */
static void eat_msgs(struct worker *w, const char *buf, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			if (!w->line_overflow)
				handle_line(w, w->line.buf ? w->line.buf : "", w->line.len);
			strbuf_reset(&w->line);
			w->line_overflow = false;
		} else if (!w->line_overflow && strbuf_addch(&w->line, buf[i]) < 0) {
			w->line_overflow = true;
		}
	}
}

/* stdout and stderr: only the tail is kept. */
static void eat_out(struct worker *w, const char *buf, size_t n)
{
	strbuf_add(&w->tail, buf, n);
	keep_tail(w);
}

static bool drain_msgs(struct worker *w)
{
	return drain(w, w->msg_fd, eat_msgs);
}

static bool drain_out(struct worker *w)
{
	return drain(w, w->out_fd, eat_out);
}

/* Signals the group of a worker at its deadline; what the group has in
 * /dev/shm is noted first, with the group stopped (run/shmclean.h). */
static void kill_noting(pid_t pgid, int sig)
{
	sigset_t oldmask;
	block_fwd(&oldmask);
	kill(-pgid, SIGSTOP);
	shmclean_note_groups(&pgid, 1);
	kill(-pgid, sig);
	kill(-pgid, SIGCONT);
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
}

static double stage_deadline_at(const struct worker *w)
{
	double at = w->t_start + w->spec.deadline;
	if (w->stage_budget > 0 && w->t_last + w->stage_budget < at)
		at = w->t_last + w->stage_budget;
	return at;
}

static void finish(struct worker *w, const siginfo_t *si)
{
	/* the leader has exited but is not reaped: its group id is still ours */
	kill(-w->pid, SIGKILL);
	if (w->msg_fd >= 0) {
		drain_msgs(w);
		if (w->line.len && !w->line_overflow)
			handle_line(w, w->line.buf, w->line.len);
		close(w->msg_fd);
		w->msg_fd = -1;
	}
	if (w->out_fd >= 0) {
		drain_out(w);
		close(w->out_fd);
		w->out_fd = -1;
	}
	keep_tail(w);
	int st;
	sigset_t oldmask;
	block_fwd(&oldmask);
	while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR)
		;
	live_remove(w->pid);
	if (shmclean_pending()) {
		/* segments noted when a group was killed: this one's, or a peer's
		 * that this worker still mapped */
		wait_group_gone(w->pid, 200);
		shmclean_sweep();
	}
	sigprocmask(SIG_SETMASK, &oldmask, NULL);
	w->t_end = nd_now_s();
	if (si->si_code == CLD_EXITED)
		w->exit_code = si->si_status;
	else
		w->signal = si->si_status;

	if (w->hung) {
		w->status = WORKER_HANG;
	} else if (si->si_code == CLD_KILLED || si->si_code == CLD_DUMPED) {
		w->status = WORKER_CRASH;
		snprintf(w->why, sizeof(w->why), "the worker died of signal %d (%s) in stage '%s'", w->signal,
			 strsignal(w->signal), w->stage);
	} else if (w->exit_code == 0 && json_array_size(w->errors) == 0) {
		w->status = WORKER_OK;
	} else {
		w->status = WORKER_ERROR;
		json_t *e = json_array_get(w->errors, 0);
		const char *msg = e ? json_string_value(json_object_get(e, "message")) : NULL;
		if (msg)
			snprintf(w->why, sizeof(w->why), "%s", msg);
		else
			snprintf(w->why, sizeof(w->why), "the worker exited with status %d in stage '%s'", w->exit_code,
				 w->stage);
	}
}

size_t worker_poll(struct worker **ws, size_t n, double max_wait)
{
	struct pollfd pfd[2 * 64];
	double now = nd_now_s();
	double next = now + (max_wait < 0.05 ? (max_wait > 0 ? max_wait : 0) : 0.05);
	size_t running = 0, np = 0;
	for (size_t i = 0; i < n; i++) {
		struct worker *w = ws[i];
		if (w->status != WORKER_RUNNING)
			continue;
		siginfo_t si;
		memset(&si, 0, sizeof(si));
		if (waitid(P_PID, (id_t)w->pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == w->pid) {
			finish(w, &si);
			continue;
		}
		running++;
		if (!w->term_sent) {
			double at = stage_deadline_at(w);
			if (now >= at) {
				w->hung = true;
				if (now >= w->t_start + w->spec.deadline) {
					w->cut = w->stage_budget > 0 && now < w->t_last + w->stage_budget;
					snprintf(w->why, sizeof(w->why), "the task deadline of %.3g s passed in stage '%s'",
						 w->spec.deadline, w->stage);
				} else {
					snprintf(w->why, sizeof(w->why), "no progress for %.3g s in stage '%s'",
						 w->stage_budget, w->stage);
				}
				kill_noting(w->pid, SIGTERM);
				w->term_sent = true;
				w->t_term = now;
			} else if (at < next) {
				next = at;
			}
		}
		if (w->term_sent && !w->kill_sent) {
			if (now >= w->t_term + w->spec.grace) {
				kill_noting(w->pid, SIGKILL);
				w->kill_sent = true;
			} else if (w->t_term + w->spec.grace < next) {
				next = w->t_term + w->spec.grace;
			}
		}
		if (np + 2 <= sizeof(pfd) / sizeof(pfd[0])) {
			if (w->msg_fd >= 0) {
				pfd[np].fd = w->msg_fd;
				pfd[np].events = POLLIN;
				np++;
			}
			if (w->out_fd >= 0) {
				pfd[np].fd = w->out_fd;
				pfd[np].events = POLLIN;
				np++;
			}
		}
	}
	if (!running)
		return 0;
	int ms = (int)((next - now) * 1000) + 1;
	if (ms < 1)
		ms = 1;
	if (ms > 50)
		ms = 50;
	poll(pfd, np, ms);
	for (size_t i = 0; i < n; i++) {
		struct worker *w = ws[i];
		if (w->status != WORKER_RUNNING)
			continue;
		if (w->msg_fd >= 0 && !drain_msgs(w)) {
			close(w->msg_fd);
			w->msg_fd = -1;
		}
		if (w->out_fd >= 0 && !drain_out(w)) {
			close(w->out_fd);
			w->out_fd = -1;
		}
	}
	return running;
}

void worker_wait(struct worker **ws, size_t n)
{
	while (worker_poll(ws, n, 0.05) > 0)
		;
}

int worker_run(struct worker *w, const struct worker_spec *spec)
{
	worker_init(w);
	int r = worker_start(w, spec);
	if (r < 0)
		return r;
	worker_wait(&w, 1);
	return 0;
}

json_t *worker_result(const struct worker *w)
{
	return json_array_get(w->results, 0);
}

json_t *worker_error(const struct worker *w)
{
	return json_array_get(w->errors, 0);
}

double worker_elapsed(const struct worker *w)
{
	return (w->t_end > 0 ? w->t_end : nd_now_s()) - w->t_start;
}

json_t *worker_json(const struct worker *w)
{
	json_t *o = json_object();
	json_object_set_new(o, "task", json_string(w->spec.task ? w->spec.task : ""));
	json_object_set_new(o, "status", json_string(worker_status_name(w->status)));
	json_object_set_new(o, "stage", json_str_lossy(w->stage));
	json_object_set_new(o, "elapsed_s", json_real(worker_elapsed(w)));
	if (w->why[0])
		json_object_set_new(o, "why", json_str_lossy(w->why));
	if (w->status == WORKER_CRASH || (w->status == WORKER_HANG && w->signal))
		json_object_set_new(o, "signal", json_integer(w->signal));
	if (w->status == WORKER_ERROR)
		json_object_set_new(o, "exit_code", json_integer(w->exit_code));
	if (json_array_size(w->errors))
		json_object_set(o, "errors", w->errors);
	if (w->status != WORKER_OK && w->tail.len)
		json_object_set_new(o, "tail", json_strn_lossy(w->tail.buf, w->tail.len));
	return o;
}

void worker_outcome_of(const struct worker *w, struct worker_outcome *o)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->task, sizeof(o->task), "%s", w->spec.task ? w->spec.task : "");
	o->status = w->status;
	o->elapsed = worker_elapsed(w);
	o->signal = w->signal;
	snprintf(o->stage, sizeof(o->stage), "%s", w->stage);
	snprintf(o->why, sizeof(o->why), "%s", w->why);
	if (w->tail.len)
		o->tail = xstrndup(w->tail.buf, w->tail.len);
	o->error = json_incref(worker_error(w));
	o->result = json_incref(worker_result(w));
	o->summary = worker_json(w);
}
