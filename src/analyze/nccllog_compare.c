/* NCCL log analysis: comparison across hosts (issue 14 item 8). A
 * difference between the hosts of one job is evidence: the network NCCL
 * picked (`Using network IB` against `Socket`), GPUDirect RDMA on the
 * network channels (`via NET/IB/0/GDRDMA` against none), the NET plugin
 * (`NET/Plugin: Loaded net plugin X (vN)` against the internal one), the
 * names of the interfaces of bootstrap and NET/Socket, the IB HCAs
 * (`NET/IB : Using [0]mlx5_0:1/IB ...` against `No device found`); so are
 * one hostname with two bootstrap addresses (two machines or containers
 * sharing a name) and, in a job of several hosts, a bootstrap address
 * others cannot reach (loopback, link-local, Docker's default bridge
 * 172.17.0.0/16). Line formats: src/plugin/net.cc, src/transport/net_ib.cc,
 * src/transport/net_socket.cc, src/bootstrap.cc of NCCL 2.18-2.30. NCCL
 * versions, drivers and NCCL variables that differ are compared in
 * nccllog_checks.c.
 * The two ends of one connection that disagree on a size are compared here
 * too: settings that differ between ranks are one of its two causes; so are
 * the libnccl files and NCCL wheels a log names: two different ones are
 * two NCCLs a process can load. */
#include "analyze/logs/rules/rules.h"
#include "analyze/nccllog_int.h"
#include "kb/findings.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Whether process p has network channels, and whether one of them uses GDR. */
static bool net_channels(const struct nl_proc *p, bool *gdr)
{
	bool any = false;
	*gdr = false;
	for (int k = 0; k < p->ntr; k++)
		if (strncmp(p->tr[k].kind, "NET/", 4) == 0) {
			any = true;
			*gdr |= strstr(p->tr[k].kind, "GDRDMA") != NULL;
		}
	return any;
}

static bool run_failed(const struct ana *a)
{
	return a->have_any_root || a->have_secondary || a->have_hang;
}

static void compare_net(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char l1[96], l2[96];
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!p->net[0])
			continue;
		for (int j = i + 1; j < lg->nprocs; j++) {
			const struct nl_proc *q = &lg->procs[j];
			if (!q->net[0] || strcmp(p->host, q->host) == 0 || strcmp(p->net, q->net) == 0)
				continue;
			struct finding *f = finding_add(a->r, FID_LOG_NET_DIFFERS, SEV_WARNING, "NCCL uses %s on %s but %s on %s",
							p->net, p->host, q->net, q->host);
			finding_evidence(f, file_name(lg, p->file), 0, "%s: Using network %s", proc_label(lg, i, l1, sizeof(l1)), p->net);
			finding_evidence(f, file_name(lg, q->file), 0, "%s: Using network %s", proc_label(lg, j, l2, sizeof(l2)), q->net);
			if (run_failed(a))
				cause_evidence(contribute(a, "ib_rdma_config", 0.4, FID_LOG_NET_DIFFERS), q->file, 0,
					       "hosts use different NCCL networks");
			return;
		}
	}
}

static void compare_gdr(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char l1[96], l2[96];
	for (int i = 0; i < lg->nprocs; i++) {
		bool gi, gj;
		const struct nl_proc *p = &lg->procs[i];
		if (!net_channels(p, &gi) || !gi)
			continue;
		for (int j = 0; j < lg->nprocs; j++) {
			const struct nl_proc *q = &lg->procs[j];
			if (strcmp(p->host, q->host) == 0 || !net_channels(q, &gj) || gj)
				continue;
			struct finding *f = finding_add(a->r, FID_LOG_GDR_DIFFERS, SEV_WARNING,
							"GPUDirect RDMA on %s, not on %s", p->host, q->host);
			finding_evidence(f, file_name(lg, p->via_file), (long)p->via_line, "%s: network channels with GDRDMA",
					 proc_label(lg, i, l1, sizeof(l1)));
			finding_evidence(f, file_name(lg, q->via_file), (long)q->via_line, "%s: network channels without GDRDMA",
					 proc_label(lg, j, l2, sizeof(l2)));
			if (run_failed(a))
				cause_evidence(contribute(a, "ib_rdma_config", 0.25, FID_LOG_GDR_DIFFERS), q->via_file, q->via_line,
					       "GPUDirect RDMA on some hosts only");
			return;
		}
	}
}

