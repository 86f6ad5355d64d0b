/* The supervised user command of `watch` (run/supervise.h). */
#include "run/supervise.h"
#include "util/privdir.h"
#include "util/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* Whether argv0 can be run: a path with '/', or a name found in PATH. */
static int find_command(const char *argv0)
{
	if (!argv0 || !*argv0)
		return -ENOENT;
	if (strchr(argv0, '/'))
		return access(argv0, X_OK) == 0 ? 0 : -errno;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *end = strchr(path, ':');
		size_t len = end ? (size_t)(end - path) : strlen(path);
		char full[PATH_MAX];
		/* an empty PATH entry is the current directory */
		const char *dir = len ? path : ".";
		size_t dl = len ? len : 1;
		if (dl + 1 + strlen(argv0) < sizeof(full)) {
			memcpy(full, dir, dl);
			full[dl] = '/';
			strcpy(full + dl + 1, argv0);
			if (access(full, X_OK) == 0)
				return 0;
		}
		if (!end)
			break;
		path = end + 1;
	}
	return -ENOENT;
}

static bool has_name(const char *entry, const char *name_eq)
{
	size_t n = strcspn(name_eq, "=");
	return strncmp(entry, name_eq, n) == 0 && entry[n] == '=';
}

/* The child's environment: ours, with env_set replacing and env_default
 * filling in. Built before fork (no allocation after it). */
static char **build_env(const struct sup_spec *spec)
{
	size_t n = 0, extra = 0;
	while (environ[n])
		n++;
	for (size_t i = 0; spec->env_set && spec->env_set[i]; i++)
		extra++;
	for (size_t i = 0; spec->env_default && spec->env_default[i]; i++)
		extra++;
	char **env = calloc(n + extra + 1, sizeof(char *));
	if (!env)
		return NULL;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		bool replaced = false;
		for (size_t k = 0; spec->env_set && spec->env_set[k] && !replaced; k++)
			replaced = has_name(environ[i], spec->env_set[k]);
		if (!replaced)
			env[m++] = environ[i];
	}
	for (size_t k = 0; spec->env_set && spec->env_set[k]; k++)
		if (strchr(spec->env_set[k], '=')) /* "NAME" alone only removes it */
			env[m++] = (char *)spec->env_set[k];
	for (size_t k = 0; spec->env_default && spec->env_default[k]; k++) {
		bool have = false;
		for (size_t i = 0; i < m && !have; i++)
			have = has_name(env[i], spec->env_default[k]);
		if (!have)
			env[m++] = (char *)spec->env_default[k];
	}
	env[m] = NULL;
	return env;
}

static void sleep_s(double s)
{
	struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* ---- the guard ------------------------------------------------------------
 * It reads /proc directly: it is about the processes we started, live, and
 * runs after we are gone. */

/* Live members of group pgid other than us and skip. */
static int group_left(pid_t pgid, pid_t skip)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 1; /* cannot tell: assume some */
	int n = 0;
	pid_t self = getpid();
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (pid <= 0 || *end || pid == self || pid == skip)
			continue;
		char path[64], buf[512];
		snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		const char *rp = strrchr(buf, ')');
		char state;
		int ppid, pgrp;
		if (rp && sscanf(rp + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid && state != 'Z' &&
		    state != 'X')
			n++;
	}
	closedir(d);
	return n;
}

static void wait_group(pid_t pgid, pid_t skip, double secs)
{
	double t0 = nd_now_s();
	while (group_left(pgid, skip) > 0 && nd_now_s() - t0 < secs)
		sleep_s(0.05);
}

void run_close_from(int lo, int keep1, int keep2)
{
#ifdef SYS_close_range
	/* the ranges around the kept ones (smaller first; -1 or below lo:
	 * none), each with one close_range */
	int k[2] = { keep1 < keep2 ? keep1 : keep2, keep1 < keep2 ? keep2 : keep1 };
	unsigned from = (unsigned)lo;
	bool ok = true;
	for (int i = 0; i < 2 && ok; i++) {
		if (k[i] < lo)
			continue;
		if ((unsigned)k[i] > from)
			ok = syscall(SYS_close_range, from, (unsigned)k[i] - 1, 0) == 0;
		from = (unsigned)k[i] + 1;
	}
	if (ok && syscall(SYS_close_range, from, ~0U, 0) == 0)
		return;
#endif
	long max = sysconf(_SC_OPEN_MAX);
	if (max < 0 || max > 65536)
		max = 65536;
	for (int fd = lo; fd < max; fd++)
		if (fd != keep1 && fd != keep2)
			close(fd);
}

