/* The TCP rendezvous (run/rendezvous.h): rank 0 a star's centre, framed
 * messages, poll with deadlines everywhere. A frame is 16 bytes of header
 * ("NDRV", type, 3 zero bytes, sequence number and length, big-endian) and
 * the payload. HELLO carries {"rank","size","job","node"} as JSON, WELCOME
 * every rank's node (a JSON array), DATA an operation's message, ABORT rank
 * 0's reason for giving up. The sequence number is the operation's: a frame
 * of another operation is a protocol error, never taken for this one's. */
#include "run/rendezvous.h"
#include "util/clock.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

enum { T_HELLO = 1, T_WELCOME = 2, T_DATA = 3, T_ABORT = 4 };
#define HDR 16
#define HELLO_MAX 4096
/* a connection that says nothing for this long is not one of our ranks */
#define SILENT_S 10.0
/* connections rank 0 keeps open at once beyond the ranks' own */
#define EXTRA_CONNS 32

struct rdv_peer {
	int fd;
	int rank;              /* -1: not joined yet */
	double since;
	unsigned char hdr[HDR];
	size_t hhave;
	char *body;
	size_t blen, bhave;
	int type;
	unsigned seq;
};

__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t errsz, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return rc;
}

static void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24), p[1] = (unsigned char)(v >> 16), p[2] = (unsigned char)(v >> 8), p[3] = (unsigned char)v;
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static bool is_absent(const struct rdv *r, int i)
{
	return r->absent && r->absent[i];
}

static int remaining_ms(double deadline)
{
	double left = deadline - nd_now_s();
	return left <= 0 ? 0 : left > 1e6 ? 1000000000 : (int)(left * 1000) + 1;
}

static void peer_reset(struct rdv_peer *c)
{
	free(c->body);
	c->body = NULL;
	c->hhave = c->blen = c->bhave = 0;
}

static void peer_close(struct rdv_peer *c)
{
	if (c->fd >= 0)
		close(c->fd);
	peer_reset(c);
	c->fd = -1;
	c->rank = -1;
}

/* Sends one frame within the deadline: 0, -ETIMEDOUT, -EPIPE. */
static int send_frame(int fd, int type, unsigned seq, const void *data, size_t len, double deadline)
{
	unsigned char h[HDR] = { 'N', 'D', 'R', 'V', (unsigned char)type };
	put32(h + 8, seq);
	put32(h + 12, (uint32_t)len);
	const struct {
		const void *p;
		size_t n;
	} parts[2] = { { h, HDR }, { data, len } };
	for (int k = 0; k < 2; k++) {
		size_t off = 0;
		while (off < parts[k].n) {
			ssize_t w = send(fd, (const char *)parts[k].p + off, parts[k].n - off, MSG_NOSIGNAL);
			if (w > 0) {
				off += (size_t)w;
				continue;
			}
			if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				return -EPIPE;
			struct pollfd pf = { .fd = fd, .events = POLLOUT };
			int ms = remaining_ms(deadline);
			if (ms == 0 || (poll(&pf, 1, ms) == 0 && remaining_ms(deadline) == 0))
				return -ETIMEDOUT;
		}
	}
	return 0;
}

/* Reads what is there: 1 a whole frame is in c, 0 not yet, -EPIPE the peer
 * closed, -EPROTO not our frame or longer than max. */
static int read_frame(struct rdv_peer *c, size_t max)
{
	for (;;) {
		if (c->hhave == HDR && c->bhave == c->blen)
			return 1;
		char *dst;
		size_t want;
		if (c->hhave < HDR) {
			dst = (char *)c->hdr + c->hhave;
			want = HDR - c->hhave;
		} else {
			dst = c->body + c->bhave;
			want = c->blen - c->bhave;
		}
		ssize_t n = recv(c->fd, dst, want, 0);
		if (n == 0)
			return -EPIPE;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -EPIPE;
		if (c->hhave < HDR) {
			c->hhave += (size_t)n;
			if (c->hhave < HDR)
				continue;
			if (memcmp(c->hdr, "NDRV", 4) != 0 || c->hdr[4] < T_HELLO || c->hdr[4] > T_ABORT || c->hdr[5] ||
			    c->hdr[6] || c->hdr[7] || get32(c->hdr + 12) > max)
				return -EPROTO;
			c->type = c->hdr[4];
			c->seq = get32(c->hdr + 8);
			c->blen = get32(c->hdr + 12);
			c->bhave = 0;
			c->body = xmalloc(c->blen + 1);
		} else {
			c->bhave += (size_t)n;
		}
		if (c->hhave == HDR && c->bhave == c->blen)
			c->body[c->blen] = 0;
	}
}