/* "eth0" of "eth0:10.0.0.1<0>" into out. */
static void if_name(const char *ifaddr, char *out, size_t outsz)
{
	size_t k = strcspn(ifaddr, ":<");
	if (k >= outsz)
		k = outsz - 1;
	memcpy(out, ifaddr, k);
	out[k] = '\0';
}

/* "10.0.0.1" of "eth0:10.0.0.1<0>" (IPv6: everything up to '<' or '%'). */
static void if_addr(const char *ifaddr, char *out, size_t outsz)
{
	const char *c = strchr(ifaddr, ':');
	out[0] = '\0';
	if (!c)
		return;
	size_t k = strcspn(c + 1, "<%");
	if (k >= outsz)
		k = outsz - 1;
	memcpy(out, c + 1, k);
	out[k] = '\0';
}

/* A field of the processes that differs between two hosts: one finding
 * naming both hosts and values. name_only compares interface names. */
static void compare_field(struct ana *a, size_t off, bool name_only, enum finding_id fid, const char *what,
			  const char *cause, double w, const char *evtext)
{
	const struct nccllog *lg = a->lg;
	char v1[64], v2[64], l1[96], l2[96];
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		const char *x = (const char *)p + off;
		if (!x[0])
			continue;
		for (int j = i + 1; j < lg->nprocs; j++) {
			const struct nl_proc *q = &lg->procs[j];
			const char *y = (const char *)q + off;
			if (!y[0] || strcmp(p->host, q->host) == 0)
				continue;
			if (name_only) {
				if_name(x, v1, sizeof(v1));
				if_name(y, v2, sizeof(v2));
			} else {
				str_copy_cut(v1, sizeof(v1), x);
				str_copy_cut(v2, sizeof(v2), y);
			}
			if (strcmp(v1, v2) == 0)
				continue;
			struct finding *f = finding_add(a->r, fid, SEV_WARNING, "%s: %s on %s, %s on %s", what, v1, p->host, v2, q->host);
			finding_evidence(f, file_name(lg, p->file), 0, "%s: %s %s", proc_label(lg, i, l1, sizeof(l1)), what, x);
			finding_evidence(f, file_name(lg, q->file), 0, "%s: %s %s", proc_label(lg, j, l2, sizeof(l2)), what, y);
			if (run_failed(a))
				cause_evidence(contribute(a, cause, w, fid), q->file, 0, evtext);
			return;
		}
	}
}

static bool multi_host(const struct nccllog *lg, const struct nl_proc *p)
{
	for (int j = 0; j < lg->nprocs; j++)
		if (strcmp(lg->procs[j].host, p->host) != 0)
			return true;
	const struct nl_comm *c = nl_proc_main_comm(p);
	return c && c->nnodes > 1;
}

/* One hostname, two bootstrap addresses: two machines share the name
 * (with one pid too, as containers have, their lines make one process). */
