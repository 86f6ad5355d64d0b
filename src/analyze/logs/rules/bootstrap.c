/* NCCL log analysis, bootstrap and the network between hosts
 * (bootstrap_network): a connection closed during bootstrap, bootstrap
 * over a virtual interface or from an address others cannot reach, hosts
 * that bootstrap over differently named interfaces or share a hostname,
 * Docker bridges in NET/Socket's list, NCCL 2.18's internal error. */
#include "analyze/logs/rules/rules.h"
#include "analyze/logs/text.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Whether NCCL version text v ("2.27.3+cuda12.9") is 2.27.3 or newer;
 * false when it is not a version. */
static bool v2273_or_newer(const char *v)
{
	int mj = 0, mn = 0, pt = 0;
	if (sscanf(v, "%d.%d.%d", &mj, &mn, &pt) != 3)
		return false;
	return mj > 2 || (mj == 2 && (mn > 27 || (mn == 27 && pt >= 3)));
}

/* "Connection closed by remote peer" (S08) whose back-trace goes through
 * bootstrap.cc, in a process that never got past bootstrap (stage below
 * T5): a connection to the bootstrap socket closed before the exchange.
 * Before 2.27.3, N:misc/socket.cc socketFinalizeAccept fails on a
 * connection that closes before its 8-byte magic (a port scan, a health
 * check, a stale rank of another job) instead of accepting again; 2.27.3
 * added socketResetAccept (v2.27.3-1, nccl#1612, maintainer: resolved in
 * 2.27.3). driver_or_kernel_bug 0.3 unless a process printed 2.27.3 or
 * newer, and bootstrap_network 0.25: who closed it is not a rank that
 * had a communicator yet. The dead peer of S08 keeps its own weight. */
void bootstrap_peer_closed(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (strcmp(a->sigs[e->sig].id, "S08") != 0 || !strstr(e->text, "Connection closed by remote peer") ||
		    !strstr(e->chain, "bootstrap.cc:"))
			continue;
		if (e->proc >= 0 && e->proc < lg->nprocs && stage_of(&lg->procs[e->proc]) >= 5)
			continue;
		const char *fixed = NULL;
		for (int p = 0; p < lg->nprocs && !fixed; p++)
			if (v2273_or_newer(lg->procs[p].version))
				fixed = lg->procs[p].version;
		struct finding *f = finding_for(a->r, FID_LOG_BOOTSTRAP_PEER_CLOSED, SEV_WARNING,
						"a connection closed during NCCL's bootstrap, before the ranks had joined");
		finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s (back-trace: %s)", e->text, e->chain);
		if (fixed) {
			finding_evidence(f, NULL, 0, "NCCL %s ignores connections that close before their magic: "
						     "not the bug fixed in 2.27.3", fixed);
		} else {
			finding_evidence(f, NULL, 0, "before NCCL 2.27.3 such a connection fails the bootstrap (no version "
						     "2.27.3 or newer in the log)");
			struct cause_acc *c = contribute(a, "driver_or_kernel_bug", 0.3, FID_LOG_BOOTSTRAP_PEER_CLOSED);
			cause_evidence(c, e->file, e->line, e->text);
		}
		struct cause_acc *c = contribute(a, "bootstrap_network", 0.25, FID_LOG_BOOTSTRAP_PEER_CLOSED);
		cause_evidence(c, e->file, e->line, e->text);
		return;
	}
}

/* A back-trace line through bootstrap.cc that returned an error (`bootstrap.cc:270 -> 2`)
 * with no WARN before it, in a log where nothing else is a root failure:
 * N:misc/socket.cc returns ncclSystemError from a socket call that failed
 * (connect, accept, send, recv) with at most an INFO line, and bootstrap
 * has no fallback: the error ends NCCL's init (init.cc frames follow).
 * The frame, not a message, says where: bootstrap_network 0.45, below a
 * WARN that names its class (0.55). nccl#1000 (ranks in containers
 * bootstrapping over the wrong interface: NCCL_SOCKET_IFNAME). */
