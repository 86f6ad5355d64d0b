/* Unit tests of probe/proc: /proc/PID/stat with awkward command names, maps,
 * /proc/net/tcp and tcp6 text, and the live machine (this test's own process
 * tree, and a listening socket it opens on 127.0.0.1 found by its inode). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "probe/proc.h"
#include "util/sysroot.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_parse_stat(void **state)
{
	(void)state;
	struct proc_info pi = { 0 };
	const char *t = "4242 (pt_main thread) S 4200 4200 4200 0 -1 4194560 100 0 0 0 1500 250 0 0 20 0 37 0 100 0 0";
	assert_int_equal(proc_parse_stat(t, &pi), 0);
	assert_int_equal(pi.pid, 4242);
	assert_string_equal(pi.comm, "pt_main thread");
	assert_int_equal(pi.state, 'S');
	assert_int_equal(pi.ppid, 4200);
	assert_int_equal(pi.pgid, 4200);
	assert_true(pi.utime == 1500 && pi.stime == 250);
	assert_int_equal(pi.threads, 37);
	/* a ')' inside the name: the last one ends it */
	memset(&pi, 0, sizeof(pi));
	assert_int_equal(proc_parse_stat("7 (a) b) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 0 0", &pi), 0);
	assert_string_equal(pi.comm, "a) b");
	assert_int_equal(pi.state, 'R');
	assert_int_equal(proc_parse_stat("garbage", &pi), -22);
	assert_int_equal(proc_parse_stat("12 (x) S 1", &pi), -22);
	assert_int_equal(proc_parse_stat("(x) S 1 1 1 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 0 0", &pi), -22);
}

static void test_parse_maps(void **state)
{
	(void)state;
	struct proc_info pi = { 0 };
	proc_parse_maps("7f00-7f01 r-xp 00000000 08:01 123 /opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2\n"
			"7f02-7f03 r-xp 00000000 08:01 124 /usr/lib/x86_64-linux-gnu/libcuda.so.580.159.04\n"
			"7f04-7f05 r-xp 00000000 08:01 125 /usr/lib/libcudart_static_fake.a\n"
			"7f06-7f07 rw-p 00000000 00:00 0 [heap]\n",
			&pi);
	assert_true(pi.nccl);
	assert_true(pi.libcuda);
	assert_false(pi.cudart);
	assert_string_equal(pi.nccl_path, "/opt/torch/.venv/lib/python3.12/site-packages/nvidia/nccl/lib/libnccl.so.2");
	memset(&pi, 0, sizeof(pi));
	proc_parse_maps("1-2 r-xp 0 0:0 1 /x/libcudart.so.13\n1-2 r-xp 0 0:0 1 /x/libnccl_net.so\n", &pi);
	assert_true(pi.cudart);
	assert_false(pi.nccl); /* libnccl_net.so is a plugin, not NCCL */
}

static void test_parse_net_tcp(void **state)
{
	(void)state;
	struct tcp_sock s[8];
	const char *v4 =
		"  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 0100007F:7530 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 31337 1 0000000000000000 100 0 0 10 0\n"
		"   1: 0100007F:7530 0100007F:C350 01 00000000:00000000 00:00000000 00000000     0        0 31338 1 0000000000000000 20 4 30 10 -1\n"
		"   2: garbage\n";
	int n = proc_parse_net_tcp(v4, false, s, 8);
	assert_int_equal(n, 2);
	assert_string_equal(s[0].local, "127.0.0.1");
	assert_int_equal(s[0].lport, 30000);
	assert_int_equal(s[0].state, TCP_LISTEN);
	assert_true(s[0].inode == 31337);
	assert_int_equal(s[1].state, TCP_ESTABLISHED);
	assert_int_equal(s[1].rport, 50000);
	const char *v6 =
		"  sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
		"   0: 00000000000000000000000001000000:1F90 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 100 0 0 10 0\n"
		"   1: 0000000000000000FFFF00000200000A:0016 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 778 1 0000000000000000 100 0 0 10 0\n";
	n = proc_parse_net_tcp(v6, true, s, 8);
	assert_int_equal(n, 2);
	assert_string_equal(s[0].local, "::1");
	assert_int_equal(s[0].lport, 8080);
	assert_string_equal(s[1].local, "10.0.0.2");
	assert_int_equal(proc_parse_net_tcp(v4, false, s, 1), 1); /* max respected */
}

static void test_live(void **state)
{
	(void)state;
	assert_int_equal(sysroot_set(NULL), 0);
	struct proc_info me;
	assert_int_equal(proc_read(getpid(), &me), 0);
	assert_int_equal(me.pid, getpid());
	assert_int_equal(me.ppid, getppid());

	/* a child (sleeping) appears in our tree */
	pid_t c = fork();
	if (c == 0) {
		pause();
		_exit(0);
	}
	int pids[64];
	int n = proc_tree(getpid(), pids, 64);
	assert_true(n >= 2);
	assert_int_equal(pids[0], getpid());
	bool found = false;
	for (int i = 1; i < n; i++)
		found |= pids[i] == c;
	assert_true(found);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	assert_int_equal(proc_tree(c, pids, 64), -2); /* gone: -ENOENT */

	/* a listening socket of ours, found by inode in /proc/net/tcp */
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = 0 };
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(listen(fd, 4), 0);
	socklen_t al = sizeof(a);
	getsockname(fd, (struct sockaddr *)&a, &al);
	unsigned long inodes[64];
	int ni = proc_socket_inodes(getpid(), inodes, 64);
	assert_true(ni >= 1);
	static struct tcp_sock socks[4096];
	int ns = proc_net_tcp(socks, 4096);
	assert_true(ns >= 1);
	bool mine = false;
	for (int i = 0; i < ns; i++)
		for (int k = 0; k < ni; k++)
			if (socks[i].inode == inodes[k] && socks[i].state == TCP_LISTEN && socks[i].lport == ntohs(a.sin_port) &&
			    strcmp(socks[i].local, "127.0.0.1") == 0)
				mine = true;
	assert_true(mine);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_parse_maps),
		cmocka_unit_test(test_parse_net_tcp),
		cmocka_unit_test(test_live),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
