/* The worker supervisor (run/worker.h) against real worker processes: the
 * test-* tasks of `nccl-doctor __worker` (ND_BIN) model a worker that works,
 * fails, crashes, spins deaf to SIGTERM, leaves a child behind, stops
 * talking, floods its output or writes garbage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/worker.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *bin(void)
{
	const char *b = getenv("ND_BIN");
	return b ? b : ND_BINARY_DIR "/nccl-doctor";
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The slack a wall-clock bound allows: s times the 1-minute load average
 * per CPU rounded up (1 to 4), as tests/cli/lib.sh's within: on a loaded
 * machine the parent's poll loop waits its turn for a CPU too. */
static double slack(double s)
{
	double load = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	FILE *f = fopen("/proc/loadavg", "r");
	if (f) {
		if (fscanf(f, "%lf", &load) != 1)
			load = 0;
		fclose(f);
	}
	double k = ncpu > 0 ? load / (double)ncpu : 1;
	int n = (int)k + ((double)(int)k < k);
	return s * (n < 1 ? 1 : n > 4 ? 4 : n);
}

/* Gone, or a zombie waiting for init: either way it runs no more. */
static bool dead(pid_t pid)
{
	for (int i = 0; i < 100; i++) {
		if (kill(pid, 0) < 0 && errno == ESRCH)
			return true;
		char path[64], buf[256];
		snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
		FILE *f = fopen(path, "r");
		if (!f)
			return true;
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		char *p = strrchr(buf, ')');
		if (p && (p[2] == 'Z' || p[2] == 'X'))
			return true;
		usleep(10000);
	}
	return false;
}

static void run_task(struct worker *w, const char *task, const char *const *args, double deadline, double stage, double grace)
{
	struct worker_spec s = { .task = task, .args = args, .deadline = deadline, .stage_deadline = stage,
				 .grace = grace, .exe = bin() };
	assert_int_equal(worker_run(w, &s), 0);
}

static void no_children_left(void)
{
	errno = 0;
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
}

static void test_ok(void **state)
{
	(void)state;
	struct worker w;
	run_task(&w, "test-ok", NULL, 10, 0, 0);
	assert_int_equal(w.status, WORKER_OK);
	assert_string_equal(w.stage, "working");
	json_t *r = worker_result(&w);
	assert_non_null(r);
	assert_int_equal(json_integer_value(json_object_get(r, "answer")), 42);
	worker_release(&w);
	no_children_left();
}

static void test_error(void **state)
{
	(void)state;
	struct worker w;
	run_task(&w, "test-error", NULL, 10, 0, 0);
	assert_int_equal(w.status, WORKER_ERROR);
	assert_int_equal(w.exit_code, 1);
	json_t *e = worker_error(&w);
	assert_non_null(e);
	assert_string_equal(json_string_value(json_object_get(e, "name")), "CUDA_ERROR_NO_DEVICE");
	assert_int_equal(json_integer_value(json_object_get(e, "code")), 100);
	assert_string_equal(json_string_value(json_object_get(e, "stage")), "cuInit");
	assert_non_null(strstr(w.why, "cuInit failed"));
	json_t *j = worker_json(&w);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "error");
	json_decref(j);
	worker_release(&w);
}

static void test_crash(void **state)
{
	(void)state;
	struct worker w;
	/* under AddressSanitizer the worker would report the SIGSEGV itself and
	 * exit 1: let it die of the signal as a normal build does */
	static const char *const env[] = { "ASAN_OPTIONS=handle_segv=0", NULL };
	struct worker_spec s = { .task = "test-crash", .env = env, .deadline = 10, .exe = bin() };
	assert_int_equal(worker_run(&w, &s), 0);
	assert_int_equal(w.status, WORKER_CRASH);
	assert_int_equal(w.signal, SIGSEGV);
	assert_string_equal(w.stage, "about to crash");
	worker_release(&w);
}

/* The test: a worker deaf to SIGTERM, busy in a loop, is killed
 * within deadline + grace, and nothing of it remains. */
static void test_spin_killed_in_time(void **state)
{
	(void)state;
	struct worker w;
	double t0 = now_s();
	run_task(&w, "test-spin", NULL, 0.5, 0, 0.3);
	double took = now_s() - t0;
	assert_int_equal(w.status, WORKER_HANG);
	assert_string_equal(w.stage, "spinning");
	assert_true(w.term_sent);
	assert_true(w.kill_sent); /* SIGTERM was ignored: it took SIGKILL */
	assert_int_equal(w.signal, SIGKILL);
	assert_true(took >= 0.75);
	assert_true(took < 0.5 + 0.3 + slack(0.4));
	assert_non_null(strstr(w.why, "deadline"));
	pid_t pid = w.pid;
	assert_true(dead(pid));
	assert_int_equal(kill(-pid, 0), -1); /* the group is empty */
	worker_release(&w);
	no_children_left();
}

static void test_spawned_child_killed(void **state)
{
	(void)state;
	struct worker w;
	run_task(&w, "test-spawn", NULL, 0.4, 0, 0.2);
	assert_int_equal(w.status, WORKER_HANG);
	int child = 0;
	assert_int_equal(sscanf(w.stage, "child %d", &child), 1);
	assert_true(child > 1);
	assert_true(dead(child));
	assert_true(dead(w.pid));
	worker_release(&w);
	no_children_left();
}