static int nonblocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	return fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ? -errno : 0;
}

static bool node_ok(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	return n > 0 && n < RDV_NODE_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == n;
}

void rdv_rank_node(const struct rdv *r, int i, char *buf, size_t bufsz)
{
	if (r->node && r->node[i][0]) {
		snprintf(buf, bufsz, "%s", r->node[i]);
		return;
	}
	int per = r->p.local_size;
	if (per <= 0) {
		buf[0] = 0;
		return;
	}
	size_t idx = (size_t)(i / per);
	if (r->p.nodes && idx < r->p.nnodes)
		snprintf(buf, bufsz, "%s", r->p.nodes[idx]);
	else
		snprintf(buf, bufsz, "#%zu", idx);
}

/* A process's ranks into buf at *n: its own, or with p.ranks_each G the G
 * ranks it carries (process p: p x G to p x G + G - 1) */
static void add_ranks(const struct rdv *r, int i, bool first, char *buf, size_t bufsz, size_t *n)
{
	int g = r->p.ranks_each > 1 ? r->p.ranks_each : 1;
	for (int k = 0; k < g && *n + 1 < bufsz; k++)
		*n += (size_t)snprintf(buf + *n, bufsz - *n, "%s%d", first && k == 0 ? "" : ",", i * g + k);
}

void rdv_name_ranks(const struct rdv *r, const char *missing, char *buf, size_t bufsz)
{
	size_t n = 0;
	buf[0] = 0;
	bool *done = xcalloc((size_t)r->size, sizeof(bool)), each = r->p.ranks_each > 1;
	for (int i = 0; i < r->size && n + 1 < bufsz; i++) {
		if (!missing[i] || done[i])
			continue;
		char node[RDV_NODE_MAX], other[RDV_NODE_MAX], procs[256];
		size_t np = (size_t)snprintf(procs, sizeof(procs), "%d", i);
		int nprocs = 1;
		rdv_rank_node(r, i, node, sizeof(node));
		if (n && n + 2 < bufsz)
			n += (size_t)snprintf(buf + n, bufsz - n, ", ");
		add_ranks(r, i, true, buf, bufsz, &n);
		for (int k = i + 1; k < r->size && n + 1 < bufsz; k++) {
			if (!missing[k] || done[k])
				continue;
			rdv_rank_node(r, k, other, sizeof(other));
			if (strcmp(node, other) == 0) {
				done[k] = true;
				add_ranks(r, k, false, buf, bufsz, &n);
				if (np + 1 < sizeof(procs))
					np += (size_t)snprintf(procs + np, sizeof(procs) - np, ",%d", k);
				nprocs++;
			}
		}
		/* -g G: the processes too, which the launcher counts ("ranks 2,3 (process 1, node n1)") */
		if (each && n + 1 < bufsz)
			n += (size_t)snprintf(buf + n, bufsz - n, " (process%s %s%s", nprocs > 1 ? "es" : "", procs,
					      node[0] ? "" : ")");
		if (node[0] && n + 1 < bufsz)
			n += (size_t)snprintf(buf + n, bufsz - n, "%snode %s)", each ? ", " : " (", node);
	}
	free(done);
}

/* "ranks " or "rank " before rdv_name_ranks' list. */
static const char *ranks_word(const struct rdv *r, const char *missing)
{
	int k = 0;
	for (int i = 0; i < r->size; i++)
		k += missing[i] != 0;
	return k == 1 && r->p.ranks_each <= 1 ? "rank" : "ranks";
}

