/* The text report's layout: display widths, prose wrapped at the
 * terminal's width, lines to paste continued with a backslash, cells cut
 * with a mark, and the widths that fit a table into the terminal. */
#include "kb/causes.h"
#include "report/report.h"
#include "report/text_int.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

/* Display width of UTF-8 text: counts code points, not bytes. */
size_t tx_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		if (((unsigned char)*s & 0xC0) != 0x80)
			w++;
	return w;
}

void tx_pad(FILE *out, size_t n)
{
	while (n-- > 0)
		fputc(' ', out);
}

/* Display width of the n bytes at s. */
size_t tx_span_width(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			w++;
	return w;
}

/* Where a word of n bytes at w breaks to fit room columns (room < its
 * width): after the last '/' that leaves the part within room and fills at
 * least half of it (a path breaks between directories), else after the
 * last ':', ',', ';', '=', '_', '-' or '.', else at room itself (counted in
 * bytes of whole characters). */
static size_t word_break(const char *w, size_t n, size_t room)
{
	size_t cols = 0, slash = 0, slash_cols = 0, best = 0, hard = 0;
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
		if (end >= n)
			continue;
		if (w[i] == '/') {
			slash = end;
			slash_cols = cols;
		}
		if (strchr("/:,;=_-.", w[i]))
			best = end;
	}
	if (slash && 2 * slash_cols >= room)
		return slash;
	return best ? best : hard ? hard : n;
}

/* Prose to out from column col on, wrapped at width: lines break at spaces
 * and go on at column indent. A word that does not fit where it stands
 * starts the next line; one wider than a whole line breaks after a '/'
 * or another separator (a path), else where the line ends, so no line of
 * prose is wider than width. No newline at the end; width 0: one line. */
void tx_wrap(FILE *out, const char *s, size_t col, size_t indent, size_t width)
{
	if (!width || col + tx_width(s) <= width) {
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
		size_t nsp = (size_t)(w - sp), ww = tx_span_width(w, (size_t)(p - w));
		if (p == w)
			break; /* trailing spaces */
		if (col + (start ? 0 : nsp) + ww > width && (!start || col > indent)) { /* the next line, at indent */
			fputc('\n', out);
			tx_pad(out, indent);
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
			tx_pad(out, indent);
			col = indent;
			w += cut;
			ww = tx_span_width(w, (size_t)(p - w));
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
void tx_paste(FILE *out, const char *line, const char *indent, size_t width, const char *on, const char *off)
{
	size_t ind = tx_width(indent);
	const char *p = line;
	bool comment = *p == '#', first = true;
	do {
		size_t lead = ind + (first ? 0 : 4 + (comment ? 2 : 0));
		size_t room = width > lead + 8 ? width - lead : 0;
		const char *fit = NULL, *any = NULL; /* the last space that fits, the first space */
		if (room && tx_width(p) > room) {
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
size_t tx_term_width(FILE *out)
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
const char *tx_cell_text(const struct value *v, char *buf, size_t bufsz)
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
size_t tx_cut(FILE *out, const char *s, size_t w)
{
	if (tx_width(s) <= w) {
		fputs(s, out);
		return tx_width(s);
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
size_t tx_line_width(const struct table *t, const size_t *w, const bool *below)
{
	size_t line = 3;
	for (size_t c = 0; c < t->ncols; c++)
		if (t->cols[c].show != SHOW_JSON_ONLY && !below[c])
			line += w[c] + 2;
	return line;
}

/* The widest column shown other than the first (the row key), of those
 * at least min wide, or ncols. */
size_t tx_widest_other(const struct table *t, const size_t *w, const bool *below, size_t first, size_t min)
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
bool tx_identifying(const struct table *t, size_t c, size_t first)
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
bool tx_free_text(const struct table *t, size_t c)
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
void tx_fit_widths(const struct table *t, size_t *w, bool *below, size_t first, size_t limit)
{
	size_t *nat = xcalloc(t->ncols, sizeof(size_t));
	memcpy(nat, w, t->ncols * sizeof(size_t));
	size_t c;
	while (tx_line_width(t, w, below) > limit && (c = tx_widest_other(t, w, below, first, 20)) < t->ncols)
		below[c] = true;
	for (;;) {
		memcpy(w, nat, t->ncols * sizeof(size_t));
		size_t line = tx_line_width(t, w, below);
		while (line > limit) {
			size_t best = t->ncols;
			for (size_t k = 0; k < t->ncols; k++) {
				if (t->cols[k].show == SHOW_JSON_ONLY || below[k] || tx_identifying(t, k, first) || !tx_free_text(t, k))
					continue;
				size_t tw = tx_width(t->cols[k].title), minw = tw > 4 ? tw : 4;
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
			if (t->cols[k].show != SHOW_JSON_ONLY && !below[k] && !tx_identifying(t, k, first) &&
			    (c == t->ncols || nat[k] > nat[c]))
				c = k;
		if (c == t->ncols && (c = tx_widest_other(t, nat, below, first, 0)) == t->ncols)
			break; /* one column left: the terminal wraps the rest */
		below[c] = true;
	}
	free(nat);
}
