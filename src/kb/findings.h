/* The finding catalog: every finding id the project can emit, with its cause
 * class, default severity, and the text `explain ID` shows. The entries live
 * in findings_*.def files (one per area) and the files of kb/findings/ (the findings
 * of `logs`, one file per failure domain), compiled in through an X-macro:
 *
 *   FINDING(ID, cause_class, SEVERITY, "one-line summary",
 *           "what it means and why it matters", "the fix")
 *
 * SEVERITY is INFO, WARNING or ERROR (the usual one; a rule may pick another).
 * cause_class is one of the classes in kb/causes.h.
 *
 * findings_all.def lists them in catalog order; the entries of kb/findings/
 * stand there as FINDING_AT(ID), their places (kb/findings/order.def).
 *
 * The same list makes enum finding_id (FID_<ID>), so code names a finding by
 * an enum constant and a wrong id does not compile. finding_add() is the one
 * way to add a finding to a result: it looks the id up here and hands the id
 * text and cause class to the result model (model/ knows no catalog). */
#ifndef ND_KB_FINDINGS_H
#define ND_KB_FINDINGS_H
#include "model/result.h"
#include "model/severity.h"
#include <stdbool.h>
#include <stddef.h>

enum finding_id {
#define FINDING(id, cause, sev, summary, meaning, fix) FID_##id,
#define FINDING_AT(id) FID_##id,
#include "kb/findings_all.def"
#undef FINDING_AT
#undef FINDING
	FID_COUNT
};

struct finding_def {
	const char *id;
	const char *cause;
	enum severity severity;
	const char *summary;
	const char *meaning;
	const char *fix;
};

/* Whether a finding reports the lost connection to another rank (the
 * peer closed or reset it, NCCL's remote error): a consequence of that
 * rank's end, not a failure of this one. */
static inline bool finding_is_peer_loss(enum finding_id id)
{
	return id == FID_LOG_PEER_CONNECTION_LOST || id == FID_LOG_NCCL_REMOTE_ERROR;
}

/* The catalog entry of an id; never NULL for an id below FID_COUNT. */
const struct finding_def *kb_finding_def(enum finding_id id);
/* Lookup by name, for ids that come from data (explain's argument, a
 * report read back): the entry, or NULL when the name is not in the catalog. */
const struct finding_def *kb_finding(const char *id);
/* The enum of a name, or -1 when the name is not in the catalog. */
int kb_finding_id(const char *name);
const struct finding_def *kb_findings(size_t *n);
/* The finding of an Xid code: FID_XID_<code> for the codes of kb/xid.def,
 * else FID_XID_UNKNOWN. */
enum finding_id kb_xid_finding(int code);

/* Adds a finding with the catalog's id text and cause class. */
struct finding *finding_add(struct result *r, enum finding_id id, enum severity sev,
			    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Whether f has this id. */
bool finding_is(const struct finding *f, enum finding_id id);
/* The first finding of r with this id, or NULL. */
struct finding *finding_get(const struct result *r, enum finding_id id);

#endif
