/* merge's analysis: per-node JSON of any command joined into one fleet
 * result (analyze/fleet.h, docs/fleet.md).
 *
 * A node is the document's "hostname" (every command writes it; older
 * files: facts.host.hostname). Several files of one node (sys and bench,
 * say) make one row: the worst verdict, every finding, the first value of
 * each fact. What is read of a document is only what every command's
 * schema promises (docs/schema/common.json) plus the facts sys, check,
 * topo, p2p and bench write; a member that is absent is unknown, never an
 * error. */
#include "analyze/fleet.h"
#include "kb/findings.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the pure pieces -------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

size_t fleet_outliers_low(const double *x, size_t n, bool *low, double *median, double *mad)
{
	for (size_t i = 0; i < n; i++)
		low[i] = false;
	*median = *mad = NAN;
	if (n < 3)
		return 0;
	double *v = xmalloc(n * sizeof(*v));
	memcpy(v, x, n * sizeof(*v));
	double m = median_of(v, n);
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(x[i] - m);
	double d = median_of(v, n);
	free(v);
	*median = m, *mad = d;
	/* the MAD bound alone flags noise when the class agrees closely (a MAD
	 * of 0.1 % makes a 1 % dip "an outlier"); the floor asks for a
	 * difference that costs a job something */
	double bound = fmax(FLEET_MAD_K * d, FLEET_FLOOR * fabs(m));
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (m - x[i] > bound)
			low[i] = true, k++;
	return k;
}

/* Appends s to buf[*len..bufsz) without the characters a shell's or a
 * scheduler's quoting would take apart. */
static void put_safe(char *buf, size_t bufsz, size_t *len, const char *s)
{
	for (; s && *s && *len + 1 < bufsz; s++) {
		unsigned char c = (unsigned char)*s;
		if (c < 0x20 || c == 0x7f)
			c = ' ';
		else if (c == '"' || c == '`' || c == '\\')
			c = '\'';
		else if (c == '$')
			c = 'S';
		if (c == ' ' && *len > 0 && buf[*len - 1] == ' ')
			continue;
		buf[(*len)++] = (char)c;
	}
	buf[*len] = 0;
}

void fleet_reason(char *buf, size_t bufsz, const char *verdict, const char *id, const char *title)
{
	size_t len = 0, cap = bufsz < FLEET_REASON_MAX ? bufsz : FLEET_REASON_MAX;
	if (!cap)
		return;
	buf[0] = 0;
	put_safe(buf, cap, &len, "nccl-doctor: ");
	put_safe(buf, cap, &len, verdict ? verdict : "INCOMPLETE");
	if (id && *id) {
		put_safe(buf, cap, &len, " ");
		put_safe(buf, cap, &len, id);
	}
	if (title && *title) {
		put_safe(buf, cap, &len, ": ");
		put_safe(buf, cap, &len, title);
	}
	while (len > 0 && buf[len - 1] == ' ')
		buf[--len] = 0;
}

/* ---- reading one document --------------------------------------------- */

/* member path "a.b.c" of o, or NULL */
static json_t *at(const json_t *o, const char *path)
{
	char key[64];
	json_t *cur = (json_t *)o;
	while (cur && *path) {
		size_t n = strcspn(path, ".");
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = 0;
		cur = json_is_object(cur) ? json_object_get(cur, key) : NULL;
		path += n + (path[n] == '.');
	}
	return cur;
}

static const char *str_at(const json_t *o, const char *path)
{
	const json_t *v = at(o, path);
	return json_is_string(v) && json_string_length(v) ? json_string_value(v) : NULL;
}

static bool name_ok(const char *s)
{
	size_t n = strlen(s);
	return n > 0 && n <= 255 && s[0] != '.' && s[0] != '-' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_") == n;
}

static const char *doc_node(const json_t *doc)
{
	const char *n = str_at(doc, "hostname");
	if (!n)
		n = str_at(doc, "facts.host.hostname");
	if (!n)
		n = str_at(doc, "facts.check.host");
	return n;
}

static int bad(char *why, size_t whysz, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *why, size_t whysz, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, whysz, fmt, ap);
	va_end(ap);
	return -1;
}

int fleet_doc_check(const json_t *doc, int schema, const char **node, char *why, size_t whysz)
{
	if (!json_is_object(doc))
		return bad(why, whysz, "not a JSON object (a result of nccl-doctor --json is one)");
	const json_t *sv = json_object_get(doc, "schema_version");
	if (!json_is_integer(sv))
		return bad(why, whysz, "no schema_version: not a result of nccl-doctor --json");
	if (json_integer_value(sv) != schema)
		return bad(why, whysz, "schema_version %lld, this merge reads %d", (long long)json_integer_value(sv), schema);
	const char *cmd = str_at(doc, "command");
	if (!cmd)
		return bad(why, whysz, "no command: not a result of nccl-doctor --json");
	if (strcmp(cmd, "merge") == 0 || strcmp(cmd, "explain") == 0)
		return bad(why, whysz, "a result of '%s', not of one node", cmd);
	const char *n = doc_node(doc);
	if (!n)
		return bad(why, whysz, "no hostname: written without a node name (give --node-name)");
	if (!name_ok(n))
		return bad(why, whysz, "hostname '%.64s' is not a node name (letters, digits, '.', '-', '_')", n);
	*node = n;
	return 0;
}

