/* NCCL log analysis: comparison across hosts (issue 14 item 8). A
 * difference between the hosts of one job is evidence: the network NCCL
 * picked (`Using network IB` against `Socket`) and GPUDirect RDMA on the
 * network channels (`via NET/IB/0/GDRDMA` against none). NCCL versions,
 * drivers and NCCL variables that differ are compared in nccllog_checks.c.
 * The two ends of one connection that disagree on a size are compared here
 * too: settings that differ between ranks are one of its two causes. */
#include "analyze/nccllog_ana.h"
#include "kb/findings.h"

#include <stdio.h>
#include <string.h>

/* Whether process p has network channels, and whether one of them uses GDR. */
static bool net_channels(const struct nl_proc *p, bool *gdr)
{
	bool any = false;
	*gdr = false;
	for (int k = 0; k < p->ntr; k++)
		if (strncmp(p->tr[k].kind, "NET/", 4) == 0) {
			any = true;
			*gdr |= strstr(p->tr[k].kind, "GDRDMA") != NULL;
		}
	return any;
}

static bool run_failed(const struct ana *a)
{
	return a->have_any_root || a->have_secondary || a->have_hang;
}

static void compare_net(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char l1[96], l2[96];
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!p->net[0])
			continue;
		for (int j = i + 1; j < lg->nprocs; j++) {
			const struct nl_proc *q = &lg->procs[j];
			if (!q->net[0] || strcmp(p->host, q->host) == 0 || strcmp(p->net, q->net) == 0)
				continue;
			struct finding *f = finding_add(a->r, FID_LOG_NET_DIFFERS, SEV_WARNING, "NCCL uses %s on %s but %s on %s",
							p->net, p->host, q->net, q->host);
			finding_evidence(f, file_name(lg, p->file), 0, "%s: Using network %s", proc_label(lg, i, l1, sizeof(l1)), p->net);
			finding_evidence(f, file_name(lg, q->file), 0, "%s: Using network %s", proc_label(lg, j, l2, sizeof(l2)), q->net);
			if (run_failed(a))
				cause_evidence(contribute(a, "ib_rdma_config", 0.4, FID_LOG_NET_DIFFERS), q->file, 0,
					       "hosts use different NCCL networks");
			return;
		}
	}
}

static void compare_gdr(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char l1[96], l2[96];
	for (int i = 0; i < lg->nprocs; i++) {
		bool gi, gj;
		const struct nl_proc *p = &lg->procs[i];
		if (!net_channels(p, &gi) || !gi)
			continue;
		for (int j = 0; j < lg->nprocs; j++) {
			const struct nl_proc *q = &lg->procs[j];
			if (strcmp(p->host, q->host) == 0 || !net_channels(q, &gj) || gj)
				continue;
			struct finding *f = finding_add(a->r, FID_LOG_GDR_DIFFERS, SEV_WARNING,
							"GPUDirect RDMA on %s, not on %s", p->host, q->host);
			finding_evidence(f, file_name(lg, p->via_file), (long)p->via_line, "%s: network channels with GDRDMA",
					 proc_label(lg, i, l1, sizeof(l1)));
			finding_evidence(f, file_name(lg, q->via_file), (long)q->via_line, "%s: network channels without GDRDMA",
					 proc_label(lg, j, l2, sizeof(l2)));
			if (run_failed(a))
				cause_evidence(contribute(a, "ib_rdma_config", 0.25, FID_LOG_GDR_DIFFERS), q->via_file, q->via_line,
					       "GPUDirect RDMA on some hosts only");
			return;
		}
	}
}

/* A transport size mismatch (NET/Socket or bootstrap "message truncated",
 * NET/IB "collective mismatch error, local size X remote size Y"): besides
 * calls that differ between ranks (the signature's own class), NCCL's
 * maintainers name settings that differ between ranks (protocol, buffer
 * sizes, versions; nccl#626, nccl PR #605): nccl_config_error 0.4. */
static void transport_size_mismatch(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		const char *t = e->text;
		bool hit = strstr(t, "message truncated") || strstr(t, "Message truncated") ||
			   (strstr(t, "collective mismatch error") && strstr(t, "remote size"));
		if (!hit)
			continue;
		struct finding *f = finding_add(a->r, FID_LOG_TRANSPORT_SIZE_MISMATCH, SEV_WARNING,
						"the two ends of a connection expected different sizes");
		finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s", t);
		finding_evidence(f, NULL, 0, "inconsistent calls between ranks, or NCCL settings (protocol, buffers, "
					     "versions) that differ between ranks; NCCL_PROTO=Simple tells them apart");
		cause_evidence(contribute(a, "nccl_config_error", 0.4, FID_LOG_TRANSPORT_SIZE_MISMATCH), e->file, e->line, t);
		return;
	}
}

void compare_hosts(struct ana *a)
{
	compare_net(a);
	compare_gdr(a);
	transport_size_mismatch(a);
}
