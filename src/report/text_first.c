#include "kb/causes.h"
#include "kb/findings.h"
#include "report/report.h"
#include "report/text_int.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- the first screen ----------------------------------------------------
 * For the commands people run in the middle of an outage, the report starts
 * with what to do: the action (the command's own, else the top problem's
 * first fix), the most likely cause with at most three evidence lines, and
 * what could not be checked; a rule separates it from the details, which
 * follow as before. The same facts are in --json in their own members. */
static const char *const first_screen_cmds[] = { "check", "fix", "p2p", "logs", "kernel", "watch" };

bool tx_has_first_screen(const struct result *r)
{
	for (size_t i = 0; r->command && i < sizeof(first_screen_cmds) / sizeof(first_screen_cmds[0]); i++)
		if (strcmp(r->command, first_screen_cmds[i]) == 0)
			return true;
	return false;
}

const struct cause *report_first_cause(const struct result *r)
{
	return r->causes && r->causes->n && r->causes->failed ? &r->causes->v[0] : NULL;
}

/* past the launchers' per-rank prefixes: one warning printed bare and
 * again behind PyTorch's "[rank0]: " is one line of evidence */
static const char *past_rank_prefix(const char *t)
{
	return t + str_launcher_prefix_len(t, strlen(t));
}

size_t report_first_evidence(const struct cause *c, const struct evidence **out, size_t max)
{
	size_t shown = 0;
	for (size_t i = 0; c && i < c->nev && shown < max && shown < 8; i++) {
		const struct evidence *e = &c->ev[i];
		/* analyze/logs/analyze.c score_reasons writes these */
		if (!e->file && strncmp(e->text, "dropped ", 8) == 0)
			continue;
		bool again = false;
		for (size_t k = 0; k < shown && !again; k++)
			again = strcmp(past_rank_prefix(out[k]->text), past_rank_prefix(e->text)) == 0;
		if (!again)
			out[shown++] = e;
	}
	return shown;
}

bool report_problem_apart(const struct finding *top, const struct cause *c)
{
	return top && (!c || !top->cause || strcmp(top->cause, c->cause) != 0 || c->nev == 0);
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
			/* no finding of the first cause: where the analysis says it does
			 * not know, that is the problem to act on (what to collect next),
			 * not another warning of equal weight it demoted */
			if (!best || f->sev > best->sev ||
			    (f->sev == best->sev && strcmp(f->id, kb_finding_def(FID_LOG_CAUSE_UNKNOWN)->id) == 0))
				best = f;
		}
	return best;
}

char *report_first_fix_lines(const struct finding *f)
{
	struct strbuf sb;
	strbuf_init(&sb, 256);
	for (size_t i = 0; i < f->nfix; i++) {
		const struct fix *x = &f->fixes[i];
		if (i > 0 && (strcmp(x->kind, f->fixes[0].kind) != 0 || x->note))
			break;
		strbuf_addf(&sb, "%s%s", i ? "\n" : "", x->text);
	}
	return strbuf_detach(&sb);
}

/* findings that mean "this part was not tested", not "this part is bad" */
static const enum finding_id unchecked_ids[] = { FID_GPU_BUSY_SKIPPED, FID_ACS_UNKNOWN_NEEDS_ROOT, FID_LOG_INPUT_SKIPPED };

static char *unchecked_line(const struct finding *f, const struct finding *top)
{
	if (f == top)
		return NULL;
	for (size_t i = 0; i < sizeof(unchecked_ids) / sizeof(unchecked_ids[0]); i++)
		if (strcmp(f->id, kb_finding_def(unchecked_ids[i])->id) == 0)
			return f->nev ? xasprintf("%s (%s)", f->title, f->ev[0].text) : xstrdup(f->title);
	return NULL;
}

