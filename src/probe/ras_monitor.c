/* NCCL RAS MONITOR client (NCCL 2.29+): a non-blocking connection that the
 * watch loop moves on each tick, the pure splitter of its byte stream into
 * the handshake's answers and event lines, and the event line parser
 * (probe/ras.h has the protocol and where it was read). */
#include "probe/ras.h"

#include "util/text.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* ---- the event line --------------------------------------------------- */

static const struct {
	const char *name;
	enum ras_ev_kind kind;
} ev_kinds[] = {
	{ "PEER_DEAD", RAS_EV_DEAD },
	{ "PEER_TIMEOUT_DEAD", RAS_EV_DEAD },
	{ "PEER_NEW", RAS_EV_NEW },
	{ "PEER_RECOVERED", RAS_EV_RECOVERED },
	{ "PEER_UNRESPONSIVE", RAS_EV_TROUBLE },
	{ "PEER_SEND_STUCK", RAS_EV_TROUBLE },
	{ "PEER_KEEPALIVE_TIMEOUT", RAS_EV_TROUBLE },
	{ "PEER_INIT_TIMEOUT", RAS_EV_TROUBLE },
	{ "PEER_DISCONNECTED", RAS_EV_TROUBLE },
};

const char *ras_ev_kind_name(enum ras_ev_kind k)
{
	switch (k) {
	case RAS_EV_NEW: return "new";
	case RAS_EV_DEAD: return "dead";
	case RAS_EV_TROUBLE: return "trouble";
	case RAS_EV_RECOVERED: return "recovered";
	default: return "other";
	}
}

/* Copies at most n bytes of s into dst (size dstsz), cut to fit. */
static void copy_n(char *dst, size_t dstsz, const char *s, size_t n)
{
	if (n >= dstsz)
		n = dstsz - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* "Process PID on node HOST managing GPU[s] LIST[ (NVML LIST)]": fills pid,
 * host and gpus; returns where the details begin, NULL when p is not one. */
static const char *parse_process(const char *p, struct ras_event *ev)
{
	long long pid;
	char num[24];
	if (!str_startswith(p, "Process "))
		return NULL;
	p += 8;
	size_t n = strspn(p, "0123456789");
	if (n == 0 || n >= sizeof(num) || !str_startswith(p + n, " on node "))
		return NULL;
	copy_n(num, sizeof(num), p, n);
	if (parse_ll(num, 10, &pid) < 0 || pid < 0 || pid > 0x7fffffff)
		return NULL;
	p += n + 9;
	const char *m = strstr(p, " managing GPU");
	if (!m || m == p)
		return NULL;
	copy_n(ev->host, sizeof(ev->host), p, (size_t)(m - p));
	p = m + 13;
	if (*p == 's')
		p++;
	if (*p == ' ')
		p++;
	const char *g = p;
	p += strspn(p, "0123456789,");
	if (str_startswith(p, " (NVML ")) {
		const char *close = strchr(p, ')');
		if (close)
			p = close + 1;
	}
	copy_n(ev->gpus, sizeof(ev->gpus), g, (size_t)(p - g));
	ev->pid = (long)pid;
	return p;
}

int ras_event_parse(const char *line, struct ras_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->pid = -1;
	const char *p = line;
	const char *end = *p == '[' ? strchr(p, ']') : NULL;
	if (!end || end == p + 1)
		return -EINVAL;
	copy_n(ev->time, sizeof(ev->time), p + 1, (size_t)(end - p - 1));
	p = end + 1;
	while (*p == ' ')
		p++;
	size_t n = 0;
	while (isupper((unsigned char)p[n]) || isdigit((unsigned char)p[n]) || p[n] == '_')
		n++;
	if (n < 2 || n >= sizeof(ev->type) || p[n] != ':' || !isupper((unsigned char)p[0]))
		return -EINVAL;
	copy_n(ev->type, sizeof(ev->type), p, n);
	p += n + 1;
	while (*p == ' ')
		p++;
	for (size_t i = 0; i < sizeof(ev_kinds) / sizeof(ev_kinds[0]); i++)
		if (strcmp(ev->type, ev_kinds[i].name) == 0)
			ev->kind = ev_kinds[i].kind;
	const char *rest = parse_process(p, ev);
	if (!rest) {
		/* an address "HOST<PORT>" (NCCL's ncclSocketToString), else details only */
		const char *lt = strchr(p, '<'), *sp = strchr(p, ' ');
		if (lt && lt > p && (!sp || lt < sp)) {
			const char *gt = strchr(lt, '>');
			if (gt && gt - lt > 1 && strspn(lt + 1, "0123456789") == (size_t)(gt - lt - 1)) {
				copy_n(ev->addr, sizeof(ev->addr), p, (size_t)(gt + 1 - p));
				copy_n(ev->host, sizeof(ev->host), p, (size_t)(lt - p));
				p = gt + 1;
			}
		}
		rest = p;
	}
	while (*rest == ' ')
		rest++;
	str_copy(ev->details, rest, sizeof(ev->details));
	str_rtrim(ev->details);
	return 0;
}

/* ---- the stream (pure) ------------------------------------------------ */

void ras_monitor_init(struct ras_monitor *m)
{
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

static void queue(struct ras_monitor *m, const char *cmd)
{
	m->outlen = str_copy(m->out, cmd, sizeof(m->out));
	m->outoff = 0;
}

/* One complete line (its newline and a CR removed). */
static int on_line(struct ras_monitor *m, char *line, ras_event_fn fn, void *ctx)
{
	size_t len = strlen(line);
	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	m->lines++;
	if (m->state == RAS_MON_HELLO || m->state == RAS_MON_SUBSCRIBE) {
		str_copy(m->answer, line, sizeof(m->answer));
		if (m->state == RAS_MON_HELLO) {
			if (strncasecmp(line, "SERVER PROTOCOL ", 16) != 0)
				return -EPROTO;
			char cmd[64];
			snprintf(cmd, sizeof(cmd), "MONITOR %s\n", RAS_MON_GROUPS);
			queue(m, cmd);
			m->state = RAS_MON_SUBSCRIBE;
			return 0;
		}
		if (strncasecmp(line, "OK", 2) == 0 && line[2 + strspn(line + 2, " ")] == '\0') {
			m->state = RAS_MON_FOLLOW;
			return 0;
		}
		return strncasecmp(line, "ERROR", 5) == 0 ? -EOPNOTSUPP : -EPROTO;
	}
	if (m->state != RAS_MON_FOLLOW || line[strspn(line, " \t")] == '\0')
		return 0;
	struct ras_event ev;
	if (ras_event_parse(line, &ev) < 0) {
		m->bad++;
		return 0;
	}
	m->events++;
	if (fn)
		fn(ctx, &ev);
	return 0;
}

int ras_monitor_feed(struct ras_monitor *m, const char *data, size_t n, ras_event_fn fn, void *ctx)
{
	m->bytes += n;
	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) : n;
		if (!m->overlong) {
			size_t room = sizeof(m->line) - 1 - m->len;
			size_t add = take < room ? take : room;
			memcpy(m->line + m->len, data, add);
			m->len += add;
			if (add < take) {
				m->overlong = true;
				m->cut++;
			}
		}
		if (!nl)
			return 0;
		m->line[m->len] = '\0';
		bool nul = strlen(m->line) != m->len;
		m->len = 0;
		m->overlong = false;
		int rc = 0;
		if (nul && m->state == RAS_MON_FOLLOW) /* a NUL byte: no event of NCCL's */
			m->bad++;
		else
			rc = on_line(m, m->line, fn, ctx);
		if (rc < 0)
			return rc;
		data = nl + 1;
		n -= take + 1;
	}
	return 0;
}

