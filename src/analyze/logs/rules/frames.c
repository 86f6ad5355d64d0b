/* NCCL log analysis, stack frames (the timeline phase, after the stages of
 * NCCL's own lines): a process dumped while it waited (py-spy, gdb) or a
 * crash back-trace names the functions it was in. The most specific stage
 * their names belong to (kb/nccl_frames.h) says where it stopped; with no
 * root failure in the log, the causes of that stage are its candidates.
 * A stack in a log is itself a sign the run failed or hung: nobody dumps a
 * process that finished. Beside NCCL lines that show the stages the stack
 * counts half: it is a second view of the same stop. */
#include "analyze/logs/inputs/frames.h"
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"

#include <stdio.h>

void stack_frames(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_frames *fr = nl_frames_get(lg);
	if (!fr)
		return;
	int best = -1;
	for (int k = NFK_COUNT - 1; k > NFK_BACKGROUND && best < 0; k--)
		if (fr->count[k])
			best = k;
	if (best < 0)
		return;
	const struct nl_frame_hit *h0 = &fr->hits[best][0];
	char title[160];
	snprintf(title, sizeof(title), "a stack shows a process in %s (%s)", nccl_frame_kind_name((enum nccl_frame_kind)best),
		 h0->row->name);
	/* the stage's own advice first (the first screen's "Next"), the
	 * catalog's (dump every rank, NCCL_DEBUG) after it */
	struct finding *f = finding_add(a->r, FID_LOG_STACK_STAGE, SEV_ERROR, "%s", title);
	finding_fix(f, "note", NULL, "%s", nccl_frame_kind_fix((enum nccl_frame_kind)best));
	finding_fix(f, "note", NULL, "%s", kb_finding_def(FID_LOG_STACK_STAGE)->fix);
	finding_evidence(f, NULL, 0, "%s", nccl_frame_kind_meaning((enum nccl_frame_kind)best));
	for (int k = NFK_COUNT - 1; k > NFK_BACKGROUND; k--)
		for (uint32_t i = 0; i < fr->count[k] && i < NL_FRAMES_PER_KIND && (k == best || i < 1); i++)
			finding_evidence(f, file_name(lg, fr->hits[k][i].file), (long)fr->hits[k][i].line, "%s (%s, %s)",
					 fr->hits[k][i].text, nccl_frame_kind_name((enum nccl_frame_kind)k),
					 fr->hits[k][i].row->source);
	a->failed = true;
	if (a->have_any_root)
		return;
	/* a Python collective or communicator creation in the traceback of an
	 * NCCL error the framework raised: the error's own priors speak, the
	 * frames only say where it was raised */
	if (best == NFK_PY_COLLECTIVE || best == NFK_INIT)
		for (size_t i = 0; i < lg->nev; i++)
			if (a->sigs[lg->ev[i].sig].fid == FID_LOG_NCCL_ERROR)
				return;
	/* NCCL's own lines already told where the processes stopped (the
	 * stages rule weighed it): the stack is a second view of the same
	 * stop, not independent evidence, and counts half */
	double scale = 1.0;
	for (int i = 0; i < lg->nprocs; i++)
		if (nl_proc_stage(&lg->procs[i]) >= 0)
			scale = 0.5;
	for (const struct nccl_frame_cause *c = nccl_frame_causes((enum nccl_frame_kind)best); c->cause; c++) {
		struct cause_acc *acc = contribute(a, c->cause, c->w * scale, FID_LOG_STACK_STAGE);
		for (uint32_t i = 0; i < fr->count[best] && i < NL_FRAMES_PER_KIND; i++)
			cause_evidence(acc, fr->hits[best][i].file, fr->hits[best][i].line, fr->hits[best][i].text);
	}
}
