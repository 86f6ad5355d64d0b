/* Kernel log analysis: see kernel_analyze.h. */
#include "analyze/kernel_analyze.h"
#include "analyze/kernel_agg.h"
#include "analyze/sxid_rules.h"
#include "analyze/sys.h"
#include "kb/findings.h"
#include "kb/sxid.h"
#include "kb/xid.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define XID_SECONDARY_WINDOW 300.0 /* s: a 43/45 this soon after another Xid is its consequence */
#define AER_CORR_WARN 10           /* corrected AER errors before they are a warning */

/* ---- GPU map ---- */

void kgpu_map_build(struct kgpu_map *m, const struct machine *mach)
{
	memset(m, 0, sizeof(*m));
	m->mach = mach;
	const struct pci_list *pci = mach && mach->have_pci && mach->pci_err == 0 && mach->pci.n > 0 ? &mach->pci : NULL;
	m->pci = pci;
	if (!pci)
		return;
	size_t alloc = 0;
	for (size_t i = 0; i < pci->n; i++) {
		const struct pci_dev *d = &pci->devs[i];
		if (!pci_is_nvidia_gpu(d))
			continue;
		XGROW(m->gpus, alloc, m->n + 1);
		struct kgpu *g = &m->gpus[m->n];
		memset(g, 0, sizeof(*g));
		str_copy(g->bdf, d->bdf, sizeof(g->bdf));
		g->dev = d;
		const char *known = nvidia_device_name(d->device);
		if (known)
			snprintf(g->name, sizeof(g->name), "NVIDIA %s", known);
		else
			snprintf(g->name, sizeof(g->name), "%04x:%04x", d->vendor, d->device);
		/* /proc/driver/nvidia/gpus/BDF/information, where it says */
		const struct machine_gpu_info *gi = machine_gpu_info(mach, g->bdf);
		if (gi && gi->model[0])
			str_copy(g->name, gi->model, sizeof(g->name));
		if (gi && gi->uuid[0])
			str_copy(g->uuid, gi->uuid, sizeof(g->uuid));
		m->n++;
	}
	/* PCI order, as nvidia-smi numbers GPUs by default */
	for (size_t i = 1; i < m->n; i++)
		for (size_t j = i; j > 0 && strcmp(m->gpus[j - 1].bdf, m->gpus[j].bdf) > 0; j--) {
			struct kgpu t = m->gpus[j];
			m->gpus[j] = m->gpus[j - 1];
			m->gpus[j - 1] = t;
		}
	for (size_t i = 0; i < m->n; i++)
		m->gpus[i].index = (int)i;
}

void kgpu_map_release(struct kgpu_map *m)
{
	free(m->gpus);
	memset(m, 0, sizeof(*m));
}

const struct kgpu *kgpu_find(const struct kgpu_map *m, const char *bdf, bool nofn)
{
	if (!bdf || !*bdf)
		return NULL;
	size_t cmp = nofn ? 10 : strlen(bdf); /* "0000:5d:00" */
	for (size_t i = 0; i < m->n; i++)
		if (strncmp(m->gpus[i].bdf, bdf, cmp) == 0 && (nofn || m->gpus[i].bdf[cmp] == '\0'))
			return &m->gpus[i];
	/* a DMAR requester carries no domain: "0000:" is only a guess */
	if (strncmp(bdf, "0000:", 5) == 0) {
		const struct kgpu *hit = NULL;
		for (size_t i = 0; i < m->n; i++)
			if (strncmp(m->gpus[i].bdf + 5, bdf + 5, cmp - 5) == 0) {
				if (hit)
					return NULL;
				hit = &m->gpus[i];
			}
		return hit;
	}
	return NULL;
}

const struct kgpu *kgpu_by_bar(const struct kgpu_map *m, uint64_t addr, const struct kgpu *except)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct kgpu *g = &m->gpus[i];
		if (g == except || !g->dev)
			continue;
		for (int b = 0; b < g->dev->nbars && b < 6; b++) {
			const struct pci_bar *bar = &g->dev->bars[b];
			if (bar->start && bar->end > bar->start && addr >= bar->start && addr <= bar->end)
				return g;
		}
	}
	return NULL;
}

size_t kgpu_below(const struct kgpu_map *m, const char *bdf, const struct kgpu **out, size_t max)
{
	size_t n = 0;
	if (!m->pci)
		return 0;
	for (size_t i = 0; i < m->n && n < max; i++) {
		if (!m->gpus[i].dev)
			continue;
		const struct pci_dev *path[32];
		int np = pci_path_to_root(m->pci, m->gpus[i].dev, path, 32);
		for (int k = 0; k < np; k++)
			if (strcmp(path[k]->bdf, bdf) == 0) {
				out[n++] = &m->gpus[i];
				break;
			}
	}
	return n;
}

/* ---- aggregation ---- */

