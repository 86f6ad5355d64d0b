/* Unit tests of probe/ras (NCCL RAS client): NCCL_RAS_ADDR forms, STATUS
 * reports in the shape NCCL prints them (dead process, status mismatch,
 * healthy), text that is no report, the query against a local server that
 * speaks the protocol, one that never answers (the deadline) and a closed
 * port; the MONITOR stream (2.29+): event lines, well formed and malformed,
 * the stream split at every byte, over-long lines, the handshake's answers,
 * and the non-blocking client against a local server (events, a refused
 * port, a server that never answers); and probe/proc's process roles (vLLM
 * workers, torchrun). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "probe/proc.h"
#include "probe/ras.h"
#include "util/text.h"

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
	assert_int_equal(ras_query("127.0.0.1", (unsigned)port, getpid(), 2, 5.0, &text, err, sizeof(err)), 0);
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
	assert_int_equal(ras_query("127.0.0.1", (unsigned)port, getpid(), 2, 0.5, &text, err, sizeof(err)), -ETIMEDOUT);
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
		assert_int_equal(ras_query("localhost", (unsigned)port, getpid(), 2, 5.0, &text, err, sizeof(err)), 0);
		free(text);
		waitpid(child, &st, 0);
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}

	/* nobody listens (the port of the server that is gone) */
	assert_int_equal(ras_query("127.0.0.1", (unsigned)port, getpid(), 2, 1.0, &text, err, sizeof(err)), -ECONNREFUSED);
	assert_non_null(strstr(err, "cannot connect to 127.0.0.1:"));
	/* names are not looked up (a lookup could block) */
	assert_int_equal(ras_query("example.invalid", 28028, getpid(), 2, 1.0, &text, err, sizeof(err)), -EINVAL);
}