static void refuse(struct rdv *r, struct rdv_peer *c, const char *why)
{
	r->refused++;
	snprintf(r->refused_why, sizeof(r->refused_why), "%s", why);
	send_frame(c->fd, T_ABORT, 0, why, strlen(why), nd_now_s() + 0.2);
	peer_close(c);
}

/* A HELLO into a rank's place, or refused. */
static void hello(struct rdv *r, struct rdv_peer *c, const char *job)
{
	if (c->type != T_HELLO) {
		refuse(r, c, "the rendezvous expected a hello");
		return;
	}
	json_t *o = json_loadb(c->body, c->blen, 0, NULL);
	json_t *jr = json_object_get(o, "rank"), *js = json_object_get(o, "size");
	const char *node = json_string_value(json_object_get(o, "node")), *j = json_string_value(json_object_get(o, "job"));
	char why[200] = "";
	long long rank = json_integer_value(jr);
	if (!json_is_integer(jr) || !json_is_integer(js) || !node_ok(node) || !j)
		snprintf(why, sizeof(why), "not a hello of nccl-doctor's rendezvous");
	else if (json_integer_value(js) != r->size)
		snprintf(why, sizeof(why), "rank %lld says the world has %lld ranks, rank 0 says %d", rank,
			 json_integer_value(js), r->size);
	else if (rank < 1 || rank >= r->size)
		snprintf(why, sizeof(why), "rank %lld is not a rank from 1 to %d", rank, r->size - 1);
	else if (strcmp(j, job) != 0)
		snprintf(why, sizeof(why), "rank %lld belongs to another job (%.60s, rank 0's: %.60s)", rank, j, job);
	else if (r->peers[rank].fd >= 0)
		snprintf(why, sizeof(why), "rank %lld joined twice (node %s, and node %s before)", rank, node, r->node[rank]);
	if (why[0]) {
		json_decref(o);
		refuse(r, c, why);
		return;
	}
	snprintf(r->node[rank], RDV_NODE_MAX, "%s", node);
	peer_reset(c);
	c->rank = (int)rank;
	r->peers[rank] = *c;
	c->fd = -1, c->body = NULL;
	json_decref(o);
}

static int listen_on(const struct rdv_params *p, char *err, size_t errsz)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *res;
	char port[16];
	snprintf(port, sizeof(port), "%d", p->port);
	int g = getaddrinfo(p->host, port, &hints, &res);
	if (g != 0)
		return fail(err, errsz, -EINVAL, "rendezvous: cannot resolve '%s': %s", p->host, gai_strerror(g));
	int fd = -1, e = 0;
	for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		int one = 1;
		if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
				bind(fd, a->ai_addr, a->ai_addrlen) < 0 || listen(fd, 128) < 0 || nonblocking(fd) < 0)) {
			e = errno;
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	if (fd < 0)
		return fail(err, errsz, e == EADDRINUSE ? -EADDRINUSE : -EIO, "rendezvous: rank 0 cannot listen on %s:%d: %s",
			    p->host, p->port, strerror(e));
	return fd;
}

/* Takes missing (heap) as r->absent, with why. */
static void set_absent(struct rdv *r, char *missing, const char *why)
{
	r->absent = missing;
	r->nabsent = 0;
	for (int i = 0; i < r->size; i++)
		r->nabsent += missing[i] != 0;
	snprintf(r->absent_why, sizeof(r->absent_why), "%s", why);
}

static void welcome(struct rdv *r, double deadline)
{
	json_t *a = json_array();
	for (int i = 0; i < r->size; i++) /* a rank that never joined: "" */
		json_array_append_new(a, json_string(is_absent(r, i) ? "" : r->node[i]));
	char *s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	for (int i = 1; i < r->size; i++)
		if (r->peers[i].fd >= 0 && send_frame(r->peers[i].fd, T_WELCOME, 0, s, strlen(s), deadline) < 0)
			peer_close(&r->peers[i]);
	free(s);
}

