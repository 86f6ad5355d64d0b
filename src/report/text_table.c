/* A table of the text report: its rows (those that say nothing counted or
 * folded into a line), its columns fitted to the terminal (prose last, the
 * last prose column wrapped in place, others moved below), and the legend
 * of the markers and abbreviations it shows. */
#include "kb/causes.h"
#include "report/report.h"
#include "report/text_int.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* A cell's text: the words of a class in a "cause" column (alt[], made
 * once per table, in row order), else cell_text. */
static const char *cell_shown(const struct table *t, char **alt, size_t r, size_t c, char *buf, size_t bufsz)
{
	const char *a = alt ? alt[r * t->ncols + c] : NULL;
	if (!a)
		return tx_cell_text(&t->cells[r * t->ncols + c], buf, bufsz);
	str_visible(buf, bufsz, a, 0);
	return buf;
}

/* The legend of the tables: each marker, word or abbreviated column title
 * that a table shows is explained once per report, in one line under the
 * first table that shows it. A row matches by its column key (and, with a
 * word, a cell that is that word or starts with it); a NULL column is the
 * row marker of the text report. */
static const struct legend_entry {
	const char *col;  /* column key; NULL: the row marker */
	const char *word; /* cell word (or marker); NULL: the column itself */
	const char *text;
} legend_entries[] = {
	{ NULL, "!", "! a problem" },
	{ NULL, "*", "* a warning" },
	{ "ce", NULL, "CE: a copy-engine copy between the two GPUs, its data verified (p2p: GPU to GPU; host: staged through host memory)" },
	{ "sm", NULL, "SM: a kernel of one GPU writing and reading the other's memory, verified" },
	{ "nccl", "ok", "NCCL: NCCL's own send/recv between the two" },
	{ NULL, "BAD", "BAD: wrong data or the step failed" },
	{ "expected", NULL, "expected: the share of a healthy machine's busbw it should keep (estimated before it runs)" },
	{ "init_s", NULL, "init s: seconds NCCL's set-up took, or how it ended" },
	{ "busbw_1m", NULL, "1M, 64M, 256M: busbw in GB/s at that size, as nccl-tests computes it" },
	{ "lat_8b_us", NULL, "8 B us: latency of an 8-byte all_reduce in microseconds" },
	{ "stage", "T#", "T0..T10: the stages of NCCL's start-up a rank's log reached ('nccl-doctor explain T7')" },
};

static bool cell_is_word(const char *text, const char *word)
{
	if (strcmp(word, "T#") == 0) /* a stage: T and a digit */
		return text[0] == 'T' && text[1] >= '0' && text[1] <= '9';
	size_t n = strlen(word);
	return strncmp(text, word, n) == 0 && (text[n] == '\0' || text[n] == ' ');
}

/* One line under a table: the legend entries it shows that the report did
 * not explain yet. marks[] says which row markers were printed. */
static void render_legend(const struct table *t, char **alt, const bool marks[2], struct words *wd, bool color,
			  FILE *out)
{
	size_t n = sizeof(legend_entries) / sizeof(legend_entries[0]);
	struct strbuf line;
	strbuf_init(&line, 1 << 16);
	char buf[2048];
	for (size_t i = 0; i < n && i < LEGEND_MAX; i++) {
		const struct legend_entry *e = &legend_entries[i];
		if (!wd || wd->legend[i])
			continue;
		bool shown = false;
		if (!e->col && e->word[0] == '!')
			shown = marks[0];
		else if (!e->col && e->word[0] == '*')
			shown = marks[1];
		for (size_t c = 0; c < t->ncols && !shown; c++) {
			if (t->cols[c].show == SHOW_JSON_ONLY || (e->col && strcmp(t->cols[c].key, e->col) != 0))
				continue;
			if (e->col && !e->word) {
				shown = true;
				break;
			}
			for (size_t r = 0; r < t->nrows && !shown; r++)
				shown = cell_is_word(cell_shown(t, alt, r, c, buf, sizeof(buf)), e->word);
		}
		if (!shown)
			continue;
		strbuf_addf(&line, "%s%s", line.len ? "; " : "", e->text);
		wd->legend[i] = true;
	}
	if (line.len) {
		fprintf(out, "   %s", color ? C_DIM : "");
		tx_wrap(out, line.buf, 3, 5, wd->width);
		fprintf(out, "%s\n", color ? C_RESET : "");
	}
	strbuf_release(&line);
}

