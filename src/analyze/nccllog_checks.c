/* NCCL log analysis: model checks (versions, drivers, GPUs, interfaces,
 * environment, collectives that differ between ranks), ranks that never
 * appear, and the stage timeline (where each rank stopped and what a hang
 * there usually means). See nccllog_analyze.c for the order of reasoning. */
#include "analyze/logs/rules/rules.h"
#include "analyze/nccllog_fr.h"
#include "analyze/nccllog_inspector.h"
#include "kb/causes.h"
#include "kb/findings.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool virtual_if(const char *ifaddr)
{
	static const char *pfx[] = { "docker", "virbr", "veth", "lo:", "tailscale", "br-", "cni", "flannel", "lxcbr" };
	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (strncmp(ifaddr, pfx[i], strlen(pfx[i])) == 0)
			return true;
	return strstr(ifaddr, ":fe80") != NULL;
}

/* NCCL versions that differ between ranks. */
static void check_versions(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96], lbl2[96];
	int vfirst = -1;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!p->version[0])
			continue;
		if (vfirst < 0) {
			vfirst = i;
			continue;
		}
		const struct nl_proc *q = &lg->procs[vfirst];
		if (strcmp(p->version, q->version) != 0) {
			struct finding *f = finding_for(a->r, FID_LOG_NCCL_VERSION_MISMATCH, SEV_ERROR, "ranks load different NCCL versions");
			finding_evidence(f, file_name(lg, q->version_file), (long)q->version_line, "%s loads NCCL %s",
					 proc_label(lg, vfirst, lbl, sizeof(lbl)), q->version);
			finding_evidence(f, file_name(lg, p->version_file), (long)p->version_line, "%s loads NCCL %s",
					 proc_label(lg, i, lbl2, sizeof(lbl2)), p->version);
			struct cause_acc *c = contribute(a, "version_mismatch", a->have_root ? 0.5 : 0.75, FID_LOG_NCCL_VERSION_MISMATCH);
			cause_evidence(c, q->version_file, q->version_line, q->version);
			cause_evidence(c, p->version_file, p->version_line, p->version);
			break;
		}
	}
}

/* CUDA driver versions that differ between ranks. */
static void check_drivers(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96], lbl2[96];
	for (int i = 1; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i], *q = &lg->procs[0];
		if (p->cuda_driver && q->cuda_driver && p->cuda_driver != q->cuda_driver) {
			struct finding *f = finding_for(a->r, FID_LOG_CUDA_DRIVER_DIFFERS, SEV_WARNING, "ranks run on different CUDA driver versions");
			finding_evidence(f, file_name(lg, q->file), 0, "%s: cudaDriverVersion %d", proc_label(lg, 0, lbl, sizeof(lbl)), q->cuda_driver);
			finding_evidence(f, file_name(lg, p->file), 0, "%s: cudaDriverVersion %d", proc_label(lg, i, lbl2, sizeof(lbl2)), p->cuda_driver);
			contribute(a, "version_mismatch", 0.2, FID_LOG_CUDA_DRIVER_DIFFERS);
			break;
		}
	}
}

/* The value of NCCL variable name as process p's log printed it, or NULL. */
static const char *proc_env(const struct nl_proc *p, const char *name)
{
	for (int k = 0; k < p->nenv; k++)
		if (strcmp(p->env[k].name, name) == 0)
			return p->env[k].value;
	return NULL;
}

/* Whether NCCL itself told p and q apart as hosts although their hostnames
 * are the same: NCCL_HOSTID replaces the hostname/boot-id string NCCL hashes
 * into a host (misc/utils.cc getHostHash, 2.4-2.30), so ranks with different
 * values are different nodes to NCCL (its duplicate-GPU check, init.cc,
 * compares that hash) and connect through the network transport. */
static bool hostid_apart(const struct nl_proc *p, const struct nl_proc *q)
{
	const char *a = proc_env(p, "NCCL_HOSTID"), *b = proc_env(q, "NCCL_HOSTID");
	return (a || b) && (!a || !b || strcmp(a, b) != 0);
}

/* Two ranks of one communicator on one GPU (same host, same bus id). */
static void check_duplicate_gpu(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		for (int ci = 0; ci < p->ncomms; ci++) {
			const struct nl_comm *c = &p->comms[ci];
			if (!c->busid[0] || c->rank < 0)
				continue;
			for (int j = i + 1; j < lg->nprocs; j++) {
				const struct nl_proc *q = &lg->procs[j];
				if (strcmp(p->host, q->host) != 0 || hostid_apart(p, q))
					continue;
				for (int cj = 0; cj < q->ncomms; cj++) {
					const struct nl_comm *d = &q->comms[cj];
					if (d->rank < 0 || d->rank == c->rank || strcmp(d->busid, c->busid) != 0)
						continue;
					if (c->commid[0] ? strcmp(c->commid, d->commid) != 0 : c->nranks != d->nranks)
						continue;
					struct finding *f = finding_for(a->r, FID_LOG_DUPLICATE_GPU, SEV_ERROR, "two ranks use the same GPU");
					finding_evidence(f, file_name(lg, c->file), (long)c->stage_line,
							 "rank %d (%s:%ld) and rank %d (%s:%ld) both on busId %s", c->rank, p->host, p->pid,
							 d->rank, q->host, q->pid, c->busid);
					struct cause_acc *ca = contribute(a, "duplicate_gpu_or_device_mapping", 0.8, FID_LOG_DUPLICATE_GPU);
					cause_evidence(ca, c->file, c->stage_line, "two ranks on one GPU (same busId)");
					return;
				}
			}
		}
	}
}

