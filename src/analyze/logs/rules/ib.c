/* NCCL log analysis, InfiniBand, RoCE and GPUDirect RDMA
 * (ib_rdma_config): a memory registration out of memory, hosts that differ
 * in network, GPUDirect RDMA, NET plugin or IB devices, network connection
 * lines outside NCCL's header, GPUDirect RDMA disabled in a run that
 * stopped. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* An environment line of some process that sets a variable sizing NCCL's
 * buffers or channels; NULL when none. */
static const struct nl_env *buffer_env(const struct nccllog *lg)
{
	static const char *const names[] = { "NCCL_BUFFSIZE", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS",
					      "NCCL_NCHANNELS_PER_NET_PEER", "NCCL_MIN_NRINGS", "NCCL_MAX_NRINGS" };
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].nenv; k++)
			for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++)
				if (strcmp(lg->procs[i].env[k].name, names[j]) == 0)
					return &lg->procs[i].env[k];
	return NULL;
}

/* "Call to ibv_reg_mr / ibv_reg_mr_iova2 / ibv_reg_dmabuf_mr failed with
 * error Cannot allocate memory" (S64m, S64d): the registration of NCCL's
 * network buffers (N:transport/net_ib.cc ncclIbRegMrDmaBufInternal,
 * v2.25.1-1 lines 1717-1745, registers the buffer's whole page range)
 * failed with ENOMEM. The locked-memory limit (S64m's reading, NCCL's
 * troubleshooting guide, nccl-tests#206) is one cause; the size of what
 * NCCL registers is the other: NCCL_BUFFSIZE (default 4 MiB,
 * N:init.cc DEFAULT_BUFFSIZE) times the channels. nccl_config_error 0.3,
 * 0.5 when a process shows such a variable set. */
void reg_mr_no_memory(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].fid != FID_LOG_IB_ERROR || !strstr(e->text, "ibv_reg_") ||
		    !strstr(e->text, "Cannot allocate memory"))
			continue;
		const struct nl_env *v = buffer_env(lg);
		struct finding *f = finding_for(a->r, FID_LOG_IB_REG_NO_MEMORY, SEV_WARNING,
						"an InfiniBand memory registration ran out of memory: the locked-memory limit or "
						"the size of NCCL's buffers");
		struct cause_acc *c = contribute(a, "nccl_config_error", v ? 0.5 : 0.3, FID_LOG_IB_REG_NO_MEMORY);
		event_evidence(a, f, c, e);
		if (v) {
			finding_evidence(f, file_name(lg, v->file), (long)v->line, "%s set to %s", v->name, v->value);
			cause_evidence(c, v->file, v->line, v->name);
		}
		return;
	}
}

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

void compare_net(struct ana *a)
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

void compare_gdr(struct ana *a)
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
void text_channels(struct ana *a)
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

/* "GPU Direct RDMA Disabled for HCA" (S21) in a run where a process stopped
 * before Init COMPLETE with no failure of its own (only the stage fallback
 * says it stopped):
 * traffic stages through host memory, and the reporter's "slow" or "stuck"
 * is that (NVIDIA/nccl#1676: NCCL <= 2.22.3 does not see nvidia-peermem,
 * N:transport/net_ib.cc ncclIbGdrSupport checks nv_mem and nv_mem_nc only
 * until v2.23.4-1 adds /sys/module/nvidia_peermem): 0.3. Not when a failure
 * of its own names something else. */
void gdr_disabled(struct ana *a)
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

void net_plugin_differs(struct ana *a)
{
	compare_field(a, offsetof(struct nl_proc, net_plugin), false, FID_LOG_NET_PLUGIN_DIFFERS, "NET plugin", "ib_rdma_config",
		      0.3, "hosts load different NET plugins");
}

void ib_hcas_differ(struct ana *a)
{
	compare_field(a, offsetof(struct nl_proc, ib_hcas), false, FID_LOG_IB_HCA_DIFFERS, "IB devices", "ib_rdma_config", 0.3,
		      "hosts use different IB devices");
}

/* A process that found no IB device (`NET/IB : No device found`) where the
 * run asked for IB by a variable NCCL printed as set by the environment
 * (NCCL_IB_DISABLE=0, NCCL_IB_HCA, NCCL_IB_GID_INDEX, NCCL_NET_GDR_LEVEL):
 * IB set up for the job and not there; sockets carry the traffic, or
 * NCCL_NET=IB fails (host.c weighs that one with the machine). 0.5,
 * failed or not: a job that runs over sockets where IB was meant is the
 * problem itself (a slow run). */
void ib_wanted_none(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	static const char *const wants[] = { "NCCL_IB_DISABLE", "NCCL_IB_HCA", "NCCL_IB_GID_INDEX", "NCCL_NET_GDR_LEVEL" };
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (strcmp(p->ib_hcas, "none") != 0)
			continue;
		for (size_t w = 0; w < sizeof(wants) / sizeof(wants[0]); w++) {
			const struct nl_env *v = proc_env(p, wants[w]);
			/* NCCL_IB_DISABLE asks for IB only when 0 */
			if (!v || (w == 0 && (!v->value[0] || strtol(v->value, NULL, 0) != 0)))
				continue;
			char lbl[96];
			struct finding *f = finding_for(a->r, FID_LOG_IB_WANTED_NONE_FOUND, SEV_WARNING,
							"IB was asked for and NCCL found no IB device");
			finding_evidence(f, file_name(lg, v->file), (long)v->line, "%s: %s set by environment to %s",
					 proc_label(lg, i, lbl, sizeof(lbl)), v->name, v->value);
			finding_evidence(f, NULL, 0, "%s: NET/IB : No device found", lbl);
			struct cause_acc *c = contribute(a, "ib_rdma_config", 0.5, FID_LOG_IB_WANTED_NONE_FOUND);
			cause_evidence(c, v->file, v->line, v->name);
			return;
		}
	}
}