static struct agg *agg_get(struct aggs *as, const struct kevent *e, const char *what, const struct kgpu *peer)
{
	enum kev_kind kind = e->kind;
	const char *bdf = e->bdf;
	for (size_t i = 0; i < as->n; i++) {
		struct agg *a = &as->a[i];
		if (a->kind == kind && strcmp(a->bdf, bdf) == 0 && strcmp(a->what, what) == 0 && a->peer == peer &&
		    a->rm_gpu == e->rm_gpu)
			return a;
	}
	if (as->n >= MAX_AGGS)
		return NULL;
	XGROW(as->a, as->alloc, as->n + 1);
	struct agg *a = &as->a[as->n++];
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	str_copy(a->bdf, bdf, sizeof(a->bdf));
	str_copy(a->what, what, sizeof(a->what));
	a->peer = peer;
	a->code = -1;
	a->rm_gpu = e->rm_gpu;
	return a;
}

static void merge_bits(char *dst, size_t dstsz, const char *bits)
{
	char tmp[96];
	str_copy(tmp, bits, sizeof(tmp));
	for (char *tok = strtok(tmp, ","); tok; tok = strtok(NULL, ",")) {
		/* whole-word presence check */
		bool have = false;
		const char *p = dst;
		size_t tl = strlen(tok);
		while ((p = strstr(p, tok)) != NULL) {
			if ((p == dst || p[-1] == ',') && (p[tl] == ',' || p[tl] == '\0')) {
				have = true;
				break;
			}
			p += tl;
		}
		if (have)
			continue;
		if (*dst && strlen(dst) + 1 < dstsz)
			strncat(dst, ",", dstsz - strlen(dst) - 1);
		strncat(dst, tok, dstsz - strlen(dst) - 1);
	}
}

static bool keep_event(const struct kevent *e, const struct kernel_analyze_opts *o)
{
	if (o->since <= 0)
		return true;
	if (e->ts_kind == TS_BOOT && o->have_ref_boot)
		return e->ts >= o->ref_boot - o->since;
	if (e->ts_kind == TS_WALL && o->have_ref_wall)
		return e->ts >= o->ref_wall - o->since;
	return true; /* undated: cannot place it, keep it */
}

static const char *gpu_label(const struct agg *a, char *buf, size_t bufsz)
{
	if (a->gpu) {
		snprintf(buf, bufsz, "%d", a->gpu->index);
	} else if (a->nbelow) {
		size_t off = 0;
		buf[0] = '\0';
		for (size_t i = 0; i < a->nbelow; i++)
			str_appendf(buf, bufsz, &off, "%s%d", i ? "," : "", a->below[i]->index);
		str_appendf(buf, bufsz, &off, " (below)");
	} else {
		str_copy(buf, "-", bufsz);
	}
	return buf;
}

const char *kan_gpu_name(const struct kgpu *g, const char *bdf, char *buf, size_t bufsz)
{
	if (g)
		snprintf(buf, bufsz, "GPU %d (%s, %s)", g->index, g->bdf, g->name);
	else if (bdf && *bdf)
		snprintf(buf, bufsz, "device %s", bdf);
	else
		str_copy(buf, "an unidentified device", bufsz);
	return buf;
}

static void add_evidence(struct finding *f, struct kparser *kp, size_t idx, const struct kernel_analyze_opts *o)
{
	const struct kevent *e = kparser_event(kp, idx);
	char t[40];
	kts_text(e->ts_kind, e->ts, t, sizeof(t));
	const char *file = o->live ? "/dev/kmsg" :
			   (e->src >= 0 && (size_t)e->src < o->nsrc ? o->src_names[e->src] : NULL);
	long line = o->live ? 0 : (long)e->lineno;
	if (e->ts_kind != TS_NONE)
		finding_evidence(f, file, line, "[%s] %s", t, e->msg);
	else
		finding_evidence(f, file, line, "%s", e->msg);
}

void kan_add_first_last(struct finding *f, struct kparser *kp, const struct agg *a,
			   const struct kernel_analyze_opts *o)
{
	add_evidence(f, kp, a->first_ev, o);
	if (a->last_ev != a->first_ev)
		add_evidence(f, kp, a->last_ev, o);
}

void kan_when_text(const struct agg *a, char *buf, size_t bufsz)
{
	char t1[40], t2[40];
	kts_text(a->tk, a->first, t1, sizeof(t1));
	kts_text(a->tk, a->last, t2, sizeof(t2));
	if (a->tk == TS_NONE)
		snprintf(buf, bufsz, "%lld time%s", a->count, a->count == 1 ? "" : "s");
	else if (a->count == 1)
		snprintf(buf, bufsz, "once, at %s", t1);
	else
		snprintf(buf, bufsz, "%lld times, %s .. %s", a->count, t1, t2);
}

/* ---- findings ---- */

