/* NCCL log analysis, the timeline: ranks that never appear, where each
 * rank stopped and what a hang there usually means (with the causes a
 * stop at that stage points to, weighted by the transports seen), a
 * PyTorch watchdog timeout with no NCCL line, a log with no NCCL line at
 * all, and the revisions of a bootstrap stop (one-rank communicators, one
 * host with no hang marker). */
#include "analyze/logs/rules/rules.h"
#include "analyze/logs/text.h"
#include "analyze/logs/inputs/flight_recorder.h"
#include "analyze/logs/inputs/inspector.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

struct cand {
	const char *cause;
	double w;
};

/* Whether a line of the log comes from a Ray worker on another node than
 * the driver's: Ray prefixes a worker's output with "(Name pid=N, ip=X)"
 * only when the worker runs on another node (ray _private/worker.py
 * print_worker_logs), so the job spans hosts. */
static bool ray_remote_worker(const struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const char *p = strstr(lg->ev[i].text, " pid=");
		const char *q = p ? strstr(p, ", ip=") : NULL;
		if (q && q - p < 24 && strchr(q, ')'))
			return true;
	}
	return false;
}

/* Whether the log is a vLLM run whose custom all-reduce may have been on:
 * one of vLLM's own lines (VL01, VL02, VL04, VL05) or a vLLM worker's
 * prefix ("(RayWorkerWrapper pid=N)", "(VllmWorkerProcess pid=N)", vLLM
 * 0.4+ vllm/executor), and no "Custom allreduce is disabled" (VL03: vLLM
 * turns it off for a group that spans nodes, for more than two PCIe-only
 * GPUs, or when asked; vllm distributed/device_communicators/
 * custom_all_reduce.py). */
static bool vllm_custom_ar_on(const struct ana *a)
{
	static const char *const worker[] = { "RayWorkerWrapper pid=", "VllmWorkerProcess pid=" };
	const struct nccllog *lg = a->lg;
	if (count_of(a, "VL03"))
		return false;
	if (count_of(a, "VL01") || count_of(a, "VL02") || count_of(a, "VL04") || count_of(a, "VL05"))
		return true;
	for (size_t i = 0; i < lg->nev; i++)
		for (size_t k = 0; k < sizeof(worker) / sizeof(worker[0]); k++)
			if (strstr(lg->ev[i].text, worker[k]))
				return true;
	return false;
}

/* Whether a hang marker is ProcessGroupNCCL's heartbeat monitor saying the
 * watchdog thread itself is stuck ("ProcessGroupNCCL's watchdog got stuck
 * for 480 seconds without making progress in monitoring enqueued
 * collectives. This typically indicates a NCCL/CUDA API (e.g.,
 * CudaEventDestroy) hang blocking the watchdog ..."; pytorch
 * ProcessGroupNCCL.cpp HeartbeatMonitor). */
static bool watchdog_stuck(const struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++)
		if (a->sigs[lg->ev[i].sig].role == NSR_HANG && strstr(lg->ev[i].text, "watchdog got stuck for"))
			return true;
	return false;
}

/* The lowest SeqNum of the log's PyTorch watchdog time-outs, -1 none. */
static long long watchdog_min_seq(const struct nccllog *lg)
{
	long long seq = -1;
	for (int i = 0; i < lg->nwd; i++)
		if (lg->wd[i].seq >= 0 && (seq < 0 || lg->wd[i].seq < seq))
			seq = lg->wd[i].seq;
	return seq;
}

