/* NCCL log analysis, a warning the process outlived (the first rule of
 * the evidence phase). A root failure of the signature table is a line
 * after which NCCL gives up; but NCCL also prints WARN where it falls
 * back and goes on, and a paste shows which happened: the same process
 * reaching a later stage of its timeline (a new stage or a new
 * communicator, nl_proc.stage_line) after the warning, with no back-trace
 * returning an error from it (nl_event.code 0), went on. Such a warning
 * did not stop the run and is not its first failure: for this analysis
 * its row becomes context of its class, weak (OUTLIVED_WEIGHT), and the
 * stage the run stopped at speaks (the hang fallbacks, honest unknowns).
 *
 * From NCCL's source, the pattern is common at init: cudawrap.cc's
 * "Failed to find CUDA library" (2.13-2.19) sets initResult and returns,
 * and every caller in init.cc discards it ("(void)ncclCudaLibraryInit();",
 * v2.14.3-1 init.cc:1174/1189/1282, v2.19.4-1 :1664/1690/1754) to run on
 * the CUDA runtime alone; transport/p2p.cc's p2pCanConnect returns
 * ncclSuccess with *ret = 0 after a refused peer access (SHM or NET
 * carries the pair); net.cc goes from one network to the next after a
 * plugin's init WARN. A warning that killed the process is followed by
 * its back-trace (NCCLCHECK's "file:line -> N") or by nothing of NCCL. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

#include <string.h>

/* A root failure the process outlived names its class no more than a
 * prior of the stage the run stopped at (0.2 and below, timeline.c). */
#define OUTLIVED_WEIGHT 0.15

/* Whether process p reached a later stage or communicator after event e
 * (the line that moved its timeline last comes after e in e's file). */
static bool went_on_after(const struct nccllog *lg, const struct nl_event *e)
{
	if (e->proc < 0 || e->proc >= lg->nprocs)
		return false;
	const struct nl_proc *p = &lg->procs[e->proc];
	/* init completed after the warning (T9 or later, reached by a later
	 * line): the warning did not stop init, whatever tears the
	 * communicator down later (a job that ran and destroyed it) */
	if (nl_proc_stage(p) >= 9 && p->stage_file == e->file && p->stage_line > e->line)
		return true;
	/* the tear-down after a fatal warning is no progress: a process that
	 * aborted or destroyed a communicator before completing init is not
	 * judged */
	for (int c = 0; c < p->ncomms; c++)
		if (p->comms[c].aborted || p->comms[c].destroyed)
			return false;
	if (p->stage_file == e->file && p->stage_line > e->line)
		return true;
	/* later timeline lines of the same stage (the network chosen after a
	 * driver warning) */
	return p->known_file == e->file && p->known_line > e->line;
}

/* A warning of a thread that runs beside the one that carries on: its
 * failure shows later, in a collective, not as a stop where it is printed.
 * transport/net_ib.cc's ncclIbAsyncThreadMain ("NET/IB : Got async
 * event"), the proxy threads (proxy.cc: progress and service) and RAS
 * (ras/, 2.24+). The main thread going on says nothing of them. */
static bool side_thread(const struct nl_event *e)
{
	return strncmp(e->src, "proxy", 5) == 0 || strncmp(e->src, "ras/", 4) == 0 ||
	       (strstr(e->src, "net_ib") && strstr(e->text, "async"));
}

/* Every line of root row s is an NCCL warning (a source file in its
 * header) without an error back-trace, outlived by its process; a row
 * with lines not stored (more than NL_MAX_EVIDENCE) is not judged. */
static bool row_outlived(const struct ana *a, int s)
{
	const struct nccllog *lg = a->lg;
	if (lg->sigcount[s] > lg->sigstored[s])
		return false;
	int n = 0;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (e->sig != s)
			continue;
		if (!e->src[0] || e->code || side_thread(e) || !went_on_after(lg, e))
			return false;
		n++;
	}
	return n > 0;
}

void warn_went_on(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++) {
		if (!lg->sigcount[s] || a->sigs[s].role != NSR_ROOT || !row_outlived(a, (int)s))
			continue;
		if (a->sigs != a->sigtab) { /* this analysis's own copy of the table, changed */
			memcpy(a->sigtab, a->sigs, sizeof(a->sigtab[0]) * (a->nsigs < NL_MAX_SIGS ? a->nsigs : NL_MAX_SIGS));
			a->sigs = a->sigtab;
		}
		a->sigtab[s].role = NSR_CONTEXT;
		if (a->sigtab[s].weight > OUTLIVED_WEIGHT)
			a->sigtab[s].weight = OUTLIVED_WEIGHT;
		a->outlived[s] = true;
	}
}

void went_on_note(const struct ana *a, struct finding *f, int s)
{
	const struct nccllog *lg = a->lg;
	char lbl[96];
	if (!a->outlived[s])
		return;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (e->sig != s || f->nev >= 10)
			continue;
		const struct nl_proc *p = &lg->procs[e->proc];
		bool staged = p->stage_file == e->file && p->stage_line > e->line;
		finding_evidence(f, file_name(lg, e->file), (long)(staged ? p->stage_line : p->known_line),
				 "%s went on after line %llu (no error returned from it) to %s: NCCL fell back there; "
				 "not the failure that stopped the run",
				 proc_label(lg, e->proc, lbl, sizeof(lbl)), (unsigned long long)e->line,
				 staged ? p->stage_text : "later lines of its start-up");
	}
}
