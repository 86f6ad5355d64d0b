/* The rules of `p2p`: pair statuses from what the workers reported, the
 * schedule of pair tests, the bandwidth a link class should carry, and the
 * path between two GPUs through the PCI tree with the facts that break P2P
 * (ACS redirect on its bridges, a translating IOMMU, a VM). Pure functions
 * over facts gathered by cmd/p2p.c; nothing here reads files or prints. */
#ifndef ND_ANALYZE_P2P_H
#define ND_ANALYZE_P2P_H
#include <jansson.h>
#include <stdbool.h>

#include "model/link.h"
#include "model/pci.h"
#include "model/worker.h"

#define P2P_MAX_GPUS 64
/* a pair is SLOW below this share of the bandwidth its link should carry */
#define P2P_SLOW_RATIO 0.5
/* a GPU is slow below this share of the median of its peers */
#define P2P_GPU_SLOW_RATIO 0.7

/* in rising severity; the worst of a pair's steps wins */
enum p2p_status { P2P_OK, P2P_NO_P2P, P2P_SLOW, P2P_ERROR, P2P_CORRUPT, P2P_HANG, P2P_SKIPPED, P2P_VOID };
const char *p2p_status_name(enum p2p_status s); /* "OK", "NO_P2P", ... */

/* Bandwidth one direction of a link should carry, GB/s (1e9 bytes):
 * NV#: links x the per-link rate of the GPU generation (compute capability
 * major: 7, 8, 9: 25 GB/s, 10 and later: 50 GB/s) x 0.8; PCIe with P2P:
 * the per-lane rate of the generation x width x 0.8; without P2P (through
 * host memory): half of that. 0 when unknown (no generation or width). */
double p2p_expected_gbs(const struct link *l, int cc_major, int pcie_gen, int pcie_width, bool p2p);
/* One PCIe lane, one direction, GB/s after line coding (gen 1..6), else 0. */
double p2p_pcie_lane_gbs(int gen);

/* Round-robin schedule of the n(n-1)/2 pairs of n GPUs (circle method):
 * rounds of disjoint pairs. Fills pairs[k] = {i, j} (i < j) in round order
 * and round[k]; returns the number of pairs. */
int p2p_schedule(int n, int (*pairs)[2], int *round, int max);

/* One ordered pair (src -> dst) as reported. */
struct p2p_result {
	int src, dst;              /* positions in the GPU list */
	enum p2p_status status;
	char step[160];            /* HANG / CORRUPT / ERROR: the step */
	long long bad_offset;      /* CORRUPT: first bad byte, else -1 */
	char error[96];            /* ERROR: the vendor code's name or what failed */
	int can_access;            /* cuDeviceCanAccessPeer: 1, 0, -1 unknown */
	bool ce_ok, sm_ok;         /* verified */
	bool sm_tested;
	int nccl;                  /* -1 not run, 0 failed, 1 ok */
	char path[8];              /* "p2p" or "host" for the copy-engine copy */
	/* bandwidth (full mode), 0 when not measured */
	double ce_gbs, ce_nop2p_gbs, sm_gbs, lat_us, lat_nop2p_us;
	double bidir_gbs, bidir_nop2p_gbs, sm_bidir_gbs;
	double expected_gbs, ratio;
	char note[160];
};

void p2p_result_init(struct p2p_result *r, int src, int dst);
/* Raises r's status to s (keeps the worse), with the step and detail. */
void p2p_result_raise(struct p2p_result *r, enum p2p_status s, const char *step);

/* Applies a `p2p-pair` function worker's outcome (status, its results
 * array, last stage, first error) to the ordered pair r. */
void p2p_apply_pair_worker(struct p2p_result *r, enum worker_status ws, json_t *results, const char *stage,
			   json_t *error, int signal);
/* Applies one rank of a `p2p-nccl` run to both ordered pairs of it. */
void p2p_apply_nccl(struct p2p_result *ab, struct p2p_result *ba, enum worker_status ws, json_t *result,
		    const char *stage, json_t *error, int signal);
/* Applies a `p2p-pair --bw` worker's results to both ordered pairs. */
void p2p_apply_bandwidth(struct p2p_result *ab, struct p2p_result *ba, json_t *results);
/* SLOW when the copy-engine bandwidth is below P2P_SLOW_RATIO of expected
 * (expected > 0 and a measurement); sets expected_gbs and ratio. */
void p2p_judge_speed(struct p2p_result *r, double expected);

/* The PCI path between two GPUs: bridges from each up to (not including)
 * their common ancestor, then the ancestor; with ACS state. */
struct p2p_path {
	const struct pci_dev *bridges[32];
	int n;
	int redirect;              /* bridges with an ACS redirect bit set */
	int unknown;               /* bridges whose ACS could not be read */
	bool same_root;            /* under one host bridge */
};
void p2p_path_between(const struct pci_list *l, const struct pci_dev *a, const struct pci_dev *b, struct p2p_path *out);

#endif
