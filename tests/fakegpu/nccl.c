/* Fake libnccl.so.2: rank processes really exchange and reduce data through
 * one shared memory segment per communicator (/dev/shm/fakenccl-*), so
 * results are real computations. Transport choice follows real NCCL's rules
 * in the small: P2P between ring neighbours when NCCL_P2P_DISABLE is not 1,
 * NVML reports P2P OK and the link class is within NCCL_P2P_LEVEL (default
 * PXB; NV# always); else SHM (unless NCCL_SHM_DISABLE=1), else NET. Faults:
 * nccl_init_hang (blocks in bootstrap), nccl_p2p_hang (collectives block
 * when P2P carries a listed pair), shm_bytes (SHM needed but /dev/shm too
 * small: ncclSystemError), nccl_init_hang_rank (one rank blocks in bootstrap,
 * the others wait for it), nccl_corrupt (one byte of every result on a GPU
 * flipped). The user's NCCL_SOCKET_IFNAME, NCCL_NET, NCCL_TOPO_FILE and
 * NCCL_GRAPH_FILE fail as real NCCL's do (README.md). ncclCommInitRankConfig with blocking=0 initialises in a thread
 * (ncclInProgress, then ncclCommGetAsyncError), and in that mode a fault
 * that blocks does so until ncclCommAbort, as real NCCL's nonblocking
 * communicators do (a collective that cannot progress leaves the
 * communicator's asynchronous state at ncclInProgress). Time is modelled on the fake CUDA clock from the
 * bytes moved and the bottleneck link's bandwidth. See README.md. */
#include "fake.h"
#include "nvlib/nccl_api.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <strings.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>

#define MAX_RANKS 64
#define SLOT (1u << 20)
#define MBOX (128u << 10)
#define ID_MAGIC "FAKENCCL"

struct shm_hdr {
	char magic[8];
	int nranks;
	atomic_int joined;
	atomic_int bar_count;
	atomic_int bar_gen;
	int dev[MAX_RANKS];
	char node[MAX_RANKS][64]; /* NCCL_DOCTOR_FAKEGPU_NODE of each rank: ranks of different nodes talk over NET */
	atomic_llong mbox[MAX_RANKS][MAX_RANKS]; /* bytes waiting from [src][dst] */
};

enum transport { T_P2P, T_SHM, T_NET };
#define FG_SHM_HOST_BW 20e9 /* host memory bandwidth the SHM hops of a ring share */

struct ncclComm {
	int rank, nranks, dev;
	struct shm_hdr *h;
	char *slots, *mboxes;
	size_t size;
	enum transport ring_tr[MAX_RANKS]; /* link rank r -> r+1 */
	double ring_bw;                     /* bottleneck bytes/s */
	bool ring_hangs;
	char last_error[256];
	/* nonblocking mode (ncclCommInitRankConfig with blocking=0) */
	bool nonblocking;
	atomic_int async;          /* what ncclCommGetAsyncError reports */
	atomic_bool aborted;       /* ncclCommAbort was called */
	bool thread_started;
	pthread_t thread;
	ncclUniqueId id;
	char shm_name[128];
};

static char last_error[256];
static ncclResult_t bootstrap_net_init(void);
static char *slot(struct ncclComm *c, int r);
static _Thread_local int group_depth;
static _Thread_local bool group_inprogress; /* an op of the group cannot progress */
static _Thread_local struct ncclComm *group_hung[8]; /* their communicators, marked at ncclGroupEnd */

/* A fault that blocks: for ever in blocking mode (only a kill ends it), until
 * ncclCommAbort in nonblocking mode. Returns only after an abort. */
static void block(struct ncclComm *c, const char *what)
{
	if (!c->nonblocking)
		fg_hang(what);
	fprintf(stderr, "fakegpu: %s blocks until ncclCommAbort (scenario fault)\n", what);
	fflush(stderr);
	while (!atomic_load(&c->aborted)) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

/* --- hooks into the fake CUDA (same process) --- */
static void *cuda_sym(const char *name)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOLOAD | RTLD_LAZY);
	return h ? dlsym(h, name) : NULL;
}

static int current_device(void)
{
	int (*f)(void) = (int (*)(void))cuda_sym("fakegpu_cuda_current_device");
	return f ? f() : -1;
}

static void advance_ms(double ms)
{
	void (*f)(double) = (void (*)(double))cuda_sym("fakegpu_cuda_advance");
	if (f)
		f(ms);
}

static bool debug_info(void)
{
	const char *d = getenv("NCCL_DEBUG");
	return d && (strcasecmp(d, "INFO") == 0 || strcasecmp(d, "TRACE") == 0);
}

/* Where NCCL's debug lines go: NCCL_DEBUG_FILE with %h (host) and %p (pid)
 * expanded, as real NCCL does, else stdout (INFO) and stderr (WARN). */
static FILE *debug_file(FILE *dflt)
{
	static FILE *f;
	static bool tried;
	if (!tried) {
		tried = true;
		const char *spec = getenv("NCCL_DEBUG_FILE");
		if (spec && *spec) {
			char path[4096], host[64] = "host";
			size_t n = 0;
			gethostname(host, sizeof(host));
			host[strcspn(host, ".")] = '\0';
			for (const char *c = spec; *c && n + 80 < sizeof(path); c++) {
				if (c[0] == '%' && c[1] == 'h') {
					n += (size_t)snprintf(path + n, sizeof(path) - n, "%s", host);
					c++;
				} else if (c[0] == '%' && c[1] == 'p') {
					n += (size_t)snprintf(path + n, sizeof(path) - n, "%d", (int)getpid());
					c++;
				} else {
					path[n++] = *c;
				}
			}
			path[n] = '\0';
			f = fopen(path, "w");
		}
	}
	return f ? f : dflt;
}

static void info(const struct ncclComm *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void info(const struct ncclComm *c, const char *fmt, ...)
{
	if (!debug_info())
		return;
	char host[64] = "host", line[512];
	gethostname(host, sizeof(host));
	host[strcspn(host, ".")] = '\0';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	FILE *out = debug_file(stdout);
	fprintf(out, "%s:%d:%d [%d] NCCL INFO %s\n", host, (int)getpid(), (int)gettid(), c ? c->dev : 0, line);
	fflush(out);
}

static void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last_error, sizeof(last_error), fmt, ap);
	va_end(ap);
	char host[64] = "host";
	gethostname(host, sizeof(host));
	host[strcspn(host, ".")] = '\0';
	FILE *out = debug_file(stderr);
	fprintf(out, "%s:%d:%d [0] NCCL WARN %s\n", host, (int)getpid(), (int)gettid(), last_error);
	fflush(out);
}

FG_API ncclResult_t ncclGetVersion(int *v)
{
	if (!v)
		return ncclInvalidArgument;
	*v = fg_scenario()->nccl_version;
	return ncclSuccess;
}

