/* NCCL log analysis: rules added after scoring the held-out public batch 7
 * (docs/logs.md, issue 14), each on facts the rows of kb/nccl_signatures.c
 * (S21, S23t, CH01, TB01) and the framework's error line already give:
 *  - network connection lines outside NCCL's header (NCCL 2.2's format,
 *    quoted lines): GPUDirect RDMA on one side of a connection only;
 *  - GPUDirect RDMA disabled in a run that stopped before Init COMPLETE;
 *  - a topology file loaded by a run that stopped or failed with nothing
 *    more specific;
 *  - "internal error" from NCCL 2.18, which reports network errors so;
 *  - nccl-tests output that ends at its result table's header. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "9[1a000] -> 2[6b000] [send] via ...", "3 -> 12 via ...": the two ends of
 * the connection as "9[1a000]->2[6b000]" into buf; false when the text has
 * no "A -> B". */
static bool pair_key(const char *t, char *buf, size_t bufsz)
{
	const char *arrow = strstr(t, " -> ");
	if (!arrow || arrow == t)
		return false;
	const char *b = arrow;
	while (b > t && b[-1] != ' ' && b[-1] != ':')
		b--;
	const char *e = arrow + 4;
	size_t k = strcspn(e, " ");
	if (arrow == b || k == 0)
		return false;
	int w = snprintf(buf, bufsz, "%.*s->%.*s", (int)(arrow - b), b, (int)k, e);
	return w > 0 && (size_t)w < bufsz;
}

/* Network connection lines NCCL's header does not mark (CH01;
 * N:transport/net.cc prints each connection on the sending rank, "[send]",
 * and on the receiving one, "[receive]", adding "/GDRDMA" for the side that
 * uses GPUDirect RDMA, decided on each rank from its own GPU, NIC and
 * peer-memory support). One connection (the same "A -> B") over NET/IB with
 * /GDRDMA on one side and not on the other: the other node lacks GDR,
 * usually the peer-memory module (NVIDIA/nccl#897, maintainer: nv_peer_mem
 * or nvidia-peermem not loaded on the second node): 0.4. Only /GDRDMA
 * connections and nothing else in the log (no NCCL process read, no
 * failure): the GPUDirect RDMA path is all the text shows, a weak prior for
 * ib_rdma_config (0.2). */
static void text_channels(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_event *first_gdr = NULL, *with = NULL, *without = NULL;
	uint32_t stored = 0, gdr = 0;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (strcmp(a->sigs[e->sig].id, "CH01") != 0)
			continue;
		stored++;
		if (strstr(e->text, "/GDRDMA")) {
			gdr++;
			if (!first_gdr)
				first_gdr = e;
			continue;
		}
		char k1[96], k2[96];
		if (with || !strstr(e->text, "via NET/IB") || !pair_key(e->text, k1, sizeof(k1)))
			continue;
		for (size_t j = 0; j < lg->nev && !with; j++) {
			const struct nl_event *o = &lg->ev[j];
			if (o->sig == e->sig && strstr(o->text, "via NET/IB") && strstr(o->text, "/GDRDMA") &&
			    pair_key(o->text, k2, sizeof(k2)) && strcmp(k1, k2) == 0) {
				with = o;
				without = e;
			}
		}
	}
	if (!stored)
		return;
	if (with && without) {
		struct finding *f = finding_add(a->r, FID_LOG_GDR_DIFFERS, SEV_WARNING,
						"GPUDirect RDMA on one side of a network connection and not on the other");
		finding_evidence(f, file_name(lg, with->file), (long)with->line, "with GDRDMA: %s", with->text);
		finding_evidence(f, file_name(lg, without->file), (long)without->line, "without GDRDMA: %s", without->text);
		struct cause_acc *c = contribute(a, "ib_rdma_config", 0.4, FID_LOG_GDR_DIFFERS);
		cause_evidence(c, without->file, without->line, without->text);
		cause_evidence(c, with->file, with->line, with->text);
		return;
	}
	if (first_gdr && gdr == stored && stored == count_of(a, "CH01") && lg->nprocs == 0 && !a->have_any_root &&
	    !a->have_secondary && !a->have_hang) {
		struct cause_acc *c = contribute(a, "ib_rdma_config", 0.2, FID_LOG_NET_CHANNEL_TEXT);
		cause_evidence(c, first_gdr->file, first_gdr->line, first_gdr->text);
	}
}

/* Whether some process printed NCCL lines and stopped before Init
 * COMPLETE (T9). */
static bool init_unfinished(const struct nccllog *lg)
{
	for (int i = 0; i < lg->nprocs; i++) {
		int s = stage_of(&lg->procs[i]);
		if (s >= 0 && s < 9)
			return true;
	}
	return false;
}

