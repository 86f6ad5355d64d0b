/* Inside the Prometheus renderer (report/prom.c, report/prom_parts.c): the
 * metric families, the sample writer and the GPU identities. */
#ifndef ND_REPORT_PROM_INT_H
#define ND_REPORT_PROM_INT_H
#include "report/report.h"
#include "util/jsonx.h"
#include "util/strbuf.h"

#include <stdbool.h>

/* Every family: X(ID, name after "nccl_doctor_", HELP). All are gauges: a
 * textfile holds one run's snapshot, never a counter of ours that grows.
 * docs/prometheus.md has the same list with the labels. */
#define PROM_FAMILIES(X)                                                                                             \
	X(VERDICT, "verdict", "The run's verdict as a number: 0 HEALTHY, 1 DEGRADED, 2 BROKEN, 3 INCOMPLETE, 4 NOTHING TO CHECK") \
	X(VERDICT_STATE, "verdict_state", "1 for the run's verdict, 0 for the other verdict words")                 \
	X(EXIT_CODE, "exit_code", "The exit status of the run (before --fail-on and --exit-style)")                 \
	X(RUN_DURATION, "run_duration_seconds", "How long the run took")                                            \
	X(LAST_RUN, "last_run_timestamp_seconds", "When the run wrote this file, in seconds since the epoch")       \
	X(BUILD_INFO, "build_info", "The version of this tool that wrote this file (labels); the value is 1")                 \
	X(FINDINGS, "findings", "Findings of the run by severity")                                                  \
	X(FINDING, "finding", "Findings of the run by id: how many were found with this id and severity")           \
	X(VERSIONS_INFO, "versions_info", "The driver, CUDA driver API and NCCL versions the run saw; the value is 1") \
	X(NCCL_LIBRARY_INFO, "nccl_library_info", "A libnccl found on the machine, its version and who loads it; the value is 1") \
	X(STAGE_DURATION, "check_stage_duration_seconds", "How long each stage of check took")                     \
	X(GPUS, "gpus", "The number of GPUs the run saw")                                                           \
	X(GPU_INFO, "gpu_info", "A GPU the run saw, with its model; the value is 1")                                \
	X(GPU_LOST, "gpu_lost", "1 when the GPU has fallen off the bus or is lost to NVML")                        \
	X(PCIE_WIDTH, "pcie_link_width", "The GPU's current PCIe link width in lanes")                             \
	X(PCIE_MAX_WIDTH, "pcie_link_max_width", "The GPU's maximum PCIe link width in lanes")                     \
	X(PCIE_SPEED, "pcie_link_speed_transfers_per_second", "The GPU's current PCIe link speed per lane (2.5e9 to 64e9)") \
	X(PCIE_MAX_SPEED, "pcie_link_max_speed_transfers_per_second", "The GPU's maximum PCIe link speed per lane") \
	X(PCIE_GEN, "pcie_link_generation", "The GPU's current PCIe generation (NVML)")                            \
	X(PCIE_MAX_GEN, "pcie_link_max_generation", "The GPU's maximum PCIe generation (NVML)")                    \
	X(PCIE_AER, "pcie_aer_errors", "PCIe AER errors the GPU counted since boot, by kind")                      \
	X(KERNEL_EVENTS, "kernel_events", "GPU and platform events in the kernel log (Xid, AER, IOMMU faults ...), by GPU and kind") \
	X(NVSWITCH_FABRIC, "nvswitch_fabric", "1 when the machine's GPUs are joined by an NVSwitch fabric")         \
	X(FABRIC_STATE, "fabric_state", "The GPU's NVSwitch fabric registration: 0 not supported, 1 not started, 2 in progress, 3 completed") \
	X(FABRIC_LINKS_ACTIVE, "fabric_nvlinks_active", "The GPU's active NVLinks (fabric view)")                  \
	X(FABRIC_LINKS_EXPECTED, "fabric_nvlinks_expected", "The NVLinks the GPU's model should have active")      \
	X(NVLINK_ACTIVE, "nvlink_active", "1 when the NVLink is active")                                            \
	X(NVLINK_DOWNTRAINED, "nvlink_downtrained", "1 when the NVLink is slower than the GPU's other links or its model") \
	X(NVLINK_ERRORS, "nvlink_errors", "NVLink error counters as NVML reported them, by counter")                \
	X(NVML_P2P, "nvml_p2p_supported", "1 when NVML reports the P2P capability OK for the ordered GPU pair")      \
	X(P2P_PAIRS, "p2p_pairs", "Ordered GPU pairs tested by p2p, by status")                                     \
	X(P2P_STATE, "p2p_pair_state", "The pair's p2p status: 0 OK, 1 SLOW, 2 NO_P2P, 3 ERROR, 4 CORRUPT, 5 HANG, 6 SKIPPED, 7 VOID") \
	X(P2P_BW, "p2p_pair_bandwidth_bytes_per_second", "Bandwidth measured from gpu to peer_gpu, by engine, P2P on or off and direction") \
	X(P2P_EXPECTED_BW, "p2p_pair_expected_bandwidth_bytes_per_second", "The bandwidth the pair's link should give one way") \
	X(P2P_LATENCY, "p2p_pair_latency_seconds", "Latency of a small copy from gpu to peer_gpu, P2P on or off")  \
	X(BENCH_BUSBW, "bench_bus_bandwidth_bytes_per_second", "Bus bandwidth of a collective as nccl-tests computes it, by op, size and placement") \
	X(BENCH_ALGBW, "bench_algorithm_bandwidth_bytes_per_second", "Algorithm bandwidth (size / time) of a collective") \
	X(BENCH_TIME, "bench_time_seconds", "Time of one collective, by op, size and placement")                   \
	X(BENCH_WRONG, "bench_wrong_elements", "Elements with a wrong result (nccl-tests' #wrong)")                 \
	X(BENCH_AVG_BUSBW, "bench_average_bus_bandwidth_bytes_per_second", "nccl-tests' average bus bandwidth over the sizes") \
	X(BENCH_RANKS, "bench_ranks", "Ranks of the benchmark")                                                     \
	X(FLEET_NODES, "fleet_nodes", "Nodes of a merge, by state")                                                 \
	X(NODE_VERDICT, "node_verdict", "A merged node's verdict as a number (as nccl_doctor_verdict)")            \
	X(NODE_EXIT_CODE, "node_exit_code", "A merged node's exit status")                                          \
	X(NODE_BUSBW, "node_bus_bandwidth_bytes_per_second", "A merged node's all_reduce bus bandwidth")            \
	X(NODE_P2P_BW, "node_p2p_copy_bandwidth_bytes_per_second", "A merged node's P2P copy bandwidth")