void bootstrap_orphan_trail(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->have_root || !lg->orphan_boot.line)
		return;
	char title[160];
	snprintf(title, sizeof(title), "NCCL's bootstrap returned an error without a warning: %s", lg->orphan_boot.text);
	struct finding *f = finding_for(a->r, FID_LOG_BOOTSTRAP_TRAIL, SEV_ERROR, title);
	finding_evidence(f, file_name(lg, lg->orphan_boot.file), (long)lg->orphan_boot.line, "%s", lg->orphan_boot.text);
	a->have_any_root = a->have_root = true;
	struct cause_acc *c = contribute(a, "bootstrap_network", 0.45, FID_LOG_BOOTSTRAP_TRAIL);
	cause_evidence(c, lg->orphan_boot.file, lg->orphan_boot.line, lg->orphan_boot.text);
}

/* "lo:127.0.0.1<0>", a virtual, overlay or wireless interface
 * (nl_virt_if_name), or an IPv6 link-local address. */
static bool virtual_if(const char *ifaddr)
{
	return strncmp(ifaddr, "lo:", 3) == 0 || nl_virt_if_name(ifaddr, strlen(ifaddr)) || strstr(ifaddr, ":fe80") != NULL;
}

/* NCCL found no interface for its sockets ("Bootstrap : no socket interface
 * found", "NET/Socket : no interface found") while NCCL_SOCKET_IFNAME is
 * set: the value names no interface of the host (ib0 on a machine without
 * IPoIB, eth0 where the NIC is ens5, a list whose every name is excluded).
 * NCCL reads /etc/nccl.conf, ~/.nccl.conf and the file NCCL_CONF_FILE names
 * into its environment and reports their values as "set by environment"
 * too (N:misc/param.cc), so a user who never exported the variable is
 * told where else it comes from. Evidence only, ahead of the warning's
 * own lines on bootstrap_network (the row's class). */
void socket_ifname_unmatched(struct ana *a)
{
	struct finding *f = finding_get(a->r, FID_LOG_BOOTSTRAP_NO_INTERFACE);
	const struct nl_env *v = f ? log_env(a->lg, "NCCL_SOCKET_IFNAME") : NULL;
	if (!v)
		return;
	env_explains(a, f, "bootstrap_network", v,
		     "(set by the environment, or by /etc/nccl.conf, ~/.nccl.conf or NCCL_CONF_FILE, which NCCL "
		     "reports the same way) names no interface of the host");
	finding_fix(f, "env", "NCCL picks an interface itself; or name one `ip -br addr` lists", "unset NCCL_SOCKET_IFNAME");
}

/* Bootstrap over a virtual or loopback interface. */
void check_bootstrap_if(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96];
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (p->bootstrap_if[0] && virtual_if(p->bootstrap_if)) {
			bool multinode = false;
			for (int j = 0; j < lg->nprocs; j++)
				if (strcmp(lg->procs[j].host, p->host) != 0)
					multinode = true;
			const struct nl_comm *c = nl_proc_main_comm(p);
			if (c && c->nnodes > 1)
				multinode = true;
			/* Wi-Fi or a VPN carries one host's bootstrap fine (a
			 * desktop: 049); it matters across hosts */
			if (!multinode && nl_if_name_reachable(p->bootstrap_if, strlen(p->bootstrap_if)))
				continue;
			struct finding *f = finding_for(a->r, FID_LOG_BOOTSTRAP_VIRTUAL_IF, multinode ? SEV_WARNING : SEV_INFO,
							"NCCL bootstraps over a virtual or loopback interface");
			finding_evidence(f, file_name(lg, p->file), 0, "%s: Bootstrap: Using %s", proc_label(lg, i, lbl, sizeof(lbl)), p->bootstrap_if);
			if (multinode)
				contribute(a, "bootstrap_network", 0.35, FID_LOG_BOOTSTRAP_VIRTUAL_IF);
			break;
		}
	}
}

/* Whether process p is one of several hosts (also rules.h): another host
 * in the log, a communicator of several nodes, or every peer reached over
 * the network. */