/* ---- the fleet -------------------------------------------------------- */

/* Where a fact is compared: NCCL across every node (the ranks of one job
 * must agree on it whatever their GPUs), the driver, CUDA, NICs and fabric
 * manager within one hardware class (other GPUs may need another driver),
 * the kernel nowhere (shown, not judged). */
enum { F_DRIVER, F_CUDA, F_NCCL, F_NIC, F_FABRIC, F_KERNEL, NFACT };
enum { ACROSS_ALL, WITHIN_CLASS, NOT_COMPARED };
static const struct {
	const char *key, *label;
	int scope;
} fact_names[NFACT] = {
	{ "driver", "driver", WITHIN_CLASS },		{ "cuda", "CUDA (driver API)", WITHIN_CLASS },
	{ "nccl", "NCCL", ACROSS_ALL },			{ "nic", "NICs (PCI ids)", WITHIN_CLASS },
	{ "fabric_manager", "fabric manager", WITHIN_CLASS }, { "kernel", "kernel", NOT_COMPARED },
};

enum { M_BUSBW, M_P2P, NMETRIC };
static const struct {
	const char *key, *label;
} metric_names[NMETRIC] = {
	{ "busbw_gbs", "bench busbw (GB/s, average)" },
	{ "p2p_ce_gbs", "p2p copy bandwidth (GB/s, median pair)" },
};

struct node {
	char *name;
	struct strbuf files, commands;
	int code;              /* Nagios status, -1 before the first document */
	char verdict[24];      /* the vocabulary's word, or "missing" */
	char *klass;           /* "8x H100 SXM5 80GB"; NULL unknown */
	char *fact[NFACT];
	double metric[NMETRIC];
	json_t *findings;      /* every document's findings (references) */
	bool missing;
	const char *missing_why; /* fleet_opts' missing_why; NULL: no result */
	bool merge_only;       /* healthy by its own run; merge found the fault */
	char note[256];        /* what merge itself saw: outlier, odd version */
	const char *top_id, *top_title, *top_cause;
};

/* Nagios statuses, worst first: 2 (BROKEN) before 3 (unknown, missing)
 * before 1 before 0 (Nagios' own order of CRITICAL and UNKNOWN). */
static int worse_rank(int code)
{
	return code == 2 ? 0 : code == 3 ? 1 : code == 1 ? 2 : 3;
}

static int code_of(const json_t *doc)
{
	const json_t *c = at(doc, "summary.exit_code");
	if (json_is_integer(c) && json_integer_value(c) >= 0 && json_integer_value(c) <= 3)
		return (int)json_integer_value(c);
	const char *v = str_at(doc, "verdict");
	if (!v)
		return 3;
	return strcmp(v, RESULT_BROKEN) == 0 ? 2 : strcmp(v, RESULT_HEALTHY) == 0 ? 0 : strcmp(v, RESULT_DEGRADED) == 0 ? 1 : 3;
}

static struct node *node_get(struct node **v, size_t *n, size_t *a, const char *name)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*v)[i].name, name) == 0)
			return &(*v)[i];
	XGROW(*v, *a, *n + 1);
	struct node *x = &(*v)[(*n)++];
	memset(x, 0, sizeof(*x));
	x->name = xstrdup(name);
	x->code = -1;
	strbuf_init(&x->files, 4096);
	strbuf_init(&x->commands, 256);
	x->findings = json_array();
	for (int m = 0; m < NMETRIC; m++)
		x->metric[m] = NAN;
	return x;
}

static void set_fact(struct node *x, int f, const char *v)
{
	if (!x->fact[f] && v && *v)
		x->fact[f] = xstrdup(v);
}

/* The GPU model and count: sys's table (facts.gpus.gpus), else topo's
 * GPUs (top-level "gpus"). */
static void read_class(struct node *x, const json_t *doc)
{
	if (x->klass)
		return;
	const json_t *g = at(doc, "facts.gpus.gpus");
	if (!json_is_array(g) || !json_array_size(g))
		g = json_object_get(doc, "gpus");
	if (!json_is_array(g) || !json_array_size(g))
		return;
	const char *first = str_at(json_array_get(g, 0), "name");
	if (!first)
		return;
	bool mixed = false;
	for (size_t i = 1; i < json_array_size(g); i++) {
		const char *o = str_at(json_array_get(g, i), "name");
		mixed |= !o || strcmp(o, first) != 0;
	}
	char buf[160];
	snprintf(buf, sizeof(buf), "%zux %.100s%s", json_array_size(g), first, mixed ? " (mixed)" : "");
	x->klass = xstrdup(buf);
}