/* cudaDev and nvmlDev differ: CUDA device order is not PCI order. */
static void check_device_order(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96];
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_comm *c = nl_proc_main_comm(&lg->procs[i]);
		if (c && c->cudadev >= 0 && c->nvmldev >= 0 && c->cudadev != c->nvmldev) {
			struct finding *f = finding_for(a->r, FID_LOG_DEVICE_ORDER_DIFFERS, SEV_INFO, "CUDA device order differs from NVML (PCI) order");
			finding_evidence(f, file_name(lg, c->file), 0, "%s: cudaDev %d is nvmlDev %d", proc_label(lg, i, lbl, sizeof(lbl)),
					 c->cudadev, c->nvmldev);
			break;
		}
	}
}

/* Bootstrap over a virtual or loopback interface. */
static void check_bootstrap_if(struct ana *a)
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
			struct finding *f = finding_for(a->r, FID_LOG_BOOTSTRAP_VIRTUAL_IF, multinode ? SEV_WARNING : SEV_INFO,
							"NCCL bootstraps over a virtual or loopback interface");
			finding_evidence(f, file_name(lg, p->file), 0, "%s: Bootstrap: Using %s", proc_label(lg, i, lbl, sizeof(lbl)), p->bootstrap_if);
			if (multinode)
				contribute(a, "bootstrap_network", 0.35, FID_LOG_BOOTSTRAP_VIRTUAL_IF);
			break;
		}
	}
}

/* Environment: reported overrides, and differences between ranks. */
static void check_env(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96], lbl2[96];
	struct finding *envf = NULL;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		for (int k = 0; k < p->nenv; k++) {
			if (!envf)
				envf = finding_for(a->r, FID_LOG_ENV_OVERRIDE, SEV_INFO, "NCCL variables set by the environment");
			bool seen = false;
			for (int j = 0; j < i && !seen; j++)
				for (int m = 0; m < lg->procs[j].nenv; m++)
					if (strcmp(lg->procs[j].env[m].name, p->env[k].name) == 0 &&
					    strcmp(lg->procs[j].env[m].value, p->env[k].value) == 0)
						seen = true;
			if (!seen && envf->nev < 12)
				finding_evidence(envf, file_name(lg, p->env[k].file), (long)p->env[k].line, "%s=%s (%s)", p->env[k].name,
						 p->env[k].value, proc_label(lg, i, lbl, sizeof(lbl)));
		}
	}
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (stage_of(p) < 3)
			continue;
		for (int j = 0; j < lg->nprocs; j++) {
			const struct nl_proc *q = &lg->procs[j];
			if (j == i || stage_of(q) < 3)
				continue;
			for (int k = 0; k < p->nenv; k++) {
				if (strcmp(p->env[k].name, "NCCL_HOSTID") == 0)
					continue; /* names the host: differs between hosts by design */
				const char *other = NULL;
				for (int m = 0; m < q->nenv; m++)
					if (strcmp(q->env[m].name, p->env[k].name) == 0)
						other = q->env[m].value;
				if (other && strcmp(other, p->env[k].value) == 0)
					continue;
				struct finding *f = finding_for(a->r, FID_LOG_ENV_DIFFERS, SEV_WARNING, "ranks run with different NCCL variables");
				finding_evidence(f, file_name(lg, p->env[k].file), (long)p->env[k].line, "%s: %s=%s, but %s: %s", proc_label(lg, i, lbl, sizeof(lbl)),
						 p->env[k].name, p->env[k].value, proc_label(lg, j, lbl2, sizeof(lbl2)), other ? other : "not set");
				struct cause_acc *c = contribute(a, "nccl_config_error", 0.35, FID_LOG_ENV_DIFFERS);
				cause_evidence(c, p->env[k].file, p->env[k].line, "NCCL variable differs between ranks");
				return;
			}
		}
	}
}

