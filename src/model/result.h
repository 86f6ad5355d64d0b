/* The result model: what a command found, before any formatting.
 *
 * A command collects facts (sections of labelled values and tables) and
 * findings (something wrong, with evidence and fixes) into one struct result;
 * report/ renders it as text or JSON. Nothing here prints.
 *
 * Missing data is data: a value can be "unknown" with a reason ("needs root",
 * "missing", "not supported"), which the text report shows and the JSON
 * renders as null plus an entry in the owning object's "unknown" map. */
#ifndef ND_MODEL_RESULT_H
#define ND_MODEL_RESULT_H
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "model/runs.h"
#include "model/severity.h"
#include "model/topo.h"
const char *severity_name(enum severity s); /* "info" | "warning" | "error" */

enum value_type { VAL_NONE, VAL_STR, VAL_INT, VAL_DOUBLE, VAL_BOOL, VAL_UNKNOWN };

struct value {
	enum value_type type;
	char *s;        /* VAL_STR text, VAL_UNKNOWN reason */
	long long i;
	double d;       /* VAL_DOUBLE */
	bool b;
	char *display;  /* optional text shown instead of the value in text output */
};

struct value val_none(void);
struct value val_str(const char *s); /* NULL gives val_none() */
struct value val_strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
struct value val_int(long long i);
struct value val_double(double d);
struct value val_bool(bool b);
struct value val_unknown(const char *reason);
/* Same value, with a text-only rendering (takes a copy of display). */
struct value val_with_display(struct value v, const char *display);
void value_release(struct value *v);
/* Text form of a value into buf: display, else the value, "unknown (reason)". */
const char *value_text(const struct value *v, char *buf, size_t bufsz);
json_t *value_json(const struct value *v);

/* How the text report marks a fact. */
enum mark { MARK_NONE, MARK_OK, MARK_WARN, MARK_BAD };

/* Visibility of a fact or a table column. */
enum { SHOW_BOTH = 0, SHOW_TEXT_ONLY = 1, SHOW_JSON_ONLY = 2 };

struct kv {
	char *key;    /* JSON member name, snake case */
	char *label;  /* text label */
	struct value v;
	enum mark mark;
	int show;
};

struct column {
	const char *key;
	const char *title;
	int show;
};

struct table {
	char *key;
	char *title;
	struct column *cols; /* copies of key/title strings owned by the table */
	size_t ncols;
	struct value *cells; /* row-major, nrows * ncols */
	enum mark *marks;    /* per cell */
	size_t nrows, arows;
	/* Text lists only the rows with a problem or a warning and counts the
	 * others in one line ("44 pairs OK"): the plural noun of a row, or
	 * NULL to list every row. JSON always has every row. */
	const char *ok_rows;
	/* Text folds the rows whose cell in column fold_col starts with
	 * fold_prefix into one line per such text ("not tried (a faster one
	 * works): A, B", named by the first column). JSON has every row. */
	const char *fold_col, *fold_prefix;
};

/* What a section holds: its own facts, or a place for one of the typed
 * members of the result (text renders the member there, under the section's
 * title and notes; JSON renders it as a top-level member instead). */
enum section_kind {
	SECTION_FACTS = 0,
	SECTION_TEXT_ONLY, /* its facts are a command's own top-level JSON member */
	SECTION_CAUSES, SECTION_RANKS,
	SECTION_TOPO_GPUS, SECTION_TOPO_MATRIX, SECTION_TOPO_P2P, SECTION_TOPO_NVLINK,
	SECTION_TOPO_FABRIC,
};

struct section {
	enum section_kind kind;
	char *key;
	char *title;
	struct kv *kvs;
	size_t nkv, akv;
	struct table **tables;
	size_t ntables, atables;
	char **notes; /* free text lines shown under the section */
	size_t nnotes, anotes;
	/* Part of the short report (the text a first-screen command prints
	 * without --full): its tables, not its facts or notes. The command
	 * decides (cmd/), not the engine that made the section. */
	bool brief;
};

struct evidence {
	char *text;
	char *file; /* NULL when not from a file */
	long line;  /* 0 when unknown */
	const char *source; /* a static word: where a joined verdict's evidence came from ("log",
			     * "machine", "analysis"); NULL when the result joins nothing */
};

struct fix {
	char *kind; /* env | shell | kernel | docker | k8s | vllm | bios | note */
	char *text;
	char *note; /* what it does and what it costs; may be NULL */
};

struct finding {
	char *id;           /* stable, e.g. ACS_REDIRECT_ENABLED */
	enum severity sev;
	const char *cause;  /* a cause class, from the finding catalog */
	char *title;
	struct evidence *ev;
	size_t nev, aev;
	struct fix *fixes;
	size_t nfix, afix;
};