bool multi_host(const struct ana *a, const struct nl_proc *p)
{
	const struct nccllog *lg = a->lg;
	if (a->launch_nodes > 1)
		return true;
	for (int j = 0; j < lg->nprocs; j++)
		if (strcmp(lg->procs[j].host, p->host) != 0)
			return true;
	const struct nl_comm *c = nl_proc_main_comm(p);
	if (c && c->nnodes > 1)
		return true;
	/* every peer reached over the network: NCCL joins the ranks of one
	 * host by P2P or SHM, so with SHM not switched off the peers are on
	 * other hosts (an NCCL 2.7 log names no node count: 234); with SHM
	 * off, GPUs of one host without P2P between them go over the network
	 * too */
	if (!p->ntr || var_set_to_1(a, "NCCL_SHM_DISABLE"))
		return false;
	for (int k = 0; k < p->ntr; k++)
		if (strncmp(p->tr[k].kind, "NET/", 4) != 0 && strncmp(p->tr[k].kind, "COLLNET", 7) != 0)
			return false;
	return true;
}

void bootstrap_if_differs(struct ana *a)
{
	compare_field(a, offsetof(struct nl_proc, bootstrap_if), true, FID_LOG_SOCKET_IF_DIFFERS, "bootstrap interface",
		      "bootstrap_network", 0.25, "hosts bootstrap over differently named interfaces");
}

/* NET/Socket's interfaces, when bootstrap's did not differ already. */
void socket_if_differs(struct ana *a)
{
	if (!finding_get(a->r, FID_LOG_SOCKET_IF_DIFFERS))
		compare_field(a, offsetof(struct nl_proc, socket_if), true, FID_LOG_SOCKET_IF_DIFFERS, "NET/Socket interface",
			      "bootstrap_network", 0.2, "hosts use differently named NET/Socket interfaces");
}

/* One hostname, two bootstrap addresses: two machines share the name
 * (with one pid too, as containers have, their lines make one process). */
void duplicate_hostname(struct ana *a)
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
 * lo and docker* by name are LOG_BOOTSTRAP_VIRTUAL_IF (check_bootstrap_if). */
void bootstrap_addr(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char ad[64], nm[32], lbl[96];
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if_addr(p->bootstrap_if, ad, sizeof(ad));
		if_name(p->bootstrap_if, nm, sizeof(nm));
		if (!ad[0] || strncmp(nm, "lo", 2) == 0 || strncmp(nm, "docker", 6) == 0 || !multi_host(a, p))
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

/* Virtual, overlay or wireless interfaces (nl_virt_if_name) in NET/Socket's
 * list of a run that failed,
 * hung or stopped before init completed (the timeline's a->failed with a
 * rank short of Init COMPLETE): context for bootstrap_network, as a
 * signature of the context role would give, weighed by whether the sockets
 * matter. The list is pasted one entry a line (topomat.c) or whole on
 * NCCL's line (info.c, per process). */
void virt_ifs(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_topomat *tm = &lg->topomat;
	int pi = -1, nprocs = 0;
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].socket_virt_n) {
			nprocs++;
			if (pi < 0)
				pi = i;
		}
	if ((!tm->nvirt_if && pi < 0) || !(run_failed(a) || (a->failed && init_unfinished(lg))))
		return;
	/* where the sockets matter: ranks on several hosts, or lines with no
	 * host to tell (0.35); a log of one named host that stopped in
	 * bootstrap (T1-T5) may be one node of many or a workstation whose
	 * ranks never use the network (116, 159: one machine's veths, an
	 * IOMMU): below the stage's own prior (0.08) */
	bool several = lg->nprocs == 0, early = false;
	for (int i = 0; i < lg->nprocs; i++) {
		int st = stage_of(&lg->procs[i]);
		/* pid 0: lines pasted without their host:pid header (read.h) */
		several = several || lg->procs[i].pid == 0 || multi_host(a, &lg->procs[i]);
		early = early || (st >= 0 && st <= 5);
	}
	if (!several && !early)
		return;
	struct finding *f = finding_for(a->r, FID_LOG_BOOTSTRAP_VIRTUAL_IF, SEV_WARNING,
					"NCCL's socket interfaces include bridges, veth pairs, overlays or wireless interfaces");
	struct cause_acc *c = contribute(a, "bootstrap_network", several ? 0.35 : 0.08, FID_LOG_BOOTSTRAP_VIRTUAL_IF);
	if (tm->nvirt_if) {
		finding_evidence(f, file_name(lg, tm->virt_file), (long)tm->virt_line, "%s (%d such interface%s)",
				 tm->virt_text, tm->nvirt_if, tm->nvirt_if == 1 ? "" : "s");
		cause_evidence(c, tm->virt_file, tm->virt_line, tm->virt_text);
	}
	if (pi >= 0) {
		const struct nl_proc *p = &lg->procs[pi];
		char lbl[96];
		finding_evidence(f, file_name(lg, p->socket_virt_file), (long)p->socket_virt_line,
				 "%s: NET/Socket : Using ... %s (%d of the list's %d interfaces are such; %d process%s)",
				 proc_label(lg, pi, lbl, sizeof(lbl)), p->socket_virt, p->socket_virt_n, p->socket_n, nprocs,
				 nprocs == 1 ? "" : "es");
		cause_evidence(c, p->socket_virt_file, p->socket_virt_line, p->socket_virt); /* kept by the log */
		if (p->socket_n > p->socket_virt_n && strncmp(p->socket_if, p->socket_virt, strcspn(p->socket_virt, ":<")) != 0)
			finding_fix(f, "env", "NCCL's sockets on the real NIC only (`ip -br addr` names it)",
				    "export NCCL_SOCKET_IFNAME=%.*s", (int)strcspn(p->socket_if, ":<"), p->socket_if);
	}
	if (!several)
		finding_evidence(f, NULL, 0, "the log shows one host: this matters if the job spans several");
}