FG_API const char *ncclGetErrorString(ncclResult_t r)
{
	switch (r) {
	case ncclSuccess: return "no error";
	case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
	case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
	case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
	case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
	case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
	case ncclRemoteError: return "remote process exited or there was a network error";
	case ncclInProgress: return "NCCL operation in progress";
	default: return "unknown result code";
	}
}

FG_API const char *ncclGetLastError(ncclComm_t c)
{
	return c && c->last_error[0] ? c->last_error : last_error;
}

FG_API ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
	ncclResult_t br = bootstrap_net_init(); /* ncclInit: the bootstrap interface first */
	if (br != ncclSuccess)
		return br;
	memset(id, 0, sizeof(*id));
	memcpy(id->internal, ID_MAGIC, 8);
	uint64_t r;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, &r, sizeof(r)) != sizeof(r))
		r = (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
	if (fd >= 0)
		close(fd);
	memcpy(id->internal + 8, &r, sizeof(r));
	return ncclSuccess;
}

static void spin_wait(unsigned *iter)
{
	if (++*iter < 200) {
		sched_yield();
	} else {
		struct timespec ts = { 0, 50000 };
		nanosleep(&ts, NULL);
	}
}

static void barrier(struct ncclComm *c)
{
	struct shm_hdr *h = c->h;
	int gen = atomic_load(&h->bar_gen);
	if (atomic_fetch_add(&h->bar_count, 1) == c->nranks - 1) {
		atomic_store(&h->bar_count, 0);
		atomic_fetch_add(&h->bar_gen, 1);
		return;
	}
	unsigned it = 0;
	while (atomic_load(&h->bar_gen) == gen)
		spin_wait(&it);
}

/* NCCL_P2P_LEVEL as a link class limit (kb/nccl-env.md); default PXB */
static enum fg_link p2p_level(void)
{
	const char *l = getenv("NCCL_P2P_LEVEL");
	if (!l || !*l)
		return FG_PXB;
	if (!strcmp(l, "LOC") || !strcmp(l, "0")) return FG_X;
	if (!strcmp(l, "NVL") || !strcmp(l, "NVB") || !strcmp(l, "C2C")) return FG_NVL;
	if (!strcmp(l, "PIX") || !strcmp(l, "1")) return FG_PIX;
	if (!strcmp(l, "PXB") || !strcmp(l, "P2C") || !strcmp(l, "PXN") || !strcmp(l, "2")) return FG_PXB;
	if (!strcmp(l, "PHB") || !strcmp(l, "3")) return FG_PHB;
	return FG_SYS;
}

static bool env_is_1(const char *name)
{
	const char *v = getenv(name);
	return v && strcmp(v, "1") == 0;
}

static bool p2p_used(int a, int b)
{
	const struct fg_scenario *s = fg_scenario();
	if (a == b || a < 0 || b < 0 || a >= s->ngpus || b >= s->ngpus)
		return false;
	if (env_is_1("NCCL_P2P_DISABLE") || s->p2p[a][b] != 0)
		return false;
	enum fg_link cls = s->link[a][b] == FG_NODE ? FG_PHB : s->link[a][b]; /* NCCL has no NODE: PHB */
	return cls <= p2p_level();
}

static const char *tr_name(enum transport t)
{
	return t == T_P2P ? "P2P/IPC" : t == T_SHM ? "SHM/direct/direct" : "NET/Socket/0";
}

/* NCCL_DOCTOR_FAKEGPU_SLOW_LINK="a:b:F,...": the network between nodes a
 * and b (either way) runs F times slower; b "*": every link of node a (a
 * slow node); 1 for every other pair */
static double link_slowdown(const char *a, const char *b)
{
	const char *spec = getenv("NCCL_DOCTOR_FAKEGPU_SLOW_LINK");
	char x[64], y[64];
	double f;
	for (const char *p = spec; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
		if (sscanf(p, "%63[^:,]:%63[^:,]:%lf", x, y, &f) == 3 && f >= 1 &&
		    ((strcmp(x, a) == 0 && (strcmp(y, b) == 0 || strcmp(y, "*") == 0)) ||
		     (strcmp(x, b) == 0 && (strcmp(y, a) == 0 || strcmp(y, "*") == 0))))
			return f;
	return 1;
}

static void plan_ring(struct ncclComm *c)
{
	const struct fg_scenario *s = fg_scenario();
	c->ring_bw = 1e30;
	c->ring_hangs = false;
	for (int r = 0; r < c->nranks; r++) {
		int a = c->h->dev[r], b = c->h->dev[(r + 1) % c->nranks];
		const char *na = c->h->node[r], *nb = c->h->node[(r + 1) % c->nranks];
		double bw;
		if (c->nranks == 1) {
			c->ring_tr[r] = T_P2P;
			bw = 1000e9;
		} else if (strcmp(na, nb) != 0) { /* another node: the network, at its link's speed */
			c->ring_tr[r] = T_NET;
			bw = 2e9 / link_slowdown(na, nb);
		} else if (p2p_used(a, b)) {
			c->ring_tr[r] = T_P2P;
			bw = fg_link_bw(s->link[a][b], s->nvl[a][b]);
			if (s->nccl_p2p_hang[a][b])
				c->ring_hangs = true;
		} else if (!env_is_1("NCCL_SHM_DISABLE")) {
			c->ring_tr[r] = T_SHM;
			bw = 10e9;
		} else {
			c->ring_tr[r] = T_NET;
			bw = 2e9;
		}
		if (bw < c->ring_bw)
			c->ring_bw = bw;
	}
	/* SHM hops all cross host memory at once and share its bandwidth
	 * (FG_SHM_HOST_BW): a ring with more of them runs slower, so keeping
	 * P2P on the hops that work (NCCL_P2P_LEVEL) beats disabling it */
	int nshm = 0;
	for (int r = 0; r < c->nranks; r++)
		nshm += c->nranks > 1 && c->ring_tr[r] == T_SHM;
	if (nshm > 0 && FG_SHM_HOST_BW / nshm < c->ring_bw)
		c->ring_bw = FG_SHM_HOST_BW / nshm;
}

/* Whether NCCL_SOCKET_IFNAME (NCCL's syntax: a comma list of prefixes, '='
 * exact names, '^' excluding) leads NCCL to the interface `ok`: unset, NCCL
 * picks another one (the scenario's wrong interface) */
static bool ifname_matches(const char *spec, const char *name);

static bool ifname_selects(const char *spec, const char *ok)
{
	return spec && *spec && ifname_matches(spec, ok);
}

/* --- the user's NCCL variables, failing as real NCCL fails ------------ */

static int nccl_version(void)
{
	return fg_scenario()->nccl_version;
}

/* NCCL_SOCKET_IFNAME's syntax (a comma list of prefixes, '=' exact, '^'
 * excluding) applied to one interface name */
static bool ifname_matches(const char *spec, const char *name)
{
	bool exclude = *spec == '^', exact = false;
	if (exclude)
		spec++;
	if (*spec == '=') {
		exact = true;
		spec++;
	}
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", spec);
	bool match = false;
	char *save = NULL;
	for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save))
		match |= exact ? strcmp(t, name) == 0 : strncmp(name, t, strlen(t)) == 0;
	return exclude ? !match : match;
}

