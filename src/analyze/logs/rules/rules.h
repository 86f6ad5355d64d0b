/* The rules of the NCCL log analysis, each a function of the analysis
 * state (logs/ana.h), and the one ordered table that runs them
 * (rules/table.c). */
#ifndef ND_ANALYZE_LOGS_RULES_H
#define ND_ANALYZE_LOGS_RULES_H
#include "analyze/logs/ana.h"

#include <stddef.h>

/* What a rule does (the table's phases, DESIGN.md):
 *   RULE_EVIDENCE  findings and causes of what the lines say
 *   RULE_TIMELINE  where each rank stopped, missing ranks, hangs; whether the run failed
 *   RULE_PRIORS    weak candidates of a run that failed with nothing specific
 *   RULE_ADJUST    a rule that revises what earlier rules concluded */
enum rule_phase { RULE_EVIDENCE, RULE_TIMELINE, RULE_PRIORS, RULE_ADJUST };

struct rule {
	enum rule_phase phase;
	const char *id;          /* stable, lower-case words joined by '-' */
	void (*fn)(struct ana *a);
	const char *what;        /* one line */
};

/* The rules in the order they run. */
const struct rule *logs_rules(size_t *n);
/* Runs every rule of the table on a, in order. */
void logs_rules_run(struct ana *a);
/* "evidence", "timeline", "priors", "adjust". */
const char *rule_phase_name(enum rule_phase p);

/* ---- the rules, by file ---------------------------------------------- */

/* nccllog_analyze.c */
void signature_findings(struct ana *a);
void warn_failures(struct ana *a);
void signature_causes(struct ana *a);
void known_warn_causes(struct ana *a);
void result_code_priors(struct ana *a);
void remote_error_priors(struct ana *a);
void override_priors(struct ana *a);

/* nccllog_checks.c */
void model_checks(struct ana *a);
void stage_analysis(struct ana *a);
/* nccllog_compare.c */
void compare_hosts(struct ana *a);
/* nccllog_watchdog.c: a PyTorch watchdog timeout with no NCCL line and
 * no failure anywhere (a collective hang the log cannot explain): the
 * candidates, ordered by what the watchdog line says. */
void bare_collective_timeout(struct ana *a);
void b56_checks(struct ana *a);
void b7_checks(struct ana *a);
void b8_checks(struct ana *a);
void b9_checks(struct ana *a);
void b10_checks(struct ana *a);
void peer_exit_check(struct ana *a);

#endif
