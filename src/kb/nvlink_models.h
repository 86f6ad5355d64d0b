/* The NVLinks a data-centre GPU model has on an HGX/DGX baseboard and the
 * per-link speed NVML reports for a fully trained link, so that `topo` can
 * tell a GPU that lost links, or a link that trained low, from one that
 * never had more. Matched on NVML's device name; PCIe and NVL cards (H100
 * PCIe, H100 NVL, H200 NVL: bridges, not a baseboard) match no row. */
#ifndef ND_KB_NVLINK_MODELS_H
#define ND_KB_NVLINK_MODELS_H

struct nvlink_model {
	const char *name_has;   /* a substring of NVML's name ("H100 80GB HBM3") */
	int links;              /* NVLinks of the SXM module */
	long long speed_mbps;   /* NVML's per-link speed when fully trained, 0 unknown */
	const char *source;
};

/* The row of an NVML device name, or NULL when the model is not in the table. */
const struct nvlink_model *kb_nvlink_model(const char *name);

#endif
