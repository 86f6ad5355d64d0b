/* The one ordered table of the NCCL log analysis's rules. nccllog_analyze()
 * runs it from the first entry to the last, then score.c ranks the causes.
 * The order is the analysis's reasoning: a rule reads what the rules above
 * it concluded (have_root, have_hang, the causes so far, a->failed), so an
 * entry that moves changes results. The entries go by phase, and the phases
 * never go back (logs_rules_in_phase_order, asserted by the runner and
 * checked by tests/unit/test_logs_rules.c):
 *   evidence  what the lines say, findings and causes; it settles the
 *             signature flags first (a hang marker that only echoes an
 *             NCCL error is none) and reads nothing a later phase sets;
 *   timeline  whether the run failed (a->failed), where each rank stopped,
 *             missing ranks, stuck collectives of the dumps, hangs;
 *   priors    weak candidates and context of a run that failed or stopped,
 *             which read the timeline's verdict;
 *   adjust    revisions of what the phases above concluded: findings that
 *             change severity or wording, causes capped or dropped. */
#include "analyze/logs/rules/rules.h"

#include <assert.h>

/* Whether the run failed, from the signatures alone: a root failure, a
 * consequence or a hang marker; the rules below add to it. */
static void note_run_failed(struct ana *a)
{
	a->failed = a->have_any_root || a->have_secondary || a->have_hang;
}

