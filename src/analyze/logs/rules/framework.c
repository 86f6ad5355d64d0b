/* NCCL log analysis, the frameworks' own errors: lines of PyTorch, vLLM,
 * SGLang, Ray, DeepSpeed, accelerate, JAX/XLA and CUDA error names that
 * the framework-error catalog knows (kb/framework_errors.h, from the
 * frameworks' sources; each row names its framework). Each becomes
 * evidence of LOG_FRAMEWORK_ERROR with the class and the origin of its
 * text. A line of a cause class decides the cause when NCCL printed no
 * warning of its own (weight 0.8: it ranks first), and only supports it
 * beside an NCCL warning (0.25). A line a hand-written signature
 * (kb/nccl_signatures.h) also matches is counted there, once: the
 * signature keeps the weight, the catalog adds the origin. Info lines,
 * hang markers and wrappers are listed, never ranked. A line of one
 * rank ("[rank1]: ValueError: ...") still decides when NCCL's only
 * warnings are other ranks' lost connection to a peer: that rank stopped
 * on its own error and the others lost it (a dead peer's weight is
 * capped below it). */
#include "analyze/logs/inputs/framework.h"
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/framework_errors.h"
#include "kb/nccl_signatures.h"

#include <stdio.h>
#include <string.h>

#define FW_DECIDES 0.8
#define FW_SUPPORTS 0.25

/* The hand-written signature that also weighs text (a line of other
 * text: NS_TEXT rows that name a failure, generic rows aside), NULL when
 * none. */
const struct nccl_signature *framework_line_signature(const char *text)
{
	size_t n;
	const struct nccl_signature *s = kb_nccl_signatures(&n);
	for (size_t i = 0; i < n; i++) {
		/* a generic row (S68 'unhandled cuda error', PT09), a fact
		 * (VL07 'pynccl_wrapper.py') or context (BN02 'No route to host'
		 * inside c10d's connect error) says less than the catalog's line */
		if (!(s[i].where & NS_TEXT) || nccl_signature_generic(&s[i]) || s[i].role == NSR_INFO ||
		    s[i].role == NSR_HANG || s[i].role == NSR_CONTEXT)
			continue;
		bool any = false;
		for (int k = 0; k < NS_MAX_ANY && s[i].any[k] && !any; k++)
			any = strcasestr(text, s[i].any[k]) != NULL;
		if (any && (!s[i].also || strcasestr(text, s[i].also)))
			return &s[i];
	}
	return NULL;
}

/* Whether every process that printed an NCCL warning printed only the
 * lost connection to a peer (LOG_PEER_CONNECTION_LOST,
 * LOG_NCCL_REMOTE_ERROR) and is a known rank other than `rank`: then
 * those warnings follow from `rank` stopping on the framework's error,
 * they are not NCCL's failure beside it. */
static bool others_only_lost(const struct nccllog *lg, int rank)
{
	bool any = false;
	for (int i = 0; i < lg->nprocs && rank >= 0; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!p->nwarn)
			continue;
		int pr = nl_proc_rank(p);
		if (p->nwarn_peer != p->nwarn || pr < 0 || pr == rank)
			return false;
		any = true;
	}
	return any;
}

/* Whether some process printed an NCCL warning of its own. */
static bool nccl_warned(const struct nccllog *lg)
{
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].nwarn)
			return true;
	return false;
}

