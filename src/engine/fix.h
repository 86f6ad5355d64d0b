/* The configuration search of `fix` (engine/), run by cmd/fix.c (the
 * command), cmd/check.c (its bench stage, then the search when something
 * failed or is slow) and watch --retry-with-fix. fix_search.c runs the trials: each candidate configuration of
 * analyze/fix_candidates as real rank processes (bench_execute: all_reduce
 * float sum at 8 B, 1 MiB, 64 MiB, 256 MiB, one process per GPU, init and
 * per-collective deadlines), or the user's own command (--command); a GPU
 * left busy with no process after a timed-out trial is wedged and voids the
 * later trials. fix_report.c turns the trials into the table people fill by
 * hand, the recommendation with its cost against a healthy machine, the
 * forms to paste (analyze/fix_emit) and the permanent fixes. */
#ifndef ND_ENGINE_FIX_H
#define ND_ENGINE_FIX_H
#include "analyze/fix_candidates.h"
#include "analyze/fix_emit.h"
#include "analyze/user_env.h"
#include "engine/stages.h"

#include <stdbool.h>
#include <stdint.h>

#define FIX_MAX_TRIALS (FIXC_MAX + 4)
#define FIX_TRIAL_HITS 4   /* the user's variables a trial's NCCL output implicates, kept */
/* A trial that works is slow below this share of what its configuration is
 * expected to keep of a healthy machine (busbw at 64/256 MiB; PCIe rings
 * often carry 0.6-0.8 of one P2P link, and 64 MiB is not yet the peak) */
#define FIX_SLOW_SHARE 0.4

enum trial_state {
	TRIAL_NOT_TRIED,      /* not reached */
	TRIAL_FASTER_WORKS,   /* not tried: a faster one works */
	TRIAL_VOID_WEDGED,    /* not tried: a GPU is wedged */
	TRIAL_NO_BUDGET,      /* not tried: the budget is spent */
	TRIAL_OK,
	TRIAL_HANG,           /* a deadline ended it (init or a collective; --command: timed out) */
	TRIAL_ERROR,          /* NCCL/CUDA error; --command: non-zero exit */
	TRIAL_WRONG,          /* results differed from the expected values */
	TRIAL_CUT,            /* still within each phase's deadline when the trial's time (the budget) ran out:
			       * not finished, which shows nothing against the configuration */
};

struct fix_trial {
	struct fix_candidate cand;
	enum trial_state state;
	char init[96];        /* "ok", "HANG (bootstrap ...)", "ERROR", "-" */
	double init_s;        /* slowest rank's init, -1 unknown */
	char result[160];     /* "OK", "HANG at size 1048576 ...", "ERROR: ...", "exit 1" */
	char detail[256];     /* the last NCCL line of the failing rank, or the command's last output line */
	char transports[256]; /* rank 0's, from NCCL's lines */
	double bw[3];         /* busbw GB/s at 1 MiB, 64 MiB, 256 MiB (1 rank: algbw); -1 not measured */
	double lat8_us;       /* 8 B time, µs; -1 */
	double secs;
	int exit_code;        /* --command */
	bool shm_evidence;    /* NCCL said it could not create or extend /dev/shm */
	bool bootstrap_evidence; /* it stopped in bootstrap */
	bool slow;            /* OK but well below what it is expected to keep */
	struct uenv_hit hits[FIX_TRIAL_HITS]; /* the user's variables NCCL's output implicates (analyze/user_env) */
	int nhits;
	/* a failed trial that implicates none of them: what the log analysis
	 * (analyze/nccllog.h, as `logs` reads) makes of its NCCL output */
	char log_cause[40];   /* its first cause class, "" none or unknown */
	double log_conf;
	char log_evidence[200]; /* that cause's first evidence line */
};

/* Evidence from outside the stages for the candidates (watch
 * --retry-with-fix: the cause classes of a stall's diagnosis). */
struct fix_seed {
	bool shm_small, nvls, cumem, bootstrap;
};

struct fix_search {
	struct stages *st;
	struct fix_seed seed;     /* added to what the stages found */
	char *const *command;     /* --command argv, or NULL: our all_reduce */
	bool all;                 /* try every candidate (no early stop) */
	bool quiet;
	double budget;            /* seconds for all trials */
	uint64_t max_bytes;       /* largest all_reduce size (default 256 MiB) */
	int dev[FIXC_MAX_GPUS];   /* CUDA ordinals (= NVML index) of the GPUs tried */
	int pos[FIXC_MAX_GPUS];   /* their positions in st->p2p */
	int ndev;
	char skipped_busy[256];   /* GPUs left out: "1 (1 compute process ...)" */
	bool incomplete;          /* GPUs left out, wedged, or trials not run for the budget */
	struct fixc_input in;
	struct fix_trial t[FIX_MAX_TRIALS];
	int n;
	int winner;               /* -1 none */
	double healthy;           /* expected busbw of a healthy machine of this topology, GB/s; 0 unknown */
	bool wedged[FIXC_MAX_GPUS];
	char wedged_after[FIXC_MAX_GPUS][80];
	char why_not[256];        /* the search could not run: why */
	double secs;
	/* the user's NCCL_* and CUDA_* variables (uenv_suspectable) of the
	 * environment the trials inherit: fixc_input's names point here */
	char uvar_name[FIXC_MAX_USER][64];
	const char *uvar_value[FIXC_MAX_USER];
	int nuvars;
};

