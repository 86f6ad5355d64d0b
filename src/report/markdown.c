/* Markdown renderer: a result as GitHub-flavoured markdown to paste into an
 * issue of NCCL, PyTorch or vLLM (--format markdown, --md).
 *
 * Layout: a heading with the verdict, the headline, one line of the facts a
 * maintainer asks first (tool version, date, driver, CUDA, NCCL, GPUs); the
 * first screen as the text report has it (the action as a fenced block, the
 * most likely cause or the top problem with at most three evidence lines,
 * what could not be checked); then every section and the findings, each in
 * a <details> block.
 *
 * Safe to paste: every string passes through the snapshot's redaction
 * (report/paste_int.h, util/envfilter.h: URL user information and long high-entropy words
 * become <redacted>, and so does the value of NAME=VALUE, a fact or a table
 * row whose name is a secret's), control characters never go out raw
 * (util/text.h str_visible; a tab becomes a space), and text from outside
 * cannot open or close a block: prose is escaped, log lines are code spans,
 * fixes fenced blocks with a fence longer than any backtick run inside.
 *
 * Sized for an issue body (GitHub takes 65,536 characters): the document
 * stays under MD_MAX_CHARS; when the details would pass it, the largest
 * <details> blocks go first (the later one of two equal) and one line says
 * how many were left out. The first screen is never cut. */
#include "kb/causes.h"
#include "report/paste_int.h"
#include "report/report.h"
#include "util/envfilter.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* ---- markdown forms ---- */

static bool word_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}


/* Prose: characters markdown would read as markup are escaped; a newline
 * becomes sep ("<br>" in a table cell, " " elsewhere). */
static void put_prose(struct strbuf *o, const char *s, const char *sep)
{
	char *c = paste_clean(s, STR_VIS_NEWLINE);
	/* at the start of a line: a heading, a list item, an ordered one */
	bool line_start = o->len == 0 || o->buf[o->len - 1] == '\n';
	size_t digits = strspn(c, "0123456789");
	const char *ordered = line_start && digits && (c[digits] == '.' || c[digits] == ')') ? c + digits : NULL;
	for (const char *p = c; *p; p++) {
		char ch = *p;
		bool intraword = p > c && word_char(p[-1]) && word_char(p[1]);
		if (ch == '\n') {
			strbuf_adds(o, sep);
		} else if (ch == '\r') {
			strbuf_addch(o, ' ');
		} else if (strchr("\\`*[]<>|~&", ch) || (ch == '_' && !intraword) ||
			   (p == c && line_start && strchr("#+-=", ch)) || p == ordered) {
			strbuf_addch(o, '\\');
			strbuf_addch(o, ch);
		} else {
			strbuf_addch(o, ch);
		}
	}
	free(c);
}

/* HTML text (a <summary>): & < > as entities. */
static void put_html(struct strbuf *o, const char *s)
{
	char *c = paste_clean(s, 0);
	for (const char *p = c; *p; p++) {
		if (*p == '<')
			strbuf_adds(o, "&lt;");
		else if (*p == '>')
			strbuf_adds(o, "&gt;");
		else if (*p == '&')
			strbuf_adds(o, "&amp;");
		else
			strbuf_addch(o, *p);
	}
	free(c);
}

static size_t longest_run(const char *s, char ch)
{
	size_t best = 0, run = 0;
	for (; *s; s++) {
		run = *s == ch ? run + 1 : 0;
		if (run > best)
			best = run;
	}
	return best;
}

/* A code span: a log line, an id, as it is (one line). */
static void put_code(struct strbuf *o, const char *s)
{
	char *c = paste_clean(s, 0);
	size_t n = longest_run(c, '`') + 1;
	for (size_t i = 0; i < n; i++)
		strbuf_addch(o, '`');
	bool pad = c[0] == '`' || c[0] == ' ' || (*c && (c[strlen(c) - 1] == '`' || c[strlen(c) - 1] == ' '));
	if (pad || !*c)
		strbuf_addch(o, ' ');
	strbuf_adds(o, c);
	if (pad || !*c)
		strbuf_addch(o, ' ');
	for (size_t i = 0; i < n; i++)
		strbuf_addch(o, '`');
	free(c);
}