static void read_facts(struct node *x, const json_t *doc)
{
	const char *d = str_at(doc, "facts.driver.version");
	set_fact(x, F_DRIVER, d ? d : str_at(doc, "facts.source.driver_version"));
	set_fact(x, F_CUDA, str_at(doc, "facts.source.cuda_driver_version"));
	/* the NCCL a check across the nodes loaded for its all_reduce (what ran,
	 * cmd/check_nodes.c), before the libraries a checkup found */
	set_fact(x, F_NCCL, str_at(doc, "facts.internode_rank.nccl"));
	const json_t *libs = at(doc, "facts.nccl_libraries.libraries");
	if (json_is_array(libs) && json_array_size(libs))
		set_fact(x, F_NCCL, str_at(json_array_get(libs, 0), "version"));
	const json_t *ranks = at(doc, "facts.bench.ranks");
	if (json_is_array(ranks) && json_array_size(ranks))
		set_fact(x, F_NCCL, str_at(json_array_get(ranks, 0), "nccl"));
	const json_t *nics = at(doc, "facts.nics.nics");
	if (json_is_array(nics) && json_array_size(nics) && !x->fact[F_NIC]) {
		/* the distinct PCI ids, in the order listed: "15b3:1021 x8" */
		char buf[256] = "";
		size_t len = 0;
		for (size_t i = 0; i < json_array_size(nics); i++) {
			const char *id = str_at(json_array_get(nics, i), "vendor_device");
			if (!id || strstr(buf, id))
				continue;
			size_t cnt = 0;
			for (size_t j = 0; j < json_array_size(nics); j++) {
				const char *o = str_at(json_array_get(nics, j), "vendor_device");
				cnt += o && strcmp(o, id) == 0;
			}
			str_appendf(buf, sizeof(buf), &len, "%s%s x%zu", len ? ", " : "", id, cnt);
		}
		set_fact(x, F_NIC, buf);
	}
	set_fact(x, F_FABRIC, str_at(doc, "facts.fabric.fabric_manager_version"));
	set_fact(x, F_KERNEL, str_at(doc, "facts.host.kernel"));
}

/* The median over pairs of one member, NAN when none has it. */
static double pairs_median(const json_t *pairs, const char *key)
{
	if (!json_is_array(pairs) || !json_array_size(pairs))
		return NAN;
	double *v = xmalloc(json_array_size(pairs) * sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < json_array_size(pairs); i++) {
		const json_t *x = json_object_get(json_array_get(pairs, i), key);
		if (json_is_number(x) && json_number_value(x) > 0)
			v[n++] = json_number_value(x);
	}
	double m = n ? median_of(v, n) : NAN;
	free(v);
	return m;
}

static void read_metrics(struct node *x, const json_t *doc)
{
	const json_t *b = json_object_get(doc, "bench");
	const json_t *bw = json_object_get(b, "avg_busbw");
	/* a run cut short measured fewer sizes: not comparable */
	if (isnan(x->metric[M_BUSBW]) && json_is_number(bw) && json_is_true(json_object_get(b, "complete")) &&
	    json_number_value(bw) > 0)
		x->metric[M_BUSBW] = json_number_value(bw);
	if (isnan(x->metric[M_P2P])) {
		double m = pairs_median(json_object_get(doc, "pairs"), "ce_gbs");
		if (isnan(m))
			m = pairs_median(at(doc, "p2p_test.pairs"), "ce_gbs");
		x->metric[M_P2P] = m;
	}
}

static void add_doc(struct node *x, const struct fleet_doc *d)
{
	int code = code_of(d->doc);
	const char *v = str_at(d->doc, "verdict");
	if (x->code < 0 || worse_rank(code) < worse_rank(x->code)) {
		x->code = code;
		str_copy(x->verdict, v ? v : code == 2 ? RESULT_BROKEN : code == 1 ? RESULT_DEGRADED : code == 0 ? RESULT_HEALTHY : RESULT_INCOMPLETE,
			 sizeof(x->verdict));
	}
	strbuf_addf(&x->files, "%s%s", x->files.len ? ", " : "", d->file);
	const char *cmd = str_at(d->doc, "command");
	if (!strstr(strbuf_str(&x->commands), cmd))
		strbuf_addf(&x->commands, "%s%s", x->commands.len ? ", " : "", cmd);
	const json_t *fs = json_object_get(d->doc, "findings");
	for (size_t i = 0; json_is_array(fs) && i < json_array_size(fs); i++)
		if (json_is_object(json_array_get(fs, i)) && str_at(json_array_get(fs, i), "id"))
			json_array_append(x->findings, json_array_get(fs, i));
	read_class(x, d->doc);
	read_facts(x, d->doc);
	read_metrics(x, d->doc);
}