static struct finding *xid_finding(struct result *r, struct kparser *kp, const struct agg *a,
				   const struct kernel_analyze_opts *o)
{
	const struct xid_def *x = kb_xid(a->code);
	char who[160], when[120];
	enum finding_id id = x ? kb_xid_finding(a->code) : FID_XID_UNKNOWN;
	enum severity sev = x ? x->severity : SEV_WARNING;
	bool all_secondary = (a->code == 43 || a->code == 45) && a->secondary == a->count;
	if (all_secondary)
		sev = SEV_INFO;
	kan_gpu_name(a->gpu, a->bdf, who, sizeof(who));
	kan_when_text(a, when, sizeof(when));
	struct finding *f = finding_add(r, id, sev, "%s: Xid %d %s, %s%s", who, a->code,
					       x ? x->name : "(not in the catalog)", when,
					       all_secondary ? " (secondary: follows other Xids)" :
					       a->secondary ? " (partly secondary to other Xids)" : "");
	kan_add_first_last(f, kp, a, o);
	if (x) {
		finding_evidence(f, NULL, 0, "catalog: %s (class %s)", x->meaning, x->xclass);
		const char *at = xid_action_text(x->action);
		finding_fix(f, "note", at, "catalog action %s", x->action);
		const char *it = xid_action_text(x->investigate);
		if (strcmp(x->investigate, "-") != 0 && strcmp(x->investigate, "IGNORE") != 0)
			finding_fix(f, "note", it, "if it recurs: %s", x->investigate);
	} else {
		finding_fix(f, "note", NULL, "look the code up in NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors)");
	}
	if (all_secondary)
		finding_fix(f, "note", NULL, "this Xid follows the others on this machine; fix those first");
	if (a->code == 154) {
		/* "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)" */
		const char *t = strstr(kparser_event(kp, a->last_ev)->detail_text, " to 0x");
		const char *par = t ? strchr(t, '(') : NULL;
		if (par) {
			char act[64];
			size_t len = strcspn(par + 1, ")");
			if (len >= sizeof(act))
				len = sizeof(act) - 1;
			memcpy(act, par + 1, len);
			act[len] = '\0';
			finding_fix(f, "note", "the driver's own verdict on the accompanying Xids",
				    "recovery action required: %s", act);
		}
	}
	return f;
}

static int cmp_agg(const void *pa, const void *pb)
{
	const struct agg *a = pa, *b = pb;
	int ga = a->gpu ? a->gpu->index : a->nbelow ? a->below[0]->index : 1 << 20;
	int gb = b->gpu ? b->gpu->index : b->nbelow ? b->below[0]->index : 1 << 20;
	if (ga != gb)
		return ga < gb ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	int c = strcmp(a->bdf, b->bdf);
	if (c)
		return c;
	if (a->rm_gpu != b->rm_gpu)
		return a->rm_gpu < b->rm_gpu ? -1 : 1;
	return a->first_ev < b->first_ev ? -1 : a->first_ev > b->first_ev;
}

/* Xid 43/45 right after another Xid (any GPU, before any filter) are its
 * consequence: marks them secondary. */
static void mark_secondary_xids(struct kparser *kp)
{
	size_t n = kparser_count(kp);
	/* last non-43/45 Xid, per time kind */
	bool have_other[3] = { false, false, false };
	double other_ts[3] = { 0, 0, 0 };
	for (size_t i = 0; i < n; i++) {
		struct kevent *e = kparser_event(kp, i);
		if (e->kind != KEV_XID || e->ts_kind > TS_WALL)
			continue;
		int k = (int)e->ts_kind;
		if (e->code == 43 || e->code == 45) {
			e->secondary = have_other[k] && (k == TS_NONE || e->ts - other_ts[k] <= XID_SECONDARY_WINDOW);
		} else {
			have_other[k] = true;
			other_ts[k] = e->ts;
		}
	}
}

/* Whether the log itself names the device at bdf as an NVIDIA GPU: a
 * dev_printk line of the nvidia driver ("nvidia 0000:41:00.0: ...", as
 * AMD-Vi faults print), or an Xid, UUID, fallen-off-the-bus or probe line of
 * the same bus/device. For events of GPUs that are not on this machine (a
 * saved dmesg of another host), which the PCI map cannot name. */
static bool log_names_nvidia(struct kparser *kp, const struct kevent *fault)
{
	if (strncmp(fault->msg, "nvidia ", 7) == 0)
		return true;
	if (!fault->bdf[0])
		return false;
	size_t n = kparser_count(kp);
	for (size_t i = 0; i < n; i++) {
		const struct kevent *e = kparser_event(kp, i);
		bool named = e->kind == KEV_XID || e->kind == KEV_GPU_UUID || e->kind == KEV_OFF_BUS ||
			     e->kind == KEV_PROBE_FAILED ||
			     ((e->kind == KEV_DMAR || e->kind == KEV_AMDVI) && strncmp(e->msg, "nvidia ", 7) == 0);
		/* "dddd:bb:dd" decides: Xid and UUID lines give no function */
		if (named && strncmp(e->bdf, fault->bdf, 10) == 0 && strlen(e->bdf) >= 10)
			return true;
	}
	return false;
}

/* What event i is, as the table and the findings name it ("Xid 79 GPU has
 * fallen off the bus", "AER corrected ..."), its GPU and, for an IOMMU
 * fault into another GPU's BAR, that peer. Boot facts (a GPU's UUID, the
 * IOMMU default domain) are noted in c. Returns false for an event that is
 * not aggregated. */