/* A fenced block of lines to paste, lang "sh", "yaml" or "text". */
static void put_fence(struct strbuf *o, const char *lang, const char *s)
{
	char *c = paste_clean(s, STR_VIS_NEWLINE);
	size_t n = longest_run(c, '`') + 1;
	if (n < 3)
		n = 3;
	for (size_t i = 0; i < n; i++)
		strbuf_addch(o, '`');
	strbuf_addf(o, "%s\n%s", lang, c);
	if (!*c || c[strlen(c) - 1] != '\n')
		strbuf_addch(o, '\n');
	for (size_t i = 0; i < n; i++)
		strbuf_addch(o, '`');
	strbuf_addch(o, '\n');
	free(c);
}

/* The language of a fix's fenced block; NULL: words, not lines to paste. */
static const char *fence_lang(const char *kind)
{
	if (paste_fix_words(kind))
		return NULL;
	return strcmp(kind, "k8s") == 0 ? "yaml" : strcmp(kind, "kernel") == 0 ? "text" : "sh";
}

/* A class id as its title, the id in code beside it. */
static void put_cause(struct strbuf *o, const char *id)
{
	const char *t = kb_cause_title(id);
	if (t) {
		put_prose(o, t, " ");
		strbuf_adds(o, " (");
		put_code(o, id);
		strbuf_adds(o, ")");
	} else {
		put_code(o, id);
	}
}

/* Free text with the class ids it names (as whole words) turned into their
 * titles, as the text report words them. */
static void put_words(struct strbuf *o, const char *s, const char *sep)
{
	char *w = paste_words(s);
	put_prose(o, w, sep);
	free(w);
}

/* ---- facts a maintainer asks first ---- */

static void header_facts(struct strbuf *o, const struct result *r)
{
	struct paste_fact f[PASTE_FACTS_MAX];
	size_t n = paste_header_facts(r, f);
	strbuf_addf(o, "%s %s \xc2\xb7 %s", f[0].label, f[0].value, f[1].value);
	for (size_t i = 2; i < n; i++) {
		strbuf_adds(o, " \xc2\xb7 ");
		put_prose(o, f[i].label, " ");
		strbuf_addch(o, ' ');
		put_prose(o, f[i].value, " ");
	}
	strbuf_adds(o, "\n\n");
}

/* ---- the first screen ---- */

static void put_evidence(struct strbuf *o, const struct evidence *e)
{
	strbuf_adds(o, "- ");
	if (e->source) /* a verdict that joins a log with the machine: where it came from */
		strbuf_addf(o, "*%s:* ", e->source);
	if (e->file) {
		put_prose(o, e->file, " ");
		if (e->line > 0)
			strbuf_addf(o, ":%ld", e->line);
		strbuf_adds(o, ": ");
		put_code(o, e->text);
	} else {
		put_words(o, e->text, " ");
	}
	strbuf_addch(o, '\n');
}

static void first_screen(struct strbuf *o, const struct result *r)
{
	const struct finding *top = report_top_problem(r);
	if (r->action && *r->action) {
		strbuf_adds(o, "**Do this now:** ");
		put_prose(o, r->action_title ? r->action_title : "", " ");
		strbuf_adds(o, "\n\n");
		put_fence(o, "sh", r->action);
		strbuf_addch(o, '\n');
	} else if (top && top->nfix) {
		const struct fix *x = &top->fixes[0];
		if (!fence_lang(x->kind)) { /* advice in words, not lines to paste */
			strbuf_adds(o, "**Next** (for ");
			put_code(o, top->id);
			strbuf_adds(o, "): ");
			put_words(o, x->text, " ");
			if (x->note) { /* what it does: "reboot the node (bare metal)" */
				strbuf_adds(o, ": ");
				put_words(o, x->note, " ");
			}
			strbuf_adds(o, "\n\n");
		} else {
			strbuf_adds(o, "**Do this now** (");
			put_prose(o, x->kind, " ");
			strbuf_adds(o, ", for ");
			put_code(o, top->id);
			strbuf_adds(o, "):\n\n");
			char *lines = report_first_fix_lines(top);
			put_fence(o, fence_lang(x->kind), lines);
			free(lines);
			if (x->note) {
				strbuf_addch(o, '\n');
				put_prose(o, x->note, " ");
				strbuf_addch(o, '\n');
			}
			strbuf_addch(o, '\n');
		}
	}
	const struct cause *c = report_first_cause(r);
	if (c) {
		/* only priors (logs' LOG_CAUSE_UNKNOWN): no verdict, the first candidate */
		strbuf_adds(o, r->causes->unknown ? "**Cause unknown; first candidate:** " : "**Most likely cause:** ");
		put_cause(o, c->cause);
		strbuf_addf(o, ", confidence %.2f\n\n", c->confidence);
		const struct evidence *shown[3];
		size_t nshown = report_first_evidence(c, shown, 3);
		for (size_t i = 0; i < nshown; i++)
			put_evidence(o, shown[i]);
		if (nshown)
			strbuf_addch(o, '\n');
	}
	if (report_problem_apart(top, c)) {
		strbuf_addf(o, "**Problem** (%s): ", severity_name(top->sev));
		put_code(o, top->id);
		strbuf_addch(o, ' ');
		put_words(o, top->title, " ");
		strbuf_adds(o, "\n\n");
		for (size_t i = 0; i < top->nev && i < 3; i++)
			put_evidence(o, &top->ev[i]);
		if (top->nev)
			strbuf_addch(o, '\n');
	}
	char **nc;
	size_t nnc = report_not_checked(r, top, &nc);
	if (nnc)
		strbuf_adds(o, "**Not checked:**\n\n");
	for (size_t k = 0; k < nnc && k < 4; k++) {
		strbuf_adds(o, "- ");
		put_prose(o, nc[k], " ");
		strbuf_addch(o, '\n');
	}
	if (nnc > 4)
		strbuf_addf(o, "- %zu more (see the details)\n", nnc - 4);
	if (nnc)
		strbuf_addch(o, '\n');
	report_lines_free(nc, nnc);
}

