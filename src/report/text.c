/* Human text renderer: the first screen (text_first.c) of the commands
 * people run in an outage, then sections of aligned facts and tables
 * (text_table.c), then the findings with their evidence and fixes, then a
 * one-line verdict. The short report (no --full) keeps the sections cmd/
 * marks brief, their tables only, and one line per finding.
 *
 * Text fits the terminal (layout.c): the width is COLUMNS when set, else
 * the terminal's (TIOCGWINSZ) when stdout is one, else 100. Prose wraps;
 * lines to paste go on after " \"; a cell cut to fit ends in "…", so cut
 * text is always marked, and a cell that names something is never cut.
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
#include "report/text_int.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>


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

const char *tx_mark_color(bool color, enum mark m)
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

const char *tx_mark_prefix(bool color, enum mark m)
{
	if (color)
		return " ";
	switch (m) {
	case MARK_BAD: return "!";
	case MARK_WARN: return "*";
	default: return " ";
	}
}


/* s itself when it prints as it is, else its visible form (kept in v). */
const char *tx_vis(struct vis *v, const char *s, unsigned flags)
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

void tx_vis_release(struct vis *v)
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
	fputs(tx_vis(&v, s, flags), out);
	tx_vis_release(&v);
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
const char *tx_words(struct words *w, struct vis *v, const char *s, bool whole)
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

/* A section: its facts and tables, then the typed member it stands for (a
 * table built from it), then its notes. The short report shows the tables
 * only. */
static void render_section(const struct result *r, const struct section *s, struct words *wd, bool color, FILE *out)
{
	char buf[1024];
	struct vis v = { 0 };
	fputs(color ? C_BOLD : "", out);
	tx_wrap(out, tx_vis(&v, tx_words(wd, &v, s->title, false), 0), 0, 2, wd->width);
	fprintf(out, "%s\n", color ? C_RESET : "");
	size_t lw = 0;
	for (size_t i = 0; i < s->nkv; i++)
		if (s->kvs[i].show != SHOW_JSON_ONLY && tx_width(tx_vis(&v, s->kvs[i].label, 0)) > lw)
			lw = tx_width(tx_vis(&v, s->kvs[i].label, 0));
	for (size_t i = 0; i < s->nkv; i++) {
		const struct kv *kv = &s->kvs[i];
		if (kv->show == SHOW_JSON_ONLY || wd->brief)
			continue;
		const char *label = tx_vis(&v, kv->label, 0);
		fprintf(out, " %s %s", tx_mark_prefix(color, kv->mark), label);
		tx_pad(out, lw - tx_width(label) + 2);
		fputs(tx_mark_color(color, kv->mark), out);
		tx_wrap(out, tx_vis(&v, tx_words(wd, &v, value_text(&kv->v, buf, sizeof(buf)), false), 0), 3 + lw + 2, 3 + lw + 4,
			    wd->width);
		fprintf(out, "%s\n", kv->mark && color ? C_RESET : "");
	}
	for (size_t i = 0; i < s->ntables; i++)
		tx_render_table(s->tables[i], wd, color, out);
	struct table *t = report_section_table(r, s);
	if (t) {
		tx_render_table(t, wd, color, out);
		table_free(t);
	}
	for (size_t i = 0; i < s->nnotes && !wd->brief; i++) {
		const char *note = tx_vis(&v, tx_words(wd, &v, s->notes[i], false), 0);
		size_t k = strspn(note, " ");
		if (k) { /* indented: lines to paste (a command, a file), kept as one command */
			char ind[64];
			snprintf(ind, sizeof(ind), "   %*s", (int)(k < 40 ? k : 40), "");
			tx_paste(out, note + k, ind, wd->width, color ? C_DIM : "", color ? C_RESET : "");
			continue;
		}
		fprintf(out, "   %s", color ? C_DIM : "");
		tx_wrap(out, note, 3, 5, wd->width);
		fprintf(out, "%s\n", color ? C_RESET : "");
	}
	if (s->kind == SECTION_CAUSES && r->causes && r->causes->have_first) {
		const struct cause_list *l = r->causes;
		char *line = xasprintf("first failure: %s:%ld, %s: %s", l->first_file ? tx_vis(&v, l->first_file, 0) : "-",
				       l->first_line, l->first_label ? tx_vis(&v, l->first_label, 0) : "", tx_vis(&v, l->first_text, 0));
		fprintf(out, "   %s", color ? C_DIM : "");
		tx_wrap(out, line, 3, 5, wd->width);
		fprintf(out, "%s\n", color ? C_RESET : "");
		free(line);
	}
	fputc('\n', out);
	tx_vis_release(&v);
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
		color ? C_BOLD : "", tx_vis(&v, f->id, 0), color ? C_RESET : "");
	tx_wrap(out, tx_vis(&v, tx_words(wd, &v, f->title, false), 0), 10 + tx_width(tx_vis(&v, f->id, 0)), 8, wd->width);
	fputc('\n', out);
	if (wd->brief) {
		tx_vis_release(&v);
		return;
	}
	fputs("        cause: ", out);
	tx_wrap(out, tx_vis(&v, tx_words(wd, &v, f->cause, true), 0), 15, 12, wd->width);
	fputc('\n', out);
	for (size_t i = 0; i < f->nev; i++) {
		const struct evidence *e = &f->ev[i];
		const char *file = tx_vis(&v, e->file, 0), *text = tx_vis(&v, tx_words(wd, &v, e->text, false), 0);
		char *line = e->file && e->line > 0 ? xasprintf("evidence: %s:%ld: %s", file, e->line, text)
			     : e->file ? xasprintf("evidence: %s: %s", file, text) : xasprintf("evidence: %s", text);
		fputs("        ", out);
		tx_wrap(out, line, 8, 12, wd->width);
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
		const char *kind = tx_vis(&v, x->kind, 0), *text = tx_vis(&v, x->text, STR_VIS_NEWLINE);
		size_t lead = 8 + 8 + tx_width(kind); /* "        fix (KIND): " */
		if (strchr(text, '\n') || lead + tx_width(text) <= wd->width || !wd->width) {
			fprintf(out, "        fix (%s): %s%s%s\n", kind, color ? C_GREEN : "", text, color_off(color));
		} else if (strcmp(x->kind, "note") == 0 || strcmp(x->kind, "bios") == 0) { /* words, not a command */
			fprintf(out, "        fix (%s): ", kind);
			tx_wrap(out, text, lead, 12, wd->width);
			fputc('\n', out);
		} else { /* a command: on its own lines, to paste */
			fprintf(out, "        fix (%s):\n", kind);
			tx_paste(out, text, "            ", wd->width, color ? C_GREEN : "", color_off(color));
		}
		if (x->note) {
			fprintf(out, "            %s", color ? C_DIM : "");
			const char *note = tx_vis(&v, x->note, STR_VIS_NEWLINE);
			if (strchr(note, '\n'))
				fputs(note, out);
			else
				tx_wrap(out, note, 12, 12, wd->width);
			fprintf(out, "%s\n", color_off(color));
		}
	}
	if (again)
		fprintf(out, "        fix: %zu more, the same as for %s above\n", again, tx_vis(&v, again_id, 0));
	tx_vis_release(&v);
}

