/* One progress style on stderr for every long command (check, fix, p2p,
 * bench, logs, kernel, snapshot):
 *
 *     nccl-doctor COMMAND [ 12.3s] STAGE: what, 3/12 pairs, ETA 20 s
 *
 * a counter "i/n UNIT" and an ETA whenever the amount of work is known (the
 * pairs of a round, the trials of the fix search, the sizes of a bench
 * sweep, the bytes of a file read), none when it is not. Shown when stderr
 * is a terminal or --progress was given, never with --quiet; never on
 * stdout. Pure formatting plus a FILE*: no global state. */
#ifndef ND_UTIL_PROGRESS_H
#define ND_UTIL_PROGRESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct progress {
	FILE *out;           /* NULL: silent */
	const char *command; /* "check", "p2p", ... */
	double t0;           /* when the command started (nd_now_s) */
	/* the work counted now (progress_count): total 0 is unknown */
	const char *unit;    /* "pairs", "trials", "sizes", "bytes" */
	long long done, total;
	double t_count;      /* when the counting started: the ETA's base */
	double t_done;       /* when done last changed */
};

/* Whether progress is shown: never with quiet, else when asked (--progress)
 * or stderr is a terminal. */
bool progress_wanted(bool quiet, bool asked, bool tty);

/* p for COMMAND started at t0, printing on out when shown (NULL: silent). */
void progress_init(struct progress *p, const char *command, double t0, FILE *out);
/* Counts total UNIT from now (total 0: unknown, no counter, no ETA). */
void progress_count(struct progress *p, const char *unit, long long total, double now);
/* done of them are finished (now: the clock, for the ETA). */
void progress_done(struct progress *p, long long done);
/* No counter from now on. */
void progress_uncount(struct progress *p);

/* The line (no newline) into buf: "nccl-doctor COMMAND [ELAPSEDs] TEXT" and,
 * when total > 0, ", DONE/TOTAL UNIT" and, when 0 < done < total and some
 * time passed, ", ETA N s": the rest at the rate of the first done (they
 * took counting seconds), less the since seconds passed after the last one,
 * rounded up, at least 1 s; minutes past 120 s. Bytes are shown in MiB (KiB under 1 MiB in all).
 * Returns the length it would have. */
int progress_format(char *buf, size_t bufsz, const char *command, double elapsed, const char *text,
		    const char *unit, long long done, long long total, double counting, double since);

/* Prints one line on p->out (when shown): TEXT (printf) with the counter. */
void progress_say(const struct progress *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void progress_vsay(const struct progress *p, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