static int sev_of(const json_t *f)
{
	const char *s = str_at(f, "severity");
	return !s ? -1 : strcmp(s, "error") == 0 ? SEV_ERROR : strcmp(s, "warning") == 0 ? SEV_WARNING : SEV_INFO;
}

/* The node's worst finding (the first error, else the first warning): its
 * id, title and the catalog's cause class (a static string) */
static void find_top(struct node *x)
{
	for (int want = SEV_ERROR; want >= SEV_WARNING && !x->top_id; want--)
		for (size_t i = 0; i < json_array_size(x->findings) && !x->top_id; i++) {
			const json_t *f = json_array_get(x->findings, i);
			if (sev_of(f) != want)
				continue;
			x->top_id = str_at(f, "id");
			x->top_title = str_at(f, "title");
			const struct finding_def *def = kb_finding(x->top_id);
			x->top_cause = def ? def->cause : "unknown";
		}
}

static void note(struct node *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct node *x, const char *fmt, ...)
{
	size_t len = strlen(x->note);
	if (len && len + 2 < sizeof(x->note))
		len += (size_t)snprintf(x->note + len, sizeof(x->note) - len, "; ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(x->note + len, sizeof(x->note) - len, fmt, ap);
	va_end(ap);
}

/* A node merge itself finds fault with (an outlier, an odd version) that
 * its own run called healthy: DEGRADED. */
static void degrade(struct node *x)
{
	if (x->code == 0) {
		x->code = 1;
		x->merge_only = true;
		str_copy(x->verdict, RESULT_DEGRADED, sizeof(x->verdict));
	}
}

/* Names of a list of nodes, at most 12, then a count. */
static void names_add(struct strbuf *sb, size_t *k, const char *name)
{
	if (*k < 12)
		strbuf_addf(sb, "%s%s", *k ? ", " : "", name);
	else if (*k == 12)
		strbuf_adds(sb, ", ...");
	(*k)++;
}

/* ---- the steps of the merge ------------------------------------------- */

static void outliers(struct result *r, struct node *v, size_t n)
{
	static const struct column cols[] = {
		{ "node", "NODE", 0 },	   { "class", "CLASS", 0 }, { "metric", "MEASURE", 0 }, { "value", "VALUE", 0 },
		{ "median", "MEDIAN", 0 }, { "mad", "MAD", 0 },	    { "nodes", "NODES IN CLASS", 0 },
	};
	struct table *t = NULL;
	double *x = xmalloc((n ? n : 1) * sizeof(*x));
	bool *low = xmalloc((n ? n : 1) * sizeof(*low));
	size_t *idx = xmalloc((n ? n : 1) * sizeof(*idx));
	bool *done = xcalloc(n ? n : 1, sizeof(*done));
	for (size_t c = 0; c < n; c++) {
		if (done[c] || v[c].missing)
			continue;
		/* one hardware class: the same GPU model and count (unknown is a class of its own) */
		const char *klass = v[c].klass ? v[c].klass : "";
		size_t members = 0;
		for (size_t i = c; i < n; i++)
			if (!v[i].missing && strcmp(v[i].klass ? v[i].klass : "", klass) == 0)
				done[i] = true, idx[members++] = i;
		for (int m = 0; m < NMETRIC; m++) {
			size_t k = 0;
			size_t *of = xmalloc(members * sizeof(*of));
			for (size_t i = 0; i < members; i++)
				if (!isnan(v[idx[i]].metric[m]))
					of[k] = idx[i], x[k++] = v[idx[i]].metric[m];
			double med, mad;
			if (fleet_outliers_low(x, k, low, &med, &mad) == 0) {
				free(of);
				continue;
			}
			for (size_t i = 0; i < k; i++) {
				if (!low[i])
					continue;
				struct node *o = &v[of[i]];
				if (!t)
					t = section_table(result_section(r, "outliers", "Outliers within a hardware class"), "outliers",
							  NULL, cols, sizeof(cols) / sizeof(cols[0]));
				size_t row = table_add_row(t);
				table_set(t, row, "node", val_str(o->name));
				table_set(t, row, "class", o->klass ? val_str(o->klass) : val_unknown("no GPU list in its JSON"));
				table_set(t, row, "metric", val_str(metric_names[m].key));
				table_set(t, row, "value", val_double(round(x[i] * 100) / 100));
				table_set(t, row, "median", val_double(round(med * 100) / 100));
				table_set(t, row, "mad", val_double(round(mad * 1000) / 1000));
				table_set(t, row, "nodes", val_int((long long)k));
				table_mark(t, row, "value", MARK_WARN);
				note(o, "%s %.1f, class median %.1f", metric_names[m].key, x[i], med);
				struct finding *f = finding_add(r, FID_FLEET_OUTLIER, SEV_WARNING,
								"%s: %s %.2f, %.0f %% below the median %.2f of %zu nodes (%s)",
								o->name, metric_names[m].label, x[i], 100 * (med - x[i]) / med, med, k,
								o->klass ? o->klass : "GPU model unknown");
				finding_evidence(f, NULL, 0, "median %.3f, MAD %.3f: the bound is max(%.4f x MAD, %.0f %% of the median) = %.3f",
						 med, mad, FLEET_MAD_K, FLEET_FLOOR * 100, fmax(FLEET_MAD_K * mad, FLEET_FLOOR * fabs(med)));
				degrade(o);
			}
			free(of);
		}
	}
	free(x), free(low), free(idx), free(done);
}

static const char *class_of(const struct node *x)
{
	return x->klass ? x->klass : "";
}

/* Fact f over the nodes of class klass (NULL: every node). */
static void differ(struct result *r, struct table **t, struct node *v, size_t n, int f, const char *klass)
{
	static const struct column cols[] = {
		{ "component", "COMPONENT", 0 }, { "class", "AMONG", 0 }, { "value", "VALUE", 0 },
		{ "count", "NODES", 0 },	 { "nodes", "WHICH", 0 },
	};
	/* the distinct values and how many nodes have each */
	const char **val = xcalloc(n ? n : 1, sizeof(*val));
	size_t *cnt = xcalloc(n ? n : 1, sizeof(*cnt)), nv = 0, best = 0, have = 0;
	for (size_t i = 0; i < n; i++) {
		if (!v[i].fact[f] || (klass && strcmp(class_of(&v[i]), klass) != 0))
			continue;
		size_t j = 0;
		while (j < nv && strcmp(val[j], v[i].fact[f]) != 0)
			j++;
		if (j == nv)
			val[nv++] = v[i].fact[f];
		cnt[j]++, have++;
	}
	if (nv < 2) {
		free(val), free(cnt);
		return;
	}
	for (size_t j = 1; j < nv; j++)
		if (cnt[j] > cnt[best])
			best = j;
	bool tie = false;
	for (size_t j = 0; j < nv; j++)
		tie |= j != best && cnt[j] == cnt[best];
	if (!*t)
		*t = section_table(result_section(r, "differences", "Versions that differ across nodes"), "differences", NULL,
				   cols, sizeof(cols) / sizeof(cols[0]));
	const char *among = !klass ? "all nodes" : *klass ? klass : "GPU model unknown";
	struct strbuf all;
	strbuf_init(&all, 4096);
	for (size_t j = 0; j < nv; j++) {
		struct strbuf names;
		strbuf_init(&names, 4096);
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			if (!v[i].fact[f] || strcmp(v[i].fact[f], val[j]) != 0 || (klass && strcmp(class_of(&v[i]), klass) != 0))
				continue;
			names_add(&names, &k, v[i].name);
			/* the odd ones out: not on the version most nodes have */
			if (!tie && j != best) {
				note(&v[i], "%s %s (most nodes: %s)", fact_names[f].key, val[j], val[best]);
				degrade(&v[i]);
			}
		}
		size_t row = table_add_row(*t);
		table_set(*t, row, "component", val_str(fact_names[f].key));
		table_set(*t, row, "class", val_str(among));
		table_set(*t, row, "value", val_str(val[j]));
		table_set(*t, row, "count", val_int((long long)cnt[j]));
		table_set(*t, row, "nodes", val_str(strbuf_str(&names)));
		if (!tie && j != best)
			table_mark(*t, row, "value", MARK_WARN);
		strbuf_addf(&all, "%s%s on %zu (%s)", j ? ", " : "", val[j], cnt[j], strbuf_str(&names));
		strbuf_release(&names);
	}
	struct finding *fd = finding_add(r, FID_FLEET_VERSION_DIFFERS, SEV_WARNING, "%s differs across %zu nodes (%s): %zu values",
					 fact_names[f].label, have, among, nv);
	finding_evidence(fd, NULL, 0, "%s", strbuf_str(&all));
	if (tie)
		finding_evidence(fd, NULL, 0, "no value is held by most nodes: none is marked as the odd one");
	strbuf_release(&all);
	free(val), free(cnt);
}

