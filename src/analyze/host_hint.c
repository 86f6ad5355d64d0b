#include "analyze/host_hint.h"
#include "analyze/sys.h"
#include "kb/findings.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

/* 1: some GPU has an active NVLink; 0: NVML answered for every GPU and none
 * has one; -1: no answer. */
static int nvlink_active(const struct machine *m)
{
	json_t *ans = m->have_nvml ? machine_answer(&m->nvml) : NULL;
	json_t *gpus = ans ? json_object_get(ans, "gpus") : NULL;
	if (!json_is_array(gpus) || json_array_size(gpus) == 0)
		return -1;
	size_t i, l;
	json_t *g, *lk;
	json_array_foreach(gpus, i, g) {
		json_array_foreach(json_object_get(g, "nvlinks"), l, lk)
			if (json_is_true(json_object_get(lk, "active")))
				return 1;
	}
	return 0;
}

void host_hint_from_machine(const struct machine *m, int xid, struct nl_host *h)
{
	memset(h, 0, sizeof(*h));
	h->known = true;
	h->xid = xid;
	h->nvlink = nvlink_active(m);
	h->p2p_blocked = -1;
	if (!m->have_pci || m->pci_err < 0 || m->ngpus < 2)
		return; /* one GPU has no peer to block */
	struct sys_ctx c;
	sys_ctx_init(&c, m);
	struct result *r = result_new("sys");
	sys_report_pci(r, &c);
	const struct finding *acs = finding_get(r, FID_ACS_REDIRECT_ENABLED);
	const struct finding *iommu = finding_get(r, FID_IOMMU_TRANSLATED);
	const struct finding *unknown = finding_get(r, FID_ACS_UNKNOWN_NEEDS_ROOT);
	if (acs && acs->sev >= SEV_ERROR) {
		h->p2p_blocked = 1;
		snprintf(h->p2p_why, sizeof(h->p2p_why), "this machine: %s", acs->title);
	} else if (iommu && iommu->sev >= SEV_ERROR) {
		h->p2p_blocked = 1;
		snprintf(h->p2p_why, sizeof(h->p2p_why), "this machine: %s", iommu->title);
	} else if (!unknown && m->have_iommu) {
		h->p2p_blocked = 0;
		snprintf(h->p2p_why, sizeof(h->p2p_why),
			 "this machine: ACS redirect is off on every bridge between its %d GPUs and the IOMMU does not "
			 "translate their DMA (sys)", m->ngpus);
	}
	result_free(r);
}