static int root_join(struct rdv *r, const char *job, char *err, size_t errsz)
{
	int lfd = listen_on(&r->p, err, errsz);
	if (lfd < 0)
		return lfd;
	r->fd = lfd;
	size_t cap = (size_t)r->size + EXTRA_CONNS;
	struct rdv_peer *conns = xcalloc(cap, sizeof(*conns));
	struct pollfd *pf = xcalloc(cap + (size_t)r->size + 1, sizeof(*pf));
	for (size_t k = 0; k < cap; k++)
		conns[k].fd = -1, conns[k].rank = -1;
	double deadline = nd_now_s() + r->p.timeout;
	int joined = 0;
	while (joined < r->size - 1 && remaining_ms(deadline) > 0) {
		size_t n = 0;
		pf[n++] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (size_t k = 0; k < cap; k++)
			pf[n++] = (struct pollfd){ .fd = conns[k].fd, .events = POLLIN };
		for (int i = 1; i < r->size; i++) /* a joined rank that goes away is missing again */
			pf[n++] = (struct pollfd){ .fd = r->peers[i].fd, .events = POLLIN };
		int ms = remaining_ms(deadline);
		poll(pf, n, ms > 250 ? 250 : ms);
		for (size_t k = 0; k < cap; k++) {
			struct rdv_peer *c = &conns[k];
			if (c->fd < 0)
				continue;
			int rr = read_frame(c, HELLO_MAX);
			if (rr == -EPROTO)
				refuse(r, c, "not a message of nccl-doctor's rendezvous");
			else if (rr < 0)
				peer_close(c);
			else if (rr == 1)
				hello(r, c, job);
			else if (nd_now_s() - c->since > SILENT_S)
				refuse(r, c, "said nothing");
		}
		for (int i = 1; i < r->size; i++)
			if (r->peers[i].fd >= 0 && (pf[1 + cap + (size_t)i - 1].revents & (POLLIN | POLLHUP | POLLERR)))
				peer_close(&r->peers[i]); /* nothing is due from it before WELCOME: it left */
		if (pf[0].revents & POLLIN) {
			for (;;) {
				int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
				if (fd < 0)
					break;
				size_t k = 0;
				while (k < cap && conns[k].fd >= 0)
					k++;
				if (k == cap) { /* more strangers than ranks: not kept */
					r->refused++;
					close(fd);
					continue;
				}
				conns[k] = (struct rdv_peer){ .fd = fd, .rank = -1, .since = nd_now_s() };
			}
		}
		joined = 0;
		for (int i = 1; i < r->size; i++)
			joined += r->peers[i].fd >= 0;
	}
	for (size_t k = 0; k < cap; k++)
		peer_close(&conns[k]);
	free(conns);
	free(pf);
	if (joined == r->size - 1) {
		welcome(r, nd_now_s() + 5);
		return 0;
	}
	char *missing = xcalloc((size_t)r->size, 1), list[1024];
	for (int i = 1; i < r->size; i++)
		missing[i] = r->peers[i].fd < 0;
	rdv_name_ranks(r, missing, list, sizeof(list));
	fail(err, errsz, -ETIMEDOUT, "%s %s never joined within %g s", ranks_word(r, missing), list, r->p.timeout);
	if (r->p.partial) { /* the others go on without them */
		set_absent(r, missing, err);
		welcome(r, nd_now_s() + 5);
		return 0;
	}
	free(missing);
	rdv_abort(r, err);
	return -ETIMEDOUT;
}