/* ---- details ---- */

static const char *mark_sign(enum mark m)
{
	return m == MARK_BAD ? "\xe2\x9d\x8c " : m == MARK_WARN ? "\xe2\x9a\xa0\xef\xb8\x8f " : "";
}

/* A table cell's text, a class as its title. */
static void put_cell(struct strbuf *o, const struct table *t, size_t r, size_t c, bool secret)
{
	char *s = paste_cell_text(t, r, c, secret);
	put_prose(o, s, "<br>");
	free(s);
}

static void put_table(struct strbuf *o, const struct table *t)
{
	if (!t->nrows)
		return;
	bool *on = xcalloc(t->ncols ? t->ncols : 1, sizeof(bool));
	size_t first, ncols = paste_table_columns(t, on, &first);
	if (!ncols) {
		free(on);
		return;
	}
	if (t->title) {
		strbuf_adds(o, "**");
		put_prose(o, t->title, " ");
		strbuf_adds(o, "**\n\n");
	}
	strbuf_addch(o, '|');
	for (size_t c = 0; c < t->ncols; c++)
		if (on[c]) {
			strbuf_addch(o, ' ');
			put_prose(o, t->cols[c].title && *t->cols[c].title ? t->cols[c].title : t->cols[c].key, " ");
			strbuf_adds(o, " |");
		}
	strbuf_adds(o, "\n|");
	for (size_t c = 0; c < t->ncols; c++)
		if (on[c])
			strbuf_adds(o, " --- |");
	strbuf_addch(o, '\n');
	for (size_t r = 0; r < t->nrows; r++) {
		enum mark rowmark = MARK_NONE;
		for (size_t c = 0; c < t->ncols; c++)
			if (t->marks[r * t->ncols + c] > rowmark)
				rowmark = t->marks[r * t->ncols + c];
		bool secret = paste_row_secret(t, r);
		strbuf_addch(o, '|');
		for (size_t c = 0; c < t->ncols; c++) {
			if (!on[c])
				continue;
			strbuf_addch(o, ' ');
			if (c == first)
				strbuf_adds(o, mark_sign(rowmark));
			put_cell(o, t, r, c, secret && strcmp(t->cols[c].key, "value") == 0);
			strbuf_adds(o, " |");
		}
		strbuf_addch(o, '\n');
	}
	strbuf_addch(o, '\n');
	free(on);
}

