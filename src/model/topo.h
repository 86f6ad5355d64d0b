/* Typed members of the result model for the GPU topology: the GPUs, the
 * GPU-to-GPU matrices (shown, NVML's, sysfs'), NVML's P2P status per ordered
 * pair and the NVLinks. analyze/topo.c fills them; report/ renders them, as
 * tables in text and as the top-level members gpus, matrix, matrix_source,
 * nvml_matrix, sysfs_matrix, p2p, nvlinks and fabric in JSON (docs/gpu.md,
 * docs/topo.md). */
#ifndef ND_MODEL_TOPO_H
#define ND_MODEL_TOPO_H
#include <stdbool.h>
#include <stddef.h>

#include "model/link.h"

/* One GPU. Strings are NULL and numbers -1 (0 for PCIe fields) when unknown. */
struct topo_gpu {
	int index;
	char *name, *bdf, *uuid;
	int numa_node;
	char *cpu_affinity;
	int gpu_numa_id;
	int pcie_cur_gen, pcie_max_gen, pcie_cur_width, pcie_max_width;
	long long memory_bytes, bar1_bytes;
	int persistence, mig, ecc, remap_pending; /* 1 / 0, -1 unknown */
	bool lost;
};

/* NVML's P2P status of an ordered pair (GPU indices). */
struct topo_p2p {
	int a, b;
	char *read, *write, *nvlink, *atomics; /* NVML's words: OK, IOH_TOPOLOGY_NOT_SUPPORTED ... */
	int cuda_can_access_peer;              /* 1 / 0, -1 unknown */
};

/* NVLink error counters (nvmlDeviceGetNvLinkErrorCounter), in this order */
enum { NVL_ERR_REPLAY, NVL_ERR_RECOVERY, NVL_ERR_CRC_FLIT, NVL_ERR_CRC_DATA, NVL_ERR_N };

struct topo_nvlink {
	int gpu, link;
	bool active;
	char *remote_bdf;  /* may be NULL */
	char *remote_type; /* "gpu", "switch" ...; may be NULL */
	long long speed_mbps;      /* -1 unknown */
	int version;               /* nvmlNvlinkVersion_t (6 = NVLink 4.0), -1 unknown */
	long long err[NVL_ERR_N];  /* -1 unknown */
	long long grew[NVL_ERR_N]; /* added during the check's second read, -1 not read again */
	bool downtrained;          /* slower than the GPU's other links or the model's speed */
};

/* One GPU's place in the NVSwitch fabric (NVML) and its multicast support
 * (CUDA). Strings NULL and numbers -1 when unknown. */
struct topo_fabric {
	int gpu;
	int state;               /* NVML_GPU_FABRIC_STATE_*: 0 not supported .. 3 completed */
	char *error;             /* the fabric call failed: NVML's error name */
	char *status;            /* the registration's nvmlReturn_t name (state 3) */
	long long clique_id, health_mask;
	char *cluster_uuid;
	int multicast;           /* 1 / 0 */
	int links_present, links_active, links_expected;
	long long link_speed_mbps; /* the fastest active link's speed */
	char *expected_source;   /* where links_expected comes from */
};

struct topo_model {
	bool from_nvml;             /* GPUs and matrix from NVML, else from sysfs */
	struct topo_gpu *gpus;      /* the selected GPUs, in index order */
	size_t n, a;
	struct link *matrix;        /* n * n, row-major: what is shown */
	struct link *nvml_matrix;   /* n * n, or NULL without NVML */
	struct link *sysfs_matrix;  /* n * n, or NULL without a PCI tree */
	bool have_p2p;              /* NVML answered: p2p holds every ordered pair */
	struct topo_p2p *p2p;
	size_t np2p, ap2p;
	bool have_nvlinks;          /* NVML answered and some GPU has NVLinks */
	struct topo_nvlink *links;
	size_t nlinks, alinks;
	bool have_fabric;           /* NVML answered: fabric holds every shown GPU */
	bool nvswitch_fabric;       /* NVSwitches on the bus, NVLinks to a switch or a GPU's fabric state */
	bool switch_seen;           /* the first two: a switch itself was seen, not only a state */
	int nvswitches;             /* NVSwitch PCI functions, -1 unknown */
	struct topo_fabric *fabric;
	size_t nfabric, afabric;
};

/* Appends a GPU (unknowns set) and returns it. */
struct topo_gpu *topo_add_gpu(struct topo_model *m);
/* Allocates the three matrices for the current GPU count (cells unknown, the
 * diagonal X); nvml / sysfs say which of the two sources exist. */
void topo_alloc_matrices(struct topo_model *m, bool nvml, bool sysfs);
/* Cell (i, j) of a matrix of m (positions in m->gpus). */
struct link *topo_cell(const struct topo_model *m, struct link *matrix, size_t i, size_t j);
/* The position of the GPU with this index, or -1. */
int topo_pos(const struct topo_model *m, int index);
struct topo_p2p *topo_add_p2p(struct topo_model *m);
struct topo_nvlink *topo_add_nvlink(struct topo_model *m);
/* Appends a fabric row (unknowns set) and returns it. */
struct topo_fabric *topo_add_fabric(struct topo_model *m);
/* "not supported", "not started", "in progress", "completed", "?" */
const char *topo_fabric_state_name(int state);
void topo_model_release(struct topo_model *m);

#endif
