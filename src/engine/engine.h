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
	bool color;          /* colour on: a TTY, no --no-color, no NO_COLOR */
	const char *sysroot; /* NULL: the live machine */
	struct gpusel gpus;  /* --gpus LIST; gpusel_all() when not given */
	double timeout;      /* --timeout SEC (finite, 0 < SEC <= 86400); 0 when not given */
	const char *nccl;    /* --nccl PATH */
	bool quiet;          /* --quiet: no progress lines on stderr (every command accepts it) */
	bool full;           /* --full: the whole text report, not the short one */
	bool progress;       /* --progress: progress lines on stderr also when it is no terminal (the long commands) */
};

/* The deadline of one kind of GPU work: --timeout when given, else dflt
 * (one of the DEADLINE_* defaults of run/worker.h). */
double opt_deadline(const struct run_opts *opt, double dflt);

#endif