struct result {
	char *command;
	struct section **sections;
	size_t nsections, asections;
	struct finding **findings;
	size_t nfindings, afindings;
	struct cause_list *causes; /* ranked causes (logs); NULL when not ranked */
	struct rank_list *ranks;   /* one row per process (logs); NULL when none */
	struct topo_model *topo;   /* GPUs and matrices (topo); NULL when none */
	json_t *extra;     /* command-specific top-level JSON members (owned) */
	char *headline;    /* one line on what was examined; may be NULL */
	char *error;       /* set when the tool could not do its job: exit 3 */
	bool no_verdict;   /* reference output (explain): no verdict line */
	const char *verdict; /* a verdict word of the vocabulary (RESULT_HEALTHY ...), a string literal; NULL: from the exit code */
	/* The first screen's action (text only; JSON has it in the command's
	 * own members, e.g. check's "recommendation"): what it is and the
	 * lines to paste. NULL: the text report takes the top finding's first
	 * fix. */
	char *action_title;
	char *action;
};

struct result *result_new(const char *command);
void result_free(struct result *r);
/* Moves everything of src into dst and frees src (a stage of `check`):
 * sections (appended; a key dst already has gets "STAGE." in front),
 * findings, the typed members dst lacks, src's extra as extra[stage] and
 * src's error as a note of a section "stage_errors" (the stage failed, the
 * check goes on). */
void result_absorb(struct result *dst, struct result *src, const char *stage);
void result_set_headline(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void result_set_error(struct result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The one action to take now (copies both; replaces an earlier one). */
void result_set_action(struct result *r, const char *title, const char *text);

/* Returns the section with this key, creating it at the end. */
struct section *result_section(struct result *r, const char *key, const char *title);
/* The typed members, created on first use with their section (key "causes"
 * / "ranks") at the end of the sections; the title may change later. */
struct cause_list *result_causes(struct result *r, const char *title);
struct rank_list *result_ranks(struct result *r, const char *title);
/* The typed topology (no section: see result_topo_section). */
struct topo_model *result_topo(struct result *r);
/* Places one of the topology's tables (kind SECTION_TOPO_*) at the end of the
 * sections, with this key and title; returns the section for its notes. */
struct section *result_topo_section(struct result *r, enum section_kind kind, const char *key, const char *title);
/* Adds a fact; the section takes ownership of v. Returns it for marking. */
struct kv *section_add(struct section *s, const char *key, const char *label, struct value v);
void section_note(struct section *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* cols is copied; ncols columns. */
struct table *section_table(struct section *s, const char *key, const char *title,
			    const struct column *cols, size_t ncols);
/* A table that belongs to no section (renderers build these from the typed
 * members); free it with table_free(). */
struct table *table_new(const char *key, const char *title, const struct column *cols, size_t ncols);
void table_free(struct table *t);
/* Appends an empty row (all VAL_NONE) and returns its index. */
size_t table_add_row(struct table *t);
/* Sets a cell, taking ownership of v. col is a column key; unknown keys abort. */
void table_set(struct table *t, size_t row, const char *col, struct value v);
void table_mark(struct table *t, size_t row, const char *col, enum mark m);

/* Adds a finding with this id text and cause class (both kept by pointer:
 * static strings, as the finding catalog's are). Code adds findings through
 * kb/findings.h's finding_add(), which names the id by enum and supplies the
 * cause class from the catalog; this raw form is for that function. */
struct finding *result_add_findingv(struct result *r, const char *id, const char *cause,
				    enum severity sev, const char *fmt, va_list ap)
	__attribute__((format(printf, 5, 0)));
void finding_evidence(struct finding *f, const char *file, long line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void finding_fix(struct finding *f, const char *kind, const char *note, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* The first finding with this id, or NULL. */
struct finding *result_find(const struct result *r, const char *id);
/* Orders findings: errors first, then warnings, then info; stable. */
void result_sort_findings(struct result *r);
/* 3 when r->error is set, 2 with an error finding, 1 with warnings only, else 0. */
int result_exit_code(const struct result *r);

/* The one verdict vocabulary of every command (README.md, "Exit status and
 * verdicts"): what the run says about the machine or the input it read. */
#define RESULT_HEALTHY "HEALTHY"                   /* exit 0 */
#define RESULT_DEGRADED "DEGRADED"                 /* exit 1: warnings, works with a change */
#define RESULT_BROKEN "BROKEN"                     /* exit 2: a problem was found */
#define RESULT_INCOMPLETE "INCOMPLETE"             /* something could not be checked */
#define RESULT_NOTHING_TO_CHECK "NOTHING TO CHECK" /* no GPU, no driver, nothing given to read: exit 3 */
/* r's verdict: r->verdict when the command set one, else INCOMPLETE when r
 * holds an error (the tool could not do its job), else the word of the exit
 * status (BROKEN, DEGRADED, HEALTHY). */
const char *result_verdict(const struct result *r);
/* There is nothing to check (why: NO_NVIDIA_TEXT, "no input"): r's error
 * and its verdict NOTHING TO CHECK (exit 3). */
void result_set_nothing_to_check(struct result *r, const char *why);

#endif
