/* NCCL log analysis, P2P between the GPUs of a host (p2p_pcie_acs_iommu,
 * p2p_virtualization): an nvidia-smi topo -m matrix of PCIe paths only in
 * a run that failed, nccl-tests output that ends at its result table's
 * header. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"
#include "model/topo.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A matrix whose GPU pairs are all PCIe paths, in a log of a failure or a
 * hang with no root failure, or a log that is nothing but text. */
void topo_matrix(struct ana *a)
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

/* The result table's header (TB01) is the last text of its file, no NCCL
 * line after it, nothing else failed, and at most one NCCL process (one
 * process driving every GPU: nccl-tests -g N, NCCL 1's tests): the first
 * collective between GPUs of one host never finished, the stall PCIe P2P
 * under ACS or an IOMMU gives (NVIDIA/nccl#104); 0.3, above the stage
 * fallback's 0.2 for a log that just stops. */
void tests_no_result(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->have_any_root || a->have_secondary || a->have_hang || lg->nprocs > 1)
		return;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (strcmp(a->sigs[e->sig].id, "TB01") != 0 || e->file < 0 || e->file >= lg->nfiles)
			continue;
		const struct nl_file *f = &lg->files[e->file];
		if (f->last_line_no != e->line || f->last_nccl_line > e->line)
			continue;
		struct finding *fd = finding_for(a->r, FID_LOG_NCCL_TESTS_NO_RESULT, SEV_WARNING,
						 "the test printed its result table's header and no result");
		event_evidence(a, fd, contribute(a, "p2p_pcie_acs_iommu", 0.3, FID_LOG_NCCL_TESTS_NO_RESULT), e);
		a->failed = true;
		return;
	}
}

/* Rows of an nccl-tests table whose #wrong is not 0 (logs/read/teststab.c):
 * data that arrived corrupted, which collective, size and placement; the
 * footer's "Out of bounds values : N FAILED" (TB02) says the same in sum.
 * 0.5, as TB02: the catalog's reading of wrong results (BENCH_WRONG_RESULTS:
 * most often P2P under ACS or a translated IOMMU). */
void tests_wrong_rows(struct ana *a)
{
	const struct nl_tests *ts = &a->lg->tests;
	if (ts->nwrong == 0)
		return;
	const struct nl_tests_row *r0 = &ts->rows[0];
	char title[240];
	snprintf(title, sizeof(title), "nccl-tests counted wrong elements in %ld of %ld row%s: %s%s%lld B (%s %s) has %lld wrong %s",
		 ts->nwrong, ts->nrows, ts->nrows == 1 ? "" : "s", r0->op, r0->op[0] ? " at " : "", r0->size, r0->type,
		 r0->redop, r0->wrong[0] > 0 ? r0->wrong[0] : r0->wrong[1],
		 r0->wrong[0] > 0 ? "out of place" : "in place");
	struct finding *f = result_find(a->r, "LOG_NCCL_TESTS_WRONG_DATA");
	if (f) { /* the footer's (TB02): the rows say which collective and size */
		free(f->title);
		f->title = xstrdup(title);
	} else {
		f = finding_for(a->r, FID_LOG_NCCL_TESTS_WRONG_DATA, SEV_ERROR, title);
	}
	struct cause_acc *c = contribute(a, "p2p_pcie_acs_iommu", 0.5, FID_LOG_NCCL_TESTS_WRONG_DATA);
	for (int i = 0; i < ts->nkept; i++) {
		const struct nl_tests_row *r = &ts->rows[i];
		char oop[24], ip[24];
		snprintf(oop, sizeof(oop), r->wrong[0] < 0 ? "N/A" : "%lld", r->wrong[0]);
		snprintf(ip, sizeof(ip), r->wrong[1] < 0 ? "N/A" : "%lld", r->wrong[1]);
		finding_evidence(f, file_name(a->lg, r->file), (long)r->line, "%s%s%lld B, %s %s: %s wrong out of place, %s in place",
				 r->op, r->op[0] ? ", " : "", r->size, r->type, r->redop, oop, ip);
		if (c)
			cause_evidence(c, r->file, r->line, r->text);
	}
	if (ts->nwrong > ts->nkept)
		finding_evidence(f, NULL, 0, "%ld more rows with wrong elements", ts->nwrong - ts->nkept);
}