/* NCCL's bootstrap interface search with NCCL_SOCKET_IFNAME set: this
 * host's running IPv4/IPv6 interfaces (not IPv6 loopback), as NCCL reads
 * them with getifaddrs, plus the scenario's bootstrap_ifname_ok. A value
 * of one character is ignored, as NCCL does. NCCL_SOCKET_IFNAME that
 * selects none: WARN "Bootstrap : no socket interface found", and
 * ncclInvalidUsage (2.24+; ncclInternalError before). */
static ncclResult_t bootstrap_net_init(void)
{
	const char *spec = getenv("NCCL_SOCKET_IFNAME");
	if (!spec || strlen(spec) <= 1)
		return ncclSuccess;
	const char *ok = fg_scenario()->bootstrap_ifname_ok;
	bool found = ok[0] && ifname_matches(spec, ok);
	struct ifaddrs *ifs = NULL;
	if (!found && getifaddrs(&ifs) == 0) {
		for (struct ifaddrs *i = ifs; i && !found; i = i->ifa_next) {
			if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
				continue;
			if (!(i->ifa_flags & IFF_RUNNING))
				continue;
			if (i->ifa_addr->sa_family == AF_INET6 &&
			    IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr))
				continue;
			found = ifname_matches(spec, i->ifa_name);
		}
		freeifaddrs(ifs);
	}
	info(NULL, "NCCL_SOCKET_IFNAME set by environment to %s", spec);
	if (found)
		return ncclSuccess;
	warn("Bootstrap : no socket interface found");
	return nccl_version() >= 22400 ? ncclInvalidUsage : ncclInternalError;
}

/* NCCL_NET: the fake has no InfiniBand device and no external net plugin,
 * so only the internal "Socket" network exists (names compared without
 * case, as NCCL does). Another name: NCCL's "NET/IB : No device found."
 * for IB, then WARN "Failed to initialize any NET plugin" (2.27+) or
 * "Error: network X not found." (before), and ncclInvalidUsage. */
static ncclResult_t net_init(const struct ncclComm *c)
{
	const char *net = getenv("NCCL_NET");
	bool ib = net && strcasecmp(net, "IB") == 0;
	if (ib || (!net && getenv("NCCL_IB_HCA")))
		info(c, "NET/IB : No device found.");
	if (!net || strcasecmp(net, "Socket") == 0)
		return ncclSuccess;
	if (nccl_version() >= 22700) {
		if (ib)
			info(c, "Failed to initialize NET plugin IB");
		warn("Failed to initialize any NET plugin");
	} else {
		warn("Error: network %s not found.", net);
	}
	return ncclInvalidUsage;
}

/* A small model of NCCL's XML reader (graph/xml.cc) for NCCL_TOPO_FILE and
 * NCCL_GRAPH_FILE: tags and attributes, comments, nesting; between tags
 * only spaces and line ends. The first error as NCCL words it, or "". */
static void xml_check(FILE *f, char *err, size_t errsz)
{
	char stack[32][64];
	int depth = 0;
	err[0] = '\0';
	for (;;) {
		int c = ' ';
		while (c == ' ' || c == '\n' || c == '\r')
			if ((c = fgetc(f)) == EOF) {
				if (depth > 0)
					snprintf(err, errsz, "XML Parse : unterminated %s", stack[depth - 1]);
				return;
			}
		if (c != '<') {
			snprintf(err, errsz, "XML Parse error : expecting '<', got '%c'", c);
			return;
		}
		char name[64];
		size_t n = 0;
		bool closing = false;
		while ((c = fgetc(f)) != EOF && c != ' ' && c != '>' && c != '/' && c != '\n') {
			if (n < sizeof(name) - 1)
				name[n++] = (char)c;
			if (n == 3 && memcmp(name, "!--", 3) == 0)
				break;
		}
		name[n] = '\0';
		if (c == EOF) {
			snprintf(err, errsz, "XML Parse : Unexpected EOF");
			return;
		}
		if (strcmp(name, "!--") == 0) { /* a comment, up to "-->" */
			int m = 0;
			while (m < 3 && (c = fgetc(f)) != EOF)
				m = c == '-' ? (m < 2 ? m + 1 : 2) : (c == '>' && m == 2) ? 3 : 0;
			if (c == EOF) {
				snprintf(err, errsz, "XML Parse error : unterminated comment");
				return;
			}
			continue;
		}
		if (n == 0 && c == '/') {
			closing = true;
			n = 0;
			while ((c = fgetc(f)) != EOF && c != '>' && c != ' ')
				if (n < sizeof(name) - 1)
					name[n++] = (char)c;
			name[n] = '\0';
			if (c == EOF) {
				snprintf(err, errsz, "XML Parse : Unexpected EOF");
				return;
			}
			if (depth == 0 || strcmp(stack[depth - 1], name) != 0) {
				snprintf(err, errsz, "XML Mismatch : %s / %s", depth ? stack[depth - 1] : "", name);
				return;
			}
			depth--;
			continue;
		}
		/* attributes up to '>' ("/>" closes the element at once) */
		int prev = c;
		char quote = 0;
		while (c != '>' || quote) {
			prev = c;
			if ((c = fgetc(f)) == EOF) {
				snprintf(err, errsz, "XML Parse : Unexpected EOF");
				return;
			}
			if (quote && c == quote)
				quote = 0;
			else if (!quote && (c == '"' || c == '\''))
				quote = (char)c;
		}
		if (prev != '/' && !closing && depth < 32)
			snprintf(stack[depth++], sizeof(stack[0]), "%s", name);
	}
}

/* NCCL_TOPO_FILE and NCCL_GRAPH_FILE, read where NCCL reads them (the
 * topology after bootstrap, then the graph search). A topology file that
 * cannot be opened is skipped ("Could not open XML topology file": a WARN
 * before 2.27, an INFO since) and detection goes on; one that does not
 * parse fails init with ncclInternalError. A graph file that cannot be
 * opened fails with ncclSystemError, one that does not parse with
 * ncclInternalError. */
