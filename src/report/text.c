/* Human text renderer: sections of aligned facts and tables, then the
 * findings with their evidence and fixes, then a one-line verdict.
 *
 * Tables fit the terminal: the width is COLUMNS when set, else the
 * terminal's (TIOCGWINSZ) when stdout is one, else unlimited. A table wider
 * than that first moves its long free-text columns below it (one line per
 * row, whole), then narrows the widest columns; a cell cut to fit ends in
 * "…", so cut text is always marked.
 *
 * Words people know: a cause class shows as its title ("Title [id]" at its
 * first mention in a report, the title after), and under a table one line
 * explains the markers, words and abbreviated columns it shows, each once
 * per report (legend_entries).
 *
 * Every string goes out in its visible form (util/text.h str_visible):
 * titles, values, evidence and notes quote logs, kernel messages, RAS
 * answers, process and file names, whose control characters (an escape
 * sequence of a hostile log) are shown as "\x1b", never sent to the
 * terminal. Text that has none prints unchanged. */
#include "kb/causes.h"
#include "report/report.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"
#define C_RED "\033[31m"
#define C_YELLOW "\033[33m"
#define C_GREEN "\033[32m"
#define C_CYAN "\033[36m"

const char *color_on(bool color, enum severity s)
{
	if (!color)
		return "";
	switch (s) {
	case SEV_ERROR: return C_RED C_BOLD;
	case SEV_WARNING: return C_YELLOW;
	default: return C_CYAN;
	}
}

const char *color_off(bool color)
{
	return color ? C_RESET : "";
}

static const char *mark_color(bool color, enum mark m)
{
	if (!color)
		return "";
	switch (m) {
	case MARK_BAD: return C_RED;
	case MARK_WARN: return C_YELLOW;
	case MARK_OK: return C_GREEN;
	default: return "";
	}
}

static const char *mark_prefix(bool color, enum mark m)
{
	if (color)
		return " ";
	switch (m) {
	case MARK_BAD: return "!";
	case MARK_WARN: return "*";
	default: return " ";
	}
}

/* The visible forms made while one thing is rendered, freed together. */
struct vis {
	char **p;
	size_t n, alloc;
};

/* s itself when it prints as it is, else its visible form (kept in v). */
static const char *vis(struct vis *v, const char *s, unsigned flags)
{
	if (!s || str_is_visible(s, flags))
		return s;
	size_t n = str_visible(NULL, 0, s, flags);
	char *c = xmalloc(n + 1);
	str_visible(c, n + 1, s, flags);
	XGROW(v->p, v->alloc, v->n + 1);
	v->p[v->n++] = c;
	return c;
}

static void vis_release(struct vis *v)
{
	for (size_t i = 0; i < v->n; i++)
		free(v->p[i]);
	free(v->p);
	v->p = NULL;
	v->n = v->alloc = 0;
}

void report_puts(const char *s, unsigned flags, FILE *out)
{
	struct vis v = { 0 };
	fputs(vis(&v, s, flags), out);
	vis_release(&v);
}

void report_vsay(FILE *out, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		return;
	char *msg = xmalloc((size_t)n + 1);
	vsnprintf(msg, (size_t)n + 1, fmt, ap);
	report_puts(msg, 0, out);
	fputc('\n', out);
	free(msg);
}

void report_say(FILE *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	report_vsay(out, fmt, ap);
	va_end(ap);
}

/* Cause classes in words. Text shows a class by its title (kb/causes.h);
 * the first mention in a report reads "Title [id]", so a script or a reader
 * can still find the id of the JSON, and every later mention the title
 * alone. A field that holds a class (a finding's cause, a "cause" column)
 * always turns into words; free text (a headline, a note, a value) has its
 * class ids turned into words where they stand as whole words, except
 * "unknown", an ordinary word there. */
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

/* Appends the words of class i to sb, and marks it shown. */
static void words_add(struct words *w, struct strbuf *sb, size_t i, const struct cause_def *d)
{
	if (i < WORDS_MAX && w->shown[i]) {
		strbuf_adds(sb, d->title);
		return;
	}
	strbuf_addf(sb, "%s [%s]", d->title, d->name);
	if (i < WORDS_MAX)
		w->shown[i] = true;
}

/* s with its class ids in words (kept in v), or s itself when it has none;
 * whole: s is a class id field, "unknown" included. */
static const char *words(struct words *w, struct vis *v, const char *s, bool whole)
{
	if (!s || !w)
		return s;
	size_t nc;
	const struct cause_def *cs = kb_causes(&nc);
	if (whole) {
		for (size_t i = 0; i < nc; i++)
			if (strcmp(cs[i].name, s) == 0) {
				struct strbuf sb;
				strbuf_init(&sb, 1024);
				words_add(w, &sb, i, &cs[i]);
				XGROW(v->p, v->alloc, v->n + 1);
				return v->p[v->n++] = strbuf_detach(&sb);
			}
		return s;
	}
	struct strbuf sb;
	strbuf_init(&sb, (size_t)1 << 20);
	bool any = false;
	const char *p = s;
	while (*p) {
		size_t len;
		int i = kb_cause_word(s, p, &len);
		if (!len) {
			strbuf_addch(&sb, *p++);
			continue;
		}
		if (i >= 0) {
			words_add(w, &sb, (size_t)i, &cs[i]);
			any = true;
		} else {
			strbuf_add(&sb, p, len);
		}
		p += len;
	}
	if (!any) {
		strbuf_release(&sb);
		return s;
	}
	XGROW(v->p, v->alloc, v->n + 1);
	return v->p[v->n++] = strbuf_detach(&sb);
}