size_t report_not_checked(const struct result *r, const struct finding *top, char ***lines)
{
	size_t n = 0;
	*lines = NULL;
	for (size_t i = 0; i < r->nsections; i++)
		if (strcmp(r->sections[i]->key, "stage_errors") == 0)
			n += r->sections[i]->nnotes;
	n += r->nfindings;
	if (!n)
		return 0;
	char **v = xcalloc(n, sizeof(*v));
	size_t k = 0;
	for (size_t i = 0; i < r->nsections; i++)
		for (size_t j = 0; strcmp(r->sections[i]->key, "stage_errors") == 0 && j < r->sections[i]->nnotes; j++)
			v[k++] = xstrdup(r->sections[i]->notes[j]);
	for (size_t i = 0; i < r->nfindings; i++) {
		char *line = unchecked_line(r->findings[i], top);
		if (line)
			v[k++] = line;
	}
	if (!k)
		free(v), v = NULL;
	*lines = v;
	return k;
}

void report_lines_free(char **lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
}

static void put_block(FILE *out, struct vis *v, const char *text, const char *indent, struct words *wd, bool color)
{
	const char *p = text;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line = xstrndup(p, n);
		tx_paste(out, tx_vis(v, line, 0), indent, wd->width, color ? C_GREEN : "", color ? C_RESET : "");
		free(line);
		p += n + (nl ? 1 : 0);
	}
}

/* "Label: text" of the first screen, wrapped under the label. */
static void put_labelled(FILE *out, const char *label, const char *text, struct words *wd, bool color)
{
	fprintf(out, "%s%s%s: ", color ? C_BOLD : "", label, color ? C_RESET : "");
	tx_wrap(out, text, tx_width(label) + 2, 4, wd->width);
	fputc('\n', out);
}

/* An evidence line under the first screen's cause: indented 4, wrapped at 6. */
static void put_evidence(FILE *out, const char *text, struct words *wd)
{
	fputs("    ", out);
	tx_wrap(out, text, 4, 6, wd->width);
	fputc('\n', out);
}

bool tx_is_stage_errors(const struct section *s)
{
	return strcmp(s->key, "stage_errors") == 0;
}

