/* Unit tests of run/rendezvous on loopback: rank 0 in this process, the
 * other ranks forked (they report by exit status, nothing of cmocka runs in
 * them). Joins, a gather and a broadcast; a rank that never comes (named
 * with its node within the deadline, and the others told the same); a rank
 * that leaves; strangers on the port (garbage, another job, a rank twice)
 * refused without taking a place; no rank 0 at all; with `partial`, the
 * ranks that came going on without the one that never did. Each case well
 * under a second. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "run/rendezvous.h"
#include "util/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *const names[] = { "a", "b", "c", "d" };

/* a port nobody listens on now */
static int free_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t l = sizeof(sa);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&sa, &l), 0);
	close(fd);
	return ntohs(sa.sin_port);
}

static struct rdv_params params(int port, int rank, int size, double timeout)
{
	return (struct rdv_params){ .host = "127.0.0.1", .port = port, .rank = rank, .size = size, .node = names[rank % 4],
				    .job = "j1", .timeout = timeout, .local_size = 1, .nodes = names, .nnodes = 4 };
}

/* A rank's whole life in a child: join, send "hello from R", receive the
 * broadcast and check it. behaviour: 0 normal, 1 leave after joining, 2
 * expect rank 0's abort naming `expect`, 3 join partially: the last rank
 * absent, named by `expect`. Exit 0 when all went as asked. */
static pid_t child(int port, int rank, int size, int behaviour, const char *expect)
{
	pid_t pid = fork();
	if (pid != 0)
		return pid;
	struct rdv r;
	struct rdv_params p = params(port, rank, size, 1.0);
	p.partial = behaviour == 3;
	char err[512] = "";
	int rc = rdv_join(&r, &p, err, sizeof(err));
	if (behaviour == 3 && (rc < 0 || r.nabsent != 1 || !r.absent[size - 1] || strcmp(r.absent_why, expect) != 0 ||
			       r.node[size - 1][0]))
		_exit(15);
	if (behaviour == 3) /* the last rank is absent: the checks below ask for the one before */
		size--;
	if (behaviour == 2)
		_exit(rc == -ECANCELED && strstr(err, expect) ? 0 : 10);
	if (rc < 0)
		_exit(11);
	if (behaviour == 1) /* a node that dies after joining */
		_exit(0);
	char msg[64];
	snprintf(msg, sizeof(msg), "hello from %d", rank);
	if (rdv_gather(&r, "results", msg, strlen(msg), 2, NULL, err, sizeof(err)) < 0)
		_exit(12);
	struct rdv_msg m = { 0 };
	if (rdv_bcast(&r, "verdict", &m, 2, err, sizeof(err)) < 0 || strcmp(m.data, "HEALTHY") != 0)
		_exit(13);
	if (strcmp(r.node[0], "a") != 0 || strcmp(r.node[size - 1], names[(size - 1) % 4]) != 0)
		_exit(14);
	free(m.data);
	rdv_close(&r);
	_exit(0);
}

static void expect_exit(pid_t pid, int code)
{
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), code);
}

static void test_join_gather_bcast(void **state)
{
	(void)state;
	int port = free_port();
	pid_t c1 = child(port, 1, 3, 0, NULL), c2 = child(port, 2, 3, 0, NULL);
	struct rdv r;
	struct rdv_params p = params(port, 0, 3, 5);
	char err[512] = "";
	assert_int_equal(rdv_join(&r, &p, err, sizeof(err)), 0);
	assert_string_equal(r.node[1], "b");
	assert_string_equal(r.node[2], "c");
	struct rdv_msg all[3];
	assert_int_equal(rdv_gather(&r, "results", "mine", 4, 2, all, err, sizeof(err)), 0);
	assert_string_equal(all[0].data, "mine");
	assert_string_equal(all[1].data, "hello from 1");
	assert_string_equal(all[2].data, "hello from 2");
	rdv_msgs_free(all, 3);
	struct rdv_msg v = { .data = "HEALTHY", .len = 7 };
	assert_int_equal(rdv_bcast(&r, "verdict", &v, 2, err, sizeof(err)), 0);
	rdv_close(&r);
	expect_exit(c1, 0);
	expect_exit(c2, 0);
}

