/* The one ordered table of the NCCL log analysis's rules. nccllog_analyze()
 * runs it from the first entry to the last, then score.c ranks the causes.
 * The order is the analysis's reasoning: a rule reads what the rules above
 * it concluded (have_root, have_hang, the causes so far, a->failed), so an
 * entry that moves changes results. The phases name what each entry does;
 * they are not sorted yet (the order is the one the chain of calls this
 * table replaced had, and the results are byte-identical to it). */
#include "analyze/logs/rules/rules.h"
#include "analyze/nccllog_fr.h"
#include "analyze/nccllog_inspector.h"

/* Whether the run failed, from the signatures alone: a root failure, a
 * consequence or a hang marker; the rules below add to it. */
static void run_failed(struct ana *a)
{
	a->failed = a->have_any_root || a->have_secondary || a->have_hang;
}

static void flight_recorder(struct ana *a)
{
	fr_analysis(a, &a->failed);
}

static void inspector(struct ana *a)
{
	insp_analysis(a, &a->failed);
}

static const struct rule rules[] = {
	{ RULE_EVIDENCE, "signature-findings", signature_findings, "one finding per matched signature's finding id, with its lines" },
	{ RULE_EVIDENCE, "warn-failures", warn_failures, "an unknown NCCL warning with a failing back-trace is a failure of the class it names" },
	{ RULE_EVIDENCE, "signature-causes", signature_causes, "the causes of the matched signatures, root failures first" },
	{ RULE_ADJUST, "b9", b9_checks, "batch 9" },
	{ RULE_EVIDENCE, "model", model_checks, "model checks" },
	{ RULE_TIMELINE, "run-failed", run_failed, "the run failed: a root failure, a consequence or a hang marker" },
	{ RULE_EVIDENCE, "flight-recorder", flight_recorder, "PyTorch flight-recorder dumps: mismatched, late or stuck collectives" },
	{ RULE_EVIDENCE, "inspector", inspector, "NCCL Inspector dumps and ncclras counts: ranks behind, crossed or missing" },
	{ RULE_TIMELINE, "stages", stage_analysis, "where each rank stopped, missing ranks, and what a hang there means" },
	{ RULE_TIMELINE, "b56", b56_checks, "batch 5/6" },
	{ RULE_PRIORS, "known-warn-classes", known_warn_causes, "an NCCL warning of NCCL's own table without a back-trace: context for its class" },
	{ RULE_EVIDENCE, "peer-exited-cleanly", peer_exit_check, "a peer said dead whose own log ends with a clean destroy" },
	{ RULE_PRIORS, "result-code", result_code_priors, "a framework's NCCL error code with nothing more specific: the code's usual causes" },
	{ RULE_PRIORS, "remote-error", remote_error_priors, "ncclRemoteError with nothing more specific: the network beside a dead peer" },
	{ RULE_PRIORS, "b7", b7_checks, "batch 7" },
	{ RULE_PRIORS, "b8", b8_checks, "batch 8" },
	{ RULE_ADJUST, "b10", b10_checks, "batch 10" },
	{ RULE_PRIORS, "overrides", override_priors, "in a run that failed, a variable that replaces NCCL's own detection" },
};

const struct rule *logs_rules(size_t *n)
{
	*n = sizeof(rules) / sizeof(rules[0]);
	return rules;
}

void logs_rules_run(struct ana *a)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		rules[i].fn(a);
}

const char *rule_phase_name(enum rule_phase p)
{
	switch (p) {
	case RULE_EVIDENCE: return "evidence";
	case RULE_TIMELINE: return "timeline";
	case RULE_PRIORS: return "priors";
	case RULE_ADJUST: return "adjust";
	}
	return "?";
}
