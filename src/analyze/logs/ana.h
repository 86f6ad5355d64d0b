/* Private to the NCCL log analysis (analyze/logs/): the state of one
 * analysis, the cause table (noisy-or with evidence) and the helpers the
 * rules share.
 *   logs/analyze.c         nccllog_analyze(): the rules, then the result
 *   logs/rules/table.c     the one ordered table of the rules
 *   logs/rules/<domain>.c  the rules, one file per cause-class family
 *   logs/score.c           the cause table: the only code that changes it
 *   logs/helpers.c         the helpers the rules share */
#ifndef ND_ANALYZE_LOGS_ANA_H
#define ND_ANALYZE_LOGS_ANA_H
#include "analyze/nccllog.h"
#include "kb/nccl_signatures.h"
#include "model/result.h"

#include <stdbool.h>
#include <stdint.h>

#define MAX_CAUSE_EV 5
#define MAX_CAUSE_FIDS 8
#define MAX_CAUSES 32
#define ANA_TEXTS 8
#define MAX_SCORE_NOTES 32
#define MAX_CAUSE_FACTS 3

struct cause_ev {
	int file;
	uint64_t line;
	const char *text;
};

struct cause_acc {
	const char *cause;
	double conf;
	struct cause_ev ev[MAX_CAUSE_EV];
	int nev;
	const char *fids[MAX_CAUSE_FIDS];
	int nfids;
	const char *facts[MAX_CAUSE_FACTS]; /* the machine's facts (lg->host), shown after the first log line */
	int nfacts;
};

/* Why score.c capped or dropped a cause, in the order it happened: the
 * report prints each (analyze.c, score_reasons). */
struct score_note {
	const char *cause;
	const char *why;       /* a static text */
	double from, to;       /* confidence before and after */
	bool dropped;
};

/* One analysis. The cause table (causes, ncauses) is score.c's: the rules
 * read it (score_find, score_conf) and change it through score.c alone. */
struct ana {
	const struct nccllog *lg;
	struct result *r;
	const struct nccl_signature *sigs; /* the signature table, or sigtab once a rule changed a row */
	size_t nsigs;
	struct nccl_signature sigtab[NL_MAX_SIGS]; /* this log's copy (rules/went_on.c) */
	bool outlived[NL_MAX_SIGS]; /* a root row the processes outlived: context here */
	struct cause_acc causes[MAX_CAUSES];
	int ncauses;
	struct score_note notes[MAX_SCORE_NOTES];
	int nnotes;
	int notes_lost;        /* notes beyond MAX_SCORE_NOTES */
	bool have_root;        /* a root failure with weight >= 0.5 */
	bool have_any_root;
	bool have_secondary;
	bool have_hang;
	const struct nl_event *first; /* first root failure */
	bool failed;           /* the run failed or hung: set by the table's run-failed step, then by rules that see one; score_close() too */
	bool unknown;          /* no cause is evidenced, only priors (rules/unknown.c) */
	int unknown_stage;     /* then the stage the slowest process reached, -1 none */
	int launch_nodes;      /* the node count a launcher line names (rule launcher-nodes), 0 none */
	char texts[ANA_TEXTS][192]; /* evidence texts a rule composed (ana_text) */
	int ntexts;
};

/* A text composed by a rule, kept for the analysis (cause_evidence keeps
 * pointers); cut at 191 bytes; NULL once ANA_TEXTS are used. */