static const struct rule rules[] = {
	{ RULE_EVIDENCE, "warn-went-on", warn_went_on,
	  "a root failure whose process went on to a later stage, no error returned: NCCL fell back, context only" },
	{ RULE_EVIDENCE, "signature-findings", signature_findings,
	  "one finding per finding id of the matched signatures, with their lines" },
	{ RULE_EVIDENCE, "warn-failures", warn_failures,
	  "an NCCL warning no signature knows whose back-trace returned an error: a failure of the class it names" },
	{ RULE_EVIDENCE, "signature-causes", signature_causes,
	  "the causes the matched signatures name, root failures first, the first failure in time ahead" },
	{ RULE_EVIDENCE, "launcher-nodes", launcher_nodes,
	  "a launcher line (torchrun --nnodes, --num_nodes, --num_machines, Slurm --nodes) that starts the job on several nodes" },
	{ RULE_EVIDENCE, "tests-wrong-rows", tests_wrong_rows,
	  "rows of an nccl-tests table with #wrong > 0: data corrupted between GPUs, which collective, size and placement" },
	{ RULE_EVIDENCE, "shm-name-garbled", shm_name_garbled,
	  "a /dev/shm segment NCCL failed on whose name holds bytes outside ASCII: an NCCL bug, not /dev/shm's size" },
	{ RULE_EVIDENCE, "ll128-wrong-data", ll128_wrong_data,
	  "wrong data in a run that forced NCCL_PROTO=LL128: the protocol where NCCL would not use it" },
	{ RULE_EVIDENCE, "bootstrap-orphan-trail", bootstrap_orphan_trail,
	  "with no root failure, a back-trace through bootstrap.cc that returned an error without a warning: bootstrap failed" },
	{ RULE_EVIDENCE, "pytorch-error-echo", failed_or_timed_out_echo,
	  "PyTorch's 'failed or timed out' after an NCCL error of its file: the error's echo, no hang marker" },
	{ RULE_EVIDENCE, "ib-reg-no-memory", reg_mr_no_memory,
	  "an IB memory registration out of memory: the locked-memory limit or the size of NCCL's buffers" },
	{ RULE_EVIDENCE, "bootstrap-peer-closed", bootstrap_peer_closed,
	  "a connection closed during bootstrap: NCCL's bug before 2.27.3, or the network" },
	{ RULE_EVIDENCE, "versions-differ", check_versions,
	  "ranks that load different NCCL versions" },
	{ RULE_EVIDENCE, "drivers-differ", check_drivers,
	  "ranks on different CUDA driver versions" },
	{ RULE_EVIDENCE, "duplicate-gpu", check_duplicate_gpu,
	  "two ranks of one communicator on one GPU" },
	{ RULE_EVIDENCE, "device-order", check_device_order,
	  "CUDA device order that differs from NVML (PCI) order" },
	{ RULE_EVIDENCE, "bootstrap-virtual-if", check_bootstrap_if,
	  "bootstrap over a virtual or loopback interface" },
	{ RULE_EVIDENCE, "socket-ifname-unmatched", socket_ifname_unmatched,
	  "no socket interface while NCCL_SOCKET_IFNAME is set (by the environment or an nccl.conf)" },
	{ RULE_EVIDENCE, "env", check_env,
	  "NCCL variables set by the environment, and ones that differ between ranks" },
	{ RULE_EVIDENCE, "buffsize-extreme", buffsize_extreme,
	  "NCCL_BUFFSIZE of a GiB or more: past every documented value, more memory than a GPU has" },
	{ RULE_EVIDENCE, "net-not-found-ib-disabled", net_not_found_ib_disabled,
	  "no NET plugin initialized while NCCL_IB_DISABLE=1 turns the IB network off" },
	{ RULE_EVIDENCE, "watchdog-collectives", check_watchdog,
	  "PyTorch watchdog timeouts that name different collectives" },
	{ RULE_EVIDENCE, "cuda-driver-minimum", cuda_driver_minimum,
	  "an NCCL built for a CUDA newer than the driver: the minimum driver of NVIDIA's compatibility table" },
	{ RULE_EVIDENCE, "vllm-nccl-version", check_vllm_nccl,
	  "vLLM's NCCL against the version the processes print" },
	{ RULE_EVIDENCE, "bootstrap-truncated", check_bootstrap_truncated,
	  "a bootstrap message of the wrong size: two builds, a setting that cuts the data, or a bug of the version" },
	{ RULE_EVIDENCE, "net-differs", compare_net,
	  "hosts that use different NCCL networks (IB, Socket)" },
	{ RULE_EVIDENCE, "gdr-differs", compare_gdr,
	  "GPUDirect RDMA on the network channels of some hosts only" },
	{ RULE_EVIDENCE, "net-plugin-differs", net_plugin_differs,
	  "hosts that load different NET plugins" },
	{ RULE_EVIDENCE, "bootstrap-if-differs", bootstrap_if_differs,
	  "hosts that bootstrap over differently named interfaces" },
	{ RULE_EVIDENCE, "socket-if-differs", socket_if_differs,
	  "hosts whose NET/Socket interfaces are named differently (when bootstrap's are not)" },
	{ RULE_EVIDENCE, "ib-hcas-differ", ib_hcas_differ,
	  "hosts that use different IB devices" },
	{ RULE_EVIDENCE, "ib-wanted-none-found", ib_wanted_none,
	  "a variable that asks for IB (NCCL_IB_DISABLE=0, NCCL_IB_HCA ...) and NET/IB found no device" },
	{ RULE_EVIDENCE, "ipoib-fallback", ipoib_fallback,
	  "NCCL's sockets on an IPoIB interface (ib0) in a process without libibverbs or an IB device" },
	{ RULE_EVIDENCE, "hostname-duplicate", duplicate_hostname,
	  "one hostname that bootstraps from two addresses" },
	{ RULE_EVIDENCE, "bootstrap-addr", bootstrap_addr,
	  "a bootstrap address other hosts cannot reach (loopback, link-local, Docker's bridge)" },
	{ RULE_EVIDENCE, "transport-size-mismatch", transport_size_mismatch,
	  "the two ends of a connection expected different sizes" },
	{ RULE_EVIDENCE, "libnccl-several", libnccl_several,
	  "two different libnccl files or NCCL wheels named in the log" },
	{ RULE_EVIDENCE, "lib-load-sigbus", lib_load_sigbus,
	  "a SIGBUS right after a libnccl load line: a library load crash, /dev/shm steps back" },
	{ RULE_EVIDENCE, "nic-not-pci", nic_not_pci,
	  "NCCL's topology bug with a network device that is not on PCI" },
	{ RULE_EVIDENCE, "framework-errors", framework_errors,
	  "a PyTorch, vLLM, XLA or CUDA error of the catalog: the cause when NCCL printed no warning" },
	{ RULE_TIMELINE, "run-failed", note_run_failed,
	  "the run failed: a root failure, a consequence or a hang marker" },
	/* after run-failed: a barrier still waiting is a run that failed,
	 * which run-failed (signatures alone) would reset */
	{ RULE_TIMELINE, "store-barrier-count", store_barrier_count,
	  "PyTorch's store barrier counts: more joins than the world (a stale store) or fewer (ranks not at init)" },
	{ RULE_TIMELINE, "flight-recorder", flight_recorder_dumps,
	  "PyTorch flight-recorder dumps: mismatched, late or stuck collectives" },
	{ RULE_TIMELINE, "inspector", inspector_counts,
	  "NCCL Inspector dumps and ncclras counts: ranks behind, crossed, missing or slow" },
	{ RULE_TIMELINE, "stages", stage_analysis,
	  "ranks that never appear, where each rank stopped and what a hang there means" },
	{ RULE_TIMELINE, "stack-frames", stack_frames,
	  "stack frames (gdb, py-spy, back-traces) of NCCL or PyTorch functions: the stage a process was in" },
	{ RULE_TIMELINE, "nvls-setup-stop", nvls_stop,
	  "a log that ends inside NVLS buffer set-up" },
	{ RULE_TIMELINE, "tests-no-result", tests_no_result,
	  "nccl-tests output that ends at its result table's header" },
	{ RULE_PRIORS, "bootstrap-virtual-list", virt_ifs,
	  "bridges, veth pairs, overlays or wireless interfaces in NET/Socket's interface list of a run that failed" },
	{ RULE_PRIORS, "topo-matrix-pcie", topo_matrix,
	  "an nvidia-smi topo -m matrix of PCIe paths only in a run that failed" },
	{ RULE_PRIORS, "shm-size-small", shm_size_small,
	  "a /dev/shm under 1 GiB (df, --shm-size, shm_size) shown in a run that failed: /dev/shm too small" },
	{ RULE_PRIORS, "memlock-small", memlock_small,
	  "a locked-memory limit under 1 GiB (ulimit -a) in a failed run that may use RDMA: InfiniBand set-up" },
	{ RULE_PRIORS, "container-hostname", container_hostnames,
	  "hosts named like Docker containers (12 hex digits) in a failed run: /dev/shm, or the bridge across hosts" },
	{ RULE_PRIORS, "known-warn-classes", known_warn_causes,
	  "an NCCL warning of NCCL's own table without a back-trace: context for its class" },
	{ RULE_PRIORS, "result-code", result_code_priors,
	  "a framework's NCCL result code with nothing more specific: the code's usual causes" },
	{ RULE_PRIORS, "remote-error", remote_error_priors,
	  "ncclRemoteError with nothing more specific: the network beside a dead peer" },
	{ RULE_PRIORS, "text-channels", text_channels,
	  "connection lines pasted without NCCL's header: GPUDirect RDMA on one side only, or GDR alone in a log of nothing else" },
	{ RULE_PRIORS, "gdr-disabled-stopped", gdr_disabled,
	  "GPUDirect RDMA disabled in a run that stopped before init completed" },
	{ RULE_PRIORS, "topo-file-stopped", topo_file,
	  "a topology file loaded by a run that stopped before init completed" },
	{ RULE_PRIORS, "internal-error-2-18", internal_error_218,
	  "'internal error' from NCCL 2.18, which reports network errors so" },
	{ RULE_PRIORS, "sm120-old-nccl", sm120_old_nccl,
	  "an NCCL before 2.26.2 on an RTX 50-series GPU in a run that failed" },
	{ RULE_PRIORS, "ada-p2p-old-driver", ada_p2p_old_driver,
	  "GeForce RTX 40 GPUs with a driver before 550.40.07 (or none shown) in a failed run: a P2P that does not work" },
	{ RULE_PRIORS, "nccl-known-bug", known_nccl_bugs,
	  "an NCCL version whose release notes fix a bug with the symptoms the log shows" },
	{ RULE_PRIORS, "nccl-release-age", nccl_release_age,
	  "a generic CUDA or internal error and the NCCL version: the share of the release notes' fixes it lacks" },
	{ RULE_PRIORS, "remote-error-no-transport", remote_error_no_transport,
	  "ncclRemoteError with no network named: the sockets beside the IB fabric" },
	{ RULE_PRIORS, "nvls-candidate", nvls_candidate,
	  "more than 2 GPUs of an NVSwitch model on one host in a run that stopped: NVLS" },
	{ RULE_PRIORS, "overrides", override_priors,
	  "in a run that failed, a variable that replaces NCCL's own detection" },
	{ RULE_PRIORS, "slow-topo-file", slow_topo_file,
	  "a run far below its expected bandwidth, started with NCCL_TOPO_FILE or NCCL_GRAPH_FILE: the file first" },
	{ RULE_PRIORS, "program-exception", program_exception,
	  "a traceback ending in ValueError, TypeError, AssertionError ... with nothing stronger: the program's own code" },
	{ RULE_ADJUST, "peer-exited-cleanly", peer_exit_check,
	  "a peer said dead whose own log ends with a clean destroy: different collectives" },
	{ RULE_ADJUST, "single-rank-bootstrap", single_rank_bootstrap,
	  "a bootstrap hang of one-rank communicators: the stop is in the rank's own set-up" },
	{ RULE_ADJUST, "tests-exit-code", tests_exit_code,
	  "nccl-tests' exit code: the run failed by itself (1-3, 6) or timed out (4)" },
	{ RULE_ADJUST, "one-host-bootstrap-stop", one_host_bootstrap_stop,
	  "a bootstrap stop on one host with no hang marker: the log may just end there" },
	{ RULE_ADJUST, "transport-switches", transport_switches,
	  "a transport switched off where the run started: its causes that only fallbacks named go" },
	{ RULE_ADJUST, "host-facts", host_facts,
	  "the machine the job ran on: a cause its facts rule out goes, one they explain gains the fact" },
	{ RULE_ADJUST, "cause-unknown", honest_unknown,
	  "only priors point anywhere: the cause is unknown; what to collect for the stage reached" },
};

const struct rule *logs_rules(size_t *n)
{
	*n = sizeof(rules) / sizeof(rules[0]);
	return rules;
}

bool logs_rules_in_phase_order(const struct rule *r, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (r[i].phase < r[i - 1].phase)
			return false;
	return true;
}

void logs_rules_run(struct ana *a)
{
	size_t n = sizeof(rules) / sizeof(rules[0]);
	assert(logs_rules_in_phase_order(rules, n));
	for (size_t i = 0; i < n; i++)
		rules[i].fn(a);
}

const char *rule_phase_name(enum rule_phase p)
{
	switch (p) {
	case RULE_EVIDENCE: return "evidence";
	case RULE_TIMELINE: return "timeline";
	case RULE_PRIORS: return "priors";
	case RULE_ADJUST: return "adjust";
	}
	return "?";
}