/* ---- the connection --------------------------------------------------- */

void ras_monitor_close(struct ras_monitor *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
	m->state = RAS_MON_IDLE;
	m->len = m->outlen = m->outoff = 0;
	m->overlong = false;
}

/* Starts connecting to one numeric address. 0 (connected or under way) or -errno. */
static int start_one(struct ras_monitor *m, const char *host)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_NUMERICSERV | AI_NUMERICHOST }, *ai = NULL;
	char ps[16];
	snprintf(ps, sizeof(ps), "%u", m->port);
	if (getaddrinfo(host, ps, &hints, &ai) != 0 || !ai)
		return -EINVAL;
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
	int rc = fd < 0 ? -errno : 0;
	if (fd >= 0) {
		int one = 1;
		setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
		if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0 && errno != EINPROGRESS) {
			rc = -errno;
			close(fd);
		} else {
			m->fd = fd;
		}
	}
	freeaddrinfo(ai);
	return rc;
}

/* The address to connect to when its listener is the job's: 0 with *ip
 * set, -ECONNREFUSED (nobody listens), -EPERM (m->refused says whose it is),
 * -EINVAL. "localhost" is 127.0.0.1, else ::1. */
static int checked_address(struct ras_monitor *m, const char *host, const char **ip)
{
	bool local = strcmp(host, "localhost") == 0;
	*ip = local ? "127.0.0.1" : host;
	int rc = ras_check_owner(m->job_pid, *ip, m->port, -1, m->refused, sizeof(m->refused));
	if (rc == -ENOENT && local) {
		*ip = "::1";
		rc = ras_check_owner(m->job_pid, *ip, m->port, -1, m->refused, sizeof(m->refused));
	}
	return rc == -ENOENT ? -ECONNREFUSED : rc;
}