/* The KiB of `ulimit -a`'s "max locked memory (kbytes, -l) N" line, -1
 * when the value is "unlimited" or not a number. */
static long long memlock_kib(const char *t)
{
	const char *v = strstr(t, "(kbytes, -l)");
	if (!v)
		return -1;
	v += strlen("(kbytes, -l)");
	while (*v == ' ' || *v == '\t')
		v++;
	if (*v < '0' || *v > '9')
		return -1;
	char *end;
	long long k = strtoll(v, &end, 10);
	return *end && *end != ' ' && *end != '\t' && *end != '\r' ? -1 : k;
}

/* A locked-memory limit under 1 GiB (MEM01: ulimit -a) in a run that
 * failed, where RDMA may be in use: the log shows no NCCL process (the
 * paste is the user's own checks and the error) or shows IB devices or
 * several hosts. RDMA pins what it registers, so a limit of 64 KiB or
 * 8 MiB (the defaults of containers and distributions) makes
 * ibv_reg_mr fail with ENOMEM (NCCL's troubleshooting guide: memlock
 * unlimited). Context for ib_rdma_config, 0.35. */
void memlock_small(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (!a->failed && !run_failed(a))
		return;
	bool rdma = lg->nprocs == 0;
	for (int i = 0; i < lg->nprocs && !rdma; i++)
		rdma = lg->procs[i].ib_hcas[0] || multi_host(a, &lg->procs[i]);
	if (!rdma)
		return;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].fid != FID_LOG_MEMLOCK_SMALL)
			continue;
		long long k = memlock_kib(e->text);
		if (k < 0 || k >= 1024LL * 1024)
			continue;
		char title[128];
		snprintf(title, sizeof(title), "the locked-memory limit is %lld KiB in a run that failed (RDMA needs it unlimited)", k);
		struct finding *f = finding_for(a->r, FID_LOG_MEMLOCK_SMALL, SEV_WARNING, title);
		struct cause_acc *c = contribute(a, "ib_rdma_config", 0.35, FID_LOG_MEMLOCK_SMALL);
		event_evidence(a, f, c, e);
		return;
	}
}

/* An interface name the kernel gives IP over InfiniBand: ib0, or the
 * predictable ibp3s0 / ibs1 forms (rdma-core's rdma_rename). */
static bool ipoib_name(const char *s)
{
	if (strncmp(s, "ib", 2) != 0)
		return false;
	s += 2;
	if (*s == 'p' || *s == 's')
		s++;
	return *s >= '0' && *s <= '9';
}

/* NET/Socket's list names an IPoIB interface while the process has no IB
 * transport (S21v `Failed to open libibverbs.so[.1]`, or `NET/IB : No
 * device found`): the hosts have an IB fabric NCCL cannot use as RDMA,
 * so it carries the traffic over TCP on IPoIB (NVIDIA's docs: NCCL falls
 * back to sockets without libibverbs). 0.55, failed or not: a run over
 * sockets where the fabric is IB is the problem itself (slow, then
 * time-outs at scale); not when NCCL_IB_DISABLE=1 or NCCL_NET=Socket
 * says sockets are wanted. */
void ipoib_fallback(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_event *v = first_of(a, "S21v");
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!ipoib_name(p->socket_if) || (!v && strcmp(p->ib_hcas, "none") != 0))
			continue;
		const struct nl_env *d = proc_env(p, "NCCL_IB_DISABLE"), *n = proc_env(p, "NCCL_NET");
		if ((d && strtol(d->value, NULL, 0) != 0) || (n && strcasecmp(n->value, "Socket") == 0))
			return;
		char lbl[96];
		struct finding *f = finding_for(a->r, FID_LOG_IB_IPOIB_FALLBACK, SEV_WARNING,
						"NCCL sends over sockets on an InfiniBand interface");
		finding_evidence(f, NULL, 0, "%s: NET/Socket : Using %s", proc_label(lg, i, lbl, sizeof(lbl)), p->socket_if);
		struct cause_acc *c = contribute(a, "ib_rdma_config", 0.55, FID_LOG_IB_IPOIB_FALLBACK);
		if (v) {
			finding_evidence(f, file_name(lg, v->file), (long)v->line, "%s", v->text);
			cause_evidence(c, v->file, v->line, v->text);
		} else {
			finding_evidence(f, NULL, 0, "%s: NET/IB : No device found", lbl);
		}
		cause_evidence(c, -1, 0, ana_text(a, "NCCL's sockets use %.*s, an IP-over-InfiniBand interface", (int)strcspn(p->socket_if, ".:<"), p->socket_if));
		return;
	}
}
