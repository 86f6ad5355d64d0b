/* The finding catalog table, built from the findings_*.def files, and
 * finding_add(), the catalog-checked way to add a finding to a result. */
#include "kb/findings.h"

#include <stdarg.h>
#include <string.h>

static const struct finding_def defs[] = {
#define FINDING(id, cause, sev, summary, meaning, fix) [FID_##id] = { #id, #cause, SEV_##sev, summary, meaning, fix },
#define FINDING_AT(id) /* its entry is in kb/findings/domains.def */
#include "kb/findings_all.def"
#include "kb/findings/domains.def"
#undef FINDING_AT
#undef FINDING
};

/* Every place has one entry: an entry without a place does not compile
 * (FID_<ID> undeclared), two entries of one id do not either (ENTRY_<ID>
 * twice), and a place without an entry leaves ENTRIES short of FID_COUNT. */
enum {
#define FINDING(id, cause, sev, summary, meaning, fix) ENTRY_##id,
#define FINDING_AT(id)
#include "kb/findings_all.def"
#include "kb/findings/domains.def"
#undef FINDING_AT
#undef FINDING
	ENTRIES
};
_Static_assert((int)ENTRIES == (int)FID_COUNT, "one catalog entry per finding id");
_Static_assert(sizeof(defs) / sizeof(defs[0]) == FID_COUNT, "one catalog entry per finding id");

const struct finding_def *kb_findings(size_t *n)
{
	*n = FID_COUNT;
	return defs;
}

const struct finding_def *kb_finding_def(enum finding_id id)
{
	if ((unsigned)id >= FID_COUNT)
		return NULL;
	return &defs[id];
}

int kb_finding_id(const char *name)
{
	for (size_t i = 0; i < FID_COUNT; i++)
		if (strcmp(defs[i].id, name) == 0)
			return (int)i;
	return -1;
}

const struct finding_def *kb_finding(const char *id)
{
	int i = kb_finding_id(id);
	return i < 0 ? NULL : &defs[i];
}

enum finding_id kb_xid_finding(int code)
{
	switch (code) {
#define XID(code, name, meaning, xclass, cause, sev, action, inv, archs) case code: return FID_XID_##code;
#include "kb/xid.def"
#undef XID
	default: return FID_XID_UNKNOWN;
	}
}

struct finding *finding_add(struct result *r, enum finding_id id, enum severity sev, const char *fmt, ...)
{
	const struct finding_def *d = kb_finding_def(id);
	if (!d)
		d = &defs[FID_XID_UNKNOWN]; /* unreachable with an enum constant */
	va_list ap;
	va_start(ap, fmt);
	struct finding *f = result_add_findingv(r, d->id, d->cause, sev, fmt, ap);
	va_end(ap);
	return f;
}

struct finding *finding_get(const struct result *r, enum finding_id id)
{
	const struct finding_def *d = kb_finding_def(id);
	return d ? result_find(r, d->id) : NULL;
}

bool finding_is(const struct finding *f, enum finding_id id)
{
	const struct finding_def *d = kb_finding_def(id);
	return d && strcmp(f->id, d->id) == 0;
}