static ncclResult_t topo_files(const struct ncclComm *c)
{
	char err[256];
	const char *topo = getenv("NCCL_TOPO_FILE");
	if (topo) {
		info(c, "NCCL_TOPO_FILE set by environment to %s", topo);
		FILE *f = fopen(topo, "r");
		if (!f) {
			if (nccl_version() >= 22700)
				info(c, "Could not open XML topology file %s : %s", topo, strerror(errno));
			else
				warn("Could not open XML topology file %s : %s", topo, strerror(errno));
		} else {
			info(c, "Loading topology file %s", topo);
			xml_check(f, err, sizeof(err));
			fclose(f);
			if (err[0]) {
				warn("%s", err);
				return ncclInternalError;
			}
		}
	}
	const char *graph = getenv("NCCL_GRAPH_FILE");
	if (graph) {
		info(c, "NCCL_GRAPH_FILE set by environment to %s", graph);
		FILE *f = fopen(graph, "r");
		if (!f) {
			warn("Could not open XML graph file %s : %s", graph, strerror(errno));
			return ncclSystemError;
		}
		xml_check(f, err, sizeof(err));
		fclose(f);
		if (err[0]) {
			warn("%s", err);
			return ncclInternalError;
		}
	}
	return ncclSuccess;
}

/* Bootstrap and connection set-up of one rank (c->rank, c->nranks, c->dev,
 * c->id set); in the caller's thread, or in the init thread (nonblocking). */
static ncclResult_t init_body(struct ncclComm *c)
{
	const struct fg_scenario *s = fg_scenario();
	int rank = c->rank, nranks = c->nranks, dev = c->dev;
	if (s->bootstrap_ifname_ok[0] && !ifname_selects(getenv("NCCL_SOCKET_IFNAME"), s->bootstrap_ifname_ok)) {
		/* scenario fault bootstrap_ifname_ok: the interface NCCL picks cannot connect */
		info(c, "Bootstrap: Using docker0:172.17.0.1<0>");
		warn("socketStartConnect: Connect to 172.17.0.1<43121> failed : Connection refused");
		warn("bootstrap: rank %d cannot reach the root (fakenccl: scenario fault bootstrap_ifname_ok, %s works)", rank,
		     s->bootstrap_ifname_ok);
		return ncclRemoteError;
	}
	if (s->bootstrap_ifname_ok[0])
		info(c, "Bootstrap: Using %s:10.0.0.1<0>", s->bootstrap_ifname_ok);
	else
		info(c, "Bootstrap: Using lo:127.0.0.1<0>");
	ncclResult_t nr = net_init(c);
	if (nr != ncclSuccess)
		return nr;
	if (s->nccl_init_hang || s->nccl_init_hang_rank == rank) {
		info(c, "fakenccl: bootstrap blocks (scenario fault nccl_init_hang)");
		block(c, "ncclCommInitRank (bootstrap)");
		return ncclSystemError;
	}
	uint64_t key;
	memcpy(&key, c->id.internal + 8, sizeof(key));
	char *name = c->shm_name;
	const char *tag = getenv("NCCL_DOCTOR_FAKEGPU_SHM_TAG"); /* tests remove their own leftovers */
	snprintf(name, sizeof(c->shm_name), "/fakenccl-%.32s%s%016llx", tag ? tag : "", tag ? "-" : "", (unsigned long long)key);
	size_t hdr = (sizeof(struct shm_hdr) + 4095) & ~(size_t)4095;
	size_t size = hdr + (size_t)nranks * SLOT + (size_t)nranks * nranks * MBOX;
	struct statvfs vfs;
	if (statvfs("/dev/shm", &vfs) == 0 && (unsigned long long)vfs.f_bavail * vfs.f_frsize < size) {
		warn("Error: failed to extend /dev/shm%s to %zu bytes", name, size);
		return ncclSystemError;
	}
	int fd = shm_open(name, O_RDWR | O_CREAT, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		warn("Error: failed to extend /dev/shm%s to %zu bytes", name, size);
		if (fd >= 0)
			close(fd);
		return ncclSystemError;
	}
	void *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (base == MAP_FAILED) {
		warn("Call to mmap failed : %s", strerror(errno));
		return ncclSystemError;
	}
	c->size = size;
	c->h = base;
	c->slots = (char *)base + hdr;
	c->mboxes = c->slots + (size_t)nranks * SLOT;
	c->h->dev[rank] = dev;
	const char *node = getenv("NCCL_DOCTOR_FAKEGPU_NODE");
	snprintf(c->h->node[rank], sizeof(c->h->node[rank]), "%s", node ? node : "");
	if (node) /* as NCCL names the network it will use between nodes */
		info(c, "NET/Socket : Using [0]lo:127.0.0.1<0>");
	/* the last rank to map the segment removes its name at once, as real
	 * NCCL unlinks /dev/shm/nccl-* once the peer has opened it: a rank
	 * killed after this point leaves nothing behind */
	if (atomic_fetch_add(&c->h->joined, 1) + 1 == nranks)
		shm_unlink(name);
	/* waits for every rank, for ever if one never comes (as real NCCL does);
	 * an abort ends the wait and removes the segment the others would join */
	unsigned it = 0;
	while (atomic_load(&c->h->joined) < nranks) {
		if (atomic_load(&c->aborted)) {
			shm_unlink(name);
			return ncclSystemError;
		}
		spin_wait(&it);
	}
	barrier(c);
	ncclResult_t tr = topo_files(c);
	if (tr != ncclSuccess)
		return tr;
	plan_ring(c);
	bool need_shm = false;
	for (int r = 0; r < nranks; r++)
		need_shm |= c->ring_tr[r] == T_SHM;
	if (need_shm && s->shm_bytes > 0 && (long long)c->size > s->shm_bytes) {
		warn("Error: failed to extend /dev/shm/nccl-%06x to %zu bytes", (unsigned)(key & 0xffffff), c->size);
		warn("Error while creating shared memory segment /dev/shm/nccl-%06x (size %zu)", (unsigned)(key & 0xffffff), c->size);
		return ncclSystemError;
	}
	if (nranks > 1)
		info(c, "Channel 00/0 : %d[%d] -> %d[%d] via %s", rank, dev, (rank + 1) % nranks,
		     c->h->dev[(rank + 1) % nranks], tr_name(c->ring_tr[rank]));
	info(c, "comm %p rank %d nranks %d cudaDev %d busId %s - Init COMPLETE", (void *)c, rank, nranks, dev,
	     dev < s->ngpus ? s->gpus[dev].bdf : "0");
	return ncclSuccess;
}

static void release_comm(struct ncclComm *c)
{
	if (c->h)
		munmap(c->h, c->size);
	free(c);
}

static void *init_thread(void *arg)
{
	struct ncclComm *c = arg;
	atomic_store(&c->async, init_body(c));
	return NULL;
}

