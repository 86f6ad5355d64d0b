/* NCCL log reader: INFO lines into the per-process model (nccllog.h):
 * the init timeline stage, communicators and their fields, transports per
 * peer, environment overrides, the NCCL version. */
#include "analyze/logs/read/read.h"
#include "util/ncclver.h"

#include <stdio.h>

void nl_set_version(struct nl_proc *p, const char *v, size_t n, int file, uint64_t line)
{
	nccl_version_token(v, n, p->version, sizeof(p->version));
	p->version_file = file;
	p->version_line = line;
}

static struct nl_comm *comm_new(struct nl_proc *p, const char *ptr)
{
	if (p->ncomms >= NL_MAX_COMMS) {
		/* keep the newest: drop the oldest */
		memmove(&p->comms[0], &p->comms[1], sizeof(p->comms[0]) * (NL_MAX_COMMS - 1));
		p->ncomms--;
		p->comms_dropped++;
	}
	struct nl_comm *c = &p->comms[p->ncomms++];
	memset(c, 0, sizeof(*c));
	str_copy_cut(c->ptr, sizeof(c->ptr), ptr ? ptr : "");
	c->rank = c->nranks = c->cudadev = c->nvmldev = -1;
	c->nnodes = c->localranks = -1;
	c->init_total = -1;
	c->stage = 3;
	return c;
}

/* Whether a comm's pointer is ptr: both zero-padded to NL_PTR bytes
 * (comm_new() and info_comm() clear them first), so a compare of words. */
#define NL_PTR sizeof(((struct nl_comm *)0)->ptr)
static inline bool ptr_eq(const char *a, const char *b)
{
	return memcmp(a, b, NL_PTR) == 0;
}

/* The communicator a line belongs to: by pointer, else the current one.
 * ptr is zero-padded to NL_PTR bytes. */
static struct nl_comm *comm_by_ptr(struct nl_proc *p, const char *ptr, bool create)
{
	for (int i = ptr[0] ? p->ncomms - 1 : -1; i >= 0; i--)
		if (ptr_eq(p->comms[i].ptr, ptr) && !p->comms[i].destroyed)
			return &p->comms[i];
	/* an anonymous comm (versions without Init START) gets its pointer */
	if (p->ncomms && !p->comms[p->ncomms - 1].ptr[0] && !p->comms[p->ncomms - 1].complete) {
		str_copy_cut(p->comms[p->ncomms - 1].ptr, sizeof(p->comms[0].ptr), ptr);
		return &p->comms[p->ncomms - 1];
	}
	return create ? comm_new(p, ptr) : NULL;
}

/* The comm of a line that names none: the last one that is not finished,
 * or a new anonymous one for a stage past T2 (NCCL < 2.18.3 prints no Init
 * START). */
static struct nl_comm *comm_current(struct nl_proc *p, int stage)
{
	if (p->ncomms) {
		struct nl_comm *c = &p->comms[p->ncomms - 1];
		if (!c->destroyed && (!c->complete || stage >= 9))
			return c;
		if (c->complete && stage >= 9)
			return c;
	}
	if (stage < 3)
		return NULL;
	return comm_new(p, "");
}

static void set_stage(struct nl_proc *p, struct nl_comm *c, int stage, int file, uint64_t line)
{
	if (c) {
		if (stage > c->stage) {
			c->stage = stage;
			c->stage_line = line;
			c->file = file;
		}
	} else if (stage > p->stage0) {
		p->stage0 = stage;
	}
}

static void stage_current(struct nl_proc *p, int stage, int file, uint64_t line)
{
	if (stage <= 2) {
		set_stage(p, NULL, stage, file, line);
		return;
	}
	struct nl_comm *c = comm_current(p, stage);
	set_stage(p, c, stage, file, line);
}

/* The first " rank ", " nranks ", ... of a comm line, found in one pass over
 * its spaces (each key starts with one), as bscan_find_lit would find each. */
enum { CK_RANK, CK_NRANKS, CK_NRANKS2, CK_CUDADEV, CK_NVMLDEV, CK_BUSID, CK_COMMID, CK_N };

