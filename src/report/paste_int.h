/* What the two renderers meant to leave the machine (report/markdown.c, an
 * issue body; report/html.c, a page to send) share: the snapshot's
 * redaction of every string, which rows and facts hold a secret, the
 * verdict word and the facts a maintainer asks first. Private to report/. */
#ifndef ND_REPORT_PASTE_INT_H
#define ND_REPORT_PASTE_INT_H
#include "model/result.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* s redacted (util/envfilter.h: URL user information and long high-entropy
 * words become <redacted>, and so does the value of NAME=VALUE whose name
 * is a secret's) and in its visible form (util/text.h str_visible; a tab
 * becomes a space); the caller frees it. flags: STR_VIS_NEWLINE keeps
 * newlines. */
char *paste_clean(const char *s, unsigned flags);
/* s with the cause class ids it names (as whole words) turned into their
 * titles, as the text report words them; the caller frees it. */
char *paste_words(const char *s);
/* Whether a cell's text says nothing ("" or "-"). */
bool paste_empty_cell(const struct value *v);
/* The columns of t a report shows, into on[0..t->ncols): not JSON-only,
 * and not empty in every row (but the first shown, which names the row);
 * *first: that first column. Returns how many. */
size_t paste_table_columns(const struct table *t, bool *on, size_t *first);
/* The text of cell (r, c) of t as both reports show it: <redacted> for a
 * secret's value (secret: the row is one's, paste_row_secret), a cause
 * class as its title; the caller frees it. */
char *paste_cell_text(const struct table *t, size_t r, size_t c, bool secret);
/* Row r of t is named by a secret's name (its "name" or "variable" column):
 * its "value" column is redacted whole. */
bool paste_row_secret(const struct table *t, size_t r);
/* A fact whose key or label is a secret's name: its value is redacted whole. */
bool paste_kv_secret(const struct kv *kv);
/* A copy of a JSON document (the caller owns it) redacted as the rest:
 * every string through paste_clean's redaction (not its visible form: JSON
 * escapes control characters itself), the value of a member named by a
 * secret's name and the "value" of an object whose "name" or "variable" is
 * one replaced whole. */
json_t *paste_redact_json(const json_t *doc);
/* Whether a fix of this kind is advice in words (note, bios), not lines to
 * paste. */
bool paste_fix_words(const char *kind);
/* Whether a result's text report has a first screen (text.c's list). */
bool paste_first_screen_command(const char *cmd);

/* The facts a maintainer asks first: tool version and date (UTC,
 * SOURCE_DATE_EPOCH when set), driver, CUDA, NCCL, GPUs ("4 × NVIDIA H100
 * PCIe"); labels are static, values unredacted. Returns how many. */
struct paste_fact {
	const char *label;
	char value[320];
};
#define PASTE_FACTS_MAX 6
size_t paste_header_facts(const struct result *r, struct paste_fact *f);

#endif