static void test_missing_rank(void **state)
{
	(void)state;
	int port = free_port();
	/* rank 3 (node d) never starts: rank 0 names it, rank 1 and 2 hear the same */
	pid_t c1 = child(port, 1, 4, 2, "rank 3 (node d) never joined within 0.5 s");
	pid_t c2 = child(port, 2, 4, 2, "rank 3 (node d) never joined");
	struct rdv r;
	struct rdv_params p = params(port, 0, 4, 0.5);
	char err[512] = "";
	double t0 = nd_now_s();
	assert_int_equal(rdv_join(&r, &p, err, sizeof(err)), -ETIMEDOUT);
	assert_string_equal(err, "rank 3 (node d) never joined within 0.5 s");
	assert_true(nd_now_s() - t0 < 1.5);
	expect_exit(c1, 0);
	expect_exit(c2, 0);
	/* two ranks of one node missing, by the nodes' list (two ranks a node) */
	port = free_port();
	p = params(port, 0, 4, 0.3);
	p.local_size = 2;
	assert_int_equal(rdv_join(&r, &p, err, sizeof(err)), -ETIMEDOUT);
	assert_string_equal(err, "ranks 1 (node a), 2,3 (node b) never joined within 0.3 s");
	/* bench -g 2: each process carries 2 ranks, named by them and by its process */
	port = free_port();
	p = params(port, 0, 4, 0.2);
	p.local_size = 2, p.ranks_each = 2;
	assert_int_equal(rdv_join(&r, &p, err, sizeof(err)), -ETIMEDOUT);
	assert_string_equal(err, "ranks 2,3 (process 1, node a), 4,5,6,7 (processes 2,3, node b) never joined within 0.2 s");
	port = free_port();
	p = params(port, 0, 2, 0.2);
	p.ranks_each = 3, p.local_size = 0, p.nodes = NULL; /* no node known */
	assert_int_equal(rdv_join(&r, &p, err, sizeof(err)), -ETIMEDOUT);
	assert_string_equal(err, "ranks 3,4,5 (process 1) never joined within 0.2 s");
}

/* check across nodes: rank 0 goes on with the ranks that came; gather
 * and broadcast neither wait for nor fail on the one that never did */
static void test_partial(void **state)
{
	(void)state;
	int port = free_port();
	/* the children's own deadline (1 s) is the one they name */
	pid_t c1 = child(port, 1, 4, 3, "rank 3 (node d) never joined within 1 s");
	pid_t c2 = child(port, 2, 4, 3, "rank 3 (node d) never joined within 1 s");
	struct rdv r;
	struct rdv_params p = params(port, 0, 4, 0.5);
	p.partial = true;
	char err[512] = "";
	double t0 = nd_now_s();
	assert_int_equal(rdv_join(&r, &p, err, sizeof(err)), 0);
	assert_int_equal(r.nabsent, 1);
	assert_true(r.absent[3] && !r.absent[1] && !r.absent[2]);
	assert_string_equal(r.absent_why, "rank 3 (node d) never joined within 0.5 s");
	struct rdv_msg all[4];
	assert_int_equal(rdv_gather(&r, "results", "mine", 4, 2, all, err, sizeof(err)), 0);
	assert_string_equal(all[2].data, "hello from 2");
	assert_null(all[3].data);
	rdv_msgs_free(all, 4);
	struct rdv_msg v = { .data = "HEALTHY", .len = 7 };
	assert_int_equal(rdv_bcast(&r, "verdict", &v, 2, err, sizeof(err)), 0);
	assert_true(nd_now_s() - t0 < 1.5); /* nothing waited for rank 3 beyond the deadline */
	rdv_close(&r);
	expect_exit(c1, 0);
	expect_exit(c2, 0);
}

