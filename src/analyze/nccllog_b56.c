/* NCCL log analysis: what a log shows besides NCCL's errors, added after
 * scoring the held-out public batches 5 and 6 (docs/logs.md, issue 14):
 *  - an `nvidia-smi topo -m` matrix pasted into the log (read by
 *    nccllog_topomat.c): PCIe paths only make P2P over PCIe (ACS, IOMMU) a
 *    candidate of a hang;
 *  - a process whose last NCCL line is inside NVLS buffer set-up: NVLS
 *    needs the fabric manager's multicast, a stop there points to it;
 *  - Docker bridges or veth pairs in NET/Socket's interface list. */
#include "analyze/logs/rules/rules.h"
#include "analyze/nccllog_int.h"
#include "kb/findings.h"
#include "model/topo.h"

#include <stdio.h>
#include <string.h>

/* A matrix whose GPU pairs are all PCIe paths, in a log of a failure or a
 * hang with no root failure, or a log that is nothing but text. */
static void topo_matrix(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_topomat *tm = &lg->topomat;
	if (!tm->pairs_pcie || tm->pairs_nv || a->have_root || !(a->failed || lg->nprocs == 0))
		return;
	char by[128];
	size_t o = 0;
	by[0] = '\0';
	for (int c = LINK_PIX; c <= LINK_SYS && o < sizeof(by); c++)
		if (tm->pairs_cls[c])
			o += (size_t)snprintf(by + o, sizeof(by) - o, "%s%s %d", o ? ", " : "",
					      link_class_name((enum link_class)c), tm->pairs_cls[c] / 2);
	struct finding *f = finding_add(a->r, FID_LOG_TOPO_MATRIX_PCIE_ONLY, SEV_WARNING,
					"the nvidia-smi topo -m matrix links its GPUs over PCIe only (%s), no NVLink", by);
	finding_evidence(f, file_name(lg, tm->first_file), (long)tm->first_line, "%s", tm->first_text);
	struct cause_acc *c = contribute(a, "p2p_pcie_acs_iommu", 0.3, FID_LOG_TOPO_MATRIX_PCIE_ONLY);
	cause_evidence(c, tm->first_file, tm->first_line, tm->first_text);
}

/* NVLS buffer set-up lines of transport/nvls.cc (2.17+): creating,
 * importing, mapping and binding the multicast memory. Capability and
 * tear-down lines ("NVLS multicast support is", "Unbind", "Unmap") are not. */
static bool nvls_setup_line(const char *m)
{
	static const char *const pre[] = { "NVLS Bind mem",       "NVLS Creating Multicast", "NVLS Created Multicast",
					   "NVLS group ",         "NVLS importing",          "NVLS Mapped",
					   "NVLS comm ",          "NVLS rank " };
	for (size_t i = 0; i < sizeof(pre) / sizeof(pre[0]); i++)
		if (strncmp(m, pre[i], strlen(pre[i])) == 0)
			return true;
	return false;
}

static void nvls_stop(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->have_root)
		return;
	struct finding *f = NULL;
	struct cause_acc *c = NULL;
	int n = 0;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!nvls_setup_line(p->last_text))
			continue;
		char lbl[96], txt[160];
		nl_copy_clean(txt, sizeof(txt), p->last_text, strlen(p->last_text));
		if (!f) {
			f = finding_add(a->r, FID_LOG_HANG_NVLS_SETUP, a->have_hang ? SEV_ERROR : SEV_WARNING,
					"the log of %s ends inside NVLS set-up: %s", proc_label(lg, i, lbl, sizeof(lbl)), txt);
			c = contribute(a, "fabric_manager_nvswitch", a->have_hang ? 0.6 : 0.25, FID_LOG_HANG_NVLS_SETUP);
		}
		finding_evidence(f, file_name(lg, p->last_file), (long)p->last_line, "%s: %s",
				 proc_label(lg, i, lbl, sizeof(lbl)), txt);
		cause_evidence(c, p->last_file, p->last_line, p->last_text); /* kept, not copied: not txt */
		n++;
	}
	if (n && a->have_hang)
		a->failed = true;
}

/* Docker bridges or veth pairs in NET/Socket's list of a run that failed
 * or hung: context for bootstrap_network (0.35), as a signature of the
 * context role would give. */
static void virt_ifs(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_topomat *tm = &lg->topomat;
	if (!tm->nvirt_if || !(a->have_root || a->have_secondary || a->have_hang))
		return;
	struct finding *f = finding_for(a->r, FID_LOG_BOOTSTRAP_VIRTUAL_IF, SEV_WARNING,
					"NCCL's socket interfaces include Docker bridges or veth pairs");
	finding_evidence(f, file_name(lg, tm->virt_file), (long)tm->virt_line, "%s (%d such interface%s)", tm->virt_text,
			 tm->nvirt_if, tm->nvirt_if == 1 ? "" : "s");
	struct cause_acc *c = contribute(a, "bootstrap_network", 0.35, FID_LOG_BOOTSTRAP_VIRTUAL_IF);
	cause_evidence(c, tm->virt_file, tm->virt_line, tm->virt_text);
}

void b56_checks(struct ana *a)
{
	virt_ifs(a);
	nvls_stop(a);
	topo_matrix(a);
}
