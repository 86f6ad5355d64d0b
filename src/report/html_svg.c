/* The HTML page's charts, drawn as inline SVG from the JSON document
 * (report/html_int.h): what --json prints is what the page shows, so the
 * charts need no model of their own and work the same for every command
 * that has the data.
 *
 *   - the GPU pairs (p2p's "pairs", check's "p2p_test"."pairs"): a status
 *     heatmap and, when bandwidth was measured, a bandwidth heatmap; one
 *     cell per ordered pair (rows: the source GPU, columns: the
 *     destination), each a <g class="pair"> whose <title> is the tooltip;
 *   - the fix search's trials (facts.fix.trials): one bar per
 *     configuration, its length the bus bandwidth of the largest size it
 *     measured, its colour the result;
 *   - bench's rows (bench.rows): the out-of-place bus bandwidth per size;
 *   - merge's nodes (facts.nodes.nodes): a bar per node, its state and its
 *     bus bandwidth;
 *   - the check's stages (facts.check.stages): a time line, one row per
 *     stage, each starting where the one before ended.
 *
 * Every text goes through report_html_escape; numbers are printed here. */
#include "report/html_int.h"
#include "report/report.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HM_CELL 56   /* a heatmap cell, px */
#define HM_LEFT 64   /* the row labels */
#define HM_TOP 40    /* the column labels */
#define HM_MAX_GPUS 72
#define BAR_LABEL 300 /* a bar's label column */
#define BAR_LEN 420   /* the longest bar */
#define BAR_ROW 24

/* A text cut by snprintf ends with whole UTF-8 characters: a lead byte
 * without all its continuation bytes at the end is dropped. */
static void utf8_whole(char *s)
{
	size_t n = strlen(s), i = n, cont = 0;
	while (i > 0 && cont < 3 && ((unsigned char)s[i - 1] & 0xC0) == 0x80)
		i--, cont++;
	if (i == 0)
		return;
	unsigned char lead = (unsigned char)s[i - 1];
	size_t want = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC0 ? 1 : 0;
	if (lead >= 0xC0 && cont < want)
		s[i - 1] = 0;
}

static const json_t *path2(const json_t *doc, const char *a, const char *b)
{
	const json_t *x = json_object_get(doc, a);
	return b ? json_object_get(x, b) : x;
}

