/* What the engines share (engine/engine.h). */
#include "engine/engine.h"

double opt_deadline(const struct run_opts *opt, double dflt)
{
	return opt && opt->timeout > 0 ? opt->timeout : dflt;
}

int exit_status_map(int code, int fail_on, int exit_style)
{
	if (code == EXIT_WARNINGS && fail_on == FAIL_ON_ERROR)
		code = EXIT_HEALTHY;
	if (exit_style != EXIT_STYLE_NPD)
		return code;
	/* node-problem-detector's custom plugins: 0 OK, 1 NonOK, 2 Unknown */
	switch (code) {
	case EXIT_HEALTHY:
		return 0;
	case EXIT_WARNINGS:
	case EXIT_PROBLEM:
		return 1;
	default:
		return 2;
	}
}
