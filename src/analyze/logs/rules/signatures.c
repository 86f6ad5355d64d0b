/* NCCL log analysis, the evidence of the matched signatures
 * (kb/nccl_signatures.c): one finding per finding id with its lines, an
 * NCCL warning no row knows that failed (its back-trace returned an error:
 * the class its message, source file or result code names), and the causes
 * the matched rows name, root failures first and the first failure in time
 * ahead. Signature roles: a root failure counts fully, a consequence little
 * once a root failure is known, context only in a run that failed. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"
#include "kb/nccl_warns.h"

#include <stdio.h>
#include <string.h>

/* The title of LOG_NCCL_WARNING: what is known of its first line. A
 * message of NCCL's own table (tools/nccl-warns) or of a network plugin's
 * (tools/nccl-plugin-warns) is not unknown: the title names the class the
 * source ties it to, or says that its text names no cause by itself; the
 * catalog's wording stays for a line in no format. */
static void nccl_warning_title(const struct finding_def *d, const struct nl_event *e, char *buf, size_t bufsz)
{
	const struct nccl_warn *known = known_warn(e);
	if (!known)
		snprintf(buf, bufsz, "%s: %s", d->summary, e->text);
	else if (strcmp(known->cause, "context") == 0)
		snprintf(buf, bufsz, "%s printed a warning that names no cause by itself (%s's%s message table): %s",
			 nccl_warn_origin(known), nccl_warn_origin(known), nccl_warn_own(known), e->text);
	else
		snprintf(buf, bufsz, "%s printed a warning of class %s (%s's%s message table): %s", nccl_warn_origin(known),
			 known->cause, nccl_warn_origin(known), nccl_warn_own(known), e->text);
}

/* The class NCCL's own message table (kb/nccl_warns.h, with the network
 * plugins' rows) gives every warning that matched signature row s, when
 * they all have one and the same (not "context"); NULL otherwise. Such a
 * warning is no unknown one: its finding takes that class and says so
 * (RAS's "NCCL version mismatch with remote peer", ras/ras.cc 2.24+, is
 * version_mismatch). *first: the row of the first such warning. */
static const char *warn_table_class(const struct ana *a, int s, const struct nccl_warn **first)
{
	const struct nccllog *lg = a->lg;
	const char *cls = NULL;
	*first = NULL;
	for (size_t i = 0; i < lg->nev; i++) {
		if (lg->ev[i].sig != s)
			continue;
		const struct nccl_warn *known = known_warn(&lg->ev[i]);
		if (!known || strcmp(known->cause, "context") == 0 || (cls && strcmp(cls, known->cause) != 0))
			return NULL;
		cls = known->cause;
		if (!*first)
			*first = known;
	}
	return cls;
}

void signature_findings(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96];
	/* role flags */
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++) {
		if (!lg->sigcount[s])
			continue;
		const struct nccl_signature *g = &a->sigs[s];
		if (g->role == NSR_ROOT) {
			a->have_any_root = true;
			if (g->weight >= 0.5)
				a->have_root = true;
		} else if (g->role == NSR_SECONDARY) {
			a->have_secondary = true;
		} else if (g->role == NSR_HANG) {
			a->have_hang = true;
		}
	}
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].role == NSR_ROOT && (!a->first || event_before(e, a->first)))
			a->first = e;
	}
	/* one finding per finding id, evidence from every signature raising it */
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++) {
		if (!lg->sigcount[s])
			continue;
		const struct nccl_signature *g = &a->sigs[s];
		const struct finding_def *d = kb_finding_def(g->fid);
		/* PT20 (PyTorch's exit warning) is printed after most failures as
		 * well: rule exit_without_destroy raises its finding when it is all
		 * the log says, else it is no news */
		if (!d || g->fid == FID_LOG_EXIT_WITHOUT_DESTROY)
			continue;
		/* S21v (no libibverbs) is every machine without RDMA NICs: a note
		 * only where the job spans hosts and the network matters */
		if (g->fid == FID_LOG_IBVERBS_NOT_LOADED && !(lg->nprocs && multi_host(a, &lg->procs[0])))
			continue;
		enum severity sev = d->severity;
		/* a consequence seen next to its root cause is only a warning */
		if (g->role == NSR_SECONDARY && a->have_root && sev == SEV_ERROR)
			sev = SEV_WARNING;
		if (a->outlived[s] && sev == SEV_ERROR) /* NCCL fell back and went on */
			sev = SEV_WARNING;
		const struct nl_event *firstev = NULL;
		for (size_t i = 0; i < lg->nev; i++)
			if (lg->ev[i].sig == (int)s) {
				firstev = &lg->ev[i];
				break;
			}
		char title[400];
		int nprocs = procs_with_sig(lg, (int)s);
		const struct nccl_warn *trow = NULL;
		const char *tcls = g->fid == FID_LOG_NCCL_WARNING ? warn_table_class(a, (int)s, &trow) : NULL;
		if (tcls)
			snprintf(title, sizeof(title), "%s printed a warning of class %s (%s's%s message table): %s",
				 nccl_warn_origin(trow), tcls, nccl_warn_origin(trow), nccl_warn_own(trow),
				 firstev ? firstev->text : "");
		else if (g->fid == FID_LOG_NCCL_WARNING && firstev)
			nccl_warning_title(d, firstev, title, sizeof(title));
		else
			snprintf(title, sizeof(title), "%s%s%s", d->summary, firstev ? ": " : "", firstev ? firstev->text : "");
		struct finding *f = finding_get(a->r, g->fid);
		if (!f) {
			f = finding_for_class(a->r, g->fid, sev, title, tcls, NULL);
			if (tcls)
				f->cause = tcls;
		} else if (sev > f->sev) {
			f->sev = sev;
		}
		for (size_t i = 0; i < lg->nev; i++) {
			const struct nl_event *e = &lg->ev[i];
			if (e->sig != (int)s)
				continue;
			if (f->nev >= 8)
				break;
			event_label(lg, e, lbl, sizeof(lbl));
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s%s%s%s [%s, %s]", e->text,
					 e->chain[0] ? " (back-trace: " : "", e->chain, e->chain[0] ? ")" : "", lbl, g->id);
		}
		went_on_note(a, f, (int)s);
		if (lg->sigcount[s] > lg->sigstored[s] || nprocs > 1)
			finding_evidence(f, NULL, 0, "%s: %u line%s in all, from %d process%s", g->id, lg->sigcount[s],
					 lg->sigcount[s] == 1 ? "" : "s", nprocs, nprocs == 1 ? "" : "es");
	}
}

