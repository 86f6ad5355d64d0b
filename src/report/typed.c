/* Rendering of the typed members of the result model (model/runs.h): the
 * tables the text report shows for them, and their JSON. */
#include "report/report.h"
#include "util/jsonx.h"

#include <stdio.h>
#include <string.h>

/* ---- text tables ---- */

/* At most max code points of s, the last one "…" when s is longer (a cut
 * is always marked), into buf. */
static const char *cut_marked(const char *s, size_t max, char *buf, size_t bufsz)
{
	size_t cols = 0, i = 0;
	while (s[i] && cols < max) {
		size_t j = i + 1;
		while (s[j] && ((unsigned char)s[j] & 0xC0) == 0x80)
			j++;
		if (cols + 1 == max && s[j])
			break; /* the last column goes to the mark */
		i = j;
		cols++;
	}
	if (i + 4 > bufsz)
		i = bufsz > 4 ? bufsz - 4 : 0;
	memcpy(buf, s, i);
	if (s[i])
		memcpy(buf + i, "\u2026", 4);
	else
		buf[i] = '\0';
	return buf;
}

struct table *report_causes_table(const struct cause_list *l)
{
	static const struct column cols[] = {
		{ "cause", "cause", 0 }, { "confidence", "confidence", 0 }, { "evidence", "first evidence", 0 },
		{ "findings", "findings", 0 },
	};
	struct table *t = table_new("causes", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	for (size_t i = 0; i < l->n; i++) {
		const struct cause *c = &l->v[i];
		size_t row = table_add_row(t);
		table_set(t, row, "cause", val_str(c->cause));
		table_set(t, row, "confidence", val_strf("%.2f", c->confidence));
		char cut[320];
		if (c->nev && !c->ev[0].file && c->ev[0].line == 0) /* a fact, not a log line */
			table_set(t, row, "evidence", val_str(cut_marked(c->ev[0].text, 70, cut, sizeof(cut))));
		else if (c->nev)
			table_set(t, row, "evidence", val_strf("%s:%ld: %s", c->ev[0].file ? c->ev[0].file : "-",
							       c->ev[0].line, cut_marked(c->ev[0].text, 70, cut, sizeof(cut))));
		char fl[200] = "";
		size_t len = 0;
		for (size_t k = 0; k < c->nfids && len < sizeof(fl); k++) {
			int n = snprintf(fl + len, sizeof(fl) - len, "%s%s", k ? "," : "", c->finding_ids[k]);
			if (n < 0)
				break;
			len += (size_t)n;
		}
		table_set(t, row, "findings", val_str(fl));
		if (i == 0 && l->failed)
			table_mark(t, row, "cause", MARK_BAD);
	}
	return t;
}

/* The distinct transport kinds of a process, in first-seen order, or "-". */
static void transports_text(const struct rank *k, char *buf, size_t bufsz)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t t = 0; t < k->ntr && len + 2 < bufsz; t++) {
		bool dup = false;
		for (size_t u = 0; u < t; u++)
			if (strcmp(k->tr[u].kind, k->tr[t].kind) == 0)
				dup = true;
		if (dup)
			continue;
		int n = snprintf(buf + len, bufsz - len, "%s%s", len ? "," : "", k->tr[t].kind);
		if (n < 0 || (size_t)n >= bufsz - len)
			break;
		len += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, bufsz, "-");
}

