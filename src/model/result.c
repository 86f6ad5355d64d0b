/* The result model: see result.h. */
#include "model/result.h"
#include "util/jsonx.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *severity_name(enum severity s)
{
	switch (s) {
	case SEV_ERROR: return "error";
	case SEV_WARNING: return "warning";
	default: return "info";
	}
}

/* ---- values ---- */

struct value val_none(void)
{
	struct value v = { .type = VAL_NONE };
	return v;
}

struct value val_str(const char *s)
{
	if (!s)
		return val_none();
	struct value v = { .type = VAL_STR, .s = xstrdup(s) };
	return v;
}

struct value val_strf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	struct value v = { .type = VAL_STR, .s = s ? s : xstrdup("") };
	return v;
}

struct value val_int(long long i)
{
	struct value v = { .type = VAL_INT, .i = i };
	return v;
}

struct value val_double(double d)
{
	struct value v = { .type = VAL_DOUBLE, .d = d };
	return v;
}

struct value val_bool(bool b)
{
	struct value v = { .type = VAL_BOOL, .b = b };
	return v;
}

struct value val_unknown(const char *reason)
{
	struct value v = { .type = VAL_UNKNOWN, .s = xstrdup(reason ? reason : "unknown") };
	return v;
}

struct value val_with_display(struct value v, const char *display)
{
	free(v.display);
	v.display = display ? xstrdup(display) : NULL;
	return v;
}

void value_release(struct value *v)
{
	free(v->s);
	free(v->display);
	memset(v, 0, sizeof(*v));
}

const char *value_text(const struct value *v, char *buf, size_t bufsz)
{
	if (v->display) {
		str_copy(buf, v->display, bufsz);
		return buf;
	}
	switch (v->type) {
	case VAL_STR: str_copy(buf, v->s, bufsz); break;
	case VAL_INT: snprintf(buf, bufsz, "%lld", v->i); break;
	case VAL_DOUBLE: snprintf(buf, bufsz, "%.6g", v->d); break;
	case VAL_BOOL: str_copy(buf, v->b ? "yes" : "no", bufsz); break;
	case VAL_UNKNOWN:
		if (strcmp(v->s, "unknown") == 0)
			str_copy(buf, "unknown", bufsz);
		else
			snprintf(buf, bufsz, "unknown (%s)", v->s);
		break;
	default: str_copy(buf, "-", bufsz); break;
	}
	return buf;
}

json_t *value_json(const struct value *v)
{
	switch (v->type) {
	case VAL_STR: return json_str_lossy(v->s);
	case VAL_INT: return json_integer(v->i);
	case VAL_DOUBLE: return json_real(v->d);
	case VAL_BOOL: return json_boolean(v->b);
	default: return json_null();
	}
}

/* ---- result ---- */

struct result *result_new(const char *command)
{
	struct result *r = xcalloc(1, sizeof(*r));
	r->command = xstrdup(command);
	r->extra = json_object();
	return r;
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		value_release(&t->cells[i]);
	for (size_t c = 0; c < t->ncols; c++) {
		free((char *)t->cols[c].key);
		free((char *)t->cols[c].title);
	}
	free(t->cols);
	free(t->cells);
	free(t->marks);
	free(t->key);
	free(t->title);
	free(t);
}

static void section_free(struct section *s)
{
	for (size_t i = 0; i < s->nkv; i++) {
		free(s->kvs[i].key);
		free(s->kvs[i].label);
		value_release(&s->kvs[i].v);
	}
	for (size_t i = 0; i < s->ntables; i++)
		table_free(s->tables[i]);
	for (size_t i = 0; i < s->nnotes; i++)
		free(s->notes[i]);
	free(s->notes);
	free(s->kvs);
	free(s->tables);
	free(s->key);
	free(s->title);
	free(s);
}

static void finding_free(struct finding *f)
{
	for (size_t i = 0; i < f->nev; i++) {
		free(f->ev[i].text);
		free(f->ev[i].file);
	}
	for (size_t i = 0; i < f->nfix; i++) {
		free(f->fixes[i].kind);
		free(f->fixes[i].text);
		free(f->fixes[i].note);
	}
	free(f->ev);
	free(f->fixes);
	free(f->id);
	free(f->title);
	free(f);
}

void result_free(struct result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nsections; i++)
		section_free(r->sections[i]);
	for (size_t i = 0; i < r->nfindings; i++)
		finding_free(r->findings[i]);
	free(r->sections);
	free(r->findings);
	if (r->causes)
		cause_list_release(r->causes);
	free(r->causes);
	if (r->ranks)
		rank_list_release(r->ranks);
	free(r->ranks);
	if (r->topo)
		topo_model_release(r->topo);
	free(r->topo);
	json_decref(r->extra);
	free(r->headline);
	free(r->error);
	free(r->command);
	free(r->action_title);
	free(r->action);
	free(r);
}