/* The key (if any) at the space sp, rest bytes from sp to the end. */
static inline void comm_key_at(const char *sp, size_t rest, const char *at[CK_N])
{
#define KEY(k, lit) (!at[k] && rest >= sizeof(lit) - 1 && memcmp(sp, lit, sizeof(lit) - 1) == 0 && (at[k] = sp))
	/* each key starts with a space and its own second byte */
	switch (sp[1]) {
	case 'r':
		(void)KEY(CK_RANK, " rank ");
		break;
	case 'n':
		(void)(KEY(CK_NRANKS, " nranks ") || KEY(CK_NRANKS2, " nRanks ") || KEY(CK_NVMLDEV, " nvmlDev "));
		break;
	case 'c':
		(void)(KEY(CK_CUDADEV, " cudaDev ") || KEY(CK_COMMID, " commId "));
		break;
	case 'b':
		(void)KEY(CK_BUSID, " busId ");
		break;
	default:
		break;
	}
#undef KEY
}

static void comm_keys_find(const char *m, size_t n, const char *at[CK_N])
{
	for (int k = 0; k < CK_N; k++)
		at[k] = NULL;
	if (n < 6)
		return;
	/* the spaces of 16 bytes at a time, each a key's possible start (a
	 * key needs 6 bytes from its space: the last 5 bytes hold none) */
	const bscan_v16 sp16 = (bscan_v16){ 0 } + ' ';
	size_t last = n - 6, i = 0;
	for (; i + 16 <= n; i += 16) {
		unsigned bits = bscan_bits16((bscan_v16)(bscan_load16(m + i) == sp16));
		for (; bits; bits &= bits - 1) {
			size_t j = i + (size_t)__builtin_ctz(bits);
			if (j > last)
				return;
			comm_key_at(m + j, n - j, at);
		}
	}
	for (; i <= last; i++)
		if (m[i] == ' ')
			comm_key_at(m + i, n - i, at);
}

/* int_after() for a key found at *at (NULL: not found) */
static bool int_at(const char *at, size_t keylen, const char *end, int *out)
{
	char tok[24];
	if (!at || !token_at(at + keylen, end, tok, sizeof(tok)))
		return false;
	return tok_int(tok, out);
}

static void comm_fields(struct nl_comm *c, const char *m, size_t n)
{
	const char *at[CK_N];
	const char *end = m + n;
	comm_keys_find(m, n, at);
	int v;
	if (int_at(at[CK_RANK], 6, end, &v))
		c->rank = v;
	if (int_at(at[CK_NRANKS], 8, end, &v) || int_at(at[CK_NRANKS2], 8, end, &v))
		c->nranks = v;
	if (int_at(at[CK_CUDADEV], 9, end, &v))
		c->cudadev = v;
	if (int_at(at[CK_NVMLDEV], 9, end, &v))
		c->nvmldev = v;
	if (at[CK_BUSID])
		token_at(at[CK_BUSID] + 7, end, c->busid, sizeof(c->busid));
	if (at[CK_COMMID])
		token_at(at[CK_COMMID] + 8, end, c->commid, sizeof(c->commid));
}

static void add_transport(struct nl_proc *p, int peer, const char *kind, size_t klen)
{
	if (klen > 31)
		klen = 31;
	for (int i = 0; i < p->ntr; i++)
		if (p->tr[i].peer == peer && memcmp(p->tr[i].kind, kind, klen) == 0 && p->tr[i].kind[klen] == '\0') {
			p->tr[i].count++;
			return;
		}
	if (p->ntr >= NL_MAX_TRANSPORTS)
		return;
	struct nl_transport *t = &p->tr[p->ntr++];
	t->peer = peer;
	memcpy(t->kind, kind, klen);
	t->kind[klen] = '\0';
	t->count = 1;
}

/* "Channel 00/0 : 0[0] -> 1[1] [send] via P2P/CUMEM/read"; via: its " via " */
static void parse_via(struct nl_proc *p, const char *m, size_t n, const char *via, int file, uint64_t line)
{
	if (!p->via_line) {
		nl_copy_clean(p->via_text, sizeof(p->via_text), m, n);
		p->via_file = file;
		p->via_line = line;
	}
	const char *colon = BSCAN_FIND(m, n, " : ");
	if (!via || !colon || colon > via)
		return;
	long a = -1, b = -1;
	const char *s = colon + 3;
	while (s < via && *s == ' ')
		s++;
	parse_num(s, (size_t)(via - s), &a);
	const char *arrow = BSCAN_FIND(s, (size_t)(via - s), "-> ");
	if (arrow)
		parse_num(arrow + 3, (size_t)(via - arrow - 3), &b);
	const char *k = via + 5;
	const char *kend = k;
	while (kend < m + n && *kend != ' ')
		kend++;
	struct nl_comm *c = p->ncomms ? &p->comms[p->ncomms - 1] : NULL;
	int self = c ? c->rank : -1;
	/* rank unknown yet (NCCL < 2.18.3 names it only at Init COMPLETE):
	 * a rank prints its send side "a -> b" and its "[receive]" side */
	int peer = self >= 0 ? (int)(a == self ? b : a) : BSCAN_FIND(m, n, "[receive]") ? (int)a : (int)b;
	add_transport(p, peer, k, (size_t)(kend - k));
}