static void test_event_parse(void **state)
{
	(void)state;
	struct ras_event ev;
	assert_int_equal(ras_event_parse("[2026-12-02 23:59:41] PEER_DEAD: Process 4242 on node 10.0.0.2 managing GPU 1 ", &ev), 0);
	assert_int_equal(ev.kind, RAS_EV_DEAD);
	assert_string_equal(ev.time, "2026-12-02 23:59:41");
	assert_string_equal(ev.type, "PEER_DEAD");
	assert_int_equal(ev.pid, 4242);
	assert_string_equal(ev.host, "10.0.0.2");
	assert_string_equal(ev.gpus, "1");
	assert_string_equal(ev.details, "");
	assert_int_equal(ras_event_parse("[t] PEER_DEAD: Process 5000 on node fe80::2 managing GPUs 0,1 (NVML 2,3) x y", &ev), 0);
	assert_string_equal(ev.host, "fe80::2");
	assert_string_equal(ev.gpus, "0,1 (NVML 2,3)");
	assert_string_equal(ev.details, "x y");
	assert_int_equal(ras_event_parse("[t] PEER_UNRESPONSIVE: 10.0.0.2<36117> peer not responding for 5s (keepalive warning)", &ev), 0);
	assert_int_equal(ev.kind, RAS_EV_TROUBLE);
	assert_int_equal(ev.pid, -1);
	assert_string_equal(ev.addr, "10.0.0.2<36117>");
	assert_string_equal(ev.host, "10.0.0.2");
	assert_string_equal(ev.details, "peer not responding for 5s (keepalive warning)");
	/* an event without a peer, an unknown name: kept as "other" */
	assert_int_equal(ras_event_parse("[t] FUTURE_THING: something new", &ev), 0);
	assert_int_equal(ev.kind, RAS_EV_OTHER);
	assert_string_equal(ev.details, "something new");
	/* a "Process" that is not one: the text stays details */
	assert_int_equal(ras_event_parse("[t] PEER_DEAD: Process x on node", &ev), 0);
	assert_int_equal(ev.pid, -1);
	assert_string_equal(ev.details, "Process x on node");
	assert_int_equal(ras_event_parse("[t] PEER_DEAD: Process 99999999999999999999 on node h managing GPU 1", &ev), 0);
	assert_int_equal(ev.pid, -1);
	/* not events */
	static const char *const bad[] = {
		"", "PEER_DEAD: Process 1 on node h managing GPU 1", "[] PEER_DEAD: x", "[t PEER_DEAD: x", "[t] peer_dead: x",
		"[t] PEER_DEAD x", "[t] : x", "[t] _X: x", "OK", "ERROR: Unknown command MONITOR", "\x01\x02\xff",
		"[t] PEER_DEAD_WITH_A_NAME_FAR_TOO_LONG_FOR_US: x",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(ras_event_parse(bad[i], &ev), -EINVAL);
	/* every cut of a good line parses or is refused, never overruns */
	const char *good = "[2026-12-02 23:59:41] PEER_DEAD: Process 4242 on node 10.0.0.2 managing GPUs 0,1 (NVML 2,3) d";
	char buf[256];
	for (size_t n = 0; n <= strlen(good); n++) {
		memcpy(buf, good, n);
		buf[n] = '\0';
		int rc = ras_event_parse(buf, &ev);
		assert_true(rc == 0 || rc == -EINVAL);
	}
}

struct collect {
	int n, dead;
	char last[32];
	long last_pid;
};

static void collect_ev(void *ctx, const struct ras_event *ev)
{
	struct collect *c = ctx;
	c->n++;
	c->dead += ev->kind == RAS_EV_DEAD;
	str_copy(c->last, ev->type, sizeof(c->last));
	c->last_pid = ev->pid;
}

static void test_monitor_feed(void **state)
{
	(void)state;
	const char *stream = slurp("monitor-dead.txt");
	static const char hello[] = "SERVER PROTOCOL 2\r\nOK\n";
	size_t slen = strlen(stream);
	char *all = malloc(sizeof(hello) + slen);
	assert_non_null(all);
	memcpy(all, hello, sizeof(hello) - 1);
	memcpy(all + sizeof(hello) - 1, stream, slen + 1);
	/* the same stream in one piece and split at every chunk size */
	for (size_t step = 1; step <= 64; step = step < 8 ? step + 1 : step * 2) {
		struct ras_monitor m;
		ras_monitor_init(&m);
		m.state = RAS_MON_HELLO;
		struct collect c = { 0 };
		size_t len = strlen(all);
		for (size_t off = 0; off < len; off += step)
			assert_int_equal(ras_monitor_feed(&m, all + off, off + step > len ? len - off : step, collect_ev, &c), 0);
		assert_int_equal(m.state, RAS_MON_FOLLOW);
		assert_int_equal(c.n, 11);
		assert_int_equal(c.dead, 3); /* TIMEOUT_DEAD and DEAD of 4242, DEAD of 5000 */
		assert_string_equal(c.last, "PEER_RECOVERED");
		assert_int_equal(m.bad, 0);
		assert_string_equal(m.out, "MONITOR lifecycle,trace\n"); /* queued by SERVER PROTOCOL */
	}
	free(all);
	/* garbage, an over-long line and a NUL between events: skipped, counted */
	struct ras_monitor m;
	ras_monitor_init(&m);
	m.state = RAS_MON_FOLLOW;
	struct collect c = { 0 };
	char big[3000];
	memset(big, 'A', sizeof(big));
	big[0] = '[';
	assert_int_equal(ras_monitor_feed(&m, big, sizeof(big), collect_ev, &c), 0);
	static const char junk[] = "] PEER_DEAD: x\nnot an event\n\n\x00\xff garbage\n";
	assert_int_equal(ras_monitor_feed(&m, junk, sizeof(junk) - 1, collect_ev, &c), 0);
	static const char good[] = "[t] PEER_DEAD: Process 7 on node 127.0.0.1 managing GPU 0 \n";
	assert_int_equal(ras_monitor_feed(&m, good, sizeof(good) - 1, collect_ev, &c), 0);
	assert_int_equal(m.cut, 1);
	assert_int_equal(m.bad, 3); /* the cut line, "not an event", the NUL line */
	assert_int_equal(c.n, 1);
	assert_int_equal(c.last_pid, 7);
	/* answers that end the handshake */
	ras_monitor_init(&m);
	m.state = RAS_MON_HELLO;
	assert_int_equal(ras_monitor_feed(&m, "HTTP/1.1 400 Bad Request\r\n", 26, NULL, NULL), -EPROTO);
	assert_int_equal(m.lines, 1);
	assert_string_equal(m.answer, "HTTP/1.1 400 Bad Request");
	ras_monitor_init(&m);
	m.state = RAS_MON_SUBSCRIBE;
	assert_int_equal(ras_monitor_feed(&m, "ERROR: Unknown command MONITOR lifecycle,trace\n", 47, NULL, NULL), -EOPNOTSUPP);
	ras_monitor_init(&m);
	m.state = RAS_MON_SUBSCRIBE;
	assert_int_equal(ras_monitor_feed(&m, "OKAY\n", 5, NULL, NULL), -EPROTO);
}

/* A monitor server in a child: mode 0 speaks the protocol, sends the
 * fixture's events and closes; 1 accepts and never answers. */
static int serve_monitor(int mode, pid_t *child)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof(a);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, al), 0);
	assert_int_equal(listen(fd, 1), 0);
	getsockname(fd, (struct sockaddr *)&a, &al);
	const char *events = slurp("monitor-dead.txt");
	*child = fork();
	if (*child == 0) {
		int c = accept(fd, NULL, NULL);
		if (mode == 1) {
			sleep(30);
			_exit(0);
		}
		char buf[256];
		FILE *in = fdopen(dup(c), "r");
		int ok = fgets(buf, sizeof(buf), in) && strcmp(buf, "CLIENT PROTOCOL 2\n") == 0;
		ok = ok && write(c, "SERVER PROTOCOL 2\n", 18) == 18;
		ok = ok && fgets(buf, sizeof(buf), in) && strcmp(buf, "MONITOR lifecycle,trace\n") == 0;
		ok = ok && write(c, "OK\n", 3) == 3;
		usleep(100000);
		ok = ok && write(c, events, strlen(events)) == (ssize_t)strlen(events);
		_exit(ok ? 0 : 1);
	}
	close(fd);
	return ntohs(a.sin_port);
}