/* Connects to rank 0, retrying until the deadline: fd or -errno. */
static int connect_root(const struct rdv_params *p, double deadline, int *last)
{
	char port[16];
	snprintf(port, sizeof(port), "%d", p->port);
	while (remaining_ms(deadline) > 0) {
		struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res = NULL;
		int g = getaddrinfo(p->host, port, &hints, &res);
		*last = g == 0 ? 0 : -EHOSTUNREACH; /* a pod's name resolves once the pod exists: retried */
		for (struct addrinfo *a = g == 0 ? res : NULL; a; a = a->ai_next) {
			int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
			if (fd < 0)
				continue;
			int rc = connect(fd, a->ai_addr, a->ai_addrlen) == 0 ? 0 : -errno;
			if (rc == -EINPROGRESS) {
				struct pollfd pf = { .fd = fd, .events = POLLOUT };
				int ms = remaining_ms(deadline);
				int e = 0;
				socklen_t el = sizeof(e);
				rc = poll(&pf, 1, ms > 2000 ? 2000 : ms) == 1 &&
						     getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) == 0 && e == 0
					     ? 0
					     : -(e ? e : ETIMEDOUT);
			}
			if (rc == 0) {
				freeaddrinfo(res);
				return fd;
			}
			*last = rc;
			close(fd);
		}
		if (res)
			freeaddrinfo(res);
		int ms = remaining_ms(deadline);
		poll(NULL, 0, ms > 200 ? 200 : ms); /* rank 0 may not listen yet */
	}
	return *last ? *last : -ETIMEDOUT;
}

/* Rank i>0 reads the next frame of rank 0 (type want or ABORT) until the
 * deadline into c: 0, or an error said in err. */
static int recv_root(struct rdv *r, struct rdv_peer *c, int want, const char *what, double deadline, double said,
		     size_t max, char *err, size_t errsz)
{
	peer_reset(c);
	char root[RDV_NODE_MAX + 16];
	snprintf(root, sizeof(root), r->node && r->node[0][0] ? "rank 0 (node %s)" : "rank 0%s",
		 r->node && r->node[0][0] ? r->node[0] : "");
	for (;;) {
		int rr = read_frame(c, max);
		if (rr == 1 && c->type == T_ABORT)
			return fail(err, errsz, -ECANCELED, "%s", c->body);
		if (rr == 1 && (c->type != want || (want == T_DATA && c->seq != r->seq)))
			return fail(err, errsz, -EPROTO, "rendezvous: %s sent another message than the %s", root, what);
		if (rr == 1)
			return 0;
		if (rr == -EPROTO)
			return fail(err, errsz, -EPROTO, "rendezvous: %s:%d sent a message that is not ours", r->p.host, r->p.port);
		if (rr < 0)
			return fail(err, errsz, -EPIPE, "%s closed the rendezvous before the %s", root, what);
		struct pollfd pf = { .fd = c->fd, .events = POLLIN };
		int ms = remaining_ms(deadline);
		if (ms == 0)
			return fail(err, errsz, -ETIMEDOUT, "%s sent no %s within %g s", root, what, said);
		poll(&pf, 1, ms);
	}
}

static int rank_join(struct rdv *r, const char *job, char *err, size_t errsz)
{
	/* a little longer than rank 0's: its list of the missing arrives first */
	double deadline = nd_now_s() + r->p.timeout + 5;
	int last = 0;
	int fd = connect_root(&r->p, nd_now_s() + r->p.timeout, &last);
	if (fd < 0)
		return fail(err, errsz, -ETIMEDOUT, "rank %d could not reach rank 0 at %s:%d within %g s: %s", r->rank,
			    r->p.host, r->p.port, r->p.timeout, strerror(-last));
	r->fd = fd;
	json_t *o = json_pack("{s:i,s:i,s:s,s:s}", "rank", r->rank, "size", r->size, "job", job, "node", r->p.node);
	char *s = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	int rc = send_frame(fd, T_HELLO, 0, s, strlen(s), deadline);
	free(s);
	if (rc < 0)
		return fail(err, errsz, -EPIPE, "rank %d: rank 0 at %s:%d closed the connection", r->rank, r->p.host, r->p.port);
	struct rdv_peer c = { .fd = fd, .rank = 0 };
	rc = recv_root(r, &c, T_WELCOME, "word that every rank joined", deadline, r->p.timeout + 5, 1u << 20, err, errsz);
	json_t *a = rc == 0 ? json_loadb(c.body, c.blen, 0, NULL) : NULL;
	if (rc == 0 && (!json_is_array(a) || json_array_size(a) != (size_t)r->size))
		rc = fail(err, errsz, -EPROTO, "rendezvous: rank 0 named another number of ranks");
	char *missing = xcalloc((size_t)r->size, 1);
	for (int i = 0; rc == 0 && i < r->size; i++) {
		const char *n = json_string_value(json_array_get(a, (size_t)i));
		missing[i] = n && !n[0] && r->p.partial; /* never joined: rank 0 went on without it */
		snprintf(r->node[i], RDV_NODE_MAX, "%s", node_ok(n) ? n : missing[i] ? "" : "?");
	}
	json_decref(a);
	if (rc == 0 && memchr(missing, 1, (size_t)r->size)) {
		char list[sizeof(r->absent_why) - 64], why[sizeof(r->absent_why)];
		rdv_name_ranks(r, missing, list, sizeof(list));
		snprintf(why, sizeof(why), "%s %s never joined within %g s", ranks_word(r, missing), list, r->p.timeout);
		set_absent(r, missing, why);
	} else {
		free(missing);
	}
	c.fd = -1;
	peer_close(&c);
	return rc;
}

