/* watch --retry-with-fix: after a stall the job is stopped and relaunched
 * once with the first NCCL configuration that analyze/fix_candidates derives
 * from the stall's evidence (the cause classes of its findings). The fix
 * command, which tries candidates under deadlines and measures them, is
 * built beside this; until watch can ask it, the configuration is the
 * untested first candidate and watch says so. A stall whose errors say a rank
 * is missing or dead is not relaunched: no NCCL variable brings it back. */
#include "analyze/fix_candidates.h"
#include "cmd/watch_int.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

static bool has_cause(const struct result *r, const char *cause, bool errors_only)
{
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct finding *f = r->findings[i];
		if (f->cause && strcmp(f->cause, cause) == 0 && (!errors_only || f->sev == SEV_ERROR))
			return true;
	}
	return false;
}

int wretry_plan(const struct result *diag, char env[][WRETRY_ENV_LEN], int max, char *name, size_t namesz, FILE *out)
{
	name[0] = '\0';
	if (has_cause(diag, "peer_died_or_oom", true)) {
		fprintf(out, "nccl-doctor watch: --retry-with-fix: not relaunched: a rank is missing or dead, which no "
			     "NCCL setting changes (see the diagnosis)\n");
		return 0;
	}
	struct fixc_input in = { 0 };
	in.shm_small = has_cause(diag, "shm_too_small", false);
	in.nvls_evidence = has_cause(diag, "fabric_manager_nvswitch", false);
	in.cumem_evidence = has_cause(diag, "custom_allreduce_or_cumem", false);
	in.bootstrap_failed = has_cause(diag, "bootstrap_network", true);
	struct fix_candidate c[FIXC_MAX];
	int n = fixc_candidates(&in, c), pick = -1;
	fprintf(out, "nccl-doctor watch: --retry-with-fix: candidate configurations from the stall's evidence, "
		     "fastest expected first:\n");
	for (int i = 0; i < n; i++) {
		if (pick < 0 && c[i].nenv > 0)
			pick = i;
		fprintf(out, "  %s %-40s keeps ~%3.0f %%  %s\n", i == pick ? "->" : "  ", c[i].name, 100 * c[i].expected,
			c[i].why);
	}
	if (pick < 0)
		return 0;
	int k = 0;
	for (int e = 0; e < c[pick].nenv && k < max; e++)
		snprintf(env[k++], WRETRY_ENV_LEN, "%s=%s", c[pick].env[e].name, c[pick].env[e].value);
	str_copy(name, c[pick].name, namesz);
	fprintf(out, "nccl-doctor watch: relaunching the job once with %s; this configuration was not verified by the "
		     "fix command (it is the first candidate, untested)\n", name);
	return k;
}