/* Display width of UTF-8 text: counts code points, not bytes. */
static size_t text_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

static void pad(FILE *out, size_t n)
{
	while (n-- > 0)
		fputc(' ', out);
}

/* Display width of the n bytes at s. */
static size_t span_width(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			w++;
	return w;
}

/* Where a word of n bytes at w breaks to fit room columns (room < its
 * width): after the last '/', ':', ',', ';', '=', '_', '-' or '.' that
 * leaves the part within room, else at room itself (counted in bytes of
 * whole characters). */
static size_t word_break(const char *w, size_t n, size_t room)
{
	size_t cols = 0, best = 0, hard = 0;
	for (size_t i = 0; i < n; i++) {
		if (((unsigned char)w[i] & 0xC0) == 0x80)
			continue;
		if (cols == room)
			break;
		cols++;
		size_t end = i + 1;
		while (end < n && ((unsigned char)w[end] & 0xC0) == 0x80)
			end++;
		hard = end;
		if (strchr("/:,;=_-.", w[i]) && end < n)
			best = end;
	}
	return best ? best : hard ? hard : n;
}

/* Prose to out from column col on, wrapped at width: lines break at spaces
 * and go on at column indent. A word that does not fit where it stands
 * starts the next line; one wider than a whole line breaks after a '/'
 * or another separator (a path), else where the line ends, so no line of
 * prose is wider than width. No newline at the end; width 0: one line. */
static void put_wrapped(FILE *out, const char *s, size_t col, size_t indent, size_t width)
{
	if (!width || col + text_width(s) <= width) {
		fputs(s, out);
		return;
	}
	const char *p = s;
	bool start = true; /* nothing of s on this line yet */
	while (*p) {
		const char *sp = p;
		while (*p == ' ')
			p++;
		const char *w = p;
		while (*p && *p != ' ')
			p++;
		size_t nsp = (size_t)(w - sp), ww = span_width(w, (size_t)(p - w));
		if (p == w)
			break; /* trailing spaces */
		if (col + (start ? 0 : nsp) + ww > width && (!start || col > indent)) { /* the next line, at indent */
			fputc('\n', out);
			pad(out, indent);
			col = indent;
			nsp = 0;
		} else if (!start) {
			fwrite(sp, 1, nsp, out);
		} else {
			nsp = 0;
		}
		/* a word wider than the rest of the line: in parts */
		while (col + ww > width && width > col + 8) {
			size_t cut = word_break(w, (size_t)(p - w), width - col);
			if (cut >= (size_t)(p - w))
				break;
			fwrite(w, 1, cut, out);
			fputc('\n', out);
			pad(out, indent);
			col = indent;
			w += cut;
			ww = span_width(w, (size_t)(p - w));
		}
		fwrite(w, 1, (size_t)(p - w), out);
		col += nsp + ww;
		start = false;
	}
}

/* Lines to paste (a shell command, a file's contents) under indent: a line
 * wider than width breaks at a space outside quotes and goes on after
 * " \\" on the next line, indented 4 more, so the shell reads one command; a
 * comment line goes on as a comment. A line with no such space stays
 * whole. The colour codes (on, off) go around each line. */
static void put_paste(FILE *out, const char *line, const char *indent, size_t width, const char *on, const char *off)
{
	size_t ind = text_width(indent);
	const char *p = line;
	bool comment = *p == '#', first = true;
	do {
		size_t lead = ind + (first ? 0 : 4 + (comment ? 2 : 0));
		size_t room = width > lead + 8 ? width - lead : 0;
		const char *fit = NULL, *any = NULL; /* the last space that fits, the first space */
		if (room && text_width(p) > room) {
			char q = 0;
			size_t col = 0;
			for (const char *c = p; *c && !(col > room && (fit || any)); c++) {
				if (((unsigned char)*c & 0xC0) != 0x80)
					col++;
				if (q) {
					q = *c == q ? 0 : q;
				} else if (*c == '\'' || *c == '"' || *c == '`') {
					q = *c;
				} else if (*c == ' ' && c > p && c[-1] != ' ') {
					if (col + 1 <= room) /* the text before it and " \\" fit */
						fit = c;
					else if (!any)
						any = c;
				}
			}
		}
		const char *cut = fit ? fit : any;
		fprintf(out, "%s%s%s%s", indent, first ? "" : "    ", on, !first && comment ? "# " : "");
		if (!cut) {
			fprintf(out, "%s%s\n", p, off);
			return;
		}
		fwrite(p, 1, (size_t)(cut - p), out);
		fprintf(out, "%s%s\n", comment ? "" : " \\", off);
		for (p = cut; *p == ' '; p++)
			;
		first = false;
	} while (*p);
}

/* Columns the report may use on out: COLUMNS, else the terminal's width,
 * else 100 (a pipe or a file: what a pasted report or a log viewer shows
 * without a scroll bar). Never below 40. */