/* The cause class of an NCCL warning no row knows, from its message text,
 * else its source file, else the result code its back-trace returned;
 * NULL when none says anything. by[0..bysz) names which. */
static const char *warn_class(const struct nl_event *e, const struct nccl_warn *known, char *by, size_t bysz)
{
	static const struct {
		const char *key, *cause;
	} text[] = {
		{ "collective mismatch", "collective_mismatch_app_bug" },
		{ "version mismatch", "version_mismatch" }, { "mismatched nccl version", "version_mismatch" },
		{ "shared memory", "shm_too_small" },      { "/dev/shm", "shm_too_small" },
		{ "peer access", "p2p_pcie_acs_iommu" },   { "p2p", "p2p_pcie_acs_iommu" },
		{ "ibv_", "ib_rdma_config" },               { "net/ib", "ib_rdma_config" },
		{ "rdma", "ib_rdma_config" },               { "nvls", "fabric_manager_nvswitch" },
		{ "multicast", "fabric_manager_nvswitch" }, { "fabric", "fabric_manager_nvswitch" },
		{ "bootstrap", "bootstrap_network" },
		{ "socket", "bootstrap_network" },          { "connect", "bootstrap_network" },
	}, file[] = {
		{ "transport/p2p.cc", "p2p_pcie_acs_iommu" },    { "shm.cc", "shm_too_small" },
		{ "shmutils.cc", "shm_too_small" },              { "net_ib", "ib_rdma_config" },
		{ "ibvwrap.cc", "ib_rdma_config" },              { "bootstrap.cc", "bootstrap_network" },
		{ "socket.cc", "bootstrap_network" },            { "nvls.cc", "fabric_manager_nvswitch" },
		{ "ipcsocket.cc", "custom_allreduce_or_cumem" }, { "cudawrap.cc", "driver_or_kernel_bug" },
	};
	char low[NL_TEXT_MAX];
	size_t n = strlen(e->text);
	/* NCCL's own message, classified from its source, decides; one that
	 * names no cause by itself ("context") leaves the result code */
	if (known && strcmp(known->cause, "context") != 0) {
		snprintf(by, bysz, "%s's source", nccl_warn_origin(known));
		return known->cause;
	}
	if (known)
		n = 0;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)(e->text[i] >= 'A' && e->text[i] <= 'Z' ? e->text[i] - 'A' + 'a' : e->text[i]);
	for (size_t k = 0; n && k < sizeof(text) / sizeof(text[0]); k++)
		if (strstr(low, text[k].key)) {
			snprintf(by, bysz, "its message");
			return text[k].cause;
		}
	for (size_t k = 0; !known && e->src[0] && k < sizeof(file) / sizeof(file[0]); k++)
		if (strstr(e->src, file[k].key)) {
			snprintf(by, bysz, "its source file");
			return file[k].cause;
		}
	snprintf(by, bysz, "its result code");
	switch (e->code) {
	case 1: return "driver_or_kernel_bug";        /* ncclUnhandledCudaError */
	case 3: return "driver_or_kernel_bug";        /* ncclInternalError */
	case 4: return "collective_mismatch_app_bug"; /* ncclInvalidArgument */
	case 5: return "nccl_config_error";           /* ncclInvalidUsage */
	case 6: return "peer_died_or_oom";            /* ncclRemoteError */
	default: return NULL;                         /* 2 ncclSystemError: anything */
	}
}