/* The NCCL version a framework's error line names ("..., NCCL version
 * 2.18.1"): minor version of 2.x, -1 when none. */
static int line_minor(const char *t)
{
	const char *v = strstr(t, "NCCL version 2.");
	if (!v)
		return -1;
	v += strlen("NCCL version 2.");
	if (*v < '0' || *v > '9')
		return -1;
	return (int)strtol(v, NULL, 10);
}

/* A framework's "internal error" with NCCL 2.18 in the same line or the
 * log's version line: the maintainer's answer in NVIDIA/nccl#1092 is that
 * 2.18 reports network errors as internal errors; bootstrap_network 0.25,
 * ahead of the code's generic priors (driver 0.2). */
void internal_error_218(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->have_root)
		return;
	bool v218 = false;
	for (int i = 0; i < lg->nprocs && !v218; i++)
		v218 = strncmp(lg->procs[i].version, "2.18.", 5) == 0;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].fid != FID_LOG_NCCL_ERROR || !strstr(e->text, "internal error"))
			continue;
		int m = line_minor(e->text);
		if (m != 18 && !(m < 0 && v218))
			continue;
		struct finding *f = finding_for(a->r, FID_LOG_NCCL_218_INTERNAL_ERROR, SEV_WARNING,
						"NCCL 2.18 reported an internal error: in 2.18 network errors show so");
		event_evidence(a, f, contribute(a, "bootstrap_network", 0.25, FID_LOG_NCCL_218_INTERNAL_ERROR), e);
		return;
	}
}

/* The node count a launcher line names (LN01, LN02): the largest number
 * after one of its keys ("--nnodes=2", "--nnodes 1:4" takes 4,
 * "SLURM_NNODES=2"), 2 for a "--node_rank" above 0 (a second node exists),
 * 0 when none is a number ("--nnodes=$NNODES"). */
static int launch_nodes_of(const char *t)
{
	static const char *const keys[] = { "--nnodes", "--num_nodes", "--num_machines", "--nodes=",
					    "SLURM_NNODES=", "SLURM_JOB_NUM_NODES=", "num_nodes=", "--node_rank" };
	int best = 0;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		size_t kl = strlen(keys[k]);
		for (const char *s = strstr(t, keys[k]); s; s = strstr(s + kl, keys[k])) {
			const char *v = s + kl;
			while (*v == '=' || *v == ' ' || *v == '"' || *v == '\'')
				v++;
			for (;;) {
				if (*v < '0' || *v > '9')
					break;
				char *end;
				long n = strtol(v, &end, 10);
				v = end;
				if (k == sizeof(keys) / sizeof(keys[0]) - 1)
					n = n > 0 ? 2 : 0;
				if (n > best && n < 100000)
					best = (int)n;
				if (*v != ':')
					break;
				v++;
			}
		}
	}
	return best;
}

/* A launcher line that starts the job on several nodes (torchrun --nnodes,
 * DeepSpeed --num_nodes, accelerate --num_machines, Slurm --nodes): where
 * the log's own lines name one host or none, the job still spans several,
 * and the rules weigh it as they weigh a log of several hosts (multi_host,
 * the timeline's stage summary). */