static size_t term_width(FILE *out)
{
	const char *c = getenv("COLUMNS");
	long v = 0;
	if (c && *c) {
		char *end;
		v = strtol(c, &end, 10);
		if (*end || v <= 0)
			v = 0;
	}
	if (!v) {
		struct winsize ws;
		int fd = fileno(out);
		if (fd >= 0 && isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
			v = ws.ws_col;
	}
	if (v <= 0)
		return 100;
	return v < 40 ? 40 : v > 100000 ? 100000 : (size_t)v;
}

/* A cell's visible text in buf; a value longer than buf is cut there (between
 * whole characters) and marked. */
static const char *cell_text(const struct value *v, char *buf, size_t bufsz)
{
	char raw[2048];
	const char *s = value_text(v, raw, sizeof(raw));
	size_t n = str_visible(buf, bufsz, s, 0);
	if ((n >= bufsz || strlen(s) + 1 >= sizeof(raw)) && bufsz > 8) {
		str_visible(buf, bufsz - 3, s, 0);
		memcpy(buf + strlen(buf), "\u2026", 4);
	}
	return buf;
}

/* Prints the first w columns of s, the last of them "…" when s is wider;
 * returns the columns printed. */
static size_t put_cut(FILE *out, const char *s, size_t w)
{
	if (text_width(s) <= w) {
		fputs(s, out);
		return text_width(s);
	}
	if (w == 0)
		return 0;
	size_t cols = 0;
	const char *p = s;
	while (*p && cols < w - 1) {
		const char *q = p + 1;
		while (*q && ((unsigned char)*q & 0xC0) == 0x80)
			q++;
		fwrite(p, 1, (size_t)(q - p), out);
		p = q;
		cols++;
	}
	fputs("\u2026", out);
	return cols + 1;
}

/* Width of a table's lines with widths w, columns below[] left out. */
static size_t line_width(const struct table *t, const size_t *w, const bool *below)
{
	size_t line = 3;
	for (size_t c = 0; c < t->ncols; c++)
		if (t->cols[c].show != SHOW_JSON_ONLY && !below[c])
			line += w[c] + 2;
	return line;
}

/* The widest column shown other than the first (the row key), of those
 * at least min wide, or ncols. */
static size_t widest_other(const struct table *t, const size_t *w, const bool *below, size_t first, size_t min)
{
	size_t best = t->ncols;
	for (size_t c = first + 1; c < t->ncols; c++)
		if (t->cols[c].show != SHOW_JSON_ONLY && !below[c] && w[c] >= min && (best == t->ncols || w[c] > w[best]))
			best = c;
	return best;
}

/* A column that names something (a GPU, a PCI address, a configuration, a
 * file, a cause): cut, "0000:…" or "NCCL_P2P_DIS…" would name nothing, so
 * it never shrinks; it may move below the table, whole. The first column
 * shown names the rows and is one too. */
static bool identifying(const struct table *t, size_t c, size_t first)
{
	static const char *const keys[] = { "bdf", "busid", "bus_id", "device", "device_id", "name", "configuration", "gpu", "pair",
					    "uuid", "file", "id", "host", "hostname", "interface", "ifname", "path",
					    "cause", "index" };
	if (c == first)
		return true;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (t->cols[c].key && strcmp(t->cols[c].key, keys[i]) == 0)
			return true;
	return false;
}

/* A column of prose (a result, a detail, a reason: its key says so), the
 * only kind that may be cut: a cut number or name says nothing. */
static bool free_text(const struct table *t, size_t c)
{
	static const char *const keys[] = { "result", "detail", "details", "reason", "note", "why", "evidence", "step",
					    "summary", "message", "text", "command", "last_line", "title" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (t->cols[c].key && strcmp(t->cols[c].key, keys[i]) == 0)
			return true;
	return false;
}

/* Widths that fit limit. Long free-text columns (20+ wide) move below the
 * table first, widest first; then the widest columns shrink, none under
 * its title (or 4) and no identifying one; when that is not enough, more
 * columns move below (the widest first) and the rest get their width back
 * before shrinking again. w[] holds the natural widths on entry. */
static void fit_widths(const struct table *t, size_t *w, bool *below, size_t first, size_t limit)
{
	size_t *nat = xcalloc(t->ncols, sizeof(size_t));
	memcpy(nat, w, t->ncols * sizeof(size_t));
	size_t c;
	while (line_width(t, w, below) > limit && (c = widest_other(t, w, below, first, 20)) < t->ncols)
		below[c] = true;
	for (;;) {
		memcpy(w, nat, t->ncols * sizeof(size_t));
		size_t line = line_width(t, w, below);
		while (line > limit) {
			size_t best = t->ncols;
			for (size_t k = 0; k < t->ncols; k++) {
				if (t->cols[k].show == SHOW_JSON_ONLY || below[k] || identifying(t, k, first) || !free_text(t, k))
					continue;
				size_t tw = text_width(t->cols[k].title), minw = tw > 4 ? tw : 4;
				if (w[k] > minw && (best == t->ncols || w[k] > w[best]))
					best = k;
			}
			if (best == t->ncols)
				break;
			w[best]--;
			line--;
		}
		if (line <= limit)
			break;
		/* the widest column that names nothing moves below; a naming one
		 * only when no other is left */
		c = t->ncols;
		for (size_t k = first + 1; k < t->ncols; k++)
			if (t->cols[k].show != SHOW_JSON_ONLY && !below[k] && !identifying(t, k, first) &&
			    (c == t->ncols || nat[k] > nat[c]))
				c = k;
		if (c == t->ncols && (c = widest_other(t, nat, below, first, 0)) == t->ncols)
			break; /* one column left: the terminal wraps the rest */
		below[c] = true;
	}
	free(nat);
}

/* A cell's text: the words of a class in a "cause" column (alt[], made
 * once per table, in row order), else cell_text. */
static const char *cell_shown(const struct table *t, char **alt, size_t r, size_t c, char *buf, size_t bufsz)
{
	const char *a = alt ? alt[r * t->ncols + c] : NULL;
	if (!a)
		return cell_text(&t->cells[r * t->ncols + c], buf, bufsz);
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
		put_wrapped(out, line.buf, 3, 5, wd->width);
		fprintf(out, "%s\n", color ? C_RESET : "");
	}
	strbuf_release(&line);
}

static void render_table_shown(const struct table *t, struct words *wd, bool color, FILE *out);

/* A column whose every cell is empty or "-" says nothing in text: it is
 * left out there (JSON keeps it); never the first column shown, which
 * names the rows. */
static void render_table(const struct table *t, struct words *wd, bool color, FILE *out)
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
		char *line = xasprintf("%s: %s", vis(&v, what, 0), vis(&v, strbuf_str(&sb), 0));
		fputs("   ", out);
		put_wrapped(out, line, 3, 5, wd ? wd->width : 0);
		fputc('\n', out);
		free(line);
		vis_release(&v);
		strbuf_release(&sb);
	}
	free(folded);
	if (nok) {
		struct vis v = { 0 };
		if (!view.nrows && t->title)
			fprintf(out, "  %s%s%s\n", color ? C_BOLD : "", vis(&v, t->title, 0), color ? C_RESET : "");
		size_t nl = strlen(t->ok_rows) - (nok == 1 && strlen(t->ok_rows) > 1 && t->ok_rows[strlen(t->ok_rows) - 1] == 's');
		fprintf(out, "   %s%zu %s%.*s OK%s\n", color ? C_GREEN : "", nok, view.nrows ? "other " : "", (int)nl, t->ok_rows,
			color ? C_RESET : "");
		vis_release(&v);
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
				alt[r * t->ncols + c] = (char *)words(wd, &wv, cv->s, true);
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
		w[c] = text_width(str_shown(t->cols[c].title, tb, sizeof(tb), 0));
		for (size_t r = 0; r < t->nrows; r++) {
			size_t n = text_width(cell_shown(t, alt, r, c, buf, sizeof(buf)));
			if (n > w[c])
				w[c] = n;
		}
	}
	/* the order shown: the rows' names first, prose columns last, so the
	 * last of them can wrap in the room the others leave */
	size_t *order = xcalloc(t->ncols, sizeof(size_t)), nshown = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t c = 0; c < t->ncols; c++)
			if (t->cols[c].show != SHOW_JSON_ONLY && (c != first && free_text(t, c)) == (pass == 1) &&
			    (pass == 1 || c == first || nshown > 0))
				order[nshown++] = c;
	size_t wrapcol = nshown > 1 && free_text(t, order[nshown - 1]) ? order[nshown - 1] : t->ncols;
	size_t limit = wd ? wd->width : term_width(out);
	bool wrap = false;
	/* too wide: the last prose column wraps in the room the others leave;
	 * while that is too little, the other prose columns move below the
	 * table (the widest first); then fit_widths */
	char tb[256];
	size_t minw = wrapcol < t->ncols ? text_width(str_shown(t->cols[wrapcol].title, tb, sizeof(tb), 0)) : 0;
	while (limit && first < t->ncols && line_width(t, w, below) > limit) {
		size_t others = line_width(t, w, below) - (wrapcol < t->ncols ? w[wrapcol] + 2 : 0) + 2;
		if (wrapcol < t->ncols && others + (minw > 16 ? minw : 16) <= limit) {
			w[wrapcol] = limit - others;
			wrap = true;
			break;
		}
		size_t c = t->ncols;
		for (size_t k = first + 1; k < t->ncols; k++)
			if (k != wrapcol && t->cols[k].show != SHOW_JSON_ONLY && !below[k] && free_text(t, k) &&
			    (c == t->ncols || w[k] > w[c]))
				c = k;
		if (c == t->ncols || wrapcol == t->ncols) {
			fit_widths(t, w, below, first, limit);
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
		put_wrapped(out, vis(&v, t->title, 0), 2, 4, limit);
		fprintf(out, "%s\n", color ? C_RESET : "");
	}
	fputs("   ", out);
	for (size_t k = 0; k < nshown; k++) {
		size_t c = order[k];
		if (below[c])
			continue;
		fprintf(out, " %s", color ? C_DIM : "");
		size_t n = put_cut(out, vis(&v, t->cols[c].title, 0), w[c]);
		fputs(color ? C_RESET : "", out);
		if (c != last)
			pad(out, w[c] - n + 1);
	}
	fputc('\n', out);
	for (size_t r = 0; r < t->nrows; r++) {
		enum mark rowmark = MARK_NONE;
		for (size_t c = 0; c < t->ncols; c++)
			if (t->marks[r * t->ncols + c] > rowmark)
				rowmark = t->marks[r * t->ncols + c];
		fprintf(out, "  %s", rowmark >= MARK_WARN ? mark_prefix(color, rowmark) : " ");
		if (!color && rowmark >= MARK_WARN)
			marks[rowmark == MARK_BAD ? 0 : 1] = true;
		for (size_t k = 0; k < nshown; k++) {
			size_t c = order[k];
			if (below[c])
				continue;
			enum mark m = t->marks[r * t->ncols + c];
			const char *s = cell_shown(t, alt, r, c, buf, sizeof(buf));
			fprintf(out, " %s", mark_color(color, m));
			size_t n = wrap && c == wrapcol ? (put_wrapped(out, s, start, start, start + w[c]), w[c])
				   : put_cut(out, s, w[c]);
			fputs(m && color ? C_RESET : "", out);
			if (c != last)
				pad(out, w[c] - n + 1);
		}
		fputc('\n', out);
	}
	/* the moved columns: one line per row, named by the first column */
	size_t kw = 0;
	for (size_t r = 0; r < t->nrows && first < t->ncols; r++) {
		size_t n = text_width(cell_shown(t, alt, r, first, buf, sizeof(buf)));
		if (n > kw)
			kw = n;
	}
	for (size_t k = 0; k < nshown; k++) {
		size_t c = order[k];
		if (!below[c])
			continue;
		fprintf(out, "    %s%s%s, by %s:\n", color ? C_DIM : "", vis(&v, t->cols[c].title, 0), color ? C_RESET : "",
			vis(&v, t->cols[first].title, 0));
		for (size_t r = 0; r < t->nrows; r++) {
			char key[256];
			cell_shown(t, alt, r, first, key, sizeof(key));
			fprintf(out, "      %s", key);
			if (limit && 6 + kw + 2 + 30 > limit) { /* too little room beside the names: below them */
				fputs("\n          ", out);
				put_wrapped(out, cell_shown(t, alt, r, c, buf, sizeof(buf)), 10, 12, limit);
			} else {
				pad(out, kw - text_width(key) + 2);
				put_wrapped(out, cell_shown(t, alt, r, c, buf, sizeof(buf)), 6 + kw + 2, 6 + kw + 4, limit);
			}
			fputc('\n', out);
		}
	}
	render_legend(t, alt, marks, wd, color, out);
	vis_release(&v);
	vis_release(&wv);
	free(order);
	free(alt);
	free(below);
	free(w);
}

