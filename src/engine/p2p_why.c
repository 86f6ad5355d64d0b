/* `p2p` findings, and the join with `sys` that says why a pair broke: the
 * PCI bridges on the path between the two GPUs with their ACS state, each
 * GPU's IOMMU domain type, VM and container facts; then the cause class and
 * the fixes (setpci on those bridges, iommu=pt, NCCL_P2P_LEVEL below the
 * failing class, NCCL_P2P_DISABLE). Busy, wedged and slow GPUs too. */
#include "engine/p2p.h"
#include "kb/findings.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdlib.h>

#include <stdio.h>
#include <string.h>

#define MAX_PAIR_EVIDENCE 16

/* "DMA", "DMA-FQ", "identity", ... of a GPU's IOMMU group, or "" */
static void iommu_type(const struct p2p_run *p, int k, char *out, size_t outsz)
{
	out[0] = '\0';
	const struct pci_dev *d = p->have_pci ? pci_find(p->pci, p->g[k].bdf) : NULL;
	if (!d)
		return;
	if (!d->iommu_group[0]) {
		str_copy(out, "no group", outsz);
		return;
	}
	char path[256];
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type", d->iommu_group);
	if (sr_read_str(path, out, outsz) < 0)
		str_copy(out, "unknown", outsz);
}

static bool translated(const char *t)
{
	return strcmp(t, "DMA") == 0 || strcmp(t, "DMA-FQ") == 0;
}

/* NCCL_P2P_LEVEL that keeps P2P only below the lowest failing class */
static const char *level_below(enum link_class c)
{
	switch (c) {
	case LINK_PIX: return "NVL";
	case LINK_PXB: return "PIX";
	case LINK_PHB: case LINK_NODE: return "PXB";
	case LINK_SYS: return "PHB";
	default: return NULL;
	}
}

struct why {
	const char *redirect[16]; /* bridges with ACS redirect on a failing path */
	int nredirect;
	bool iommu_dma;
	int paths;                /* paths between failing GPUs read from sysfs */
	enum link_class lowest;   /* lowest failing class */
	bool nvlink_failed;
};

static void note_bridge(struct why *w, const char *bdf)
{
	for (int i = 0; i < w->nredirect; i++)
		if (strcmp(w->redirect[i], bdf) == 0)
			return;
	if (w->nredirect < 16)
		w->redirect[w->nredirect++] = bdf;
}

/* evidence on the path between positions a and b */
static void path_evidence(struct finding *f, struct p2p_run *p, int a, int b, struct why *w)
{
	const struct pci_dev *da = p->have_pci ? pci_find(p->pci, p->g[a].bdf) : NULL;
	const struct pci_dev *db = p->have_pci ? pci_find(p->pci, p->g[b].bdf) : NULL;
	if (!da || !db) {
		finding_evidence(f, NULL, 0, "GPU %d - GPU %d: PCI path unknown (%s not in the PCI tree)", p->g[a].index,
				 p->g[b].index, !da ? p->g[a].bdf : p->g[b].bdf);
		return;
	}
	struct p2p_path path;
	p2p_path_between(p->pci, da, db, &path);
	w->paths++;
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 512);
	for (int i = 0; i < path.n; i++) {
		const struct pci_dev *d = path.bridges[i];
		bool red = d->acs == ACS_PRESENT && (d->acs_ctrl & ACS_REDIRECT_BITS);
		const char *acs = d->acs == ACS_ABSENT ? "no ACS" : d->acs == ACS_UNKNOWN_NEEDS_ROOT ? "ACS unknown (needs root)" :
				  d->acs == ACS_UNREADABLE ? "ACS unreadable" : !red ? "ACS no redirect" :
				  (d->acs_ctrl & ACS_RR) && (d->acs_ctrl & ACS_CR) ? "ACS ReqRedir+ CmpltRedir+" :
				  (d->acs_ctrl & ACS_RR) ? "ACS ReqRedir+" : (d->acs_ctrl & ACS_CR) ? "ACS CmpltRedir+" : "ACS EgressCtrl+";
		strbuf_addf(&sb, "%s%s %s", i ? ", " : "", d->bdf, acs);
		if (red)
			note_bridge(w, d->bdf);
	}
	finding_evidence(f, NULL, 0, "path GPU %d (%s) - GPU %d (%s): %s%s", p->g[a].index, p->g[a].bdf, p->g[b].index,
			 p->g[b].bdf, path.n ? strbuf_str(&sb) : "no bridge between them",
			 path.same_root ? "" : "; through the host bridges (different root ports)");
	strbuf_release(&sb);
}

