/* NCCL RAS client: one STATUS query over TCP with a deadline, and the reader
 * of its text report (probe/ras.h has the protocol). */
#include "probe/ras.h"

#include "util/strbuf.h"
#include "util/text.h"

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

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

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
		double left = until - now_s();
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

/* "localhost" (NCCL's default) is tried as 127.0.0.1, then ::1: NCCL's own
 * lookup of the name may have bound either */
static int connect_to(const char *host, unsigned port, double until, int *fd_out)
{
	if (strcmp(host, "localhost") != 0)
		return connect_one(host, port, until, fd_out);
	int rc = connect_one("127.0.0.1", port, until, fd_out);
	if (rc < 0 && rc != -ETIMEDOUT && connect_one("::1", port, until, fd_out) == 0)
		return 0;
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

int ras_query(const char *host, unsigned port, int nccl_timeout, double deadline, char **out, char *err,
	      size_t errsz)
{
	*out = NULL;
	double until = now_s() + deadline;
	int fd = -1, rc = connect_to(host, port, until, &fd);
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
	if ((rc = send_all(fd, cmd, until)) == 0 && (rc = recv_until(fd, &sb, true, until)) == 0 &&
	    strncasecmp(strbuf_str(&sb), "SERVER PROTOCOL ", 16) != 0)
		rc = -EPROTO;
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
		if (rc == -EPROTO)
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
