/* NVRM lines naming a GPU-fatal RM status: the events (see
 * kernel_rmstatus.h) and one finding per GPU (see kernel_agg.h). The lines
 * seen in the wild ("NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset
 * required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @
 * kernel_channel.c:2874") name no GPU; where a driver prefixes its lines
 * with the GPU's address, the finding names that GPU. */
#include "analyze/kernel_agg.h"
#include "analyze/kernel_rmstatus.h"
#include "kb/findings.h"
#include "util/text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* The first PCI address after "PCI:" or "GPU " in m ("" when none). */
static void rm_line_bdf(const char *m, struct kevent *e)
{
	static const char *const tags[] = { "PCI:", "GPU " };
	for (size_t t = 0; t < sizeof(tags) / sizeof(tags[0]); t++) {
		for (const char *p = strstr(m, tags[t]); p; p = strstr(p + 1, tags[t])) {
			const char *a = p + strlen(tags[t]);
			if (strncmp(a, "at PCI:", 7) == 0)
				a += 7;
			bool nofn = false;
			if (kparse_bdf(a, true, e->bdf, sizeof(e->bdf), &nofn)) {
				e->bdf_nofn = nofn;
				return;
			}
		}
	}
	e->bdf[0] = '\0';
}

/* "NVRM: GPU5 nvCheckOkFailedNoLog: ...": the driver's own instance number
 * of the GPU (drivers of the 560 era and later prefix it); -1 when none. */
static int rm_line_instance(const char *m)
{
	const char *p = strstr(m, "NVRM: GPU");
	if (!p)
		return -1;
	p += strlen("NVRM: GPU");
	int v = 0, nd = 0;
	while (isdigit((unsigned char)*p) && nd < 4) {
		v = v * 10 + (*p++ - '0');
		nd++;
	}
	return nd && (*p == ' ' || *p == ':') ? v : -1;
}

void kevent_rm_status(struct kevent *e, const struct rm_status *rs, const char *m)
{
	e->code = (int)rs->code;
	str_copy(e->type, rs->name, sizeof(e->type));
	str_copy(e->detail_text, rs->text, sizeof(e->detail_text));
	rm_line_bdf(m, e);
	e->rm_gpu = rm_line_instance(m);
}

/* The table row of an aggregate (its code). */
static const struct rm_status *rm_row(int code)
{
	size_t n;
	const struct rm_status *t = kb_rm_statuses(&n);
	for (size_t i = 0; i < n; i++)
		if ((int)t[i].code == code)
			return &t[i];
	return NULL;
}

size_t rm_status_finding(const struct kan *c, size_t i)
{
	const struct agg *a0 = &c->as.a[i];
	size_t end = i;
	/* the aggregates are sorted by GPU, kind and device: one GPU's are adjacent */
	while (end < c->as.n && c->as.a[end].kind == KEV_RM_STATUS && c->as.a[end].gpu == a0->gpu &&
	       strcmp(c->as.a[end].bdf, a0->bdf) == 0 && c->as.a[end].rm_gpu == a0->rm_gpu)
		end++;
	char who[160], list[512], when[120];
	size_t off = 0;
	enum severity sev = SEV_INFO;
	list[0] = '\0';
	kan_gpu_name(a0->gpu, a0->bdf, who, sizeof(who));
	for (size_t k = i; k < end; k++) {
		const struct agg *a = &c->as.a[k];
		const struct rm_status *rs = rm_row(a->code);
		kan_when_text(a, when, sizeof(when));
		str_appendf(list, sizeof(list), &off, "%s%s, %s", k > i ? "; " : "", a->what, when);
		if (rs && rs->severity > sev)
			sev = rs->severity;
	}
	bool named = a0->gpu || a0->bdf[0];
	if (!named && a0->rm_gpu >= 0)
		snprintf(who, sizeof(who), "the driver's GPU%d (its instance number, no PCI address in the line)", a0->rm_gpu);
	else if (!named)
		str_copy(who, "a GPU the line does not name", sizeof(who));
	struct finding *f = finding_add(c->r, FID_GPU_RM_FATAL_STATUS, sev, "%s: the driver returned %s: the GPU must be reset",
					who, list);
	for (size_t k = i; k < end; k++) {
		const struct agg *a = &c->as.a[k];
		const struct rm_status *rs = rm_row(a->code);
		kan_add_first_last(f, c->kp, a, c->o);
		if (rs)
			finding_evidence(f, NULL, 0, "%s (0x%02X, '%s'): %s (open-gpu-kernel-modules nvstatuscodes.h)",
					 rs->name, rs->code, rs->text, rs->meaning);
	}
	finding_fix(f, "note", "a GPU in this state fails or hangs every job that lands on it",
		    "drain %s: no new jobs on it until it was reset", named || a0->rm_gpu >= 0 ? "the GPU" : "the node");
	if (a0->gpu)
		finding_fix(f, "shell", "resets the GPU; needs no process on it (nvidia-smi lists them)",
			    "sudo nvidia-smi -r -i %d", a0->gpu->index);
	else if (a0->bdf[0])
		finding_fix(f, "shell", "resets the GPU at that address; needs no process on it",
			    "sudo nvidia-smi -r -i %s", a0->bdf);
	else
		finding_fix(f, "note", "the line gives no PCI address: the Xid or 'GPU at PCI:' lines next to it do",
			    "find the GPU (nccl-doctor kernel shows the Xids per GPU), then reset it: sudo nvidia-smi -r -i <index>");
	finding_fix(f, "note", "when the reset fails or the status recurs", "collect nvidia-bug-report.sh, reboot the node; replace the GPU if it recurs");
	return end - i;
}
