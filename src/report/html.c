/* HTML renderer: a result as one self-contained page to attach to a ticket
 * or open from a shared directory (--html FILE of check, p2p, bench and
 * merge; docs/html.md).
 *
 * Self-contained: inline CSS, charts drawn here as inline SVG (html_svg.c),
 * no script that runs, and a Content-Security-Policy that forbids loading
 * anything, so the page looks the same offline and cannot call home.
 *
 * Layout, as the markdown report (markdown.c): the verdict as the heading,
 * the headline, the facts a maintainer asks first; the first screen (the
 * action, the most likely cause with three evidence lines, the problem,
 * what was not checked); the charts; then every section and the findings,
 * each in a <details> block (the short report's sections open); the JSON
 * document --json prints, embedded in a <script type="application/json">.
 *
 * Safe to send: every string from the model goes through one function,
 * report_html_escape: the snapshot's redaction (report/paste_int.h), the
 * visible form of control characters, and & < > " ' as entities. The
 * embedded JSON is redacted the same way, and every '<', '>' and '&' in it
 * is written \u003c, \u003e, \u0026, so no text in it can close the script
 * block or open a comment. */
#include "kb/causes.h"
#include "report/html_int.h"
#include "report/paste_int.h"
#include "report/report.h"
#include "util/envfilter.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

void report_html_escape(struct strbuf *o, const char *s, unsigned flags)
{
	char *c = paste_clean(s ? s : "", flags);
	for (const char *p = c; *p; p++) {
		/* the same form for text and for a quoted attribute value */
		const char *e = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" :
				*p == '"' ? "&quot;" : *p == '\'' ? "&#39;" : NULL;
		if (e)
			strbuf_adds(o, e);
		else
			strbuf_addch(o, *p);
	}
	free(c);
}

/* Free text with its cause class ids as their titles, escaped. */
static void put_words(struct strbuf *o, const char *s)
{
	char *w = paste_words(s);
	H(o, w);
	free(w);
}

static void put_cause(struct strbuf *o, const char *id)
{
	const char *t = kb_cause_title(id);
	if (t) {
		H(o, t);
		strbuf_adds(o, " (<code>");
		H(o, id);
		strbuf_adds(o, "</code>)");
	} else {
		strbuf_adds(o, "<code>");
		H(o, id);
		strbuf_adds(o, "</code>");
	}
}

/* Lines to paste. */
static void put_pre(struct strbuf *o, const char *s)
{
	strbuf_adds(o, "<pre>");
	report_html_escape(o, s, STR_VIS_NEWLINE);
	strbuf_adds(o, "</pre>\n");
}

static const char *sev_class(enum severity s)
{
	return s == SEV_ERROR ? "bad" : s == SEV_WARNING ? "warn" : "info";
}

static const char *mark_class(enum mark m)
{
	return m == MARK_BAD ? " class=\"bad\"" : m == MARK_WARN ? " class=\"warn\"" : m == MARK_OK ? " class=\"ok\"" : "";
}

/* ---- the first screen ---- */

static void put_evidence(struct strbuf *o, const struct evidence *e)
{
	strbuf_adds(o, "<li>");
	if (e->source) {
		strbuf_adds(o, "<em>");
		H(o, e->source);
		strbuf_adds(o, ":</em> ");
	}
	if (e->file) {
		H(o, e->file);
		if (e->line > 0)
			strbuf_addf(o, ":%ld", e->line);
		strbuf_adds(o, ": <code>");
		H(o, e->text);
		strbuf_adds(o, "</code>");
	} else {
		put_words(o, e->text);
	}
	strbuf_adds(o, "</li>\n");
}

static void put_evidence_list(struct strbuf *o, const struct evidence *ev, size_t n, size_t max)
{
	if (!n)
		return;
	strbuf_adds(o, "<ul class=\"evidence\">\n");
	for (size_t i = 0; i < n && i < max; i++)
		put_evidence(o, &ev[i]);
	strbuf_adds(o, "</ul>\n");
}