static double num(const json_t *v)
{
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(const json_t *o, const char *key)
{
	const json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : NULL;
}

/* ---- heatmaps of the GPU pairs ---- */

/* A pair status's fill colour (p2p's statuses, docs/p2p.md). */
static const char *status_fill(const char *s)
{
	if (!s)
		return "#d0d7de";
	if (strcmp(s, "OK") == 0)
		return "#2da44e";
	if (strcmp(s, "NO_P2P") == 0)
		return "#54aeff";
	if (strcmp(s, "SLOW") == 0)
		return "#d4a72c";
	if (strcmp(s, "HANG") == 0 || strcmp(s, "CORRUPT") == 0 || strcmp(s, "ERROR") == 0)
		return "#cf222e";
	return "#8c959f"; /* SKIPPED, VOID */
}

/* A bandwidth's fill: light to dark blue with v / max. */
static void bw_fill(char *buf, size_t bufsz, double v, double max)
{
	if (isnan(v) || max <= 0) {
		snprintf(buf, bufsz, "#d0d7de");
		return;
	}
	double f = v / max;
	if (f < 0)
		f = 0;
	if (f > 1)
		f = 1;
	/* #ddf4ff (f = 0) to #0550ae (f = 1) */
	snprintf(buf, bufsz, "#%02x%02x%02x", (int)(0xdd + (0x05 - 0xdd) * f), (int)(0xf4 + (0x50 - 0xf4) * f),
		 (int)(0xff + (0xae - 0xff) * f));
}

/* The GPU indices the pairs name, sorted, into idx; how many (0 when they
 * are more than HM_MAX_GPUS or not GPU indices). */
static size_t pair_gpus(const json_t *pairs, int *idx)
{
	size_t n = 0, i;
	const json_t *p;
	json_array_foreach(pairs, i, p) {
		const char *ends[] = { "src", "dst" };
		for (size_t e = 0; e < 2; e++) {
			const json_t *v = json_object_get(p, ends[e]);
			if (!json_is_integer(v))
				return 0;
			int g = (int)json_integer_value(v);
			size_t k = 0;
			while (k < n && idx[k] < g)
				k++;
			if (k < n && idx[k] == g)
				continue;
			if (n == HM_MAX_GPUS)
				return 0;
			memmove(idx + k + 1, idx + k, (n - k) * sizeof(*idx));
			idx[k] = g;
			n++;
		}
	}
	return n;
}

static size_t pos_of(const int *idx, size_t n, int g)
{
	for (size_t i = 0; i < n; i++)
		if (idx[i] == g)
			return i;
	return 0;
}

/* One heatmap: bw false: the status of each pair; true: its copy-engine
 * bandwidth (GB/s). */
static void heatmap(struct strbuf *o, const json_t *pairs, const int *idx, size_t n, bool bw)
{
	double max = 0;
	size_t i;
	const json_t *p;
	json_array_foreach(pairs, i, p) {
		double v = num(json_object_get(p, "ce_gbs"));
		if (!isnan(v) && v > max)
			max = v;
	}
	int w = HM_LEFT + (int)n * HM_CELL + 8, h = HM_TOP + (int)n * HM_CELL + 8;
	strbuf_addf(o, "<h2>%s</h2>\n<div class=\"chart\"><svg class=\"heatmap %s\" "
		       "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
		    bw ? "GPU pairs: copy-engine bandwidth, GB/s (row: from, column: to)" : "GPU pairs: status (row: from, column: to)",
		    bw ? "bandwidth" : "status", w, h, w, h);
	for (size_t k = 0; k < n; k++) {
		strbuf_addf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">GPU %d</text>\n",
			    HM_LEFT + (int)k * HM_CELL + HM_CELL / 2, HM_TOP - 10, idx[k]);
		strbuf_addf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">GPU %d</text>\n", HM_LEFT - 8,
			    HM_TOP + (int)k * HM_CELL + HM_CELL / 2 + 4, idx[k]);
		strbuf_addf(o, "<rect class=\"self\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f6f8fa\"/>\n",
			    HM_LEFT + (int)k * HM_CELL + 1, HM_TOP + (int)k * HM_CELL + 1, HM_CELL - 2, HM_CELL - 2);
	}
	json_array_foreach(pairs, i, p) {
		int a = (int)json_integer_value(json_object_get(p, "src"));
		int b = (int)json_integer_value(json_object_get(p, "dst"));
		int x = HM_LEFT + (int)pos_of(idx, n, b) * HM_CELL, y = HM_TOP + (int)pos_of(idx, n, a) * HM_CELL;
		const char *status = str(p, "status"), *link = str(p, "link");
		double v = num(json_object_get(p, "ce_gbs"));
		char fill[16], label[32], tip[512];
		if (bw) {
			bw_fill(fill, sizeof(fill), v, max);
			snprintf(label, sizeof(label), isnan(v) ? "-" : "%.1f", v);
		} else {
			snprintf(fill, sizeof(fill), "%s", status_fill(status));
			snprintf(label, sizeof(label), "%s", status ? status : "-");
		}
		/* the tooltip: the pair, its link, status and what was measured */
		int t = snprintf(tip, sizeof(tip), "GPU %d \xe2\x86\x92 GPU %d: %s%s%s%s", a, b, status ? status : "not tested",
				 link ? " (" : "", link ? link : "", link ? ")" : "");
		static const struct {
			const char *key, *what, *unit;
		} m[] = {
			{ "ce_gbs", "copy engine", "GB/s" }, { "sm_gbs", "SM", "GB/s" }, { "bidir_gbs", "both ways", "GB/s" },
			{ "expected_gbs", "expected", "GB/s" }, { "latency_us", "latency", "us" },
		};
		for (size_t k = 0; k < sizeof(m) / sizeof(m[0]) && t > 0 && (size_t)t < sizeof(tip); k++) {
			double mv = num(json_object_get(p, m[k].key));
			if (!isnan(mv))
				t += snprintf(tip + t, sizeof(tip) - (size_t)t, "; %s %.1f %s", m[k].what, mv, m[k].unit);
		}
		const char *step = str(p, "step");
		if (step && t > 0 && (size_t)t < sizeof(tip))
			snprintf(tip + t, sizeof(tip) - (size_t)t, "; at: %s", step);
		utf8_whole(tip);
		strbuf_adds(o, "<g class=\"pair\"><title>");
		H(o, tip);
		strbuf_addf(o, "</title><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", x + 1, y + 1,
			    HM_CELL - 2, HM_CELL - 2, fill);
		strbuf_addf(o, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" fill=\"%s\">", x + HM_CELL / 2,
			    y + HM_CELL / 2 + 4, bw && !isnan(v) && v > max / 2 ? "#fff" : "#1b1f24");
		H(o, label);
		strbuf_adds(o, "</text></g>\n");
	}
	strbuf_adds(o, "</svg></div>\n");
}