int rdv_join(struct rdv *r, const struct rdv_params *p, char *err, size_t errsz)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (p->size < 1 || p->size > RDV_MAX_RANKS || p->rank < 0 || p->rank >= p->size || !p->host || p->port < 1 ||
	    p->port > 65535 || !node_ok(p->node) || !(p->timeout > 0))
		return fail(err, errsz, -EINVAL, "rendezvous: bad parameters (rank %d of %d, node '%.60s')", p->rank, p->size,
			    p->node ? p->node : "");
	r->p = *p;
	r->rank = p->rank, r->size = p->size;
	r->node = xcalloc((size_t)p->size, sizeof(*r->node));
	snprintf(r->node[p->rank], RDV_NODE_MAX, "%s", p->node);
	if (p->size == 1)
		return 0;
	const char *job = p->job ? p->job : "";
	int rc;
	if (p->rank == 0) {
		r->peers = xcalloc((size_t)p->size, sizeof(*r->peers));
		for (int i = 0; i < p->size; i++)
			r->peers[i].fd = -1, r->peers[i].rank = -1;
		rc = root_join(r, job, err, errsz);
	} else {
		rc = rank_join(r, job, err, errsz);
	}
	if (rc < 0)
		rdv_close(r);
	return rc;
}

int rdv_gather(struct rdv *r, const char *what, const void *mine, size_t len, double timeout, struct rdv_msg *all,
	       char *err, size_t errsz)
{
	unsigned seq = ++r->seq;
	double deadline = nd_now_s() + timeout;
	if (len > RDV_MAX_MSG)
		return fail(err, errsz, -EMSGSIZE, "rendezvous: the %s are larger than %u bytes", what, RDV_MAX_MSG);
	if (r->rank != 0) {
		if (send_frame(r->fd, T_DATA, seq, mine, len, deadline) < 0)
			return fail(err, errsz, -EPIPE, "rank 0 (node %s) closed the rendezvous before the %s", r->node[0], what);
		return 0;
	}
	memset(all, 0, sizeof(*all) * (size_t)r->size);
	all[0].data = xmalloc(len + 1);
	memcpy(all[0].data, mine, len);
	all[0].data[len] = 0;
	all[0].len = len;
	char *left = xcalloc((size_t)r->size, 1), *late = xcalloc((size_t)r->size, 1), *bad = xcalloc((size_t)r->size, 1);
	struct pollfd *pf = xcalloc((size_t)r->size, sizeof(*pf));
	int waiting = 0;
	for (int i = 1; i < r->size; i++) {
		peer_reset(&r->peers[i]);
		left[i] = r->peers[i].fd < 0 && !is_absent(r, i);
		waiting += r->peers[i].fd >= 0;
	}
	while (waiting > 0 && remaining_ms(deadline) > 0) {
		for (int i = 1; i < r->size; i++)
			pf[i] = (struct pollfd){ .fd = all[i].data || left[i] || bad[i] ? -1 : r->peers[i].fd, .events = POLLIN };
		int ms = remaining_ms(deadline);
		poll(pf + 1, (nfds_t)(r->size - 1), ms > 250 ? 250 : ms);
		for (int i = 1; i < r->size; i++) {
			struct rdv_peer *c = &r->peers[i];
			if (pf[i].fd < 0 || !pf[i].revents)
				continue;
			int rr = read_frame(c, RDV_MAX_MSG);
			if (rr == 0)
				continue;
			waiting--;
			if (rr == -EPIPE) {
				left[i] = 1;
				peer_close(c);
			} else if (rr < 0 || c->type != T_DATA || c->seq != seq) {
				bad[i] = 1;
			} else {
				all[i].data = c->body, all[i].len = c->blen;
				c->body = NULL;
				peer_reset(c);
			}
		}
	}
	for (int i = 1; i < r->size; i++)
		late[i] = !all[i].data && !left[i] && !bad[i] && !is_absent(r, i);
	char list[1024];
	int rc = 0;
	const char *kinds[3] = { left, bad, late };
	for (int k = 0; k < 3 && rc == 0; k++) {
		bool any = false;
		for (int i = 1; i < r->size; i++)
			any |= kinds[k][i] != 0;
		if (!any)
			continue;
		rdv_name_ranks(r, kinds[k], list, sizeof(list));
		const char *w = ranks_word(r, kinds[k]);
		if (k == 0)
			rc = fail(err, errsz, -EPIPE, "%s %s left before sending the %s", w, list, what);
		else if (k == 1)
			rc = fail(err, errsz, -EPROTO, "%s %s sent another message than the %s", w, list, what);
		else
			rc = fail(err, errsz, -ETIMEDOUT, "%s %s sent no %s within %g s", w, list, what, timeout);
	}
	free(left), free(late), free(bad), free(pf);
	return rc;
}