static void first_screen(struct strbuf *o, const struct result *r)
{
	const struct finding *top = report_top_problem(r);
	if (r->action && *r->action) {
		strbuf_adds(o, "<div class=\"action\"><h2>Do this now: ");
		H(o, r->action_title ? r->action_title : "");
		strbuf_adds(o, "</h2>\n");
		put_pre(o, r->action);
		strbuf_adds(o, "</div>\n");
	} else if (top && top->nfix) {
		const struct fix *x = &top->fixes[0];
		strbuf_adds(o, "<div class=\"action\"><h2>");
		strbuf_adds(o, paste_fix_words(x->kind) ? "Next" : "Do this now");
		strbuf_adds(o, " (");
		H(o, x->kind);
		strbuf_adds(o, ", for <code>");
		H(o, top->id);
		strbuf_adds(o, "</code>)</h2>\n");
		if (paste_fix_words(x->kind)) {
			strbuf_adds(o, "<p>");
			put_words(o, x->text);
			strbuf_adds(o, "</p>\n");
		} else {
			char *lines = report_first_fix_lines(top);
			put_pre(o, lines);
			free(lines);
		}
		if (x->note) {
			strbuf_adds(o, "<p>");
			put_words(o, x->note);
			strbuf_adds(o, "</p>\n");
		}
		strbuf_adds(o, "</div>\n");
	}
	const struct cause *c = report_first_cause(r);
	if (c) {
		/* only priors (logs' LOG_CAUSE_UNKNOWN): no verdict, the first candidate */
		strbuf_adds(o, "<p class=\"cause\"><strong>");
		strbuf_adds(o, r->causes->unknown ? "Cause unknown; first candidate:" : "Most likely cause:");
		strbuf_adds(o, "</strong> ");
		put_cause(o, c->cause);
		strbuf_addf(o, ", confidence %.2f</p>\n", c->confidence);
		const struct evidence *shown[3];
		size_t nshown = report_first_evidence(c, shown, 3);
		if (nshown) {
			strbuf_adds(o, "<ul class=\"evidence\">\n");
			for (size_t i = 0; i < nshown; i++)
				put_evidence(o, shown[i]);
			strbuf_adds(o, "</ul>\n");
		}
	}
	if (report_problem_apart(top, c)) {
		strbuf_addf(o, "<p class=\"problem %s\"><strong>Problem (%s):</strong> <code>", sev_class(top->sev),
			    severity_name(top->sev));
		H(o, top->id);
		strbuf_adds(o, "</code> ");
		put_words(o, top->title);
		strbuf_adds(o, "</p>\n");
		put_evidence_list(o, top->ev, top->nev, 3);
	}
	char **nc;
	size_t nnc = report_not_checked(r, top, &nc);
	if (nnc)
		strbuf_adds(o, "<p><strong>Not checked:</strong></p>\n<ul>\n");
	for (size_t k = 0; k < nnc && k < 4; k++) {
		strbuf_adds(o, "<li>");
		H(o, nc[k]);
		strbuf_adds(o, "</li>\n");
	}
	if (nnc > 4)
		strbuf_addf(o, "<li>%zu more (see the details)</li>\n", nnc - 4);
	if (nnc)
		strbuf_adds(o, "</ul>\n");
	report_lines_free(nc, nnc);
}

/* ---- details ---- */

static void put_cell(struct strbuf *o, const struct table *t, size_t r, size_t c, bool secret)
{
	char *s = paste_cell_text(t, r, c, secret);
	strbuf_addf(o, "<td%s>", mark_class(t->marks[r * t->ncols + c]));
	report_html_escape(o, s, STR_VIS_NEWLINE);
	strbuf_adds(o, "</td>");
	free(s);
}

