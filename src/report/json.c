/* JSON renderer: the document shape is described in docs/json.md. */
#include "report/report.h"
#include "util/jsonx.h"

#include <stdbool.h>
#include <string.h>

static void put_value(json_t *obj, json_t **unknown, const char *key, const struct value *v)
{
	json_object_set_new(obj, key, value_json(v));
	if (v->type == VAL_UNKNOWN) {
		if (!*unknown)
			*unknown = json_object();
		json_object_set_new(*unknown, key, json_str_lossy(v->s));
	}
}

static json_t *table_json(const struct table *t)
{
	json_t *rows = json_array();
	for (size_t r = 0; r < t->nrows; r++) {
		json_t *row = json_object();
		json_t *unknown = NULL;
		for (size_t c = 0; c < t->ncols; c++) {
			if (t->cols[c].show == SHOW_TEXT_ONLY)
				continue;
			put_value(row, &unknown, t->cols[c].key, &t->cells[r * t->ncols + c]);
		}
		if (unknown)
			json_object_set_new(row, "unknown", unknown);
		json_array_append_new(rows, row);
	}
	return rows;
}

static json_t *section_json(const struct section *s)
{
	json_t *obj = json_object();
	json_t *unknown = NULL;
	for (size_t i = 0; i < s->nkv; i++) {
		if (s->kvs[i].show == SHOW_TEXT_ONLY)
			continue;
		put_value(obj, &unknown, s->kvs[i].key, &s->kvs[i].v);
	}
	for (size_t i = 0; i < s->ntables; i++)
		json_object_set_new(obj, s->tables[i]->key, table_json(s->tables[i]));
	if (s->nnotes) {
		json_t *notes = json_array();
		for (size_t i = 0; i < s->nnotes; i++)
			json_array_append_new(notes, json_str_lossy(s->notes[i]));
		json_object_set_new(obj, "notes", notes);
	}
	if (unknown)
		json_object_set_new(obj, "unknown", unknown);
	return obj;
}

json_t *report_finding_json(const struct finding *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_string(f->id));
	json_object_set_new(o, "severity", json_string(severity_name(f->sev)));
	json_object_set_new(o, "cause", json_string(f->cause));
	json_object_set_new(o, "title", json_str_lossy(f->title));
	json_t *ev = json_array();
	for (size_t i = 0; i < f->nev; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "text", json_str_lossy(f->ev[i].text));
		if (f->ev[i].file)
			json_object_set_new(e, "file", json_str_lossy(f->ev[i].file));
		if (f->ev[i].line > 0)
			json_object_set_new(e, "line", json_integer(f->ev[i].line));
		json_array_append_new(ev, e);
	}
	json_object_set_new(o, "evidence", ev);
	json_t *fx = json_array();
	for (size_t i = 0; i < f->nfix; i++) {
		json_t *x = json_object();
		json_object_set_new(x, "kind", json_str_lossy(f->fixes[i].kind));
		json_object_set_new(x, "text", json_str_lossy(f->fixes[i].text));
		if (f->fixes[i].note)
			json_object_set_new(x, "note", json_str_lossy(f->fixes[i].note));
		json_array_append_new(fx, x);
	}
	json_object_set_new(o, "fixes", fx);
	return o;
}

json_t *report_json(const struct result *r)
{
	json_t *doc = json_object();
	json_object_set_new(doc, "schema_version", json_integer(ND_JSON_SCHEMA_VERSION));
	/* a ranked result leads with its causes, ranks and findings */
	bool ranked = r->causes || r->ranks;
	if (r->causes)
		json_object_set_new(doc, "causes", report_causes_json(r->causes));
	if (r->ranks)
		json_object_set_new(doc, "ranks", report_ranks_json(r->ranks));
	json_t *fs = json_array();
	int counts[3] = { 0, 0, 0 };
	for (size_t i = 0; i < r->nfindings; i++) {
		json_array_append_new(fs, report_finding_json(r->findings[i]));
		counts[r->findings[i]->sev]++;
	}
	if (ranked)
		json_object_set_new(doc, "findings", fs);
	if (r->causes)
		json_object_set_new(doc, "first_failure", report_first_failure_json(r->causes));
	if (r->causes && r->causes->unknown)
		json_object_set_new(doc, "cause_unknown", json_true());
	json_object_set_new(doc, "tool_version", json_string(NCCL_DOCTOR_VERSION));
	json_object_set_new(doc, "command", json_string(r->command));
	if (r->headline)
		json_object_set_new(doc, "headline", json_str_lossy(r->headline));
	if (r->error)
		json_object_set_new(doc, "error", json_str_lossy(r->error));
	json_t *facts = json_object();
	for (size_t i = 0; i < r->nsections; i++)
		if (r->sections[i]->kind == SECTION_FACTS) /* typed ones are top-level members */
			json_object_set_new(facts, r->sections[i]->key, section_json(r->sections[i]));
	json_object_set_new(doc, "facts", facts);
	if (!ranked)
		json_object_set_new(doc, "findings", fs);
	if (r->topo)
		report_topo_json(r->topo, doc);
	/* command-specific members (e.g. topo's workers) */
	const char *key;
	json_t *val;
	json_object_foreach(r->extra, key, val)
		json_object_set(doc, key, val);
	json_t *sum = json_object();
	json_object_set_new(sum, "errors", json_integer(counts[SEV_ERROR]));
	json_object_set_new(sum, "warnings", json_integer(counts[SEV_WARNING]));
	json_object_set_new(sum, "info", json_integer(counts[SEV_INFO]));
	/* a command whose exit status is its verdict's, not its findings'
	 * (fix: COULD NOT RUN exits 3, FIX FOUND 1), names it in its own
	 * exit_code: the summary says the status the run exits with */
	json_t *own = json_object_get(r->extra, "exit_code");
	json_object_set_new(sum, "exit_code", json_integer(json_is_integer(own) ? json_integer_value(own) : result_exit_code(r)));
	json_object_set_new(doc, "summary", sum);
	return doc;
}