/* A section: its facts and tables, then the typed member it stands for (a
 * table built from it), then its notes. The short report shows the tables
 * only. */
static void render_section(const struct result *r, const struct section *s, struct words *wd, bool color, FILE *out)
{
	char buf[1024];
	struct vis v = { 0 };
	fputs(color ? C_BOLD : "", out);
	put_wrapped(out, vis(&v, words(wd, &v, s->title, false), 0), 0, 2, wd->width);
	fprintf(out, "%s\n", color ? C_RESET : "");
	size_t lw = 0;
	for (size_t i = 0; i < s->nkv; i++)
		if (s->kvs[i].show != SHOW_JSON_ONLY && text_width(vis(&v, s->kvs[i].label, 0)) > lw)
			lw = text_width(vis(&v, s->kvs[i].label, 0));
	for (size_t i = 0; i < s->nkv; i++) {
		const struct kv *kv = &s->kvs[i];
		if (kv->show == SHOW_JSON_ONLY || wd->brief)
			continue;
		const char *label = vis(&v, kv->label, 0);
		fprintf(out, " %s %s", mark_prefix(color, kv->mark), label);
		pad(out, lw - text_width(label) + 2);
		fputs(mark_color(color, kv->mark), out);
		put_wrapped(out, vis(&v, words(wd, &v, value_text(&kv->v, buf, sizeof(buf)), false), 0), 3 + lw + 2, 3 + lw + 4,
			    wd->width);
		fprintf(out, "%s\n", kv->mark && color ? C_RESET : "");
	}
	for (size_t i = 0; i < s->ntables; i++)
		render_table(s->tables[i], wd, color, out);
	struct table *t = NULL;
	if (s->kind == SECTION_CAUSES && r->causes)
		t = report_causes_table(r->causes);
	else if (s->kind == SECTION_RANKS && r->ranks)
		t = report_ranks_table(r->ranks);
	else if (s->kind >= SECTION_TOPO_GPUS && r->topo)
		t = report_topo_table(r->topo, s->kind);
	if (t) {
		render_table(t, wd, color, out);
		table_free(t);
	}
	for (size_t i = 0; i < s->nnotes && !wd->brief; i++) {
		const char *note = vis(&v, words(wd, &v, s->notes[i], false), 0);
		size_t k = strspn(note, " ");
		if (k) { /* indented: lines to paste (a command, a file), kept as one command */
			char ind[64];
			snprintf(ind, sizeof(ind), "   %*s", (int)(k < 40 ? k : 40), "");
			put_paste(out, note + k, ind, wd->width, color ? C_DIM : "", color ? C_RESET : "");
			continue;
		}
		fprintf(out, "   %s", color ? C_DIM : "");
		put_wrapped(out, note, 3, 5, wd->width);
		fprintf(out, "%s\n", color ? C_RESET : "");
	}
	if (s->kind == SECTION_CAUSES && r->causes && r->causes->have_first) {
		const struct cause_list *l = r->causes;
		char *line = xasprintf("first failure: %s:%ld, %s: %s", l->first_file ? vis(&v, l->first_file, 0) : "-",
				       l->first_line, l->first_label ? vis(&v, l->first_label, 0) : "", vis(&v, l->first_text, 0));
		fprintf(out, "   %s", color ? C_DIM : "");
		put_wrapped(out, line, 3, 5, wd->width);
		fprintf(out, "%s\n", color ? C_RESET : "");
		free(line);
	}
	fputc('\n', out);
	vis_release(&v);
}

