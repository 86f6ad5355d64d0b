/* The path between two GPUs: one class, in the legend of `nvidia-smi topo -m`
 * (X, NV#, PIX, PXB, PHB, NODE, SYS), for every command that names one
 * (topo's matrices, p2p's pairs, the link levels fix tries, a matrix read
 * from a log), and the one mapping from NVML's topology levels to it. */
#ifndef ND_MODEL_LINK_H
#define ND_MODEL_LINK_H
#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* Narrowest first after X: NVLink, then PCIe under one switch (PIX), under
 * several (PXB), through a host bridge (PHB), between host bridges of one
 * NUMA node (NODE), across nodes (SYS). The order is NCCL_P2P_LEVEL's. */
enum link_class { LINK_UNKNOWN, LINK_X, LINK_NV, LINK_PIX, LINK_PXB, LINK_PHB, LINK_NODE, LINK_SYS };

/* A matrix cell: a class, and the NVLink count (NV#) when nvlinks > 0. */
struct link {
	enum link_class cls;
	int nvlinks;
};

/* "X", "NV", "PIX", ... "?" for LINK_UNKNOWN and anything out of range. */
const char *link_class_name(enum link_class c);
/* "NV18" when nvlinks > 0, else the class name. */
const char *link_cell_text(struct link l, char *buf, size_t bufsz);
/* Whether the cell says anything (a class or NV#). */
bool link_cell_known(struct link l);
/* A cell as written: "NV18" (1..999 links) is LINK_NV with its count, or
 * one of PIX, PXB, PHB, NODE, SYS; false (and LINK_UNKNOWN) for anything
 * else, "X" and NULL included. */
bool link_cell_parse(const char *text, struct link *out);

/* The class of an NVML topology level (nvmlGpuTopologyLevel_t: 0 internal
 * and 10 single switch are PIX, 20 PXB, 30 PHB, 40 NODE, 50 SYS);
 * LINK_UNKNOWN for any other number. */
enum link_class link_of_nvml_level(long long level);

/* The NCCL_P2P_LEVEL that admits a class: NV for NVLink, PIX, PXB, PHB
 * (NODE counts as PHB, as in NCCL), SYS; LINK_UNKNOWN for X and unknown. */
enum link_class link_nccl_level(enum link_class c);
/* The word of that level in NCCL_P2P_LEVEL: "NVL", "PIX", "PXB", "PHB"
 * (NODE's too), "SYS"; "none" for X and unknown. */
const char *link_nccl_level_name(enum link_class c);

/* The NV# of every pair of the first n GPUs of the `nvml-topo` worker's
 * answer (its "gpus" array, docs/gpu.md): nv[a * n + b] counts the active
 * NVLinks of GPU a whose remote is GPU b's PCI address, plus, when both
 * have links to an NVSwitch (or to a remote of no known type that is not
 * one of these GPUs), the smaller of their two switch link counts: every
 * switch is taken to reach every GPU, as nvidia-smi and PyTorch assume.
 * The diagonal stays 0; so does everything when gpus is not an array. */
void link_nv_matrix(json_t *gpus, int n, int *nv);
#endif