static void duplicate_hostname(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char x[64], y[64], l1[96], l2[96];
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if_addr(p->bootstrap_if, x, sizeof(x));
		if (!x[0])
			continue;
		if (p->bootstrap_if2[0]) {
			if_addr(p->bootstrap_if2, y, sizeof(y));
			struct finding *f = finding_add(a->r, FID_LOG_HOSTNAME_DUPLICATE, SEV_WARNING,
							"hostname %s bootstraps from %s and from %s", p->host, y, x);
			finding_evidence(f, file_name(lg, p->file), 0, "%s: Bootstrap : Using %s, then %s: the same hostname and pid in "
								"two containers or machines", proc_label(lg, i, l1, sizeof(l1)),
					 p->bootstrap_if2, p->bootstrap_if);
			if (run_failed(a))
				cause_evidence(contribute(a, "bootstrap_network", 0.35, FID_LOG_HOSTNAME_DUPLICATE), p->file, 0,
					       "two hosts share a hostname");
			return;
		}
		for (int j = i + 1; j < lg->nprocs; j++) {
			const struct nl_proc *q = &lg->procs[j];
			if (strcmp(p->host, q->host) != 0)
				continue;
			if_addr(q->bootstrap_if, y, sizeof(y));
			if (!y[0] || strcmp(x, y) == 0)
				continue;
			struct finding *f = finding_add(a->r, FID_LOG_HOSTNAME_DUPLICATE, SEV_WARNING,
							"hostname %s bootstraps from %s and from %s", p->host, x, y);
			finding_evidence(f, file_name(lg, p->file), 0, "%s: Bootstrap : Using %s", proc_label(lg, i, l1, sizeof(l1)),
					 p->bootstrap_if);
			finding_evidence(f, file_name(lg, q->file), 0, "%s: Bootstrap : Using %s", proc_label(lg, j, l2, sizeof(l2)),
					 q->bootstrap_if);
			if (run_failed(a))
				cause_evidence(contribute(a, "bootstrap_network", 0.35, FID_LOG_HOSTNAME_DUPLICATE), q->file, 0,
					       "two hosts share a hostname");
			return;
		}
	}
}

/* A bootstrap address other hosts cannot reach, whatever its interface's
 * name (a container's eth0 on Docker's default bridge is 172.17.x.y);
 * lo and docker* by name are LOG_BOOTSTRAP_VIRTUAL_IF (nccllog_checks.c). */
static void bootstrap_addr(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char ad[64], nm[32], lbl[96];
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if_addr(p->bootstrap_if, ad, sizeof(ad));
		if_name(p->bootstrap_if, nm, sizeof(nm));
		if (!ad[0] || strncmp(nm, "lo", 2) == 0 || strncmp(nm, "docker", 6) == 0 || !multi_host(lg, p))
			continue;
		const char *why = strncmp(ad, "127.", 4) == 0 || strcmp(ad, "::1") == 0 ? "a loopback address"
				  : strncmp(ad, "169.254.", 8) == 0 || strncasecmp(ad, "fe80:", 5) == 0 ? "a link-local address"
				  : strncmp(ad, "172.17.", 7) == 0 ? "on Docker's default bridge network (172.17.0.0/16)"
								   : NULL;
		if (!why)
			continue;
		struct finding *f = finding_add(a->r, FID_LOG_BOOTSTRAP_ADDR_SUSPECT, SEV_WARNING,
						"%s bootstraps from %s, %s, in a job of several hosts", p->host, ad, why);
		finding_evidence(f, file_name(lg, p->file), 0, "%s: Bootstrap : Using %s", proc_label(lg, i, lbl, sizeof(lbl)),
				 p->bootstrap_if);
		if (run_failed(a))
			cause_evidence(contribute(a, "bootstrap_network", 0.45, FID_LOG_BOOTSTRAP_ADDR_SUSPECT), p->file, 0,
				       "bootstrap address others cannot reach");
		return;
	}
}

/* A transport size mismatch (NET/Socket or bootstrap "message truncated",
 * NET/IB "collective mismatch error, local size X remote size Y"): besides
 * calls that differ between ranks (the signature's own class), NCCL's
 * maintainers name settings that differ between ranks (protocol, buffer
 * sizes; nccl#626, nccl PR #605): nccl_config_error 0.4, and different
 * NCCL versions ("a version or configuration mismatch between two ranks",
 * nccl#1328): version_mismatch 0.35. Bootstrap's own message already names
 * the versions first (S72b, check_bootstrap_truncated). */