static void differences(struct result *r, struct node *v, size_t n)
{
	struct table *t = NULL;
	for (int f = 0; f < NFACT; f++) {
		if (fact_names[f].scope == ACROSS_ALL)
			differ(r, &t, v, n, f, NULL);
		if (fact_names[f].scope != WITHIN_CLASS)
			continue;
		/* each class once, in the order its first node came */
		for (size_t c = 0; c < n; c++) {
			bool seen = false;
			for (size_t p = 0; p < c && !seen; p++)
				seen = strcmp(class_of(&v[p]), class_of(&v[c])) == 0;
			if (!seen)
				differ(r, &t, v, n, f, class_of(&v[c]));
		}
	}
}

/* The findings of every node, grouped by cause class and id: which nodes
 * share a problem (one cause on many nodes points at the fleet, not at a
 * node). */
static void by_cause(struct result *r, struct node *v, size_t n)
{
	static const struct column cols[] = {
		/* the finding first: a narrow terminal lists the other columns
		 * by it, and an id is short where a cause in words is not */
		{ "finding", "FINDING", 0 }, { "severity", "SEVERITY", 0 }, { "count", "NODES", 0 },
		{ "nodes", "WHICH", 0 },     { "cause", "CAUSE", 0 },
	};
	struct table *t = NULL;
	struct seen {
		const char *cause, *id;
		int sev;
	} *s = NULL;
	size_t ns = 0, as = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < json_array_size(v[i].findings); k++) {
			const json_t *f = json_array_get(v[i].findings, k);
			int sev = sev_of(f);
			const char *id = str_at(f, "id"), *cause = str_at(f, "cause");
			if (sev < SEV_WARNING)
				continue;
			size_t j = 0;
			while (j < ns && !(strcmp(s[j].id, id) == 0 && strcmp(s[j].cause, cause ? cause : "unknown") == 0))
				j++;
			if (j < ns)
				continue;
			XGROW(s, as, ns + 1);
			s[ns++] = (struct seen){ cause ? cause : "unknown", id, sev };
		}
	/* by cause class, then errors first, as found within */
	for (size_t a = 1; a < ns; a++)
		for (size_t b = a; b > 0; b--) {
			int c = strcmp(s[b - 1].cause, s[b].cause);
			if (c < 0 || (c == 0 && s[b - 1].sev >= s[b].sev))
				break;
			struct seen tmp = s[b - 1];
			s[b - 1] = s[b], s[b] = tmp;
		}
	for (size_t j = 0; j < ns; j++) {
		struct strbuf names;
		strbuf_init(&names, 4096);
		size_t k = 0;
		for (size_t i = 0; i < n; i++)
			for (size_t q = 0; q < json_array_size(v[i].findings); q++) {
				const char *id = str_at(json_array_get(v[i].findings, q), "id");
				if (strcmp(id, s[j].id) == 0) {
					names_add(&names, &k, v[i].name);
					break;
				}
			}
		if (!t)
			t = section_table(result_section(r, "by_cause", "Findings by cause"), "by_cause", NULL, cols,
					  sizeof(cols) / sizeof(cols[0]));
		size_t row = table_add_row(t);
		table_set(t, row, "cause", val_str(s[j].cause));
		table_set(t, row, "finding", val_str(s[j].id));
		table_set(t, row, "severity", val_str(severity_name((enum severity)s[j].sev)));
		table_set(t, row, "count", val_int((long long)k));
		table_set(t, row, "nodes", val_str(strbuf_str(&names)));
		table_mark(t, row, "finding", s[j].sev == SEV_ERROR ? MARK_BAD : MARK_WARN);
		strbuf_release(&names);
	}
	free(s);
}