struct table *report_ranks_table(const struct rank_list *l)
{
	static const struct column cols[] = {
		{ "rank", "rank", 0 }, { "process", "host:pid", 0 }, { "gpu", "gpu", 0 }, { "nccl", "nccl", 0 },
		{ "stage", "stage", 0 }, { "stage_name", "stopped at", 0 }, { "transports", "transports", 0 },
		{ "verdict", "verdict", 0 }, { "warnings", "warn", 0 }, { "last", "last NCCL line", 0 },
	};
	struct table *t = table_new("ranks", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	char buf[256];
	for (size_t i = 0; i < l->n; i++) {
		const struct rank *k = &l->v[i];
		size_t row = table_add_row(t);
		if (k->rank_of_comm && k->nranks > 0)
			table_set(t, row, "rank", val_strf("%d/%d", k->rank, k->nranks));
		else if (k->rank >= 0)
			table_set(t, row, "rank", val_strf("%d", k->rank));
		else
			table_set(t, row, "rank", val_str("?"));
		table_set(t, row, "process", val_strf("%s:%ld", k->host, k->pid));
		if (k->bus_id)
			table_set(t, row, "gpu", val_strf("%d (bus %s)", k->cuda_dev, k->bus_id));
		else
			table_set(t, row, "gpu", k->cuda_dev >= 0 ? val_strf("%d", k->cuda_dev) : val_str("?"));
		table_set(t, row, "nccl", val_str(k->nccl_version ? k->nccl_version : "?"));
		table_set(t, row, "stage", val_str(k->stage));
		table_set(t, row, "stage_name", val_str(k->stage_name));
		if (!k->init_complete)
			table_mark(t, row, "stage", MARK_BAD);
		transports_text(k, buf, sizeof(buf));
		table_set(t, row, "transports", val_str(buf));
		table_set(t, row, "verdict", val_str(k->verdict));
		if (strcmp(k->verdict, "ok") != 0)
			table_mark(t, row, "verdict", k->verdict[0] == 'f' ? MARK_BAD : MARK_WARN);
		table_set(t, row, "warnings", val_int(k->warnings));
		if (k->warnings)
			table_mark(t, row, "warnings", MARK_WARN);
		char cut[256];
		table_set(t, row, "last", val_strf("%s:%ld: %s", k->last_file ? k->last_file : "-", k->last_line,
						   cut_marked(k->last_text ? k->last_text : "", 60, cut, sizeof(cut))));
	}
	return t;
}

/* ---- JSON ---- */

static json_t *str_or_null(const char *s)
{
	return s ? json_str_lossy(s) : json_null();
}

json_t *report_causes_json(const struct cause_list *l)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < l->n; i++) {
		const struct cause *c = &l->v[i];
		json_t *o = json_object();
		json_object_set_new(o, "cause", json_string(c->cause));
		json_object_set_new(o, "confidence", json_real(c->confidence));
		json_t *ev = json_array();
		for (size_t k = 0; k < c->nev; k++) {
			json_t *e = json_object();
			json_object_set_new(e, "file", str_or_null(c->ev[k].file));
			json_object_set_new(e, "line", json_integer(c->ev[k].line));
			json_object_set_new(e, "text", json_str_lossy(c->ev[k].text));
			if (c->ev[k].source)
				json_object_set_new(e, "source", json_string(c->ev[k].source));
			json_array_append_new(ev, e);
		}
		json_object_set_new(o, "evidence", ev);
		json_t *fids = json_array();
		for (size_t k = 0; k < c->nfids; k++)
			json_array_append_new(fids, json_string(c->finding_ids[k]));
		json_object_set_new(o, "finding_ids", fids);
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *report_first_failure_json(const struct cause_list *l)
{
	if (!l->have_first)
		return json_null();
	json_t *o = json_object();
	json_object_set_new(o, "file", str_or_null(l->first_file));
	json_object_set_new(o, "line", json_integer(l->first_line));
	json_object_set_new(o, "process", str_or_null(l->first_label));
	json_object_set_new(o, "text", json_str_lossy(l->first_text));
	return o;
}

static json_t *rank_json(const struct rank *k)
{
	json_t *o = json_object();
	json_object_set_new(o, "host", json_str_lossy(k->host));
	json_object_set_new(o, "pid", json_integer(k->pid));
	json_object_set_new(o, "rank", k->rank >= 0 ? json_integer(k->rank) : json_null());
	json_object_set_new(o, "nranks", k->nranks > 0 ? json_integer(k->nranks) : json_null());
	json_object_set_new(o, "cuda_dev", k->cuda_dev >= 0 ? json_integer(k->cuda_dev) : json_null());
	json_object_set_new(o, "nvml_dev", k->nvml_dev >= 0 ? json_integer(k->nvml_dev) : json_null());
	json_object_set_new(o, "bus_id", str_or_null(k->bus_id));
	json_object_set_new(o, "comm_id", str_or_null(k->comm_id));
	json_object_set_new(o, "nccl_version", str_or_null(k->nccl_version));
	json_object_set_new(o, "cuda_driver", k->cuda_driver ? json_integer(k->cuda_driver) : json_null());
	json_object_set_new(o, "bootstrap_interface", str_or_null(k->bootstrap_if));
	json_object_set_new(o, "network", str_or_null(k->network));
	json_object_set_new(o, "stage", json_string(k->stage));
	json_object_set_new(o, "stage_name", json_string(k->stage_name));
	json_object_set_new(o, "init_complete", json_boolean(k->init_complete));
	json_object_set_new(o, "verdict", json_str_lossy(k->verdict));
	json_object_set_new(o, "init_seconds", k->init_seconds >= 0 ? json_real(k->init_seconds) : json_null());
	json_t *tr = json_array();
	for (size_t i = 0; i < k->ntr; i++) {
		json_t *x = json_object();
		json_object_set_new(x, "peer", json_integer(k->tr[i].peer));
		json_object_set_new(x, "transport", json_str_lossy(k->tr[i].kind));
		json_object_set_new(x, "channels", json_integer(k->tr[i].channels));
		json_array_append_new(tr, x);
	}
	json_object_set_new(o, "transports", tr);
	json_t *env = json_object();
	for (size_t i = 0; i < k->nenv; i++)
		json_object_set_new(env, k->env[i].name, json_str_lossy(k->env[i].value));
	json_object_set_new(o, "env", env);
	json_object_set_new(o, "warnings", json_integer(k->warnings));
	json_t *evs = json_array();
	for (size_t i = 0; i < k->nev; i++) {
		const struct rank_event *e = &k->ev[i];
		json_t *x = json_object();
		json_object_set_new(x, "signature", json_string(e->signature));
		json_object_set_new(x, "finding_id", json_string(e->finding_id));
		json_object_set_new(x, "file", str_or_null(e->file));
		json_object_set_new(x, "line", json_integer(e->line));
		json_object_set_new(x, "text", json_str_lossy(e->text));
		if (e->chain)
			json_object_set_new(x, "chain", json_str_lossy(e->chain));
		if (e->nccl_result)
			json_object_set_new(x, "nccl_result", json_integer(e->nccl_result));
		json_array_append_new(evs, x);
	}
	json_object_set_new(o, "events", evs);
	json_t *comms = json_array();
	for (size_t i = 0; i < k->ncomms; i++) {
		const struct rank_comm *m = &k->comms[i];
		json_t *x = json_object();
		json_object_set_new(x, "comm", json_str_lossy(m->comm));
		json_object_set_new(x, "comm_id", str_or_null(m->comm_id));
		json_object_set_new(x, "rank", m->rank >= 0 ? json_integer(m->rank) : json_null());
		json_object_set_new(x, "nranks", m->nranks > 0 ? json_integer(m->nranks) : json_null());
		json_object_set_new(x, "stage", json_string(m->stage));
		json_object_set_new(x, "complete", json_boolean(m->complete));
		json_object_set_new(x, "destroyed", json_boolean(m->destroyed));
		json_array_append_new(comms, x);
	}
	json_object_set_new(o, "comms", comms);
	json_t *last = json_object();
	json_object_set_new(last, "file", str_or_null(k->last_file));
	json_object_set_new(last, "line", json_integer(k->last_line));
	json_object_set_new(last, "text", json_str_lossy(k->last_text ? k->last_text : ""));
	json_object_set_new(o, "last_line", last);
	return o;
}

json_t *report_ranks_json(const struct rank_list *l)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < l->n; i++)
		json_array_append_new(arr, rank_json(&l->v[i]));
	return arr;
}

struct table *report_section_table(const struct result *r, const struct section *s)
{
	if (s->kind == SECTION_CAUSES && r->causes)
		return report_causes_table(r->causes);
	if (s->kind == SECTION_RANKS && r->ranks)
		return report_ranks_table(r->ranks);
	if (s->kind >= SECTION_TOPO_GPUS && r->topo)
		return report_topo_table(r->topo, s->kind);
	return NULL;
}