void launcher_nodes(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].fid != FID_LOG_LAUNCH_SEVERAL_NODES)
			continue;
		int n = launch_nodes_of(e->text);
		if (n > a->launch_nodes)
			a->launch_nodes = n;
	}
	if (a->launch_nodes < 2)
		return;
	struct finding *f = finding_get(a->r, FID_LOG_LAUNCH_SEVERAL_NODES);
	if (f) {
		free(f->title);
		f->title = xasprintf("the launcher starts the job on %d nodes", a->launch_nodes);
	}
}

/* The store key of a barrier line: after "key: " (a waiting or timed-out
 * line) or "for key:" (a completed one), up to the next blank, ',' or
 * ')'; its length in *n, NULL when the line names none. */
static const char *barrier_key(const char *t, size_t *n)
{
	const char *k = strstr(t, "for key:");
	if (k)
		k += 8;
	else if ((k = strstr(t, "key: ")))
		k += 5;
	else
		return NULL;
	*n = strcspn(k, " ,)");
	return *n ? k : NULL;
}

/* The counts of TCPStore's 'Timed out after N seconds waiting for
 * clients. C/W clients joined.' (PT04/PT05; the server counts its own
 * rank's client too) into *c and *w; false when the line holds none. */
static bool clients_joined(const char *t, int *c, int *w)
{
	const char *p = strstr(t, " clients joined");
	if (!p)
		return false;
	const char *q = p;
	while (q > t && isdigit((unsigned char)q[-1]))
		q--;
	if (q == p || q == t || q[-1] != '/')
		return false;
	const char *r = q - 1;
	while (r > t && isdigit((unsigned char)r[-1]))
		r--;
	if (r == q - 1 || p - q > 6 || q - 1 - r > 6)
		return false;
	*c = atoi(r);
	*w = atoi(q);
	return true;
}

/* PyTorch's store-based barrier at the end of init_process_group (PT05w's
 * 'Waiting in store based barrier ... (world_size=W, worker_count=C, ...)',
 * num_workers_joined= in 2.x; PT05b's time-out line with the same counts),
 * unless a 'Completed store-based barrier for key:K' line says that key's
 * barrier finished. C > W: the store holds an earlier run's keys (a
 * file:// init file not deleted, two jobs on one MASTER_PORT): the barrier
 * can never complete, bootstrap_network 0.7. 0 < C < W on a waiting line
 * (PT05b weighs its own time-out): the store answered, so the missing
 * ranks are elsewhere before init_process_group, the application on one
 * node (0.45), the network first when the job spans nodes. TCPStore's
 * 'C/W clients joined' with C >= 2 reads the same way: the server answered
 * the others; on one node the network, which PT05 named at 0.75 for any
 * count, is capped at 0.2 (1/W, only the server's own client, stays the
 * network's). */
