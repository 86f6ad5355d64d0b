/* The supervised user command of `watch` (run/supervise.h). */
#include "run/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
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

int sup_start(struct sup *s, const struct sup_spec *spec)
{
	memset(s, 0, sizeof(*s));
	s->pid = -1;
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
	pid_t pid = fork();
	if (pid < 0) {
		r = -errno;
		free(env);
		close(po[0]), close(po[1]), close(pe[0]), close(pe[1]);
		return r;
	}
	if (pid == 0) {
		setpgid(0, 0);
		/* the job gets the default dispositions, whatever we ignore */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		execvpe(spec->argv[0], spec->argv, env);
		dprintf(2, "nccl-doctor watch: cannot run '%s': %s\n", spec->argv[0], strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid); /* both sides, so the group exists before any signal */
	free(env);
	close(po[1]);
	close(pe[1]);
	fcntl(po[0], F_SETFL, O_NONBLOCK);
	fcntl(pe[0], F_SETFL, O_NONBLOCK);
	s->pid = pid;
	s->pipes[0] = po[0];
	s->pipes[1] = pe[0];
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
		s->bytes[k] += (unsigned long long)n;
		write_all(s, k == 0 ? s->out_fd : s->err_fd, buf, (size_t)n);
		if (fn)
			fn(ctx, k + 1, buf, (size_t)n);
	}
}

int sup_poll(struct sup *s, double max_wait, sup_output_fn fn, void *ctx)
{
	struct pollfd pf[2];
	int np = 0, idx[2];
	for (int k = 0; k < 2; k++)
		if (s->pipes[k] >= 0) {
			pf[np].fd = s->pipes[k];
			pf[np].events = POLLIN;
			idx[np++] = k;
		}
	int ms = max_wait <= 0 ? 0 : max_wait > 1 ? 1000 : (int)(max_wait * 1000);
	if (np > 0) {
		int r = poll(pf, (nfds_t)np, ms);
		if (r > 0)
			for (int i = 0; i < np; i++)
				if (pf[i].revents)
					drain(s, idx[i], fn, ctx);
	} else if (!s->exited && ms > 0) {
		usleep((useconds_t)ms * 1000);
	}
	if (!s->exited && s->pid > 0) {
		int st;
		pid_t w = waitpid(s->pid, &st, WNOHANG);
		if (w == s->pid) {
			s->exited = true;
			s->status = st;
		}
	}
	/* the job may have left children holding the pipes: once it exited,
	 * what they still write is passed on until they close them */
	return s->exited && s->pipes[0] < 0 && s->pipes[1] < 0 ? 0 : 1;
}

int sup_signal(const struct sup *s, int sig)
{
	if (s->pid <= 0)
		return -ESRCH;
	if (kill(-s->pid, sig) < 0 && (errno != ESRCH || kill(s->pid, sig) < 0))
		return -errno;
	return 0;
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
	if (s->pid > 0 && !s->exited) {
		int st;
		if (waitpid(s->pid, &st, WNOHANG) == s->pid) {
			s->exited = true;
			s->status = st;
		}
	}
}