static void put_table(struct strbuf *o, const struct table *t)
{
	if (!t->nrows)
		return;
	bool *on = xcalloc(t->ncols ? t->ncols : 1, sizeof(bool));
	size_t first;
	size_t ncols = paste_table_columns(t, on, &first);
	if (ncols) {
		strbuf_adds(o, "<table>\n");
		if (t->title) {
			strbuf_adds(o, "<caption>");
			H(o, t->title);
			strbuf_adds(o, "</caption>\n");
		}
		strbuf_adds(o, "<thead><tr>");
		for (size_t c = 0; c < t->ncols; c++)
			if (on[c]) {
				strbuf_adds(o, "<th>");
				H(o, t->cols[c].title && *t->cols[c].title ? t->cols[c].title : t->cols[c].key);
				strbuf_adds(o, "</th>");
			}
		strbuf_adds(o, "</tr></thead>\n<tbody>\n");
		for (size_t r = 0; r < t->nrows; r++) {
			bool secret = paste_row_secret(t, r);
			strbuf_adds(o, "<tr>");
			for (size_t c = 0; c < t->ncols; c++)
				if (on[c])
					put_cell(o, t, r, c, secret && strcmp(t->cols[c].key, "value") == 0);
			strbuf_adds(o, "</tr>\n");
		}
		strbuf_adds(o, "</tbody></table>\n");
	}
	free(on);
}

static void put_facts(struct strbuf *o, const struct section *s)
{
	char small[512];
	size_t nkv = 0;
	for (size_t i = 0; i < s->nkv; i++)
		nkv += s->kvs[i].show != SHOW_JSON_ONLY;
	if (!nkv)
		return;
	strbuf_adds(o, "<table class=\"facts\">\n<tbody>\n");
	for (size_t i = 0; i < s->nkv; i++) {
		const struct kv *kv = &s->kvs[i];
		if (kv->show == SHOW_JSON_ONLY)
			continue;
		strbuf_adds(o, "<tr><th>");
		H(o, kv->label ? kv->label : kv->key);
		strbuf_addf(o, "</th><td%s>", mark_class(kv->mark));
		if (paste_kv_secret(kv)) {
			H(o, ENVFILTER_REDACTED);
		} else {
			size_t need = kv->v.type == VAL_STR && !kv->v.display && kv->v.s ? strlen(kv->v.s) + 1 : sizeof(small);
			char *buf = need > sizeof(small) ? xmalloc(need) : small;
			char *w = paste_words(value_text(&kv->v, buf, need));
			report_html_escape(o, w, STR_VIS_NEWLINE);
			free(w);
			if (buf != small)
				free(buf);
		}
		strbuf_adds(o, "</td></tr>\n");
	}
	strbuf_adds(o, "</tbody></table>\n");
}

static void put_section(struct strbuf *o, const struct result *r, const struct section *s)
{
	put_facts(o, s);
	for (size_t i = 0; i < s->ntables; i++)
		put_table(o, s->tables[i]);
	struct table *t = report_section_table(r, s);
	if (t) {
		put_table(o, t);
		table_free(t);
	}
	/* notes; indented ones are lines to paste (a fix's docker, Kubernetes
	 * or vLLM form under its title): one <pre> for a run of them */
	bool list = false;
	for (size_t i = 0; i < s->nnotes;) {
		if (strncmp(s->notes[i], "    ", 4) != 0) {
			if (!list)
				strbuf_adds(o, "<ul class=\"notes\">\n");
			list = true;
			strbuf_adds(o, "<li>");
			put_words(o, s->notes[i++]);
			strbuf_adds(o, "</li>\n");
			continue;
		}
		if (list)
			strbuf_adds(o, "</ul>\n");
		list = false;
		struct strbuf code;
		strbuf_init(&code, 0);
		for (; i < s->nnotes && strncmp(s->notes[i], "    ", 4) == 0; i++) {
			strbuf_adds(&code, s->notes[i] + 4);
			strbuf_addch(&code, '\n');
		}
		put_pre(o, strbuf_str(&code));
		strbuf_release(&code);
	}
	if (list)
		strbuf_adds(o, "</ul>\n");
	if (s->kind == SECTION_CAUSES && r->causes && r->causes->have_first) {
		const struct cause_list *l = r->causes;
		strbuf_adds(o, "<p>first failure: ");
		H(o, l->first_file ? l->first_file : "-");
		strbuf_addf(o, ":%ld, ", l->first_line);
		H(o, l->first_label ? l->first_label : "");
		strbuf_adds(o, ": <code>");
		H(o, l->first_text ? l->first_text : "");
		strbuf_adds(o, "</code></p>\n");
	}
}