static void gpu_iommu_evidence(struct finding *f, struct p2p_run *p, const bool *seen, struct why *w)
{
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 256);
	for (int k = 0; k < p->n; k++) {
		if (!seen[k])
			continue;
		char t[32];
		iommu_type(p, k, t, sizeof(t));
		strbuf_addf(&sb, "%sGPU %d %s", sb.len ? ", " : "", p->g[k].index, t[0] ? t : "unknown");
		w->iommu_dma |= translated(t);
	}
	finding_evidence(f, NULL, 0, "IOMMU domain types: %s", strbuf_str(&sb));
	strbuf_release(&sb);
	const struct host_facts *h = p->host;
	if (h->is_vm)
		finding_evidence(f, NULL, 0, "virtual machine: %s%s%s", h->hypervisor_type[0] ? h->hypervisor_type : "hypervisor",
				 h->dmi_product[0] ? ", " : "", h->dmi_product);
	if (h->dockerenv || h->containerenv || h->kubernetes || h->cgroup_hint[0])
		finding_evidence(f, NULL, 0, "container: %s", h->cgroup_hint[0] ? h->cgroup_hint : "yes");
}

static void add_fixes(struct finding *f, struct p2p_run *p, struct why *w)
{
	for (int i = 0; i < w->nredirect; i++)
		finding_fix(f, "shell", i == 0 ? "clears ACS control on the bridge between the GPUs; lost at reboot; needs root" : NULL,
			    "sudo setpci -s %s ECAP_ACS+0x6.w=0000", w->redirect[i]);
	if (w->iommu_dma)
		finding_fix(f, "kernel", "IOMMU passthrough for host devices; needs a reboot",
			    "add %s iommu=pt to GRUB_CMDLINE_LINUX in /etc/default/grub, update-grub, reboot",
			    str_casestr(p->host->cpu.vendor, "AMD") ? "amd_iommu=on" : "intel_iommu=on");
	const char *lvl = w->nvlink_failed ? NULL : level_below(w->lowest);
	int lost = 0; /* working pairs the level would also take P2P from */
	for (int a = 0; lvl && a < p->n; a++)
		for (int b = 0; b < p->n; b++)
			if (a != b && p->pair_run[a][b] && pres(p, a, b)->status <= P2P_NO_P2P && p->link[a][b].cls != LINK_NV &&
			    p->link[a][b].cls >= w->lowest)
				lost++;
	if (lvl && !lost)
		finding_fix(f, "env", "immediate work-around: P2P kept for the paths that work, the failing class uses shared memory",
			    "export NCCL_P2P_LEVEL=%s", lvl);
	else if (lvl)
		finding_fix(f, "env", NULL, "export NCCL_P2P_LEVEL=%s   # also takes P2P from %d working ordered pair%s of that class or a farther one",
			    lvl, lost, lost == 1 ? "" : "s");
	finding_fix(f, "env", "immediate work-around: no P2P at all (shared memory through the host); costs bandwidth",
		    "export NCCL_P2P_DISABLE=1");
	finding_fix(f, "vllm", "vLLM's custom all-reduce uses P2P itself", "--disable-custom-all-reduce");
}