static void add_env(struct nl_proc *p, const char *m, size_t n, const char *at, size_t atlen, int file, uint64_t line)
{
	const char *name = m;
	while (name < at && !(name[0] == 'N' && starts(name, (size_t)(at - name), "NCCL_")))
		name++;
	if (name >= at)
		return;
	size_t nl = (size_t)(at - name);
	const char *v = at + atlen;
	size_t vl = (size_t)(m + n - v);
	while (vl && (v[vl - 1] == '.' || v[vl - 1] == ' '))
		vl--;
	if (nl > 47)
		nl = 47;
	if (vl > 47)
		vl = 47;
	for (int i = 0; i < p->nenv; i++)
		if (strlen(p->env[i].name) == nl && memcmp(p->env[i].name, name, nl) == 0)
			return;
	if (p->nenv >= NL_MAX_ENV)
		return;
	struct nl_env *e = &p->env[p->nenv++];
	memcpy(e->name, name, nl);
	e->name[nl] = '\0';
	memcpy(e->value, v, vl);
	e->value[vl] = '\0';
	e->file = file;
	e->line = line;
}

/* INFO lines of the set-up before any communicator, and the timings at
 * its end: version, CUDA driver, bootstrap interface, network, affinity.
 * As info_stage. */
static int info_setup(struct nl_proc *p, int file, uint64_t line, const char *m, size_t n)
{
	switch (m[0]) {
	case 'N':
		if (starts(m, n, NCCL_VERSION_PREFIX)) {
			nl_set_version(p, m + 13, n - 13, file, line);
			set_stage(p, NULL, 0, file, line);
			return 1;
		}
		if (starts(m, n, "NET/") || starts(m, n, "NET : ")) {
			nl_model_net(p, file, line, m, n);
			set_stage(p, NULL, 2, file, line);
			return 0; /* some are signatures (S05, S16, S21) */
		}
		if (starts(m, n, "NVLS multicast support")) {
			stage_current(p, 4, file, line);
			return 1;
		}
		break;
	case 'c':
		if (starts(m, n, "cudaDriverVersion ")) {
			long v = 0;
			parse_num(m + 18, n - 18, &v);
			p->cuda_driver = (int)v;
			set_stage(p, NULL, 0, file, line);
			return 1;
		}
		break;
	case 'B':
		if (starts(m, n, "Bootstrap : Using") || starts(m, n, "Bootstrap: Using")) {
			const char *u = BSCAN_FIND(m, n, "Using") + 5;
			while (u < m + n && (*u == ' ' || *u == '['))
				u++;
			if (u < m + n && is_digit(*u)) { /* 2.7 "[0]eth0:..." */
				while (u < m + n && *u != ']')
					u++;
				if (u < m + n)
					u++;
			}
			size_t k = 0;
			while (u + k < m + n && u[k] != ' ' && k < sizeof(p->bootstrap_if) - 1)
				k++;
			nl_model_bootstrap_again(p, u, k);
			memcpy(p->bootstrap_if, u, k);
			p->bootstrap_if[k] = '\0';
			set_stage(p, NULL, 1, file, line);
			/* a link-local address is a signature too (SL01) */
			return BSCAN_FIND(m, n, "169.254.") ? 0 : 1;
		}
		if (starts(m, n, "Bootstrap timings")) {
			stage_current(p, 4, file, line);
			return 1;
		}
		break;
	case 'U':
		if (starts(m, n, "Using network ")) {
			size_t k = n - 14 < sizeof(p->net) - 1 ? n - 14 : sizeof(p->net) - 1;
			memcpy(p->net, m + 14, k);
			p->net[k] = '\0';
			set_stage(p, NULL, 2, file, line);
			return 1;
		}
		break;
	case 'I':
		if (starts(m, n, "Init timings")) {
			struct nl_comm *c = comm_current(p, 9);
			const char *t = BSCAN_FIND(m, n, " total ");
			if (c && t)
				c->init_total = strtod(t + 7, NULL);
			set_stage(p, c, 9, file, line);
			return 1;
		}
		break;
	case 'S':
		if (starts(m, n, "Setting affinity")) {
			stage_current(p, 4, file, line);
			return 1;
		}
		break;
	default:
		break;
	}
	return -1;
}