static void put_section(struct strbuf *o, const struct result *r, const struct section *s)
{
	char small[512];
	size_t nkv = 0;
	for (size_t i = 0; i < s->nkv; i++)
		nkv += s->kvs[i].show != SHOW_JSON_ONLY;
	if (nkv) {
		strbuf_adds(o, "| fact | value |\n| --- | --- |\n");
		for (size_t i = 0; i < s->nkv; i++) {
			const struct kv *kv = &s->kvs[i];
			if (kv->show == SHOW_JSON_ONLY)
				continue;
			strbuf_adds(o, "| ");
			put_prose(o, kv->label ? kv->label : kv->key, "<br>");
			strbuf_adds(o, " | ");
			strbuf_adds(o, mark_sign(kv->mark));
			if (paste_kv_secret(kv)) {
				put_prose(o, ENVFILTER_REDACTED, "<br>");
			} else {
				size_t need = kv->v.type == VAL_STR && !kv->v.display && kv->v.s ? strlen(kv->v.s) + 1 : sizeof(small);
				char *buf = need > sizeof(small) ? xmalloc(need) : small;
				put_words(o, value_text(&kv->v, buf, need), "<br>");
				if (buf != small)
					free(buf);
			}
			strbuf_adds(o, " |\n");
		}
		strbuf_addch(o, '\n');
	}
	for (size_t i = 0; i < s->ntables; i++)
		put_table(o, s->tables[i]);
	struct table *t = report_section_table(r, s);
	if (t) {
		put_table(o, t);
		table_free(t);
	}
	/* notes; indented ones are lines to paste (a fix's docker, Kubernetes
	 * or vLLM form under its title): one fenced block for a run of them */
	for (size_t i = 0; i < s->nnotes;) {
		if (strncmp(s->notes[i], "    ", 4) != 0) {
			strbuf_adds(o, "- ");
			put_words(o, s->notes[i], " ");
			strbuf_addch(o, '\n');
			i++;
			continue;
		}
		struct strbuf code;
		strbuf_init(&code, 0);
		for (; i < s->nnotes && strncmp(s->notes[i], "    ", 4) == 0; i++) {
			strbuf_adds(&code, s->notes[i] + 4);
			strbuf_addch(&code, '\n');
		}
		strbuf_addch(o, '\n');
		put_fence(o, "", strbuf_str(&code));
		strbuf_addch(o, '\n');
		strbuf_release(&code);
	}
	if (s->kind == SECTION_CAUSES && r->causes && r->causes->have_first) {
		const struct cause_list *l = r->causes;
		strbuf_adds(o, "- first failure: ");
		put_prose(o, l->first_file ? l->first_file : "-", " ");
		strbuf_addf(o, ":%ld, ", l->first_line);
		put_prose(o, l->first_label ? l->first_label : "", " ");
		strbuf_adds(o, ": ");
		put_code(o, l->first_text ? l->first_text : "");
		strbuf_addch(o, '\n');
	}
	if (s->nnotes || (s->kind == SECTION_CAUSES && r->causes && r->causes->have_first))
		strbuf_addch(o, '\n');
}

static void put_finding(struct strbuf *o, const struct finding *f)
{
	strbuf_addf(o, "#### %s ", f->sev == SEV_ERROR ? "ERROR" : f->sev == SEV_WARNING ? "WARNING" : "info");
	put_code(o, f->id);
	strbuf_adds(o, "\n\n");
	put_words(o, f->title, " ");
	strbuf_adds(o, "\n\n");
	if (f->cause) {
		strbuf_adds(o, "Cause: ");
		put_cause(o, f->cause);
		strbuf_adds(o, "\n\n");
	}
	for (size_t i = 0; i < f->nev; i++)
		put_evidence(o, &f->ev[i]);
	if (f->nev)
		strbuf_addch(o, '\n');
	for (size_t i = 0; i < f->nfix;) {
		const struct fix *x = &f->fixes[i];
		strbuf_adds(o, "Fix (");
		put_prose(o, x->kind, " ");
		strbuf_adds(o, ")");
		if (x->note) {
			strbuf_adds(o, ": ");
			put_prose(o, x->note, " ");
		}
		strbuf_adds(o, "\n\n");
		const char *lang = fence_lang(x->kind);
		if (!lang) {
			strbuf_adds(o, "> ");
			put_words(o, x->text, "<br>");
			strbuf_adds(o, "\n\n");
			i++;
			continue;
		}
		/* the fixes of one kind that follow without a note of their own
		 * (a setpci line per bridge): one block */
		struct strbuf code;
		strbuf_init(&code, 0);
		strbuf_adds(&code, x->text);
		for (i++; i < f->nfix && !f->fixes[i].note && strcmp(f->fixes[i].kind, x->kind) == 0; i++) {
			strbuf_addch(&code, '\n');
			strbuf_adds(&code, f->fixes[i].text);
		}
		put_fence(o, lang, strbuf_str(&code));
		strbuf_addch(o, '\n');
		strbuf_release(&code);
	}
}

/* One <details> block: its summary and body. */
struct block {
	struct strbuf sb;
	bool out;
};