static double mono(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void test_monitor_client(void **state)
{
	(void)state;
	pid_t child;
	int st, port = serve_monitor(0, &child);
	struct ras_monitor m;
	ras_monitor_init(&m);
	assert_int_equal(ras_monitor_connect(&m, "127.0.0.1", (unsigned)port, getpid()), 0);
	struct collect c = { 0 };
	int rc = 0;
	double t0 = mono();
	while ((rc = ras_monitor_poll(&m, mono(), collect_ev, &c)) == 0 && mono() - t0 < 10)
		usleep(10000);
	assert_int_equal(rc, -ECONNRESET); /* the server closed after its events */
	assert_int_equal(c.n, 11);
	assert_int_equal(c.dead, 3);
	assert_int_equal(m.state, RAS_MON_IDLE);
	waitpid(child, &st, 0);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0); /* it got our two commands */
	/* refused: the port of the server that is gone */
	ras_monitor_init(&m);
	rc = ras_monitor_connect(&m, "127.0.0.1", (unsigned)port, getpid());
	if (rc == 0) {
		t0 = mono();
		while ((rc = ras_monitor_poll(&m, mono(), NULL, NULL)) == 0 && mono() - t0 < 5)
			usleep(10000);
	}
	assert_int_equal(rc, -ECONNREFUSED);
	assert_int_equal(ras_monitor_connect(&m, "example.invalid", 28028, getpid()), -EINVAL);
	/* a server that never answers: -ETIMEDOUT after RAS_MON_ANSWER_S, never a block */
	port = serve_monitor(1, &child);
	ras_monitor_init(&m);
	assert_int_equal(ras_monitor_connect(&m, "127.0.0.1", (unsigned)port, getpid()), 0);
	double t = mono(), fake = t;
	double worst = 0;
	while ((rc = ras_monitor_poll(&m, fake, NULL, NULL)) == 0 && fake - t < 60) {
		double d = mono() - fake;
		worst = d > worst ? d : worst;
		fake += 0.5; /* the clock is ours: no need to wait for it */
		fake = fake < mono() ? mono() : fake;
	}
	assert_int_equal(rc, -ETIMEDOUT);
	assert_true(fake - t >= RAS_MON_ANSWER_S && fake - t < RAS_MON_ANSWER_S + 2);
	assert_true(mono() - t < 2.0); /* no poll waited */
	kill(child, SIGKILL);
	waitpid(child, &st, 0);
	assert_true(ras_host_is_local("127.0.0.1"));
	assert_true(ras_host_is_local("::1"));
	assert_false(ras_host_is_local("192.0.2.77"));
	assert_false(ras_host_is_local("not an address"));
}