int rdv_bcast(struct rdv *r, const char *what, struct rdv_msg *m, double timeout, char *err, size_t errsz)
{
	unsigned seq = ++r->seq;
	double deadline = nd_now_s() + timeout;
	if (r->size == 1)
		return 0;
	if (r->rank == 0) {
		char *gone = xcalloc((size_t)r->size, 1), list[1024];
		bool any = false;
		for (int i = 1; i < r->size; i++) {
			if (is_absent(r, i) ||
			    (r->peers[i].fd >= 0 && send_frame(r->peers[i].fd, T_DATA, seq, m->data, m->len, deadline) == 0))
				continue;
			peer_close(&r->peers[i]);
			gone[i] = 1, any = true;
		}
		int rc = 0;
		if (any) {
			rdv_name_ranks(r, gone, list, sizeof(list));
			rc = fail(err, errsz, -EPIPE, "%s %s did not take the %s", ranks_word(r, gone), list, what);
		}
		free(gone);
		return rc;
	}
	struct rdv_peer c = { .fd = r->fd, .rank = 0 };
	int rc = recv_root(r, &c, T_DATA, what, deadline, timeout, RDV_MAX_MSG, err, errsz);
	m->data = rc == 0 ? c.body : NULL;
	m->len = rc == 0 ? c.blen : 0;
	if (rc == 0)
		c.body = NULL;
	peer_reset(&c);
	return rc;
}

void rdv_abort(struct rdv *r, const char *why)
{
	if (r->rank != 0 || !r->peers)
		return;
	double deadline = nd_now_s() + 1;
	for (int i = 1; i < r->size; i++)
		if (r->peers[i].fd >= 0)
			send_frame(r->peers[i].fd, T_ABORT, 0, why, strlen(why), deadline);
}

void rdv_msgs_free(struct rdv_msg *all, int n)
{
	for (int i = 0; all && i < n; i++) {
		free(all[i].data);
		all[i].data = NULL;
	}
}

void rdv_close(struct rdv *r)
{
	for (int i = 0; r->peers && i < r->size; i++)
		peer_close(&r->peers[i]);
	free(r->peers);
	r->peers = NULL;
	free(r->node);
	r->node = NULL;
	free(r->absent);
	r->absent = NULL;
	r->nabsent = 0;
	if (r->fd >= 0)
		close(r->fd);
	r->fd = -1;
}