static const char *sev_label(enum severity s)
{
	switch (s) {
	case SEV_ERROR: return "ERROR";
	case SEV_WARNING: return "WARN ";
	default: return "info ";
	}
}

/* A fix another finding of this report printed already: its id. */
static const char *fix_printed(struct words *wd, const struct fix *x)
{
	for (size_t i = 0; i < wd->nfixes; i++)
		if (strcmp(wd->fixes[i].text, x->text) == 0)
			return wd->fixes[i].id;
	return NULL;
}

/* A finding: its title; in the whole report also its cause class, each
 * evidence line and each fix (one printed for an earlier finding is named,
 * not repeated: "setpci" once, not four times). */
static void render_finding(const struct finding *f, struct words *wd, bool color, FILE *out)
{
	struct vis v = { 0 };
	fprintf(out, "  %s%s%s %s%s%s  ", color_on(color, f->sev), sev_label(f->sev), color_off(color),
		color ? C_BOLD : "", vis(&v, f->id, 0), color ? C_RESET : "");
	put_wrapped(out, vis(&v, words(wd, &v, f->title, false), 0), 10 + text_width(vis(&v, f->id, 0)), 8, wd->width);
	fputc('\n', out);
	if (wd->brief) {
		vis_release(&v);
		return;
	}
	fputs("        cause: ", out);
	put_wrapped(out, vis(&v, words(wd, &v, f->cause, true), 0), 15, 12, wd->width);
	fputc('\n', out);
	for (size_t i = 0; i < f->nev; i++) {
		const struct evidence *e = &f->ev[i];
		const char *file = vis(&v, e->file, 0), *text = vis(&v, words(wd, &v, e->text, false), 0);
		char *line = e->file && e->line > 0 ? xasprintf("evidence: %s:%ld: %s", file, e->line, text)
			     : e->file ? xasprintf("evidence: %s: %s", file, text) : xasprintf("evidence: %s", text);
		fputs("        ", out);
		put_wrapped(out, line, 8, 12, wd->width);
		fputc('\n', out);
		free(line);
	}
	/* a fix's text and note may be several lines of our own (a docker
	 * command, a Kubernetes fragment): their newlines stay */
	size_t again = 0;
	const char *again_id = NULL;
	for (size_t i = 0; i < f->nfix; i++) {
		const struct fix *x = &f->fixes[i];
		const char *before = fix_printed(wd, x);
		if (before && strcmp(before, f->id) != 0) {
			again++;
			again_id = before;
			continue;
		}
		XGROW(wd->fixes, wd->afixes, wd->nfixes + 1);
		wd->fixes[wd->nfixes].text = x->text;
		wd->fixes[wd->nfixes++].id = f->id;
		const char *kind = vis(&v, x->kind, 0), *text = vis(&v, x->text, STR_VIS_NEWLINE);
		size_t lead = 8 + 8 + text_width(kind); /* "        fix (KIND): " */
		if (strchr(text, '\n') || lead + text_width(text) <= wd->width || !wd->width) {
			fprintf(out, "        fix (%s): %s%s%s\n", kind, color ? C_GREEN : "", text, color_off(color));
		} else if (strcmp(x->kind, "note") == 0 || strcmp(x->kind, "bios") == 0) { /* words, not a command */
			fprintf(out, "        fix (%s): ", kind);
			put_wrapped(out, text, lead, 12, wd->width);
			fputc('\n', out);
		} else { /* a command: on its own lines, to paste */
			fprintf(out, "        fix (%s):\n", kind);
			put_paste(out, text, "            ", wd->width, color ? C_GREEN : "", color_off(color));
		}
		if (x->note) {
			fprintf(out, "            %s", color ? C_DIM : "");
			const char *note = vis(&v, x->note, STR_VIS_NEWLINE);
			if (strchr(note, '\n'))
				fputs(note, out);
			else
				put_wrapped(out, note, 12, 12, wd->width);
			fprintf(out, "%s\n", color_off(color));
		}
	}
	if (again)
		fprintf(out, "        fix: %zu more, the same as for %s above\n", again, vis(&v, again_id, 0));
	vis_release(&v);
}