/* ---- whose socket -------------------------------------------------------- */

#define TCP_LINE(sl, la, ra, st, uid, ino) \
	"   " #sl ": " la " " ra " " st " 00000000:00000000 00:00000000 00000000  " #uid "        0 " #ino \
	" 1 0000000000000000 100 0 0 10 0\n"
#define TCP_HEAD "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"

/* /proc/net/tcp and tcp6 text as the kernel writes it: port 28028 (6D7C) */
static int fixture_socks(const char *v4, const char *v6, struct tcp_sock *s, int max)
{
	int n = proc_parse_net_tcp_port(v4, false, 28028, s, max);
	return n + (v6 ? proc_parse_net_tcp_port(v6, true, 28028, s + n, max - n) : 0);
}

static void test_owner_pure(void **state)
{
	(void)state;
	struct tcp_sock s[16];
	int other;
	const unsigned long job[] = { 100, 400 };
	/* the job listens on 127.0.0.1, someone else on the wildcard; a client of
	 * the job's RAS and the socket that accepted it; another port */
	const char *v4 = TCP_HEAD
		TCP_LINE(0, "0100007F:6D7C", "00000000:0000", "0A", 0, 100)
		TCP_LINE(1, "00000000:6D7C", "00000000:0000", "0A", 1001, 200)
		TCP_LINE(2, "0100007F:C350", "0100007F:6D7C", "01", 0, 399)
		TCP_LINE(3, "0100007F:6D7C", "0100007F:C350", "01", 0, 400)
		TCP_LINE(4, "0100007F:1F90", "00000000:0000", "0A", 1001, 500);
	int n = fixture_socks(v4, NULL, s, 16);
	assert_int_equal(n, 3); /* the client's end (port 50000) and port 8080 left out */
	assert_int_equal(s[1].uid, 1001);
	/* a listener bound to the address itself takes the connection */
	assert_int_equal(ras_listener_owner(s, n, "127.0.0.1", 28028, job, 2, &other), RAS_OWNER_JOB);
	/* no listener on 10.0.0.5 itself: the wildcard's, which is not the job's */
	assert_int_equal(ras_listener_owner(s, n, "10.0.0.5", 28028, job, 2, &other), RAS_OWNER_OTHER);
	assert_int_equal(other, 1);
	assert_int_equal(ras_listener_owner(s, n, "127.0.0.1", 28028, job, 1, &other), RAS_OWNER_JOB);
	assert_int_equal(ras_listener_owner(s, n, "127.0.0.1", 28029, job, 2, &other), RAS_OWNER_NONE);
	assert_int_equal(ras_listener_owner(s, n, "::1", 28028, job, 2, &other), RAS_OWNER_NONE); /* 0.0.0.0 is IPv4 only */
	assert_int_equal(ras_listener_owner(s, n, "localhost", 28028, job, 2, &other), RAS_OWNER_NONE); /* numeric only */
	/* the socket that accepted the client 127.0.0.1:50000 */
	assert_int_equal(ras_conn_owner(s, n, "127.0.0.1", 28028, "127.0.0.1", 50000, job, 2, &other), RAS_OWNER_JOB);
	assert_int_equal(ras_conn_owner(s, n, "127.0.0.1", 28028, "127.0.0.1", 50000, job, 1, &other), RAS_OWNER_OTHER);
	assert_int_equal(other, 2);
	assert_int_equal(ras_conn_owner(s, n, "127.0.0.1", 28028, "127.0.0.1", 50001, job, 2, &other), RAS_OWNER_NONE);

	/* two listeners on the same address (SO_REUSEPORT): one is not the job's */
	const char *shared = TCP_HEAD
		TCP_LINE(0, "0100007F:6D7C", "00000000:0000", "0A", 0, 100)
		TCP_LINE(1, "0100007F:6D7C", "00000000:0000", "0A", 0, 101);
	n = fixture_socks(shared, NULL, s, 16);
	assert_int_equal(ras_listener_owner(s, n, "127.0.0.1", 28028, job, 2, &other), RAS_OWNER_OTHER);
	assert_int_equal(other, 1);

	/* only someone else's dual-stack [::]: takes IPv4 and IPv6 alike */
	const char *v6 = "  sl  local_address                         remote_address                        st tx_queue\n"
		TCP_LINE(0, "00000000000000000000000000000000:6D7C", "00000000000000000000000000000000:0000", "0A", 1001, 300)
		TCP_LINE(1, "0000000000000000FFFF00000100007F:6D7C", "0000000000000000FFFF00000100007F:C351", "01", 0, 0)
		TCP_LINE(2, "0000000000000000FFFF00000100007F:6D7C", "0000000000000000FFFF00000100007F:C352", "01", 1001, 301);
	n = fixture_socks(TCP_HEAD, v6, s, 16);
	assert_int_equal(n, 3);
	assert_int_equal(ras_listener_owner(s, n, "127.0.0.1", 28028, job, 2, &other), RAS_OWNER_OTHER);
	assert_int_equal(other, 0);
	assert_int_equal(ras_listener_owner(s, n, "::1", 28028, job, 2, &other), RAS_OWNER_OTHER);
	/* an accepted IPv4 connection on it shows as ::ffff:127.0.0.1: inode 0
	 * is not accepted yet (no file holds it), 301 is someone else's */
	assert_int_equal(ras_conn_owner(s, n, "127.0.0.1", 28028, "127.0.0.1", 50001, job, 2, &other), RAS_OWNER_NONE);
	assert_int_equal(ras_conn_owner(s, n, "127.0.0.1", 28028, "127.0.0.1", 50002, job, 2, &other), RAS_OWNER_OTHER);
	assert_int_equal(other, 2);
	const unsigned long job6[] = { 300 };
	assert_int_equal(ras_listener_owner(s, n, "127.0.0.1", 28028, job6, 1, &other), RAS_OWNER_JOB);
}

