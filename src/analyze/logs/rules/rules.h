/* The rules of the NCCL log analysis, each a function of the analysis
 * state (logs/ana.h), and the one ordered table that runs them
 * (rules/table.c). */
#ifndef ND_ANALYZE_LOGS_RULES_H
#define ND_ANALYZE_LOGS_RULES_H
#include "analyze/logs/ana.h"

#include <stdbool.h>
#include <stddef.h>

/* What a rule does (the table's phases, DESIGN.md; rules/table.c says
 * more), in the order they run:
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
/* Whether the phases of r[0..n) never go back (evidence, timeline,
 * priors, adjust). */
bool logs_rules_in_phase_order(const struct rule *r, size_t n);
/* Runs every rule of the table on a, in order (asserts the phase order). */
void logs_rules_run(struct ana *a);
/* "evidence", "timeline", "priors", "adjust". */
const char *rule_phase_name(enum rule_phase p);

/* The most a prior of where a run stopped gives a cause (timeline.c: 0.5
 * scaled by 0.4 without a hang marker, the bare-watchdog candidates up to
 * 0.3 carry their own advice): below it, nothing but priors (unknown.c's
 * honest unknown, app.c's program exception). */
#define PRIORS_ONLY 0.25

/* ---- the rules, by file ---------------------------------------------- */

/* went_on.c: a root row whose every line its process outlived becomes
 * context in a->sigs (a->outlived); went_on_note() says so in finding f */
void warn_went_on(struct ana *a);
void went_on_note(const struct ana *a, struct finding *f, int s);
/* signatures.c */
void signature_findings(struct ana *a);
void warn_failures(struct ana *a);
void signature_causes(struct ana *a);
/* app.c */
void failed_or_timed_out_echo(struct ana *a);
void program_exception(struct ana *a);
void check_watchdog(struct ana *a);
void peer_exit_check(struct ana *a);
void tests_exit_code(struct ana *a);
/* bootstrap.c */
/* whether process p is one of several hosts (a launcher line naming several
 * nodes counts: launcher_nodes) */
bool multi_host(const struct ana *a, const struct nl_proc *p);
void launcher_nodes(struct ana *a);
void store_barrier_count(struct ana *a);
void bootstrap_peer_closed(struct ana *a);
void bootstrap_orphan_trail(struct ana *a);
void check_bootstrap_if(struct ana *a);
void socket_ifname_unmatched(struct ana *a);
void bootstrap_if_differs(struct ana *a);
void socket_if_differs(struct ana *a);
void duplicate_hostname(struct ana *a);
void bootstrap_addr(struct ana *a);
void virt_ifs(struct ana *a);
void internal_error_218(struct ana *a);
/* config.c */
void check_duplicate_gpu(struct ana *a);
void check_device_order(struct ana *a);
void check_env(struct ana *a);
void buffsize_extreme(struct ana *a);
void net_not_found_ib_disabled(struct ana *a);
void ll128_wrong_data(struct ana *a);
void transport_size_mismatch(struct ana *a);
void topo_file(struct ana *a);
void override_priors(struct ana *a);
void slow_topo_file(struct ana *a);
/* framework.c */
void framework_errors(struct ana *a);
/* The specific hand-written signature (NS_TEXT, a failure) that also
 * matches text, NULL none. */
const struct nccl_signature *framework_line_signature(const char *text);
/* fabric.c */
void nvls_stop(struct ana *a);
void nvls_candidate(struct ana *a);
/* container.c */
void container_hostnames(struct ana *a);
/* frames.c: a->failed set when a stack names a stage */
void stack_frames(struct ana *a);
/* flight_recorder.c: a->failed set when the dumps show a stuck collective */
void flight_recorder_dumps(struct ana *a);
/* inspector.c: a->failed set when the counts show ranks that stopped or disagree */
void inspector_counts(struct ana *a);
/* ib.c */
void memlock_small(struct ana *a);
void reg_mr_no_memory(struct ana *a);
void compare_net(struct ana *a);
void compare_gdr(struct ana *a);
void net_plugin_differs(struct ana *a);
void ib_hcas_differ(struct ana *a);
void ib_wanted_none(struct ana *a);
void ipoib_fallback(struct ana *a);
void text_channels(struct ana *a);
void gdr_disabled(struct ana *a);
/* p2p.c */
void topo_matrix(struct ana *a);
void tests_no_result(struct ana *a);
void tests_wrong_rows(struct ana *a);
/* priors.c */
void known_warn_causes(struct ana *a);
void result_code_priors(struct ana *a);
void remote_error_priors(struct ana *a);
void remote_error_no_transport(struct ana *a);
void transport_switches(struct ana *a);
/* Whether the word before position q of line t puts q in a command's
 * environment (a prompt, another assignment, export, env, mpirun's -x). */
bool command_position(const char *t, const char *q);
/* Whether variable var is set to 1 for the run (NCCL's "set by environment"
 * line of a process, or a command line of the paste). */
bool var_set_to_1(const struct ana *a, const char *var);
/* host.c */
void host_facts(struct ana *a);
/* unknown.c: a->unknown set when only priors point anywhere */
void honest_unknown(struct ana *a);
/* shm.c */
void shm_name_garbled(struct ana *a);
void shm_size_small(struct ana *a);
void lib_load_sigbus(struct ana *a);
/* timeline.c */
void stage_analysis(struct ana *a);
void single_rank_bootstrap(struct ana *a);
void one_host_bootstrap_stop(struct ana *a);
/* versions.c */
void check_versions(struct ana *a);
void check_drivers(struct ana *a);
void check_vllm_nccl(struct ana *a);
void check_bootstrap_truncated(struct ana *a);
void libnccl_several(struct ana *a);
void nic_not_pci(struct ana *a);
void sm120_old_nccl(struct ana *a);
void ada_p2p_old_driver(struct ana *a);
void cuda_driver_minimum(struct ana *a);
/* known_bugs.c */
void known_nccl_bugs(struct ana *a);
void nccl_release_age(struct ana *a);

#endif