/* INFO lines that mark a stage of the init timeline (and the facts they
 * carry), by their first character: 1 explained, 0 seen but a signature
 * may match it, -1 not one of these lines. */
static int info_stage(struct nl_proc *p, int file, uint64_t line, const char *m, size_t n)
{
	switch (m[0]) {
	case 'C':
		if (starts(m, n, "Channel ")) {
			/* ring lines ("Channel 00/64 : 0 1") have no "[dev]" */
			const char *via = bscan_find_byte(m, '[', n) ? BSCAN_FIND(m, n, " via ") : NULL;
			if (via) {
				parse_via(p, m, n, via, file, line);
				struct nl_comm *c = p->ncomms ? &p->comms[p->ncomms - 1] : NULL;
				if (!c || !c->complete) {
					stage_current(p, 7, file, line);
					if (p->ncomms)
						p->comms[p->ncomms - 1].conn_in_init = true;
				} else {
					stage_current(p, 10, file, line);
				}
			} else {
				stage_current(p, 6, file, line);
			}
			return 1;
		}
		if (starts(m, n, "Connected all ") || starts(m, n, "Connected NVLS") || starts(m, n, "Connected Collnet")) {
			struct nl_comm *c = p->ncomms ? &p->comms[p->ncomms - 1] : NULL;
			stage_current(p, c && c->complete ? 10 : 7, file, line);
			return 1;
		}
		if (starts(m, n, "CC Off") || starts(m, n, "CC On")) {
			stage_current(p, 8, file, line);
			return 1;
		}
		if (starts(m, n, "Check P2P Type")) {
			stage_current(p, 6, file, line);
			return 1;
		}
		break;
	case 'R':
		/* 2.4-2.6: "Ring 00 : 0[0] -> 1[1] via P2P/IPC"; "Ring 00 :    0   1" */
		if (starts(m, n, "Ring ") && n > 7 && is_digit(m[5])) {
			const char *via = BSCAN_FIND(m, n, " via ");
			if (via) {
				parse_via(p, m, n, via, file, line);
				stage_current(p, 7, file, line);
				if (p->ncomms && !p->comms[p->ncomms - 1].complete)
					p->comms[p->ncomms - 1].conn_in_init = true;
			} else {
				stage_current(p, 6, file, line);
			}
			return 1;
		}
		break;
	case 'T':
		if (starts(m, n, "Trees")) {
			stage_current(p, 6, file, line);
			return 1;
		}
		break;
	case 'P':
		if (starts(m, n, "P2P Chunksize set to ")) {
			struct nl_comm *c = comm_current(p, 6);
			long v = 0;
			parse_num(m + 21, n - 21, &v);
			if (c)
				c->chunksize = (int)v;
			set_stage(p, c, 6, file, line);
			return 1;
		}
		break;
	default:
		break;
	}
	return -1;
}

/* INFO lines that name their communicator: "comm 0x..", "ncclCommInitRank
 * comm 0x..", "[Rank 0] ncclCommInitRankConfig comm 0x..". As info_stage. */