void result_set_action(struct result *r, const char *title, const char *text)
{
	free(r->action_title);
	free(r->action);
	r->action_title = xstrdup(title ? title : "");
	r->action = xstrdup(text ? text : "");
}

__attribute__((format(printf, 1, 0))) static char *vfmt(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		return xstrdup("");
	return s;
}

static bool has_section(const struct result *r, const char *key)
{
	for (size_t i = 0; i < r->nsections; i++)
		if (strcmp(r->sections[i]->key, key) == 0)
			return true;
	return false;
}

void result_absorb(struct result *dst, struct result *src, const char *stage)
{
	for (size_t i = 0; i < src->nsections; i++) {
		struct section *sec = src->sections[i];
		if (has_section(dst, sec->key)) {
			size_t n = strlen(stage) + strlen(sec->key) + 2;
			char *k = xmalloc(n);
			snprintf(k, n, "%s.%s", stage, sec->key);
			free(sec->key);
			sec->key = k;
		}
		XGROW(dst->sections, dst->asections, dst->nsections + 1);
		dst->sections[dst->nsections++] = sec;
	}
	src->nsections = 0;
	for (size_t i = 0; i < src->nfindings; i++) {
		XGROW(dst->findings, dst->afindings, dst->nfindings + 1);
		dst->findings[dst->nfindings++] = src->findings[i];
	}
	src->nfindings = 0;
	if (!dst->causes) {
		dst->causes = src->causes;
		src->causes = NULL;
	}
	if (!dst->ranks) {
		dst->ranks = src->ranks;
		src->ranks = NULL;
	}
	if (!dst->topo) {
		dst->topo = src->topo;
		src->topo = NULL;
	}
	if (src->extra && json_object_size(src->extra)) {
		if (!dst->extra)
			dst->extra = json_object();
		json_object_set(dst->extra, stage, src->extra);
	}
	if (src->error)
		section_note(result_section(dst, "stage_errors", "Stages that could not do their job"), "%s: %s", stage,
			     src->error);
	result_free(src);
}

void result_set_headline(struct result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(r->headline);
	r->headline = vfmt(fmt, ap);
	va_end(ap);
}

void result_set_error(struct result *r, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(r->error);
	r->error = vfmt(fmt, ap);
	va_end(ap);
}

const char *result_verdict(const struct result *r)
{
	if (r->verdict)
		return r->verdict;
	int code = result_exit_code(r);
	return code >= 3 ? RESULT_INCOMPLETE : code == 2 ? RESULT_BROKEN : code == 1 ? RESULT_DEGRADED : RESULT_HEALTHY;
}

void result_set_nothing_to_check(struct result *r, const char *why)
{
	result_set_error(r, "%s", why);
	r->verdict = RESULT_NOTHING_TO_CHECK;
}

struct section *result_section(struct result *r, const char *key, const char *title)
{
	for (size_t i = 0; i < r->nsections; i++)
		if (strcmp(r->sections[i]->key, key) == 0)
			return r->sections[i];
	struct section *s = xcalloc(1, sizeof(*s));
	s->key = xstrdup(key);
	s->title = xstrdup(title ? title : key);
	XGROW(r->sections, r->asections, r->nsections + 1);
	r->sections[r->nsections++] = s;
	return s;
}

static struct section *typed_section(struct result *r, const char *key, const char *title,
				     enum section_kind kind)
{
	struct section *s = result_section(r, key, title);
	s->kind = kind;
	if (title && strcmp(s->title, title) != 0) {
		free(s->title);
		s->title = xstrdup(title);
	}
	return s;
}

struct cause_list *result_causes(struct result *r, const char *title)
{
	typed_section(r, "causes", title, SECTION_CAUSES);
	if (!r->causes)
		r->causes = xcalloc(1, sizeof(*r->causes));
	return r->causes;
}

struct rank_list *result_ranks(struct result *r, const char *title)
{
	typed_section(r, "ranks", title, SECTION_RANKS);
	if (!r->ranks)
		r->ranks = xcalloc(1, sizeof(*r->ranks));
	return r->ranks;
}

struct topo_model *result_topo(struct result *r)
{
	if (!r->topo)
		r->topo = xcalloc(1, sizeof(*r->topo));
	return r->topo;
}

struct section *result_topo_section(struct result *r, enum section_kind kind, const char *key, const char *title)
{
	result_topo(r);
	return typed_section(r, key, title, kind);
}

struct kv *section_add(struct section *s, const char *key, const char *label, struct value v)
{
	XGROW(s->kvs, s->akv, s->nkv + 1);
	struct kv *kv = &s->kvs[s->nkv++];
	kv->key = xstrdup(key);
	kv->label = xstrdup(label ? label : key);
	kv->v = v;
	kv->mark = MARK_NONE;
	kv->show = SHOW_BOTH;
	return kv;
}