/* ---- the first screen ----------------------------------------------------
 * For the commands people run in the middle of an outage, the report starts
 * with what to do: the action (the command's own, else the top problem's
 * first fix), the most likely cause with at most three evidence lines, and
 * what could not be checked; a rule separates it from the details, which
 * follow as before. The same facts are in --json in their own members. */
static const char *const first_screen_cmds[] = { "check", "fix", "p2p", "logs", "kernel", "watch" };

static bool has_first_screen(const struct result *r)
{
	for (size_t i = 0; r->command && i < sizeof(first_screen_cmds) / sizeof(first_screen_cmds[0]); i++)
		if (strcmp(r->command, first_screen_cmds[i]) == 0)
			return true;
	return false;
}

const struct finding *report_top_problem(const struct result *r)
{
	const char *cause = r->causes && r->causes->n ? r->causes->v[0].cause : NULL;
	const struct finding *best = NULL;
	for (int pass = 0; pass < 2 && !best; pass++)
		for (size_t i = 0; i < r->nfindings; i++) {
			const struct finding *f = r->findings[i];
			if (f->sev == SEV_INFO || (pass == 0 && (!cause || !f->cause || strcmp(f->cause, cause) != 0)))
				continue;
			if (!best || f->sev > best->sev)
				best = f;
		}
	return best;
}