const char *ana_text(struct ana *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The name of input file `file`, NULL when out of range. */
const char *file_name(const struct nccllog *lg, int file);

/* ---- the cause table (score.c) ---------------------------------------- */

/* The entry of a cause class, added at 0 (evidence may come before its
 * weight); NULL when the table is full. */
struct cause_acc *cause_get(struct ana *a, const char *cause);
/* Adds weight w to a cause (noisy-or, at most 0.97) with the finding id id
 * as its reason (FID_COUNT: none); NULL when w <= 0 or the table is full.
 * The caller adds evidence to the entry returned. */
struct cause_acc *contribute(struct ana *a, const char *cause, double w, enum finding_id id);
/* Adds an evidence line to a cause (the first MAX_CAUSE_EV, no duplicates). */
void cause_evidence(struct cause_acc *c, int file, uint64_t line, const char *text);
/* The same, as the cause's first line (the last one goes when full; a
 * line already there moves up and takes this text): a rule that explains
 * a line another rule put there before it. */
void cause_evidence_first(struct cause_acc *c, int file, uint64_t line, const char *text);
/* Adds a fact of the machine the log came from (a text of lg->host) to a
 * cause's evidence (the first MAX_CAUSE_FACTS, no duplicates): kept apart
 * from the log's lines so that a cause with many lines still shows it. */
void cause_fact(struct cause_acc *c, const char *text);
/* The entry of a cause class, NULL when it has none (adds nothing). */
const struct cause_acc *score_find(const struct ana *a, const char *cause);
/* The confidence of a cause class so far, 0 when it has none. */
double score_conf(const struct ana *a, const char *cause);
/* The highest confidence of a cause class other than `unknown` so far. */
double score_best_known(const struct ana *a);
/* Lowers a cause to cap when it is above it, noting why. */
void score_cap(struct ana *a, const char *cause, double cap, const char *why);
/* Takes a cause out of the table, noting why. */
void score_drop(struct ana *a, const char *cause, const char *why);
/* Lists finding id fid (its name) among a cause's reasons, once. */
void score_link_finding(struct ana *a, const char *cause, const char *fid);
/* After every rule: a cause of 0.5 or more marks the run failed; a failed
 * run (or a result that is not healthy) with no cause gets `unknown`
 * (0.1); the causes are sorted best first and weak echoes of a strong one
 * go (below 0.1 when the first has 0.3 or more, else below 0.05). */
void score_close(struct ana *a);
/* Line e as evidence of finding f and of cause c (either may be NULL). */
void event_evidence(const struct ana *a, struct finding *f, struct cause_acc *c, const struct nl_event *e);
/* "rank 3 (host:pid)", or "host:pid" when the rank is unknown. */
const char *proc_label(const struct nccllog *lg, int pi, char *buf, size_t bufsz);
/* The stage a process reached (T0 once it printed any NCCL line), -1 none. */
int stage_of(const struct nl_proc *p);
/* Stage for the hang verdict: after Init COMPLETE, a rank whose transports
 * were connected during init (NCCL < 2.22, NCCL_RUNTIME_CONNECT=0) has
 * nothing left to connect, so a hang there is in the data path (T10). */
int hang_stage(const struct nl_proc *p);
/* "T5", "-" for none. */
const char *stage_code(int s, char *buf, size_t bufsz);
/* Who logged an event: its process, else the launcher's rank prefix. */
const char *event_label(const struct nccllog *lg, const struct nl_event *e, char *buf, size_t bufsz);
/* Earlier of two events: NCCL timestamps when both have one, else order
 * within one file, else reading order. */
bool event_before(const struct nl_event *x, const struct nl_event *y);
/* How many processes matched signature row sig. */
int procs_with_sig(const struct nccllog *lg, int sig);
/* How many lines matched the signature with this id. */
uint32_t count_of(const struct ana *a, const char *id);
/* The first line that matched the signature with this id, NULL when none. */
const struct nl_event *first_of(const struct ana *a, const char *id);
/* The NCCL variable name as process p's log printed it ("NAME set by
 * environment to VALUE"), NULL when it did not. */
const struct nl_env *proc_env(const struct nl_proc *p, const char *name);
/* The first process's setting of variable name with a value, NULL when none. */
const struct nl_env *log_env(const struct nccllog *lg, const char *name);
/* A setting v that explains finding f: "NAME=VALUE why" as f's evidence and
 * as the first evidence line of cause. */
void env_explains(struct ana *a, struct finding *f, const char *cause, const struct nl_env *v, const char *why);
/* A process that logged a failure of its own (root or consequence). */
bool proc_failed(const struct ana *a, const struct nl_proc *p);
/* The finding fid of r, added (with the catalog's fix) when not there yet. */
struct finding *finding_for(struct result *r, enum finding_id fid, enum severity sev, const char *title);

/* finding_for with the next step of the table row that named the line's
 * class (next), else the class's own (kb/causes.h next). */
struct finding *finding_for_class(struct result *r, enum finding_id fid, enum severity sev, const char *title,
				  const char *cls, const char *next);
/* The row of NCCL's own message table (kb/nccl_warns.h) a warning no
 * signature knows matched, NULL when none. */
const struct nccl_warn *known_warn(const struct nl_event *e);
/* The run failed by what the signatures say: a root failure, a
 * consequence or a hang marker. */
bool run_failed(const struct ana *a);
/* "eth0" of "eth0:10.0.0.1<0>" into out. */
void if_name(const char *ifaddr, char *out, size_t outsz);
/* "10.0.0.1" of "eth0:10.0.0.1<0>" (IPv6: everything up to '<' or '%'). */
void if_addr(const char *ifaddr, char *out, size_t outsz);
/* A text field of the processes (at offset off of struct nl_proc) that
 * differs between two hosts: finding fid names both hosts and values (what:
 * the field's name; name_only: interface names only), and in a run that
 * failed it adds w to cause, with evidence text evtext. */
void compare_field(struct ana *a, size_t off, bool name_only, enum finding_id fid, const char *what, const char *cause,
		   double w, const char *evtext);
/* Whether some process printed NCCL lines and stopped before Init
 * COMPLETE (T9). */
bool init_unfinished(const struct nccllog *lg);
/* Whether every process of the log runs on one host (true with none). */
bool one_host(const struct nccllog *lg);
/* Replaces f's title by prefix + the old title, once. */
void title_prefix(struct finding *f, const char *prefix);
/* A variable that changes how NCCL cuts data into messages (NCCL_PROTO,
 * NCCL_ALGO, buffer/chunk/thread/channel counts) with different values in
 * two processes: process *pi's entry, the other's value ("not set") in
 * *other, its process in *pj; NULL when none. */
const struct nl_env *shaping_env_differs(const struct nccllog *lg, const char **other, int *pi, int *pj);

#endif
