/* Human text renderer: sections of aligned facts and tables, then the
 * findings with their evidence and fixes, then a one-line verdict. */
#include "report/report.h"
#include "util/xalloc.h"

#include <errno.h>
#include <string.h>

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

static void render_table(const struct table *t, bool color, FILE *out)
{
	char buf[512];
	if (t->nrows == 0)
		return; /* the section's notes say why it is empty */
	size_t *w = xcalloc(t->ncols, sizeof(size_t));
	for (size_t c = 0; c < t->ncols; c++) {
		if (t->cols[c].show == SHOW_JSON_ONLY)
			continue;
		w[c] = text_width(t->cols[c].title);
		for (size_t r = 0; r < t->nrows; r++) {
			size_t n = text_width(value_text(&t->cells[r * t->ncols + c], buf, sizeof(buf)));
			if (n > w[c])
				w[c] = n;
		}
	}
	if (t->title)
		fprintf(out, "  %s%s%s\n", color ? C_BOLD : "", t->title, color ? C_RESET : "");
	fputs("   ", out);
	for (size_t c = 0; c < t->ncols; c++) {
		if (t->cols[c].show == SHOW_JSON_ONLY)
			continue;
		fprintf(out, " %s%s%s", color ? C_DIM : "", t->cols[c].title, color ? C_RESET : "");
		pad(out, w[c] - text_width(t->cols[c].title) + 1);
	}
	fputc('\n', out);
	for (size_t r = 0; r < t->nrows; r++) {
		enum mark rowmark = MARK_NONE;
		for (size_t c = 0; c < t->ncols; c++)
			if (t->marks[r * t->ncols + c] > rowmark)
				rowmark = t->marks[r * t->ncols + c];
		fprintf(out, "  %s", rowmark >= MARK_WARN ? mark_prefix(color, rowmark) : " ");
		for (size_t c = 0; c < t->ncols; c++) {
			if (t->cols[c].show == SHOW_JSON_ONLY)
				continue;
			enum mark m = t->marks[r * t->ncols + c];
			const char *s = value_text(&t->cells[r * t->ncols + c], buf, sizeof(buf));
			fprintf(out, " %s%s%s", mark_color(color, m), s, m && color ? C_RESET : "");
			pad(out, w[c] - text_width(s) + 1);
		}
		fputc('\n', out);
	}
	free(w);
}

/* A section: its facts and tables, then the typed member it stands for (a
 * table built from it), then its notes. */
static void render_section(const struct result *r, const struct section *s, bool color, FILE *out)
{
	char buf[1024];
	fprintf(out, "%s%s%s\n", color ? C_BOLD : "", s->title, color ? C_RESET : "");
	size_t lw = 0;
	for (size_t i = 0; i < s->nkv; i++)
		if (s->kvs[i].show != SHOW_JSON_ONLY && text_width(s->kvs[i].label) > lw)
			lw = text_width(s->kvs[i].label);
	for (size_t i = 0; i < s->nkv; i++) {
		const struct kv *kv = &s->kvs[i];
		if (kv->show == SHOW_JSON_ONLY)
			continue;
		fprintf(out, " %s %s", mark_prefix(color, kv->mark), kv->label);
		pad(out, lw - text_width(kv->label) + 2);
		fprintf(out, "%s%s%s\n", mark_color(color, kv->mark), value_text(&kv->v, buf, sizeof(buf)),
			kv->mark && color ? C_RESET : "");
	}
	for (size_t i = 0; i < s->ntables; i++)
		render_table(s->tables[i], color, out);
	struct table *t = NULL;
	if (s->kind == SECTION_CAUSES && r->causes)
		t = report_causes_table(r->causes);
	else if (s->kind == SECTION_RANKS && r->ranks)
		t = report_ranks_table(r->ranks);
	else if (s->kind >= SECTION_TOPO_GPUS && r->topo)
		t = report_topo_table(r->topo, s->kind);
	if (t) {
		render_table(t, color, out);
		table_free(t);
	}
	for (size_t i = 0; i < s->nnotes; i++)
		fprintf(out, "   %s%s%s\n", color ? C_DIM : "", s->notes[i], color ? C_RESET : "");
	if (s->kind == SECTION_CAUSES && r->causes && r->causes->have_first) {
		const struct cause_list *l = r->causes;
		fprintf(out, "   %sfirst failure: %s:%ld, %s: %s%s\n", color ? C_DIM : "",
			l->first_file ? l->first_file : "-", l->first_line, l->first_label ? l->first_label : "",
			l->first_text, color ? C_RESET : "");
	}
	fputc('\n', out);
}