static void put_finding(struct strbuf *o, const struct finding *f)
{
	strbuf_addf(o, "<div class=\"finding %s\"><h3>%s <code>", sev_class(f->sev),
		    f->sev == SEV_ERROR ? "ERROR" : f->sev == SEV_WARNING ? "WARNING" : "info");
	H(o, f->id);
	strbuf_adds(o, "</code></h3>\n<p>");
	put_words(o, f->title);
	strbuf_adds(o, "</p>\n");
	if (f->cause) {
		strbuf_adds(o, "<p>Cause: ");
		put_cause(o, f->cause);
		strbuf_adds(o, "</p>\n");
	}
	put_evidence_list(o, f->ev, f->nev, f->nev);
	for (size_t i = 0; i < f->nfix; i++) {
		const struct fix *x = &f->fixes[i];
		strbuf_adds(o, "<p class=\"fix\">Fix (");
		H(o, x->kind);
		strbuf_adds(o, ")");
		if (x->note) {
			strbuf_adds(o, ": ");
			put_words(o, x->note);
		}
		strbuf_adds(o, "</p>\n");
		if (paste_fix_words(x->kind)) {
			strbuf_adds(o, "<blockquote>");
			put_words(o, x->text);
			strbuf_adds(o, "</blockquote>\n");
		} else {
			put_pre(o, x->text);
		}
	}
	strbuf_adds(o, "</div>\n");
}

/* ---- the document ---- */

static const char css[] =
	"body{font:14px/1.45 system-ui,sans-serif;margin:1.5em auto;max-width:72em;padding:0 1em;color:#1b1f24}"
	"h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.15em;margin:1em 0 .4em}h3{font-size:1em;margin:.8em 0 .3em}"
	".facts-line{color:#57606a}.headline{font-size:1.1em}"
	".v-ok{color:#1a7f37}.v-warn{color:#9a6700}.v-bad{color:#cf222e}"
	".action{border-left:4px solid #1a7f37;padding:.2em .8em;background:#f6f8fa}"
	"pre{background:#f6f8fa;padding:.6em;overflow-x:auto;white-space:pre-wrap}"
	"code{background:#eff1f3;padding:0 .2em}"
	"details{border:1px solid #d0d7de;border-radius:4px;margin:.5em 0;padding:.3em .8em}"
	"summary{cursor:pointer;font-weight:600}"
	"table{border-collapse:collapse;margin:.5em 0}caption{text-align:left;font-weight:600}"
	"td,th{border:1px solid #d0d7de;padding:.15em .5em;text-align:left;vertical-align:top}td{white-space:pre-line}"
	"td.bad,.finding.bad h3{color:#cf222e}td.warn,.finding.warn h3{color:#9a6700}td.ok{color:#1a7f37}"
	".chart{margin:.5em 0 1em}svg text{font:12px system-ui,sans-serif}"
	"footer{color:#57606a;font-size:.85em;margin-top:2em}";

/* The JSON document, redacted, for a <script> block: no '<', '>' or '&'
 * (as \u escapes, which JSON reads back as the same characters). */
static void put_json(struct strbuf *o, const json_t *doc)
{
	json_t *red = paste_redact_json(doc);
	char *s = json_dumps(red, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(ND_JSON_REAL_DIGITS));
	json_decref(red);
	strbuf_adds(o, "<script type=\"application/json\" id=\"nccl-doctor-json\">\n");
	for (const char *p = s ? s : "null"; *p; p++) {
		if (*p == '<')
			strbuf_adds(o, "\\u003c");
		else if (*p == '>')
			strbuf_adds(o, "\\u003e");
		else if (*p == '&')
			strbuf_adds(o, "\\u0026");
		else
			strbuf_addch(o, *p);
	}
	strbuf_adds(o, "\n</script>\n");
	free(s);
}

/* The verdict's colour: HEALTHY green, BROKEN and the ones that could not
 * check red, the rest (DEGRADED, INCOMPLETE) amber. */
static const char *verdict_class(const struct result *r)
{
	const char *v = result_verdict(r);
	if (strcmp(v, RESULT_HEALTHY) == 0)
		return "v-ok";
	return strcmp(v, RESULT_BROKEN) == 0 || r->error ? "v-bad" : "v-warn";
}