static void render_table_shown(const struct table *t, struct words *wd, bool color, FILE *out);

/* A column whose every cell is empty or "-" says nothing in text: it is
 * left out there (JSON keeps it); never the first column shown, which
 * names the rows. */
void tx_render_table(const struct table *t, struct words *wd, bool color, FILE *out)
{
	char buf[256];
	if (t->nrows == 0)
		return; /* the section's notes say why it is empty */
	struct table view = *t;
	view.cols = xcalloc(t->ncols, sizeof(*view.cols));
	memcpy(view.cols, t->cols, t->ncols * sizeof(*view.cols));
	size_t nok = 0, fc = t->ncols, kc = t->ncols;
	for (size_t c = 0; c < t->ncols; c++) {
		if (t->fold_col && strcmp(t->cols[c].key, t->fold_col) == 0)
			fc = c;
		if (kc == t->ncols && t->cols[c].show != SHOW_JSON_ONLY)
			kc = c; /* the column that names the rows */
	}
	bool *folded = xcalloc(t->nrows, sizeof(bool));
	if (t->ok_rows || fc < t->ncols) { /* the rows listed; the rest counted or folded */
		view.cells = xcalloc(t->nrows * t->ncols, sizeof(*view.cells));
		view.marks = xcalloc(t->nrows * t->ncols, sizeof(*view.marks));
		view.nrows = 0;
		for (size_t r = 0; r < t->nrows; r++) {
			bool problem = false;
			for (size_t c = 0; c < t->ncols; c++)
				problem |= t->marks[r * t->ncols + c] >= MARK_WARN;
			if (fc < t->ncols && t->fold_prefix && !problem) {
				const char *x = value_text(&t->cells[r * t->ncols + fc], buf, sizeof(buf));
				folded[r] = strncmp(x, t->fold_prefix, strlen(t->fold_prefix)) == 0;
			}
			if (folded[r] || (t->ok_rows && !problem)) {
				nok += !folded[r];
				continue;
			}
			memcpy(view.cells + view.nrows * t->ncols, t->cells + r * t->ncols, t->ncols * sizeof(*view.cells));
			memcpy(view.marks + view.nrows * t->ncols, t->marks + r * t->ncols, t->ncols * sizeof(*view.marks));
			view.nrows++;
		}
	}
	bool first = true;
	for (size_t c = 0; c < t->ncols; c++) {
		if (t->cols[c].show == SHOW_JSON_ONLY)
			continue;
		if (first) {
			first = false;
			continue;
		}
		bool empty = true;
		for (size_t r = 0; r < view.nrows && empty; r++) {
			const char *x = value_text(&view.cells[r * t->ncols + c], buf, sizeof(buf));
			empty = !*x || strcmp(x, "-") == 0;
		}
		if (empty)
			view.cols[c].show = SHOW_JSON_ONLY;
	}
	if (view.nrows)
		render_table_shown(&view, wd, color, out);
	for (size_t r = 0; r < t->nrows; r++) { /* "not tried (a faster one works): A, B" */
		if (!folded[r] || kc == t->ncols)
			continue;
		struct strbuf sb;
		strbuf_init(&sb, 1 << 16);
		char what[256];
		value_text(&t->cells[r * t->ncols + fc], what, sizeof(what));
		for (size_t q = r; q < t->nrows; q++) {
			char x[256];
			if (!folded[q] || strcmp(value_text(&t->cells[q * t->ncols + fc], x, sizeof(x)), what) != 0)
				continue;
			folded[q] = false;
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", value_text(&t->cells[q * t->ncols + kc], x, sizeof(x)));
		}
		struct vis v = { 0 };
		char *line = xasprintf("%s: %s", tx_vis(&v, what, 0), tx_vis(&v, strbuf_str(&sb), 0));
		fputs("   ", out);
		tx_wrap(out, line, 3, 5, wd ? wd->width : 0);
		fputc('\n', out);
		free(line);
		tx_vis_release(&v);
		strbuf_release(&sb);
	}
	free(folded);
	if (nok) {
		struct vis v = { 0 };
		if (!view.nrows && t->title)
			fprintf(out, "  %s%s%s\n", color ? C_BOLD : "", tx_vis(&v, t->title, 0), color ? C_RESET : "");
		size_t nl = strlen(t->ok_rows) - (nok == 1 && strlen(t->ok_rows) > 1 && t->ok_rows[strlen(t->ok_rows) - 1] == 's');
		fprintf(out, "   %s%zu %s%.*s OK%s\n", color ? C_GREEN : "", nok, view.nrows ? "other " : "", (int)nl, t->ok_rows,
			color ? C_RESET : "");
		tx_vis_release(&v);
	}
	if (view.cells != t->cells) {
		free(view.cells);
		free(view.marks);
	}
	free(view.cols);
}

