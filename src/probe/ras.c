/* NCCL RAS client: one STATUS query over TCP with a deadline, and the reader
 * of its text report (probe/ras.h has the protocol). */
#include "probe/ras.h"

#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "util/clock.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

int ras_addr_parse(const char *addr, char *host, size_t hostsz, unsigned *port)
{
	*port = RAS_DEFAULT_PORT;
	if (!addr || !*addr)
		return str_copy(host, "localhost", hostsz) < hostsz ? 0 : -EINVAL;
	const char *colon;
	if (addr[0] == '[') {
		const char *end = strchr(addr, ']');
		if (!end || (size_t)(end - addr - 1) >= hostsz || end == addr + 1)
			return -EINVAL;
		memcpy(host, addr + 1, (size_t)(end - addr - 1));
		host[end - addr - 1] = '\0';
		colon = end[1] == ':' ? end + 1 : NULL;
		if (end[1] && !colon)
			return -EINVAL;
	} else {
		colon = strrchr(addr, ':');
		if (colon && strchr(addr, ':') != colon)
			colon = NULL; /* a bare IPv6 address */
		size_t n = colon ? (size_t)(colon - addr) : strlen(addr);
		if (n == 0 || n >= hostsz)
			return -EINVAL;
		memcpy(host, addr, n);
		host[n] = '\0';
	}
	if (colon) {
		long long p;
		if (parse_ll(colon + 1, 10, &p) < 0 || p < 1 || p > 65535)
			return -EINVAL;
		*port = (unsigned)p;
	}
	return 0;
}

/* Waits for fd to be ready for events until the deadline; 0 or -ETIMEDOUT. */
static int wait_fd(int fd, short events, double until)
{
	for (;;) {
		double left = until - nd_now_s();
		if (left <= 0)
			return -ETIMEDOUT;
		struct pollfd p = { .fd = fd, .events = events };
		int n = poll(&p, 1, (int)(left * 1000) + 1);
		if (n > 0)
			return 0;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
}

static int connect_one(const char *host, unsigned port, double until, int *fd_out)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
	char ps[16];
	snprintf(ps, sizeof(ps), "%u", port);
	/* numeric only: a name lookup could block past any deadline */
	hints.ai_flags = AI_NUMERICSERV | AI_NUMERICHOST;
	if (getaddrinfo(host, ps, &hints, &ai) != 0 || !ai)
		return -EINVAL;
	int rc = -ECONNREFUSED;
	for (struct addrinfo *a = ai; a; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
		if (fd < 0) {
			rc = -errno;
			continue;
		}
		if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
			*fd_out = fd;
			rc = 0;
			break;
		}
		if (errno == EINPROGRESS && (rc = wait_fd(fd, POLLOUT, until)) == 0) {
			int e = 0;
			socklen_t el = sizeof(e);
			getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el);
			if (e == 0) {
				*fd_out = fd;
				break;
			}
			rc = -e;
		} else if (errno != EINPROGRESS) {
			rc = -errno;
		}
		close(fd);
	}
	freeaddrinfo(ai);
	return rc;
}

/* ---- whose socket -------------------------------------------------------- */

#define OWNER_MAX_SOCKS 16384     /* sockets on the RAS port read (its peers connect to it too) */
#define OWNER_MAX_INODES (1 << 16) /* socket inodes of the job's processes */

/* ip as 16 bytes, IPv4 as ::ffff:a.b.c.d (how a dual-stack socket sees it);
 * false when ip is not a numeric address */
static bool addr_key(const char *ip, unsigned char k[16])
{
	struct in_addr a4;
	if (inet_pton(AF_INET, ip, &a4) == 1) {
		memset(k, 0, 10);
		k[10] = k[11] = 0xff;
		memcpy(k + 12, &a4, 4);
		return true;
	}
	return inet_pton(AF_INET6, ip, k) == 1;
}

