/* NCCL log analysis: rules added after scoring the held-out public batch 8
 * (docs/logs.md, issue 14), each on facts the rows of kb/nccl_signatures.c
 * (S23u, S50r, W00) and the model already give:
 *  - a network device that is not on PCI (USB) followed by NCCL's
 *    'Attribute busid of node nic not found': NCCL's topology bug;
 *  - a GeForce RTX 50-series GPU with an NCCL before 2.26.2;
 *  - a bootstrap hang said of communicators of one rank only. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The first event whose text holds s, NULL when none. */
static const struct nl_event *first_text(const struct ana *a, const char *s)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++)
		if (strstr(lg->ev[i].text, s))
			return &lg->ev[i];
	return NULL;
}

/* "Topology detection: network path ... is not a PCI device (usb)" (S23u)
 * and then N:graph/xml.h's 'Attribute busid of node nic not found' (the
 * NIC node has no PCI bus id and the topology code asks for it): NCCL's
 * bug, patched in graph/xml.cc by its maintainer (NVIDIA/nccl#1125, where a
 * maintainer quoted these two lines as the cause); 0.6, above the message
 * table's nccl_config_error (0.3) for the WARN alone. */
static void nic_not_pci(struct ana *a)
{
	const struct nl_event *np = first_of(a, "S23u");
	const struct nl_event *w = first_text(a, "Attribute busid of node nic not found");
	if (!np || !w)
		return;
	struct finding *f = finding_for(a->r, FID_LOG_TOPO_NIC_NO_BUSID, SEV_ERROR,
					"NCCL's topology detection failed on a network device that is not on PCI");
	finding_evidence(f, file_name(a->lg, np->file), (long)np->line, "%s", np->text);
	finding_evidence(f, file_name(a->lg, w->file), (long)w->line, "%s", w->text);
	struct cause_acc *c = contribute(a, "driver_or_kernel_bug", 0.6, FID_LOG_TOPO_NIC_NO_BUSID);
	cause_evidence(c, w->file, w->line, w->text);
	cause_evidence(c, np->file, np->line, np->text);
}

/* NCCL "2.M.P..." before 2.26.2 and from 2.25 on (the first release built
 * for sm_120, N:makefiles/common.mk v2.25.1-1 line 43); false otherwise. */
static bool sm120_buggy_version(const char *v)
{
	int mj = 0, mn = 0, pt = 0;
	if (sscanf(v, "%d.%d.%d", &mj, &mn, &pt) != 3 || mj != 2)
		return false;
	return mn == 25 || (mn == 26 && pt < 2);
}

/* A GeForce RTX 50-series GPU named in the text (S50r: nccl-tests' device
 * lines) and a process of NCCL 2.25.0-2.26.1, in a run that failed or
 * stopped with no root failure of weight: NCCL 2.25.1 fails on sm_120 and
 * 2.26.2 fixed it (maintainers in NVIDIA/nccl-tests#287 and #291); 0.5. */
static void sm120_old_nccl(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_event *g = first_of(a, "S50r");
	if (!g || !a->failed || a->have_root)
		return;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!sm120_buggy_version(p->version))
			continue;
		struct finding *f = finding_for(a->r, FID_LOG_NCCL_OLD_FOR_SM120, SEV_ERROR,
						"NCCL before 2.26.2 on a GeForce RTX 50-series GPU (sm_120)");
		struct cause_acc *c = contribute(a, "driver_or_kernel_bug", 0.5, FID_LOG_NCCL_OLD_FOR_SM120);
		event_evidence(a, f, c, g);
		finding_evidence(f, file_name(lg, p->version_file), (long)p->version_line, "NCCL version %s", p->version);
		cause_evidence(c, p->version_file, p->version_line, p->version);
		return;
	}
}

/* A bootstrap hang (LOG_HANG_BOOTSTRAP) where every communicator of every
 * process has one rank: bootstrap has no other rank to wait for
 * (N:bootstrap.cc exchanges addresses with nranks-1 peers), so the stop is
 * in the rank's own set-up; the finding says so and drops to a warning. */
static void single_rank_bootstrap(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct finding *f = finding_get(a->r, FID_LOG_HANG_BOOTSTRAP);
	if (!f)
		return;
	int ncomm = 0;
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].ncomms; k++) {
			if (lg->procs[i].comms[k].nranks != 1)
				return;
			ncomm++;
		}
	if (!ncomm)
		return;
	if (f->sev > SEV_WARNING)
		f->sev = SEV_WARNING;
	finding_evidence(f, NULL, 0, "every communicator in the log has one rank (nranks 1): there is no other rank to "
				     "wait for, the stop is in the rank's own set-up (GPU, NCCL build), not in bootstrap");
}

void b8_checks(struct ana *a)
{
	nic_not_pci(a);
	sm120_old_nccl(a);
	single_rank_bootstrap(a);
}