static const char *sev_label(enum severity s)
{
	switch (s) {
	case SEV_ERROR: return "ERROR";
	case SEV_WARNING: return "WARN ";
	default: return "info ";
	}
}

static void render_finding(const struct finding *f, bool color, FILE *out)
{
	fprintf(out, "  %s%s%s %s%s%s  %s\n", color_on(color, f->sev), sev_label(f->sev), color_off(color),
		color ? C_BOLD : "", f->id, color ? C_RESET : "", f->title);
	fprintf(out, "        cause: %s\n", f->cause);
	for (size_t i = 0; i < f->nev; i++) {
		const struct evidence *e = &f->ev[i];
		if (e->file && e->line > 0)
			fprintf(out, "        evidence: %s:%ld: %s\n", e->file, e->line, e->text);
		else if (e->file)
			fprintf(out, "        evidence: %s: %s\n", e->file, e->text);
		else
			fprintf(out, "        evidence: %s\n", e->text);
	}
	for (size_t i = 0; i < f->nfix; i++) {
		const struct fix *x = &f->fixes[i];
		fprintf(out, "        fix (%s): %s%s%s\n", x->kind, color ? C_GREEN : "", x->text, color_off(color));
		if (x->note)
			fprintf(out, "            %s%s%s\n", color ? C_DIM : "", x->note, color_off(color));
	}
}

void report_text(const struct result *r, bool color, FILE *out)
{
	if (r->headline)
		fprintf(out, "%s%s%s\n\n", color ? C_BOLD : "", r->headline, color ? C_RESET : "");
	for (size_t i = 0; i < r->nsections; i++)
		render_section(r, r->sections[i], color, out);
	int counts[3] = { 0, 0, 0 };
	for (size_t i = 0; i < r->nfindings; i++)
		counts[r->findings[i]->sev]++;
	if (r->nfindings) {
		fprintf(out, "%sFindings%s\n", color ? C_BOLD : "", color_off(color));
		for (size_t i = 0; i < r->nfindings; i++)
			render_finding(r->findings[i], color, out);
		fputc('\n', out);
	}
	if (r->error) {
		fprintf(out, "%sCould not complete:%s %s\n", color_on(color, SEV_ERROR), color_off(color), r->error);
		return;
	}
	if (r->no_verdict)
		return;
	int code = result_exit_code(r);
	const char *verdict = r->verdict ? r->verdict : code == 2 ? "PROBLEM FOUND" : code == 1 ? "WARNINGS" : "HEALTHY";
	enum severity vs = code == 2 ? SEV_ERROR : code == 1 ? SEV_WARNING : SEV_INFO;
	fprintf(out, "Verdict: %s%s%s (%d error%s, %d warning%s, %d note%s)\n",
		code == 0 && color ? C_GREEN C_BOLD : color_on(color, vs), verdict, color_off(color),
		counts[SEV_ERROR], counts[SEV_ERROR] == 1 ? "" : "s",
		counts[SEV_WARNING], counts[SEV_WARNING] == 1 ? "" : "s",
		counts[SEV_INFO], counts[SEV_INFO] == 1 ? "" : "s");
}

int report_render(const struct result *r, const struct render_opts *o, FILE *out)
{
	if (o->json) {
		json_t *doc = report_json(r);
		int rc = json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(ND_JSON_REAL_DIGITS));
		json_decref(doc);
		fputc('\n', out);
		if (rc < 0)
			return -EIO;
	} else {
		report_text(r, o->color, out);
	}
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}