static bool event_what(struct kan *c, const struct kevent *e, size_t i, const struct kgpu **gp,
		       const struct kgpu **peerp, char *what, size_t whatsz)
{
	const struct kgpu_map *m = c->m;
	const struct kgpu *g = NULL, *peer = NULL;
	switch (e->kind) {
	case KEV_GPU_UUID:
		g = kgpu_find(m, e->bdf, e->bdf_nofn);
		if (g && c->uuids)
			str_copy(c->uuids[g->index], e->uuid, sizeof(c->uuids[0]));
		return false;
	case KEV_IOMMU_DOMAIN:
		str_copy(c->iommu_domain, e->detail_text, sizeof(c->iommu_domain));
		c->iommu_ev = i;
		return false;
	case KEV_HUNG_TASK:
		if (!e->gpu_stack)
			return false;
		snprintf(what, whatsz, "task %s blocked", e->pname);
		break;
	case KEV_XID: {
		const struct xid_def *x = kb_xid(e->code);
		char mig[48] = "";
		if (e->gi >= 0 && e->ci >= 0)
			snprintf(mig, sizeof(mig), " (MIG GPU-I %d GPU-CI %d)", e->gi, e->ci);
		else if (e->gi >= 0)
			snprintf(mig, sizeof(mig), " (MIG GPU-I %d)", e->gi);
		snprintf(what, whatsz, "Xid %d %s%s", e->code, x ? x->name : "(not in the catalog)", mig);
		g = kgpu_find(m, e->bdf, e->bdf_nofn);
		break;
	}
	case KEV_OFF_BUS:
		snprintf(what, whatsz, "fallen off the bus (%s)", e->type);
		g = kgpu_find(m, e->bdf, e->bdf_nofn);
		break;
	case KEV_PROBE_FAILED:
		str_copy(what, "nvidia driver probe failed", whatsz);
		g = kgpu_find(m, e->bdf, false);
		break;
	case KEV_CRASH_DUMP:
		str_copy(what, "GPU crash dump created", whatsz);
		break;
	case KEV_AER:
		snprintf(what, whatsz, "AER %s%s%s%s", aer_sev_name(e->sev), e->type[0] ? " " : "",
			 e->type, e->multiple ? " (multiple)" : "");
		g = kgpu_find(m, e->bdf, false);
		break;
	case KEV_DMAR:
		if (e->code >= 0)
			snprintf(what, whatsz, "DMAR %s fault, reason 0x%02x %s", e->type, e->code,
				 e->detail_text[0] ? e->detail_text : dmar_reason_text(e->code));
		else
			snprintf(what, whatsz, "DMAR %s fault", e->type);
		g = kgpu_find(m, e->bdf, false);
		if (g && e->has_addr)
			peer = kgpu_by_bar(m, e->addr, g);
		break;
	case KEV_AMDVI:
		snprintf(what, whatsz, "AMD-Vi %s%s", e->type,
			 strcmp(e->type, "IO_PAGE_FAULT") == 0 ? (e->write ? " (write)" : " (read)") : "");
		g = kgpu_find(m, e->bdf, false);
		if (g && e->has_addr)
			peer = kgpu_by_bar(m, e->addr, g);
		break;
	case KEV_EDAC:
		snprintf(what, whatsz, "EDAC MC%d %s on %s", e->code, e->sev ? "UE" : "CE", e->detail_text);
		break;
	case KEV_SXID: /* the device is the switch; its GPUs need the NVLink map (sxid_gpus_behind) */
		sxid_describe(&e->sx, what, whatsz);
		break;
	case KEV_RM_STATUS:
		snprintf(what, whatsz, "%s (0x%02X, %s)", e->type, (unsigned)e->code, e->detail_text);
		g = e->bdf[0] ? kgpu_find(m, e->bdf, e->bdf_nofn) : NULL;
		break;
	default:
		return false;
	}
	*gp = g;
	*peerp = peer;
	return true;
}

/* Whether --gpus keeps an event of GPU g (NULL: of no GPU; AER on a
 * bridge is kept when a selected GPU is below it). */
static bool event_selected(const struct kan *c, const struct kevent *e, const struct kgpu *g)
{
	const struct kernel_analyze_opts *o = c->o;
	const struct kgpu_map *m = c->m;
	if (!gpusel_all(o->gpus)) {
		if (g && !gpusel_match(o->gpus, g->index, g->uuid[0] ? g->uuid : NULL, g->bdf))
			return false;
		if (!g && e->kind == KEV_AER && e->bdf[0]) {
			const struct kgpu *bl[16];
			size_t nb = kgpu_below(m, e->bdf, bl, 16), sel = 0;
			for (size_t k = 0; k < nb; k++)
				sel += gpusel_match(o->gpus, bl[k]->index, bl[k]->uuid[0] ? bl[k]->uuid : NULL, bl[k]->bdf);
			if (nb && !sel)
				return false;
		}
	}
	return true;
}