static ncclResult_t init_rank(ncclComm_t *out, int nranks, ncclUniqueId id, int rank, bool nonblocking)
{
	const struct fg_scenario *s = fg_scenario();
	if (!out || nranks < 1 || nranks > MAX_RANKS || rank < 0 || rank >= nranks) {
		warn("Invalid rank requested : %d/%d", rank, nranks);
		return ncclInvalidArgument;
	}
	if (memcmp(id.internal, ID_MAGIC, 8) != 0) {
		warn("fakenccl: the unique id was not made by ncclGetUniqueId");
		return ncclInvalidArgument;
	}
	ncclResult_t br = bootstrap_net_init(); /* ncclInit, before anything of the communicator */
	if (br != ncclSuccess)
		return br;
	int dev = current_device(); /* the caller's thread holds the context */
	if (dev < 0)
		dev = rank % (s->ngpus > 0 ? s->ngpus : 1);
	struct ncclComm *c = calloc(1, sizeof(*c));
	if (!c)
		return ncclSystemError;
	c->rank = rank;
	c->nranks = nranks;
	c->dev = dev;
	c->id = id;
	c->nonblocking = nonblocking;
	if (nonblocking) {
		atomic_store(&c->async, ncclInProgress);
		if (pthread_create(&c->thread, NULL, init_thread, c) != 0) {
			free(c);
			return ncclSystemError;
		}
		c->thread_started = true;
		*out = c;
		return ncclInProgress;
	}
	ncclResult_t r = init_body(c);
	if (r != ncclSuccess) {
		release_comm(c);
		return r;
	}
	*out = c;
	return ncclSuccess;
}

FG_API ncclResult_t ncclCommInitRank(ncclComm_t *out, int nranks, ncclUniqueId id, int rank)
{
	return init_rank(out, nranks, id, rank, false);
}

FG_API ncclResult_t ncclCommInitRankConfig(ncclComm_t *out, int nranks, ncclUniqueId id, int rank, ncclConfig_t *config)
{
	if (config && config->magic != ND_NCCL_API_MAGIC) {
		warn("ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER");
		return ncclInvalidArgument;
	}
	return init_rank(out, nranks, id, rank, config && config->blocking == 0);
}

/* ncclCommSplit (2.18): every rank of c leaves its color and key in its
 * slot between two barriers; the ranks of one color, ordered by key then
 * rank, form a new communicator whose unique id is c's with the color
 * mixed into its key (a segment per group). NCCL_SPLIT_NOCOLOR (-1): no
 * communicator. Config NULL: c's (blocking or not), as NCCL's. */
FG_API ncclResult_t ncclCommSplit(ncclComm_t c, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config)
{
	if (!c || !newcomm || color < -1) {
		warn("ncclCommSplit: invalid argument");
		return ncclInvalidArgument;
	}
	if (config && config->magic != ND_NCCL_API_MAGIC) {
		warn("ncclConfig_t argument not initialized via NCCL_CONFIG_INITIALIZER");
		return ncclInvalidArgument;
	}
	int *mine = (int *)slot(c, c->rank);
	barrier(c); /* no collective of c reads the slots any more */
	mine[0] = color, mine[1] = key;
	barrier(c);
	int nrank = 0, nsize = 0;
	for (int r = 0; r < c->nranks; r++) {
		const int *o = (const int *)slot(c, r);
		if (o[0] != color)
			continue;
		nsize++;
		nrank += o[1] < key || (o[1] == key && r < c->rank);
	}
	barrier(c); /* every rank read every slot */
	*newcomm = NULL;
	if (color == -1)
		return ncclSuccess;
	ncclUniqueId id = c->id;
	uint64_t k;
	memcpy(&k, id.internal + 8, sizeof(k));
	k ^= 0x9e3779b97f4a7c15ULL * (uint64_t)(color + 1);
	memcpy(id.internal + 8, &k, sizeof(k));
	info(c, "comm %p rank %d nranks %d - splitting by color %d into %d ranks", (void *)c, c->rank, c->nranks, color, nsize);
	return init_rank(newcomm, nsize, id, nrank, config ? config->blocking == 0 : c->nonblocking);
}

/* Both end what is blocked in nonblocking mode (the init thread, a blocked
 * fault) and remove the segment if peers never joined. */
FG_API ncclResult_t ncclCommDestroy(ncclComm_t c)
{
	if (!c)
		return ncclInvalidArgument;
	atomic_store(&c->aborted, true);
	if (c->thread_started)
		pthread_join(c->thread, NULL);
	release_comm(c);
	return ncclSuccess;
}
FG_API ncclResult_t ncclCommAbort(ncclComm_t c) { return c ? ncclCommDestroy(c) : ncclSuccess; }
FG_API ncclResult_t ncclCommFinalize(ncclComm_t c) { return c ? ncclSuccess : ncclInvalidArgument; }
FG_API ncclResult_t ncclCommGetAsyncError(ncclComm_t c, ncclResult_t *e)
{
	if (!c || !e)
		return ncclInvalidArgument;
	*e = atomic_load(&c->async);
	return ncclSuccess;
}
FG_API ncclResult_t ncclCommCount(const ncclComm_t c, int *n) { *n = c->nranks; return ncclSuccess; }
FG_API ncclResult_t ncclCommCuDevice(const ncclComm_t c, int *d) { *d = c->dev; return ncclSuccess; }
FG_API ncclResult_t ncclCommUserRank(const ncclComm_t c, int *r) { *r = c->rank; return ncclSuccess; }

/* ncclMemAlloc (2.19): device memory from the fake CUDA of this process */
FG_API ncclResult_t ncclMemAlloc(void **ptr, size_t size)
{
	int (*alloc)(unsigned long long *, size_t) = (int (*)(unsigned long long *, size_t))cuda_sym("cuMemAlloc_v2");
	unsigned long long p = 0;
	if (!ptr || !alloc)
		return ncclInvalidArgument;
	if (alloc(&p, size) != 0)
		return ncclUnhandledCudaError;
	*ptr = (void *)(uintptr_t)p;
	return ncclSuccess;
}

FG_API ncclResult_t ncclMemFree(void *ptr)
{
	int (*release)(unsigned long long) = (int (*)(unsigned long long))cuda_sym("cuMemFree_v2");
	if (!release)
		return ncclInvalidArgument;
	return release((unsigned long long)(uintptr_t)ptr) == 0 ? ncclSuccess : ncclUnhandledCudaError;
}

/* Buffer registration (ncclCommRegister 2.19, ncclCommWindowRegister 2.27):
 * a handle that remembers its communicator and range; deregistering checks
 * it, as NCCL refuses a handle of another communicator. Nothing changes
 * how the fake moves data. */
#define FG_REG_MAGIC 0x52454731u
struct ncclWindow_vidmem {
	unsigned magic;
	ncclComm_t comm;
	void *buff;
	size_t size;
};

static void *reg_new(ncclComm_t c, void *buff, size_t size)
{
	if (!c || !buff || !size || atomic_load(&c->aborted))
		return NULL;
	struct ncclWindow_vidmem *w = calloc(1, sizeof(*w));
	if (w)
		*w = (struct ncclWindow_vidmem){ FG_REG_MAGIC, c, buff, size };
	return w;
}

static ncclResult_t reg_free(ncclComm_t c, void *h)
{
	struct ncclWindow_vidmem *w = h;
	if (!c || !w || w->magic != FG_REG_MAGIC || w->comm != c)
		return ncclInvalidArgument;
	w->magic = 0;
	free(w);
	return ncclSuccess;
}