/* Watchdog timeouts that name different collectives. */
static void check_watchdog(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (int i = 1; i < lg->nwd; i++) {
		const struct nl_watchdog *w0 = &lg->wd[0], *w = &lg->wd[i];
		if (w->seq == w0->seq && strcmp(w->optype, w0->optype) == 0)
			continue;
		struct finding *f = finding_for(a->r, FID_LOG_COLLECTIVE_MISMATCH, SEV_ERROR, "ranks timed out in different collectives");
		finding_evidence(f, file_name(lg, w0->file), (long)w0->line, "rank %d waits in %s SeqNum=%lld", w0->rank,
				 w0->optype[0] ? w0->optype : "?", w0->seq);
		finding_evidence(f, file_name(lg, w->file), (long)w->line, "rank %d waits in %s SeqNum=%lld", w->rank,
				 w->optype[0] ? w->optype : "?", w->seq);
		struct cause_acc *c = contribute(a, "collective_mismatch_app_bug", 0.55, FID_LOG_COLLECTIVE_MISMATCH);
		cause_evidence(c, w0->file, w0->line, "watchdog: different collectives on different ranks");
		cause_evidence(c, w->file, w->line, "watchdog: different collectives on different ranks");
		break;
	}
}

/* vLLM's own NCCL wrapper against the NCCL that printed the version lines. */
static void check_vllm_nccl(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96];
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (strcmp(a->sigs[e->sig].id, "VL05") != 0)
			continue;
		const char *v = strstr(e->text, "nccl==");
		if (!v)
			continue;
		v += 6;
		size_t vl = strspn(v, "0123456789.");
		for (int k = 0; k < lg->nprocs; k++) {
			const char *pv = lg->procs[k].version;
			size_t pl = strcspn(pv, "+");
			if (!pv[0] || (pl == vl && strncmp(pv, v, vl) == 0))
				continue;
			struct finding *f = finding_for(a->r, FID_LOG_NCCL_VERSION_MISMATCH, SEV_ERROR, "ranks load different NCCL versions");
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "vLLM: %s", e->text);
			finding_evidence(f, file_name(lg, lg->procs[k].version_file), (long)lg->procs[k].version_line,
					 "%s prints NCCL version %s", proc_label(lg, k, lbl, sizeof(lbl)), pv);
			struct cause_acc *c = contribute(a, "version_mismatch", a->have_root ? 0.3 : 0.45, FID_LOG_NCCL_VERSION_MISMATCH);
			cause_evidence(c, e->file, e->line, e->text);
			return;
		}
	}
}

/* A bootstrap message of the wrong size (S72b) names different NCCL builds
 * first (the bootstrap messages are NCCL's own). Where no two ranks are seen
 * to differ, a bug of the NCCL version is the other candidate (nccl#1176:
 * intermittent truncation with 2.19.3, gone with another version): stronger
 * when ranks printed one and the same version, weak when none printed it. */
static void check_bootstrap_truncated(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_event *ev = NULL;
	for (size_t i = 0; i < lg->nev && !ev; i++)
		if (strcmp(a->sigs[lg->ev[i].sig].id, "S72b") == 0)
			ev = &lg->ev[i];
	if (!ev || finding_get(a->r, FID_LOG_NCCL_VERSION_MISMATCH))
		return;
	const char *v = NULL;
	int nv = 0;
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].version[0]) {
			v = lg->procs[i].version;
			nv++;
		}
	bool same = nv >= 2 && nv == lg->nprocs;
	for (int i = 0; i < lg->nprocs && same; i++)
		same = strcmp(lg->procs[i].version, v) == 0;
	const char *other;
	int pi, pj;
	const struct nl_env *env = shaping_env_differs(lg, &other, &pi, &pj);
	struct cause_acc *c = contribute(a, "driver_or_kernel_bug", nv >= 2 && !env ? 0.45 : 0.3, FID_LOG_BOOTSTRAP_TRUNCATED);
	cause_evidence(c, ev->file, ev->line, ev->text);
	struct finding *f = finding_get(a->r, FID_LOG_BOOTSTRAP_TRUNCATED);
	if (!f)
		return;
	/* The messages of the connection phase carry per-channel data: a channel
	 * count or protocol set differently on two ranks changes their size too
	 * (recorded: NCCL_MIN_NCHANNELS=8 on one rank, NCCL_MAX_NCHANNELS=2 on the
	 * other, real-h200-2rank/nchan). When every process printed one and the
	 * same version (+cuda build), two builds are no longer the first suspect. */
	if (env) {
		char lbl[96], lbl2[96];
		finding_evidence(f, file_name(lg, env->file), (long)env->line, "%s: %s=%s, but %s: %s",
				 proc_label(lg, pi, lbl, sizeof(lbl)), env->name, env->value,
				 proc_label(lg, pj, lbl2, sizeof(lbl2)), other);
		cause_evidence(contribute(a, "nccl_config_error", 0.75, FID_LOG_BOOTSTRAP_TRUNCATED), env->file, env->line,
			       "a variable that cuts the data differs between ranks");
	}
	for (int i = 0; same && i < a->ncauses; i++)
		if (strcmp(a->causes[i].cause, "version_mismatch") == 0 && a->causes[i].conf > 0.5)
			a->causes[i].conf = 0.5;
	if (nv >= 2)
		finding_evidence(f, NULL, 0, "every rank that printed its version runs NCCL %s: a bug of that version is as likely "
					     "as two builds of it (nccl#1176)", v);
	else
		finding_evidence(f, NULL, 0, "no rank's NCCL version is in the log: different builds or a bug of the version "
					     "(nccl#1176); compare `nccl-doctor sys` on every host");
}

