/* Typed members of the result model for a run read from logs: the ranked
 * cause classes with their confidence and evidence, and one row per process
 * (rank) with what its log says. `logs` fills them (analyze/nccllog*.c);
 * report/ renders them, as tables in text and as the top-level `causes` and
 * `ranks` arrays in JSON (docs/json.md). Nothing here prints. */
#ifndef ND_MODEL_RUNS_H
#define ND_MODEL_RUNS_H
#include <stdbool.h>
#include <stddef.h>

struct evidence;

/* One cause class and why it is suspected. */
struct cause {
	char *cause;          /* a cause class of DESIGN.md */
	double confidence;    /* 0..1 */
	struct evidence *ev;  /* log lines, best first */
	size_t nev, aev;
	char **finding_ids;   /* findings that point at it */
	size_t nfids, afids;
};

/* The ranked causes of a run, best first. */
struct cause_list {
	bool failed;          /* the run failed: the first cause is the likely one */
	bool unknown;         /* but no cause is evidenced: the list holds candidates to rule out, not a verdict */
	struct cause *v;
	size_t n, a;
	/* the first root failure in time, when there is one */
	bool have_first;
	char *first_file;
	long first_line;
	char *first_label;    /* e.g. "rank 0 (host0:501)" */
	char *first_text;
};

struct rank_transport {
	int peer;
	char *kind;           /* P2P, SHM, NET ... */
	int channels;
};

struct rank_event {
	char *signature;      /* log signature id, e.g. S53 */
	char *finding_id;
	char *file;
	long line;
	char *text;
	char *chain;          /* back-trace lines; may be NULL */
	int nccl_result;      /* 0 when not known */
};

struct rank_comm {
	char *comm;           /* communicator pointer as logged */
	char *comm_id;        /* may be NULL */
	int rank, nranks;     /* -1 / 0 when not known */
	char *stage;          /* stage code, e.g. T9 */
	bool complete, destroyed;
};

struct rank_env {
	char *name, *value;
};

/* One process of the run. Strings may be NULL (unknown) unless noted. */
struct rank {
	char *host;           /* never NULL */
	long pid;
	int rank;             /* -1 unknown */
	int nranks;           /* 0 unknown */
	bool rank_of_comm;    /* rank and nranks come from its communicator */
	int cuda_dev;         /* -1 unknown */
	int nvml_dev;         /* -1 unknown */
	char *bus_id;
	char *comm_id;
	char *nccl_version;
	long cuda_driver;     /* 0 unknown */
	char *bootstrap_if;
	char *network;
	char *stage;          /* stage code, never NULL */
	char *stage_name;     /* never NULL */
	bool init_complete;
	char *verdict;        /* "ok", "failed: ...", "stuck ..." (never NULL) */
	double init_seconds;  /* < 0 unknown */
	int warnings;
	struct rank_transport *tr;
	size_t ntr, atr;
	struct rank_env *env;
	size_t nenv, aenv;
	struct rank_event *ev;
	size_t nev, aev;
	struct rank_comm *comms;
	size_t ncomms, acomms;
	char *last_file;      /* the process's last NCCL line */
	long last_line;
	char *last_text;
};

struct rank_list {
	struct rank *v;
	size_t n, a;
};

/* The one ranking formula of causes, for every command that ranks them
 * (logs' cause table, check's verdict). Each piece of evidence of weight w
 * in (0, 1) for a cause leaves it unexplained with probability 1 - w,
 * independently of the others (noisy-or): confidence 1 - (1 - c)(1 - w),
 * at most CAUSE_CONF_MAX (evidence never makes a cause certain). Causes
 * rank by confidence, the highest first; equal ones by name, so the order
 * does not depend on the order the evidence came in. A confidence is shown
 * to two decimals. */
#define CAUSE_CONF_MAX 0.97
/* conf with one more piece of weight w (w <= 0: conf unchanged, and never
 * more than CAUSE_CONF_MAX). */
double cause_conf_add(double conf, double w);
/* qsort-style: < 0 when cause a (confidence ca) ranks before b. */
int cause_rank_cmp(double ca, const char *a, double cb, const char *b);
/* The confidence as shown and stored in a cause list: at most
 * CAUSE_CONF_MAX, rounded to two decimals. */
double cause_conf_shown(double conf);

/* Appends a cause; the list copies the strings. */
struct cause *cause_list_add(struct cause_list *l, const char *cause, double confidence);
void cause_add_evidence(struct cause *c, const char *file, long line, const char *text);
/* The same, saying where the evidence came from (source: a static word,
 * "log", "machine" or "analysis", of a verdict that joins a log with the
 * machine's facts; the report shows it). */
void cause_add_evidence_from(struct cause *c, const char *source, const char *file, long line, const char *text);
void cause_add_finding(struct cause *c, const char *id);
void cause_list_set_first(struct cause_list *l, const char *file, long line, const char *label, const char *text);
void cause_list_release(struct cause_list *l);

/* Appends a zeroed rank (ints that mean "unknown" set to -1 / 0). */
struct rank *rank_list_add(struct rank_list *l);
void rank_add_transport(struct rank *k, int peer, const char *kind, int channels);
void rank_add_env(struct rank *k, const char *name, const char *value);
struct rank_event *rank_add_event(struct rank *k);
struct rank_comm *rank_add_comm(struct rank *k);
void rank_list_release(struct rank_list *l);

#endif