int ras_monitor_connect(struct ras_monitor *m, const char *host, unsigned port, int job_pid)
{
	ras_monitor_close(m);
	str_copy(m->host, host, sizeof(m->host));
	m->port = port;
	m->answer[0] = m->refused[0] = '\0';
	m->job_pid = job_pid;
	m->owner_checked = false;
	bool local = strcmp(host, "localhost") == 0;
	int rc;
	if (job_pid > 0) {
		/* only a listener the job holds is asked; the one checked is the one tried */
		const char *ip;
		if ((rc = checked_address(m, host, &ip)) < 0)
			return rc;
		m->v6_next = false;
		rc = start_one(m, ip);
	} else {
		m->v6_next = local;
		rc = start_one(m, local ? "127.0.0.1" : host);
		if (rc < 0 && local) {
			m->v6_next = false;
			rc = start_one(m, "::1");
		}
	}
	if (rc < 0)
		return rc;
	m->state = RAS_MON_CONNECTING;
	m->t_step = -1; /* set by the first poll */
	return 0;
}

/* The connect finished (or failed): 0, 1 still under way, or -errno. */
static int connect_done(struct ras_monitor *m, double now)
{
	if (m->t_step < 0)
		m->t_step = now;
	struct pollfd p = { .fd = m->fd, .events = POLLOUT };
	if (poll(&p, 1, 0) == 0)
		return now - m->t_step > RAS_MON_CONNECT_S ? -ETIMEDOUT : 1;
	int e = 0;
	socklen_t el = sizeof(e);
	if (getsockopt(m->fd, SOL_SOCKET, SO_ERROR, &e, &el) < 0)
		e = errno;
	if (e == 0)
		return 0;
	close(m->fd);
	m->fd = -1;
	if (m->v6_next) { /* NCCL's own lookup of "localhost" may have bound ::1 */
		m->v6_next = false;
		if (start_one(m, "::1") == 0) {
			m->t_step = now;
			return 1;
		}
	}
	return -e;
}

static int flush_out(struct ras_monitor *m)
{
	while (m->outoff < m->outlen) {
		ssize_t w = send(m->fd, m->out + m->outoff, m->outlen - m->outoff, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w > 0) {
			m->outoff += (size_t)w;
			continue;
		}
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			return 0;
		return w < 0 ? -errno : -EPIPE;
	}
	m->outlen = m->outoff = 0;
	return 0;
}

static int poll_step(struct ras_monitor *m, double now, ras_event_fn fn, void *ctx)
{
	if (m->state == RAS_MON_CONNECTING) {
		int rc = connect_done(m, now);
		if (rc != 0)
			return rc > 0 ? 0 : rc;
		char cmd[64];
		snprintf(cmd, sizeof(cmd), "CLIENT PROTOCOL %d\n", RAS_PROTOCOL);
		queue(m, cmd);
		m->state = RAS_MON_HELLO;
		m->t_step = now;
	}
	enum ras_mon_state before = m->state;
	int rc = flush_out(m);
	if (rc < 0)
		return rc;
	char buf[4096];
	for (size_t got = 0; got < RAS_MON_READ_MAX;) {
		ssize_t r = recv(m->fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r == 0)
			return -ECONNRESET;
		if (r < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			if (errno == EINTR)
				continue;
			return -errno;
		}
		got += (size_t)r;
		if (m->job_pid > 0 && !m->owner_checked) {
			/* it sent something, so it accepted: before any of it is
			 * read, the socket that did must be the job's */
			if (ras_check_owner(m->job_pid, m->host, m->port, m->fd, m->refused, sizeof(m->refused)) < 0)
				return -EPERM;
			m->owner_checked = true;
		}
		if ((rc = ras_monitor_feed(m, buf, (size_t)r, fn, ctx)) < 0)
			return rc;
		if ((rc = flush_out(m)) < 0) /* MONITOR, queued by the answer */
			return rc;
	}
	if (m->state != before)
		m->t_step = now;
	if ((m->state == RAS_MON_HELLO || m->state == RAS_MON_SUBSCRIBE) && now - m->t_step > RAS_MON_ANSWER_S)
		return -ETIMEDOUT;
	return 0;
}

int ras_monitor_poll(struct ras_monitor *m, double now, ras_event_fn fn, void *ctx)
{
	if (m->fd < 0 || m->state == RAS_MON_IDLE)
		return -ENOTCONN;
	int rc = poll_step(m, now, fn, ctx);
	if (rc < 0)
		ras_monitor_close(m);
	return rc;
}

bool ras_host_is_local(const char *ip)
{
	unsigned char want[16], have[16];
	int fam = strchr(ip, ':') ? AF_INET6 : AF_INET;
	if (inet_pton(fam, ip, want) != 1)
		return false;
	if ((fam == AF_INET && want[0] == 127) || (fam == AF_INET6 && IN6_IS_ADDR_LOOPBACK((struct in6_addr *)want)))
		return true;
	struct ifaddrs *ifs = NULL;
	if (getifaddrs(&ifs) < 0)
		return false;
	bool found = false;
	for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != fam)
			continue;
		if (fam == AF_INET)
			memcpy(have, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, 4);
		else
			memcpy(have, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, 16);
		found = memcmp(want, have, fam == AF_INET ? 4 : 16) == 0;
	}
	freeifaddrs(ifs);
	return found;
}