static int info_comm(struct nl_proc *p, int file, uint64_t line, const char *m, size_t n)
{
	if (m[0] == 'n' || m[0] == 'c' || m[0] == '[') {
		const char *cp = NULL, *t = m, *end = m + n;
		for (int tok = 0; tok < 4 && t < end; tok++) {
			if (starts(t, (size_t)(end - t), "comm 0x")) {
				cp = t;
				break;
			}
			const char *sp = bscan_find_byte(t, ' ', (size_t)(end - t));
			if (!sp)
				break;
			t = sp + 1;
		}
		if (cp) {
			char ptr[NL_PTR];
			memset(ptr, 0, sizeof(ptr));
			token_after(cp, (size_t)(m + n - cp), "comm ", ptr, sizeof(ptr));
			if (BSCAN_FIND(m, n, "Init START")) {
				struct nl_comm *c = NULL;
				/* a comm of this pointer still initializing is the same */
				for (int i = p->ncomms - 1; i >= 0 && !c; i--)
					if (ptr_eq(p->comms[i].ptr, ptr) && !p->comms[i].complete && !p->comms[i].destroyed)
						c = &p->comms[i];
				if (!c)
					c = comm_new(p, ptr);
				comm_fields(c, m, n);
				c->file = file;
				c->stage_line = line;
				return 1;
			}
			/* NCCL 2.3 ends it "- COMPLETE" (src/init.cu:599 at v2.3.7-1) */
			if (BSCAN_FIND(m, n, "Init COMPLETE") || BSCAN_FIND(m, n, " - COMPLETE")) {
				struct nl_comm *c = comm_by_ptr(p, ptr, true);
				comm_fields(c, m, n);
				c->complete = true;
				set_stage(p, c, 9, file, line);
				return 1;
			}
			if (BSCAN_FIND(m, n, " nNodes ")) {
				struct nl_comm *c = comm_by_ptr(p, ptr, true);
				int v;
				if (int_after(m, n, " rank ", &v))
					c->rank = v;
				if (int_after(m, n, " nRanks ", &v))
					c->nranks = v;
				if (int_after(m, n, " nNodes ", &v))
					c->nnodes = v;
				if (int_after(m, n, " localRanks ", &v))
					c->localranks = v;
				set_stage(p, c, 5, file, line);
				return 1;
			}
			if (BSCAN_FIND(m, n, "Destroy COMPLETE") || BSCAN_FIND(m, n, "Destroy START")) {
				struct nl_comm *c = comm_by_ptr(p, ptr, false);
				if (c)
					c->destroyed = true;
				return 1;
			}
			if (BSCAN_FIND(m, n, "Abort")) {
				struct nl_comm *c = comm_by_ptr(p, ptr, false);
				if (c)
					c->aborted = true;
				return 0;
			}
			/* NCCL 2.3/2.4 commAlloc: "comm %p rank %d nranks %d" (2.3.7
			 * src/init.cu:174; 2.4.x adds "cudaDev %d nvmlDev %d",
			 * src/init.cu:245 at v2.4.2-1), no "Init START" yet: the start */
			if (BSCAN_FIND(m, n, " nranks ") && !BSCAN_FIND(m, n, " - ")) {
				struct nl_comm *c = comm_by_ptr(p, ptr, true);
				comm_fields(c, m, n);
				c->file = file;
				c->stage_line = line;
				return 1;
			}
		}
	}
	return -1;
}

/* Structural parse of an INFO message: stages, comms, transports, env.
 * One dispatch on the first byte: each kind of line is tried only on the
 * rules that can take it, in this order: a collective call, the stage
 * lines (info_stage), the set-up lines (info_setup), the lines that name
 * their comm (info_comm), then the few below. */
bool nl_model_info(struct nl_proc *p, int file, uint64_t line, const char *m, size_t n, const char *colon)
{
	if (n == 0)
		return true;
	unsigned char c0 = (unsigned char)m[0];
	if (c0 >= 'A' && c0 <= 'Z') {
		/* a collective call (COLL subsystem), the bulk of big logs:
		 * "AllReduce: opCount 0 sendbuff ..." (its ':' in the first 24 bytes) */
		if (colon && colon - m < 24 && starts(colon, (size_t)(m + n - colon), ": opCount ")) {
			if (p->ncomms && p->comms[p->ncomms - 1].complete)
				set_stage(p, &p->comms[p->ncomms - 1], 10, file, line);
			return true;
		}
	}
	int r = -1;
	switch (c0) {
	case 'C':
	case 'R':
	case 'T':
	case 'P':
		r = info_stage(p, file, line, m, n);
		break;
	case 'B':
	case 'U':
	case 'I':
	case 'S':
		r = info_setup(p, file, line, m, n);
		break;
	case 'N':
		r = info_setup(p, file, line, m, n);
		if (r < 0) {
			/* NCCL_X set by environment to V */
			const char *env = BSCAN_FIND(m, n, " set by environment to ");
			if (env) {
				add_env(p, m, n, env, 23, file, line);
				return true;
			}
		}
		break;
	case 'c':
		r = info_setup(p, file, line, m, n);
		if (r < 0)
			r = info_comm(p, file, line, m, n);
		break;
	case '[':
		r = info_comm(p, file, line, m, n);
		break;
	case 'n':
		r = info_comm(p, file, line, m, n);
		if (r < 0 && BSCAN_FIND(m, n, "Affinity for GPU")) {
			stage_current(p, 4, file, line);
			return false; /* "is empty, ignoring" is a signature (S24) */
		}
		break;
	case 'A':
		if (BSCAN_FIND(m, n, "Affinity for GPU")) {
			stage_current(p, 4, file, line);
			return false;
		}
		break;
	case 't':
		if (starts(m, n, "threadThresholds")) {
			stage_current(p, 8, file, line);
			return true;
		}
		break;
	default:
		if (is_digit(m[0]) && BSCAN_FIND(m, n, " coll channels")) {
			stage_current(p, 8, file, line);
			return true;
		}
		break;
	}
	return r == 1;
}