void tx_first_screen(const struct result *r, struct words *wd, bool color, FILE *out)
{
	struct vis v = { 0 };
	bool any = false;
	const struct finding *top = report_top_problem(r);
	if (r->action && *r->action) {
		put_labelled(out, "Do this now", tx_vis(&v, r->action_title, 0), wd, color);
		put_block(out, &v, r->action, "    ", wd, color);
		any = true;
	} else if (top && top->nfix) {
		const struct fix *x = &top->fixes[0];
		if (strcmp(x->kind, "note") == 0) { /* advice in words, not lines to paste */
			fprintf(out, "%sNext%s (for %s):\n", color ? C_BOLD : "", color ? C_RESET : "", tx_vis(&v, top->id, 0));
			fputs("    ", out);
			tx_wrap(out, tx_vis(&v, x->text, 0), 4, 4, wd->width);
			fputc('\n', out);
		} else {
			fprintf(out, "%sDo this now%s (%s, for %s):\n", color ? C_BOLD : "", color ? C_RESET : "",
				tx_vis(&v, x->kind, 0), tx_vis(&v, top->id, 0));
			char *lines = report_first_fix_lines(top);
			put_block(out, &v, lines, "    ", wd, color);
			free(lines);
		}
		if (x->note) { /* what it does: "reboot the node (bare metal)" */
			fprintf(out, "    %s", color ? C_DIM : "");
			tx_wrap(out, tx_vis(&v, x->note, 0), 4, 4, wd->width);
			fprintf(out, "%s\n", color ? C_RESET : "");
		}
		any = true;
	}
	const struct cause *c = report_first_cause(r);
	if (c) {
		char *t = xasprintf("%s (%.2f)", tx_vis(&v, tx_words(wd, &v, c->cause, true), 0), c->confidence);
		/* only priors (logs' LOG_CAUSE_UNKNOWN): no verdict, the first candidate */
		put_labelled(out, r->causes->unknown ? "Cause unknown; first candidate" : "Most likely cause", t, wd, color);
		free(t);
		const struct evidence *shown[3];
		size_t nshown = report_first_evidence(c, shown, 3);
		for (size_t i = 0; i < nshown; i++) {
			const struct evidence *e = shown[i];
			if (!e->source) {
				put_evidence(out, tx_vis(&v, tx_words(wd, &v, e->text, false), 0), wd);
				continue;
			}
			/* a verdict that joins a log with the machine: where each line came from */
			char *t2 = e->file ? xasprintf("[%s %s:%ld] %s", e->source, e->file, e->line, e->text)
					   : xasprintf("[%s] %s", e->source, e->text);
			put_evidence(out, tx_vis(&v, tx_words(wd, &v, t2, false), 0), wd);
			free(t2);
		}
		/* no verdict: what to collect next comes first (logs' LOG_CAUSE_UNKNOWN) */
		const struct finding *uf = r->causes->unknown ? finding_get(r, FID_LOG_CAUSE_UNKNOWN) : NULL;
		for (size_t i = 0; uf && i < uf->nev; i++)
			if (strncmp(uf->ev[i].text, "collect next: ", 14) == 0)
				put_labelled(out, "Collect next", tx_vis(&v, uf->ev[i].text + 14, 0), wd, color);
		struct strbuf sb;
		strbuf_init(&sb, 1 << 12);
		for (size_t i = 1; i < r->causes->n && i < 4; i++)
			strbuf_addf(&sb, "%s%s (%.2f)", i > 1 ? "; " : "", tx_words(wd, &v, r->causes->v[i].cause, true),
				    r->causes->v[i].confidence);
		if (sb.len)
			put_labelled(out, "Other possible causes", tx_vis(&v, strbuf_str(&sb), 0), wd, color);
		strbuf_release(&sb);
		any = true;
	}
	if (report_problem_apart(top, c)) {
		fprintf(out, "%sProblem%s: %s%s%s ", color ? C_BOLD : "", color ? C_RESET : "", color_on(color, top->sev),
			tx_vis(&v, top->id, 0), color_off(color));
		tx_wrap(out, tx_vis(&v, tx_words(wd, &v, top->title, false), 0), 10 + tx_width(tx_vis(&v, top->id, 0)), 4, wd->width);
		fputc('\n', out);
		for (size_t i = 0; i < top->nev && i < 3; i++)
			put_evidence(out, tx_vis(&v, tx_words(wd, &v, top->ev[i].text, false), 0), wd);
		any = true;
	}
	char **nc;
	size_t nnc = report_not_checked(r, top, &nc);
	for (size_t i = 0; i < nnc; i++)
		put_labelled(out, "Not checked", tx_vis(&v, tx_words(wd, &v, nc[i], false), 0), wd, color);
	any |= nnc > 0;
	report_lines_free(nc, nnc);
	if (any)
		fprintf(out, "%s---- details ----%s\n\n", color ? C_DIM : "", color ? C_RESET : "");
	tx_vis_release(&v);
}

/* The short report's last line before the verdict: what it left out. */
void tx_left_out(const struct result *r, struct words *wd, bool color, FILE *out)
{
	struct strbuf sb;
	strbuf_init(&sb, 1 << 16);
	struct vis v = { 0 };
	size_t n = 0;
	for (size_t i = 0; i < r->nsections; i++) {
		const struct section *s = r->sections[i];
		if (s->brief || tx_is_stage_errors(s))
			continue;
		/* the title without its parenthesis ("GPUs (PCI)": "GPUs"), each once */
		const char *t = tx_vis(&v, tx_words(wd, &v, s->title, false), 0), *paren = strstr(t, " (");
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
		tx_wrap(out, line, 0, 2, wd->width);
		fprintf(out, "%s\n\n", color ? C_RESET : "");
		free(line);
	}
	tx_vis_release(&v);
	strbuf_release(&sb);
}