static void head(struct strbuf *o, const struct result *r)
{
	const char *cmd = r->command ? r->command : "";
	strbuf_adds(o, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		       "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		       "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>nccl-doctor ");
	H(o, cmd);
	if (!r->no_verdict) {
		strbuf_adds(o, ": ");
		H(o, result_verdict(r));
	}
	strbuf_addf(o, "</title>\n<style>%s</style>\n</head>\n<body>\n<header>\n<h1>nccl-doctor ", css);
	H(o, cmd);
	if (!r->no_verdict) {
		strbuf_addf(o, ": <span class=\"%s\">", verdict_class(r));
		H(o, result_verdict(r));
		strbuf_adds(o, "</span>");
	}
	strbuf_adds(o, "</h1>\n");
	if (r->headline) {
		strbuf_adds(o, "<p class=\"headline\">");
		put_words(o, r->headline);
		strbuf_adds(o, "</p>\n");
	}
	struct paste_fact f[PASTE_FACTS_MAX];
	size_t n = paste_header_facts(r, f);
	strbuf_adds(o, "<p class=\"facts-line\">");
	for (size_t i = 0; i < n; i++) {
		if (i)
			strbuf_adds(o, " \xc2\xb7 ");
		if (strcmp(f[i].label, "date") != 0) {
			H(o, f[i].label);
			strbuf_addch(o, ' ');
		}
		H(o, f[i].value);
	}
	strbuf_adds(o, "</p>\n</header>\n");
}

char *report_html(const struct result *r, const json_t *doc)
{
	struct strbuf o;
	strbuf_init(&o, 0);
	head(&o, r);
	strbuf_adds(&o, "<main>\n");
	bool first = paste_first_screen_command(r->command);
	if (r->error) {
		strbuf_adds(&o, "<p class=\"problem bad\"><strong>Could not complete:</strong> ");
		H(&o, r->error);
		strbuf_adds(&o, "</p>\n");
	} else if (first) {
		first_screen(&o, r);
	}
	html_charts(&o, doc);
	for (size_t i = 0; i < r->nsections; i++) {
		const struct section *s = r->sections[i];
		/* what could not be checked is on the first screen, up to 3 lines */
		if (strcmp(s->key, "stage_errors") == 0 && s->nnotes <= 3 && !s->nkv && !s->ntables)
			continue;
		struct strbuf body;
		strbuf_init(&body, 0);
		strbuf_adds(&body, "");
		put_section(&body, r, s);
		if (body.len) { /* else nothing to show */
			/* open: the short report's tables; without a first screen
			 * (bench, merge) every section, as their text shows them */
			strbuf_addf(&o, "<details%s><summary>", s->brief || !first ? " open" : "");
			H(&o, s->title ? s->title : s->key);
			strbuf_adds(&o, "</summary>\n");
			strbuf_adds(&o, strbuf_str(&body));
			strbuf_adds(&o, "</details>\n");
		}
		strbuf_release(&body);
	}
	if (r->nfindings) {
		int counts[3] = { 0, 0, 0 };
		for (size_t i = 0; i < r->nfindings; i++)
			counts[r->findings[i]->sev]++;
		strbuf_addf(&o, "<details><summary>Findings: %d error%s, %d warning%s, %d note%s</summary>\n",
			    counts[SEV_ERROR], counts[SEV_ERROR] == 1 ? "" : "s", counts[SEV_WARNING],
			    counts[SEV_WARNING] == 1 ? "" : "s", counts[SEV_INFO], counts[SEV_INFO] == 1 ? "" : "s");
		for (size_t i = 0; i < r->nfindings; i++)
			put_finding(&o, r->findings[i]);
		strbuf_adds(&o, "</details>\n");
	}
	strbuf_adds(&o, "</main>\n");
	put_json(&o, doc);
	strbuf_adds(&o, "<footer>made by nccl-doctor ");
	H(&o, r->command ? r->command : "");
	strbuf_adds(&o, " --html; secrets redacted as in snapshots; the JSON document (--json) is in the page's "
			"script block nccl-doctor-json</footer>\n</body>\n</html>\n");
	return strbuf_detach(&o);
}