static void pair_heatmaps(struct strbuf *o, const json_t *doc)
{
	const json_t *pairs = path2(doc, "pairs", NULL);
	if (!json_is_array(pairs))
		pairs = path2(doc, "p2p_test", "pairs");
	if (!json_is_array(pairs) || !json_array_size(pairs))
		return;
	int idx[HM_MAX_GPUS];
	size_t n = pair_gpus(pairs, idx);
	if (!n)
		return;
	heatmap(o, pairs, idx, n, false);
	size_t i;
	const json_t *p;
	json_array_foreach(pairs, i, p)
		if (!isnan(num(json_object_get(p, "ce_gbs")))) {
			heatmap(o, pairs, idx, n, true);
			return;
		}
	strbuf_adds(o, "<p class=\"facts-line\">No pair bandwidth was measured (p2p --quick, or the check's "
		       "function tests): no bandwidth heatmap.</p>\n");
}

/* ---- bars ---- */

struct bar {
	const char *label; /* from the document: escaped when written */
	double value;      /* NAN: no bar */
	const char *fill;
	char text[160];    /* after the bar */
	char tip[512];
};

static void bars(struct strbuf *o, const char *title, const char *cls, struct bar *b, size_t n)
{
	double max = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(b[i].value) && b[i].value > max)
			max = b[i].value;
	int w = BAR_LABEL + BAR_LEN + 330, h = (int)n * BAR_ROW + 8;
	strbuf_addf(o, "<h2>%s</h2>\n<div class=\"chart\"><svg class=\"bars %s\" "
		       "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
		    title, cls, w, h, w, h);
	for (size_t i = 0; i < n; i++) {
		int y = (int)i * BAR_ROW + 4;
		/* no value (a configuration that hung, one not tried): a square
		 * of its colour */
		int len = !isnan(b[i].value) && max > 0 ? (int)lround(b[i].value / max * BAR_LEN) : 0;
		if (len < 8)
			len = 8;
		utf8_whole(b[i].tip);
		utf8_whole(b[i].text);
		strbuf_adds(o, "<g class=\"bar\"><title>");
		H(o, b[i].tip);
		strbuf_addf(o, "</title><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", BAR_LABEL - 8, y + 15);
		H(o, b[i].label);
		strbuf_addf(o, "</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", BAR_LABEL, y + 2, len,
			    BAR_ROW - 6, b[i].fill);
		strbuf_addf(o, "<text x=\"%d\" y=\"%d\">", BAR_LABEL + len + 6, y + 15);
		H(o, b[i].text);
		strbuf_adds(o, "</text></g>\n");
	}
	strbuf_adds(o, "</svg></div>\n");
}

static const char *result_fill(const char *result)
{
	if (!result)
		return "#8c959f";
	if (strcmp(result, "OK") == 0 || strncmp(result, "OK,", 3) == 0 || strcmp(result, "ok") == 0)
		return "#2da44e";
	if (strncmp(result, "not ", 4) == 0 || strncmp(result, "skipped", 7) == 0 || strncmp(result, "cannot", 6) == 0)
		return "#8c959f";
	if (strncmp(result, "warning", 7) == 0 || strncmp(result, "SLOW", 4) == 0)
		return "#d4a72c";
	return "#cf222e";
}

