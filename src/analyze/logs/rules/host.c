/* The machine's own facts against the hang priors (adjust phase). A log
 * that just stops in the data path names every path a collective can take
 * (timeline.c) because a paste says nothing about the machine. When the
 * caller ran the job here (watch), lg->host says what the machine has: a
 * prior the machine rules out goes, one it shows gains the fact as
 * evidence, each change noted by score.c. */
#include "analyze/logs/rules/rules.h"

#include <stdio.h>

void host_facts(struct ana *a)
{
	const struct nl_host *h = &a->lg->host;
	if (!h->known)
		return;
	/* the hang priors of a hardware fault: the GPU's or the NVLink's */
	static const char *const hw[] = { "gpu_hardware", "nvlink_fabric" };
	for (size_t i = 0; i < sizeof(hw) / sizeof(hw[0]); i++) {
		if (!score_find(a, hw[i]) || h->nvlink != 0)
			continue;
		if (h->xid == 0)
			score_drop(a, hw[i],
				   "no active NVLink on this machine's GPUs (NVML) and no Xid, PCIe or IOMMU event in the "
				   "kernel log since the job started");
		else if (h->xid < 0)
			score_cap(a, hw[i], 0.05,
				  "no active NVLink on this machine's GPUs (NVML); a PCIe fault would show as an Xid in the "
				  "kernel log, which could not be read");
	}
	if (score_find(a, "p2p_pcie_acs_iommu")) {
		if (h->p2p_blocked == 0)
			score_drop(a, "p2p_pcie_acs_iommu", h->p2p_why[0] ? h->p2p_why : "nothing on this machine blocks P2P");
		else if (h->p2p_blocked == 1) {
			struct cause_acc *c = contribute(a, "p2p_pcie_acs_iommu", 0.3, FID_COUNT);
			if (c)
				cause_evidence(c, -1, 0, h->p2p_why);
		}
	}
}
