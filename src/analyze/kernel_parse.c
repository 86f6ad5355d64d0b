/* Kernel log message recognisers: see kernel_parse.h. Literal formats, with
 * the kernel or driver source they were checked against:
 *  - NVRM Xid: open-gpu-kernel-modules src/nvidia/src/kernel/gpu/rc/kernel_rc.c
 *    "NVRM: Xid (PCI:%04x:%02x:%02x): %d, pid=%s, name=%s, %s" and the MIG form
 *    "NVRM: Xid (PCI:%04x:%02x:%02x GPU-I:%02u GPU-CI:%02u): %d, ..."; legacy
 *    drivers print "Xid (PCI:0000:5a:00): 79, GPU has fallen off the bus." and
 *    the oldest "Xid (0000:03:00): 14, Channel 00000001".
 *  - fallen off the bus: NVRM osinit.c / nv.c "GPU %04x:%02x:%02x.%x: GPU has
 *    fallen off the bus.", older "GPU at 0000:06:00.0 has fallen off the bus.",
 *    probe time "The NVIDIA GPU %s" / "(PCI ID: %04x:%04x) installed in this
 *    system has" / "fallen off the bus and is not responding to commands."
 *  - AER: drivers/pci/pcie/aer.c, "AER: %s%s error message received from %s"
 *    (new) and "AER: %s%s error received: %s" (old), "PCIe Bus Error:
 *    severity=%s, type=%s, (%s)", "  device [%04x:%04x] error status/mask=
 *    %08x/%08x", "   [%2d] %-22s%s"; GHES "aer_status: 0x%08x, aer_mask: ...".
 *  - DMAR: drivers/iommu/intel/dmar.c dmar_fault_do_one, every generation:
 *    "[%s NO_PASID] Request device [%02x:%02x.%d] fault addr 0x%llx [fault
 *    reason 0x%02x] %s", "[%s PASID 0x%x] ...", "[%s] Request device [..]
 *    PASID %x fault addr %llx [fault reason %02d] %s", "[%s] Request device
 *    [..] fault addr %llx [fault reason %02d] %s", the 5.17 transition
 *    "[0x%02x:0x%02x.%d]" and "w/o PASID ... %02xh", and the oldest two lines
 *    "DMAR:[DMA Write] Request device [00:02.0] fault addr 6df084000" +
 *    "DMAR:[fault reason 05] PTE Write access is not set".
 *  - AMD-Vi: drivers/iommu/amd/iommu.c "Event logged [IO_PAGE_FAULT
 *    domain=0x%04x address=0x%llx flags=0x%04x]" after the device name, or
 *    with "device=%04x:%02x:%02x.%x" (older "device=%02x:%02x.%x").
 *  - EDAC: drivers/edac/edac_mc.c "EDAC MC%d: %d %s error%s on %s (%s...)".
 *  - kernel/hung_task.c "INFO: task %s:%d blocked for more than %ld seconds." */
#include "analyze/kernel_parse.h"
#include "analyze/kernel_rmstatus.h"
#include "analyze/kernel_sxid.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *kind_names[KEV_NKINDS] = {
	"xid", "gpu_uuid", "off_bus", "probe_failed", "crash_dump", "aer", "dmar", "amdvi", "edac",
	"iommu_domain", "hung_task", "sxid", "rm_status",
};

const char *kev_kind_name(enum kev_kind k)
{
	return k < KEV_NKINDS ? kind_names[k] : "unknown";
}

const char *aer_sev_name(int sev)
{
	switch (sev) {
	case AER_CORRECTED: return "corrected";
	case AER_NONFATAL: return "nonfatal";
	default: return "fatal";
	}
}

/* drivers/iommu/intel/dmar.c: dma_remap_fault_reasons[], irq_remap_fault_reasons[] */
static const char *const dma_reasons[] = {
	"Software",
	"Present bit in root entry is clear",
	"Present bit in context entry is clear",
	"Invalid context entry",
	"Access beyond MGAW",
	"PTE Write access is not set",
	"PTE Read access is not set",
	"Next page table ptr is invalid",
	"Root table address invalid",
	"Context table ptr is invalid",
	"non-zero reserved fields in RTP",
	"non-zero reserved fields in CTP",
	"non-zero reserved fields in PTE",
	"PCE for translation request specifies blocking",
};
static const char *const irq_reasons[] = {
	"Detected reserved fields in the decoded interrupt-remapped request",
	"Interrupt index exceeded the interrupt-remapping table size",
	"Present field in the IRTE entry is clear",
	"Error accessing interrupt-remapping table pointed by IRTA_REG",
	"Detected reserved fields in the IRTE entry",
	"Blocked a compatibility format interrupt request",
	"Blocked an interrupt request due to source-id verification failure",
};