FG_API ncclResult_t ncclCommRegister(const ncclComm_t c, void *buff, size_t size, void **handle)
{
	if (!handle || !(*handle = reg_new(c, buff, size)))
		return ncclInvalidArgument;
	info(c, "fake: registered %zu bytes at %p", size, buff);
	return ncclSuccess;
}
FG_API ncclResult_t ncclCommDeregister(const ncclComm_t c, void *handle) { return reg_free(c, handle); }

FG_API ncclResult_t ncclCommWindowRegister(ncclComm_t c, void *buff, size_t size, ncclWindow_t *win, int flags)
{
	if (!win || !(*win = reg_new(c, buff, size)))
		return ncclInvalidArgument;
	info(c, "fake: window of %zu bytes at %p, flags %d", size, buff, flags);
	return ncclSuccess;
}
FG_API ncclResult_t ncclCommWindowDeregister(ncclComm_t c, ncclWindow_t win) { return reg_free(c, win); }

/* --- arithmetic --- */
static size_t dt_size(ncclDataType_t t)
{
	switch (t) {
	case ncclInt8: case ncclUint8: return 1;
	case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
	case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
	default: return 0;
	}
}

/* U: the type the arithmetic is done in; unsigned for the integers, so that
 * sums and products wrap as the GPU's do (signed overflow is undefined in C) */
#define RED_LOOP_U(T, U) do { \
	T *d = (T *)dst; const T *s = (const T *)src; \
	switch (op) { /* outside the loop, so that the loops vectorise */ \
	case ncclProd: for (size_t i = 0; i < n; i++) d[i] = (T)((U)d[i] * (U)s[i]); break; \
	case ncclMax: for (size_t i = 0; i < n; i++) d[i] = d[i] > s[i] ? d[i] : s[i]; break; \
	case ncclMin: for (size_t i = 0; i < n; i++) d[i] = d[i] < s[i] ? d[i] : s[i]; break; \
	default: for (size_t i = 0; i < n; i++) d[i] = (T)((U)d[i] + (U)s[i]); break; \
	} \
} while (0)
#define RED_LOOP(T) RED_LOOP_U(T, T)

static void reduce_into(void *dst, const void *src, size_t n, ncclDataType_t t, ncclRedOp_t op)
{
	switch (t) {
	case ncclInt8: RED_LOOP_U(int8_t, uint32_t); break;
	case ncclUint8: RED_LOOP_U(uint8_t, uint32_t); break;
	case ncclInt32: RED_LOOP_U(int32_t, uint32_t); break;
	case ncclUint32: RED_LOOP(uint32_t); break;
	case ncclInt64: RED_LOOP_U(int64_t, uint64_t); break;
	case ncclUint64: RED_LOOP(uint64_t); break;
	case ncclFloat32: RED_LOOP(float); break;
	case ncclFloat64: RED_LOOP(double); break;
	default: break;
	}
}

#define AVG_LOOP(T) do { T *d = (T *)dst; for (size_t i = 0; i < n; i++) d[i] = (T)(d[i] / (T)k); } while (0)
static void divide(void *dst, size_t n, ncclDataType_t t, int k)
{
	switch (t) {
	case ncclInt8: AVG_LOOP(int8_t); break;
	case ncclUint8: AVG_LOOP(uint8_t); break;
	case ncclInt32: AVG_LOOP(int32_t); break;
	case ncclUint32: AVG_LOOP(uint32_t); break;
	case ncclInt64: AVG_LOOP(int64_t); break;
	case ncclUint64: AVG_LOOP(uint64_t); break;
	case ncclFloat32: AVG_LOOP(float); break;
	case ncclFloat64: AVG_LOOP(double); break;
	default: break;
	}
}

static char *slot(struct ncclComm *c, int r) { return c->slots + (size_t)r * SLOT; }

/* common entry checks; blocks for ever when the ring hangs */
static ncclResult_t enter(struct ncclComm *c, ncclDataType_t t, size_t count, const char *name)
{
	if (!c)
		return ncclInvalidArgument;
	if (!dt_size(t)) {
		snprintf(c->last_error, sizeof(c->last_error), "fakenccl: datatype %d not supported", t);
		warn("%s", c->last_error);
		return ncclInvalidArgument;
	}
	if (c->nonblocking && atomic_load(&c->async) != ncclSuccess) {
		snprintf(c->last_error, sizeof(c->last_error), "fakenccl: %s on a communicator that is not ready", name);
		return ncclInvalidUsage;
	}
	if (c->ring_hangs && (long long)(count * dt_size(t)) >= fg_scenario()->nccl_p2p_hang_min_bytes) {
		info(c, "fakenccl: %s blocks (scenario fault nccl_p2p_hang on a P2P ring link)", name);
		if (!c->nonblocking)
			fg_hang(name);
		/* nonblocking: the operation never completes; GetAsyncError says so */
		fprintf(stderr, "fakegpu: %s never completes (scenario fault)\n", name);
		atomic_store(&c->async, ncclInProgress);
		return ncclInProgress;
	}
	double slow = fg_scenario()->nccl_slow_ms_per_mib; /* a slow machine: slow, never stuck */
	if (slow > 0) {
		void (*busy)(double) = (void (*)(double))cuda_sym("fakegpu_cuda_busy");
		if (busy)
			busy(slow * (double)(count * dt_size(t)) / (1 << 20));
	}
	return ncclSuccess;
}

/* scenario fault nccl_corrupt: one byte of the result on that GPU flipped */
static void corrupt(const struct ncclComm *c, void *buf, size_t bytes)
{
	const struct fg_scenario *s = fg_scenario();
	if (bytes && c->dev >= 0 && c->dev < FG_MAX_GPUS && s->nccl_corrupt[c->dev])
		((unsigned char *)buf)[bytes / 2] ^= 0x5a;
}

/* With NCCL_DEBUG_SUBSYS naming TUNING (or ALL), rank 0 prints the
 * algorithm and protocol of every collective as NCCL 2.2x does (enqueue.cc);
 * the fake's choice: RING, LL below 64 KiB, LL128 below 1 MiB, else SIMPLE. */
static void tuning(const struct ncclComm *c, const char *func, size_t bytes)
{
	const char *sub = getenv("NCCL_DEBUG_SUBSYS");
	if (c->rank != 0 || !sub || (!strstr(sub, "TUNING") && !strstr(sub, "ALL")))
		return;
	info(c, "%s: %zu Bytes -> Algo RING proto %s channel{Lo..Hi}={0..0}", func, bytes,
	     bytes < (64u << 10) ? "LL" : bytes < (1u << 20) ? "LL128" : "SIMPLE");
}

static void model(struct ncclComm *c, double bytes_on_wire)
{
	advance_ms(bytes_on_wire / c->ring_bw * 1e3 + 0.01 * (c->nranks > 1 ? c->nranks - 1 : 0) + 0.005);
}