void model_checks(struct ana *a)
{
	check_versions(a);
	check_drivers(a);
	check_duplicate_gpu(a);
	check_device_order(a);
	check_bootstrap_if(a);
	check_env(a);
	check_watchdog(a);
	check_vllm_nccl(a);
	check_bootstrap_truncated(a);
	compare_hosts(a);
}

/* ---- ranks that never appear ------------------------------------------------ */

struct group {
	const char *commid;  /* "" when not printed */
	int nranks;
	uint8_t *seen;       /* nranks bytes */
	int nseen;
	int min_stage;
};

/* Returns true when ranks are missing; adds the finding. */
static bool missing_ranks(struct ana *a, bool *early)
{
	const struct nccllog *lg = a->lg;
	struct group g[64];
	int ng = 0;
	bool any = false;
	*early = false;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		for (int ci = 0; ci < p->ncomms; ci++) {
			const struct nl_comm *c = &p->comms[ci];
			if (c->nranks <= 0 || c->rank < 0 || c->rank >= c->nranks || c->nranks > 1 << 20)
				continue;
			int k;
			for (k = 0; k < ng; k++)
				if (g[k].nranks == c->nranks && strcmp(g[k].commid, c->commid) == 0)
					break;
			if (k == ng) {
				if (ng >= 64)
					continue;
				g[k].commid = c->commid;
				g[k].nranks = c->nranks;
				g[k].seen = xcalloc((size_t)c->nranks, 1);
				g[k].nseen = 0;
				g[k].min_stage = 99;
				ng++;
			}
			if (!g[k].seen[c->rank]) {
				g[k].seen[c->rank] = 1;
				g[k].nseen++;
			}
			if (c->stage < g[k].min_stage)
				g[k].min_stage = c->stage;
		}
	}
	for (int k = 0; k < ng; k++) {
		if (g[k].nseen < g[k].nranks) {
			any = true;
			if (g[k].min_stage < 5)
				*early = true;
			char list[256] = "";
			size_t len = 0;
			int shown = 0;
			for (int r = 0; r < g[k].nranks && len < sizeof(list); r++)
				if (!g[k].seen[r] && str_appendf(list, sizeof(list), &len, "%s%d", shown ? "," : "", r) == 0)
					shown++;
			struct finding *f = finding_for(a->r, FID_LOG_RANKS_MISSING, SEV_WARNING, "ranks of a communicator never appear in the logs");
			finding_evidence(f, NULL, 0, "communicator %s: %d of %d ranks seen; missing rank%s %s",
					 g[k].commid[0] ? g[k].commid : "(no commId)", g[k].nseen, g[k].nranks, shown == 1 ? "" : "s", list);
		}
		free(g[k].seen);
	}
	return any;
}

/* ---- where each rank stopped -------------------------------------------------- */

/* What the processes reached, over all of them. */
struct stage_sum {
	int min_stage, max_stage, nincomplete, nlive;
	bool any_cumem, any_shm, any_p2p; /* transports seen */
	bool any_net, any_ib, any_gdr;    /* NET/..., NET/IB (or another plugin than Socket), GDRDMA */
	bool pcie;                        /* a P2P chunk size that PCIe gets */
	int nhosts;                       /* distinct hosts (capped at 2: one or several) */
};

static void stage_summary(const struct nccllog *lg, struct stage_sum *ss)
{
	ss->min_stage = 99;
	ss->max_stage = -1;
	ss->nincomplete = ss->nlive = 0;
	ss->any_cumem = ss->any_shm = ss->any_p2p = ss->pcie = false;
	ss->any_net = ss->any_ib = ss->any_gdr = false;
	ss->nhosts = 0;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (ss->nhosts == 0 || (ss->nhosts == 1 && strcmp(p->host, lg->procs[0].host) != 0))
			ss->nhosts++;
		int s = stage_of(p);
		if (s < 0)
			continue;
		ss->nlive++;
		if (s < ss->min_stage)
			ss->min_stage = s;
		if (s > ss->max_stage)
			ss->max_stage = s;
		if (s < 9)
			ss->nincomplete++;
		for (int t = 0; t < p->ntr; t++) {
			if (strstr(p->tr[t].kind, "CUMEM"))
				ss->any_cumem = true;
			if (strncmp(p->tr[t].kind, "SHM", 3) == 0 || strstr(p->tr[t].kind, "shared memory"))
				ss->any_shm = true;
			if (strncmp(p->tr[t].kind, "P2P", 3) == 0)
				ss->any_p2p = true;
			if (strncmp(p->tr[t].kind, "NET/", 4) == 0) {
				ss->any_net = true;
				ss->any_ib |= strncmp(p->tr[t].kind + 4, "Socket", 6) != 0;
				ss->any_gdr |= strstr(p->tr[t].kind, "GDRDMA") != NULL;
			}
		}
		const struct nl_comm *c = nl_proc_main_comm(p);
		if (c && c->chunksize && c->chunksize < 524288)
			ss->pcie = true;
	}
}