void framework_errors(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_fw *fw = nl_fw_get(lg);
	if (!fw)
		return;
	/* lines of no cause class alone (info, hang markers, wrappers) are
	 * what the signatures already report (VL03, PT01, S68): listed only
	 * beside a line that names a cause */
	bool some = false;
	for (int i = 0; i < fw->nhits && !some; i++)
		some = framework_error_is_cause(fw->hits[i].row);
	if (!some)
		return;
	bool warned = nccl_warned(lg);
	struct finding *f = NULL;
	const char *counted[NL_FW_MAX_HITS]; /* classes weighed once: a repeated line adds evidence only */
	int ncounted = 0;
	for (int i = 0; i < fw->nhits; i++) {
		const struct nl_fw_hit *h = &fw->hits[i];
		const struct framework_error *r = h->row;
		const char *cls = r->cause;
		/* CUDA error 217 from vLLM's custom all-reduce kernels: its IPC
		 * buffers, not NCCL's P2P path (VL06: custom_all_reduce.cu lines) */
		if (strcmp(cls, "p2p_pcie_acs_iommu") == 0 && count_of(a, "VL06"))
			cls = "custom_allreduce_or_cumem";
		bool cause = framework_error_is_cause(r);
		const struct nccl_signature *sig = cause ? framework_line_signature(h->text) : NULL;
		if (!f) {
			/* titled by the first line of a cause class, else the first line */
			const struct nl_fw_hit *t = h;
			for (int k = i; k < fw->nhits; k++)
				if (framework_error_is_cause(fw->hits[k].row)) {
					t = &fw->hits[k];
					break;
				}
			bool tc = framework_error_is_cause(t->row);
			const char *tcls = tc && strcmp(t->row->cause, "p2p_pcie_acs_iommu") == 0 && count_of(a, "VL06")
						   ? "custom_allreduce_or_cumem"
						   : t->row->cause;
			char title[200];
			snprintf(title, sizeof(title), "%s printed an error of its own%s%s", t->row->name,
				 tc ? " that points to " : "", tc ? tcls : "");
			/* the rule's own first step where the class's would mislead
			 * (classes.tsv `next`: an argument the backend refuses) */
			f = finding_for_class(a->r, FID_LOG_FRAMEWORK_ERROR, tc ? SEV_ERROR : SEV_INFO, title,
					      tc ? tcls : NULL, tc && t->row->next[0] ? t->row->next : NULL);
			if (tc)
				f->cause = tcls; /* the line's class, not the catalog entry's `unknown` */
		}
		if (cause && f->sev < SEV_ERROR)
			f->sev = SEV_ERROR;
		char origin[400];
		framework_error_origin(r, origin, sizeof(origin));
		/* the rank that printed it stopped there; the others' NCCL
		 * warnings only lost their connection to it */
		bool lost = cause && !sig && warned && strcmp(cls, "peer_died_or_oom") != 0 &&
			    others_only_lost(lg, h->rank);
		const char *how = !cause ? "listed, not ranked"
				  : sig		  ? "counted by the signature"
				  : lost	  ? "decides the cause: this rank stopped on it, and NCCL's only warnings are "
						    "the other ranks' lost connection to it"
				  : warned	  ? "supports NCCL's own warning"
						  : "decides the cause: NCCL printed no warning";
		finding_evidence(f, file_name(lg, h->file), (long)h->line, "%s (%s %s: %s; %s%s%s; text from %s '%s')",
				 h->text, r->name, cls, r->reason, how, sig ? " " : "",
				 sig ? sig->id : "", origin, r->literal);
		if (!cause || sig)
			continue;
		bool again = false;
		for (int k = 0; k < ncounted && !again; k++)
			again = strcmp(counted[k], cls) == 0;
		struct cause_acc *c = again ? cause_get(a, cls)
					    : contribute(a, cls, warned && !lost ? FW_SUPPORTS : FW_DECIDES,
							 FID_LOG_FRAMEWORK_ERROR);
		if (!again)
			counted[ncounted++] = cls;
		cause_evidence(c, h->file, h->line, h->text);
		if (lost) {
			const char *t = ana_text(a, "rank %d stopped on its own error, the others only lost their "
						    "connection to it: %s", h->rank, h->text);
			if (t)
				cause_evidence_first(c, h->file, h->line, t);
			score_cap(a, "peer_died_or_oom", 0.4,
				  "the rank the others lost stopped on an error of its own, which names the cause");
		}
	}
}