/* Adds event i (of GPU g) to its aggregate: count, first and last. */
static void aggregate(struct kan *c, const struct kevent *e, size_t i, const struct kgpu *g,
		      const struct kgpu *peer, const char *what)
{
	struct agg *a = agg_get(&c->as, e, what, peer);
	if (!a) {
		c->as.overflow++;
		return;
	}
	c->kept++;
	if (a->count == 0) {
		a->gpu = g;
		a->nofn = e->bdf_nofn;
		a->code = e->code;
		a->sev = e->sev;
		a->tk = e->ts_kind;
		a->first = e->ts;
		a->first_ev = i;
		str_copy(a->pname, e->pname, sizeof(a->pname));
		if (!g && e->kind == KEV_AER && e->bdf[0])
			a->nbelow = kgpu_below(c->m, e->bdf, a->below, 16);
		if (!g && (e->kind == KEV_DMAR || e->kind == KEV_AMDVI))
			a->nvidia_absent = log_names_nvidia(c->kp, e);
	}
	a->count += e->kind == KEV_EDAC ? (e->count > 0 ? e->count : 1) : 1;
	a->last = e->ts;
	a->last_ev = i;
	if (e->kind == KEV_AER) {
		merge_bits(a->bits, sizeof(a->bits), e->bits);
		/* ACSViol is bit 21 of the uncorrectable status */
		if (strstr(e->bits, "ACSViol") || strstr(e->bits, "ACS Violation") ||
		    (e->sev != AER_CORRECTED && (e->status & (1u << 21))))
			a->acs_violation = true;
	}
	if (e->kind == KEV_XID && e->secondary)
		a->secondary++;
}

/* The kernel section's facts; *translated_out: the IOMMU translates by
 * default and an IOMMU unit exists for it to matter. */
static struct section *kernel_facts(struct kan *c, bool *translated_out)
{
	struct result *r = c->r;
	struct kparser *kp = c->kp;
	const struct kernel_analyze_opts *o = c->o;
	const char *iommu_domain = c->iommu_domain;
	const struct aggs as = c->as;
	struct section *s = result_section(r, "kernel", "Kernel log");
	section_add(s, "event_count", "GPU and platform events", val_int((long long)c->kept));
	/* a translated default domain matters only where an IOMMU unit exists:
	 * an empty /sys/class/iommu (a VM without a virtual IOMMU) means none */
	bool translated = iommu_domain[0] && !str_startswith(iommu_domain, "Passthrough");
	if (translated && c->m->mach && machine_iommu_unit_count(c->m->mach) == 0) {
		translated = false;
		section_note(s, "no IOMMU unit in /sys/class/iommu: the default domain type has no effect");
	}
	if (iommu_domain[0]) {
		struct kv *kv = section_add(s, "iommu_default_domain", "IOMMU default domain (boot)", val_str(iommu_domain));
		if (translated)
			kv->mark = MARK_WARN;
	}
	if (kparser_dropped(kp))
		section_note(s, "only the last %zu events were analysed; %llu earlier ones were dropped",
			     kparser_count(kp), (unsigned long long)kparser_dropped(kp));
	if (as.overflow)
		section_note(s, "%lld events of more than %d distinct kinds were not aggregated", as.overflow, MAX_AGGS);
	if (o->since > 0)
		section_note(s, "only events of the last %.0f s are shown (--since)", o->since);

	*translated_out = translated;
	return s;
}

/* The GPUs the log's addresses were mapped to, with their event counts. */
static void gpu_table(const struct kan *c, struct section *s)
{
	const struct kgpu_map *m = c->m;
	const struct aggs as = c->as;
	char (*uuids)[48] = c->uuids;
	if (m->n) {
		static const struct column gcols[] = {
			{ "index", "GPU", 0 }, { "bdf", "PCI", 0 }, { "name", "name", 0 },
			{ "uuid", "UUID", 0 }, { "events", "events", 0 },
		};
		struct table *t = section_table(s, "gpus", "GPUs", gcols, 5);
		for (size_t i = 0; i < m->n; i++) {
			const struct kgpu *g = &m->gpus[i];
			long long cnt = 0;
			for (size_t k = 0; k < as.n; k++)
				if (as.a[k].gpu == g)
					cnt += as.a[k].count;
			size_t row = table_add_row(t);
			table_set(t, row, "index", val_int(g->index));
			table_set(t, row, "bdf", val_str(g->bdf));
			table_set(t, row, "name", val_str(g->name));
			const char *u = g->uuid[0] ? g->uuid : uuids && uuids[i][0] ? uuids[i] : NULL;
			table_set(t, row, "uuid", u ? val_str(u) : val_none());
			table_set(t, row, "events", val_int(cnt));
			if (cnt)
				table_mark(t, row, "events", MARK_WARN);
		}
	}
}