static void pair_findings(struct result *r, struct p2p_run *p, enum p2p_status st)
{
	struct finding *f = NULL;
	struct why w = { .lowest = LINK_SYS };
	bool seen[P2P_MAX_GPUS] = { false };
	bool done[P2P_MAX_GPUS][P2P_MAX_GPUS] = { { false } };
	int npairs = 0, npaths = 0;
	char first[64] = "";
	for (int a = 0; a < p->n; a++)
		for (int b = 0; b < p->n; b++) {
			struct p2p_result *x = a != b && p->pair_run[a][b] ? pres(p, a, b) : NULL;
			if (!x || x->status != st)
				continue;
			if (!f) {
				snprintf(first, sizeof(first), "GPU %d -> GPU %d", p->g[a].index, p->g[b].index);
				if (st == P2P_HANG)
					f = finding_add(r, FID_P2P_HANG, SEV_ERROR, "transfers hang between GPUs");
				else if (st == P2P_CORRUPT)
					f = finding_add(r, FID_P2P_CORRUPT, SEV_ERROR, "transfers between GPUs arrive corrupted");
				else if (st == P2P_ERROR)
					f = finding_add(r, FID_P2P_ERROR, SEV_ERROR, "transfers between GPUs fail with an error");
				else
					f = finding_add(r, FID_P2P_SLOW, SEV_WARNING, "GPU pairs are slower than their links");
			}
			npairs++;
			seen[a] = seen[b] = true;
			if (p->link[a][b].cls == LINK_NV)
				w.nvlink_failed = true;
			else if (p->link[a][b].cls != LINK_UNKNOWN && p->link[a][b].cls < w.lowest)
				w.lowest = p->link[a][b].cls;
			if (npairs > MAX_PAIR_EVIDENCE)
				continue;
			char lt[16];
			link_cell_text(p->link[a][b], lt, sizeof(lt));
			if (st == P2P_CORRUPT)
				finding_evidence(f, NULL, 0, "GPU %d -> GPU %d (%s): %s, first bad byte at offset %lld", p->g[a].index,
						 p->g[b].index, lt, x->step, x->bad_offset);
			else if (st == P2P_ERROR)
				finding_evidence(f, NULL, 0, "GPU %d -> GPU %d (%s): %s: %s", p->g[a].index, p->g[b].index, lt, x->step,
						 x->error);
			else if (st == P2P_SLOW)
				finding_evidence(f, NULL, 0, "GPU %d -> GPU %d (%s): %.1f GB/s, %.0f %% of the %.1f GB/s expected",
						 p->g[a].index, p->g[b].index, lt, x->ce_gbs > 0 ? x->ce_gbs : x->ce_nop2p_gbs,
						 x->ratio * 100, x->expected_gbs);
			else
				finding_evidence(f, NULL, 0, "GPU %d -> GPU %d (%s): no progress at '%s' within the deadline",
						 p->g[a].index, p->g[b].index, lt, x->step);
			if (!done[a][b] && !done[b][a] && p->link[a][b].cls != LINK_NV && npaths++ < 8)
				path_evidence(f, p, a, b, &w);
			done[a][b] = true;
		}
	if (!f)
		return;
	if (npairs > MAX_PAIR_EVIDENCE)
		finding_evidence(f, NULL, 0, "and %d more ordered pairs (the pairs table lists them all)", npairs - MAX_PAIR_EVIDENCE);
	if (npairs > 1) {
		free(f->title);
		f->title = xasprintf("%s between %d GPU pairs (first %s)", st == P2P_HANG ? "transfers hang" :
				     st == P2P_CORRUPT ? "transfers arrive corrupted" : st == P2P_ERROR ? "transfers fail" :
				     "bandwidth below the link's", npairs, first);
	} else {
		free(f->title);
		f->title = xasprintf("%s: %s", first, st == P2P_HANG ? "transfers hang" : st == P2P_CORRUPT ?
				     "data arrives corrupted" : st == P2P_ERROR ? "transfers fail" : "bandwidth below the link's");
	}
	gpu_iommu_evidence(f, p, seen, &w);
	if ((st == P2P_HANG || st == P2P_CORRUPT) && p->host->is_vm && w.paths > 0 && w.nredirect == 0) {
		struct finding *v = finding_add(r, FID_P2P_VM_BROKEN, SEV_ERROR,
						       "a VM whose hypervisor advertises P2P it cannot carry");
		finding_evidence(v, NULL, 0, "%d ordered pair%s %s inside a VM, no ACS redirect on the guest's bridges", npairs,
				 npairs == 1 ? "" : "s", p2p_status_name(st));
		finding_fix(v, "env", "the work-around inside the VM", "export NCCL_P2P_DISABLE=1");
		finding_fix(v, "note", NULL, "ask the provider for a P2P-capable instance, or have ACS disabled on the host's switches");
	}
	/* CUDA numbered the GPUs differently from NVML: nothing about paths */
	bool order_only = st == P2P_ERROR;
	for (int a = 0; a < p->n && order_only; a++)
		for (int b = 0; b < p->n && order_only; b++)
			if (a != b && p->pair_run[a][b] && pres(p, a, b)->status == P2P_ERROR &&
			    strcmp(pres(p, a, b)->step, "device order") != 0)
				order_only = false;
	if (order_only) {
		finding_evidence(f, NULL, 0, "the CUDA driver's devices are not the GPUs NVML lists in that order, even with "
					  "CUDA_VISIBLE_DEVICES set to their UUIDs: results for those GPUs would be mislabelled");
		finding_fix(f, "note", NULL, "check CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER in the environment, and the driver");
		return;
	}
	/* errors that all involve a GPU which failed on its own: that GPU is the
	 * problem, not the path */
	int culprit = -1;
	for (int k = 0; st == P2P_ERROR && culprit < 0 && k < p->n; k++) {
		if (!p->g[k].measured || p->g[k].status == P2P_OK)
			continue;
		bool all = true;
		for (int a = 0; a < p->n && all; a++)
			for (int b = 0; b < p->n && all; b++)
				if (a != b && p->pair_run[a][b] && pres(p, a, b)->status == P2P_ERROR && a != k && b != k)
					all = false;
		if (all)
			culprit = k;
	}
	if (culprit >= 0) {
		finding_evidence(f, NULL, 0, "every failing pair involves GPU %d, which also failed its own test: the GPU, not the path",
				 p->g[culprit].index);
		finding_fix(f, "shell", "then test again", "nccl-doctor kernel   # Xid / fallen off the bus for GPU %d",
			    p->g[culprit].index);
		return;
	}
	add_fixes(f, p, &w);
}