const char *dmar_reason_text(int reason)
{
	if (reason >= 0 && reason < (int)(sizeof(dma_reasons) / sizeof(dma_reasons[0])))
		return dma_reasons[reason];
	if (reason >= 0x20 && reason < 0x20 + (int)(sizeof(irq_reasons) / sizeof(irq_reasons[0])))
		return irq_reasons[reason - 0x20];
	if (reason >= 0x30)
		return "scalable-mode translation fault (SM)";
	return "Unknown";
}

/* ---- small scanners ---- */

static size_t hexrun(const char *s, unsigned long long *v, size_t maxlen)
{
	size_t n = 0;
	unsigned long long x = 0;
	while (n < maxlen && isxdigit((unsigned char)s[n])) {
		int c = tolower((unsigned char)s[n]);
		x = x * 16 + (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
		n++;
	}
	*v = x;
	return n;
}

static size_t decrun(const char *s, long long *v)
{
	size_t n = 0;
	long long x = 0;
	while (isdigit((unsigned char)s[n]) && n < 18) {
		x = x * 10 + (s[n] - '0');
		n++;
	}
	*v = x;
	return n;
}

size_t kparse_bdf(const char *s, bool allow_nofn, char *out, size_t outsz, bool *nofn)
{
	unsigned long long a, b, c, f = 0;
	const char *p = s;
	size_t n;
	/* optional 0x prefixes appear in the 5.17-era DMAR form */
	if (strncmp(p, "0x", 2) == 0)
		p += 2;
	n = hexrun(p, &a, 4);
	if (n == 0 || p[n] != ':')
		return 0;
	p += n + 1;
	if (strncmp(p, "0x", 2) == 0)
		p += 2;
	size_t n2 = hexrun(p, &b, 2);
	if (n2 == 0)
		return 0;
	p += n2;
	bool three = false;
	unsigned long long dom = 0, bus, dev;
	if (*p == ':') {
		/* dddd:bb:dd[.f] */
		size_t n3 = hexrun(p + 1, &c, 2);
		if (n3 == 0)
			return 0;
		three = true;
		dom = a;
		bus = b;
		dev = c;
		p += 1 + n3;
	} else {
		bus = a;
		dev = b;
	}
	if (!three && n > 2)
		return 0;
	bool fn_given = false;
	if (*p == '.' && p[1] >= '0' && p[1] <= '7') {
		f = (unsigned long long)(p[1] - '0');
		p += 2;
		fn_given = true;
	}
	if (!fn_given && !(allow_nofn && three))
		return 0;
	if (isxdigit((unsigned char)*p))
		return 0;
	if (bus > 0xff || dev > 0x1f || dom > 0xffff)
		return 0;
	snprintf(out, outsz, "%04llx:%02llx:%02llx.%llx", dom, bus, dev, f);
	if (nofn)
		*nofn = !fn_given;
	return (size_t)(p - s);
}

/* "<driver> <BDF>: rest": the device prefix dev_printk adds. Returns the
 * text after "BDF: " and fills bdf, or NULL. */
static const char *dev_prefix(const char *m, char *bdf, size_t bdfsz)
{
	const char *sp = strchr(m, ' ');
	if (!sp || sp - m > 40)
		return NULL;
	size_t n = kparse_bdf(sp + 1, false, bdf, bdfsz, NULL);
	if (!n || sp[1 + n] != ':')
		return NULL;
	const char *r = sp + 1 + n + 1;
	while (*r == ' ')
		r++;
	return r;
}

static void copy_until(char *dst, size_t dstsz, const char *s, const char *stops)
{
	size_t n = strcspn(s, stops);
	if (n >= dstsz)
		n = dstsz - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	/* trim */
	while (n > 0 && (dst[n - 1] == ' ' || dst[n - 1] == '\t'))
		dst[--n] = '\0';
}

/* ---- the ring ---- */

void kparser_init(struct kparser *kp, size_t cap)
{
	memset(kp, 0, sizeof(*kp));
	kp->cap = cap ? cap : 1;
	kp->ring = xcalloc(kp->cap, sizeof(struct kevent));
	kp->ghes_sev = -1;
}

void kparser_release(struct kparser *kp)
{
	free(kp->ring);
	memset(kp, 0, sizeof(*kp));
}

size_t kparser_count(const struct kparser *kp)
{
	return kp->total < kp->cap ? (size_t)kp->total : kp->cap;
}

uint64_t kparser_dropped(const struct kparser *kp)
{
	return kp->total - kparser_count(kp);
}

struct kevent *kparser_event(struct kparser *kp, size_t i)
{
	uint64_t first = kp->total - kparser_count(kp);
	return &kp->ring[(first + i) % kp->cap];
}

/* The event with sequence number seq1 - 1, or NULL when none or dropped. */
static struct kevent *by_seq(struct kparser *kp, uint64_t seq1)
{
	if (seq1 == 0)
		return NULL;
	uint64_t s = seq1 - 1;
	if (s >= kp->total || kp->total - s > kp->cap)
		return NULL;
	return &kp->ring[s % kp->cap];
}

static struct kevent *add_event(struct kparser *kp, enum kev_kind kind, const struct kline *l, uint64_t *seq1)
{
	struct kevent *e = &kp->ring[kp->total % kp->cap];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->ts_kind = l->ts_kind;
	e->ts = l->ts;
	e->lineno = l->lineno;
	e->src = kp->cur_src;
	e->code = -1;
	e->gi = e->ci = e->rm_gpu = -1;
	e->count = 1;
	str_copy(e->msg, l->msg, sizeof(e->msg));
	kp->total++;
	if (seq1)
		*seq1 = kp->total;
	return e;
}

/* ---- recognisers; each returns true when the line was consumed ---- */

static bool parse_xid(struct kparser *kp, const struct kline *l, const char *p)
{
	p += strlen("NVRM: Xid (");
	if (strncmp(p, "PCI:", 4) == 0)
		p += 4;
	char bdf[16];
	bool nofn = false;
	size_t n = kparse_bdf(p, true, bdf, sizeof(bdf), &nofn);
	if (!n)
		return false;
	p += n;
	int gi = -1, ci = -1;
	long long v;
	for (;;) {
		if (strncmp(p, " GPU-I:", 7) == 0 && (n = decrun(p + 7, &v)) > 0) {
			gi = (int)v;
			p += 7 + n;
		} else if (strncmp(p, " GPU-CI:", 8) == 0 && (n = decrun(p + 8, &v)) > 0) {
			ci = (int)v;
			p += 8 + n;
		} else {
			break;
		}
	}
	if (strncmp(p, "): ", 3) != 0)
		return false;
	p += 3;
	if ((n = decrun(p, &v)) == 0)
		return false;
	p += n;
	struct kevent *e = add_event(kp, KEV_XID, l, NULL);
	str_copy(e->bdf, bdf, sizeof(e->bdf));
	e->bdf_nofn = nofn;
	e->code = (int)v;
	e->gi = gi;
	e->ci = ci;
	if (*p == ',')
		p++;
	while (*p == ' ')
		p++;
	if (strncmp(p, "pid=", 4) == 0) {
		p += 4;
		copy_until(e->pid, sizeof(e->pid), p, ",");
		/* pid='<unknown>' (with quotes) in current drivers */
		size_t pl = strlen(e->pid);
		if (pl >= 2 && e->pid[0] == '\'' && e->pid[pl - 1] == '\'') {
			memmove(e->pid, e->pid + 1, pl - 2);
			e->pid[pl - 2] = '\0';
		}
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
		while (*p == ' ')
			p++;
	}
	if (strncmp(p, "name=", 5) == 0) {
		p += 5;
		copy_until(e->pname, sizeof(e->pname), p, ",");
		p += strcspn(p, ",");
		if (*p == ',')
			p++;
		while (*p == ' ')
			p++;
	}
	copy_until(e->detail_text, sizeof(e->detail_text), p, "");
	return true;
}

static bool parse_nvrm(struct kparser *kp, const struct kline *l, const char *m)
{
	const char *p;
	char bdf[16];
	bool nofn;
	size_t n;
	if ((p = strstr(m, "NVRM: Xid (")) != NULL)
		return parse_xid(kp, l, p);
	const struct rm_status *rs = kb_rm_status_in(m);
	if (rs) {
		kevent_rm_status(add_event(kp, KEV_RM_STATUS, l, NULL), rs, m);
		return true;
	}
	if ((p = strstr(m, "NVRM: GPU at PCI:")) != NULL) {
		/* NVRM: GPU at PCI:0000:5d:00: GPU-<uuid> */
		p += strlen("NVRM: GPU at PCI:");
		if (!(n = kparse_bdf(p, true, bdf, sizeof(bdf), &nofn)) || p[n] != ':')
			return false;
		p += n + 1;
		while (*p == ' ')
			p++;
		uint64_t seq;
		struct kevent *e = add_event(kp, KEV_GPU_UUID, l, &seq);
		str_copy(e->bdf, bdf, sizeof(e->bdf));
		e->bdf_nofn = nofn;
		copy_until(e->uuid, sizeof(e->uuid), p, " ");
		kp->last_uuid = seq;
		return true;
	}
	if ((p = strstr(m, "NVRM: GPU Board Serial Number:")) != NULL) {
		struct kevent *u = by_seq(kp, kp->last_uuid);
		if (u) {
			p += strlen("NVRM: GPU Board Serial Number:");
			while (*p == ' ')
				p++;
			copy_until(u->detail_text, sizeof(u->detail_text), p, " ");
		}
		return true;
	}
	if ((p = strstr(m, "NVRM: GPU at ")) != NULL && strstr(p, "has fallen off the bus")) {
		p += strlen("NVRM: GPU at ");
		if ((n = kparse_bdf(p, true, bdf, sizeof(bdf), &nofn)) == 0)
			return false;
		struct kevent *e = add_event(kp, KEV_OFF_BUS, l, NULL);
		str_copy(e->bdf, bdf, sizeof(e->bdf));
		e->bdf_nofn = nofn;
		str_copy(e->type, "older driver", sizeof(e->type));
		return true;
	}
	if ((p = strstr(m, "NVRM: GPU ")) != NULL && (n = kparse_bdf(p + 10, true, bdf, sizeof(bdf), &nofn)) > 0 &&
	    p[10 + n] == ':') {
		const char *rest = p + 10 + n + 1;
		if (strstr(rest, "GPU has fallen off the bus")) {
			struct kevent *e = add_event(kp, KEV_OFF_BUS, l, NULL);
			str_copy(e->bdf, bdf, sizeof(e->bdf));
			e->bdf_nofn = nofn;
			str_copy(e->type, "runtime", sizeof(e->type));
			return true;
		}
		return false; /* "GPU serial number is ..." and others: not events */
	}
	if ((p = strstr(m, "NVRM: The NVIDIA GPU ")) != NULL) {
		p += strlen("NVRM: The NVIDIA GPU ");
		if (kparse_bdf(p, false, bdf, sizeof(bdf), NULL)) {
			str_copy(kp->pending_gpu, bdf, sizeof(kp->pending_gpu));
			kp->pending_age = 0;
		}
		/* one kmsg record may carry the whole text */
		if (!strstr(p, "fallen off the bus"))
			return true;
	}
	if (strstr(m, "fallen off the bus and is not responding to commands")) {
		struct kevent *e = add_event(kp, KEV_OFF_BUS, l, NULL);
		str_copy(e->bdf, kp->pending_gpu, sizeof(e->bdf));
		str_copy(e->type, "probe time", sizeof(e->type));
		kp->pending_gpu[0] = '\0';
		return true;
	}
	if (strstr(m, "NVRM: A GPU crash dump has been created")) {
		add_event(kp, KEV_CRASH_DUMP, l, NULL);
		return true;
	}
	return false;
}

static int aer_sev_word(const char *p, size_t *len)
{
	static const struct {
		const char *w;
		int sev;
	} words[] = {
		{ "Corrected", AER_CORRECTED },
		{ "Correctable", AER_CORRECTED },
		{ "Uncorrected (Non-Fatal)", AER_NONFATAL },
		{ "Uncorrectable (Non-Fatal)", AER_NONFATAL },
		{ "Uncorrected (Fatal)", AER_FATAL },
		{ "Uncorrectable (Fatal)", AER_FATAL },
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		size_t n = strlen(words[i].w);
		if (strncmp(p, words[i].w, n) == 0) {
			*len = n;
			return words[i].sev;
		}
	}
	return -1;
}

static void add_bit(struct kevent *e, const char *name)
{
	if (!*name)
		return;
	if (e->bits[0] && strlen(e->bits) + 1 < sizeof(e->bits))
		strncat(e->bits, ",", sizeof(e->bits) - strlen(e->bits) - 1);
	strncat(e->bits, name, sizeof(e->bits) - strlen(e->bits) - 1);
}

static bool parse_aer(struct kparser *kp, const struct kline *l, const char *m)
{
	char dev[16] = "";
	const char *rest = dev_prefix(m, dev, sizeof(dev));
	const char *body = rest ? rest : m;
	const char *p;
	size_t n;
	/* the "AER: " tag is optional in the detail lines of older kernels */
	if (strncmp(body, "AER: ", 5) == 0)
		body += 5;
	else if ((p = strstr(body, "AER: ")) != NULL)
		body = p + 5;

	/* source line: [Multiple ]SEV error received: BDF | error message received from BDF */
	p = body;
	bool multiple = false;
	if (strncmp(p, "Multiple ", 9) == 0) {
		multiple = true;
		p += 9;
	}
	int sev = aer_sev_word(p, &n);
	if (sev >= 0 && (strncmp(p + n, " error received: ", 17) == 0 ||
			 strncmp(p + n, " error message received from ", 29) == 0)) {
		const char *q = p + n + (p[n + 7] == 'r' ? 17 : 29);
		uint64_t seq;
		struct kevent *e = add_event(kp, KEV_AER, l, &seq);
		e->sev = sev;
		e->multiple = multiple;
		str_copy(e->port, dev, sizeof(e->port));
		if (!kparse_bdf(q, false, e->bdf, sizeof(e->bdf), NULL))
			str_copy(e->bdf, dev, sizeof(e->bdf)); /* "id=0010" forms: the port itself */
		if (strstr(q, "(no details found"))
			e->no_details = true;
		kp->last_aer = seq;
		return true;
	}
	if ((p = strstr(body, "PCIe Bus Error: severity=")) != NULL) {
		p += strlen("PCIe Bus Error: severity=");
		sev = aer_sev_word(p, &n);
		struct kevent *e = by_seq(kp, kp->last_aer);
		if (!e || e->detail || (dev[0] && strcmp(e->bdf, dev) != 0) || (sev >= 0 && e->sev != sev)) {
			uint64_t seq;
			e = add_event(kp, KEV_AER, l, &seq);
			str_copy(e->bdf, dev, sizeof(e->bdf));
			e->sev = sev >= 0 ? sev : AER_CORRECTED;
			kp->last_aer = seq;
		}
		e->detail = true;
		const char *t = strstr(p, "type=");
		if (t) {
			copy_until(e->type, sizeof(e->type), t + 5, ",");
			const char *a = strchr(t, '(');
			if (a)
				copy_until(e->agent, sizeof(e->agent), a + 1, ")");
		}
		return true;
	}
	if ((p = strstr(body, "error status/mask=")) != NULL) {
		struct kevent *e = by_seq(kp, kp->last_aer);
		if (e) {
			unsigned long long s = 0, k = 0;
			p += strlen("error status/mask=");
			n = hexrun(p, &s, 8);
			if (n && p[n] == '/')
				hexrun(p + n + 1, &k, 8);
			e->status = (unsigned)s;
			e->mask = (unsigned)k;
		}
		return true;
	}
	/* "   [ 0] RxErr                  (First)" */
	p = body;
	while (*p == ' ')
		p++;
	if (*p == '[') {
		const char *q = p + 1;
		while (*q == ' ')
			q++;
		long long bit;
		if ((n = decrun(q, &bit)) > 0 && q[n] == ']') {
			struct kevent *e = by_seq(kp, kp->last_aer);
			if (e && (!dev[0] || strcmp(dev, e->bdf) == 0)) {
				char name[40];
				q += n + 1;
				while (*q == ' ')
					q++;
				/* the name is padded with spaces; "(First)" may follow */
				const char *end = strstr(q, "  ");
				const char *par = strstr(q, "(First)");
				size_t len = strlen(q);
				if (end && (size_t)(end - q) < len)
					len = (size_t)(end - q);
				if (par && (size_t)(par - q) < len)
					len = (size_t)(par - q);
				if (len >= sizeof(name))
					len = sizeof(name) - 1;
				memcpy(name, q, len);
				name[len] = '\0';
				str_rtrim(name);
				add_bit(e, name);
			}
			return true;
		}
	}
	return false;
}

/* Firmware-first (GHES/CPER) PCIe records. */
static bool parse_ghes(struct kparser *kp, const struct kline *l, const char *m)
{
	const char *p;
	if ((p = strstr(m, "event severity: ")) != NULL) {
		p += strlen("event severity: ");
		kp->ghes_sev = str_startswith(p, "corrected") ? AER_CORRECTED :
			       str_startswith(p, "fatal") ? AER_FATAL : AER_NONFATAL;
		return true;
	}
	if ((p = strstr(m, "device_id: ")) != NULL && kp->ghes_sev >= 0) {
		char bdf[16];
		if (kparse_bdf(p + 11, false, bdf, sizeof(bdf), NULL)) {
			uint64_t seq;
			struct kevent *e = add_event(kp, KEV_AER, l, &seq);
			str_copy(e->bdf, bdf, sizeof(e->bdf));
			e->sev = kp->ghes_sev;
			str_copy(e->type, "firmware first", sizeof(e->type));
			kp->last_aer = seq;
			return true;
		}
	}
	if ((p = strstr(m, "aer_status: 0x")) != NULL) {
		struct kevent *e = by_seq(kp, kp->last_aer);
		if (e) {
			unsigned long long s = 0, k = 0;
			hexrun(p + strlen("aer_status: 0x"), &s, 8);
			const char *q = strstr(p, "aer_mask: 0x");
			if (q)
				hexrun(q + strlen("aer_mask: 0x"), &k, 8);
			e->status = (unsigned)s;
			e->mask = (unsigned)k;
		}
		return true;
	}
	if ((p = strstr(m, "aer_layer=")) != NULL) {
		struct kevent *e = by_seq(kp, kp->last_aer);
		if (e) {
			copy_until(e->type, sizeof(e->type), p + 10, ",");
			const char *q = strstr(p, "aer_agent=");
			if (q)
				copy_until(e->agent, sizeof(e->agent), q + 10, ",");
		}
		return true;
	}
	return false;
}

static bool parse_dmar(struct kparser *kp, const struct kline *l, const char *m)
{
	const char *p = strstr(m, "DMAR:");
	if (!p)
		return false;
	p += 5;
	while (*p == ' ')
		p++;
	/* oldest second line: "DMAR:[fault reason 05] PTE Write access is not set" */
	if (strncmp(p, "[fault reason ", 14) == 0) {
		struct kevent *e = by_seq(kp, kp->last_dmar_open);
		if (e) {
			long long v;
			const char *q = p + 14;
			size_t n = decrun(q, &v);
			if (n) {
				e->code = (int)v;
				q += n;
				if (*q == ']')
					q++;
				while (*q == ' ')
					q++;
				copy_until(e->detail_text, sizeof(e->detail_text), q, "");
			}
			kp->last_dmar_open = 0;
		}
		return true;
	}
	if (*p != '[')
		return false;
	const char *close = strchr(p, ']');
	if (!close)
		return false;
	char kind[48];
	size_t klen = (size_t)(close - p - 1);
	if (klen >= sizeof(kind))
		return false;
	memcpy(kind, p + 1, klen);
	kind[klen] = '\0';
	bool intr = str_startswith(kind, "INTR-REMAP");
	bool rd = str_startswith(kind, "DMA Read");
	bool wr = str_startswith(kind, "DMA Write");
	if (!intr && !rd && !wr)
		return false;
	const char *q = strstr(close, "Request device [");
	if (!q)
		return false;
	q += strlen("Request device [");
	char bdf[16];
	size_t n = kparse_bdf(q, false, bdf, sizeof(bdf), NULL);
	if (!n || q[n] != ']')
		return false;
	q += n + 1;
	uint64_t seq;
	struct kevent *e = add_event(kp, KEV_DMAR, l, &seq);
	str_copy(e->bdf, bdf, sizeof(e->bdf));
	str_copy(e->type, intr ? "INTR-REMAP" : rd ? "DMA Read" : "DMA Write", sizeof(e->type));
	e->write = wr;
	const char *a = strstr(q, "fault addr ");
	if (a) {
		a += strlen("fault addr ");
		if (strncmp(a, "0x", 2) == 0)
			a += 2;
		unsigned long long addr;
		if (hexrun(a, &addr, 16)) {
			e->addr = addr;
			e->has_addr = true;
		}
	}
	const char *r = strstr(q, "[fault reason ");
	if (r) {
		r += strlen("[fault reason ");
		long long v = -1;
		if (strncmp(r, "0x", 2) == 0) {
			unsigned long long h;
			if ((n = hexrun(r + 2, &h, 4)) > 0) {
				v = (long long)h;
				r += 2 + n;
			}
		} else {
			/* "%02xh" (hex with h) in the 5.17 transition, "%02d" before */
			unsigned long long h;
			size_t nh = hexrun(r, &h, 4);
			if (nh && r[nh] == 'h') {
				v = (long long)h;
				r += nh + 1;
			} else if ((n = decrun(r, &v)) > 0) {
				r += n;
			}
		}
		e->code = (int)v;
		if (*r == ']')
			r++;
		while (*r == ' ')
			r++;
		copy_until(e->detail_text, sizeof(e->detail_text), r, "");
		kp->last_dmar_open = 0;
	} else {
		kp->last_dmar_open = seq; /* the reason follows on the next line */
	}
	return true;
}

static bool parse_amdvi(struct kparser *kp, const struct kline *l, const char *m)
{
	const char *p = strstr(m, "Event logged [");
	if (!p)
		return false;
	p += strlen("Event logged [");
	char dev[16] = "";
	dev_prefix(m, dev, sizeof(dev));
	struct kevent *e = add_event(kp, KEV_AMDVI, l, NULL);
	/* IO_PAGE_FAULT, ILLEGAL_DEV_TABLE_ENTRY, ...; or a phrase such as
	 * "Device not attached to domain properly" */
	copy_until(e->type, sizeof(e->type), p, " ]");
	for (const char *c = e->type; *c; c++)
		if (islower((unsigned char)*c)) {
			copy_until(e->type, sizeof(e->type), p, "]");
			break;
		}
	const char *d = strstr(p, "device=");
	if (!d || !kparse_bdf(d + 7, false, e->bdf, sizeof(e->bdf), NULL))
		str_copy(e->bdf, dev, sizeof(e->bdf));
	const char *a = strstr(p, "address=0x");
	if (a) {
		unsigned long long v;
		if (hexrun(a + 10, &v, 16)) {
			e->addr = v;
			e->has_addr = true;
		}
	}
	const char *f = strstr(p, " flags=0x");
	if (f) {
		unsigned long long v;
		hexrun(f + 9, &v, 8);
		e->status = (unsigned)v;
		e->write = (v & 0x20) != 0;
	}
	const char *dm = strstr(p, "domain=0x");
	if (dm) {
		unsigned long long v;
		hexrun(dm + 9, &v, 8);
		e->code = (int)v;
	}
	return true;
}

static bool parse_edac(struct kparser *kp, const struct kline *l, const char *m)
{
	const char *p = strstr(m, "EDAC MC");
	if (!p)
		return false;
	p += 7;
	long long mc, cnt = 1;
	size_t n = decrun(p, &mc);
	if (!n || strncmp(p + n, ": ", 2) != 0)
		return false;
	p += n + 2;
	if ((n = decrun(p, &cnt)) > 0 && p[n] == ' ')
		p += n + 1;
	bool ue;
	if (strncmp(p, "CE ", 3) == 0)
		ue = false;
	else if (strncmp(p, "UE ", 3) == 0)
		ue = true;
	else
		return false;
	struct kevent *e = add_event(kp, KEV_EDAC, l, NULL);
	e->code = (int)mc;
	e->count = (long)cnt;
	e->sev = ue ? 2 : 0;
	const char *on = strstr(p, " on ");
	if (on)
		copy_until(e->detail_text, sizeof(e->detail_text), on + 4, "(");
	else
		copy_until(e->detail_text, sizeof(e->detail_text), p + 3, "");
	return true;
}

static bool parse_hung(struct kparser *kp, const struct kline *l, const char *m)
{
	const char *p = strstr(m, "INFO: task ");
	if (!p)
		p = strstr(m, "task ");
	if (!p)
		return false;
	p = strchr(p, ' ') + 1;
	if (str_startswith(p, "task "))
		p += 5;
	const char *b = strstr(p, " blocked for more than ");
	if (!b)
		return false;
	const char *colon = b;
	while (colon > p && *colon != ':')
		colon--;
	if (colon == p)
		return false;
	uint64_t seq;
	struct kevent *e = add_event(kp, KEV_HUNG_TASK, l, &seq);
	size_t len = (size_t)(colon - p);
	if (len >= sizeof(e->pname))
		len = sizeof(e->pname) - 1;
	memcpy(e->pname, p, len);
	e->pname[len] = '\0';
	copy_until(e->pid, sizeof(e->pid), colon + 1, " ");
	if (str_casestr(e->pname, "nccl") || str_casestr(e->pname, "nvidia") || str_casestr(e->pname, "cuda"))
		e->gpu_stack = true;
	kp->last_hung = seq;
	kp->hung_lines = 0;
	return true;
}

/* NVSwitch SXid lines: continuations join their group (analyze/kernel_sxid.h) */
static bool parse_sxid(struct kparser *kp, const struct kline *l, const char *m)
{
	struct sxid_line sl;
	if (!sxid_parse_line(m, &sl))
		return false;
	if (!kparser_sxid_continue(kp, &sl))
		kevent_sxid_start(add_event(kp, KEV_SXID, l, NULL), &sl);
	return true;
}

void kparser_line(struct kparser *kp, const struct kline *l)
{
	const char *m = l->msg;
	kp->lines++;
	if (kp->pending_gpu[0] && ++kp->pending_age > 8)
		kp->pending_gpu[0] = '\0';
	if (kp->last_hung && ++kp->hung_lines > 80)
		kp->last_hung = 0;
	/* cheap prefilter: almost every line of a big log is none of ours */
	if (strstr(m, "NVRM")) {
		if (parse_nvrm(kp, l, m))
			return;
	} else if (strstr(m, "fallen off the bus and is not responding")) {
		parse_nvrm(kp, l, m);
		return;
	}
	if (strstr(m, "SXid (") && parse_sxid(kp, l, m))
		return;
	const char *p;
	if ((p = strstr(m, "nvidia: probe of ")) != NULL && strstr(p, " failed with error")) {
		struct kevent *e = add_event(kp, KEV_PROBE_FAILED, l, NULL);
		kparse_bdf(p + strlen("nvidia: probe of "), false, e->bdf, sizeof(e->bdf), NULL);
		return;
	}
	if ((strstr(m, "AER") || strstr(m, "PCIe Bus Error")) && parse_aer(kp, l, m))
		return;
	if ((strstr(m, "Hardware Error") || strstr(m, "aer_")) && parse_ghes(kp, l, m))
		return;
	if (kp->last_aer && strstr(m, "error status/mask=") && parse_aer(kp, l, m))
		return;
	if (kp->last_aer) {
		/* bit lines of older kernels carry no "AER:" tag */
		char dev[16];
		const char *r = dev_prefix(m, dev, sizeof(dev));
		const char *s = r ? r : m;
		while (*s == ' ')
			s++;
		if (*s == '[' && isdigit((unsigned char)s[s[1] == ' ' ? 2 : 1]) && parse_aer(kp, l, m))
			return;
	}
	if (strstr(m, "DMAR:") && parse_dmar(kp, l, m))
		return;
	if (strstr(m, "AMD-Vi") && parse_amdvi(kp, l, m))
		return;
	if (strstr(m, "EDAC") && parse_edac(kp, l, m))
		return;
	if ((p = strstr(m, "Default domain type: ")) != NULL) {
		struct kevent *e = add_event(kp, KEV_IOMMU_DOMAIN, l, NULL);
		copy_until(e->type, sizeof(e->type), p + strlen("Default domain type: "), " ");
		copy_until(e->detail_text, sizeof(e->detail_text), p + strlen("Default domain type: "), "");
		return;
	}
	if (strstr(m, " blocked for more than ") && parse_hung(kp, l, m))
		return;
	if (kp->last_hung) {
		struct kevent *e = by_seq(kp, kp->last_hung);
		if (e && (strstr(m, "[nvidia") || str_casestr(m, "nccl")))
			e->gpu_stack = true;
	}
}