/* A variable that changes how NCCL cuts a collective into messages, set to
 * different values (or on some ranks only) in two processes of the logs:
 * NCCL_PROTO and NCCL_ALGO are those the socket transport's own message
 * names (transport/net_socket.cc, "a mismatch in collective sizes or
 * environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks", 2.19+);
 * buffer, chunk and thread sizes cut the data the same way (NCCL's docs: its
 * variables must have the same value on every rank). Recorded on the H200
 * machine: NCCL_PROTO=LL on one rank, Simple on the other, "message
 * truncated : receiving 524288 bytes instead of 65536" (real-h200-2rank/
 * protodiff). */
const struct nl_env *shaping_env_differs(const struct nccllog *lg, const char **other, int *pi, int *pj)
{
	static const char *const vars[] = { "NCCL_PROTO", "NCCL_ALGO", "NCCL_BUFFSIZE", "NCCL_LL_BUFFSIZE",
					    "NCCL_LL128_BUFFSIZE", "NCCL_NTHREADS", "NCCL_LL128_NTHREADS",
					    "NCCL_P2P_NET_CHUNKSIZE", "NCCL_P2P_PCI_CHUNKSIZE", "NCCL_P2P_NVL_CHUNKSIZE",
					    "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_MIN_CTAS", "NCCL_MAX_CTAS" };
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].nenv; k++) {
			const struct nl_env *v = &lg->procs[i].env[k];
			bool shaping = false;
			for (size_t n = 0; n < sizeof(vars) / sizeof(vars[0]) && !shaping; n++)
				shaping = strcmp(v->name, vars[n]) == 0;
			if (!shaping)
				continue;
			for (int j = 0; j < lg->nprocs; j++) {
				const struct nl_proc *q = &lg->procs[j];
				if (j == i || !q->nenv)
					continue; /* a process with no variable line at all may just lack INFO */
				const char *val = "not set";
				for (int m = 0; m < q->nenv; m++)
					if (strcmp(q->env[m].name, v->name) == 0)
						val = q->env[m].value;
				if (strcasecmp(val, v->value) != 0) {
					*other = val;
					*pi = i;
					*pj = j;
					return v;
				}
			}
		}
	return NULL;
}

static void transport_size_mismatch(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		const char *t = e->text;
		bool boot = strstr(t, "Message truncated : received") != NULL;
		bool hit = strstr(t, "message truncated") || strstr(t, "Message truncated") ||
			   strstr(t, "collective mismatch error");
		if (!hit)
			continue;
		struct finding *f = finding_add(a->r, FID_LOG_TRANSPORT_SIZE_MISMATCH, SEV_WARNING,
						"the two ends of a connection expected different sizes");
		finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s", t);
		finding_evidence(f, NULL, 0, "inconsistent calls between ranks, or NCCL settings (protocol, buffers, "
					     "versions) that differ between ranks; NCCL_PROTO=Simple tells them apart");
		cause_evidence(contribute(a, "nccl_config_error", 0.4, FID_LOG_TRANSPORT_SIZE_MISMATCH), e->file, e->line, t);
		if (!boot)
			cause_evidence(contribute(a, "version_mismatch", 0.35, FID_LOG_TRANSPORT_SIZE_MISMATCH), e->file, e->line, t);
		const char *other;
		int pi, pj;
		const struct nl_env *v = shaping_env_differs(lg, &other, &pi, &pj);
		if (v) {
			char lbl[96], lbl2[96];
			finding_evidence(f, file_name(lg, v->file), (long)v->line, "%s: %s=%s, but %s: %s",
					 proc_label(lg, pi, lbl, sizeof(lbl)), v->name, v->value,
					 proc_label(lg, pj, lbl2, sizeof(lbl2)), other);
			cause_evidence(contribute(a, "nccl_config_error", 0.75, FID_LOG_TRANSPORT_SIZE_MISMATCH), v->file,
				       v->line, "a variable that cuts the data differs between ranks");
		}
		return;
	}
}

/* One libnccl a line names: "/usr/lib/x86_64-linux-gnu/libnccl.so.2" (dir
 * "/usr/lib/x86_64-linux-gnu", ver ".2"), "libnccl.so.2.23.4" (no dir), or a
 * wheel "nvidia-nccl-cu12==2.27.3" (dir "nvidia-nccl-cu12", ver "==2.27.3",
 * wheel). */