/* A stage name is never empty, so nothing prints it as '' (issue 10 item 4). */
static void test_no_empty_stage(void **state)
{
	(void)state;
	struct worker w;
	run_task(&w, "test-mute", NULL, 0.3, 0, 0.2);
	assert_int_equal(w.status, WORKER_HANG);
	assert_string_equal(w.stage, WORKER_STAGE_START);
	assert_null(strstr(w.why, "''"));
	assert_non_null(strstr(w.why, "passed in stage 'start'"));
	json_t *j = worker_json(&w);
	assert_string_equal(json_string_value(json_object_get(j, "stage")), "start");
	json_decref(j);
	worker_release(&w);

	run_task(&w, "test-empty-stage", NULL, 5, 0.3, 0.2);
	assert_int_equal(w.status, WORKER_HANG);
	assert_string_equal(w.stage, WORKER_STAGE_UNNAMED);
	assert_null(strstr(w.why, "''"));
	assert_non_null(strstr(w.why, "no progress for 0.3 s in stage 'unnamed stage'"));
	worker_release(&w);
	no_children_left();
}

static void test_stage_deadline(void **state)
{
	(void)state;
	struct worker w;
	static const char *const args[] = { "5", NULL };
	double t0 = now_s();
	run_task(&w, "test-progress", args, 20, 0.4, 0.2);
	double took = now_s() - t0;
	assert_int_equal(w.status, WORKER_HANG);
	assert_string_equal(w.stage, "silent");
	assert_non_null(strstr(w.why, "no progress"));
	assert_true(json_array_size(w.stages) >= 6);
	assert_true(took < 0.5 + 0.4 + 0.2 + slack(0.6));
	worker_release(&w);
}

static void test_many_at_once(void **state)
{
	(void)state;
	enum { N = 6 };
	struct worker w[N], *p[N];
	static const char *const args[] = { "400", NULL };
	double t0 = now_s();
	for (int i = 0; i < N; i++) {
		worker_init(&w[i]);
		struct worker_spec s = { .task = i == N - 1 ? "test-spin" : "test-sleep", .args = args,
					 .deadline = 3.0, .grace = 0.2, .exe = bin() };
		assert_int_equal(worker_start(&w[i], &s), 0);
		p[i] = &w[i];
	}
	worker_wait(p, N);
	double took = now_s() - t0;
	for (int i = 0; i < N - 1; i++) {
		assert_int_equal(w[i].status, WORKER_OK);
		assert_int_equal(json_integer_value(json_object_get(worker_result(&w[i]), "slept_ms")), 400);
	}
	assert_int_equal(w[N - 1].status, WORKER_HANG);
	/* in parallel: about the hung one's deadline and grace, 3.2 s, where one
	 * after the other takes 5 x 0.4 + 3.2 = 5.2 s; the 3 s deadline leaves a
	 * 400 ms sleeper room on a loaded machine or under the sanitizers (an
	 * ASan worker takes ~0.35 s to start) */
	assert_true(took < 3.0 + 0.2 + 1.5); /* not scaled: 2 s of room before serial */
	for (int i = 0; i < N; i++)
		worker_release(&w[i]);
	no_children_left();
}

static void test_flood_bounded(void **state)
{
	(void)state;
	struct worker w;
	run_task(&w, "test-flood", NULL, 20, 0, 0);
	assert_int_equal(w.status, WORKER_OK);
	assert_true(w.tail.len <= 2 * WORKER_TAIL_MAX);
	assert_true(w.tail.len > 0);
	json_t *r = worker_result(&w);
	assert_non_null(r);
	assert_true(json_is_true(json_object_get(r, "flooded")));
	worker_release(&w);
}

static void test_garbage(void **state)
{
	(void)state;
	struct worker w;
	run_task(&w, "test-garbage", NULL, 10, 0, 0);
	assert_int_equal(w.status, WORKER_OK);
	assert_string_equal(w.stage, "after junk");
	worker_release(&w);
}

/* The parent's stdin and fd 3 closed: pipe2 then hands out low fds, which
 * the child must still map onto 0-3 without losing them at exec. */
static void test_low_fds(void **state)
{
	(void)state;
	int save0 = dup(0);
	assert_true(save0 >= 0);
	close(0);
	int save3 = fcntl(3, F_GETFD) >= 0 ? dup(3) : -1;
	close(3);
	struct worker w;
	run_task(&w, "test-ok", NULL, 10, 0, 0);
	dup2(save0, 0);
	close(save0);
	if (save3 >= 0) {
		dup2(save3, 3);
		close(save3);
	}
	assert_int_equal(w.status, WORKER_OK);
	assert_non_null(worker_result(&w));
	worker_release(&w);
}

static void test_no_binary(void **state)
{
	(void)state;
	struct worker w;
	worker_init(&w);
	struct worker_spec s = { .task = "test-ok", .deadline = 5, .exe = "/nonexistent/nccl-doctor" };
	assert_int_equal(worker_start(&w, &s), 0);
	struct worker *p = &w;
	worker_wait(&p, 1);
	assert_int_equal(w.status, WORKER_ERROR);
	assert_int_equal(w.exit_code, 127);
	assert_non_null(strstr(w.why, "cannot execute"));
	worker_release(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ok),
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_crash),
		cmocka_unit_test(test_spin_killed_in_time),
		cmocka_unit_test(test_spawned_child_killed),
		cmocka_unit_test(test_stage_deadline),
		cmocka_unit_test(test_no_empty_stage),
		cmocka_unit_test(test_many_at_once),
		cmocka_unit_test(test_flood_bounded),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_low_fds),
		cmocka_unit_test(test_no_binary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