/* The candidates of a collective hang the log cannot explain. PyTorch's
 * watchdog only covers collectives, so NCCL was up (pytorch#88103); none
 * of the data-path causes is evidenced. PyTorch's own reading of a
 * watchdog timeout comes first (ProcessGroupNCCL.cpp
 * getNCCLWatchdogTimeoutErrorMsg, PyTorch 2.3+: "most likely caused by
 * incorrect usages of collectives, e.g., wrong sizes used across ranks,
 * the order of collectives is not same for all ranks or the scheduled
 * collective, for some reason, didn't run. Additionally, this can be
 * caused by GIL deadlock or other reasons such as network errors or bugs
 * in the communications library"): the application (ranks that diverge,
 * one rank busy elsewhere past the timeout) leads, `unknown` (what to
 * collect) follows. What the line says reorders them:
 *  - SeqNum > 1: earlier collectives of the group completed, so the
 *    paths were set up and worked (a P2P path that ACS or a hypervisor
 *    blocks fails at its first transfer): the application, then a GPU or
 *    NVLink fault and an NCCL/driver bug (hangs fixed by another version);
 *  - SeqNum 1, the first collective: the path between the GPUs had never
 *    carried data, and a blocked one shows there first (NCCL's
 *    troubleshooting guide on ACS and VMs);
 *  - the first collective of a job that spans hosts (a Ray worker on
 *    another node): the network between the hosts, and hosts that run
 *    different NCCL/CUDA builds (NCCL checks versions across ranks only
 *    from 2.23, S60; older ones hang or fail there);
 *  - a vLLM run on one node with its custom all-reduce not reported off:
 *    its kernels run on the stream PyTorch's watchdog watches but are no
 *    NCCL work, so a custom all-reduce that never returns shows as the
 *    next NCCL collective (a GATHER of the logits, an all-gather) timing
 *    out; a late one most of all (vllm PR #2760, the kernels' author on
 *    "stuck generation" reports and unsafe synchronization; vllm#8410, a
 *    hang traced to the custom all-reduce op; vllm#2731: disabling it
 *    ended generation hangs). --disable-custom-all-reduce tests it. */