/* Fills fs from the stages (GPUs, pairs, host facts) and runs the trials;
 * given: a trial of "as given" already run (check's bench stage), or NULL. */
void fix_search_run(struct fix_search *fs, const struct fix_trial *given);
/* The fix stage's one-line result: why nothing was tried, the winner, "no
 * trial finished within the budget" (every trial that ran was cut short:
 * slow, not broken) or "nothing worked". */
const char *fix_search_outcome(const struct fix_search *fs);
/* NCCL works as given while direct copies hang: the GPU pairs (unordered)
 * whose copies broke when the winner is "as given", else 0; *npairs: the
 * pairs tested (may be NULL). */
int fix_copies_hang(const struct fix_search *fs, int *npairs);
/* What to say of it, in one line (the headlines of check and fix). */
#define FIX_COPIES_HANG_TEXT "NCCL works as given, but direct GPU-to-GPU copies hang on %d of %d GPU pairs: turn off " \
	"what uses them (vLLM or SGLang: --disable-custom-all-reduce; CUDA IPC, cudaMemcpyPeer) or clear ACS (the permanent fixes)"
/* One trial of our all_reduce with c's environment on fs's GPUs (check's
 * bench stage runs "as given" this way); deadline: seconds for all of it. */
void fix_trial_bench(struct fix_search *fs, struct fix_trial *t, double deadline);
/* Prepares fs (GPUs to use, fixc input, healthy busbw) without trials;
 * returns 0, or -1 with why_not set. */
int fix_search_prepare(struct fix_search *fs);
/* A trial that worked although NCCL could not use a variable the user set
 * (a hit that is not fatal): a warning in r. */
void fix_trial_ignored_vars(const struct fix_trial *t, struct result *r);
/* The first hit of t that NCCL fails with, or NULL. */
const struct uenv_hit *fix_trial_fatal_hit(const struct fix_trial *t);
/* The measure trials are compared by: mean busbw at 64 and 256 MiB (those
 * measured), else at 1 MiB; -1 when none. */
double fix_trial_measure(const struct fix_trial *t);

/* fix_report.c: the table, the recommendation and its forms, permanent
 * fixes (from r's findings), into r; forms: which to show (mask of 1 <<
 * enum fix_form). Returns fix's exit status: 0 the configuration as given
 * works and is fast, 1 another one (or as given is slow), 2 none works, 3
 * could not run. */
int fix_report(struct fix_search *fs, struct result *r, unsigned forms, const char *section_key);
/* The recommendation as an env-file text (--write-env); 0 or -errno. */
int fix_plan_of(const struct fix_search *fs, const struct result *r, struct fix_plan *plan);

/* ---- fix as a whole (engine/fix_session.c), for `fix` and `watch --retry-with-fix` ---- */
struct fix_opts {
	double budget;
	bool budget_set;        /* --budget was given */
	bool force, quiet, progress, progress_set, driver, all;
	const char *write_env;
	int form;               /* -1 all */
	uint64_t max_bytes;
	char **command;
};

/* fix's defaults: budget 180 s, 256 MiB, every form. */
void fix_opts_init(struct fix_opts *o);
/* One run of fix: the stages (sys, topo, p2p --quick), the search, the
 * report. Heap-allocated by fix_session_run, freed by fix_session_free. */
struct fix_session {
	struct stages st;
	struct fix_search fs;
	struct result *r;       /* fix's report */
	int code;               /* fix's exit status (fix_report) */
	const char *verdict;    /* the vocabulary (model/result.h): HEALTHY, DEGRADED, BROKEN, INCOMPLETE, NOTHING TO CHECK */
	const char *outcome;    /* the search's: "FIX FOUND", "WORKS AS GIVEN", ... (JSON "search_outcome") */
	bool incomplete;        /* GPUs skipped or trials not run */
	bool no_gpu;            /* neither a GPU nor a driver here: r holds the error */
	size_t stage_findings;  /* r's findings before the search added its own */
};

/* Runs fix with o's options on opt's GPUs (opt->gpus), seeded with seed
 * (NULL: none), the forms of form_mask in the report; NULL only when out of
 * memory. The headline and verdict are set; --write-env is the caller's. */
struct fix_session *fix_session_run(const struct fix_opts *o, const struct run_opts *opt, const struct fix_seed *seed,
				    unsigned form_mask);
void fix_session_free(struct fix_session *s);

#endif
