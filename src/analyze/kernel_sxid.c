/* KEV_SXID events: see kernel_sxid.h. Several switches interleave their
 * lines, so a continuation looks back (a bounded number of events) for the
 * newest SXid of its own switch, and joins it only when it continues it. */
#include "analyze/kernel_sxid.h"
#include "util/text.h"

#include <string.h>

#define SXID_LOOKBACK 64 /* events searched back for the group of a continuation */

bool kparser_sxid_continue(struct kparser *kp, const struct sxid_line *l)
{
	if (l->kind == SXID_LINE_HEADER)
		return false;
	size_t n = kparser_count(kp);
	for (size_t i = n, looked = 0; i-- > 0 && looked < SXID_LOOKBACK; looked++) {
		struct kevent *e = kparser_event(kp, i);
		if (e->kind != KEV_SXID || strcmp(e->sx.bdf, l->bdf) != 0)
			continue;
		if (!sxid_event_continues(&e->sx, l))
			return false;
		sxid_event_merge(&e->sx, l);
		e->sev = e->sx.sev;
		return true;
	}
	return false;
}

void kevent_sxid_start(struct kevent *e, const struct sxid_line *l)
{
	sxid_event_start(&e->sx, l);
	str_copy(e->bdf, l->bdf, sizeof(e->bdf));
	e->code = l->sxid;
	e->sev = e->sx.sev;
	if (l->kind == SXID_LINE_HEADER) {
		size_t len = l->text_len < sizeof(e->detail_text) ? l->text_len : sizeof(e->detail_text) - 1;
		memcpy(e->detail_text, l->text, len);
		e->detail_text[len] = '\0';
	}
}
