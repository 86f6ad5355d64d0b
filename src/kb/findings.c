/* The finding catalog table, built from the findings_*.def files. */
#include "kb/findings.h"

#include <string.h>

static const struct finding_def defs[] = {
#define FINDING(id, cause, sev, summary, meaning, fix) { #id, #cause, SEV_##sev, summary, meaning, fix },
#include "kb/findings_general.def"
#include "kb/findings_sys.def"
#include "kb/findings_gpu.def"
#include "kb/findings_bench.def"
#include "kb/findings_logs.def"
#include "kb/findings_kernel.def"
#undef FINDING
};

const struct finding_def *kb_findings(size_t *n)
{
	*n = sizeof(defs) / sizeof(defs[0]);
	return defs;
}

const struct finding_def *kb_finding(const char *id)
{
	for (size_t i = 0; i < sizeof(defs) / sizeof(defs[0]); i++)
		if (strcmp(defs[i].id, id) == 0)
			return &defs[i];
	return NULL;
}
