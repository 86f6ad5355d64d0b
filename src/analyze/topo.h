/* The GPU topology as `topo` shows it and `check` will combine it: the GPUs
 * (from NVML's answer in the machine model, else from the PCI tree), the GPU-to-GPU
 * matrices, P2P status, NVLinks, and the findings about them, collected into
 * a struct result (its typed topo member, sections for notes, findings). */
#ifndef ND_ANALYZE_TOPO_H
#define ND_ANALYZE_TOPO_H
#include "model/result.h"
#include "model/machine.h"
#include "util/gpusel.h"

#include <stdbool.h>

struct topo_params {
	bool sysfs_only;            /* never ask the driver */
	bool ask_driver;            /* ask it (the live machine, or --driver) */
	const struct gpusel *gpus;  /* which GPUs to show; NULL: all */
};

/* The topology of m into r (the caller ran collect_pci, collect_driver and,
 * with ask_driver, collect_gpus on m): headline, sections (source, GPUs, matrix,
 * P2P, NVLink), r->topo, findings (worker outcomes, lost GPUs, downtrained
 * links, MIG, pending remaps, P2P unsupported, NVLink down, NVML and sysfs
 * disagreeing) and r->extra "workers". Sets r->error when there is no GPU
 * to show. Returns 0, or -ENODEV when r->error was set. */
int topo_run(struct result *r, const struct topo_params *p, const struct machine *m);

/* The path class between two devices of l, from the PCI tree: X for the
 * same device, PIX (at most one bridge below their common one), PXB (more),
 * PHB (only the host bridge in common), NODE (other host bridges of one NUMA
 * node), SYS (another NUMA node), LINK_UNKNOWN when a device has no sysfs path. */
enum link_class topo_sysfs_class(const struct pci_list *l, const struct pci_dev *a, const struct pci_dev *b);

#endif
