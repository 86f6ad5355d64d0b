/* What the engines share (engine/engine.h). */
#include "engine/engine.h"

double opt_deadline(const struct run_opts *opt, double dflt)
{
	return opt && opt->timeout > 0 ? opt->timeout : dflt;
}