static void put_block(FILE *out, struct vis *v, const char *text, const char *indent, struct words *wd, bool color)
{
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, n);
		put_paste(out, vis(v, line, 0), indent, wd->width, color ? C_GREEN : "", color ? C_RESET : "");
		free(line);
		p += n + (nl ? 1 : 0);
	}
}

/* "Label: text" of the first screen, wrapped under the label. */
static void put_labelled(FILE *out, const char *label, const char *text, struct words *wd, bool color)
{
	fprintf(out, "%s%s%s: ", color ? C_BOLD : "", label, color ? C_RESET : "");
	put_wrapped(out, text, text_width(label) + 2, 4, wd->width);
	fputc('\n', out);
}

/* An evidence line under the first screen's cause: indented 4, wrapped at 6. */
static void put_evidence(FILE *out, const char *text, struct words *wd)
{
	fputs("    ", out);
	put_wrapped(out, text, 4, 6, wd->width);
	fputc('\n', out);
}

static bool is_stage_errors(const struct section *s)
{
	return strcmp(s->key, "stage_errors") == 0;
}

static void render_first_screen(const struct result *r, struct words *wd, bool color, FILE *out)
{
	struct vis v = { 0 };
	bool any = false;
	const struct finding *top = report_top_problem(r);
	if (r->action && *r->action) {
		put_labelled(out, "Do this now", vis(&v, r->action_title, 0), wd, color);
		put_block(out, &v, r->action, "    ", wd, color);
		any = true;
	} else if (top && top->nfix) {
		const struct fix *x = &top->fixes[0];
		if (strcmp(x->kind, "note") == 0) { /* advice in words, not lines to paste */
			fprintf(out, "%sNext%s (for %s):\n", color ? C_BOLD : "", color ? C_RESET : "", vis(&v, top->id, 0));
			fputs("    ", out);
			put_wrapped(out, vis(&v, x->text, 0), 4, 4, wd->width);
			fputc('\n', out);
		} else {
			fprintf(out, "%sDo this now%s (%s, for %s):\n", color ? C_BOLD : "", color ? C_RESET : "",
				vis(&v, x->kind, 0), vis(&v, top->id, 0));
			put_block(out, &v, x->text, "    ", wd, color);
		}
		if (x->note) { /* what it does: "reboot the node (bare metal)" */
			fprintf(out, "    %s", color ? C_DIM : "");
			put_wrapped(out, vis(&v, x->note, 0), 4, 4, wd->width);
			fprintf(out, "%s\n", color ? C_RESET : "");
		}
		any = true;
	}
	const struct cause *c = r->causes && r->causes->n && r->causes->failed ? &r->causes->v[0] : NULL;
	if (c) {
		char *t = xasprintf("%s (%.2f)", vis(&v, words(wd, &v, c->cause, true), 0), c->confidence);
		put_labelled(out, "Most likely cause", t, wd, color);
		free(t);
		for (size_t i = 0; i < c->nev && i < 3; i++)
			put_evidence(out, vis(&v, words(wd, &v, c->ev[i].text, false), 0), wd);
		struct strbuf sb;
		strbuf_init(&sb, 1 << 12);
		for (size_t i = 1; i < r->causes->n && i < 4; i++)
			strbuf_addf(&sb, "%s%s (%.2f)", i > 1 ? "; " : "", words(wd, &v, r->causes->v[i].cause, true),
				    r->causes->v[i].confidence);
		if (sb.len)
			put_labelled(out, "Other possible causes", vis(&v, strbuf_str(&sb), 0), wd, color);
		strbuf_release(&sb);
		any = true;
	}
	if (top && (!c || !top->cause || strcmp(top->cause, c->cause) != 0 || c->nev == 0)) {
		fprintf(out, "%sProblem%s: %s%s%s ", color ? C_BOLD : "", color ? C_RESET : "", color_on(color, top->sev),
			vis(&v, top->id, 0), color_off(color));
		put_wrapped(out, vis(&v, words(wd, &v, top->title, false), 0), 10 + text_width(vis(&v, top->id, 0)), 4, wd->width);
		fputc('\n', out);
		for (size_t i = 0; i < top->nev && i < 3; i++)
			put_evidence(out, vis(&v, words(wd, &v, top->ev[i].text, false), 0), wd);
		any = true;
	}
	for (size_t i = 0; i < r->nsections; i++) {
		const struct section *s = r->sections[i];
		for (size_t k = 0; is_stage_errors(s) && k < s->nnotes; k++) {
			put_labelled(out, "Not checked", vis(&v, s->notes[k], 0), wd, color);
			any = true;
		}
	}
	if (any)
		fprintf(out, "%s---- details ----%s\n\n", color ? C_DIM : "", color ? C_RESET : "");
	vis_release(&v);
}

