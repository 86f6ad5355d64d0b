/* Renderers of the result model: human text, JSON, markdown and HTML. */
#ifndef ND_REPORT_REPORT_H
#define ND_REPORT_REPORT_H
#include "model/result.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#define ND_JSON_SCHEMA_VERSION 4
/* Significant digits of JSON reals: enough for a kernel time stamp in
 * microseconds since the epoch, few enough that 0.97 prints as 0.97. */
#define ND_JSON_REAL_DIGITS 16

/* The output forms of --format (text, json, markdown). */
enum report_format { REPORT_TEXT = 0, REPORT_JSON, REPORT_MARKDOWN };

struct render_opts {
	bool json;                 /* format REPORT_JSON */
	bool color;
	bool full; /* text: the whole report, not the short one (struct section's brief) */
	enum report_format format; /* REPORT_MARKDOWN: report_markdown */
};

/* Renders r to out as o says; returns 0, or -EIO when writing failed. */
int report_render(const struct result *r, const struct render_opts *o, FILE *out);
/* report/markdown.c: r as GitHub-flavoured markdown for an issue tracker,
 * redacted as snapshots are, at most MD_MAX_CHARS characters (the first
 * screen always whole; details blocks left out, and said so, beyond it).
 * Returns 0, or -EIO when writing failed. */
#define MD_MAX_CHARS 60000
int report_markdown(const struct result *r, FILE *out);
/* report/html.c: r as one self-contained HTML page (docs/html.md): inline
 * CSS, charts as inline SVG (the GPU pairs' status and bandwidth heatmaps,
 * the fix search's trials, the check's stages), the sections and findings
 * in <details> blocks, and doc (the JSON document --json prints for r)
 * embedded in a <script type="application/json">; every string redacted as
 * snapshots are and escaped by report_html_escape. Returns the page (the
 * caller frees it). */
char *report_html(const struct result *r, const json_t *doc);
/* s redacted as snapshots are (report/paste_int.h), in its visible form,
 * and escaped for HTML text and quoted attribute values alike (& < > " '
 * as entities) onto o: the one way a string gets into the page. flags:
 * STR_VIS_NEWLINE keeps newlines (a <pre> block). */
struct strbuf;
void report_html_escape(struct strbuf *o, const char *s, unsigned flags);
/* The cause a first screen names: the first ranked cause of a failed run;
 * NULL when there is none. */
const struct cause *report_first_cause(const struct result *r);
/* The evidence lines a first screen shows of cause c, at most max (<= 8)
 * into out: each text once (two ranks printing the same warning, NCCL's
 * "Last error:" echo) and without logs' notes of another cause dropped as
 * this one's echo (bookkeeping of the ranking, in the details). */
size_t report_first_evidence(const struct cause *c, const struct evidence **out, size_t max);
/* Whether a first screen names the top problem apart from the cause c: it
 * is not the cause's own finding, or the cause has no evidence to show. */
bool report_problem_apart(const struct finding *top, const struct cause *c);
void report_text(const struct result *r, const struct render_opts *o, FILE *out);
/* The JSON document of a result; the caller owns the reference. */
json_t *report_json(const struct result *r);
json_t *report_finding_json(const struct finding *f);

/* The typed members (report/typed.c): the text tables (caller frees them
 * with table_free) and the JSON (caller owns the reference). */
struct table *report_causes_table(const struct cause_list *l);
struct table *report_ranks_table(const struct rank_list *l);
/* The table of the typed member a section stands for (its causes, ranks or
 * topology table), NULL when it stands for none: what a renderer shows
 * there. */
struct table *report_section_table(const struct result *r, const struct section *s);
json_t *report_causes_json(const struct cause_list *l);
json_t *report_first_failure_json(const struct cause_list *l);
json_t *report_ranks_json(const struct rank_list *l);
/* report/topo.c: the table of a SECTION_TOPO_* section (NULL when it has
 * none), and the topology's top-level members added to doc. */
struct table *report_topo_table(const struct topo_model *m, enum section_kind kind);
void report_topo_json(const struct topo_model *m, json_t *doc);

/* Writes s to out in its visible form (util/text.h str_visible: control
 * characters of text from outside shown as "\x1b", never raw); flags
 * STR_VIS_NEWLINE keeps newlines. For the few messages a command prints
 * itself. */
void report_puts(const char *s, unsigned flags, FILE *out);
/* One line to out in its visible form (report_puts), then a newline. Every
 * message a command or an engine prints itself that quotes a file name, a
 * log or kernel line, a process name or an answer from another process goes
 * through it (or through the renderers of report/). */
void report_say(FILE *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a va_list. */
void report_vsay(FILE *out, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

/* report/prom.c: r as Prometheus metrics in the text exposition format,
 * for node_exporter's textfile collector (docs/prometheus.md); made from
 * report_json(r). Returns a heap string the caller frees. */
struct prom_opts {
	const char *node;  /* the Hostname label: this node's name, "" unknown */
	int exit_code;     /* the run's exit status */
	double duration_s; /* how long the run took, < 0 unknown */
	double now;        /* the wall clock in seconds since the epoch */
};
char *report_prom(const struct result *r, const struct prom_opts *o);

/* The problem a report's first screen names: the worst finding of the top
 * cause, else the worst error or warning; NULL when there is none. */
const struct finding *report_top_problem(const struct result *r);
/* The lines the first screen gives for a finding's first fix: that fix and
 * the ones right after it of the same kind without a note of their own (one
 * setpci line per bridge is one action, not the first bridge only). The
 * caller frees it. */
char *report_first_fix_lines(const struct finding *f);
/* A first screen's "Not checked" lines: each stage that could not do its
 * job (the notes of the section stage_errors), then each finding that says
 * part of the machine went untested (GPUs busy, ACS unreadable without
 * root, input skipped) unless it is the screen's problem (top). Returns how
 * many, the lines in *lines (NULL when none; report_lines_free). */
size_t report_not_checked(const struct result *r, const struct finding *top, char ***lines);
void report_lines_free(char **lines, size_t n);

/* ANSI colour helpers for commands that print their own tables. */
const char *color_on(bool color, enum severity s);
const char *color_off(bool color);

#endif
