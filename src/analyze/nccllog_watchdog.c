/* NCCL log analysis: a PyTorch watchdog timeout with no NCCL line and no
 * failure anywhere. A collective never finished and the log does not say
 * why; what the watchdog line does say (its SeqNum, the launcher's prefix)
 * orders the candidates, and the finding names what to collect. Called
 * from the stage timeline (nccllog_checks.c) when no process printed an
 * NCCL line. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

#include <stdio.h>
#include <string.h>

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
void bare_collective_timeout(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct finding *f = finding_for(a->r, FID_LOG_HANG_DATA_PATH, SEV_ERROR,
					"a collective never finished (PyTorch watchdog); no NCCL lines to say why");
	finding_evidence(f, NULL, 0, "%s", nccl_stage_hang_meaning(10));
	finding_evidence(f, NULL, 0, "collect: every rank's log with NCCL_DEBUG=INFO (transports, versions, where each "
				     "rank stopped), the flight recorder of every rank (TORCH_NCCL_TRACE_BUFFER_SIZE=2000 "
				     "TORCH_NCCL_DUMP_ON_TIMEOUT=1; `nccl-doctor logs` reads the dumps), the kernel log of each "
				     "host (`nccl-doctor kernel`) and `nccl-doctor check` on each host (NCCL, CUDA and driver "
				     "versions must agree across hosts)");
	static const struct cand noseq[] = { { "collective_mismatch_app_bug", 0.3 }, { "unknown", 0.2 },
					     { "p2p_pcie_acs_iommu", 0.2 },          { "hardware_xid_nvlink", 0.15 },
					     { "peer_died_or_oom", 0.15 } };
	static const struct cand first[] = { { "p2p_pcie_acs_iommu", 0.25 }, { "collective_mismatch_app_bug", 0.2 },
					     { "unknown", 0.2 },             { "hardware_xid_nvlink", 0.15 },
					     { "peer_died_or_oom", 0.15 } };
	static const struct cand late[] = { { "collective_mismatch_app_bug", 0.3 },
					    { "hardware_xid_nvlink", 0.2 },
					    { "driver_or_kernel_bug", 0.2 },
					    { "unknown", 0.2 },
					    { "peer_died_or_oom", 0.15 },
					    { "p2p_pcie_acs_iommu", 0.1 } };
	static const struct cand hosts[] = { { "ib_rdma_config", 0.2 },
					     { "version_mismatch", 0.2 },
					     { "bootstrap_network", 0.15 },
					     { "collective_mismatch_app_bug", 0.15 },
					     { "unknown", 0.15 },
					     { "peer_died_or_oom", 0.15 },
					     { "p2p_pcie_acs_iommu", 0.1 } };
	long long seq = -1;
	for (int i = 0; i < lg->nwd; i++)
		if (lg->wd[i].seq >= 0 && (seq < 0 || lg->wd[i].seq < seq))
			seq = lg->wd[i].seq;
	const struct cand *dp = noseq;
	size_t ndp = sizeof(noseq) / sizeof(noseq[0]);
	bool spans_hosts = false;
	if (seq > 1) {
		dp = late, ndp = sizeof(late) / sizeof(late[0]);
		finding_evidence(f, NULL, 0, "SeqNum=%lld: earlier collectives of this group completed, so the paths worked; "
					     "a late hang points to the application, a GPU fault or an NCCL/driver bug", seq);
	} else if (ray_remote_worker(a)) {
		spans_hosts = true;
		dp = hosts, ndp = sizeof(hosts) / sizeof(hosts[0]);
		finding_evidence(f, NULL, 0, "a Ray worker on another node (its prefix names an ip): the job spans hosts; "
					     "the network between them and different NCCL/CUDA builds per host come first");
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