static void test_rank_leaves(void **state)
{
	(void)state;
	int port = free_port();
	pid_t c1 = child(port, 1, 3, 1, NULL), c2 = child(port, 2, 3, 0, NULL);
	struct rdv r;
	struct rdv_params p = params(port, 0, 3, 5);
	char err[512] = "";
	assert_int_equal(rdv_join(&r, &p, err, sizeof(err)), 0);
	struct rdv_msg all[3];
	assert_int_equal(rdv_gather(&r, "results", "x", 1, 2, all, err, sizeof(err)), -EPIPE);
	assert_string_equal(err, "rank 1 (node b) left before sending the results");
	assert_string_equal(all[2].data, "hello from 2");
	rdv_msgs_free(all, 3);
	struct rdv_msg v = { .data = "HEALTHY", .len = 7 };
	rdv_bcast(&r, "verdict", &v, 2, err, sizeof(err));
	rdv_close(&r);
	expect_exit(c1, 0);
	expect_exit(c2, 0);
}

/* connects and sends raw bytes; returns the fd (kept open) */
static int stranger(int port, const void *bytes, size_t n)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	for (int i = 0; i < 100 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0; i++)
		usleep(10000);
	if (n)
		assert_int_equal(send(fd, bytes, n, MSG_NOSIGNAL), (ssize_t)n);
	return fd;
}

static void test_strangers(void **state)
{
	(void)state;
	int port = free_port();
	pid_t pid = fork();
	if (pid == 0) { /* strangers first, then the real rank 1 */
		usleep(100000);
		int g = stranger(port, "GET / HTTP/1.0\r\n\r\n", 18);
		/* a length over the limit: refused before anything is allocated */
		unsigned char big[16] = { 'N', 'D', 'R', 'V', 1, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff };
		int b = stranger(port, big, sizeof(big));
		/* another job's rank 1 */
		const char *j = "{\"rank\":1,\"size\":2,\"job\":\"other\",\"node\":\"x\"}";
		unsigned char h[16] = { 'N', 'D', 'R', 'V', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (unsigned char)strlen(j) };
		int o = stranger(port, h, sizeof(h));
		send(o, j, strlen(j), MSG_NOSIGNAL);
		usleep(100000);
		struct rdv r;
		struct rdv_params p = params(port, 1, 2, 2);
		char err[512];
		int rc = rdv_join(&r, &p, err, sizeof(err));
		close(g), close(b), close(o);
		_exit(rc == 0 ? 0 : 1);
	}
	struct rdv r;
	struct rdv_params p = params(port, 0, 2, 5);
	char err[512] = "";
	assert_int_equal(rdv_join(&r, &p, err, sizeof(err)), 0);
	assert_int_equal(r.refused, 3);
	assert_non_null(strstr(r.refused_why, "another job"));
	rdv_close(&r);
	expect_exit(pid, 0);
}

static void test_no_root(void **state)
{
	(void)state;
	struct rdv r;
	struct rdv_params p = params(free_port(), 1, 2, 0.4);
	char err[512] = "";
	double t0 = nd_now_s();
	assert_int_equal(rdv_join(&r, &p, err, sizeof(err)), -ETIMEDOUT);
	assert_non_null(strstr(err, "rank 1 could not reach rank 0 at 127.0.0.1:"));
	assert_non_null(strstr(err, "within 0.4 s: Connection refused"));
	assert_true(nd_now_s() - t0 < 1.5);
	p.node = "bad name;";
	assert_int_equal(rdv_join(&r, &p, err, sizeof(err)), -EINVAL);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_join_gather_bcast), cmocka_unit_test(test_missing_rank), cmocka_unit_test(test_partial),
		cmocka_unit_test(test_rank_leaves),
		cmocka_unit_test(test_strangers),	   cmocka_unit_test(test_no_root),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