static int cmp_node(const void *a, const void *b)
{
	const struct node *x = a, *y = b;
	int d = worse_rank(x->code) - worse_rank(y->code);
	return d ? d : strcmp(x->name, y->name);
}

/* The node's reason (fleet_reason) from its worst finding or merge's note. */
static void node_reason(const struct node *x, char *buf, size_t bufsz)
{
	if (x->missing)
		fleet_reason(buf, bufsz, "missing", NULL, "no result from this node");
	else if (x->top_id)
		fleet_reason(buf, bufsz, x->verdict, x->top_id, x->top_title);
	else
		fleet_reason(buf, bufsz, x->verdict, NULL, x->note[0] ? x->note : NULL);
}

static void node_table(struct result *r, struct node *v, size_t n)
{
	static const struct column cols[] = {
		{ "node", "NODE", 0 },
		{ "state", "STATE", 0 },
		{ "exit_code", "", SHOW_JSON_ONLY },
		{ "class", "CLASS", 0 },
		{ "driver", "DRIVER", 0 },
		{ "cuda", "", SHOW_JSON_ONLY },
		{ "nccl", "NCCL", 0 },
		{ "nic", "", SHOW_JSON_ONLY },
		{ "fabric_manager", "", SHOW_JSON_ONLY },
		{ "kernel", "", SHOW_JSON_ONLY },
		{ "busbw_gbs", "BUSBW", 0 },
		{ "p2p_ce_gbs", "", SHOW_JSON_ONLY },
		{ "reason", "WHY", 0 },
		{ "commands", "", SHOW_JSON_ONLY },
		{ "files", "", SHOW_JSON_ONLY },
	};
	struct table *t = section_table(result_section(r, "nodes", "Nodes, worst first"), "nodes", NULL, cols,
					sizeof(cols) / sizeof(cols[0]));
	for (size_t i = 0; i < n; i++) {
		struct node *x = &v[i];
		size_t row = table_add_row(t);
		table_set(t, row, "node", val_str(x->name));
		table_set(t, row, "state", val_str(x->verdict));
		table_set(t, row, "exit_code", val_int(x->code));
		table_mark(t, row, "state", x->code == 0 ? MARK_OK : x->code == 1 ? MARK_WARN : MARK_BAD);
		table_set(t, row, "class", x->klass ? val_str(x->klass) : val_none());
		for (int f = 0; f < NFACT; f++)
			table_set(t, row, fact_names[f].key, x->fact[f] ? val_str(x->fact[f]) : val_none());
		for (int m = 0; m < NMETRIC; m++)
			table_set(t, row, metric_names[m].key,
				  isnan(x->metric[m]) ? val_none() : val_double(round(x->metric[m] * 100) / 100));
		char why[FLEET_REASON_MAX + 300];
		if (x->missing)
			snprintf(why, sizeof(why), "%s", x->missing_why ? x->missing_why : "expected (--expect-nodes), no result");
		else if (x->top_id)
			snprintf(why, sizeof(why), "%s: %s%s%s", x->top_id, x->top_title ? x->top_title : "", x->note[0] ? "; " : "",
				 x->note);
		else
			snprintf(why, sizeof(why), "%s", x->note);
		table_set(t, row, "reason", why[0] ? val_str(why) : val_none());
		table_set(t, row, "commands", x->missing ? val_none() : val_str(strbuf_str(&x->commands)));
		table_set(t, row, "files", x->missing ? val_none() : val_str(strbuf_str(&x->files)));
	}
}