/* The guard, in the child after fork: see supervise.h. */
static void guard_main(pid_t pgid, int rfd, int dirfd, const char *dir)
{
	for (int sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGCHLD)
			signal(sig, SIG_IGN);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	if (setpgid(0, pgid) < 0)
		_exit(0);
	prctl(PR_SET_NAME, "nd-job-guard", 0, 0, 0);
	/* above the standard fds first (we may have run with some closed) */
	rfd = fcntl(rfd, F_DUPFD_CLOEXEC, 10);
	if (dir)
		dirfd = fcntl(dirfd, F_DUPFD_CLOEXEC, 10);
	if (rfd < 0 || (dir && dirfd < 0))
		_exit(0);
	/* nothing of ours: not the job's pipes, not our stdout (a reader of it
	 * would wait for the guard), not a --json file */
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	run_close_from(3, rfd, dir ? dirfd : -1);
	char c;
	for (;;) {
		ssize_t n = read(rfd, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n > 0)
			continue;
		break; /* the other end closed: we died without sup_release */
	}
	kill(-pgid, SIGTERM);
	kill(-pgid, SIGCONT); /* a stopped member gets to handle its SIGTERM */
	wait_group(pgid, 0, SUP_GUARD_TERM);
	pid_t keeper = -1;
	if (group_left(pgid, 0) > 0) {
		/* SIGKILL to the group, but not to ourselves: a child of ours stays
		 * in it (its id cannot be reused while the child is unreaped) */
		keeper = fork();
		if (keeper == 0)
			for (;;)
				pause();
		if (keeper > 0 && setpgid(0, 0) == 0) {
			kill(-pgid, SIGKILL);
			wait_group(pgid, keeper, 2.0);
		} else {
			if (dir)
				privdir_remove(dirfd, dir);
			kill(-pgid, SIGKILL); /* and ourselves with it */
		}
	}
	if (dir)
		privdir_remove(dirfd, dir);
	if (keeper > 0) {
		kill(keeper, SIGKILL);
		waitpid(keeper, NULL, 0);
	}
	_exit(0);
}

/* Starts the guard in group pgid; -1 when it cannot be. */
static pid_t guard_start(pid_t pgid, const struct sup_spec *spec, int *wfd)
{
	int gp[2];
	*wfd = -1;
	if (pipe2(gp, O_CLOEXEC) < 0)
		return -1;
	pid_t g = fork();
	if (g < 0) {
		close(gp[0]);
		close(gp[1]);
		return -1;
	}
	if (g == 0) {
		close(gp[1]);
		guard_main(pgid, gp[0], spec->guard_dirfd, spec->guard_dir);
	}
	setpgid(g, pgid); /* both sides, as for the job */
	close(gp[0]);
	*wfd = gp[1];
	return g;
}

/* The job's child after fork: only async-signal-safe calls until exec. */
static void job_exec(const struct sup_spec *spec, char **env, int out_w, int err_w)
{
	setpgid(0, 0);
	/* the job gets the default dispositions and no blocked signal,
	 * whatever we ignore, catch or block */
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGTSTP, SIGCONT, SIGTTIN, SIGTTOU };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	dup2(out_w, 1);
	dup2(err_w, 2);
	if (spec->user) {
		const struct sup_user *u = spec->user;
		const char *what = NULL;
		if (setgroups((size_t)u->ngroups, u->groups) < 0)
			what = "setgroups";
		else if (setgid(u->gid) < 0)
			what = "setgid";
		else if (setuid(u->uid) < 0)
			what = "setuid";
		else if (u->uid != 0 && (setuid(0) == 0 || geteuid() == 0))
			what = "dropping root (it came back)";
		if (what) {
			dprintf(2, "nccl-doctor watch: cannot run '%s' as uid %u: %s: %s\n", spec->argv[0], (unsigned)u->uid,
				what, strerror(errno));
			_exit(126);
		}
	}
	execvpe(spec->argv[0], spec->argv, env);
	dprintf(2, "nccl-doctor watch: cannot run '%s': %s\n", spec->argv[0], strerror(errno));
	_exit(127);
}