/* Whether the ranks that never appear run on other hosts than the ones
 * seen: several hosts in the logs or a communicator that counts several
 * nodes (nNodes), or one host whose processes share one file (the console
 * of a launcher that runs all of that host's ranks: torchrun, mpirun per
 * node), so the missing ones are elsewhere. Ranks of another host that
 * never join at init are most often unreachable (interface, firewall,
 * routing: NCCL's troubleshooting guide, nccl#207), not dead. */
static bool missing_on_other_hosts(const struct nccllog *lg, const struct stage_sum *ss)
{
	if (ss->nhosts > 1)
		return true;
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].ncomms; k++)
			if (lg->procs[i].comms[k].nnodes > 1)
				return true;
	for (int i = 0; i < lg->nfiles; i++)
		if (lg->files[i].nprocs >= 2)
			return true;
	return false;
}

/* No NCCL output at all: a collective that never finished (PyTorch's
 * watchdog), a hang before NCCL, or simply no NCCL lines. */
static void no_nccl_lines(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	/* have_hang: not when every marker echoes an earlier NCCL error (nccllog_b9.c) */
	bool watchdog = a->have_hang && (count_of(a, "PT01") || count_of(a, "PT02") || count_of(a, "PT02f"));
	if (watchdog && !a->have_any_root) {
		bare_collective_timeout(a);
		a->failed = true;
		return;
	}
	if (a->have_hang && !a->have_any_root) {
		struct finding *f = finding_for(a->r, FID_LOG_HANG_BEFORE_NCCL, SEV_ERROR,
						"the process hung before NCCL printed anything (stage T0 never reached)");
		struct cause_acc *c = contribute(a, "bootstrap_network", 0.4, FID_LOG_HANG_BEFORE_NCCL);
		struct cause_acc *c2 = contribute(a, "peer_died_or_oom", 0.2, FID_LOG_HANG_BEFORE_NCCL);
		for (size_t i = 0; i < lg->nev; i++) {
			const struct nl_event *e = &lg->ev[i];
			if (a->sigs[e->sig].role != NSR_HANG)
				continue;
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s", e->text);
			cause_evidence(c, e->file, e->line, e->text);
			cause_evidence(c2, e->file, e->line, e->text);
		}
		for (int fi = 0; fi < lg->nfiles; fi++)
			finding_evidence(f, lg->files[fi].name, 0, "%llu line%s, none from NCCL",
					 (unsigned long long)lg->files[fi].lines, lg->files[fi].lines == 1 ? "" : "s");
		a->failed = true;
	}
	struct nl_ras_tables rt;
	bool ras = nl_insp_ras_tables(lg, &rt);
	if (ras) {
		struct finding *f = finding_add(
			a->r, FID_LOG_NCCLRAS_COMMS, SEV_INFO,
			rt.bad ? "ncclras report: %d of %d communicator group%s with a problem (status not RUNNING or errors not OK)"
			       : "ncclras report: %d of %d communicator group%s RUNNING without errors (no dead or missing rank)",
			rt.bad ? rt.bad : rt.groups, rt.groups, rt.groups == 1 ? "" : "s");
		finding_evidence(f, file_name(lg, rt.file), (long)rt.line, "%d report%s; %s", rt.reports,
				 rt.reports == 1 ? "" : "s", rt.status[0] ? rt.status : "no group rows");
	}
	if (!a->have_hang && !a->have_any_root && !a->have_secondary && !nl_fr_ndumps(lg) && !nl_insp_nunits(lg) &&
	    !ras) {
		struct finding *f = finding_for(a->r, FID_LOG_NO_NCCL_LINES, SEV_WARNING, "the log holds no NCCL lines");
		for (int fi = 0; fi < lg->nfiles; fi++)
			finding_evidence(f, lg->files[fi].name, 0, "%llu line%s, none from NCCL",
					 (unsigned long long)lg->files[fi].lines, lg->files[fi].lines == 1 ? "" : "s");
	}
}

/* The hang finding of class fid at stage cls: what the stage means, why a
 * hang is assumed, and where each waiting rank stopped. */