/* The findings merge adds for each node that is not healthy, with the
 * lines a scheduler takes as their fixes, and the actions table. */
static void node_findings(struct result *r, struct node *v, size_t n, const struct fleet_opts *o)
{
	static const struct column cols[] = {
		{ "node", "NODE", 0 },
		{ "scheduler", "SCHEDULER", 0 },
		{ "command", "COMMAND", 0 },
	};
	struct table *t = NULL;
	json_t *actions = json_array();
	for (size_t i = 0; i < n; i++) {
		struct node *x = &v[i];
		if (x->code == 0)
			continue;
		struct finding *f;
		if (x->missing)
			f = finding_add(r, FID_FLEET_NODE_MISSING, SEV_ERROR, "%s: %s", x->name,
					x->missing_why ? x->missing_why : "expected, no result");
		else if (x->code == 2)
			f = finding_add(r, FID_FLEET_NODE_BROKEN, SEV_ERROR, "%s: BROKEN: %s%s%s", x->name, x->top_id ? x->top_id : "",
					x->top_id ? ": " : "", x->top_title ? x->top_title : "its own run found an error");
		else if (!x->merge_only)
			f = finding_add(r, FID_FLEET_NODE_DEGRADED, SEV_WARNING, "%s: %s%s%s%s%s", x->name, x->verdict,
					x->top_id ? ": " : "", x->top_id ? x->top_id : "", x->top_title ? ": " : "",
					x->top_title ? x->top_title : "");
		else
			f = NULL; /* its outlier or version finding says it */
		if (f && x->top_cause && !x->missing)
			f->cause = x->top_cause; /* grouped by the node's own cause class */
		for (size_t k = 0, shown = 0; f && k < json_array_size(x->findings) && shown < 5; k++) {
			const json_t *nf = json_array_get(x->findings, k);
			if (sev_of(nf) < SEV_WARNING)
				continue;
			finding_evidence(f, NULL, 0, "%s (%s): %s", str_at(nf, "id"), str_at(nf, "severity"),
					 str_at(nf, "title") ? str_at(nf, "title") : "");
			shown++;
		}
		if (f && !x->missing)
			finding_evidence(f, NULL, 0, "from %s", strbuf_str(&x->files));
		/* drain what cannot run a job; a warning only when asked
		 * (--fail-on warning); a missing node is looked at, not drained */
		bool drain = !x->missing && (x->code == 2 || (o->drain_degraded && x->code != 3));
		if (!drain)
			continue;
		char reason[FLEET_REASON_MAX];
		node_reason(x, reason, sizeof(reason));
		char line[3][FLEET_REASON_MAX + 400];
		snprintf(line[0], sizeof(line[0]), "scontrol update nodename=%s state=drain reason=\"%s\"", x->name, reason);
		snprintf(line[1], sizeof(line[1]), "kubectl cordon %s", x->name);
		snprintf(line[2], sizeof(line[2]), "kubectl taint nodes %s nccl-doctor=%s:NoSchedule --overwrite", x->name,
			 x->code == 2 ? "broken" : "degraded");
		static const char *const sched[3] = { "slurm", "kubernetes", "kubernetes" };
		/* the lines themselves are in the Actions table (a quoted reason
		 * has nowhere to break in a finding's fix) */
		if (f)
			finding_fix(f, "note", NULL, "drain or cordon %s: the lines under Actions (printed, never run)", x->name);
		for (int k = 0; k < 3; k++) {
			if (!t)
				t = section_table(result_section(r, "actions", "Actions (printed, never run)"), "actions", NULL, cols,
						  sizeof(cols) / sizeof(cols[0]));
			size_t row = table_add_row(t);
			table_set(t, row, "node", val_str(x->name));
			table_set(t, row, "scheduler", val_str(sched[k]));
			table_set(t, row, "command", val_str(line[k]));
			json_array_append_new(actions, json_pack("{s:s,s:s,s:s,s:s}", "node", x->name, "scheduler", sched[k],
								 "command", line[k], "reason", reason));
		}
	}
	json_object_set_new(r->extra, "actions", actions);
}