/* The entries of "NET/Socket : Using [0]bond0:10.0.0.1<0> [1]veth12ab:fe80::1%veth12ab<0>"
 * on one line that are a Docker bridge, a veth pair or a libvirt bridge:
 * NCCL's interface search leaves out only docker* and lo by default
 * (N:misc/socket.cc ncclFindInterfaces "^docker,lo"), so with
 * NCCL_SOCKET_IFNAME unset a container host's veth and br- interfaces join
 * the real NIC in the list (NVIDIA/nccl#697). The one-a-line form users
 * paste wrapped is read by topomat.c. */
static void socket_virt(struct nl_proc *p, int file, uint64_t line, const char *m, size_t n)
{
	for (size_t i = 19; i + 3 < n; i++) {
		if (m[i] != '[' || (i > 19 && m[i - 1] != ' '))
			continue;
		size_t j = i + 1;
		while (j < n && j < i + 5 && m[j] >= '0' && m[j] <= '9')
			j++;
		if (j == i + 1 || j >= n || m[j] != ']')
			continue;
		j++;
		p->socket_n++;
		if (!nl_virt_if_name(m + j, n - j) || p->socket_virt_n++)
			continue;
		size_t e = j;
		while (e < n && m[e] != ' ')
			e++;
		raw_copy(p->socket_virt, sizeof(p->socket_virt), m + j, e - j);
		p->socket_virt_file = file;
		p->socket_virt_line = line;
	}
}

void nl_model_net(struct nl_proc *p, int file, uint64_t line, const char *m, size_t n)
{
	if (starts(m, n, "NET/Plugin")) {
		const char *t = bscan_find_lit(m, n, "Loaded net plugin ", 18);
		if (t) {
			const char *e = bscan_find_lit(t, n - (size_t)(t - m), " (v", 3);
			raw_copy(p->net_plugin, sizeof(p->net_plugin), t + 18, (size_t)((e ? e : m + n) - t - 18));
		} else if (!p->net_plugin[0] && (mem_has(m, n, "internal") || mem_has(m, n, "No plugin found") ||
						 mem_has(m, n, "Could not find"))) {
			str_copy_cut(p->net_plugin, sizeof(p->net_plugin), "internal");
		}
	} else if (starts(m, n, "NET/Socket : Using ") && !p->socket_if[0]) {
		const char *u = m + 19;
		if (u < m + n && *u == '[') /* "[0]eth0:10.0.0.1<0>" */
			while (u < m + n && *u++ != ']')
				;
		token_at(u, m + n, p->socket_if, sizeof(p->socket_if));
		socket_virt(p, file, line, m, n);
	} else if (starts(m, n, "NET/IB : Using") && !p->ib_hcas[0]) {
		const char *u = m + 14, *e = memchr(u, ';', n - 14);
		if (!e)
			e = m + n;
		while (u < e && (*u == ' ' || starts(u, (size_t)(e - u), "[RO]")))
			u += *u == ' ' ? 1 : 4;
		while (e > u && (e[-1] == ' ' || (e - u >= 4 && memcmp(e - 4, "[RO]", 4) == 0)))
			e -= e[-1] == ' ' ? 1 : 4;
		raw_copy(p->ib_hcas, sizeof(p->ib_hcas), u, (size_t)(e - u));
	} else if (starts(m, n, "NET/IB : No device found")) {
		str_copy_cut(p->ib_hcas, sizeof(p->ib_hcas), "none");
	}
}

void nl_model_bootstrap_again(struct nl_proc *p, const char *u, size_t k)
{
	const char *c = memchr(u, ':', k), *o = strchr(p->bootstrap_if, ':');
	if (!p->bootstrap_if[0] || p->bootstrap_if2[0] || !c || !o)
		return;
	size_t n1 = strcspn(o, "<"), n2 = (size_t)(u + k - c);
	const char *lt = memchr(c, '<', n2);
	if (lt)
		n2 = (size_t)(lt - c);
	if (n1 != n2 || memcmp(o, c, n1) != 0)
		str_copy_cut(p->bootstrap_if2, sizeof(p->bootstrap_if2), p->bootstrap_if);
}