static void bare_collective_timeout(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	bool pt = count_of(a, "PT01") || count_of(a, "PT02") || count_of(a, "PT02f");
	struct finding *f = finding_for(a->r, FID_LOG_HANG_DATA_PATH, SEV_ERROR,
					pt ? "a collective never finished (PyTorch watchdog); no NCCL lines to say why"
					   : "a collective never finished (Gloo's time-out); no NCCL lines to say why");
	finding_evidence(f, NULL, 0, "%s", nccl_stage_hang_meaning(10));
	finding_evidence(f, NULL, 0, "collect: %s", nccl_stage_collect(10));
	static const struct cand noseq[] = { { "collective_mismatch_app_bug", 0.3 }, { "unknown", 0.2 },
					     { "p2p_pcie_acs_iommu", 0.2 },          { "gpu_hardware", 0.15 },
					     { "peer_died_or_oom", 0.15 } };
	static const struct cand first[] = { { "p2p_pcie_acs_iommu", 0.25 }, { "collective_mismatch_app_bug", 0.2 },
					     { "unknown", 0.2 },             { "gpu_hardware", 0.15 },
					     { "peer_died_or_oom", 0.15 } };
	static const struct cand late[] = { { "collective_mismatch_app_bug", 0.3 },
					    { "gpu_hardware", 0.2 },
					    { "driver_or_kernel_bug", 0.2 },
					    { "unknown", 0.2 },
					    { "peer_died_or_oom", 0.15 },
					    { "p2p_pcie_acs_iommu", 0.1 } };
	static const struct cand stuck[] = { { "p2p_pcie_acs_iommu", 0.25 },
					     { "driver_or_kernel_bug", 0.2 },
					     { "gpu_hardware", 0.2 },
					     { "collective_mismatch_app_bug", 0.15 },
					     { "unknown", 0.15 } };
	static const struct cand hosts[] = { { "ib_rdma_config", 0.2 },
					     { "version_mismatch", 0.2 },
					     { "bootstrap_network", 0.15 },
					     { "collective_mismatch_app_bug", 0.15 },
					     { "unknown", 0.15 },
					     { "peer_died_or_oom", 0.15 },
					     { "p2p_pcie_acs_iommu", 0.1 } };
	long long seq = watchdog_min_seq(lg);
	const struct cand *dp = noseq;
	size_t ndp = sizeof(noseq) / sizeof(noseq[0]);
	bool spans_hosts = false;
	if (seq > 1) {
		dp = late, ndp = sizeof(late) / sizeof(late[0]);
		finding_evidence(f, NULL, 0, "SeqNum=%lld: earlier collectives of this group completed, so the paths worked; "
					     "a late hang points to the application, a GPU fault or an NCCL/driver bug", seq);
	} else if (ray_remote_worker(a) || a->launch_nodes > 1) {
		spans_hosts = true;
		dp = hosts, ndp = sizeof(hosts) / sizeof(hosts[0]);
		if (a->launch_nodes > 1)
			finding_evidence(f, NULL, 0, "the launcher starts the job on %d nodes: the job spans hosts; the network "
						     "between them and different NCCL/CUDA builds per host come first", a->launch_nodes);
		else
			finding_evidence(f, NULL, 0, "a Ray worker on another node (its prefix names an ip): the job spans hosts; "
						     "the network between them and different NCCL/CUDA builds per host come first");
	} else if (seq < 0 && watchdog_stuck(a)) {
		dp = stuck, ndp = sizeof(stuck) / sizeof(stuck[0]);
		finding_evidence(f, NULL, 0, "the watchdog thread itself got stuck: PyTorch reads that as an NCCL/CUDA API call "
					     "that hangs (a GPU path that never completes, a driver or NCCL bug), not as ranks "
					     "calling different collectives");
	} else if (seq >= 0) {
		dp = first, ndp = sizeof(first) / sizeof(first[0]);
		finding_evidence(f, NULL, 0, "SeqNum=%lld: the first collective of this group; a path between the GPUs that "
					     "never carried data (P2P through ACS, an IOMMU or a hypervisor) fails here first", seq);
	}
	if (dp != hosts && dp != first)
		finding_evidence(f, NULL, 0, "PyTorch's own reading of a watchdog timeout: most likely collectives used "
					     "differently across ranks (sizes, order, one rank not reaching it, one rank busy "
					     "elsewhere past the timeout); also a GIL deadlock, the network or an NCCL bug");
	struct cand c[8];
	size_t nc = 0;
	for (size_t k = 0; k < ndp && nc < 7; k++)
		c[nc++] = dp[k];
	if (!spans_hosts && vllm_custom_ar_on(a)) {
		c[nc++] = (struct cand){ "custom_allreduce_or_cumem", seq > 1 ? 0.35 : 0.2 };
		finding_evidence(f, NULL, 0, "vLLM with its custom all-reduce not reported off: its kernels run on the "
					     "watched stream but are no NCCL work, so one that never returns shows as the next "
					     "NCCL collective timing out; --disable-custom-all-reduce tests it");
	}
	for (size_t k = 0; k < nc; k++) {
		struct cause_acc *acc = contribute(a, c[k].cause, c[k].w, FID_LOG_HANG_DATA_PATH);
		for (size_t i = 0; i < lg->nev && acc; i++)
			if (a->sigs[lg->ev[i].sig].role == NSR_HANG) {
				cause_evidence(acc, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
				contribute(a, c[k].cause, 0, a->sigs[lg->ev[i].sig].fid);
				break;
			}
	}
}

/* Whether every hang marker of the log is a shell's SIGKILL notice. */
static bool hang_is_sigkill(const struct ana *a)
{
	const struct nccllog *lg = a->lg;
	bool any = false;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].role != NSR_HANG)
			continue;
		if (nl_shell_kill_notice(e->text, strlen(e->text)) != 9)
			return false;
		any = true;
	}
	return any;
}

/* The log's hang markers as the evidence of finding f and causes c and c2. */
static void hang_markers_evidence(const struct ana *a, struct finding *f, struct cause_acc *c, struct cause_acc *c2)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].role != NSR_HANG)
			continue;
		finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s", e->text);
		cause_evidence(c, e->file, e->line, e->text);
		cause_evidence(c2, e->file, e->line, e->text);
	}
}