FG_API ncclResult_t ncclAllReduce(const void *sb, void *rb, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, cudaStream_t st)
{
	(void)st;
	ncclResult_t r = enter(c, t, count, "ncclAllReduce");
	if (r)
		return r;
	tuning(c, "AllReduce", count * dt_size(t));
	/* as a ring does: each rank reduces one share of the chunk (the others'
	 * slots read, its own share written back into its slot, which no other
	 * rank reads there), then every rank gathers the shares: n times less
	 * work in all than every rank reducing the whole chunk */
	size_t es = dt_size(t), per = SLOT / es;
	for (size_t off = 0; off < count; off += per) {
		size_t n = count - off < per ? count - off : per;
		memcpy(slot(c, c->rank), (const char *)sb + off * es, n * es);
		barrier(c);
		char *dst = (char *)rb + off * es;
		size_t share = (n + (size_t)c->nranks - 1) / (size_t)c->nranks;
		size_t lo = share * (size_t)c->rank < n ? share * (size_t)c->rank : n;
		size_t hi = lo + share < n ? lo + share : n;
		if (hi > lo) {
			memcpy(dst + lo * es, slot(c, 0) + lo * es, (hi - lo) * es);
			for (int k = 1; k < c->nranks; k++)
				reduce_into(dst + lo * es, slot(c, k) + lo * es, hi - lo, t, op);
			if (op == ncclAvg)
				divide(dst + lo * es, hi - lo, t, c->nranks);
			memcpy(slot(c, c->rank) + lo * es, dst + lo * es, (hi - lo) * es);
		}
		barrier(c);
		for (int k = 0; k < c->nranks; k++) {
			size_t klo = share * (size_t)k < n ? share * (size_t)k : n;
			size_t khi = klo + share < n ? klo + share : n;
			if (k != c->rank && khi > klo)
				memcpy(dst + klo * es, slot(c, k) + klo * es, (khi - klo) * es);
		}
		barrier(c);
	}
	model(c, 2.0 * (c->nranks - 1) / c->nranks * (double)count * es);
	corrupt(c, rb, count * es);
	return ncclSuccess;
}

FG_API ncclResult_t ncclReduce(const void *sb, void *rb, size_t count, ncclDataType_t t, ncclRedOp_t op, int root, ncclComm_t c, cudaStream_t st)
{
	(void)st;
	ncclResult_t r = enter(c, t, count, "ncclReduce");
	if (r)
		return r;
	tuning(c, "Reduce", count * dt_size(t));
	if (root < 0 || root >= c->nranks)
		return ncclInvalidArgument;
	size_t es = dt_size(t), per = SLOT / es;
	for (size_t off = 0; off < count; off += per) {
		size_t n = count - off < per ? count - off : per;
		memcpy(slot(c, c->rank), (const char *)sb + off * es, n * es);
		barrier(c);
		if (c->rank == root) {
			char *dst = (char *)rb + off * es;
			memcpy(dst, slot(c, 0), n * es);
			for (int k = 1; k < c->nranks; k++)
				reduce_into(dst, slot(c, k), n, t, op);
			if (op == ncclAvg)
				divide(dst, n, t, c->nranks);
		}
		barrier(c);
	}
	model(c, (double)count * es);
	if (c->rank == root)
		corrupt(c, rb, count * es);
	return ncclSuccess;
}

FG_API ncclResult_t ncclBroadcast(const void *sb, void *rb, size_t count, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st)
{
	(void)st;
	ncclResult_t r = enter(c, t, count, "ncclBroadcast");
	if (r)
		return r;
	tuning(c, "Broadcast", count * dt_size(t));
	if (root < 0 || root >= c->nranks)
		return ncclInvalidArgument;
	size_t es = dt_size(t), per = SLOT / es;
	for (size_t off = 0; off < count; off += per) {
		size_t n = count - off < per ? count - off : per;
		if (c->rank == root)
			memcpy(slot(c, root), (const char *)sb + off * es, n * es);
		barrier(c);
		memmove((char *)rb + off * es, slot(c, root), n * es);
		barrier(c);
	}
	model(c, (double)count * es);
	corrupt(c, rb, count * es);
	return ncclSuccess;
}

FG_API ncclResult_t ncclAllGather(const void *sb, void *rb, size_t count, ncclDataType_t t, ncclComm_t c, cudaStream_t st)
{
	(void)st;
	ncclResult_t r = enter(c, t, count, "ncclAllGather");
	if (r)
		return r;
	tuning(c, "AllGather", count * dt_size(t));
	size_t es = dt_size(t), per = SLOT / es;
	for (size_t off = 0; off < count; off += per) {
		size_t n = count - off < per ? count - off : per;
		memcpy(slot(c, c->rank), (const char *)sb + off * es, n * es);
		barrier(c);
		for (int k = 0; k < c->nranks; k++)
			memcpy((char *)rb + ((size_t)k * count + off) * es, slot(c, k), n * es);
		barrier(c);
	}
	model(c, (double)(c->nranks - 1) * count * es);
	corrupt(c, rb, (size_t)c->nranks * count * es);
	return ncclSuccess;
}

FG_API ncclResult_t ncclReduceScatter(const void *sb, void *rb, size_t count, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, cudaStream_t st)
{
	(void)st;
	ncclResult_t r = enter(c, t, count, "ncclReduceScatter");
	if (r)
		return r;
	tuning(c, "ReduceScatter", count * dt_size(t));
	size_t es = dt_size(t), per = SLOT / es / (size_t)c->nranks;
	for (size_t off = 0; off < count; off += per) {
		size_t n = count - off < per ? count - off : per;
		for (int d = 0; d < c->nranks; d++)
			memcpy(slot(c, c->rank) + (size_t)d * per * es, (const char *)sb + ((size_t)d * count + off) * es, n * es);
		barrier(c);
		char *dst = (char *)rb + off * es;
		memcpy(dst, slot(c, 0) + (size_t)c->rank * per * es, n * es);
		for (int k = 1; k < c->nranks; k++)
			reduce_into(dst, slot(c, k) + (size_t)c->rank * per * es, n, t, op);
		if (op == ncclAvg)
			divide(dst, n, t, c->nranks);
		barrier(c);
	}
	model(c, (double)(c->nranks - 1) * count * es);
	corrupt(c, rb, count * es);
	return ncclSuccess;
}

/* --- point to point: queued inside a group, progressed together at the end --- */
struct p2p_op {
	struct ncclComm *c;
	bool send;
	char *buf;
	size_t bytes, done;
	int peer;
	char *copy; /* send: the data as it was at the call (in-place exchanges) */
};
static _Thread_local struct p2p_op ops[256];
static _Thread_local int nops;

static char *mbox(struct ncclComm *c, int src, int dst)
{
	return c->mboxes + ((size_t)src * c->nranks + dst) * MBOX;
}