struct libnccl {
	char dir[96], ver[24];
	char tok[128]; /* as named */
	bool wheel;
};

/* The libnccl named at s + at (its key "libnccl.so" or "nvidia-nccl-cu"). */
static void libnccl_at(const char *line, const char *at, bool wheel, struct libnccl *l)
{
	static const char stop[] = " \t'\"()[],;:=<>";
	const char *b = at;
	while (!wheel && b > line && !strchr(stop, b[-1]))
		b--;
	const char *key_end = at + (wheel ? strlen("nvidia-nccl-cu") : strlen("libnccl.so"));
	const char *e = key_end;
	if (wheel)
		e += strspn(e, "0123456789");
	size_t dl = wheel ? (size_t)(e - at) : (size_t)(at - b);
	if (!wheel && dl && b[dl - 1] == '/')
		dl--;
	snprintf(l->dir, sizeof(l->dir), "%.*s", (int)(dl < sizeof(l->dir) ? dl : sizeof(l->dir) - 1), wheel ? at : b);
	const char *v = e;
	size_t vl = strspn(v, wheel ? "=0123456789." : "0123456789.");
	while (vl && v[vl - 1] == '.')
		vl--;
	snprintf(l->ver, sizeof(l->ver), "%.*s", (int)(vl < sizeof(l->ver) ? vl : sizeof(l->ver) - 1), v);
	size_t tl = (size_t)(v + vl - (wheel ? at : b));
	snprintf(l->tok, sizeof(l->tok), "%.*s", (int)(tl < sizeof(l->tok) ? tl : sizeof(l->tok) - 1), wheel ? at : b);
	l->wheel = wheel;
}

/* Whether two named libnccl are different libraries: wheels of other
 * names or versions; files in other directories (both named with one, no
 * shell variable), or whose versions differ (neither a prefix of the other:
 * ".2" and ".2.23.4" may be one file). */
static bool libnccl_differ(const struct libnccl *x, const struct libnccl *y)
{
	if (x->wheel != y->wheel)
		return false;
	if (x->wheel)
		return strcmp(x->dir, y->dir) != 0 || (x->ver[0] && y->ver[0] && strcmp(x->ver, y->ver) != 0);
	if (x->dir[0] && y->dir[0] && !strchr(x->dir, '$') && !strchr(y->dir, '$') && strcmp(x->dir, y->dir) != 0)
		return true;
	size_t a = strlen(x->ver), b = strlen(y->ver);
	return strncmp(x->ver, y->ver, a < b ? a : b) != 0;
}

/* Two different libnccl files or NCCL wheels named in the log (LB01):
 * two NCCLs a process can load (LOG_LIBNCCL_SEVERAL); version_mismatch
 * 0.45 in a run that failed. */
static void libnccl_several(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct libnccl seen[16];
	int nseen = 0;
	const struct nl_event *where[16];
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (strcmp(a->sigs[e->sig].id, "LB01") != 0)
			continue;
		for (int w = 0; w < 2; w++) {
			const char *key = w ? "nvidia-nccl-cu" : "libnccl.so";
			for (const char *at = strstr(e->text, key); at && nseen < 16; at = strstr(at + 1, key)) {
				struct libnccl l;
				libnccl_at(e->text, at, w == 1, &l);
				for (int k = 0; k < nseen; k++) {
					if (!libnccl_differ(&seen[k], &l))
						continue;
					struct finding *f = finding_add(a->r, FID_LOG_LIBNCCL_SEVERAL, SEV_WARNING,
									"the log names two different %s: %s and %s",
									l.wheel ? "NCCL wheels" : "libnccl files", seen[k].tok, l.tok);
					finding_evidence(f, file_name(lg, where[k]->file), (long)where[k]->line, "%s", where[k]->text);
					finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s", e->text);
					if (run_failed(a)) {
						struct cause_acc *c = contribute(a, "version_mismatch", 0.45, FID_LOG_LIBNCCL_SEVERAL);
						cause_evidence(c, where[k]->file, where[k]->line, where[k]->text);
						cause_evidence(c, e->file, e->line, e->text);
					}
					return;
				}
				where[nseen] = e;
				seen[nseen++] = l;
			}
		}
	}
}

