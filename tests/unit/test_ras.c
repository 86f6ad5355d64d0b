/* Unit tests of probe/ras (NCCL RAS client): NCCL_RAS_ADDR forms, STATUS
 * reports in the shape NCCL prints them (dead process, status mismatch,
 * healthy), text that is no report, the query against a local server that
 * speaks the protocol, one that never answers (the deadline) and a closed
 * port; and probe/proc's process roles (vLLM workers, torchrun). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "probe/proc.h"
#include "probe/ras.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char *slurp(const char *name)
{
	char path[1024];
	snprintf(path, sizeof(path), "%s/ras/%s", ND_FIXTURES, name);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static void test_addr(void **state)
{
	(void)state;
	char h[64];
	unsigned p;
	assert_int_equal(ras_addr_parse(NULL, h, sizeof(h), &p), 0);
	assert_string_equal(h, "localhost");
	assert_int_equal(p, 28028);
	assert_int_equal(ras_addr_parse("10.0.0.1:29000", h, sizeof(h), &p), 0);
	assert_string_equal(h, "10.0.0.1");
	assert_int_equal(p, 29000);
	assert_int_equal(ras_addr_parse("[::1]:123", h, sizeof(h), &p), 0);
	assert_string_equal(h, "::1");
	assert_int_equal(p, 123);
	assert_int_equal(ras_addr_parse("127.0.0.1", h, sizeof(h), &p), 0);
	assert_int_equal(p, 28028);
	assert_int_equal(ras_addr_parse("fe80::1", h, sizeof(h), &p), 0);
	assert_string_equal(h, "fe80::1");
	assert_int_equal(ras_addr_parse("host:99999", h, sizeof(h), &p), -EINVAL);
	assert_int_equal(ras_addr_parse(":5", h, sizeof(h), &p), -EINVAL);
	assert_int_equal(ras_addr_parse("[::1", h, sizeof(h), &p), -EINVAL);
	assert_int_equal(ras_addr_parse("[::1]x", h, sizeof(h), &p), -EINVAL);
}

static void test_parse(void **state)
{
	(void)state;
	struct ras_summary s;
	assert_int_equal(ras_parse(slurp("status-dead.txt"), &s), 0);
	assert_string_equal(s.version, "2.29.2+cuda13.0");
	assert_int_equal(s.dead, 1);
	assert_int_equal(s.ncomm_groups, 1);
	assert_string_equal(s.status, "RUNNING");
	assert_true(s.nlines >= 3);
	assert_string_equal(s.lines[0], "DEAD");
	assert_string_equal(s.lines[2], "  Process 4242 on node 10.0.0.2 managing GPU 1");

	assert_int_equal(ras_parse(slurp("status-mismatch.txt"), &s), 0);
	assert_int_equal(s.dead, 0);
	assert_true(s.mismatch);
	assert_false(s.error);
	assert_string_equal(s.status, "INIT");

	assert_int_equal(ras_parse(slurp("status-ok.txt"), &s), 0);
	assert_int_equal(s.dead, 0);
	assert_int_equal(s.missing, 0);
	assert_false(s.mismatch || s.error);
	assert_int_equal(s.nlines, 0);

	assert_int_equal(ras_parse("HTTP/1.1 400 Bad Request\r\n\r\n", &s), -EINVAL);
	assert_int_equal(ras_parse("", &s), -EINVAL);
	/* "Missing communicator data from N job processes" */
	assert_int_equal(ras_parse("Errors\n======\n\nINCOMPLETE\n  Missing communicator data from 3 job processes\n", &s), 0);
	assert_int_equal(s.missing, 3);
}

/* A one-connection server in a child: mode 0 speaks the protocol and sends
 * the dead report, 1 accepts and never answers, 2 is mode 0 on ::1. Returns
 * its port, -1 when it cannot listen. */
