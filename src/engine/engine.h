/* What every engine (src/engine/: the stage runner, the p2p scheduler, the
 * bench executor, the fix search, watch's supervisor) shares with the
 * commands above it: the global options a run was given and the exit
 * statuses. Engines do the active work (workers, rank processes, trials)
 * and fill a result; cmd/ parses options, picks what to run and renders. */
#ifndef ND_ENGINE_ENGINE_H
#define ND_ENGINE_ENGINE_H
#include "util/gpusel.h"

#include <stdbool.h>

enum {
	EXIT_HEALTHY = 0,
	EXIT_WARNINGS = 1,
	EXIT_PROBLEM = 2,
	EXIT_CANNOT_RUN = 3,
	EXIT_USAGE = 64,
};

/* Options every command accepts (DESIGN.md), parsed and validated once by
 * main.c and passed to the command; nothing reads them from a global. */
struct run_opts {
	bool json;           /* --json, --format json */
	bool markdown;       /* --format markdown, --md (report/markdown.c) */
	const char *html;    /* --html FILE of check, p2p, bench, merge (cmd.h CMD_OPT_HTML); NULL: none */
	bool color;          /* colour on: a TTY, no --no-color, no NO_COLOR */
	const char *sysroot; /* NULL: the live machine */
	struct gpusel gpus;  /* --gpus LIST; gpusel_all() when not given */
	double timeout;      /* --timeout SEC (finite, 0 < SEC <= 86400); 0 when not given */
	const char *nccl;    /* --nccl PATH */
	bool quiet;          /* --quiet: no progress lines on stderr (every command accepts it) */
	bool full;           /* --full: the whole text report, not the short one */
	bool progress;       /* --progress: progress lines on stderr also when it is no terminal (the long commands) */
	/* host integration (docs/fleet.md) */
	const char *node;    /* the node's name: --node-name, else the host name (sysroot's); "" unknown */
	bool reason_line;    /* --reason-line: print only the one-line reason (the drain reason) */
	int fail_on;         /* --fail-on: FAIL_ON_WARNING (the default) or FAIL_ON_ERROR */
	bool fail_on_given;  /* --fail-on was given (merge drains DEGRADED nodes only then) */
	int exit_style;      /* --exit-style: EXIT_STYLE_NAGIOS (the default) or EXIT_STYLE_NPD */
	/* extra outputs beside stdout's (cmd/common.c cmd_extra_outputs) */
	const char *prom;    /* --prom FILE: Prometheus textfile (report/prom.c), NULL none */
	const char *json_out; /* --json-out FILE: the JSON result beside stdout's report, NULL none */
	double started;      /* nd_now_s() when the process started: the run's duration */
};

enum { FAIL_ON_WARNING = 0, FAIL_ON_ERROR = 1 };
enum { EXIT_STYLE_NAGIOS = 0, EXIT_STYLE_NPD = 1 };

/* The exit status a run with these options ends with, from the Nagios
 * status the command returned (EXIT_*): --fail-on error turns 1 (warnings,
 * INCOMPLETE) into 0; --exit-style npd maps to node-problem-detector's
 * plugin statuses, 0 ok, 1 problem, 2 unknown (3 and 64 become 2). */
int exit_status_map(int code, int fail_on, int exit_style);

/* The deadline of one kind of GPU work: --timeout when given, else dflt
 * (one of the DEADLINE_* defaults of run/worker.h). */
double opt_deadline(const struct run_opts *opt, double dflt);

#endif