static void other_pair_findings(struct result *r, struct p2p_run *p)
{
	struct finding *nop = NULL, *slower = NULL;
	int nnop = 0;
	for (int a = 0; a < p->n; a++)
		for (int b = 0; b < p->n; b++) {
			struct p2p_result *x = a != b && p->pair_run[a][b] ? pres(p, a, b) : NULL;
			if (!x)
				continue;
			if (x->status == P2P_NO_P2P) {
				if (!nop)
					nop = finding_add(r, FID_P2P_NOT_SUPPORTED, SEV_WARNING,
								 "no peer access between some GPUs: NCCL uses host memory for them");
				if (++nnop == MAX_PAIR_EVIDENCE + 1)
					finding_evidence(nop, NULL, 0, "and more ordered pairs (the pairs table lists them all)");
				if (nnop > MAX_PAIR_EVIDENCE)
					continue;
				finding_evidence(nop, NULL, 0, "GPU %d -> GPU %d: cuDeviceCanAccessPeer 0 (NVML %s); copy through host %s",
						 p->g[a].index, p->g[b].index, p->nvml_p2p[a][b], x->ce_ok ? "verified" : "failed");
			}
			if (x->ce_gbs > 0 && x->ce_nop2p_gbs > 0 && x->ce_gbs < 0.9 * x->ce_nop2p_gbs) {
				if (!slower)
					slower = finding_add(r, FID_P2P_SLOWER_THAN_HOST, SEV_WARNING,
								    "P2P enabled is slower than P2P disabled for some GPU pairs");
				finding_evidence(slower, NULL, 0, "GPU %d -> GPU %d: %.1f GB/s with P2P, %.1f GB/s through the host",
						 p->g[a].index, p->g[b].index, x->ce_gbs, x->ce_nop2p_gbs);
			}
		}
	if (nop)
		finding_fix(nop, "vllm", "vLLM's custom all-reduce trusts P2P; keep it off while P2P is unsupported",
			    "--disable-custom-all-reduce");
	if (slower)
		finding_fix(slower, "env", "NCCL then uses shared memory for those pairs", "export NCCL_P2P_DISABLE=1");
}

static double median3(double *v, int n)
{
	/* insertion sort: n is at most P2P_MAX_GPUS */
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
}

