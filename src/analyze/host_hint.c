/* The machine facts the NCCL log analysis weighs its causes with (struct
 * nl_host of analyze/nccllog.h), from the machine model, each read from the
 * analysis that reports it so that the log's verdict and `sys` never
 * disagree: NVLink from the nvml-topo worker's answer, ACS and the IOMMU
 * from sys's PCI analysis, /dev/shm from sys's host analysis, the RDMA
 * devices from the network facts, NCCL_NET from the environment and the
 * nccl.conf files sys reads. */
#include "analyze/host_hint.h"
#include "analyze/sys.h"
#include "kb/findings.h"
#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A fact's text into a field of struct nl_host, cut to its size (a long
 * sysroot path or bridge list is cut, never overflows). */
__attribute__((format(printf, 3, 4))) static void why_set(char *dst, size_t dstsz, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, dstsz, fmt, ap);
	va_end(ap);
}

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

/* ACS and the IOMMU between the GPUs, as sys's PCI analysis judges them. */
static void p2p_facts(const struct machine *m, struct sys_ctx *c, struct nl_host *h)
{
	if (!m->have_pci || m->pci_err < 0 || m->ngpus < 2)
		return; /* one GPU has no peer to block */
	struct result *r = result_new("sys");
	sys_report_pci(r, c);
	const struct finding *acs = finding_get(r, FID_ACS_REDIRECT_ENABLED);
	const struct finding *iommu = finding_get(r, FID_IOMMU_TRANSLATED);
	const struct finding *unknown = finding_get(r, FID_ACS_UNKNOWN_NEEDS_ROOT);
	if (acs && acs->sev >= SEV_ERROR) {
		h->p2p_blocked = 1;
		if (acs->nev) /* the first bridge with its ACS bits */
			why_set(h->p2p_why, sizeof(h->p2p_why), "%s: %s: %s", h->origin, acs->title, acs->ev[0].text);
		else
			why_set(h->p2p_why, sizeof(h->p2p_why), "%s: %s", h->origin, acs->title);
	} else if (iommu && iommu->sev >= SEV_ERROR) {
		h->p2p_blocked = 1;
		why_set(h->p2p_why, sizeof(h->p2p_why), "%s: %s", h->origin, iommu->title);
	} else if (!unknown && m->have_iommu) {
		h->p2p_blocked = 0;
		why_set(h->p2p_why, sizeof(h->p2p_why),
			 "%s: ACS redirect is off on every bridge between its %d GPUs and the IOMMU does not "
			 "translate their DMA (sys)", h->origin, m->ngpus);
	}
	result_free(r);
}

/* /dev/shm as sys's host analysis judges it: missing or too small (its
 * error or warning), or large enough. */
static void shm_facts(const struct machine *m, struct sys_ctx *c, struct nl_host *h)
{
	if (!m->have_host)
		return;
	struct result *r = result_new("sys");
	sys_report_host(r, c);
	const struct finding *f = finding_get(r, FID_SHM_TOO_SMALL);
	if (!f)
		f = finding_get(r, FID_SHM_NOT_MOUNTED);
	char b[32];
	if (f) {
		h->shm_small = 1;
		why_set(h->shm_why, sizeof(h->shm_why), "%s: %s (sys)", h->origin, f->title);
	} else if (m->host.shm_size_known) {
		h->shm_small = 0;
		why_set(h->shm_why, sizeof(h->shm_why), "%s: /dev/shm is %s (sys)", h->origin,
			 fmt_bytes(m->host.shm_size, b, sizeof(b)));
	}
	result_free(r);
}

/* The RDMA devices of /sys/class/infiniband (known when the network facts
 * were read) and NCCL_NET as the machine sets it. */
static void net_facts(const struct machine *m, struct nl_host *h)
{
	if (m->have_net && m->net.err == 0) {
		int n = 0;
		for (size_t i = 0; i < m->net.nib; i++)
			if (i == 0 || strcmp(m->net.ib[i].dev, m->net.ib[i - 1].dev) != 0)
				n++;
		h->ib_devices = n;
		if (n)
			why_set(h->ib_why, sizeof(h->ib_why), "%s: %d RDMA device%s in /sys/class/infiniband (%s, ...)",
				 h->origin, n, n == 1 ? "" : "s", m->net.ib[0].dev);
		else
			why_set(h->ib_why, sizeof(h->ib_why), "%s: no RDMA device: /sys/class/infiniband is empty or absent",
				 h->origin);
	}
	if (!m->have_env)
		return;
	const char *v = machine_env(m, "NCCL_NET");
	const char *where = "the environment";
	for (size_t k = 0; !v && k < m->nconf; k++)
		for (size_t i = 0; i < m->conf[k].n; i++)
			if (strcmp(m->conf[k].v[i].name, "NCCL_NET") == 0) {
				v = m->conf[k].v[i].value;
				where = m->conf[k].path;
			}
	if (v && *v) {
		str_copy(h->nccl_net, v, sizeof(h->nccl_net));
		why_set(h->net_why, sizeof(h->net_why), "%s: NCCL_NET=%s in %s", h->origin, v, where);
	}
}

void host_hint_set_xid(struct nl_host *h, int xid, const char *span)
{
	h->xid = xid;
	if (xid == 0)
		why_set(h->hw_why, sizeof(h->hw_why),
			 "no active NVLink on this machine's GPUs (NVML) and no Xid, PCIe or IOMMU event in the kernel log %s",
			 span);
	else
		why_set(h->hw_why, sizeof(h->hw_why),
			 "no active NVLink on this machine's GPUs (NVML); a PCIe fault would show as an Xid in the kernel "
			 "log, which could not be read");
	if (xid >= 0)
		h->known = true;
}

void host_hint_from_machine(const struct machine *m, int xid, const char *origin, struct nl_host *h)
{
	memset(h, 0, sizeof(*h));
	str_copy(h->origin, origin, sizeof(h->origin));
	host_hint_set_xid(h, xid, "since the job started");
	h->nvlink = nvlink_active(m);
	h->p2p_blocked = h->ib_devices = h->shm_small = -1;
	struct sys_ctx c;
	sys_ctx_init(&c, m);
	p2p_facts(m, &c, h);
	shm_facts(m, &c, h);
	net_facts(m, h);
	/* a tree that holds none of these (an empty sysroot) tells nothing:
	 * the analysis stays the one of the log alone */
	h->known = h->xid >= 0 || h->nvlink >= 0 || h->p2p_blocked >= 0 || h->ib_devices >= 0 || h->shm_small >= 0 ||
		   h->nccl_net[0];
}