/* One row per aggregate: GPU, device, event, count, first and last. */
static void event_table(const struct kan *c, struct section *s)
{
	const struct aggs as = c->as;
	if (as.n) {
		static const struct column ecols[] = {
			{ "gpu", "GPU", 0 }, { "device", "device", 0 }, { "kind", "kind", SHOW_JSON_ONLY },
			{ "event", "event", 0 }, { "count", "count", 0 }, { "first", "first", 0 },
			{ "last", "last", 0 }, { "first_ts", "first_ts", SHOW_JSON_ONLY },
			{ "last_ts", "last_ts", SHOW_JSON_ONLY }, { "time_kind", "time_kind", SHOW_JSON_ONLY },
			{ "peer_gpu", "peer_gpu", SHOW_JSON_ONLY }, { "gpus_below", "gpus_below", SHOW_JSON_ONLY },
			{ "detail", "detail", 0 },
		};
		struct table *t = section_table(s, "events", "Events per GPU and kind", ecols, 13);
		for (size_t i = 0; i < as.n; i++) {
			const struct agg *a = &as.a[i];
			char buf[64], t1[40], t2[40], det[160];
			size_t row = table_add_row(t);
			table_set(t, row, "gpu", a->gpu ? val_int(a->gpu->index) :
				  val_with_display(val_none(), gpu_label(a, buf, sizeof(buf))));
			table_set(t, row, "device", a->bdf[0] ? val_str(a->bdf) : val_none());
			table_set(t, row, "kind", val_str(kev_kind_name(a->kind)));
			table_set(t, row, "event", val_str(a->what));
			table_set(t, row, "count", val_int(a->count));
			table_set(t, row, "first", val_str(kts_text(a->tk, a->first, t1, sizeof(t1))));
			table_set(t, row, "last", val_str(kts_text(a->tk, a->last, t2, sizeof(t2))));
			table_set(t, row, "first_ts", a->tk != TS_NONE ? val_double(a->first) : val_none());
			table_set(t, row, "last_ts", a->tk != TS_NONE ? val_double(a->last) : val_none());
			table_set(t, row, "time_kind", val_str(a->tk == TS_BOOT ? "boot" : a->tk == TS_WALL ? "wall" : "none"));
			table_set(t, row, "peer_gpu", a->peer ? val_int(a->peer->index) : val_none());
			if (a->nbelow) {
				char lst[64];
				size_t off = 0;
				lst[0] = '\0';
				for (size_t k = 0; k < a->nbelow; k++)
					str_appendf(lst, sizeof(lst), &off, "%s%d", k ? "," : "", a->below[k]->index);
				table_set(t, row, "gpus_below", val_str(lst));
			}
			det[0] = '\0';
			if (a->peer)
				snprintf(det, sizeof(det), "address in GPU %d's BAR", a->peer->index);
			else if (a->bits[0])
				snprintf(det, sizeof(det), "%s", a->bits);
			else if (a->kind == KEV_XID && a->secondary)
				snprintf(det, sizeof(det), "%lld secondary", a->secondary);
			else if (a->kind == KEV_RM_STATUS && a->rm_gpu >= 0)
				snprintf(det, sizeof(det), "the driver's GPU%d", a->rm_gpu);
			table_set(t, row, "detail", det[0] ? val_str(det) : val_none());
		}
	}

}

/* Fallen off the bus, or the driver's probe failed: one finding per GPU
 * (joins an XID_79 or GPU_FALLEN_OFF_BUS of it). */
static void offbus_finding(const struct kan *c, const struct agg *a, const char *who, const char *when)
{
	struct result *r = c->r;
	struct kparser *kp = c->kp;
	const struct kernel_analyze_opts *o = c->o;
	struct finding *f = NULL;
	/* one finding per GPU: join an existing XID_79 or GPU_FALLEN_OFF_BUS of it */
	struct finding *ex = NULL;
	for (size_t k = 0; k < r->nfindings && !ex; k++) {
		const char *fid = r->findings[k]->id;
		if ((strcmp(fid, "XID_79") == 0 || strcmp(fid, "GPU_FALLEN_OFF_BUS") == 0) &&
		    strstr(r->findings[k]->title, a->gpu ? a->gpu->bdf : a->bdf[0] ? a->bdf : "\x01"))
			ex = r->findings[k];
	}
	if (ex) {
		kan_add_first_last(ex, kp, a, o);
	} else if (a->kind == KEV_OFF_BUS) {
		f = finding_add(r, FID_GPU_FALLEN_OFF_BUS, SEV_ERROR, "%s has fallen off the bus (%s), %s",
				       who, kparser_event(kp, a->first_ev)->type, when);
		kan_add_first_last(f, kp, a, o);
		finding_fix(f, "note", "the GPU cannot be recovered without it", "reboot the node");
		finding_fix(f, "note", "a weak slot shows corrected AER errors before it fails",
			    "reseat the GPU and riser, check power cables; contact the vendor if it recurs");
	}
}

/* PCIe AER errors (and an ACS violation among them). */
static void aer_finding(const struct kan *c, const struct agg *a, const char *who, const char *when)
{
	struct result *r = c->r;
	struct kparser *kp = c->kp;
	const struct kernel_analyze_opts *o = c->o;
	struct finding *f = NULL;
	enum finding_id id = a->sev == AER_CORRECTED ? FID_PCIE_AER_CORRECTABLE :
			     a->sev == AER_NONFATAL ? FID_PCIE_AER_NONFATAL : FID_PCIE_AER_FATAL;
	enum severity sv = a->sev == AER_CORRECTED ? (a->count >= AER_CORR_WARN ? SEV_WARNING : SEV_INFO) : SEV_ERROR;
	char below[64] = "";
	if (a->nbelow) {
		char lb[48];
		snprintf(below, sizeof(below), " (above GPU %s)", gpu_label(a, lb, sizeof(lb)));
		char *p = strstr(below, " (below)");
		if (p)
			memmove(p, p + 8, strlen(p + 8) + 1);
	}
	f = finding_add(r, id, sv, "%s%s: %s, %s%s%s", who, below, a->what, when,
			       a->bits[0] ? ": " : "", a->bits);
	kan_add_first_last(f, kp, a, o);
	if (a->sev == AER_CORRECTED)
		finding_fix(f, "note", "retries slow the link; bursts precede failures",
			    "reseat the GPU / riser of %s and check its link speed and width (nccl-doctor sys)",
			    a->bdf);
	else
		finding_fix(f, "note", "uncorrectable errors lose transfers; fatal ones reset the link",
			    "reseat hardware, update BIOS and firmware; reboot after fatal errors");
	if (a->acs_violation) {
		struct finding *acs = finding_add(r, FID_PCIE_ACS_VIOLATION, SEV_ERROR,
							 "%s%s: ACS violation, peer-to-peer TLPs blocked, %s",
							 who, below, when);
		kan_add_first_last(acs, kp, a, o);
		finding_fix(acs, "kernel", "disables ACS redirect on these bridges at boot",
			    "pci=disable_acs_redir=%s", a->bdf);
		finding_fix(acs, "env", "P2P off: slower, but no hang", "NCCL_P2P_DISABLE=1");
	}
}

