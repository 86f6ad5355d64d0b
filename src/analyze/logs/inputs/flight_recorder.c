/* An input of the NCCL log reader: PyTorch flight-recorder dumps (JSON) of
 * `logs`. A file whose first line opens a JSON object is also kept whole
 * (up to 64 MiB) while its lines go through the log reader as usual; at its end,
 * a JSON document with the flight recorder's "entries" (and "pg_config" or
 * "version") is read into one dump per rank: per process group the last
 * completed collective and the first that did not complete (its seq id,
 * profiling name, sizes, dtypes, state). The analysis matches the ranks of
 * each group (kb/diagnostic-inputs.md, PyTorch's fr_trace): a rank on a
 * different collective, seq id, size or dtype is a collective mismatch; a
 * rank of the group without a dump, or one that never reached the
 * collective the others wait in, is the straggler; every rank started in
 * the same collective points to the data path, not the application.
 * Pickle dumps are not read here: `logs` names the conversion. Another
 * JSON document that is an `ncclras -f json` report goes to the operation
 * counts of logs/inputs/inspector.c. */
#include "analyze/logs/inputs/flight_recorder.h"
#include "analyze/logs/inputs/inspector.h"
#include "analyze/logs/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>

static struct nl_fr *fr_state(struct nccllog *lg)
{
	if (!lg->fr) {
		struct nl_fr *fr = xcalloc(1, sizeof(*fr));
		fr->file = -1;
		fr->bad_file = fr->cut_file = -1;
		lg->fr = fr;
	}
	return lg->fr;
}

#define FR_LOOK (1u << 20)

size_t nl_fr_mem_limit(size_t n, size_t max)
{
	return n > (max - FR_MEM_BASE) / FR_MEM_PER_BYTE ? max : FR_MEM_BASE + FR_MEM_PER_BYTE * n;
}

/* What jansson would take for the JSON text s[0..n), counted without
 * parsing (the sizes of the pickle reader: an object 224 bytes, an array
 * 128, a member 96, an array element or number 48, a string 40 and its
 * bytes). */
static size_t json_mem_estimate(const char *s, size_t n)
{
	size_t cost = n;
	for (size_t i = 0; i < n; i++) {
		switch (s[i]) {
		case '"':
			cost += 40;
			for (i++; i < n && s[i] != '"'; i++)
				i += s[i] == '\\';
			break;
		case '{': cost += 224; break;
		case '[': cost += 128; break;
		case ':': cost += 96; break;
		case ',': cost += 48; break;
		}
	}
	return cost;
}

static bool looks_like_dump(const char *s, size_t n)
{
	return mem_has(s, n, "\"entries\"") || mem_has(s, n, "\"pg_config\"") || mem_has(s, n, "\"collective_counts\"");
}

bool nl_fr_detect(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	(void)file, (void)s, (void)n;
	return lineno == 1 || lg->fr != NULL; /* nl_fr_line() does nothing else */
}

bool nl_fr_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	struct nl_fr *fr = lg->fr;
	if (lineno == 1) {
		size_t i = 0;
		while (i < n && isspace((unsigned char)s[i]))
			i++;
		if (i >= n || s[i] != '{')
			return false;
		/* a whole object on the first line without "entries": JSON lines
		 * of some logger, not a dump */
		size_t e = n;
		while (e > i && isspace((unsigned char)s[e - 1]))
			e--;
		if (e - i > 1 && s[e - 1] == '}' && !mem_has(s + i, e - i, "\"entries\""))
			return false;
		fr = fr_state(lg);
		fr->file = file;
		fr->len = 0;
		fr->over = false;
	}
	if (!fr || fr->file != file || fr->over)
		return false;
	if (fr->len + n + 1 > FR_MAX_JSON) {
		fr->over = true;
		return false;
	}
	/* past 1 MiB, only a document that looks like a dump is kept (the
	 * memory of `logs` stays flat on other JSON) */
	if (fr->len < FR_LOOK && fr->len + n + 1 >= FR_LOOK && !looks_like_dump(fr->buf, fr->len) &&
	    !looks_like_dump(s, n < FR_LOOK ? n : FR_LOOK)) {
		fr->len = 0;
		fr->over = true;
		return false;
	}
	XGROW(fr->buf, fr->cap, fr->len + n + 1);
	memcpy(fr->buf + fr->len, s, n);
	fr->len += n;
	fr->buf[fr->len++] = '\n';
	return false; /* the lines go through the log reader as usual */
}

/* A copy of v cut after its first *budget values in document order (strings
 * shared): each value adds at least one byte to the JSON text, so the
 * copy's text begins with v's first *budget bytes. A value a pickle's memo
 * shares many times would expand without end in json_dumps; the copy
 * stays small. The recursion is at most *budget deep. */