static void hang_finding(struct ana *a, enum finding_id fid, int cls, bool suspect)
{
	const struct nccllog *lg = a->lg;
	char lbl[96], sc[16], sc2[16];
	char title[400];
	/* The rank table shows the stage each log reached; a rank whose
	 * transports were connected during init is counted one stage on
	 * (hang_stage). Say both, so that the table and the finding agree. */
	int seen = -1;
	bool inferred_only = true;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (hang_stage(p) != cls)
			continue;
		if (stage_of(p) == cls)
			inferred_only = false;
		else if (stage_of(p) > seen)
			seen = stage_of(p);
	}
	const char *who = a->have_root ? "ranks left waiting stopped" : "the slowest rank stopped";
	if (inferred_only && seen >= 0)
		snprintf(title, sizeof(title), "%s%s: %s at %s with every transport connected, so it waits in %s",
			 suspect ? "possible hang, the log just stops; " : "", kb_finding_def(fid)->summary, who,
			 nccl_stage_name(seen), nccl_stage_name(cls));
	else
		snprintf(title, sizeof(title), "%s%s: %s at %s (%s)", suspect ? "possible hang, the log just stops; " : "",
			 kb_finding_def(fid)->summary, who, stage_code(cls, sc, sizeof(sc)), nccl_stage_name(cls));
	struct finding *f = finding_for(a->r, fid, a->have_root || suspect ? SEV_WARNING : SEV_ERROR, title);
	finding_evidence(f, NULL, 0, "%s", nccl_stage_hang_meaning(cls));
	const char *why = a->have_root ? "these ranks wait for the rank that failed"
		: a->have_hang ? "the run was killed or timed out"
		: suspect ? "the log stops after NCCL's lines with no Destroy and no output after them: "
			    "if the job hung there, this is where (a server still running looks the same)"
		: "the log ends before Init COMPLETE";
	finding_evidence(f, NULL, 0, "%s", why);
	for (int i = 0; i < lg->nprocs && f->nev < 10; i++) {
		const struct nl_proc *p = &lg->procs[i];
		int s = hang_stage(p);
		if (s < 0 || s > cls || (a->have_root && proc_failed(a, p)))
			continue;
		char inf[96] = "";
		if (s != stage_of(p))
			snprintf(inf, sizeof(inf), " (transports were connected during init: it waits in %s)",
				 stage_code(s, sc2, sizeof(sc2)));
		finding_evidence(f, file_name(lg, p->stage_file), (long)p->stage_line, "%s stopped at %s%s; furthest line: %s; last line %s:%llu: %s",
				 proc_label(lg, i, lbl, sizeof(lbl)), stage_code(stage_of(p), sc, sizeof(sc)), inf,
				 p->stage_text, file_name(lg, p->last_file), (unsigned long long)p->last_line, p->last_text);
	}
}

/* A run that stopped where its log does not say (every waiting process
 * printed only mid-init lines, no stage marker): where such runs hang
 * depends on the layout. On one host the intra-node paths (P2P over PCIe,
 * shm, NVLink) come first, on several hosts the network between them. */
static void hang_stage_unknown(struct ana *a, const struct stage_sum *ss, double scale)
{
	const struct nccllog *lg = a->lg;
	static const struct {
		const char *cause;
		double one_host, many_hosts;
	} prior[] = {
		{ "p2p_pcie_acs_iommu", 0.5, 0.25 }, { "shm_too_small", 0.35, 0.15 }, { "hardware_xid_nvlink", 0.35, 0.2 },
		{ "bootstrap_network", 0.25, 0.5 },  { "ib_rdma_config", 0.0, 0.35 },  { "peer_died_or_oom", 0.2, 0.35 },
	};
	struct finding *f = finding_for(a->r, FID_LOG_HANG_STAGE_UNKNOWN, a->have_hang ? SEV_ERROR : SEV_WARNING,
					a->have_hang ? "the run hung or was killed at a stage its log does not show"
						     : "the log ends without a stage marker: a hang is possible, where is unknown");
	finding_evidence(f, NULL, 0, "%s", ss->nhosts > 1 ? "several hosts: the network between them is the first suspect"
							  : "one host: the paths between its GPUs (P2P, shm, NVLink) are the first suspects");
	for (size_t k = 0; k < sizeof(prior) / sizeof(prior[0]); k++) {
		double w = (ss->nhosts > 1 ? prior[k].many_hosts : prior[k].one_host) * scale;
		struct cause_acc *c = contribute(a, prior[k].cause, w, FID_LOG_HANG_STAGE_UNKNOWN);
		for (int i = 0; i < lg->nprocs && c && c->nev < 2; i++)
			cause_evidence(c, lg->procs[i].last_file, lg->procs[i].last_line, lg->procs[i].last_text);
	}
}

/* The causes a hang at stage cls points to, weighted by what the
 * transports show, with the waiting ranks' lines as evidence. */