/* The PCI device at bdf; a DMAR requester carries no domain, so "0000:"
 * also matches one device of that bus:dev.fn in another domain. */
static const struct pci_dev *pci_any_domain(const struct pci_list *l, const char *bdf)
{
	const struct pci_dev *d = pci_find(l, bdf);
	if (d || strncmp(bdf, "0000:", 5) != 0)
		return d;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->devs[i].bdf + 5, bdf + 5) == 0) {
			if (d)
				return NULL;
			d = &l->devs[i];
		}
	return d;
}

/* A GPU's DMA faulted in the IOMMU: P2P into a peer's BAR, or other. */
static void iommu_fault_finding(const struct kan *c, const struct agg *a, const char *who, const char *when)
{
	char peerbuf[160];
	struct result *r = c->r;
	struct kparser *kp = c->kp;
	const struct kernel_analyze_opts *o = c->o;
	struct finding *f = NULL;
	if (!a->gpu && !a->nvidia_absent) {
		if (!a->bdf[0] || (c->m->pci && pci_any_domain(c->m->pci, a->bdf)))
			return; /* a device of this machine that is not a GPU: in the table only */
		/* not in this machine's PCI tree (a log from elsewhere), or no
		 * tree to look in: maybe a GPU; not healthy until it is known */
		f = finding_add(r, FID_IOMMU_FAULT_UNIDENTIFIED, SEV_WARNING, "%s (%s): %s, %s", a->bdf,
				c->m->pci ? "not a device of this machine" : "no PCI tree to identify it", a->what, when);
		kan_add_first_last(f, kp, a, o);
		finding_evidence(f, NULL, 0, "%s", c->m->pci ? "the log may come from another machine"
								 : "this run read no PCI tree (no sysfs, or an empty sysroot)");
		finding_fix(f, "shell", "names the device, on the machine the log came from", "lspci -s %s",
			    strncmp(a->bdf, "0000:", 5) == 0 ? a->bdf + 5 : a->bdf);
		finding_fix(f, "shell", "reads the log with that machine's PCI map (a snapshot's sysroot), so GPUs and their BARs are known",
			    "nccl-doctor kernel --sysroot DIR FILE");
		return;
	}
	const struct kevent *e0 = kparser_event(kp, a->first_ev);
	if (!a->gpu) {
		/* an NVIDIA GPU by the log's word, not on this machine (like an
		 * Xid of such a GPU): a finding, without the BAR check */
		f = finding_add(r, FID_GPU_IOMMU_FAULT, SEV_WARNING, "NVIDIA GPU at %s (not on this machine): %s, %s",
				a->bdf, a->what, when);
		kan_add_first_last(f, kp, a, o);
		finding_evidence(f, NULL, 0, "the log names %s as an NVIDIA device; whether the address is another GPU's BAR needs that machine's PCI map (run nccl-doctor kernel there)", a->bdf);
		finding_fix(f, "kernel", "GPU DMA no longer goes through IOMMU translation", "iommu=pt");
	} else if (a->peer) {
		kan_gpu_name(a->peer, a->peer->bdf, peerbuf, sizeof(peerbuf));
		f = finding_add(r, FID_P2P_IOMMU_FAULT, SEV_ERROR,
				       "%s -> %s: peer-to-peer %s at 0x%llx faulted in the IOMMU (%s), %s",
				       who, peerbuf, e0->write ? "write" : "read",
				       (unsigned long long)e0->addr, a->what, when);
		finding_evidence(f, NULL, 0, "0x%llx lies inside a BAR of GPU %d (%s)",
				 (unsigned long long)e0->addr, a->peer->index, a->peer->bdf);
		kan_add_first_last(f, kp, a, o);
		finding_fix(f, "kernel", "the IOMMU stops translating device DMA; P2P reaches the peer BAR",
			    "iommu=pt");
		finding_fix(f, "shell", "ACS redirect sends P2P up to the IOMMU in the first place",
			    "nccl-doctor sys   # lists ACS redirect on the bridges between the GPUs");
		finding_fix(f, "env", "works at once; P2P traffic goes through host memory (slower)",
			    "NCCL_P2P_DISABLE=1");
	} else {
		f = finding_add(r, FID_GPU_IOMMU_FAULT, SEV_WARNING, "%s: %s, %s", who, a->what, when);
		kan_add_first_last(f, kp, a, o);
		finding_fix(f, "kernel", "GPU DMA no longer goes through IOMMU translation", "iommu=pt");
	}
}