int fleet_merge(struct result *r, const struct fleet_doc *docs, size_t n, const struct fleet_opts *o)
{
	struct node *v = NULL;
	size_t nv = 0, av = 0;
	for (size_t i = 0; i < n; i++) {
		const char *name = NULL;
		char why[256];
		if (fleet_doc_check(docs[i].doc, o->schema, &name, why, sizeof(why)) < 0)
			continue; /* the command refused it already */
		add_doc(node_get(&v, &nv, &av, name), &docs[i]);
	}
	size_t unexpected = 0, missing = 0, received = nv;
	if (o->expect) {
		for (size_t i = 0; i < nv; i++)
			if (!hostlist_has(o->expect, v[i].name)) {
				unexpected++;
				note(&v[i], "not in --expect-nodes");
			}
		for (size_t i = 0; i < o->expect->n; i++) {
			bool have = false;
			for (size_t j = 0; j < received && !have; j++)
				have = strcmp(v[j].name, o->expect->names[i]) == 0;
			if (have)
				continue;
			struct node *x = node_get(&v, &nv, &av, o->expect->names[i]);
			x->missing = true, x->code = 3;
			x->missing_why = o->missing_why ? o->missing_why(x->name, o->ctx) : NULL;
			str_copy(x->verdict, "missing", sizeof(x->verdict));
			missing++;
		}
	}
	if (!r->extra)
		r->extra = json_object();
	/* the sections in reading order: the counts, the nodes, then why */
	struct section *s = result_section(r, "fleet", "Fleet");
	result_section(r, "nodes", "Nodes, worst first");
	for (size_t i = 0; i < nv; i++)
		find_top(&v[i]);
	outliers(r, v, nv);
	differences(r, v, nv);
	qsort(v, nv, sizeof(*v), cmp_node);
	section_add(s, "nodes", "nodes with a result", val_int((long long)received));
	section_add(s, "files", "files read", val_int((long long)n));
	if (o->expect) {
		section_add(s, "expected", "expected (--expect-nodes)", val_int((long long)o->expect->n));
		struct kv *m = section_add(s, "missing", "missing", val_int((long long)missing));
		m->mark = missing ? MARK_BAD : MARK_OK;
		section_add(s, "unexpected", "not in --expect-nodes", val_int((long long)unexpected));
	}
	size_t counts[4] = { 0 };
	for (size_t i = 0; i < nv; i++)
		counts[v[i].code]++;
	section_add(s, "healthy", "healthy", val_int((long long)counts[0]));
	section_add(s, "degraded", "degraded or incomplete", val_int((long long)counts[1]));
	section_add(s, "broken", "broken", val_int((long long)counts[2]));
	node_table(r, v, nv);
	by_cause(r, v, nv);
	node_findings(r, v, nv, o);
	int code = nv ? v[0].code : 3;
	const char *verdict = !nv ? RESULT_NOTHING_TO_CHECK : code == 2 ? RESULT_BROKEN : code == 3 ? RESULT_INCOMPLETE :
			      code == 1 ? RESULT_DEGRADED : RESULT_HEALTHY;
	r->verdict = verdict;
	json_object_set_new(r->extra, "verdict", json_string(verdict));
	json_object_set_new(r->extra, "exit_code", json_integer(code));
	if (!nv)
		result_set_nothing_to_check(r, "no node to merge");
	else {
		struct strbuf names;
		strbuf_init(&names, 4096);
		size_t k = 0;
		for (size_t i = 0; i < nv; i++)
			if (v[i].missing)
				names_add(&names, &k, v[i].name);
		result_set_headline(r, "%s: %zu node%s, %zu broken, %zu degraded or incomplete%s%s", verdict, nv,
				    nv == 1 ? "" : "s", counts[2], counts[1], k ? "; missing: " : "", strbuf_str(&names));
		strbuf_release(&names);
	}
	for (size_t i = 0; i < nv; i++) {
		free(v[i].name);
		free(v[i].klass);
		for (int f = 0; f < NFACT; f++)
			free(v[i].fact[f]);
		strbuf_release(&v[i].files);
		strbuf_release(&v[i].commands);
		json_decref(v[i].findings);
	}
	free(v);
	return code;
}