/* "GPU Direct RDMA Disabled for HCA" (S21) in a run where a process stopped
 * before Init COMPLETE with no failure of its own (only the stage fallback
 * says it stopped):
 * traffic stages through host memory, and the reporter's "slow" or "stuck"
 * is that (NVIDIA/nccl#1676: NCCL <= 2.22.3 does not see nvidia-peermem,
 * N:transport/net_ib.cc ncclIbGdrSupport checks nv_mem and nv_mem_nc only
 * until v2.23.4-1 adds /sys/module/nvidia_peermem): 0.3. Not when a failure
 * of its own names something else. */
static void gdr_disabled(struct ana *a)
{
	const struct nl_event *e = first_of(a, "S21");
	if (!e || !a->failed || a->have_any_root || a->have_secondary || a->have_hang || !init_unfinished(a->lg))
		return;
	struct finding *f = finding_for(a->r, FID_LOG_GDR_DISABLED_RUN_STOPPED, SEV_WARNING,
					"GPUDirect RDMA is disabled for the NICs NCCL listed, and the run stopped before init completed");
	finding_evidence(f, file_name(a->lg, e->file), (long)e->line, "%s (%u such line%s)", e->text, count_of(a, "S21"),
			 count_of(a, "S21") == 1 ? "" : "s");
	struct cause_acc *c = contribute(a, "ib_rdma_config", 0.3, FID_LOG_GDR_DISABLED_RUN_STOPPED);
	cause_evidence(c, e->file, e->line, e->text);
}

/* "Loading topology file" (S23t) in a run that failed or stopped, where a
 * process stopped before Init COMPLETE, with no root failure of weight: the file replaced NCCL's detection, and a file
 * for another machine is a configuration error NCCL reports late
 * (NVIDIA/nccl#1008); 0.3, like NCCL_GRAPH_FILE's prior plus the line's
 * evidence that the file was really read. */
static void topo_file(struct ana *a)
{
	const struct nl_event *e = first_of(a, "S23t");
	if (!e || !a->failed || a->have_root || !init_unfinished(a->lg))
		return;
	struct finding *f = finding_for(a->r, FID_LOG_TOPO_FILE_RUN_STOPPED, SEV_WARNING,
					"the run loaded a topology file and stopped before init completed");
	finding_evidence(f, file_name(a->lg, e->file), (long)e->line, "%s", e->text);
	struct cause_acc *c = contribute(a, "nccl_config_error", 0.3, FID_LOG_TOPO_FILE_RUN_STOPPED);
	cause_evidence(c, e->file, e->line, e->text);
}

/* The NCCL version a framework's error line names ("..., NCCL version
 * 2.18.1"): minor version of 2.x, -1 when none. */
static int line_minor(const char *t)
{
	const char *v = strstr(t, "NCCL version 2.");
	if (!v)
		return -1;
	v += strlen("NCCL version 2.");
	if (*v < '0' || *v > '9')
		return -1;
	return (int)strtol(v, NULL, 10);
}

/* A framework's "internal error" with NCCL 2.18 in the same line or the
 * log's version line: the maintainer's answer in NVIDIA/nccl#1092 is that
 * 2.18 reports network errors as internal errors; bootstrap_network 0.25,
 * ahead of the code's generic priors (driver 0.2). */
static void internal_error_218(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->have_root)
		return;
	bool v218 = false;
	for (int i = 0; i < lg->nprocs && !v218; i++)
		v218 = strncmp(lg->procs[i].version, "2.18.", 5) == 0;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].fid != FID_LOG_NCCL_ERROR || !strstr(e->text, "internal error"))
			continue;
		int m = line_minor(e->text);
		if (m != 18 && !(m < 0 && v218))
			continue;
		struct finding *f = finding_for(a->r, FID_LOG_NCCL_218_INTERNAL_ERROR, SEV_WARNING,
						"NCCL 2.18 reported an internal error: in 2.18 network errors show so");
		event_evidence(a, f, contribute(a, "bootstrap_network", 0.25, FID_LOG_NCCL_218_INTERNAL_ERROR), e);
		return;
	}
}

/* The result table's header (TB01) is the last text of its file, no NCCL
 * line after it, nothing else failed, and at most one NCCL process (one
 * process driving every GPU: nccl-tests -g N, NCCL 1's tests): the first
 * collective between GPUs of one host never finished, the stall PCIe P2P
 * under ACS or an IOMMU gives (NVIDIA/nccl#104); 0.3, above the stage
 * fallback's 0.2 for a log that just stops. */
static void tests_no_result(struct ana *a)
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

void b7_checks(struct ana *a)
{
	tests_no_result(a);
	text_channels(a);
	gdr_disabled(a);
	topo_file(a);
	internal_error_218(a);
}