static ncclResult_t progress_ops(void)
{
	unsigned it = 0;
	for (;;) {
		bool pending = false, moved = false;
		for (int i = 0; i < nops; i++) {
			struct p2p_op *o = &ops[i];
			if (o->done >= o->bytes)
				continue;
			pending = true;
			struct ncclComm *c = o->c;
			if (o->send) {
				atomic_llong *len = &c->h->mbox[c->rank][o->peer];
				if (atomic_load(len) == 0) {
					size_t n = o->bytes - o->done < MBOX ? o->bytes - o->done : MBOX;
					memcpy(mbox(c, c->rank, o->peer), (o->copy ? o->copy : o->buf) + o->done, n);
					atomic_store(len, (long long)n);
					o->done += n;
					moved = true;
				}
			} else {
				atomic_llong *len = &c->h->mbox[o->peer][c->rank];
				long long n = atomic_load(len);
				if (n > 0) {
					if ((size_t)n > o->bytes - o->done)
						n = (long long)(o->bytes - o->done);
					memcpy(o->buf + o->done, mbox(c, o->peer, c->rank), (size_t)n);
					atomic_store(len, 0);
					o->done += (size_t)n;
					moved = true;
					if (o->done >= o->bytes)
						corrupt(c, o->buf, o->bytes);
				}
			}
		}
		if (!pending)
			break;
		if (!moved)
			spin_wait(&it);
		else
			it = 0;
	}
	for (int i = 0; i < nops; i++)
		free(ops[i].copy);
	nops = 0;
	return ncclSuccess;
}

static ncclResult_t queue_op(struct ncclComm *c, bool send, void *buf, size_t count, ncclDataType_t t, int peer)
{
	if (!c || peer < 0 || peer >= c->nranks)
		return ncclInvalidArgument;
	if (!dt_size(t))
		return ncclInvalidArgument;
	const struct fg_scenario *s = fg_scenario();
	int a = c->dev, b = c->h->dev[peer];
	if (c->nonblocking && atomic_load(&c->async) != ncclSuccess)
		return ncclInvalidUsage;
	if (p2p_used(a, b) && s->nccl_p2p_hang[a][b] && (long long)(count * dt_size(t)) >= s->nccl_p2p_hang_min_bytes) {
		info(c, "fakenccl: %s blocks (scenario fault nccl_p2p_hang)", send ? "ncclSend" : "ncclRecv");
		if (!c->nonblocking)
			fg_hang(send ? "ncclSend" : "ncclRecv");
		fprintf(stderr, "fakegpu: %s never completes (scenario fault)\n", send ? "ncclSend" : "ncclRecv");
		if (!group_depth) {
			atomic_store(&c->async, ncclInProgress);
			return ncclInProgress;
		}
		/* in a group the communicator's state changes at ncclGroupEnd */
		group_inprogress = true;
		for (int i = 0; i < 8; i++)
			if (!group_hung[i] || group_hung[i] == c) {
				group_hung[i] = c;
				break;
			}
		return ncclSuccess;
	}
	if (nops >= 256)
		return ncclInvalidUsage;
	size_t bytes = count * dt_size(t);
	if (bytes == 0)
		return ncclSuccess;
	char *copy = NULL;
	if (send && (copy = malloc(bytes)) != NULL)
		memcpy(copy, buf, bytes);
	ops[nops++] = (struct p2p_op){ c, send, buf, bytes, 0, peer, copy };
	double bw = p2p_used(a, b) ? fg_link_bw(s->link[a][b], s->nvl[a][b]) : env_is_1("NCCL_SHM_DISABLE") ? 2e9 : 10e9;
	advance_ms(bytes / bw * 1e3 + 0.005);
	return group_depth ? ncclSuccess : progress_ops();
}

FG_API ncclResult_t ncclSend(const void *sb, size_t count, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st)
{
	(void)st;
	return queue_op(c, true, (void *)sb, count, t, peer);
}

FG_API ncclResult_t ncclRecv(void *rb, size_t count, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st)
{
	(void)st;
	return queue_op(c, false, rb, count, t, peer);
}

FG_API ncclResult_t ncclGroupStart(void)
{
	group_depth++;
	return ncclSuccess;
}

FG_API ncclResult_t ncclGroupEnd(void)
{
	if (group_depth <= 0)
		return ncclInvalidUsage;
	if (--group_depth == 0) {
		ncclResult_t r = progress_ops();
		if (r == ncclSuccess && group_inprogress)
			r = ncclInProgress;
		for (int i = 0; i < 8 && group_hung[i]; i++) {
			atomic_store(&group_hung[i]->async, ncclInProgress);
			group_hung[i] = NULL;
		}
		group_inprogress = false;
		return r;
	}
	return ncclSuccess;
}

/* NCCL 2.28's alltoall, gather and scatter, built here as NCCL builds them:
 * grouped sends and receives (the loader hides them below 2.28, as it
 * hides every symbol newer than the library's version) */
static ncclResult_t grouped(struct ncclComm *c, ncclDataType_t t, const char *sb, size_t scount, bool sends_to_all,
			    char *rb, size_t rcount, bool recvs_from_all, int root)
{
	size_t es = dt_size(t);
	ncclResult_t r = ncclGroupStart();
	for (int p = 0; p < c->nranks && r == ncclSuccess; p++) {
		if (scount && (sends_to_all || p == root))
			r = queue_op(c, true, (void *)(sb + (sends_to_all ? (size_t)p * scount * es : 0)), scount, t, p);
		if (r == ncclSuccess && rcount && (recvs_from_all || p == root))
			r = queue_op(c, false, rb + (recvs_from_all ? (size_t)p * rcount * es : 0), rcount, t, p);
	}
	ncclResult_t r2 = ncclGroupEnd();
	return r != ncclSuccess ? r : r2;
}

FG_API ncclResult_t ncclAlltoAll(const void *sb, void *rb, size_t count, ncclDataType_t t, ncclComm_t c, cudaStream_t st)
{
	(void)st;
	ncclResult_t r = enter(c, t, count, "ncclAlltoAll");
	return r ? r : grouped(c, t, sb, count, true, rb, count, true, -1);
}

FG_API ncclResult_t ncclGather(const void *sb, void *rb, size_t count, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st)
{
	(void)st;
	ncclResult_t r = enter(c, t, count, "ncclGather");
	if (r)
		return r;
	if (root < 0 || root >= c->nranks)
		return ncclInvalidArgument;
	return grouped(c, t, sb, count, false, rb, c->rank == root ? count : 0, true, root);
}

FG_API ncclResult_t ncclScatter(const void *sb, void *rb, size_t count, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st)
{
	(void)st;
	ncclResult_t r = enter(c, t, count, "ncclScatter");
	if (r)
		return r;
	if (root < 0 || root >= c->nranks)
		return ncclInvalidArgument;
	return grouped(c, t, sb, c->rank == root ? count : 0, true, rb, count, false, root);
}
