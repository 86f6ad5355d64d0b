/* What the renderers meant to leave the machine share (report/paste_int.h):
 * redaction as snapshots do it, secret rows and facts, the verdict word and
 * the first facts. Moved out of markdown.c when the HTML report came, so
 * that both redact, word and head their reports the same way. */
#include "kb/causes.h"
#include "report/paste_int.h"
#include "report/report.h"
#include "util/envfilter.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- strings out: redacted, visible ---- */

static bool name_start(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static bool name_char(char c)
{
	return name_start(c) || (c >= '0' && c <= '9');
}

static bool space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* One token (no white space) redacted into out: NAME=VALUE (after quotes or
 * other punctuation) keeps its name and loses the value when the name is a
 * secret's, else the value goes through envfilter_redact_value; any other
 * token goes through it whole. */
static void redact_token(const char *t, size_t len, struct strbuf *out)
{
	size_t i = 0;
	while (i < len && !name_start(t[i]))
		i++;
	size_t n = i;
	while (n < len && name_char(t[n]))
		n++;
	if (n > i && n < len && t[n] == '=') {
		strbuf_add(out, t, n + 1);
		if (envfilter_secret_name(t + i, n - i)) {
			/* up to a closing quote of the token */
			size_t e = len;
			while (e > n + 1 && (t[e - 1] == '"' || t[e - 1] == '\'' || t[e - 1] == ',' || t[e - 1] == ';'))
				e--;
			strbuf_adds(out, ENVFILTER_REDACTED);
			strbuf_add(out, t + e, len - e);
		} else {
			envfilter_redact_value(t + n + 1, len - n - 1, out);
		}
		return;
	}
	envfilter_redact_value(t, len, out);
}

/* s redacted, token by token (white space kept as it is), into r. */
static void redact(const char *s, struct strbuf *r)
{
	strbuf_adds(r, "");
	for (size_t i = 0; s[i];) {
		size_t j = i;
		if (space(s[i])) {
			while (s[j] && space(s[j]))
				j++;
			strbuf_add(r, s + i, j - i);
		} else {
			while (s[j] && !space(s[j]))
				j++;
			redact_token(s + i, j - i, r);
		}
		i = j;
	}
}

char *paste_clean(const char *s, unsigned flags)
{
	struct strbuf r;
	strbuf_init(&r, 0);
	redact(s, &r);
	const char *red = strbuf_str(&r);
	size_t n = str_visible(NULL, 0, red, flags);
	char *v = xmalloc(n + 1);
	str_visible(v, n + 1, red, flags);
	strbuf_release(&r);
	for (char *p = v; *p; p++)
		if (*p == '\t')
			*p = ' ';
	return v;
}

char *paste_words(const char *s)
{
	size_t nc;
	const struct cause_def *cs = kb_causes(&nc);
	struct strbuf w;
	strbuf_init(&w, 0);
	strbuf_adds(&w, "");
	const char *p = s;
	while (*p) {
		size_t len;
		int i = kb_cause_word(s, p, &len);
		if (!len) {
			strbuf_addch(&w, *p++);
			continue;
		}
		if (i >= 0)
			strbuf_adds(&w, cs[i].title);
		else
			strbuf_add(&w, p, len);
		p += len;
	}
	return strbuf_detach(&w);
}

bool paste_empty_cell(const struct value *v)
{
	char buf[64];
	const char *x = value_text(v, buf, sizeof(buf));
	return !*x || strcmp(x, "-") == 0;
}

size_t paste_table_columns(const struct table *t, bool *on, size_t *first)
{
	size_t ncols = 0;
	*first = t->ncols;
	for (size_t c = 0; c < t->ncols; c++) {
		on[c] = false;
		if (t->cols[c].show == SHOW_JSON_ONLY)
			continue;
		bool empty = *first != t->ncols;
		for (size_t r = 0; r < t->nrows && empty; r++)
			empty = paste_empty_cell(&t->cells[r * t->ncols + c]);
		if (*first == t->ncols)
			*first = c;
		on[c] = !empty;
		ncols += on[c];
	}
	return ncols;
}

bool paste_row_secret(const struct table *t, size_t r)
{
	for (size_t c = 0; c < t->ncols; c++) {
		const struct value *v = &t->cells[r * t->ncols + c];
		if ((strcmp(t->cols[c].key, "name") == 0 || strcmp(t->cols[c].key, "variable") == 0) &&
		    v->type == VAL_STR && v->s && envfilter_secret_name(v->s, strlen(v->s)))
			return true;
	}
	return false;
}

bool paste_kv_secret(const struct kv *kv)
{
	return envfilter_secret_name(kv->key, strlen(kv->key)) ||
	       (kv->label && envfilter_secret_name(kv->label, strlen(kv->label)));
}

static bool secret_json_name(const json_t *s)
{
	return json_is_string(s) && envfilter_secret_name(json_string_value(s), json_string_length(s));
}

json_t *paste_redact_json(const json_t *doc)
{
	if (json_is_string(doc)) {
		struct strbuf r;
		strbuf_init(&r, 0);
		redact(json_string_value(doc), &r);
		json_t *s = json_stringn(strbuf_str(&r), r.len);
		strbuf_release(&r);
		/* a string that is not UTF-8 (jansson refuses it) as it was */
		return s ? s : json_deep_copy(doc);
	}
	if (json_is_array(doc)) {
		json_t *a = json_array();
		size_t i;
		json_t *v;
		json_array_foreach(doc, i, v)
			json_array_append_new(a, paste_redact_json(v));
		return a;
	}
	if (!json_is_object(doc))
		return json_deep_copy(doc);
	/* a row of NAME and VALUE: {"name": "NCCL_IB_TOKEN", "value": ...} */
	bool row = secret_json_name(json_object_get(doc, "name")) || secret_json_name(json_object_get(doc, "variable"));
	json_t *o = json_object();
	const char *key;
	json_t *v;
	json_object_foreach((json_t *)doc, key, v) {
		if (json_is_string(v) && (envfilter_secret_name(key, strlen(key)) || (row && strcmp(key, "value") == 0)))
			json_object_set_new(o, key, json_string(ENVFILTER_REDACTED));
		else
			json_object_set_new(o, key, paste_redact_json(v));
	}
	return o;
}

bool paste_fix_words(const char *kind)
{
	return strcmp(kind, "note") == 0 || strcmp(kind, "bios") == 0;
}

bool paste_first_screen_command(const char *cmd)
{
	static const char *const cmds[] = { "check", "fix", "p2p", "logs", "kernel", "watch" };
	for (size_t i = 0; cmd && i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (strcmp(cmd, cmds[i]) == 0)
			return true;
	return false;
}

/* ---- facts a maintainer asks first ---- */

static const struct kv *find_kv(const struct result *r, const char *section, const char *key)
{
	for (size_t i = 0; i < r->nsections; i++) {
		const struct section *s = r->sections[i];
		if (section && strcmp(s->key, section) != 0)
			continue;
		for (size_t k = 0; k < s->nkv; k++)
			if (strcmp(s->kvs[k].key, key) == 0 && s->kvs[k].v.type != VAL_UNKNOWN &&
			    s->kvs[k].v.type != VAL_NONE)
				return &s->kvs[k];
	}
	return NULL;
}

/* A cell of the first table of section (key) with a column col, row row. */
static const struct value *find_cell(const struct result *r, const char *section, const char *col, size_t row)
{
	for (size_t i = 0; i < r->nsections; i++) {
		const struct section *s = r->sections[i];
		if (strcmp(s->key, section) != 0)
			continue;
		for (size_t t = 0; t < s->ntables; t++)
			for (size_t c = 0; c < s->tables[t]->ncols; c++)
				if (strcmp(s->tables[t]->cols[c].key, col) == 0 && row < s->tables[t]->nrows)
					return &s->tables[t]->cells[row * s->tables[t]->ncols + c];
	}
	return NULL;
}

/* GPUs: "4 x H100 PCIe" from the topology, else the PCI section; false
 * when there is none. */
static bool gpu_fact(const struct result *r, struct paste_fact *f)
{
	char name[256] = "";
	size_t n = 0;
	bool mixed = false;
	if (r->topo && r->topo->n) {
		n = r->topo->n;
		for (size_t i = 0; i < n; i++) {
			const char *g = r->topo->gpus[i].name;
			if (!g)
				continue;
			if (!name[0])
				snprintf(name, sizeof(name), "%s", g);
			else if (strcmp(name, g) != 0)
				mixed = true;
		}
	} else {
		/* the count, else a row per GPU of the section's table */
		const struct kv *c = find_kv(r, "gpus", "count");
		if (c && c->v.type == VAL_INT && c->v.i > 0)
			n = (size_t)c->v.i;
		else
			while (find_cell(r, "gpus", "name", n))
				n++;
		if (!n)
			return false;
		for (size_t i = 0; i < n; i++) {
			const struct value *v = find_cell(r, "gpus", "name", i);
			if (!v || v->type != VAL_STR)
				continue;
			if (!name[0])
				snprintf(name, sizeof(name), "%s", v->s);
			else if (strcmp(name, v->s) != 0)
				mixed = true;
		}
	}
	if (!name[0])
		snprintf(f->value, sizeof(f->value), "%zu", n);
	else
		snprintf(f->value, sizeof(f->value), "%zu \xc3\x97 %s%s", n, name, mixed ? " (mixed)" : "");
	f->label = n == 1 ? "GPU" : "GPUs";
	return true;
}

static void set_fact(struct paste_fact *f, size_t *n, const char *label, const char *v)
{
	if (!v || !*v)
		return;
	f[*n].label = label;
	snprintf(f[*n].value, sizeof(f[*n].value), "%s", v);
	(*n)++;
}

size_t paste_header_facts(const struct result *r, struct paste_fact *f)
{
	char date[64] = "", buf[256];
	size_t n = 0;
	const char *sde = getenv("SOURCE_DATE_EPOCH"); /* reproducible output */
	char *end = NULL;
	long long e = sde && *sde ? strtoll(sde, &end, 10) : -1;
	time_t t = e >= 0 && end && !*end ? (time_t)e : time(NULL);
	struct tm tm;
	if (gmtime_r(&t, &tm))
		strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", &tm);
	set_fact(f, &n, "nccl-doctor", NCCL_DOCTOR_VERSION);
	f[n].label = "date";
	snprintf(f[n++].value, sizeof(f->value), "%s", date);
	const struct kv *k = find_kv(r, "driver", "version");
	if (!k)
		k = find_kv(r, NULL, "driver_version");
	if (k)
		set_fact(f, &n, "driver", value_text(&k->v, buf, sizeof(buf)));
	if ((k = find_kv(r, NULL, "cuda_driver_version")) || (k = find_kv(r, NULL, "cuda_version")))
		set_fact(f, &n, "CUDA", value_text(&k->v, buf, sizeof(buf)));
	const struct value *nv = NULL;
	if ((k = find_kv(r, NULL, "job_nccl")) || (k = find_kv(r, NULL, "nccl_version")))
		nv = &k->v;
	else if ((nv = find_cell(r, "nccl_libraries", "version", 0)) && nv->type != VAL_STR)
		nv = NULL;
	if (nv)
		set_fact(f, &n, "NCCL", value_text(nv, buf, sizeof(buf)));
	else if (r->ranks)
		for (size_t i = 0; i < r->ranks->n; i++)
			if (r->ranks->v[i].nccl_version) {
				set_fact(f, &n, "NCCL", r->ranks->v[i].nccl_version);
				break;
			}
	if (gpu_fact(r, &f[n]))
		n++;
	return n;
}

char *paste_cell_text(const struct table *t, size_t r, size_t c, bool secret)
{
	const struct value *v = &t->cells[r * t->ncols + c];
	if (secret && !paste_empty_cell(v))
		return xstrdup(ENVFILTER_REDACTED);
	size_t need = v->type == VAL_STR && !v->display && v->s ? strlen(v->s) + 1 : 256;
	char *buf = xmalloc(need);
	const char *s = value_text(v, buf, need);
	const char *title = strcmp(t->cols[c].key, "cause") == 0 ? kb_cause_title(s) : NULL;
	char *out = xstrdup(title ? title : s);
	free(buf);
	return out;
}