/* Nothing failed and the log ends with PyTorch's exit warning that
 * destroy_process_group() was not called (PT20, within the last lines of
 * its file: every rank prints one as it exits): the job ran to its end,
 * and a job that hangs there hangs in teardown, where Python destroys the
 * communicators in its own order on each rank. The application's
 * teardown first (0.3: destroy the groups; the fix of cases 296 and
 * 342), NCCL's destroy/abort bugs second; a warning, since a clean exit
 * prints the same lines. Not after a Python traceback or exception line
 * (lg->py_errors): that ended the run, and the warning follows it. */
static void exit_without_destroy(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_event *last = NULL;
	int n = 0;
	if (lg->py_errors) /* an exception the tables do not know ended the run: not a clean end */
		return;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].fid != FID_LOG_EXIT_WITHOUT_DESTROY)
			continue;
		n++;
		if (e->file >= 0 && e->file < lg->nfiles && e->line + 8 >= lg->files[e->file].lines)
			last = e;
	}
	if (!last)
		return;
	/* signature_findings leaves PT20 to this rule (any log may hold the
	 * warning); here it is all the log says: the problem to act on */
	struct finding *f = finding_for(a->r, FID_LOG_EXIT_WITHOUT_DESTROY, SEV_WARNING,
					"the ranks reached their exit without destroy_process_group(): a hang here is in teardown");
	struct cause_acc *app = contribute(a, "collective_mismatch_app_bug", 0.3, FID_LOG_EXIT_WITHOUT_DESTROY);
	struct cause_acc *bug = contribute(a, "driver_or_kernel_bug", 0.15, FID_LOG_EXIT_WITHOUT_DESTROY);
	event_evidence(a, f, app, last);
	cause_evidence(bug, last->file, last->line, last->text);
	finding_evidence(f, NULL, 0, "%d exit warning%s, the last within the last lines of %s; no failure before", n,
			 n == 1 ? "" : "s", file_name(lg, last->file));
}

/* No NCCL output at all (or none that places a rank at a stage, beside
 * a watchdog time-out: watchdog_without_stage): a collective that never
 * finished (PyTorch's watchdog), a hang before NCCL, a hang in teardown
 * (exit_without_destroy), or simply no NCCL lines. */