/* A SIGBUS (LOG_SHM_SIGBUS rows) after a framework's libnccl load line
 * (LB01: vLLM's "Loading nccl from library X" / "Found nccl from library X")
 * in the same file, with no NCCL line of that file after the load: NCCL
 * never started, so no /dev/shm segment existed; the process died touching
 * the mapped library (LOG_NCCL_LIB_LOAD_CRASH, as LD02 on one line). The
 * SIGBUS's /dev/shm reading steps back (0.2) unless another /dev/shm
 * signature speaks for it. */
static void lib_load_sigbus(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *b = &lg->ev[i];
		if (a->sigs[b->sig].fid != FID_LOG_SHM_SIGBUS)
			continue;
		const struct nl_event *load = NULL;
		for (size_t k = 0; k < lg->nev; k++) {
			const struct nl_event *e = &lg->ev[k];
			if (strcmp(a->sigs[e->sig].id, "LB01") == 0 && e->file == b->file && e->line < b->line &&
			    strstr(e->text, "nccl from library"))
				load = e;
		}
		if (!load)
			continue;
		bool nccl_after = false;
		for (int p = 0; p < lg->nprocs; p++)
			if (lg->procs[p].last_file == b->file && lg->procs[p].last_line > load->line)
				nccl_after = true;
		if (nccl_after)
			continue;
		struct finding *f = finding_add(a->r, FID_LOG_NCCL_LIB_LOAD_CRASH, SEV_ERROR,
						"a process died of SIGBUS right after loading libnccl, before NCCL printed anything");
		struct cause_acc *c = contribute(a, "version_mismatch", 0.7, FID_LOG_NCCL_LIB_LOAD_CRASH);
		event_evidence(a, f, c, load);
		event_evidence(a, f, c, b);
		bool other_shm = false;
		for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++)
			if (lg->sigcount[s] && a->sigs[s].fid != FID_LOG_SHM_SIGBUS &&
			    strcmp(nccl_signature_cause(&a->sigs[s]), "shm_too_small") == 0)
				other_shm = true;
		for (int j = 0; j < a->ncauses && !other_shm; j++)
			if (strcmp(a->causes[j].cause, "shm_too_small") == 0 && a->causes[j].conf > 0.2)
				a->causes[j].conf = 0.2;
		return;
	}
}

void compare_hosts(struct ana *a)
{
	compare_net(a);
	compare_gdr(a);
	compare_field(a, offsetof(struct nl_proc, net_plugin), false, FID_LOG_NET_PLUGIN_DIFFERS, "NET plugin", "ib_rdma_config",
		      0.3, "hosts load different NET plugins");
	compare_field(a, offsetof(struct nl_proc, bootstrap_if), true, FID_LOG_SOCKET_IF_DIFFERS, "bootstrap interface",
		      "bootstrap_network", 0.25, "hosts bootstrap over differently named interfaces");
	if (!finding_get(a->r, FID_LOG_SOCKET_IF_DIFFERS))
		compare_field(a, offsetof(struct nl_proc, socket_if), true, FID_LOG_SOCKET_IF_DIFFERS, "NET/Socket interface",
			      "bootstrap_network", 0.2, "hosts use differently named NET/Socket interfaces");
	compare_field(a, offsetof(struct nl_proc, ib_hcas), false, FID_LOG_IB_HCA_DIFFERS, "IB devices", "ib_rdma_config", 0.3,
		      "hosts use different IB devices");
	duplicate_hostname(a);
	bootstrap_addr(a);
	transport_size_mismatch(a);
	libnccl_several(a);
	lib_load_sigbus(a);
}