static json_t *json_head(json_t *v, int *budget)
{
	if (*budget <= 0)
		return NULL;
	(*budget)--;
	if (json_is_array(v)) {
		json_t *a = json_array(), *x;
		size_t i;
		json_array_foreach(v, i, x) {
			json_t *c = json_head(x, budget);
			if (!c)
				break;
			json_array_append_new(a, c);
		}
		return a;
	}
	if (json_is_object(v)) {
		json_t *o = json_object(), *x;
		const char *key;
		json_object_foreach(v, key, x) {
			json_t *c = json_head(x, budget);
			if (!c)
				break;
			json_object_set_new(o, key, c);
		}
		return o;
	}
	return json_incref(v);
}

/* JSON value as compact text into out ("[[1024, 4]]"), cut to fit. */
static void json_text(json_t *v, char *out, size_t outsz)
{
	out[0] = '\0';
	int budget = (int)outsz + 16;
	json_t *h = v ? json_head(v, &budget) : NULL;
	if (!h)
		return;
	char *t = json_dumps(h, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(h);
	if (t) {
		nl_copy_clean(out, outsz, t, strlen(t));
		free(t);
	}
}

static void str_field(json_t *o, const char *key, char *out, size_t outsz)
{
	json_t *v = json_object_get(o, key);
	if (json_is_string(v))
		nl_copy_clean(out, outsz, json_string_value(v), strlen(json_string_value(v)));
	else if (json_is_number(v))
		snprintf(out, outsz, "%g", json_number_value(v));
	else
		out[0] = '\0';
}

static struct fr_pg *pg_of(struct fr_dump *d, const char *name)
{
	for (int i = 0; i < d->npg; i++)
		if (strcmp(d->pg[i].name, name) == 0)
			return &d->pg[i];
	if (d->npg >= FR_MAX_PGS)
		return NULL;
	struct fr_pg *p = &d->pg[d->npg++];
	memset(p, 0, sizeof(*p));
	nl_copy_clean(p->name, sizeof(p->name), name, strlen(name));
	p->nranks = -1;
	p->last_done.seq = p->head.seq = -1;
	return p;
}

/* pg_config: {pg_uid: {"desc": .., "ranks": "[0, 1]" or [0, 1]}} (PyTorch
 * writes ranks as a string in some versions). */
static void read_pg_config(struct fr_dump *d, json_t *cfg)
{
	const char *key;
	json_t *v;
	json_object_foreach(cfg, key, v) {
		struct fr_pg *p = pg_of(d, key);
		if (!p || !json_is_object(v))
			continue;
		str_field(v, "desc", p->desc, sizeof(p->desc));
		json_t *r = json_object_get(v, "ranks");
		p->nranks = 0;
		if (json_is_array(r)) {
			size_t i;
			json_t *x;
			json_array_foreach(r, i, x)
				if (json_is_integer(x) && p->nranks < 64)
					p->ranks[p->nranks++] = (int)json_integer_value(x);
		} else if (json_is_string(r)) {
			const char *s = json_string_value(r);
			while (*s && p->nranks < 64) {
				while (*s && !isdigit((unsigned char)*s))
					s++;
				if (!*s)
					break;
				p->ranks[p->nranks++] = (int)strtol(s, (char **)&s, 10);
			}
		}
	}
}

static void read_entry(struct fr_dump *d, json_t *e)
{
	if (!json_is_object(e) || json_is_true(json_object_get(e, "is_p2p")))
		return;
	json_t *pgv = json_object_get(e, "process_group");
	char pgname[32] = "";
	if (json_is_array(pgv) && json_is_string(json_array_get(pgv, 0)))
		str_copy_cut(pgname, sizeof(pgname), json_string_value(json_array_get(pgv, 0)));
	else
		str_field(e, "pg_id", pgname, sizeof(pgname));
	struct fr_pg *p = pg_of(d, pgname);
	json_t *seqv = json_object_get(e, "collective_seq_id");
	if (!p || !json_is_integer(seqv))
		return;
	struct fr_head h;
	memset(&h, 0, sizeof(h));
	h.seq = json_integer_value(seqv);
	str_field(e, "state", h.state, sizeof(h.state));
	bool done = strcmp(h.state, "completed") == 0;
	/* only an entry that is kept is rendered (a pickle may name one
	 * entry millions of times through its memo) */
	if (done ? h.seq <= p->last_done.seq : p->head.seq >= 0 && h.seq >= p->head.seq)
		return;
	str_field(e, "profiling_name", h.name, sizeof(h.name));
	json_text(json_object_get(e, "input_sizes"), h.sizes, sizeof(h.sizes));
	json_text(json_object_get(e, "input_dtypes"), h.dtypes, sizeof(h.dtypes));
	if (done)
		p->last_done = h;
	else
		p->head = h;
}

/* The rank of a dump: "rank" at the top, else the file name's last digits
 * (TORCH_NCCL_DEBUG_INFO_TEMP_FILE prefix + rank). */
static int dump_rank(json_t *root, const char *name)
{
	json_t *r = json_object_get(root, "rank");
	if (json_is_integer(r))
		return (int)json_integer_value(r);
	const char *end = name + strlen(name);
	const char *slash = strrchr(name, '/');
	const char *dot = strrchr(slash ? slash : name, '.');
	if (dot && !isdigit((unsigned char)dot[1]))
		end = dot; /* "..._3.json" */
	const char *b = end;
	while (b > name && isdigit((unsigned char)b[-1]))
		b--;
	return b < end ? atoi(b) : -1;
}

/* One dump more from the flight-recorder document root. */
static void fr_add_root(struct nccllog *lg, struct nl_fr *fr, int file, json_t *root, json_t *entries)
{
	if (fr->ndumps >= FR_MAX_DUMPS)
		return;
	XGROW(fr->dumps, fr->cap_dumps, (size_t)fr->ndumps + 1);
	struct fr_dump *d = &fr->dumps[fr->ndumps++];
	memset(d, 0, sizeof(*d));
	d->file = file;
	d->rank = dump_rank(root, lg->files[file].name);
	str_field(root, "version", d->version, sizeof(d->version));
	str_field(root, "nccl_version", d->nccl_version, sizeof(d->nccl_version));
	json_t *cfg = json_object_get(root, "pg_config");
	if (json_is_object(cfg))
		read_pg_config(d, cfg);
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e)
		read_entry(d, e);
}