/* A process outside this test's tree (a child's child whose parent exited)
 * that holds sock (when >= 0) or listens itself on 127.0.0.1: it accepts
 * one connection (within 3 s), answers the handshake and sends what a RAS
 * server would: a dead report and a PEER_DEAD with escape codes. Writes
 * its pid, then its port, then whether a connection came, to the pipe rd. */
static void foreign_server(int sock, int *rd)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t c = fork();
	if (c == 0) {
		if (fork() != 0)
			_exit(0);
		close(p[0]);
		int fd = sock;
		if (fd < 0) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
			if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 4) < 0)
				_exit(1);
		}
		struct sockaddr_in a;
		socklen_t al = sizeof(a);
		getsockname(fd, (struct sockaddr *)&a, &al);
		int info[3] = { getpid(), ntohs(a.sin_port), 0 };
		if (write(p[1], info, 2 * sizeof(int)) < 0)
			_exit(1);
		struct timeval tv = { .tv_sec = 3 };
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
		int cl = accept(fd, NULL, NULL);
		info[2] = cl >= 0;
		if (cl >= 0) {
			static const char said[] = "SERVER PROTOCOL 2\nOK\nOK\n[2026-01-01 00:00:00] PEER_DEAD: Process 7 on node "
						   "127.0.0.1 managing GPU 0 \x1b]0;pwned\x07\n";
			if (write(cl, said, sizeof(said) - 1) < 0)
				_exit(1);
			usleep(500000);
		}
		if (write(p[1], info + 2, sizeof(int)) < 0)
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	waitpid(c, NULL, 0);
	*rd = p[0];
}

