/* The finding catalog: every finding id the project can emit, with its cause
 * class, default severity, and the text `explain ID` shows. The entries live
 * in findings_*.def files (one per area), compiled in through an X-macro:
 *
 *   FINDING(ID, cause_class, SEVERITY, "one-line summary",
 *           "what it means and why it matters", "the fix")
 *
 * SEVERITY is INFO, WARNING or ERROR (the usual one; a rule may pick another).
 * cause_class is one of the classes in kb/causes.h. */
#ifndef ND_KB_FINDINGS_H
#define ND_KB_FINDINGS_H
#include "model/severity.h"
#include <stddef.h>

struct finding_def {
	const char *id;
	const char *cause;
	enum severity severity;
	const char *summary;
	const char *meaning;
	const char *fix;
};

const struct finding_def *kb_finding(const char *id);
const struct finding_def *kb_findings(size_t *n);

#endif
