/* The text renderer's parts (report/text.c, layout.c, text_table.c,
 * text_first.c) and what they share: the colours, the visible forms of
 * outside text, the report's state (struct words) and the layout helpers.
 * Private to report/. */
#ifndef ND_REPORT_TEXT_INT_H
#define ND_REPORT_TEXT_INT_H
#include "model/result.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_GREEN "\033[32m"
#define C_CYAN "\033[36m"

/* The visible forms made while one thing is rendered, freed together. */
struct vis {
	char **p;
	size_t n, alloc;
};

/* s itself when it prints as it is, else its visible form (kept in v). */
const char *tx_vis(struct vis *v, const char *s, unsigned flags);
void tx_vis_release(struct vis *v);

/* Cause classes in words, and the state of one report (text.c). */
#define WORDS_MAX 64
#define LEGEND_MAX 32
struct words {
	bool shown[WORDS_MAX];
	bool legend[LEGEND_MAX]; /* legend entries already explained */
	/* the rest of one report's state, which every renderer gets with it */
	size_t width;   /* columns of out (term_width) */
	bool brief;     /* the short report (no --full) */
	struct {        /* fixes a finding printed: a later one says "as above" */
		const char *text, *id;
	} *fixes;
	size_t nfixes, afixes;
};

/* s with its class ids in words (kept in v), or s itself when it has none;
 * whole: s is a class id field, "unknown" included. */
const char *tx_words(struct words *w, struct vis *v, const char *s, bool whole);
const char *tx_mark_color(bool color, enum mark m);
const char *tx_mark_prefix(bool color, enum mark m);

/* layout.c: widths, wrapping, lines to paste, table fitting */
size_t tx_width(const char *s);
size_t tx_span_width(const char *s, size_t n);
void tx_pad(FILE *out, size_t n);
void tx_wrap(FILE *out, const char *s, size_t col, size_t indent, size_t width);
void tx_paste(FILE *out, const char *line, const char *indent, size_t width, const char *on, const char *off);
size_t tx_term_width(FILE *out);
const char *tx_cell_text(const struct value *v, char *buf, size_t bufsz);
size_t tx_cut(FILE *out, const char *s, size_t w);
size_t tx_line_width(const struct table *t, const size_t *w, const bool *below);
size_t tx_widest_other(const struct table *t, const size_t *w, const bool *below, size_t first, size_t min);
bool tx_identifying(const struct table *t, size_t c, size_t first);
bool tx_free_text(const struct table *t, size_t c);
void tx_fit_widths(const struct table *t, size_t *w, bool *below, size_t first, size_t limit);

/* text_table.c: a table, its rows counted or folded, its legend */
void tx_render_table(const struct table *t, struct words *wd, bool color, FILE *out);

/* text_first.c: the first screen and the short report's last line */
bool tx_has_first_screen(const struct result *r);
bool tx_is_stage_errors(const struct section *s);
void tx_first_screen(const struct result *r, struct words *wd, bool color, FILE *out);
void tx_left_out(const struct result *r, struct words *wd, bool color, FILE *out);

#endif