static int serve(int mode, pid_t *child)
{
	int fd = socket(mode == 2 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
	if (fd < 0)
		return -1;
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_addr = IN6ADDR_LOOPBACK_INIT };
	socklen_t al = mode == 2 ? sizeof(a6) : sizeof(a);
	struct sockaddr *sa = mode == 2 ? (struct sockaddr *)&a6 : (struct sockaddr *)&a;
	if (bind(fd, sa, al) < 0) {
		close(fd);
		return -1; /* no IPv6 loopback here */
	}
	assert_int_equal(listen(fd, 1), 0);
	getsockname(fd, sa, &al);
	int port = ntohs(mode == 2 ? a6.sin6_port : a.sin_port);
	const char *report = slurp("status-dead.txt");
	*child = fork();
	if (*child == 0) {
		int c = accept(fd, NULL, NULL);
		if (mode == 1) {
			sleep(30);
			_exit(0);
		}
		char buf[256];
		FILE *in = fdopen(dup(c), "r");
		int ok = 1;
		if (!fgets(buf, sizeof(buf), in) || strcmp(buf, "CLIENT PROTOCOL 2\n") != 0)
			ok = 0;
		if (write(c, "SERVER PROTOCOL 2\n", 18) < 0 || !fgets(buf, sizeof(buf), in) || strncmp(buf, "TIMEOUT ", 8) != 0)
			ok = 0;
		if (write(c, "OK\n", 3) < 0 || !fgets(buf, sizeof(buf), in) || strcmp(buf, "STATUS\n") != 0)
			ok = 0;
		if (ok && write(c, report, strlen(report)) < 0)
			ok = 0;
		_exit(ok ? 0 : 1);
	}
	close(fd);
	return port;
}

static void test_query(void **state)
{
	(void)state;
	pid_t child;
	int port = serve(0, &child);
	char *text = NULL, err[256] = "";
	assert_int_equal(ras_query("127.0.0.1", (unsigned)port, 2, 5.0, &text, err, sizeof(err)), 0);
	struct ras_summary s;
	assert_int_equal(ras_parse(text, &s), 0);
	assert_int_equal(s.dead, 1);
	free(text);
	int st;
	waitpid(child, &st, 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0); /* it saw our three commands */

	/* a server that never answers: the deadline holds */
	port = serve(1, &child);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(ras_query("127.0.0.1", (unsigned)port, 2, 0.5, &text, err, sizeof(err)), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double dt = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_true(dt < 2.0);
	assert_non_null(strstr(err, "no complete answer in time"));
	assert_null(text);
	kill(child, SIGKILL);
	waitpid(child, &st, 0);

	/* NCCL's default "localhost" bound to ::1: found through the second try */
	port = serve(2, &child);
	if (port > 0) {
		assert_int_equal(ras_query("localhost", (unsigned)port, 2, 5.0, &text, err, sizeof(err)), 0);
		free(text);
		waitpid(child, &st, 0);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}

	/* nobody listens (the port of the server that is gone) */
	assert_int_equal(ras_query("127.0.0.1", (unsigned)port, 2, 1.0, &text, err, sizeof(err)), -ECONNREFUSED);
	assert_non_null(strstr(err, "cannot connect to 127.0.0.1:"));
	/* names are not looked up (a lookup could block) */
	assert_int_equal(ras_query("example.invalid", 28028, 2, 1.0, &text, err, sizeof(err)), -EINVAL);
}

static void test_roles(void **state)
{
	(void)state;
	char r[32];
	proc_role("python3", "/usr/bin/python3 -c from multiprocessing.spawn import spawn_main; VllmWorkerProcess", r,
		  sizeof(r));
	assert_string_equal(r, "vLLM worker");
	proc_role("VLLM::Worker_TP", "VLLM::Worker_TP1 ", r, sizeof(r));
	assert_string_equal(r, "vLLM worker");
	proc_role("vllm", "/venv/bin/python3 /venv/bin/vllm serve meta-llama/Llama-3-8B --tensor-parallel-size 4", r,
		  sizeof(r));
	assert_string_equal(r, "vLLM");
	proc_role("python", "python -m torch.distributed.run --nproc-per-node 2 train.py", r, sizeof(r));
	assert_string_equal(r, "torchrun");
	proc_role("python3", "python3 train.py --lr 0.1", r, sizeof(r));
	assert_string_equal(r, "");
	proc_role("sh", NULL, r, sizeof(r));
	assert_string_equal(r, "");
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_query),
		cmocka_unit_test(test_roles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