/* An NCCL warning no row knows, followed by a back-trace that returned an
 * error (`... -> 3`), is a failure: it counts as a root failure of the
 * class its text, source file or result code names. */
void warn_failures(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (!nccl_signature_generic(&a->sigs[e->sig]) || a->sigs[e->sig].fid != FID_LOG_NCCL_WARNING)
			continue;
		const struct nccl_warn *known = known_warn(e);
		if (known) {
			struct finding *f = finding_get(a->r, FID_LOG_NCCL_WARNING);
			if (f && f->nev < 12)
				finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s's%s message (%s, %s %s, %s): %s",
						 nccl_warn_origin(known), nccl_warn_own(known), known->file,
						 nccl_warn_origin(known), known->versions,
						 strcmp(known->cause, "context") ? known->cause : "names no cause by itself",
						 known->format);
		}
		if (!e->code)
			continue;
		char by[64] = "";
		const char *cls = warn_class(e, known, by, sizeof(by));
		struct finding *f = finding_get(a->r, FID_LOG_NCCL_WARNING);
		if (f) {
			f->sev = SEV_ERROR;
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "a failure (back-trace returned %d): %s%s%s",
					 e->code, cls ? cls : "no class", cls ? " by " : "", cls ? by : "");
		}
		a->have_any_root = true;
		if (!cls)
			continue;
		a->have_root = true;
		if (!a->first || event_before(e, a->first))
			a->first = e;
		struct cause_acc *c = contribute(a, cls, 0.55, FID_LOG_NCCL_WARNING);
		cause_evidence(c, e->file, e->line, e->text);
	}
}

/* Whether some process printed the interface its bootstrap uses. */
static bool bootstrap_if_known(const struct nccllog *lg)
{
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].bootstrap_if[0])
			return true;
	return false;
}

/* Cause contributions of signature matches. */
void signature_causes(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->first) {
		const struct finding_def *d = kb_finding_def(a->sigs[a->first->sig].fid);
		if (d)
			cause_evidence(cause_get(a, d->cause), a->first->file, a->first->line, a->first->text);
	}
	for (size_t k = 0; k < 2 * a->nsigs && k < 2 * NL_MAX_SIGS; k++) {
		/* root failures first, so their lines lead each cause's evidence */
		size_t s = k % a->nsigs;
		if (!lg->sigcount[s] || (k < a->nsigs) != (a->sigs[s].role == NSR_ROOT))
			continue;
		const struct nccl_signature *g = &a->sigs[s];
		const struct finding_def *d = kb_finding_def(g->fid);
		if (!d || g->role == NSR_INFO || g->role == NSR_HANG)
			continue;
		if (g->fid == FID_LOG_NCCL_WARNING && a->have_root)
			continue; /* unknown warnings next to a known failure (or classified) */
		double w = g->weight;
		if (g->role == NSR_SECONDARY && a->have_root)
			w *= 0.3;
		if (g->role == NSR_CONTEXT && !a->have_root && !a->have_secondary && !a->have_hang)
			continue; /* a warning in a run that did not fail names no cause */
		const char *cause = d->cause;
		if (g->fid == FID_LOG_SOCKET_BAD_ADDRESS && bootstrap_if_known(lg)) {
			/* the local interface is fine (NCCL printed it): the address
			 * came from a peer whose libnccl lays it out differently */
			cause = "version_mismatch";
			struct cause_acc *b = contribute(a, d->cause, 0.3, g->fid);
			for (size_t i = 0; i < lg->nev; i++)
				if (lg->ev[i].sig == (int)s)
					cause_evidence(b, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
		}
		int np = procs_with_sig(lg, (int)s);
		if (np > 1 && g->role == NSR_ROOT)
			w += 0.03 * (np - 1 < 3 ? np - 1 : 3);
		if (a->first && a->first->sig == (int)s)
			w += 0.1;
		if (w > CAUSE_CONF_MAX)
			w = CAUSE_CONF_MAX;
		/* context rows of one finding tell one fact (S27 and S54c: NCCL left
		 * P2P off for a pair): its weight once */
		const struct cause_acc *had = g->role == NSR_CONTEXT ? score_find(a, cause) : NULL;
		for (int j = 0; had && j < had->nfids; j++)
			if (strcmp(had->fids[j], g->finding) == 0)
				w = 0;
		struct cause_acc *c = w > 0 ? contribute(a, cause, w, g->fid) : cause_get(a, cause);
		/* the first failure's line first */
		if (a->first && a->first->sig == (int)s)
			cause_evidence(c, a->first->file, a->first->line, a->first->text);
		for (size_t i = 0; i < lg->nev; i++)
			if (lg->ev[i].sig == (int)s)
				cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
	}
}