static void hang_causes(struct ana *a, enum finding_id fid, int cls, double scale, const struct stage_sum *ss, bool missing)
{
	const struct nccllog *lg = a->lg;
	bool any_cumem = ss->any_cumem, any_shm = ss->any_shm, any_p2p = ss->any_p2p, pcie = ss->pcie;
	struct cand {
		const char *cause;
		double w;
	} cand[6];
	/* a vLLM run whose custom all-reduce was not reported disabled */
	bool vllm_custom_ar = (count_of(a, "VL05") || count_of(a, "VL01") || count_of(a, "VL02") || count_of(a, "VL04")) &&
			      !count_of(a, "VL03");
	/* NCCL's graph search routed channels over NVLink (S33n): the link is
	 * on the path that stopped, even before a "via" line shows it */
	bool nvl = (any_p2p && !pcie) || count_of(a, "S33n");
	int nc = 0;
	if (cls <= 4 && !a->have_hang && !a->have_root && !missing && ss->nhosts == 1) {
		/* one host, no hang marker, nothing else known: an early stage in
		 * an excerpt says little; the intra-node paths come first */
		hang_stage_unknown(a, ss, scale);
		return;
	}
	if (cls <= 4) {
		cand[nc++] = (struct cand){ "bootstrap_network", 0.5 };
		if (!missing)
			cand[nc++] = (struct cand){ "peer_died_or_oom", 0.2 };
	} else if (cls <= 8) {
		cand[nc++] = (struct cand){ "custom_allreduce_or_cumem", any_cumem ? 0.4 : 0.25 };
		/* SHM that connected says nothing about /dev/shm's size (a full
		 * one fails with its own warning); SHM between the GPUs of one
		 * host says NCCL judged P2P unusable there (ACS, IOMMU, no P2P) */
		cand[nc++] = (struct cand){ "shm_too_small", 0.25 };
		cand[nc++] = (struct cand){ "p2p_pcie_acs_iommu", any_p2p ? 0.35 : any_shm && ss->nhosts == 1 ? 0.3 : 0.2 };
		cand[nc++] = (struct cand){ "p2p_virtualization", 0.15 };
		cand[nc++] = (struct cand){ "hardware_xid_nvlink", nvl ? 0.3 : 0.15 };
	} else if (fid == FID_LOG_HANG_RUNTIME_CONNECT) {
		cand[nc++] = (struct cand){ "custom_allreduce_or_cumem", vllm_custom_ar ? 0.45 : 0.4 };
		cand[nc++] = (struct cand){ "shm_too_small", 0.3 };
		cand[nc++] = (struct cand){ "p2p_pcie_acs_iommu", 0.25 };
	} else if (ss->any_net && !any_p2p && !any_shm && !any_cumem) {
		/* every connection the logs show goes over the network (ranks on
		 * other hosts, or NCCL_P2P/SHM disabled): no GPU-to-GPU path over
		 * PCIe or NVLink to block. Over sockets the data moves through the
		 * CPU; over IB with GPUDirect RDMA the NIC reads GPU memory across
		 * the PCIe switches, which ACS redirect breaks too (NCCL
		 * troubleshooting guide, "PCI Access Control Services"). */
		if (ss->any_ib) {
			cand[nc++] = (struct cand){ "ib_rdma_config", 0.4 };
			if (ss->any_gdr)
				cand[nc++] = (struct cand){ "p2p_pcie_acs_iommu", 0.25 };
		} else
			cand[nc++] = (struct cand){ "bootstrap_network", 0.3 };
		cand[nc++] = (struct cand){ "collective_mismatch_app_bug", 0.25 };
		cand[nc++] = (struct cand){ "peer_died_or_oom", 0.25 };
		cand[nc++] = (struct cand){ "hardware_xid_nvlink", 0.15 };
	} else {
		cand[nc++] = (struct cand){ "p2p_pcie_acs_iommu", any_p2p && pcie ? 0.5 : any_p2p ? 0.35 : 0.25 };
		cand[nc++] = (struct cand){ "hardware_xid_nvlink", nvl ? 0.35 : 0.25 };
		cand[nc++] = (struct cand){ "collective_mismatch_app_bug", 0.2 };
		cand[nc++] = (struct cand){ vllm_custom_ar ? "custom_allreduce_or_cumem" : "peer_died_or_oom", vllm_custom_ar ? 0.35 : 0.2 };
	}
	for (int k = 0; k < nc; k++) {
		double w = cand[k].w * scale * (a->have_hang || cls < 9 ? 1.0 : 0.8);
		struct cause_acc *c = contribute(a, cand[k].cause, w, fid);
		if (cls >= 10 && strncmp(cand[k].cause, "p2p", 3) == 0)
			for (int i = 0; i < lg->nprocs && c && c->nev < 2; i++)
				if (lg->procs[i].via_line)
					cause_evidence(c, lg->procs[i].via_file, lg->procs[i].via_line, lg->procs[i].via_text);
		for (int i = 0; i < lg->nprocs && c && c->nev < 3; i++) {
			const struct nl_proc *p = &lg->procs[i];
			if (hang_stage(p) == cls && !(a->have_root && proc_failed(a, p)))
				cause_evidence(c, p->stage_file, p->stage_line, p->stage_text);
		}
		if (a->have_hang)
			for (size_t i = 0; i < lg->nev; i++)
				if (a->sigs[lg->ev[i].sig].role == NSR_HANG) {
					cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
					contribute(a, cand[k].cause, 0, a->sigs[lg->ev[i].sig].fid);
					break;
				}
	}
	/* the hang symptom findings belong to these causes too */
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++)
		if (lg->sigcount[s] && a->sigs[s].role == NSR_HANG)
			for (int k = 0; k < nc; k++) {
				struct cause_acc *c = cause_get(a, cand[k].cause);
				if (c && c->nfids < MAX_CAUSE_FIDS) {
					bool have = false;
					for (int j = 0; j < c->nfids; j++)
						if (strcmp(c->fids[j], a->sigs[s].finding) == 0)
							have = true;
					if (!have)
						c->fids[c->nfids++] = a->sigs[s].finding;
				}
			}
}

