/* fix as a whole (engine/fix.h): the stages (sys, topo, p2p --quick), the
 * search and its report into one result, for `fix` (cmd/fix.c) and watch
 * --retry-with-fix. */
#include "analyze/sys.h"
#include "engine/fix.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fix_opts_init(struct fix_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->budget = 180;
	o->form = -1;
	o->max_bytes = 256ULL << 20;
}

/* The search's outcome: fix's word before the one vocabulary, kept in JSON
 * as "search_outcome" */
static const char *outcome_word(int code, bool incomplete)
{
	return code == EXIT_HEALTHY ? (incomplete ? "INCOMPLETE" : "WORKS AS GIVEN")
	       : code == EXIT_WARNINGS ? (incomplete ? "FIX FOUND (INCOMPLETE)" : "FIX FOUND")
	       : code == EXIT_PROBLEM ? "NOTHING WORKS" : incomplete ? "INCOMPLETE" : "COULD NOT RUN";
}

/* fix's verdict in the vocabulary of every command (model/result.h), on the
 * configuration as given as check's: BROKEN when nothing works (exit 2) or
 * as given fails with an error where another configuration works (exit 1:
 * the search found a fix), INCOMPLETE when GPUs were skipped, trials not run
 * or the search could not run, DEGRADED when as given is slow or works with
 * warnings only (exit 1), HEALTHY when it works as given (exit 0) */
static const char *verdict_word(int code, bool incomplete, const struct result *r)
{
	if (code == EXIT_PROBLEM || (code == EXIT_WARNINGS && result_exit_code(r) >= EXIT_PROBLEM))
		return RESULT_BROKEN;
	if (incomplete || code == EXIT_CANNOT_RUN)
		return RESULT_INCOMPLETE;
	return code == EXIT_WARNINGS ? RESULT_DEGRADED : RESULT_HEALTHY;
}

/* The search's outcome in words, after the verdict: "search: X works (fix
 * found)", "search: works as given", "search: nothing worked", ... */
static void search_line(char *buf, size_t bufsz, const struct fix_session *x)
{
	const struct fix_search *fs = &x->fs;
	const char *inc = x->incomplete ? ", incomplete" : "";
	if (fs->why_not[0])
		snprintf(buf, bufsz, "search: could not run (%.200s)", fs->why_not);
	else if (fs->winner == 0 && x->code == EXIT_HEALTHY)
		snprintf(buf, bufsz, "search: works as given%s", x->incomplete ? " (incomplete)" : "");
	else if (fs->winner >= 0 && strcmp(fs->t[fs->winner].cand.name, "as given") == 0)
		snprintf(buf, bufsz, "search: works as given, but slow%s", x->incomplete ? " (incomplete)" : "");
	else if (fs->winner >= 0)
		snprintf(buf, bufsz, "search: %s works (fix found%s)", fs->t[fs->winner].cand.name, inc);
	else if (x->code == EXIT_CANNOT_RUN)
		snprintf(buf, bufsz, "search: did not finish (a GPU wedged or the budget ran out): no configuration was shown to work");
	else
		snprintf(buf, bufsz, "search: %s%s", fix_search_outcome(fs), x->incomplete ? " (incomplete)" : "");
}

static void set_headline(struct result *r, const struct fix_session *x, double t0)
{
	const struct fix_search *fs = &x->fs;
	char line[320];
	search_line(line, sizeof(line), x);
	result_set_headline(r, "%s: %d GPU%s, %.1f s; %s", x->verdict, fs->ndev, fs->ndev == 1 ? "" : "s",
			    stages_now() - t0, line);
}

struct fix_session *fix_session_run(const struct fix_opts *o, const struct run_opts *opt, const struct fix_seed *seed,
				    unsigned form_mask)
{
	struct fix_session *x = calloc(1, sizeof(*x));
	if (!x)
		return NULL;
	struct stages *c = &x->st;
	struct fix_search *fs = &x->fs;
	stages_init(c, "fix", opt, o->budget);
	c->quiet = o->quiet, c->progress = o->progress, c->force = o->force, c->driver = o->driver;
	x->r = result_new("fix");
	bool nothing = stages_sys(c, x->r);
	stages_topo(c, x->r);
	fs->winner = -1;
	if (nothing && c->ngpus == 0) {
		result_free(x->r);
		x->r = result_new("fix");
		result_set_error(x->r, "%s", NO_NVIDIA_TEXT);
		snprintf(fs->why_not, sizeof(fs->why_not), "%s", NO_NVIDIA_TEXT);
		x->no_gpu = true;
		x->code = EXIT_CANNOT_RUN;
		x->verdict = RESULT_NOTHING_TO_CHECK;
		x->outcome = outcome_word(x->code, false);
		x->r->verdict = x->verdict;
		result_set_headline(x->r, "%s: no NVIDIA GPU or driver here", x->verdict);
		return x;
	}
	stages_p2p(c, x->r);
	fs->st = c, fs->command = o->command, fs->all = o->all, fs->max_bytes = o->max_bytes;
	if (seed)
		fs->seed = *seed;
	struct stage *s = stage_begin(c, "fix");
	fs->budget = stages_left(c);
	fix_search_run(fs, NULL);
	snprintf(s->result, sizeof(s->result), "%.150s", fix_search_outcome(fs));
	s->failed = fs->winner < 0;
	stage_end(c, s, NULL, x->r);
	stages_table(c, x->r, "fix", "Fix");
	x->stage_findings = x->r->nfindings;
	x->code = fix_report(fs, x->r, form_mask, "fix");
	x->incomplete = fs->incomplete || c->nst < 1;
	for (int i = 0; i < c->nst; i++)
		x->incomplete |= c->st[i].skipped;
	x->verdict = verdict_word(x->code, x->incomplete, x->r);
	x->outcome = outcome_word(x->code, x->incomplete);
	set_headline(x->r, x, c->t0);
	int npairs, hang = fix_copies_hang(fs, &npairs);
	if (hang > 0) {
		/* not "works as given" with errors and exit 0: the copies hang */
		if (x->code == EXIT_HEALTHY)
			x->code = EXIT_WARNINGS;
		x->verdict = verdict_word(x->code, x->incomplete, x->r);
		x->outcome = x->incomplete ? "NCCL WORKS, COPIES HANG (INCOMPLETE)" : "NCCL WORKS, COPIES HANG";
		result_set_headline(x->r, "%s: %d GPU%s, %.1f s; search: NCCL works, copies hang; " FIX_COPIES_HANG_TEXT,
				    x->verdict, fs->ndev, fs->ndev == 1 ? "" : "s", stages_now() - c->t0, hang, npairs);
	}
	return x;
}

void fix_session_free(struct fix_session *x)
{
	if (!x)
		return;
	stages_release(&x->st);
	result_free(x->r);
	free(x);
}