void store_barrier_count(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_event *stale = NULL, *missing = NULL;
	int sw = 0, sc = 0, mw = 0, mc = 0;
	bool timed_out = false, done_any = false, clients = false;
	/* the keys whose barrier a later line completed: walked from the
	 * end, so each line sees only the completions after it */
	enum { NDONE = 32 };
	const char *done[NDONE];
	size_t donen[NDONE], ndone = 0;
	for (size_t i = lg->nev; i-- > 0;) {
		const struct nl_event *e = &lg->ev[i];
		bool barrier = a->sigs[e->sig].fid == FID_LOG_STORE_BARRIER_WAIT;
		if (barrier && strstr(e->text, "Completed store-based barrier")) {
			size_t n;
			const char *k = barrier_key(e->text, &n);
			if (!k) /* "Completed store-based barrier for 2 nodes.": every barrier before it */
				done_any = true;
			else if (ndone < NDONE) {
				done[ndone] = k;
				donen[ndone++] = n;
			}
			continue;
		}
		bool wait = barrier && strstr(e->text, "Waiting in store based barrier");
		bool tout = strcmp(a->sigs[e->sig].id, "PT05b") == 0;
		int cc, cw;
		if (!missing && a->sigs[e->sig].fid == FID_LOG_RENDEZVOUS_FAILED && clients_joined(e->text, &cc, &cw) && cc >= 2 &&
		    cc < cw) {
			missing = e; /* the server answered cc - 1 other ranks: they reached it */
			clients = true;
			mw = cw;
			mc = cc;
			continue;
		}
		if (!wait && !tout)
			continue;
		timed_out |= tout;
		size_t tl = strlen(e->text);
		int w = -1, c = -1;
		if (!int_after(e->text, tl, "world_size=", &w) ||
		    !(int_after(e->text, tl, "worker_count=", &c) || int_after(e->text, tl, "num_workers_joined=", &c)) ||
		    w <= 0 || c < 0 || done_any)
			continue;
		size_t n;
		const char *k = barrier_key(e->text, &n);
		bool finished = false;
		for (size_t d = 0; d < ndone && k && !finished; d++)
			finished = donen[d] == n && strncmp(done[d], k, n) == 0;
		if (finished)
			continue;
		if (c > w) {
			stale = e;
			sw = w;
			sc = c;
		} else if (c > 0 && c < w && wait && !missing) {
			missing = e; /* the last waiting line: the latest count */
			mw = w;
			mc = c;
		}
	}
	if (stale) {
		char title[160];
		snprintf(title, sizeof(title),
			 "%d processes joined init_process_group's barrier of a world of %d: the store holds an earlier run's keys",
			 sc, sw);
		struct finding *f = finding_for(a->r, FID_LOG_STORE_BARRIER_STALE, SEV_ERROR, title);
		struct cause_acc *c = contribute(a, "bootstrap_network", 0.7, FID_LOG_STORE_BARRIER_STALE);
		event_evidence(a, f, c, stale);
		a->failed = true;
		return;
	}
	if (!missing || (timed_out && !clients))
		return;
	bool nodes = a->launch_nodes >= 2;
	for (int i = 0; i < lg->nprocs && !nodes; i++)
		nodes = multi_host(a, &lg->procs[i]);
	char title[160];
	if (clients) {
		/* PT05 named the network (0.75) for any count; one that other
		 * ranks reached is no network failure on one node */
		snprintf(title, sizeof(title), "%d of %d ranks connected to the rendezvous store; %d never came%s", mc, mw,
			 mw - mc, nodes ? " (the job spans nodes)" : "");
		if (!nodes)
			score_cap(a, "bootstrap_network", 0.2,
				  "other ranks reached the store, on one node: the missing ranks never started or failed first");
		/* rank 0 late with the NCCL id (PT07w) and the other ranks' store
		 * waits (PT05s) are this wait: rank 0's store server waited for
		 * the clients that never came, so they are its consequences */
		static const enum finding_id echoes[] = { FID_LOG_RANK0_LATE, FID_LOG_STORE_WAIT_NO_ANSWER };
		for (size_t k = 0; k < sizeof(echoes) / sizeof(echoes[0]); k++) {
			struct finding *e = finding_get(a->r, echoes[k]);
			if (e && e->sev > SEV_WARNING) {
				e->sev = SEV_WARNING;
				finding_evidence(e, NULL, 0, "rank 0 waited for ranks that never connected to its store (%d of %d "
							     "joined): this wait follows from theirs", mc, mw);
			}
		}
	} else
		snprintf(title, sizeof(title), "%d of %d ranks reached init_process_group's barrier; %d never arrived%s", mc,
			 mw, mw - mc, nodes ? " (the job spans nodes)" : "");
	struct finding *f = finding_for(a->r, FID_LOG_STORE_BARRIER_MISSING_RANKS, SEV_ERROR, title);
	struct cause_acc *app = contribute(a, "collective_mismatch_app_bug", nodes ? 0.3 : 0.45,
					   FID_LOG_STORE_BARRIER_MISSING_RANKS);
	/* the clients' count on one node: the cap above is the network's weight */
	struct cause_acc *net = clients && !nodes ? NULL
		: contribute(a, "bootstrap_network", nodes ? 0.45 : 0.2, FID_LOG_STORE_BARRIER_MISSING_RANKS);
	struct cause_acc *died = contribute(a, "peer_died_or_oom", 0.2, FID_LOG_STORE_BARRIER_MISSING_RANKS);
	event_evidence(a, f, app, missing);
	if (net)
		cause_evidence(net, missing->file, missing->line, missing->text);
	cause_evidence(died, missing->file, missing->line, missing->text);
	a->failed = true;
}