static void gpu_findings(struct result *r, struct p2p_run *p)
{
	struct finding *busy = NULL;
	for (int k = 0; k < p->n; k++) {
		struct pgpu *g = &p->g[k];
		if (g->selected && g->busy) {
			if (!busy)
				busy = finding_add(r, FID_GPU_BUSY_SKIPPED, SEV_WARNING, p->force ?
							  "GPUs in use by other processes were tested anyway (--force)" :
							  "GPUs in use by other processes were not tested");
			finding_evidence(busy, NULL, 0, "GPU %d (%s): %s; %s", g->index, g->bdf, g->busy_why,
					 p->force ? "tested (--force)" : "skipped: per-GPU bandwidth and every pair with it");
		}
		if (g->selected && g->lost) {
			struct finding *f = finding_add(r, FID_GPU_LOST, SEV_ERROR, "GPU %d (%s) is lost: not tested", g->index,
							      g->bdf[0] ? g->bdf : "?");
			finding_evidence(f, NULL, 0, "NVML answered NVML_ERROR_GPU_IS_LOST while listing it; its pairs were not run");
		}
		if (g->wedged) {
			struct finding *f = finding_add(r, FID_GPU_WEDGED, SEV_ERROR, "GPU %d is busy with no process after %s",
							      g->index, g->wedged_after);
			finding_evidence(f, NULL, 0, "NVML: utilisation above 0 and no compute process after the hung worker was killed");
			finding_evidence(f, NULL, 0, "later tests on GPU %d are marked VOID", g->index);
			finding_fix(f, "shell", "resets the GPU; nothing may run on it", "sudo nvidia-smi -r -i %d", g->index);
		}
		if (g->measured && g->status != P2P_OK) {
			struct finding *f = finding_add(r, FID_GPU_LOCAL_CORRUPT, SEV_ERROR, "GPU %d failed its own copy test: %s",
							      g->index, p2p_status_name(g->status));
			finding_evidence(f, NULL, 0, "GPU %d (%s): %s", g->index, g->bdf, g->detail);
		}
	}
	if (busy && !p->force)
		finding_fix(busy, "note", NULL, "run again when the GPUs are idle, or add --force");
	static const char *what[] = { "local device copy", "host-to-device copy", "device-to-host copy" };
	for (int m = 0; m < 3; m++) {
		double v[P2P_MAX_GPUS];
		int n = 0;
		for (int k = 0; k < p->n; k++) {
			double x = m == 0 ? p->g[k].ce : m == 1 ? p->g[k].h2d : p->g[k].d2h;
			if (x > 0)
				v[n++] = x;
		}
		if (n < 3)
			continue; /* with two GPUs there is no majority to compare with */
		double med = median3(v, n);
		for (int k = 0; k < p->n; k++) {
			double x = m == 0 ? p->g[k].ce : m == 1 ? p->g[k].h2d : p->g[k].d2h;
			if (x > 0 && x < P2P_GPU_SLOW_RATIO * med) {
				p->g[k].slow = true;
				struct finding *f = finding_add(r, FID_GPU_BANDWIDTH_LOW, SEV_WARNING, "GPU %d: %s at %.0f %% of its peers",
								      p->g[k].index, what[m], 100 * x / med);
				finding_evidence(f, NULL, 0, "GPU %d: %.1f GB/s, median of the GPUs %.1f GB/s", p->g[k].index, x, med);
			}
		}
	}
}

/* NCCL's step stopped by a variable the user set (p2p.c nccl_user_env) */
static void user_env_finding(struct result *r, const struct p2p_run *p)
{
	const struct uenv_hit *h = &p->nccl_env;
	if (!h->name[0])
		return;
	bool boot = strcmp(h->cause, "bootstrap_network") == 0;
	struct finding *f = finding_add(r, boot ? FID_P2P_NCCL_USER_BOOTSTRAP : FID_P2P_NCCL_USER_ENV, SEV_ERROR,
					"NCCL send/recv did not start on %d GPU pair%s: %s=%s (set by you)", p->nccl_env_pairs,
					p->nccl_env_pairs == 1 ? "" : "s", h->name, h->value);
	finding_evidence(f, NULL, 0, "NCCL's own line: %s", h->line);
	finding_evidence(f, NULL, 0, "%s=%s is set by you (the environment nccl-doctor was started with): %s", h->name, h->value,
			 h->why);
	finding_fix(f, "env", "remove it from the environment your jobs start with (set by you)", "unset %s", h->name);
}

void p2p_findings(struct result *r, struct p2p_run *p)
{
	user_env_finding(r, p);
	gpu_findings(r, p);
	pair_findings(r, p, P2P_HANG);
	pair_findings(r, p, P2P_CORRUPT);
	pair_findings(r, p, P2P_ERROR);
	pair_findings(r, p, P2P_SLOW);
	other_pair_findings(r, p);
}