/* The short report's last line before the verdict: what it left out. */
static void render_left_out(const struct result *r, struct words *wd, bool color, FILE *out)
{
	struct strbuf sb;
	strbuf_init(&sb, 1 << 16);
	struct vis v = { 0 };
	size_t n = 0;
	for (size_t i = 0; i < r->nsections; i++) {
		const struct section *s = r->sections[i];
		if (s->brief || is_stage_errors(s))
			continue;
		/* the title without its parenthesis ("GPUs (PCI)": "GPUs"), each once */
		const char *t = vis(&v, words(wd, &v, s->title, false), 0), *paren = strstr(t, " (");
		int len = paren ? (int)(paren - t) : (int)strlen(t);
		char name[256];
		snprintf(name, sizeof(name), "%.*s", len, t);
		bool dup = false;
		for (const char *p = strbuf_str(&sb); !dup && (p = strstr(p, name)) != NULL; p += strlen(name))
			dup = (p == strbuf_str(&sb) || p[-1] == ' ') && (p[strlen(name)] == ',' || p[strlen(name)] == '\0');
		if (!dup && n < 8)
			strbuf_addf(&sb, "%s%s", n ? ", " : "", name);
		n += !dup;
	}
	bool ev = false;
	for (size_t i = 0; i < r->nfindings; i++)
		ev |= r->findings[i]->nev || r->findings[i]->nfix;
	for (size_t i = 0; i < r->nsections && !ev; i++)
		ev |= r->sections[i]->brief && r->sections[i]->nnotes;
	if (n || ev) {
		char more[32] = "";
		if (n > 8)
			snprintf(more, sizeof(more), " and %zu more", n - 8);
		char *line = xasprintf("Left out here: %s%s%s%s (--full shows them, --json has everything)", strbuf_str(&sb), more,
				       n && ev ? "; " : "", ev ? "the evidence and fixes of each finding" : "");
		fputs(color ? C_DIM : "", out);
		put_wrapped(out, line, 0, 2, wd->width);
		fprintf(out, "%s\n\n", color ? C_RESET : "");
		free(line);
	}
	vis_release(&v);
	strbuf_release(&sb);
}

void report_text(const struct result *r, const struct render_opts *o, FILE *out)
{
	struct vis v = { 0 };
	struct words wd = { .width = term_width(out) };
	bool color = o->color, first = has_first_screen(r) && !r->error;
	wd.brief = first && !o->full;
	if (r->headline) {
		fputs(color ? C_BOLD : "", out);
		put_wrapped(out, vis(&v, words(&wd, &v, r->headline, false), 0), 0, 2, wd.width);
		fprintf(out, "%s\n\n", color ? C_RESET : "");
	}
	if (first)
		render_first_screen(r, &wd, color, out);
	for (size_t i = 0; i < r->nsections; i++)
		if (!(first && is_stage_errors(r->sections[i])) && (!wd.brief || r->sections[i]->brief))
			render_section(r, r->sections[i], &wd, color, out);
	int counts[3] = { 0, 0, 0 };
	for (size_t i = 0; i < r->nfindings; i++)
		counts[r->findings[i]->sev]++;
	if (r->nfindings) {
		fprintf(out, "%sFindings%s\n", color ? C_BOLD : "", color_off(color));
		for (size_t i = 0; i < r->nfindings; i++)
			render_finding(r->findings[i], &wd, color, out);
		fputc('\n', out);
	}
	if (wd.brief)
		render_left_out(r, &wd, color, out);
	free(wd.fixes);
	if (r->error) { /* nothing to check (no GPU, no driver, no log), or the tool could not run */
		bool nothing = r->verdict && strcmp(r->verdict, RESULT_NOTHING_TO_CHECK) == 0;
		const char *label = nothing ? "Nothing to check:" : "Could not complete:";
		fprintf(out, "%s%s%s ", color_on(color, SEV_ERROR), label, color_off(color));
		put_wrapped(out, vis(&v, r->error, 0), strlen(label) + 1, 2, wd.width);
		fputc('\n', out);
		if (nothing)
			fprintf(out, "Verdict: %s\n", RESULT_NOTHING_TO_CHECK);
		vis_release(&v);
		return;
	}
	if (r->no_verdict) {
		vis_release(&v);
		return;
	}
	int code = result_exit_code(r);
	const char *verdict = result_verdict(r);
	enum severity vs = code == 2 ? SEV_ERROR : code == 1 ? SEV_WARNING : SEV_INFO;
	fprintf(out, "Verdict: %s%s%s (%d error%s, %d warning%s, %d note%s)\n",
		code == 0 && color ? C_GREEN C_BOLD : color_on(color, vs), vis(&v, verdict, 0), color_off(color),
		counts[SEV_ERROR], counts[SEV_ERROR] == 1 ? "" : "s",
		counts[SEV_WARNING], counts[SEV_WARNING] == 1 ? "" : "s",
		counts[SEV_INFO], counts[SEV_INFO] == 1 ? "" : "s");
	vis_release(&v);
}

int report_render(const struct result *r, const struct render_opts *o, FILE *out)
{
	if (o->format == REPORT_MARKDOWN)
		return report_markdown(r, out);
	if (o->json) {
		json_t *doc = report_json(r);
		int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(ND_JSON_REAL_DIGITS));
		json_decref(doc);
		fputc('\n', out);
		if (rc < 0)
			return -EIO;
	} else {
		report_text(r, o, out);
	}
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