enum prom_fam {
#define PROM_ENUM(id, name, help) PF_##id,
	PROM_FAMILIES(PROM_ENUM)
#undef PROM_ENUM
	PF_N
};

#define PROM_MAX_LABELS 10

/* A sample's own labels after command and Hostname (host: another node's
 * name, merge's per-node series; NULL: this run's node). Values are kept
 * by pointer until prom_sample. */
struct prom_labels {
	const char *name[PROM_MAX_LABELS];
	const char *value[PROM_MAX_LABELS];
	int n;
	const char *host;
};

/* A GPU as dcgm-exporter names it. */
struct prom_gpu {
	long long index;
	char bdf[32], bus_id[32], uuid[96], model[96];
};

struct prom {
	const char *command, *host;
	struct strbuf fam[PF_N]; /* the samples of each family */
	struct prom_gpu *gpus;
	size_t ngpus, agpus;
};

void prom_label(struct prom_labels *l, const char *name, const char *value);
/* One sample of family f; a value that is not finite is left out. */
void prom_sample(struct prom *p, enum prom_fam f, const struct prom_labels *l, double v);
/* nccl_doctor_verdict's number of a verdict word, -1 for another word. */
int prom_verdict_code(const char *word);
void prom_learn_gpus(struct prom *p, const json_t *arr, const char *key_index);
const struct prom_gpu *prom_gpu_by_index(const struct prom *p, long long index);
/* Adds gpu, UUID and pci_bus_id of GPU index to l (ixbuf holds the index's
 * text until the sample is written). */
void prom_gpu_labels(struct prom *p, struct prom_labels *l, long long index, char *ixbuf, size_t ixsz);
/* The same of GPU g (NULL: a GPU no member named, only its index). */
void prom_gpu_labels_of(struct prom_labels *l, const struct prom_gpu *g, long long index, char *ixbuf, size_t ixsz);
/* The GPU of a row that names one by "bdf" (first) or by key_index. */
const struct prom_gpu *prom_gpu_of_row(const struct prom *p, const json_t *row, const char *key_index);

/* report/prom_parts.c: the members of the commands, each a no-op where the
 * document lacks them */
void prom_host_parts(struct prom *p, const json_t *doc);
void prom_gpu_parts(struct prom *p, const json_t *doc);
void prom_p2p_parts(struct prom *p, const json_t *doc);
void prom_bench_parts(struct prom *p, const json_t *doc);
void prom_fleet_parts(struct prom *p, const json_t *doc);

#endif