int sup_start(struct sup *s, const struct sup_spec *spec)
{
	memset(s, 0, sizeof(*s));
	s->pid = s->guard = -1;
	s->guard_fd = -1;
	s->pipes[0] = s->pipes[1] = -1;
	s->out_fd = spec->out_fd;
	s->err_fd = spec->err_fd;
	if (!spec->argv || !spec->argv[0])
		return -EINVAL;
	int r = find_command(spec->argv[0]);
	if (r < 0)
		return r;
	int po[2], pe[2];
	if (pipe2(po, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(pe, O_CLOEXEC) < 0) {
		r = -errno;
		close(po[0]);
		close(po[1]);
		return r;
	}
	char **env = build_env(spec);
	if (!env) {
		close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
		return -ENOMEM;
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		r = -errno;
		free(env);
		close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
		return r;
	}
	if (pid == 0)
		job_exec(spec, env, po[1], pe[1]);
	setpgid(pid, pid); /* both sides, so the group exists before any signal */
	free(env);
	close(po[1]);
	close(pe[1]);
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	s->pid = pid;
	s->pipes[0] = po[0];
	s->pipes[1] = pe[0];
	s->guard = guard_start(pid, spec, &s->guard_fd);
	return 0;
}

static void write_all(struct sup *s, int fd, const char *p, size_t n)
{
	if (fd < 0 || s->out_broken)
		return;
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pf = { .fd = fd, .events = POLLOUT };
			poll(&pf, 1, 100);
			continue;
		}
		if (w <= 0) {
			s->out_broken = true; /* keep draining the job so it never blocks on a full pipe */
			return;
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Reads what one pipe holds now; closes it at EOF. */
static void drain(struct sup *s, int k, sup_output_fn fn, void *ctx)
{
	char buf[65536];
	for (int rounds = 0; rounds < 64 && s->pipes[k] >= 0; rounds++) {
		ssize_t n = read(s->pipes[k], buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return;
		if (n <= 0) {
			close(s->pipes[k]);
			s->pipes[k] = -1;
			return;
		}
		s->t_data = nd_now_s();
		s->bytes[k] += (unsigned long long)n;
		write_all(s, k == 0 ? s->out_fd : s->err_fd, buf, (size_t)n);
		if (fn)
			fn(ctx, k + 1, buf, (size_t)n);
	}
}

/* The main process's exit, seen without reaping it. */
static void see_exit(struct sup *s)
{
	if (s->exited || s->pid <= 0)
		return;
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)s->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid != s->pid)
		return;
	s->exited = true;
	s->t_exit = nd_now_s();
	if (si.si_code == CLD_EXITED)
		s->status = (si.si_status & 0xff) << 8;
	else
		s->status = (si.si_status & 0x7f) | (si.si_code == CLD_DUMPED ? 0x80 : 0);
}

/* After the exit: seconds the drain may still last (<= 0: over). */
static double drain_left(const struct sup *s)
{
	double now = nd_now_s(), last = s->t_data > s->t_exit ? s->t_data : s->t_exit;
	double a = s->t_exit + SUP_DRAIN_MAX - now, b = last + SUP_DRAIN_IDLE - now;
	return a < b ? a : b;
}

void sup_drain_now(struct sup *s, sup_output_fn fn, void *ctx)
{
	for (int k = 0; k < 2; k++)
		if (s->pipes[k] >= 0)
			drain(s, k, fn, ctx);
}

int sup_poll(struct sup *s, double max_wait, sup_output_fn fn, void *ctx)
{
	if (s->exited) {
		if (s->pipes[0] < 0 && s->pipes[1] < 0)
			return 0;
		double left = drain_left(s);
		if (left <= 0) {
			s->drain_cut = true;
			return 0;
		}
		if (max_wait > left)
			max_wait = left;
	}
	struct pollfd pf[2];
	int np = 0, idx[2];
	for (int k = 0; k < 2; k++)
		if (s->pipes[k] >= 0) {
			pf[np].fd = s->pipes[k];
			pf[np].events = POLLIN;
			idx[np++] = k;
		}
	int ms = max_wait <= 0 ? 0 : max_wait > 1 ? 1000 : (int)(max_wait * 1000) + 1;
	if (np > 0) {
		int r = poll(pf, (nfds_t)np, ms);
		if (r > 0)
			for (int i = 0; i < np; i++)
				if (pf[i].revents)
					drain(s, idx[i], fn, ctx);
	} else if (!s->exited && ms > 0) {
		usleep((useconds_t)ms * 1000);
	}
	see_exit(s);
	if (!s->exited)
		return 1;
	if (s->pipes[0] < 0 && s->pipes[1] < 0)
		return 0;
	if (drain_left(s) <= 0) {
		s->drain_cut = true;
		return 0;
	}
	return 1;
}

int sup_signal(const struct sup *s, int sig)
{
	/* the main process is not reaped before sup_release: its id is still
	 * the group's, or at least its own */
	if (s->pid <= 0)
		return -ESRCH;
	if (kill(-s->pid, sig) < 0 && (errno != ESRCH || kill(s->pid, sig) < 0))
		return -errno;
	return 0;
}

int sup_output_inodes(const struct sup *s, unsigned long ino[2])
{
	int n = 0;
	for (int k = 0; k < 2; k++) {
		struct stat st;
		if (s->pipes[k] >= 0 && fstat(s->pipes[k], &st) == 0)
			ino[n++] = (unsigned long)st.st_ino;
	}
	return n;
}

int sup_exit_code(const struct sup *s)
{
	if (!s->exited)
		return -1;
	if (WIFEXITED(s->status))
		return WEXITSTATUS(s->status);
	if (WIFSIGNALED(s->status))
		return 128 + WTERMSIG(s->status);
	return 1;
}

void sup_release(struct sup *s)
{
	for (int k = 0; k < 2; k++)
		if (s->pipes[k] >= 0) {
			close(s->pipes[k]);
			s->pipes[k] = -1;
		}
	/* the guard dies before its pipe closes: it does nothing */
	if (s->guard > 0) {
		kill(s->guard, SIGKILL);
		while (waitpid(s->guard, NULL, 0) < 0 && errno == EINTR)
			;
		s->guard = -1;
	}
	if (s->guard_fd >= 0) {
		close(s->guard_fd);
		s->guard_fd = -1;
	}
	if (s->pid > 0) {
		see_exit(s);
		int st;
		pid_t w;
		while ((w = waitpid(s->pid, &st, s->exited ? 0 : WNOHANG)) < 0 && errno == EINTR)
			;
		if (w == s->pid) {
			if (!s->exited) {
				s->exited = true;
				s->status = st;
			}
			s->pid = -1;
		}
	}
}