static bool key_v4(const unsigned char k[16])
{
	static const unsigned char pre[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	return memcmp(k, pre, 12) == 0;
}

static bool in_job(unsigned long inode, const unsigned long *job, int njob)
{
	for (int i = 0; i < njob && inode; i++)
		if (job[i] == inode)
			return true;
	return false;
}

enum ras_owner ras_listener_owner(const struct tcp_sock *socks, int n, const char *ip, unsigned port,
				  const unsigned long *job, int njob, int *other)
{
	unsigned char want[16], have[16];
	static const unsigned char any6[16] = { 0 };
	static const unsigned char any4[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0 };
	*other = -1;
	if (!addr_key(ip, want))
		return RAS_OWNER_NONE;
	/* the kernel gives a connection to a listener bound to the address
	 * itself when there is one, else to one bound to the wildcard */
	for (int pass = 0; pass < 2; pass++) {
		int found = 0;
		for (int i = 0; i < n; i++) {
			const struct tcp_sock *s = &socks[i];
			if (s->state != TCP_LISTEN || s->lport != port || !addr_key(s->local, have))
				continue;
			bool match = pass == 0 ? memcmp(have, want, 16) == 0
					       : memcmp(have, any6, 16) == 0 || (key_v4(want) && memcmp(have, any4, 16) == 0);
			if (!match)
				continue;
			found++;
			if (!in_job(s->inode, job, njob)) {
				*other = i;
				return RAS_OWNER_OTHER;
			}
		}
		if (found)
			return RAS_OWNER_JOB;
	}
	return RAS_OWNER_NONE;
}

enum ras_owner ras_conn_owner(const struct tcp_sock *socks, int n, const char *sip, unsigned sport, const char *cip,
			      unsigned cport, const unsigned long *job, int njob, int *other)
{
	unsigned char s_want[16], c_want[16], l[16], r[16];
	*other = -1;
	if (!addr_key(sip, s_want) || !addr_key(cip, c_want))
		return RAS_OWNER_NONE;
	for (int i = 0; i < n; i++) {
		const struct tcp_sock *s = &socks[i];
		if (s->state == TCP_LISTEN || s->lport != sport || s->rport != cport || !addr_key(s->local, l) ||
		    !addr_key(s->remote, r) || memcmp(l, s_want, 16) != 0 || memcmp(r, c_want, 16) != 0)
			continue;
		if (s->inode == 0)
			return RAS_OWNER_NONE; /* not accepted yet, or closing */
		if (in_job(s->inode, job, njob))
			return RAS_OWNER_JOB;
		*other = i;
		return RAS_OWNER_OTHER;
	}
	return RAS_OWNER_NONE;
}

/* The socket inodes held by job_pid and its descendants (heap, *out);
 * count, or -errno when the job cannot be read. */
static int job_inodes(int job_pid, unsigned long **out)
{
	*out = NULL;
	if (job_pid <= 0)
		return -ESRCH;
	int pids[512];
	int np = proc_tree(job_pid, pids, 512);
	if (np < 0)
		return np;
	unsigned long *ino = xmalloc(OWNER_MAX_INODES * sizeof(*ino));
	int n = 0;
	for (int i = 0; i < np && n < OWNER_MAX_INODES; i++) {
		int k = proc_socket_inodes(pids[i], ino + n, OWNER_MAX_INODES - n);
		if (k > 0)
			n += k;
	}
	*out = ino;
	return n;
}

/* The numeric address and port of a socket's end (peer or ours). */
static int sock_end(int fd, bool peer, char *ip, size_t ipsz, unsigned *port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if ((peer ? getpeername(fd, (struct sockaddr *)&ss, &sl) : getsockname(fd, (struct sockaddr *)&ss, &sl)) < 0)
		return -errno;
	const void *a = ss.ss_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
						 : (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
	*port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
					       : ((struct sockaddr_in *)&ss)->sin_port);
	return inet_ntop(ss.ss_family, a, ip, (socklen_t)ipsz) ? 0 : -errno;
}

int ras_check_owner(int job_pid, const char *ip, unsigned port, int fd, char *why, size_t whysz)
{
	char sip[INET6_ADDRSTRLEN] = "", cip[INET6_ADDRSTRLEN] = "";
	unsigned sport = port, cport = 0;
	unsigned char k[16];
	const char *what = fd < 0 ? "RAS listener" : "the socket that answered";
	const char *verdict = fd < 0 ? "not asked" : "dropped";
	why[0] = '\0';
	if (fd >= 0) {
		int e = sock_end(fd, true, sip, sizeof(sip), &sport);
		if (e == 0)
			e = sock_end(fd, false, cip, sizeof(cip), &cport);
		if (e < 0) {
			snprintf(why, whysz, "cannot tell whose socket answered on %s:%u (%s): %s", ip, port, strerror(-e),
				 verdict);
			return -EPERM;
		}
	} else {
		if (!addr_key(ip, k))
			return -EINVAL;
		str_copy(sip, ip, sizeof(sip));
	}
	struct tcp_sock *socks = xcalloc(OWNER_MAX_SOCKS, sizeof(*socks));
	int ns = proc_net_tcp_port(sport, socks, OWNER_MAX_SOCKS), other = -1, rc = 0, njob = 0;
	unsigned long *job = NULL;
	enum ras_owner o = RAS_OWNER_NONE;
	if (ns < 0) {
		snprintf(why, whysz, "cannot tell whose %s is on %s:%u: /proc/net/tcp: %s: %s", what, sip, sport,
			 strerror(-ns), verdict);
		rc = -EPERM;
	} else if (fd < 0 && ras_listener_owner(socks, ns, sip, sport, NULL, 0, &other) == RAS_OWNER_NONE) {
		o = RAS_OWNER_NONE; /* nobody listens: the job's processes need not be read */
	} else if ((njob = job_inodes(job_pid, &job)) < 0) {
		snprintf(why, whysz, "cannot tell whose %s is on %s:%u: the job's processes cannot be read (%s): %s",
			 what, sip, sport, strerror(-njob), verdict);
		rc = -EPERM;
	} else {
		o = fd < 0 ? ras_listener_owner(socks, ns, sip, sport, job, njob, &other)
			   : ras_conn_owner(socks, ns, sip, sport, cip, cport, job, njob, &other);
	}
	if (rc == 0 && o == RAS_OWNER_OTHER) {
		int pid = proc_inode_pid(socks[other].inode);
		if (pid > 0)
			snprintf(why, whysz, "%s on %s:%u belongs to pid %d (not the job's): %s", what, sip, sport, pid,
				 verdict);
		else
			snprintf(why, whysz, "%s on %s:%u belongs to uid %u, no process of the job: %s", what, sip, sport,
				 socks[other].uid, verdict);
		rc = -EPERM;
	} else if (rc == 0 && o == RAS_OWNER_NONE) {
		if (fd < 0) {
			rc = -ENOENT;
		} else {
			snprintf(why, whysz, "cannot tell whose socket answered on %s:%u (it is not in /proc/net/tcp: "
				 "closed at once?): %s", sip, sport, verdict);
			rc = -EPERM;
		}
	}
	free(socks);
	free(job);
	return rc;
}

/* Connects to one numeric address when its listener is the job's: 0,
 * -ECONNREFUSED (nobody listens there), -EPERM (why says whose it is). */
static int connect_checked(const char *ip, unsigned port, int job_pid, double until, int *fd_out, char *why,
			   size_t whysz)
{
	int rc = ras_check_owner(job_pid, ip, port, -1, why, whysz);
	if (rc == -ENOENT)
		return -ECONNREFUSED;
	if (rc < 0)
		return rc;
	return connect_one(ip, port, until, fd_out);
}

/* "localhost" (NCCL's default) is tried as 127.0.0.1, then ::1: NCCL's own
 * lookup of the name may have bound either */
static int connect_to(const char *host, unsigned port, int job_pid, double until, int *fd_out, char *why,
		      size_t whysz)
{
	if (strcmp(host, "localhost") != 0)
		return connect_checked(host, port, job_pid, until, fd_out, why, whysz);
	int rc = connect_checked("127.0.0.1", port, job_pid, until, fd_out, why, whysz);
	if (rc < 0 && rc != -ETIMEDOUT && rc != -EPERM) {
		char why6[256];
		int r6 = connect_checked("::1", port, job_pid, until, fd_out, why6, sizeof(why6));
		if (r6 == 0)
			return 0;
		if (r6 == -EPERM) {
			str_copy(why, why6, whysz);
			return r6;
		}
	}
	return rc; /* the IPv4 error says it best */
}

static int send_all(int fd, const char *s, double until)
{
	size_t n = strlen(s), done = 0;
	while (done < n) {
		ssize_t w = send(fd, s + done, n - done, MSG_NOSIGNAL);
		if (w > 0) {
			done += (size_t)w;
			continue;
		}
		if (w < 0 && errno != EAGAIN && errno != EINTR)
			return -errno;
		int rc = wait_fd(fd, POLLOUT, until);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Reads into sb until a newline (one_line) or the end of the stream; the
 * cap of sb bounds it. 0, -ETIMEDOUT, or -errno. */
static int recv_until(int fd, struct strbuf *sb, bool one_line, double until)
{
	char buf[4096];
	for (;;) {
		if (one_line && sb->len && sb->buf[sb->len - 1] == '\n')
			return 0;
		ssize_t r = recv(fd, buf, one_line ? 1 : sizeof(buf), 0);
		if (r == 0)
			return one_line ? -EPROTO : 0;
		if (r > 0) {
			if (strbuf_add(sb, buf, (size_t)r) < 0)
				return 0; /* the cap: what we have is enough */
			continue;
		}
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		int rc = wait_fd(fd, POLLIN, until);
		if (rc < 0)
			return rc;
	}
}

int ras_query(const char *host, unsigned port, int job_pid, int nccl_timeout, double deadline, char **out, char *err,
	      size_t errsz)
{
	*out = NULL;
	double until = nd_now_s() + deadline;
	char why[256] = "";
	int fd = -1, rc = connect_to(host, port, job_pid, until, &fd, why, sizeof(why));
	if (rc == -EPERM) {
		str_copy(err, why, errsz);
		return rc;
	}
	if (rc < 0) {
		snprintf(err, errsz, "cannot connect to %s:%u: %s", host, port,
			 rc == -EINVAL ? "not a numeric address" : strerror(-rc));
		return rc;
	}
	struct strbuf sb;
	strbuf_init(&sb, RAS_REPLY_MAX);
	char cmd[64];
	const char *step = "the handshake";
	snprintf(cmd, sizeof(cmd), "CLIENT PROTOCOL %d\n", RAS_PROTOCOL);
	if ((rc = send_all(fd, cmd, until)) == 0 && (rc = recv_until(fd, &sb, true, until)) == 0) {
		/* it answered, so it accepted: the socket that did must be the job's */
		if (ras_check_owner(job_pid, host, port, fd, why, sizeof(why)) < 0)
			rc = -EPERM;
		else if (strncasecmp(strbuf_str(&sb), "SERVER PROTOCOL ", 16) != 0)
			rc = -EPROTO;
	}
	if (rc == 0) {
		step = "TIMEOUT";
		strbuf_reset(&sb);
		snprintf(cmd, sizeof(cmd), "TIMEOUT %d\n", nccl_timeout);
		if ((rc = send_all(fd, cmd, until)) == 0 && (rc = recv_until(fd, &sb, true, until)) == 0 &&
		    strncasecmp(strbuf_str(&sb), "OK", 2) != 0)
			rc = -EPROTO;
	}
	if (rc == 0) {
		step = "STATUS";
		strbuf_reset(&sb);
		if ((rc = send_all(fd, "STATUS\n", until)) == 0)
			rc = recv_until(fd, &sb, false, until);
	}
	close(fd);
	if (rc < 0) {
		char first[80];
		str_copy(first, strbuf_str(&sb), sizeof(first));
		first[strcspn(first, "\r\n")] = '\0';
		if (rc == -EPERM)
			str_copy(err, why, errsz);
		else if (rc == -EPROTO)
			snprintf(err, errsz, "%s:%u does not speak NCCL's RAS protocol (%s answered '%s')", host, port, step,
				 first);
		else
			snprintf(err, errsz, "%s:%u: %s: %s", host, port, step,
				 rc == -ETIMEDOUT ? "no complete answer in time" : strerror(-rc));
		strbuf_release(&sb);
		return rc;
	}
	*out = strbuf_detach(&sb);
	return 0;
}

/* ---- the report ---------------------------------------------------------- */

static bool blank(const char *s)
{
	return s[strspn(s, " \t")] == '\0';
}

static void add_status(struct ras_summary *s, const char *st)
{
	if (strstr(s->status, st))
		return;
	size_t len = strlen(s->status);
	str_appendf(s->status, sizeof(s->status), &len, "%s%s", len ? "," : "", st);
}

/* "    0         1         1         2         2         2   RUNNING      OK" */
static void table_row(struct ras_summary *s, const char *line)
{
	int g, comms, nodes, ranks, ingroup;
	char per_node[16], status[16], errors[32];
	if (sscanf(line, "%d %d %d %15s %d %d %15s %31s", &g, &comms, &nodes, per_node, &ranks, &ingroup, status,
		   errors) != 8)
		return;
	s->ncomm_groups++;
	add_status(s, status);
	s->mismatch |= strstr(errors, "MISMATCH") != NULL;
	s->error |= strstr(errors, "ERROR") != NULL;
}

int ras_parse(const char *text, struct ras_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->dead = -1;
	bool in_table = false, in_errors = false, any = false;
	const char *cur = text;
	char line[512];
	bool fits;
	while (text_next_line(&cur, line, sizeof(line), &fits)) {
		line[strcspn(line, "\r")] = '\0';
		if (str_startswith(line, "NCCL version ")) {
			any = true;
			s->have_version = true;
			sscanf(line + 13, "%47s", s->version);
			continue;
		}
		if (str_startswith(line, "Group ") && strstr(line, "Status")) {
			any = in_table = true;
			continue;
		}
		if (in_table) {
			if (blank(line) || str_startswith(line, "Errors")) {
				in_table = false;
			} else {
				if (!strstr(line, "in group"))
					table_row(s, line);
				continue;
			}
		}
		if (str_startswith(line, "Errors") || str_startswith(line, "Warnings")) {
			any = in_errors = true;
			continue;
		}
		if (!in_errors || blank(line) || line[strspn(line, "=")] == '\0')
			continue;
		int n;
		if (strstr(line, "considered dead") && sscanf(line, " %d job process", &n) == 1)
			s->dead = n;
		else if (sscanf(line, " Missing communicator data from %d job process", &n) == 1)
			s->missing = n;
		if (strncmp(line, "MISMATCH", 8) == 0 || strstr(line, ") MISMATCH"))
			s->mismatch = true;
		if (strncmp(line, "ERROR", 5) == 0 || strstr(line, ") ERROR"))
			s->error = true;
		s->nlines_total++;
		if (s->nlines < RAS_MAX_LINES)
			str_copy(s->lines[s->nlines++], line, sizeof(s->lines[0]));
	}
	if (in_errors && s->dead < 0)
		s->dead = 0;
	return any ? 0 : -EINVAL;
}