static void no_nccl_lines(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	/* have_hang: not when every marker echoes an earlier NCCL error (failed_or_timed_out_echo) */
	/* Gloo's own time-out (GL05) is the same reading: its pairs had
	 * connected, a peer never reached the call */
	bool watchdog = a->have_hang &&
			(count_of(a, "PT01") || count_of(a, "PT02") || count_of(a, "PT02f") || count_of(a, "GL05"));
	if (watchdog && !a->have_any_root) {
		bare_collective_timeout(a);
		a->failed = true;
		return;
	}
	if (a->have_hang && !a->have_any_root && hang_is_sigkill(a)) {
		/* SIGKILL, not a hang: a user stops a hung job with ^C or kill
		 * (SIGTERM: "Terminated"); SIGKILL with no NCCL line is most
		 * often the kernel's OOM killer (or a memory limit) */
		struct finding *f = finding_for(a->r, FID_LOG_OOM_KILLED, SEV_ERROR,
						"the shell reports the process killed by SIGKILL before NCCL printed anything: "
						"most often the OOM killer");
		struct cause_acc *c = contribute(a, "peer_died_or_oom", 0.4, FID_LOG_OOM_KILLED);
		struct cause_acc *c2 = contribute(a, "bootstrap_network", 0.15, FID_LOG_OOM_KILLED);
		hang_markers_evidence(a, f, c, c2);
		finding_evidence(f, NULL, 0, "check `dmesg` (or `nccl-doctor kernel`) for 'Out of memory: Killed process' "
					     "and the container's memory limit; a kill -9 of a hung job reads the same");
		a->failed = true;
	} else if (a->have_hang && !a->have_any_root) {
		struct finding *f = finding_for(a->r, FID_LOG_HANG_BEFORE_NCCL, SEV_ERROR,
						"the process hung before NCCL printed anything (stage T0 never reached)");
		struct cause_acc *c = contribute(a, "bootstrap_network", 0.4, FID_LOG_HANG_BEFORE_NCCL);
		struct cause_acc *c2 = contribute(a, "peer_died_or_oom", 0.2, FID_LOG_HANG_BEFORE_NCCL);
		hang_markers_evidence(a, f, c, c2);
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
		exit_without_destroy(a);
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
		{ "p2p_pcie_acs_iommu", 0.5, 0.25 }, { "shm_too_small", 0.35, 0.15 }, { "gpu_hardware", 0.35, 0.2 },
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
		cand[nc++] = (struct cand){ nvl ? "nvlink_fabric" : "gpu_hardware", nvl ? 0.3 : 0.15 };
	} else if (fid == FID_LOG_HANG_RUNTIME_CONNECT) {
		cand[nc++] = (struct cand){ "custom_allreduce_or_cumem", vllm_custom_ar ? 0.45 : 0.4 };
		cand[nc++] = (struct cand){ "shm_too_small", 0.3 };
		cand[nc++] = (struct cand){ "p2p_pcie_acs_iommu", 0.25 };
	} else if (watchdog_min_seq(lg) > 1) {
		/* the watchdog's SeqNum > 1: earlier collectives of the group
		 * completed over these very connections, so the paths worked (as
		 * bare_collective_timeout reads it): ranks that called different
		 * collectives or one rank busy past the timeout first, then a GPU
		 * fault, the network or the paths last (PyTorch's own reading of a
		 * watchdog time-out) */
		const char *reading = ana_text(a, "SeqNum=%lld: earlier collectives of this group completed over these "
						  "connections, so the paths worked: the application first",
					       watchdog_min_seq(lg));
		struct finding *hf = finding_get(a->r, fid);
		if (hf)
			finding_evidence(hf, NULL, 0, "%s", reading);
		/* its own finding (the next step: what each rank did at that
		 * SeqNum) only where no root failure explains the hang; a reading,
		 * not a failure line: a warning, so that a rule's evidence of the
		 * application (a peer that ended cleanly) keeps the first screen */
		enum finding_id afid = fid;
		if (!a->have_root) {
			struct finding *lf = finding_for(a->r, FID_LOG_HANG_AFTER_COLLECTIVES, SEV_WARNING,
							 "a collective hung after earlier ones of the group had completed");
			finding_evidence(lf, NULL, 0, "%s", reading);
			afid = FID_LOG_HANG_AFTER_COLLECTIVES;
		}
		struct cause_acc *ac = contribute(a, "collective_mismatch_app_bug", 0.3 * scale * (a->have_hang ? 1.0 : 0.8), afid);
		cause_evidence_first(ac, -1, 0, reading);
		for (size_t i = 0; i < lg->nev; i++) /* the watchdog's own line after the reading */
			if (a->sigs[lg->ev[i].sig].role == NSR_HANG) {
				cause_evidence(ac, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
				break;
			}
		for (size_t k = 0; k < a->nsigs && k < NL_MAX_SIGS; k++)
			if (lg->sigcount[k] && a->sigs[k].role == NSR_HANG)
				score_link_finding(a, "collective_mismatch_app_bug", a->sigs[k].finding);
		cand[nc++] = (struct cand){ "peer_died_or_oom", 0.2 };
		cand[nc++] = (struct cand){ nvl ? "nvlink_fabric" : "gpu_hardware", 0.15 };
		cand[nc++] = (struct cand){ ss->any_ib ? "ib_rdma_config" : ss->any_net ? "bootstrap_network" : "p2p_pcie_acs_iommu", 0.1 };
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
		cand[nc++] = (struct cand){ "gpu_hardware", 0.15 };
	} else {
		cand[nc++] = (struct cand){ "p2p_pcie_acs_iommu", any_p2p && pcie ? 0.5 : any_p2p ? 0.35 : 0.25 };
		cand[nc++] = (struct cand){ nvl ? "nvlink_fabric" : "gpu_hardware", nvl ? 0.35 : 0.25 };
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
				score_link_finding(a, cand[k].cause, a->sigs[s].finding);
			}
}

/* A PyTorch watchdog time-out (PT01, PT02) in a log whose NCCL lines
 * place no process at a stage (only the teardown after the time-out:
 * "Abort COMPLETE", "Destroy COMPLETE"): those lines say nothing of where
 * the collective hung, the watchdog's SeqNum does (case 370: SeqNum=923
 * beside one Abort line, read as an init hang of unknown stage before). */
static bool watchdog_without_stage(const struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (!a->have_hang || a->have_any_root || !(count_of(a, "PT01") || count_of(a, "PT02") || count_of(a, "PT02f")))
		return false;
	for (int i = 0; i < lg->nprocs; i++)
		if (nl_proc_stage(&lg->procs[i]) >= 0)
			return false;
	return true;
}

void stage_analysis(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct stage_sum ss;
	stage_summary(lg, &ss);
	if (a->launch_nodes > 1)
		ss.nhosts = 2; /* a launcher line names several nodes */
	int nincomplete = ss.nincomplete;
	bool early_missing = false;
	bool missing = missing_ranks(a, &early_missing);
	if (ss.nlive == 0 || watchdog_without_stage(a)) {
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
		/* With a root failure known, ranks whose log says nothing of a
		 * stage are waiting for the rank that failed (or their own
		 * failure went to lines no rank prefix names): spreading the
		 * hang priors would only add causes the log does not show. */
		if (nunknown && hung && !a->have_root) {
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

/* A bootstrap hang (LOG_HANG_BOOTSTRAP) where every communicator of every
 * process has one rank: bootstrap has no other rank to wait for
 * (N:bootstrap.cc exchanges addresses with nranks-1 peers), so the stop is
 * in the rank's own set-up; the finding says so and drops to a warning. */
void single_rank_bootstrap(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct finding *f = finding_get(a->r, FID_LOG_HANG_BOOTSTRAP);
	if (!f)
		return;
	int ncomm = 0;
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].ncomms; k++) {
			if (lg->procs[i].comms[k].nranks != 1)
				return;
			ncomm++;
		}
	if (!ncomm)
		return;
	if (f->sev > SEV_WARNING)
		f->sev = SEV_WARNING;
	finding_evidence(f, NULL, 0, "every communicator in the log has one rank (nranks 1): there is no other rank to "
				     "wait for, the stop is in the rank's own set-up (GPU, NCCL build), not in bootstrap");
}

/* LOG_HANG_BOOTSTRAP on one host, with no hang marker, no root failure and
 * no rank missing: hang_causes then ranks the paths between the GPUs first
 * (a log that merely ends is a weak prior, issue 14 item 2), and the
 * finding says the same: a warning that the log may just end there. One
 * process driving every GPU (nccl-tests -g N) bootstraps its ranks over its
 * own host's address, where the interface rarely matters. */
void one_host_bootstrap_stop(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct finding *f = finding_get(a->r, FID_LOG_HANG_BOOTSTRAP);
	if (!f || a->have_hang || a->have_root || finding_get(a->r, FID_LOG_RANKS_MISSING) || !lg->nprocs || !one_host(lg))
		return;
	if (f->sev > SEV_WARNING)
		f->sev = SEV_WARNING;
	title_prefix(f, "possible hang, the log just stops; ");
	finding_evidence(f, NULL, 0, "one host and no hang marker (no kill, timeout or watchdog line): a log that ends here "
				     "(a paste cut here too) is a weak prior, the paths between the GPUs of the host come first");
	if (lg->nprocs == 1 && count_of(a, "NT02") > 1)
		finding_evidence(f, NULL, 0, "one process drives every GPU: its ranks bootstrap over this host's own address, "
					     "where NCCL_SOCKET_IFNAME rarely matters");
}