/* An NVSwitch SXid: fatal or not by the driver's word, else the catalog. */
static void sxid_finding(const struct kan *c, const struct agg *a, const char *when)
{
	const struct kevent *e0 = kparser_event(c->kp, a->first_ev);
	const struct sxid_def *d = kb_sxid(e0->sx.sxid);
	struct finding *f = finding_add(c->r, sxid_finding_id(&e0->sx), sxid_severity(&e0->sx), "NVSwitch %s: %s%s%s%s, %s",
					a->bdf, a->what, e0->detail_text[0] ? " (" : "", e0->detail_text,
					e0->detail_text[0] ? ")" : "", when);
	kan_add_first_last(f, c->kp, a, c->o);
	if (d)
		finding_evidence(f, NULL, 0, "catalog: %s (%s)", d->meaning, sxid_class_name(d->sclass));
	const char *at = d ? sxid_action_text(d->action) : sxid_action_text("LINE_SEVERITY");
	finding_fix(f, "note", at, "catalog action %s", d ? d->action : "LINE_SEVERITY (code not in the catalog)");
}

/* The findings of the aggregates, by kind. */
static void kernel_findings(const struct kan *c)
{
	struct result *r = c->r;
	struct kparser *kp = c->kp;
	const struct kernel_analyze_opts *o = c->o;
	const struct aggs as = c->as;
	for (size_t i = 0; i < as.n; i++) {
		const struct agg *a = &as.a[i];
		char who[160], when[120];
		kan_gpu_name(a->gpu, a->bdf, who, sizeof(who));
		kan_when_text(a, when, sizeof(when));
		struct finding *f = NULL;
		switch (a->kind) {
		case KEV_XID:
			xid_finding(r, kp, a, o);
			break;
		case KEV_OFF_BUS:
		case KEV_PROBE_FAILED:
			offbus_finding(c, a, who, when);
			break;
		case KEV_AER:
			aer_finding(c, a, who, when);
			break;
		case KEV_DMAR:
		case KEV_AMDVI:
			iommu_fault_finding(c, a, who, when);
			break;
		case KEV_EDAC:
			f = finding_add(r, a->sev ? FID_EDAC_UE : FID_EDAC_CE, a->sev ? SEV_ERROR : SEV_WARNING,
					       "host memory: %s, %lld error%s (%s)", a->what, a->count,
					       a->count == 1 ? "" : "s", when);
			kan_add_first_last(f, kp, a, o);
			break;
		case KEV_SXID:
			sxid_finding(c, a, when);
			break;
		case KEV_RM_STATUS: /* one finding per GPU for all its statuses */
			i += rm_status_finding(c, i) - 1;
			break;
		case KEV_HUNG_TASK:
			f = finding_add(r, FID_HUNG_TASK_NVIDIA, SEV_ERROR, "task '%s' hung in the GPU stack, %s",
					       a->pname, when);
			kan_add_first_last(f, kp, a, o);
			finding_fix(f, "shell", "collect the driver state before anything else",
				    "sudo nvidia-bug-report.sh");
			break;
		default:
			break;
		}
	}
}

size_t kernel_analyze(struct result *r, struct kparser *kp, const struct kgpu_map *m,
		      const struct kernel_analyze_opts *o)
{
	struct kan c = { .r = r, .kp = kp, .m = m, .o = o };
	size_t n = kparser_count(kp);
	c.uuids = m->n ? xcalloc(m->n, sizeof(*c.uuids)) : NULL;
	mark_secondary_xids(kp);
	for (size_t i = 0; i < n; i++) {
		struct kevent *e = kparser_event(kp, i);
		/* boot-time facts hold whatever --since says */
		if (!keep_event(e, o) && e->kind != KEV_GPU_UUID && e->kind != KEV_IOMMU_DOMAIN)
			continue;
		const struct kgpu *g, *peer;
		char what[sizeof(((struct agg *)0)->what)];
		what[0] = '\0';
		if (!event_what(&c, e, i, &g, &peer, what, sizeof(what)) || !event_selected(&c, e, g))
			continue;
		aggregate(&c, e, i, g, peer, what);
	}
	if (c.as.n > 1)
		qsort(c.as.a, c.as.n, sizeof(c.as.a[0]), cmp_agg);

	bool translated;
	struct section *s = kernel_facts(&c, &translated);
	gpu_table(&c, s);
	event_table(&c, s);
	kernel_findings(&c);
	if (translated && m->n >= 2) {
		struct finding *f = finding_add(r, FID_IOMMU_DEFAULT_TRANSLATED, SEV_INFO,
						       "the IOMMU translates DMA by default (%s) on a machine with %zu GPUs",
						       c.iommu_domain, m->n);
		add_evidence(f, kp, c.iommu_ev, o);
		finding_fix(f, "kernel", "device DMA bypasses translation; P2P BAR addresses work", "iommu=pt");
	}
	free(c.uuids);
	free(c.as.a);
	return c.kept;
}