void report_text(const struct result *r, const struct render_opts *o, FILE *out)
{
	struct vis v = { 0 };
	struct words wd = { .width = tx_term_width(out) };
	bool color = o->color, first = tx_has_first_screen(r) && !r->error;
	wd.brief = first && !o->full;
	if (r->headline) {
		fputs(color ? C_BOLD : "", out);
		tx_wrap(out, tx_vis(&v, tx_words(&wd, &v, r->headline, false), 0), 0, 2, wd.width);
		fprintf(out, "%s\n\n", color ? C_RESET : "");
	}
	if (first)
		tx_first_screen(r, &wd, color, out);
	for (size_t i = 0; i < r->nsections; i++)
		if (!(first && tx_is_stage_errors(r->sections[i])) && (!wd.brief || r->sections[i]->brief))
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
		tx_left_out(r, &wd, color, out);
	free(wd.fixes);
	if (r->error) { /* nothing to check (no GPU, no driver, no log), or the tool could not run */
		bool nothing = r->verdict && strcmp(r->verdict, RESULT_NOTHING_TO_CHECK) == 0;
		const char *label = nothing ? "Nothing to check:" : "Could not complete:";
		fprintf(out, "%s%s%s ", color_on(color, SEV_ERROR), label, color_off(color));
		tx_wrap(out, tx_vis(&v, r->error, 0), strlen(label) + 1, 2, wd.width);
		fputc('\n', out);
		if (nothing)
			fprintf(out, "Verdict: %s\n", RESULT_NOTHING_TO_CHECK);
		tx_vis_release(&v);
		return;
	}
	if (r->no_verdict) {
		tx_vis_release(&v);
		return;
	}
	int code = result_exit_code(r);
	const char *verdict = result_verdict(r);
	enum severity vs = code == 2 ? SEV_ERROR : code == 1 ? SEV_WARNING : SEV_INFO;
	fprintf(out, "Verdict: %s%s%s (%d error%s, %d warning%s, %d note%s)\n",
		code == 0 && color ? C_GREEN C_BOLD : color_on(color, vs), tx_vis(&v, verdict, 0), color_off(color),
		counts[SEV_ERROR], counts[SEV_ERROR] == 1 ? "" : "s",
		counts[SEV_WARNING], counts[SEV_WARNING] == 1 ? "" : "s",
		counts[SEV_INFO], counts[SEV_INFO] == 1 ? "" : "s");
	tx_vis_release(&v);
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