void stage_analysis(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct stage_sum ss;
	stage_summary(lg, &ss);
	int nincomplete = ss.nincomplete;
	bool early_missing = false;
	bool missing = missing_ranks(a, &early_missing);
	if (ss.nlive == 0) {
		no_nccl_lines(a);
		return;
	}

	/* A log that stops right after NCCL's own lines, with every rank past
	 * init, nothing destroyed and no output of the application after: a
	 * hang is likely but not shown (a server that runs on looks the same). */
	bool destroyed = false, ends_in_nccl = false;
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].ncomms; k++)
			destroyed |= lg->procs[i].comms[k].destroyed;
	for (int i = 0; i < lg->nfiles; i++)
		if (lg->files[i].nccl_lines && lg->files[i].last_nccl_line > lg->files[i].last_line_no)
			ends_in_nccl = true;
	bool suspect = !a->have_hang && nincomplete == 0 && !destroyed && ends_in_nccl && !a->have_any_root &&
		       !a->have_secondary;
	bool hung = a->have_hang || nincomplete > 0 || suspect;
	if (!hung && !missing)
		return;
	/* With a root failure known, ranks that logged their own failure did
	 * not hang: only the ones left waiting tell a stage. */
	int wmin = 99, nwait = 0, nunknown = 0;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		int s = hang_stage(p);
		if (s < 0 || (a->have_root && proc_failed(a, p)) || (s >= 9 && !a->have_hang && !suspect))
			continue;
		if (nl_proc_stage(p) < 0) {
			nunknown++; /* only mid-init lines: where it stopped is unknown, not T0 */
			continue;
		}
		nwait++;
		if (s < wmin)
			wmin = s;
	}
	/* evidence (ranks missing, a virtual bootstrap interface) at ev_scale;
	 * the hang itself counts fully only with a marker (kill, timeout,
	 * watchdog, interrupt): a log that merely ends is a weak prior (<= 0.2) */
	double ev_scale = a->have_root ? 0.25 : suspect ? 0.5 : 1.0;
	double scale = !a->have_hang && ev_scale > 0.4 ? 0.4 : ev_scale;
	enum finding_id fid;
	int cls = nwait ? wmin : -1;
	if (cls < 0)
		fid = FID_COUNT; /* none */
	else if (cls <= 4)
		fid = FID_LOG_HANG_BOOTSTRAP;
	else if (cls <= 8)
		fid = FID_LOG_HANG_INIT_CONNECT;
	else if (cls == 9)
		fid = FID_LOG_HANG_RUNTIME_CONNECT;
	else
		fid = FID_LOG_HANG_DATA_PATH;
	if (missing) {
		struct finding *f = finding_get(a->r, FID_LOG_RANKS_MISSING);
		if (f && (early_missing || hung) && !a->have_root)
			f->sev = SEV_ERROR;
		if (early_missing || (hung && cls >= 0 && cls <= 4)) {
			bool away = missing_on_other_hosts(lg, &ss);
			if (f && away)
				finding_evidence(f, NULL, 0, "the missing ranks run on other hosts (%s): at init, ranks of "
							     "another host that never join are more often unreachable than dead",
						 ss.nhosts > 1 ? "several hosts seen" : "the console of one host holds all of its ranks");
			struct cause_acc *c1 = contribute(a, "peer_died_or_oom", (away ? 0.3 : 0.45) * ev_scale, FID_LOG_RANKS_MISSING);
			struct cause_acc *c2 = contribute(a, "bootstrap_network", (away ? 0.45 : 0.3) * ev_scale, FID_LOG_RANKS_MISSING);
			for (int i = 0; i < lg->nprocs; i++) {
				const struct nl_proc *p = &lg->procs[i];
				if (stage_of(p) >= 0) {
					cause_evidence(c1, p->stage_file, p->stage_line, p->stage_text);
					cause_evidence(c2, p->stage_file, p->stage_line, p->stage_text);
				}
			}
			a->failed = true;
		}
	}
	if (fid == FID_COUNT) {
		if (nunknown && hung) {
			hang_stage_unknown(a, &ss, scale);
			a->failed = true;
		}
		return;
	}
	a->failed = true;
	if (cls <= 4) {
		struct finding *vf = finding_get(a->r, FID_LOG_BOOTSTRAP_VIRTUAL_IF);
		if (vf && vf->sev < SEV_WARNING) {
			vf->sev = SEV_WARNING;
			struct cause_acc *c = contribute(a, "bootstrap_network", 0.35 * ev_scale, FID_LOG_BOOTSTRAP_VIRTUAL_IF);
			if (c && vf->nev)
				cause_evidence(c, -1, 0, vf->ev[0].text);
		}
	}
	hang_finding(a, fid, cls, suspect);
	hang_causes(a, fid, cls, scale, &ss, missing);
}
