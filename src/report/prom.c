/* Prometheus text exposition of a result (--prom FILE), for node_exporter's
 * textfile collector: docs/prometheus.md lists every family.
 *
 * Made from the JSON document of the result (report_json: the same typed
 * result --json prints, never its text), so the metrics and the JSON cannot
 * disagree. Each family is declared once in the table below with its HELP;
 * samples are gathered per family and written family by family, so HELP and
 * TYPE come once, before the family's samples, in the table's order. No
 * sample has a time stamp (the collector forbids them). Every series carries
 * the label "command": the files of several commands (sys.prom, check.prom)
 * in one textfile directory never make the same series twice. GPUs carry
 * dcgm-exporter's labels (gpu, UUID, pci_bus_id in NVML's form, Hostname) so
 * that a query can join both. This file holds the family table, the writer
 * and the parts every command has; report/prom_parts.c the parts of the
 * commands' own members. */
#include "report/prom_int.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* one row per family, in the order they are written */
static const struct prom_family {
	const char *name, *help;
} families[PF_N] = {
#define PROM_ROW(id, name, help) [PF_##id] = { "nccl_doctor_" name, help },
	PROM_FAMILIES(PROM_ROW)
#undef PROM_ROW
};

/* The verdict words of model/result.h as numbers, in the order of severity
 * a dashboard colours: the index is the value of nccl_doctor_verdict. */
static const char *const verdict_words[] = { RESULT_HEALTHY, RESULT_DEGRADED, RESULT_BROKEN, RESULT_INCOMPLETE,
					     RESULT_NOTHING_TO_CHECK };
#define NVERDICTS (sizeof(verdict_words) / sizeof(verdict_words[0]))

int prom_verdict_code(const char *word)
{
	for (size_t i = 0; word && i < NVERDICTS; i++)
		if (strcmp(word, verdict_words[i]) == 0)
			return (int)i;
	return -1;
}

void prom_label(struct prom_labels *l, const char *name, const char *value)
{
	if (l->n < PROM_MAX_LABELS) {
		l->name[l->n] = name;
		l->value[l->n] = value ? value : "";
		l->n++;
	}
}

/* value escaped as the text format wants it: backslash, double quote and
 * line feed (HELP: only backslash and line feed) */
static void add_escaped(struct strbuf *sb, const char *s, bool quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			strbuf_adds(sb, "\\\\");
		else if (*s == '\n')
			strbuf_adds(sb, "\\n");
		else if (*s == '"' && quote)
			strbuf_adds(sb, "\\\"");
		else
			strbuf_addch(sb, *s);
	}
}

void prom_sample(struct prom *p, enum prom_fam f, const struct prom_labels *l, double v)
{
	if (!isfinite(v))
		return; /* unknown is no sample, never NaN */
	struct strbuf *sb = &p->fam[f];
	strbuf_adds(sb, families[f].name);
	strbuf_adds(sb, "{command=\"");
	add_escaped(sb, p->command, true);
	strbuf_adds(sb, "\",Hostname=\"");
	add_escaped(sb, l && l->host ? l->host : p->host, true);
	strbuf_addch(sb, '"');
	for (int i = 0; l && i < l->n; i++) {
		strbuf_addf(sb, ",%s=\"", l->name[i]);
		add_escaped(sb, l->value[i], true);
		strbuf_addch(sb, '"');
	}
	/* integers exactly; others with enough digits for a time stamp in ms */
	if (v == floor(v) && fabs(v) < 1e15)
		strbuf_addf(sb, "} %.0f\n", v);
	else
		strbuf_addf(sb, "} %.15g\n", v);
}

/* ---- GPUs: one identity per index, from every member that names GPUs ---- */

/* bdf "0000:18:00.0" in NVML's form "00000000:18:00.0", as dcgm-exporter's
 * pci_bus_id label has it; "" when it is no BDF */