static bool fr_is_dump(json_t *root)
{
	return json_is_array(json_object_get(root, "entries")) &&
	       (json_object_get(root, "pg_config") || json_object_get(root, "version") || json_object_get(root, "pg_status"));
}

void nl_fr_end_file(struct nccllog *lg, int file)
{
	struct nl_fr *fr = lg->fr;
	if (!fr || fr->file != file)
		return;
	fr->file = -1;
	json_error_t err;
	/* a document whose values would take too much memory is not parsed
	 * (15 million "{}," take 3.6 GB) */
	size_t lim = nl_fr_mem_limit(fr->len, FR_MEM_MAX_JSON);
	bool big = !fr->over && json_mem_estimate(fr->buf, fr->len) > lim;
	json_t *root = fr->over || big ? NULL : json_loadb(fr->buf, fr->len, JSON_DECODE_ANY, &err);
	json_t *entries = root ? json_object_get(root, "entries") : NULL;
	bool is_fr = root && fr_is_dump(root);
	if (!is_fr && root && nl_insp_ras_json(lg, file, root)) { /* ncclras -f json */
		json_decref(root);
		fr->len = 0;
		return;
	}
	if (!is_fr) {
		/* another JSON document, or a dump cut by --max-line or the cap */
		if (fr->len && mem_has(fr->buf, fr->len, "\"entries\"") && mem_has(fr->buf, fr->len, "collective_seq_id")) {
			fr->bad++;
			fr->bad_file = file;
			if (!fr->over && lg->files[file].truncated && fr->cut_file < 0)
				fr->cut_file = file;
			if (big)
				snprintf(fr->bad_text, sizeof(fr->bad_text),
					 "it would take over %zu MiB of memory once read (the limit: %d times its size, at most %zu MiB), not read",
					 lim >> 20, FR_MEM_PER_BYTE, FR_MEM_MAX_JSON >> 20);
			else
				snprintf(fr->bad_text, sizeof(fr->bad_text), "%s",
					 fr->over ? "over 64 MiB, not read"
					 : lg->files[file].truncated ? "lines longer than --max-line were cut: rerun with --max-line 67108864"
								     : "not valid JSON");
		}
		json_decref(root);
		fr->len = 0;
		return;
	}
	fr_add_root(lg, fr, file, root, entries);
	json_decref(root);
	fr->len = 0;
}

void nl_fr_free(struct nccllog *lg)
{
	struct nl_fr *fr = lg->fr;
	if (!fr)
		return;
	free(fr->buf);
	free(fr->dumps);
	free(fr);
	lg->fr = NULL;
}

int nl_fr_cut_file(const struct nccllog *lg)
{
	const struct nl_fr *fr = lg->fr;
	return fr ? fr->cut_file : -1;
}

int nl_fr_ndumps(const struct nccllog *lg)
{
	const struct nl_fr *fr = lg->fr;
	return fr ? fr->ndumps : 0;
}

int nccllog_add_pickle(struct nccllog *lg, const char *name, const unsigned char *buf, size_t n, char *why, size_t whysz)
{
	json_t *root = NULL;
	int rc = nl_pickle_to_json(buf, n, &root, why, whysz);
	if (rc < 0)
		return rc;
	if (!fr_is_dump(root)) {
		json_decref(root);
		snprintf(why, whysz, "a Python pickle, but no flight-recorder dump (no entries)");
		return -EBADMSG;
	}
	int file = nccllog_begin_file(lg, name);
	if (file < 0) {
		json_decref(root);
		snprintf(why, whysz, "too many inputs");
		return -E2BIG;
	}
	fr_add_root(lg, fr_state(lg), file, root, json_object_get(root, "entries"));
	json_decref(root);
	nccllog_end_file(lg, file, 0, n, 0, false);
	return 0;
}