/* The fix search's trials: busbw of the largest size each measured. */
static void trial_bars(struct strbuf *o, const json_t *doc)
{
	const json_t *trials = path2(path2(doc, "facts", "fix"), "trials", NULL);
	size_t n = json_array_size(trials);
	if (!n)
		return;
	struct bar *b = xcalloc(n, sizeof(*b));
	size_t i;
	const json_t *t;
	json_array_foreach(trials, i, t) {
		const char *result = str(t, "result");
		b[i].label = str(t, "configuration") ? str(t, "configuration") : "?";
		b[i].fill = result_fill(result);
		b[i].value = NAN;
		const char *size = NULL, *key;
		const json_t *v;
		/* the columns busbw_1m, busbw_64m ... smallest first: the last measured */
		json_object_foreach((json_t *)t, key, v)
			if (strncmp(key, "busbw_", 6) == 0 && json_is_number(v))
				b[i].value = json_number_value(v), size = key + 6;
		if (size)
			snprintf(b[i].text, sizeof(b[i].text), "%.2f GB/s at %s%s%s", b[i].value, size,
				 result && strcmp(result, "OK") != 0 ? ", " : "", result && strcmp(result, "OK") != 0 ? result : "");
		else
			snprintf(b[i].text, sizeof(b[i].text), "%s", result ? result : "-");
		int k = snprintf(b[i].tip, sizeof(b[i].tip), "%s: %s", b[i].label, result ? result : "-");
		double lat = num(json_object_get(t, "lat_8b_us")), secs = num(json_object_get(t, "seconds"));
		if (!isnan(lat) && k > 0 && (size_t)k < sizeof(b[i].tip))
			k += snprintf(b[i].tip + k, sizeof(b[i].tip) - (size_t)k, "; latency at 8 B %.1f us", lat);
		if (!isnan(secs) && k > 0 && (size_t)k < sizeof(b[i].tip))
			k += snprintf(b[i].tip + k, sizeof(b[i].tip) - (size_t)k, "; %.2f s", secs);
		const char *tr = str(t, "transports");
		if (tr && k > 0 && (size_t)k < sizeof(b[i].tip))
			snprintf(b[i].tip + k, sizeof(b[i].tip) - (size_t)k, "; transports %s", tr);
	}
	bars(o, "Fix search: configurations tried, bus bandwidth", "trials", b, n);
	free(b);
}

/* bench: the out-of-place bus bandwidth of each size. */
static void bench_bars(struct strbuf *o, const json_t *doc)
{
	const json_t *rows = path2(doc, "bench", "rows");
	size_t n = json_array_size(rows);
	if (!n)
		return;
	struct bar *b = xcalloc(n, sizeof(*b));
	char (*labels)[48] = xcalloc(n, sizeof(*labels));
	size_t i;
	const json_t *row;
	json_array_foreach(rows, i, row) {
		const json_t *oop = json_object_get(row, "out_of_place");
		double size = num(json_object_get(row, "size")), busbw = num(json_object_get(oop, "busbw"));
		double us = num(json_object_get(oop, "time_us")), wrong = num(json_object_get(oop, "wrong"));
		fmt_bytes(isnan(size) ? 0 : (uint64_t)size, labels[i], sizeof(labels[i]));
		b[i].label = labels[i];
		b[i].value = busbw;
		b[i].fill = !isnan(wrong) && wrong > 0 ? "#cf222e" : isnan(busbw) ? "#8c959f" : "#2da44e";
		if (isnan(busbw))
			snprintf(b[i].text, sizeof(b[i].text), "not measured");
		else
			snprintf(b[i].text, sizeof(b[i].text), "%.2f GB/s%s", busbw, !isnan(wrong) && wrong > 0 ? ", wrong results" : "");
		snprintf(b[i].tip, sizeof(b[i].tip), "%s: out of place %.2f us, busbw %.3f GB/s, #wrong %.0f", labels[i], us,
			 busbw, wrong);
	}
	const char *op = str(path2(doc, "facts", "bench"), "op");
	char title[128];
	snprintf(title, sizeof(title), "Bus bandwidth per size (out of place)");
	if (op) {
		strbuf_adds(o, "<p class=\"facts-line\">operation: ");
		H(o, op);
		strbuf_adds(o, "</p>\n");
	}
	bars(o, title, "bench", b, n);
	free(labels);
	free(b);
}

/* merge: one bar per node, worst first as the table has them: its bus
 * bandwidth where it measured one, its colour its state. */