static void render_table_shown(const struct table *t, struct words *wd, bool color, FILE *out)
{
	char buf[2048];
	struct vis wv = { 0 };
	bool marks[2] = { false, false }; /* "!" and "*" printed */
	char **alt = xcalloc(t->nrows * t->ncols, sizeof(char *));
	for (size_t c = 0; c < t->ncols; c++) {
		if (strcmp(t->cols[c].key, "cause") != 0 || t->cols[c].show == SHOW_JSON_ONLY)
			continue;
		for (size_t r = 0; r < t->nrows; r++) {
			const struct value *cv = &t->cells[r * t->ncols + c];
			if (cv->type == VAL_STR && !cv->display)
				alt[r * t->ncols + c] = (char *)tx_words(wd, &wv, cv->s, true);
		}
	}
	size_t *w = xcalloc(t->ncols, sizeof(size_t));
	bool *below = xcalloc(t->ncols, sizeof(bool));
	size_t first = t->ncols;
	for (size_t c = 0; c < t->ncols; c++) {
		if (t->cols[c].show == SHOW_JSON_ONLY)
			continue;
		if (first == t->ncols)
			first = c;
		char tb[256];
		w[c] = tx_width(str_shown(t->cols[c].title, tb, sizeof(tb), 0));
		for (size_t r = 0; r < t->nrows; r++) {
			size_t n = tx_width(cell_shown(t, alt, r, c, buf, sizeof(buf)));
			if (n > w[c])
				w[c] = n;
		}
	}
	/* the order shown: the rows' names first, prose columns last, so the
	 * last of them can wrap in the room the others leave */
	size_t *order = xcalloc(t->ncols, sizeof(size_t)), nshown = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t c = 0; c < t->ncols; c++)
			if (t->cols[c].show != SHOW_JSON_ONLY && (c != first && tx_free_text(t, c)) == (pass == 1) &&
			    (pass == 1 || c == first || nshown > 0))
				order[nshown++] = c;
	size_t wrapcol = nshown > 1 && tx_free_text(t, order[nshown - 1]) ? order[nshown - 1] : t->ncols;
	size_t limit = wd ? wd->width : tx_term_width(out);
	bool wrap = false;
	/* too wide: the last prose column wraps in the room the others leave;
	 * while that is too little, the other prose columns move below the
	 * table (the widest first); then fit_widths */
	char tb[256];
	size_t minw = wrapcol < t->ncols ? tx_width(str_shown(t->cols[wrapcol].title, tb, sizeof(tb), 0)) : 0;
	while (limit && first < t->ncols && tx_line_width(t, w, below) > limit) {
		size_t others = tx_line_width(t, w, below) - (wrapcol < t->ncols ? w[wrapcol] + 2 : 0) + 2;
		if (wrapcol < t->ncols && others + (minw > 16 ? minw : 16) <= limit) {
			w[wrapcol] = limit - others;
			wrap = true;
			break;
		}
		size_t c = t->ncols;
		for (size_t k = first + 1; k < t->ncols; k++)
			if (k != wrapcol && t->cols[k].show != SHOW_JSON_ONLY && !below[k] && tx_free_text(t, k) &&
			    (c == t->ncols || w[k] > w[c]))
				c = k;
		if (c == t->ncols || wrapcol == t->ncols) {
			tx_fit_widths(t, w, below, first, limit);
			break;
		}
		below[c] = true;
	}
	size_t last = t->ncols, start = 4; /* the last column shown, where it starts */
	for (size_t k = 0; k < nshown; k++)
		if (!below[order[k]])
			last = order[k];
	for (size_t k = 0; k < nshown && order[k] != last; k++)
		if (!below[order[k]])
			start += w[order[k]] + 2;
	struct vis v = { 0 };
	if (t->title) {
		fprintf(out, "  %s", color ? C_BOLD : "");
		tx_wrap(out, tx_vis(&v, t->title, 0), 2, 4, limit);
		fprintf(out, "%s\n", color ? C_RESET : "");
	}
	fputs("   ", out);
	for (size_t k = 0; k < nshown; k++) {
		size_t c = order[k];
		if (below[c])
			continue;
		fprintf(out, " %s", color ? C_DIM : "");
		size_t n = tx_cut(out, tx_vis(&v, t->cols[c].title, 0), w[c]);
		fputs(color ? C_RESET : "", out);
		if (c != last)
			tx_pad(out, w[c] - n + 1);
	}
	fputc('\n', out);
	for (size_t r = 0; r < t->nrows; r++) {
		enum mark rowmark = MARK_NONE;
		for (size_t c = 0; c < t->ncols; c++)
			if (t->marks[r * t->ncols + c] > rowmark)
				rowmark = t->marks[r * t->ncols + c];
		fprintf(out, "  %s", rowmark >= MARK_WARN ? tx_mark_prefix(color, rowmark) : " ");
		if (!color && rowmark >= MARK_WARN)
			marks[rowmark == MARK_BAD ? 0 : 1] = true;
		for (size_t k = 0; k < nshown; k++) {
			size_t c = order[k];
			if (below[c])
				continue;
			enum mark m = t->marks[r * t->ncols + c];
			const char *s = cell_shown(t, alt, r, c, buf, sizeof(buf));
			fprintf(out, " %s", tx_mark_color(color, m));
			size_t n = wrap && c == wrapcol ? (tx_wrap(out, s, start, start, start + w[c]), w[c])
				   : tx_cut(out, s, w[c]);
			fputs(m && color ? C_RESET : "", out);
			if (c != last)
				tx_pad(out, w[c] - n + 1);
		}
		fputc('\n', out);
	}
	/* the moved columns: one line per row, named by the first column */
	size_t kw = 0;
	for (size_t r = 0; r < t->nrows && first < t->ncols; r++) {
		size_t n = tx_width(cell_shown(t, alt, r, first, buf, sizeof(buf)));
		if (n > kw)
			kw = n;
	}
	for (size_t k = 0; k < nshown; k++) {
		size_t c = order[k];
		if (!below[c])
			continue;
		fprintf(out, "    %s%s%s, by %s:\n", color ? C_DIM : "", tx_vis(&v, t->cols[c].title, 0), color ? C_RESET : "",
			tx_vis(&v, t->cols[first].title, 0));
		for (size_t r = 0; r < t->nrows; r++) {
			char key[256];
			cell_shown(t, alt, r, first, key, sizeof(key));
			fprintf(out, "      %s", key);
			if (limit && 6 + kw + 2 + 30 > limit) { /* too little room beside the names: below them */
				fputs("\n          ", out);
				tx_wrap(out, cell_shown(t, alt, r, c, buf, sizeof(buf)), 10, 12, limit);
			} else {
				tx_pad(out, kw - tx_width(key) + 2);
				tx_wrap(out, cell_shown(t, alt, r, c, buf, sizeof(buf)), 6 + kw + 2, 6 + kw + 4, limit);
			}
			fputc('\n', out);
		}
	}
	render_legend(t, alt, marks, wd, color, out);
	tx_vis_release(&v);
	tx_vis_release(&wv);
	free(order);
	free(alt);
	free(below);
	free(w);
}
