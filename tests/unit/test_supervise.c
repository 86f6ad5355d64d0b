/* Unit tests of run/supervise: byte-exact passthrough of both streams (a
 * large binary stream with its checksum), the callback, exit codes and
 * signal deaths, environment set and defaults, a missing command, a signal
 * to the whole group, output of a grandchild that outlives the job, the
 * bounded drain when a process the job left keeps its output open (the
 * main process unreaped until the release), and the guard: when the
 * supervising process dies, the job's group is stopped and the directory
 * removed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "probe/proc.h"
#include "run/supervise.h"
#include "util/sysroot.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct seen {
	unsigned long long bytes[3];
	unsigned long long sum[3];
	char text[4096];
	size_t tlen;
};

static void on_output(void *ctx, int stream, const char *d, size_t n)
{
	struct seen *s = ctx;
	s->bytes[stream] += n;
	for (size_t i = 0; i < n; i++)
		s->sum[stream] = s->sum[stream] * 31 + (unsigned char)d[i];
	if (stream == 1)
		for (size_t i = 0; i < n && s->tlen + 1 < sizeof(s->text); i++)
			s->text[s->tlen++] = d[i];
	s->text[s->tlen] = '\0';
}

static int run(char *const *argv, const char *const *set, const char *const *dflt, int out, int err, struct seen *seen,
	       struct sup *s)
{
	struct sup_spec spec = { .argv = argv, .env_set = set, .env_default = dflt, .out_fd = out, .err_fd = err };
	int r = sup_start(s, &spec);
	if (r < 0)
		return r;
	time_t t0 = time(NULL);
	while (sup_poll(s, 0.2, on_output, seen) && time(NULL) - t0 < 60)
		;
	sup_release(s);
	return sup_exit_code(s);
}

static unsigned long long file_sum(FILE *f, unsigned long long *len)
{
	unsigned long long sum = 0;
	*len = 0;
	rewind(f);
	int c;
	while ((c = fgetc(f)) != EOF) {
		sum = sum * 31 + (unsigned char)c;
		(*len)++;
	}
	return sum;
}

static void test_passthrough_exact(void **state)
{
	(void)state;
	FILE *fo = tmpfile(), *fe = tmpfile();
	struct seen seen = { 0 };
	struct sup s;
	/* 32 MiB of binary data on stdout, text on stderr, exit 3 */
	char *argv[] = { "sh", "-c", "head -c 33554432 /dev/urandom; echo to-stderr >&2; exit 3", NULL };
	assert_int_equal(run(argv, NULL, NULL, fileno(fo), fileno(fe), &seen, &s), 3);
	unsigned long long lo, le;
	unsigned long long so = file_sum(fo, &lo), se = file_sum(fe, &le);
	assert_true(lo == 33554432ULL);
	assert_true(seen.bytes[1] == lo && seen.sum[1] == so);
	assert_true(le == 10 && seen.bytes[2] == le && seen.sum[2] == se);
	assert_true(s.bytes[0] == lo && s.bytes[1] == le);
	fclose(fo);
	fclose(fe);
}

/* Live (not zombie) processes of process group g, but skip. */
static int live_in_group(pid_t g, pid_t skip)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d))) {
		int pid = atoi(e->d_name);
		struct proc_info pi;
		if (pid > 0 && pid != skip && proc_read(pid, &pi) == 0 && pi.pgid == g && pi.state != 'Z')
			n++;
	}
	if (d)
		closedir(d);
	return n;
}

static void test_exit_and_signals(void **state)
{
	(void)state;
	struct seen seen = { 0 };
	struct sup s;
	char *killed[] = { "sh", "-c", "kill -9 $$", NULL };
	assert_int_equal(run(killed, NULL, NULL, -1, -1, &seen, &s), 128 + 9);
	char *missing[] = { "no-such-command-nccl-doctor", NULL };
	assert_int_equal(run(missing, NULL, NULL, -1, -1, &seen, &s), -ENOENT);
	char *ok[] = { "true", NULL };
	assert_int_equal(run(ok, NULL, NULL, -1, -1, &seen, &s), 0);

	/* a signal to the group ends the job and the child it started */
	char *tree[] = { "sh", "-c", "sleep 100 & echo started; wait", NULL };
	struct sup_spec spec = { .argv = tree, .out_fd = -1, .err_fd = -1 };
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(sup_start(&s, &spec), 0);
	time_t t0 = time(NULL);
	while (!strstr(seen.text, "started") && time(NULL) - t0 < 10)
		sup_poll(&s, 0.1, on_output, &seen);
	assert_int_equal(sup_signal(&s, SIGTERM), 0);
	while (sup_poll(&s, 0.1, on_output, &seen) && time(NULL) - t0 < 10)
		;
	assert_int_equal(sup_exit_code(&s), 128 + SIGTERM);
	/* nothing of the group is left running but the guard, until the release */
	assert_true(s.guard > 0);
	assert_int_equal(live_in_group(s.pid, s.guard), 0);
	pid_t g = s.pid;
	sup_release(&s);
	assert_int_equal(live_in_group(g, 0), 0);
	assert_int_equal(s.pid, -1); /* reaped */
	assert_int_equal(sup_signal(&s, SIGTERM), -ESRCH);
}