static void block_open(struct block *b, const char *title)
{
	strbuf_init(&b->sb, 0);
	strbuf_adds(&b->sb, "<details><summary>");
	put_html(&b->sb, title);
	strbuf_adds(&b->sb, "</summary>\n\n");
}

static void block_close(struct block *b)
{
	strbuf_adds(&b->sb, "</details>\n\n");
}

/* ---- the document ---- */

static const char *verdict_word(const struct result *r)
{
	if (r->error)
		return "COULD NOT COMPLETE";
	if (r->verdict)
		return r->verdict;
	int code = result_exit_code(r);
	return code == 2 ? "PROBLEM FOUND" : code == 1 ? "WARNINGS" : "HEALTHY";
}

int report_markdown(const struct result *r, FILE *out)
{
	struct strbuf head, tail;
	strbuf_init(&head, 0);
	strbuf_init(&tail, 0);
	strbuf_adds(&head, "### nccl-doctor ");
	put_prose(&head, r->command ? r->command : "", " ");
	if (!r->no_verdict) {
		strbuf_adds(&head, ": ");
		put_prose(&head, verdict_word(r), " ");
	}
	strbuf_adds(&head, "\n\n");
	if (r->headline) {
		put_words(&head, r->headline, " ");
		strbuf_adds(&head, "\n\n");
	}
	header_facts(&head, r);
	if (r->error) {
		strbuf_adds(&head, "**Could not complete:** ");
		put_prose(&head, r->error, " ");
		strbuf_adds(&head, "\n\n");
	} else if (paste_first_screen_command(r->command)) {
		first_screen(&head, r);
	}

	size_t nb = 0;
	struct block *b = xcalloc(r->nsections + 2, sizeof(*b));
	for (size_t i = 0; i < r->nsections; i++) {
		const struct section *s = r->sections[i];
		/* what could not be checked is on the first screen, up to 3 lines */
		if (strcmp(s->key, "stage_errors") == 0 && s->nnotes <= 3 && !s->nkv && !s->ntables)
			continue;
		block_open(&b[nb], s->title ? s->title : s->key);
		size_t body = b[nb].sb.len;
		put_section(&b[nb].sb, r, s);
		if (b[nb].sb.len == body) { /* nothing to show */
			strbuf_release(&b[nb].sb);
			continue;
		}
		block_close(&b[nb++]);
	}
	if (r->nfindings) {
		int counts[3] = { 0, 0, 0 };
		for (size_t i = 0; i < r->nfindings; i++)
			counts[r->findings[i]->sev]++;
		char title[128];
		snprintf(title, sizeof(title), "Findings: %d error%s, %d warning%s, %d note%s", counts[SEV_ERROR],
			 counts[SEV_ERROR] == 1 ? "" : "s", counts[SEV_WARNING], counts[SEV_WARNING] == 1 ? "" : "s",
			 counts[SEV_INFO], counts[SEV_INFO] == 1 ? "" : "s");
		block_open(&b[nb], title);
		for (size_t i = 0; i < r->nfindings; i++)
			put_finding(&b[nb].sb, r->findings[i]);
		block_close(&b[nb++]);
	}
	strbuf_adds(&tail, "<sub>made by nccl-doctor ");
	put_prose(&tail, r->command ? r->command : "", " ");
	strbuf_adds(&tail, " --format markdown; secrets redacted as in snapshots</sub>\n");

	/* the size cap: the largest blocks go first, the later of equal ones */
	char note[160] = "";
	size_t total = head.len + tail.len, nout = 0;
	for (size_t i = 0; i < nb; i++)
		total += b[i].sb.len;
	while (total + strlen(note) > MD_MAX_CHARS) {
		size_t big = nb;
		for (size_t i = 0; i < nb; i++)
			if (!b[i].out && (big == nb || b[i].sb.len >= b[big].sb.len))
				big = i;
		if (big == nb)
			break; /* the first screen alone: never cut */
		b[big].out = true;
		total -= b[big].sb.len;
		nout++;
		snprintf(note, sizeof(note), "%zu details block%s left out: run with --json for all\n\n", nout,
			 nout == 1 ? "" : "s");
	}

	fputs(strbuf_str(&head), out);
	for (size_t i = 0; i < nb; i++) {
		if (!b[i].out)
			fputs(strbuf_str(&b[i].sb), out);
		strbuf_release(&b[i].sb);
	}
	fputs(note, out);
	fputs(strbuf_str(&tail), out);
	free(b);
	strbuf_release(&head);
	strbuf_release(&tail);
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