void section_note(struct section *s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	XGROW(s->notes, s->anotes, s->nnotes + 1);
	s->notes[s->nnotes++] = vfmt(fmt, ap);
	va_end(ap);
}

struct table *table_new(const char *key, const char *title, const struct column *cols, size_t ncols)
{
	struct table *t = xcalloc(1, sizeof(*t));
	t->key = xstrdup(key);
	t->title = title ? xstrdup(title) : NULL;
	t->ncols = ncols;
	t->cols = xcalloc(ncols, sizeof(*t->cols));
	for (size_t i = 0; i < ncols; i++) {
		t->cols[i].key = xstrdup(cols[i].key);
		t->cols[i].title = xstrdup(cols[i].title ? cols[i].title : cols[i].key);
		t->cols[i].show = cols[i].show;
	}
	return t;
}

struct table *section_table(struct section *s, const char *key, const char *title,
			    const struct column *cols, size_t ncols)
{
	struct table *t = table_new(key, title, cols, ncols);
	XGROW(s->tables, s->atables, s->ntables + 1);
	s->tables[s->ntables++] = t;
	return t;
}

size_t table_add_row(struct table *t)
{
	if (t->nrows == t->arows) {
		size_t n = t->arows ? t->arows * 2 : 8;
		t->cells = xrealloc(t->cells, n * t->ncols * sizeof(*t->cells));
		t->marks = xrealloc(t->marks, n * t->ncols * sizeof(*t->marks));
		t->arows = n;
	}
	for (size_t c = 0; c < t->ncols; c++) {
		t->cells[t->nrows * t->ncols + c] = val_none();
		t->marks[t->nrows * t->ncols + c] = MARK_NONE;
	}
	return t->nrows++;
}

static size_t col_index(const struct table *t, const char *col)
{
	for (size_t c = 0; c < t->ncols; c++)
		if (strcmp(t->cols[c].key, col) == 0)
			return c;
	fprintf(stderr, "nccl-doctor: internal error: table '%s' has no column '%s'\n", t->key, col);
	abort();
}

void table_set(struct table *t, size_t row, const char *col, struct value v)
{
	size_t c = col_index(t, col);
	struct value *cell = &t->cells[row * t->ncols + c];
	value_release(cell);
	*cell = v;
}

void table_mark(struct table *t, size_t row, const char *col, enum mark m)
{
	t->marks[row * t->ncols + col_index(t, col)] = m;
}

struct finding *result_add_findingv(struct result *r, const char *id, const char *cause,
				    enum severity sev, const char *fmt, va_list ap)
{
	struct finding *f = xcalloc(1, sizeof(*f));
	f->id = xstrdup(id);
	f->sev = sev;
	f->cause = cause;
	f->title = vfmt(fmt, ap);
	XGROW(r->findings, r->afindings, r->nfindings + 1);
	r->findings[r->nfindings++] = f;
	return f;
}

void finding_evidence(struct finding *f, const char *file, long line, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	XGROW(f->ev, f->aev, f->nev + 1);
	struct evidence *e = &f->ev[f->nev++];
	e->text = vfmt(fmt, ap);
	e->file = file ? xstrdup(file) : NULL;
	e->line = line;
	e->source = NULL;
	va_end(ap);
}

void finding_fix(struct finding *f, const char *kind, const char *note, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	XGROW(f->fixes, f->afix, f->nfix + 1);
	struct fix *x = &f->fixes[f->nfix++];
	x->kind = xstrdup(kind);
	x->text = vfmt(fmt, ap);
	x->note = note ? xstrdup(note) : NULL;
	va_end(ap);
}

struct finding *result_find(const struct result *r, const char *id)
{
	for (size_t i = 0; i < r->nfindings; i++)
		if (strcmp(r->findings[i]->id, id) == 0)
			return r->findings[i];
	return NULL;
}

void result_sort_findings(struct result *r)
{
	/* insertion sort: stable, and the lists are short */
	for (size_t i = 1; i < r->nfindings; i++) {
		struct finding *f = r->findings[i];
		size_t j = i;
		while (j > 0 && r->findings[j - 1]->sev < f->sev) {
			r->findings[j] = r->findings[j - 1];
			j--;
		}
		r->findings[j] = f;
	}
}

int result_exit_code(const struct result *r)
{
	if (r->error)
		return 3;
	int worst = -1;
	for (size_t i = 0; i < r->nfindings; i++)
		if ((int)r->findings[i]->sev > worst)
			worst = (int)r->findings[i]->sev;
	if (worst == SEV_ERROR)
		return 2;
	if (worst == SEV_WARNING)
		return 1;
	return 0;
}