static void nvml_bus_id(const char *bdf, char *out, size_t outsz)
{
	unsigned dom, bus, dev, fn;
	char tail;
	out[0] = 0;
	if (bdf && sscanf(bdf, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4)
		snprintf(out, outsz, "%08X:%02X:%02X.%X", dom, bus, dev, fn);
}

static struct prom_gpu *gpu_by_bdf(struct prom *p, const char *bdf)
{
	for (size_t i = 0; bdf && bdf[0] && i < p->ngpus; i++)
		if (strcmp(p->gpus[i].bdf, bdf) == 0)
			return &p->gpus[i];
	return NULL;
}

const struct prom_gpu *prom_gpu_by_index(const struct prom *p, long long index)
{
	for (size_t i = 0; i < p->ngpus; i++)
		if (p->gpus[i].index == index)
			return &p->gpus[i];
	return NULL;
}

/* Learns the GPUs of an array of objects with "index" (or key_index),
 * "bdf" and maybe "uuid" and "name"; a GPU known by its BDF keeps its first
 * index (NVML's, from topo, before sys's own count). */
void prom_learn_gpus(struct prom *p, const json_t *arr, const char *key_index)
{
	size_t i;
	json_t *g;
	json_array_foreach(arr, i, g) {
		json_t *ix = json_object_get(g, key_index);
		if (!json_is_integer(ix))
			continue;
		const char *bdf = json_get_str(g, "bdf");
		struct prom_gpu *k = gpu_by_bdf(p, bdf);
		if (!k) /* the same index at another BDF is another GPU */
			k = (struct prom_gpu *)prom_gpu_by_index(p, json_integer_value(ix));
		if (k && bdf[0] && k->bdf[0] && strcmp(k->bdf, bdf) != 0)
			k = NULL;
		if (!k) {
			if (p->ngpus == p->agpus) {
				p->agpus = p->agpus ? 2 * p->agpus : 8;
				p->gpus = xrealloc(p->gpus, p->agpus * sizeof(*p->gpus));
			}
			k = &p->gpus[p->ngpus++];
			memset(k, 0, sizeof(*k));
			k->index = json_integer_value(ix);
		}
		if (!k->bdf[0] && bdf[0]) {
			snprintf(k->bdf, sizeof(k->bdf), "%s", bdf);
			nvml_bus_id(bdf, k->bus_id, sizeof(k->bus_id));
		}
		if (!k->uuid[0])
			snprintf(k->uuid, sizeof(k->uuid), "%s", json_get_str(g, "uuid"));
		if (!k->model[0])
			snprintf(k->model, sizeof(k->model), "%s", json_get_str(g, "name"));
	}
}

const struct prom_gpu *prom_gpu_of_row(const struct prom *p, const json_t *row, const char *key_index)
{
	const struct prom_gpu *g = gpu_by_bdf((struct prom *)p, json_get_str(row, "bdf"));
	return g ? g : prom_gpu_by_index(p, json_get_int(row, key_index, -1));
}

/* The labels of GPU index (and of a GPU no member named: its index only). */
void prom_gpu_labels(struct prom *p, struct prom_labels *l, long long index, char *ixbuf, size_t ixsz)
{
	prom_gpu_labels_of(l, prom_gpu_by_index(p, index), index, ixbuf, ixsz);
}

void prom_gpu_labels_of(struct prom_labels *l, const struct prom_gpu *g, long long index, char *ixbuf, size_t ixsz)
{
	snprintf(ixbuf, ixsz, "%lld", g ? g->index : index);
	prom_label(l, "gpu", ixbuf);
	prom_label(l, "UUID", g ? g->uuid : "");
	prom_label(l, "pci_bus_id", g ? g->bus_id : "");
}

/* ---- what every command has ---- */

static void verdict_part(struct prom *p, const json_t *doc, const struct prom_opts *o)
{
	const char *v = json_get_str(doc, "verdict");
	int code = prom_verdict_code(v);
	if (code >= 0)
		prom_sample(p, PF_VERDICT, NULL, code);
	for (size_t i = 0; i < NVERDICTS; i++) {
		struct prom_labels l = { 0 };
		prom_label(&l, "verdict", verdict_words[i]);
		prom_sample(p, PF_VERDICT_STATE, &l, strcmp(v, verdict_words[i]) == 0);
	}
	if (v[0] && code < 0) { /* a command's own word: still shown */
		struct prom_labels l = { 0 };
		prom_label(&l, "verdict", v);
		prom_sample(p, PF_VERDICT_STATE, &l, 1);
	}
	prom_sample(p, PF_EXIT_CODE, NULL, o->exit_code);
	if (o->duration_s >= 0)
		prom_sample(p, PF_RUN_DURATION, NULL, o->duration_s);
	prom_sample(p, PF_LAST_RUN, NULL, o->now);
	struct prom_labels l = { 0 };
	prom_label(&l, "version", json_get_str(doc, "tool_version"));
	prom_sample(p, PF_BUILD_INFO, &l, 1);
}

static void findings_part(struct prom *p, const json_t *doc)
{
	static const char *const sev[] = { "error", "warning", "info" };
	const json_t *fs = json_object_get(doc, "findings");
	for (size_t s = 0; s < 3; s++) {
		size_t i, n = 0;
		json_t *f;
		json_array_foreach(fs, i, f)
			n += strcmp(json_get_str(f, "severity"), sev[s]) == 0;
		struct prom_labels l = { 0 };
		prom_label(&l, "severity", sev[s]);
		prom_sample(p, PF_FINDINGS, &l, (double)n);
	}
	/* one series per id and severity, its value how often it was found:
	 * the first of them carries the count */
	size_t i, j;
	json_t *f, *g;
	json_array_foreach(fs, i, f) {
		const char *id = json_get_str(f, "id"), *s = json_get_str(f, "severity");
		bool seen = false;
		size_t n = 0;
		json_array_foreach(fs, j, g) {
			bool same = strcmp(json_get_str(g, "id"), id) == 0 && strcmp(json_get_str(g, "severity"), s) == 0;
			seen |= same && j < i;
			n += same;
		}
		if (seen)
			continue;
		struct prom_labels l = { 0 };
		prom_label(&l, "id", id);
		prom_label(&l, "severity", s);
		prom_label(&l, "cause", json_get_str(f, "cause"));
		prom_sample(p, PF_FINDING, &l, (double)n);
	}
}

char *report_prom(const struct result *r, const struct prom_opts *o)
{
	json_t *doc = report_json(r);
	struct prom p = { .command = r->command ? r->command : "", .host = o->node ? o->node : "" };
	for (int f = 0; f < PF_N; f++)
		strbuf_init(&p.fam[f], 0);
	/* the GPUs' identities first: NVML's (topo, p2p) before sys's */
	prom_learn_gpus(&p, json_object_get(doc, "gpus"), "index");
	prom_learn_gpus(&p, json_object_get(json_object_get(doc, "p2p_test"), "gpus"), "index");
	prom_learn_gpus(&p, json_object_get(json_object_get(json_object_get(doc, "facts"), "kernel"), "gpus"), "index");
	prom_learn_gpus(&p, json_object_get(json_object_get(json_object_get(doc, "facts"), "gpus"), "gpus"), "index");
	verdict_part(&p, doc, o);
	findings_part(&p, doc);
	prom_host_parts(&p, doc);
	prom_gpu_parts(&p, doc);
	prom_p2p_parts(&p, doc);
	prom_bench_parts(&p, doc);
	prom_fleet_parts(&p, doc);
	json_decref(doc);
	free(p.gpus);

	struct strbuf out;
	strbuf_init(&out, 0);
	for (int f = 0; f < PF_N; f++) {
		if (p.fam[f].len) {
			strbuf_addf(&out, "# HELP %s ", families[f].name);
			add_escaped(&out, families[f].help, false);
			strbuf_addf(&out, "\n# TYPE %s gauge\n", families[f].name);
			strbuf_add(&out, p.fam[f].buf, p.fam[f].len);
		}
		strbuf_release(&p.fam[f]);
	}
	return strbuf_detach(&out);
}
