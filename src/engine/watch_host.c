/* The machine's facts for watch's log analysis: the PCI tree, the IOMMU
 * groups and the kernel command line (what `sys` reads for ACS and the
 * IOMMU) and NVML's NVLink answer, gathered once at the first diagnosis.
 * Only the nvml-topo worker runs (no CUDA context beside the job), under a
 * short deadline: a GPU that does not answer leaves NVLink unknown. */
#include "analyze/host_hint.h"
#include "engine/watch_state.h"
#include "collect/collect.h"
#include "util/sysroot.h"

#include <errno.h>
#include <stdlib.h>

#define WHOST_NVML_DEADLINE 3.0

void whost_hint(struct watch *w)
{
	if (!w->have_mach) {
		machine_init(&w->mach);
		if (w->facts_root && sysroot_set(w->facts_root) < 0)
			w->mach.pci_err = -ENOENT; /* gone since the start: the facts stay unknown */
		else {
			collect_pci(&w->mach);
			collect_iommu(&w->mach);
			collect_host(&w->mach);
		}
		sysroot_set(NULL); /* everything else watch reads is this machine's */
		collect_nvml(&w->mach, WHOST_NVML_DEADLINE);
		w->have_mach = true;
	}
	int xid = w->km.fd < 0 ? -1 : kparser_count(&w->km.kp) > 0;
	host_hint_from_machine(&w->mach, xid, "this machine", &w->lg.host);
}

void whost_release(struct watch *w)
{
	free(w->facts_root);
	w->facts_root = NULL;
	if (w->have_mach)
		machine_release(&w->mach);
	w->have_mach = false;
}
