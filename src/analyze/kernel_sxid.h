/* KEV_SXID events of the kernel log parser (analyze/kernel_parse.h) built
 * from SXid lines (analyze/sxid_parse.h): the group a continuation line
 * joins, and the fields of a new event. */
#ifndef ND_ANALYZE_KERNEL_SXID_H
#define ND_ANALYZE_KERNEL_SXID_H
#include "analyze/kernel_parse.h"
#include "analyze/sxid_parse.h"
#include <stdbool.h>

/* Merges a Severity or Data line into the newest KEV_SXID event of the same
 * switch when it continues that event; false when l must stand alone. */
bool kparser_sxid_continue(struct kparser *kp, const struct sxid_line *l);
/* Fills a fresh KEV_SXID event from its first line: sx, bdf (the switch),
 * code (the SXid), sev (enum sxid_sev), detail_text (the text). */
void kevent_sxid_start(struct kevent *e, const struct sxid_line *l);

#endif
