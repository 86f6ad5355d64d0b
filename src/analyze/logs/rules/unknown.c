/* NCCL log analysis, honest unknowns (the last rule of the adjust phase):
 * a run that failed or stopped where no line of the log says why (no root
 * failure, no consequence, no cause stronger than the priors of where it
 * stopped) has no evidenced cause. The report says so, and what to collect
 * next for the stage the log reached (kb nccl_stage_collect); the priors
 * stay listed in their order, as candidates to rule out, not as a verdict
 * (analyze.c words the headline and the cause list from a->unknown). */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

#include <string.h>

void honest_unknown(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (!a->failed || a->have_any_root || a->have_secondary)
		return;
	if (score_best_known(a) >= PRIORS_ONLY)
		return;
	/* the stage the slowest process reached: what to collect is that stage's */
	int stage = -1;
	for (int i = 0; i < lg->nprocs; i++) {
		int s = hang_stage(&lg->procs[i]);
		if (s >= 0 && (stage < 0 || s < stage))
			stage = s;
	}
	char sc[16];
	struct finding *f = finding_for(a->r, FID_LOG_CAUSE_UNKNOWN, SEV_WARNING,
					"the log says where the run stopped, not why");
	if (stage >= 0)
		finding_evidence(f, NULL, 0, "the slowest process stopped at %s (%s): %s", stage_code(stage, sc, sizeof(sc)),
				 nccl_stage_name(stage), nccl_stage_hang_meaning(stage));
	else
		finding_evidence(f, NULL, 0, "%s", nccl_stage_hang_meaning(-1));
	finding_evidence(f, NULL, 0, "no error, no failed transport, no line a rule knows: the causes listed are where runs "
				     "that stop there usually fail, candidates to rule out");
	finding_evidence(f, NULL, 0, "collect next: %s", nccl_stage_collect(stage));
	a->unknown = true;
	a->unknown_stage = stage;
}