static void test_owner_live(void **state)
{
	(void)state;
	int rd, info[3];
	char *text = NULL, err[512];
	char want[256];
	/* someone else listens: not asked, neither by STATUS nor the monitor */
	foreign_server(-1, &rd);
	assert_int_equal(read(rd, info, 2 * sizeof(int)), 2 * sizeof(int));
	assert_int_equal(ras_query("127.0.0.1", (unsigned)info[1], getpid(), 2, 5.0, &text, err, sizeof(err)), -EPERM);
	assert_null(text);
	snprintf(want, sizeof(want), "RAS listener on 127.0.0.1:%d belongs to pid %d (not the job's): not asked", info[1],
		 info[0]);
	assert_string_equal(err, want);
	struct ras_monitor m;
	ras_monitor_init(&m);
	assert_int_equal(ras_monitor_connect(&m, "127.0.0.1", (unsigned)info[1], getpid()), -EPERM);
	assert_string_equal(m.refused, want);
	assert_int_equal(m.fd, -1);
	assert_int_equal(read(rd, info + 2, sizeof(int)), sizeof(int));
	assert_int_equal(info[2], 0); /* no connection ever reached it */
	close(rd);

	/* the job's listener, but the socket that accepted is someone else's
	 * (the listener passed on): the answer is dropped unread */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	foreign_server(fd, &rd);
	assert_int_equal(read(rd, info, 2 * sizeof(int)), 2 * sizeof(int));
	assert_int_equal(ras_query("127.0.0.1", (unsigned)info[1], getpid(), 2, 5.0, &text, err, sizeof(err)), -EPERM);
	snprintf(want, sizeof(want), "the socket that answered on 127.0.0.1:%d belongs to pid %d (not the job's): dropped",
		 info[1], info[0]);
	assert_string_equal(err, want);
	assert_null(text);
	assert_int_equal(read(rd, info + 2, sizeof(int)), sizeof(int));
	close(rd);
	foreign_server(fd, &rd);
	assert_int_equal(read(rd, info, 2 * sizeof(int)), 2 * sizeof(int));
	ras_monitor_init(&m);
	assert_int_equal(ras_monitor_connect(&m, "127.0.0.1", (unsigned)info[1], getpid()), 0);
	struct collect c = { 0 };
	int rc;
	double t0 = mono();
	while ((rc = ras_monitor_poll(&m, mono(), collect_ev, &c)) == 0 && mono() - t0 < 10)
		usleep(10000);
	assert_int_equal(rc, -EPERM);
	assert_int_equal(c.n, 0); /* its PEER_DEAD was never read */
	assert_int_equal(m.lines, 0);
	snprintf(want, sizeof(want), "the socket that answered on 127.0.0.1:%d belongs to pid %d (not the job's): dropped",
		 info[1], info[0]);
	assert_string_equal(m.refused, want);
	assert_int_equal(read(rd, info + 2, sizeof(int)), sizeof(int));
	close(rd);
	close(fd);

	/* a job that is gone: its sockets cannot be told, nothing is asked */
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	foreign_server(-1, &rd);
	assert_int_equal(read(rd, info, 2 * sizeof(int)), 2 * sizeof(int));
	assert_int_equal(ras_query("127.0.0.1", (unsigned)info[1], gone, 2, 5.0, &text, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "cannot tell whose RAS listener is on 127.0.0.1:"));
	assert_non_null(strstr(err, ": not asked"));
	assert_int_equal(read(rd, info + 2, sizeof(int)), sizeof(int));
	assert_int_equal(info[2], 0);
	close(rd);
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
		cmocka_unit_test(test_event_parse),
		cmocka_unit_test(test_monitor_feed),
		cmocka_unit_test(test_monitor_client),
		cmocka_unit_test(test_owner_pure),
		cmocka_unit_test(test_owner_live),
		cmocka_unit_test(test_roles),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