static void node_bars(struct strbuf *o, const json_t *doc)
{
	const json_t *nodes = path2(path2(doc, "facts", "nodes"), "nodes", NULL);
	size_t n = json_array_size(nodes), i;
	if (!n || strcmp(str(doc, "command") ? str(doc, "command") : "", "merge") != 0)
		return;
	struct bar *b = xcalloc(n, sizeof(*b));
	const json_t *row;
	json_array_foreach(nodes, i, row) {
		const char *state = str(row, "state"), *reason = str(row, "reason");
		b[i].label = str(row, "node") ? str(row, "node") : "?";
		b[i].value = num(json_object_get(row, "busbw_gbs"));
		b[i].fill = !state ? "#8c959f" : strcmp(state, "HEALTHY") == 0 ? "#2da44e" :
			    strcmp(state, "BROKEN") == 0 ? "#cf222e" : strcmp(state, "missing") == 0 ? "#8c959f" : "#d4a72c";
		if (isnan(b[i].value))
			snprintf(b[i].text, sizeof(b[i].text), "%s", state ? state : "-");
		else
			snprintf(b[i].text, sizeof(b[i].text), "%s, %.1f GB/s", state ? state : "-", b[i].value);
		snprintf(b[i].tip, sizeof(b[i].tip), "%s: %s%s%s", b[i].label, state ? state : "-", reason ? ": " : "",
			 reason ? reason : "");
	}
	bars(o, "Nodes: state and bus bandwidth", "nodes", b, n);
	free(b);
}

/* ---- the check's stages ---- */

#define TL_LABEL 90
#define TL_LEN 640

static void stage_timeline(struct strbuf *o, const json_t *doc)
{
	const json_t *stages = path2(path2(doc, "facts", "check"), "stages", NULL);
	size_t n = json_array_size(stages), i;
	if (!n)
		return;
	double total = 0;
	const json_t *s;
	json_array_foreach(stages, i, s) {
		double v = num(json_object_get(s, "seconds"));
		if (!isnan(v) && v > 0)
			total += v;
	}
	int w = TL_LABEL + TL_LEN + 90, h = (int)n * BAR_ROW + 28;
	strbuf_addf(o, "<h2>Stages: %.2f s in all</h2>\n<div class=\"chart\"><svg "
		       "class=\"timeline\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
		    total, w, h, w, h);
	double at = 0;
	json_array_foreach(stages, i, s) {
		double v = num(json_object_get(s, "seconds"));
		if (isnan(v) || v < 0)
			v = 0;
		int y = (int)i * BAR_ROW + 4;
		int x = TL_LABEL + (total > 0 ? (int)lround(at / total * TL_LEN) : 0);
		int len = total > 0 ? (int)lround(v / total * TL_LEN) : 0;
		if (len < 2)
			len = 2;
		const char *stage = str(s, "stage"), *result = str(s, "result");
		char tip[64];
		snprintf(tip, sizeof(tip), ": %.2f s from %.2f s: ", v, at);
		strbuf_adds(o, "<g class=\"stage\"><title>");
		H(o, stage ? stage : "?");
		H(o, tip);
		H(o, result ? result : "-");
		strbuf_addf(o, "</title><text x=\"%d\" y=\"%d\" text-anchor=\"end\">", TL_LABEL - 8, y + 15);
		H(o, stage ? stage : "?");
		strbuf_addf(o, "</text><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"/>", x, y + 2, len,
			    BAR_ROW - 6, result_fill(result && strncmp(result, "problem", 7) == 0 ? "problem" : result));
		strbuf_addf(o, "<text x=\"%d\" y=\"%d\">%.2f s</text></g>\n", x + len + 6, y + 15, v);
		at += v;
	}
	/* the axis: 0 and the total */
	int y = (int)n * BAR_ROW + 20;
	strbuf_addf(o, "<text x=\"%d\" y=\"%d\">0 s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.1f s</text>\n",
		    TL_LABEL, y, TL_LABEL + TL_LEN, y, total);
	strbuf_adds(o, "</svg></div>\n");
}

void html_charts(struct strbuf *o, const json_t *doc)
{
	pair_heatmaps(o, doc);
	trial_bars(o, doc);
	bench_bars(o, doc);
	node_bars(o, doc);
	stage_timeline(o, doc);
}