static void test_environment(void **state)
{
	(void)state;
	struct seen seen = { 0 };
	struct sup s;
	setenv("ND_SUP_USER", "mine", 1);
	setenv("ND_SUP_FORCED", "old", 1);
	const char *set[] = { "ND_SUP_FORCED=new", "ND_SUP_ADDED=1", NULL };
	const char *dflt[] = { "ND_SUP_USER=default", "ND_SUP_DFLT=d", NULL };
	char *argv[] = { "sh", "-c", "echo $ND_SUP_USER,$ND_SUP_FORCED,$ND_SUP_ADDED,$ND_SUP_DFLT", NULL };
	assert_int_equal(run(argv, set, dflt, -1, -1, &seen, &s), 0);
	assert_string_equal(seen.text, "mine,new,1,d\n");
	unsetenv("ND_SUP_USER");
	unsetenv("ND_SUP_FORCED");
}

static void test_grandchild_output(void **state)
{
	(void)state;
	struct seen seen = { 0 };
	struct sup s;
	/* the job exits at once; its background child writes later through the same pipe */
	char *argv[] = { "sh", "-c", "(sleep 0.3; echo late) & echo early", NULL };
	assert_int_equal(run(argv, NULL, NULL, -1, -1, &seen, &s), 0);
	assert_string_equal(seen.text, "early\nlate\n");
}

static char proc_state(pid_t pid)
{
	struct proc_info pi;
	return proc_read(pid, &pi) == 0 ? pi.state : 0;
}

static void test_leftover_drain(void **state)
{
	(void)state;
	struct seen seen = { 0 };
	struct sup s;
	/* the main process ends at once; a process it left in another session
	 * holds both pipes for 30 s */
	char *argv[] = { "sh", "-c", "setsid sleep 30 & echo $!", NULL };
	struct sup_spec spec = { .argv = argv, .out_fd = -1, .err_fd = -1 };
	assert_int_equal(sup_start(&s, &spec), 0);
	time_t t0 = time(NULL);
	while (sup_poll(&s, 0.2, on_output, &seen) && time(NULL) - t0 < 20)
		;
	assert_true(time(NULL) - t0 <= 5);
	assert_true(s.exited);
	assert_true(s.drain_cut);
	assert_int_equal(sup_exit_code(&s), 0);
	unsigned long ino[2];
	assert_int_equal(sup_output_inodes(&s, ino), 2);
	pid_t left = (pid_t)atoi(seen.text);
	assert_true(left > 0);
	int pids[8];
	int n = proc_pipe_holders(ino, 2, getpid(), pids, 8);
	assert_int_equal(n, 1);
	assert_int_equal(pids[0], left);
	/* not reaped before the release: the pid stays ours */
	assert_int_equal(proc_state(s.pid), 'Z');
	assert_int_equal(sup_signal(&s, 0), 0);
	pid_t main_pid = s.pid;
	sup_release(&s);
	assert_int_equal(s.pid, -1);
	assert_int_equal(proc_state(main_pid), 0);
	kill(left, SIGKILL);
}

static void test_guard(void **state)
{
	(void)state;
	char dir[] = "/tmp/nd-sup-guard.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char f[64];
	snprintf(f, sizeof(f), "%s/nccl.x.1", dir);
	int fd = open(f, O_WRONLY | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		/* the supervisor: starts the job (a child that ignores SIGTERM and a
		 * grandchild), says its pid, and dies without sup_release */
		int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		char *argv[] = { "sh", "-c", "trap '' TERM; sleep 100 & while :; do sleep 1; done", NULL };
		struct sup_spec spec = { .argv = argv, .out_fd = -1, .err_fd = -1, .guard_dirfd = dfd, .guard_dir = dir };
		struct sup s;
		if (sup_start(&s, &spec) < 0 || s.guard <= 0)
			_exit(1);
		pid_t pid = s.pid;
		if (write(p[1], &pid, sizeof(pid)) != sizeof(pid))
			_exit(1);
		struct timespec ts = { 0, 300 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		_exit(0);
	}
	close(p[1]);
	pid_t job = 0;
	assert_int_equal(read(p[0], &job, sizeof(job)), (ssize_t)sizeof(job));
	close(p[0]);
	int st;
	assert_int_equal(waitpid(c, &st, 0), c);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* SIGTERM, 3 s, SIGKILL: the whole group and the directory gone */
	time_t t0 = time(NULL);
	struct stat sb;
	while ((live_in_group(job, 0) > 0 || stat(dir, &sb) == 0) && time(NULL) - t0 < 10)
		usleep(50000);
	assert_int_equal(live_in_group(job, 0), 0);
	assert_int_equal(stat(dir, &sb), -1);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	sysroot_set(NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_passthrough_exact),
		cmocka_unit_test(test_exit_and_signals),
		cmocka_unit_test(test_environment),
		cmocka_unit_test(test_grandchild_output),
		cmocka_unit_test(test_leftover_drain),
		cmocka_unit_test(test_guard),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
