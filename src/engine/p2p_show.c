/* `p2p` output: the GPU table with per-GPU bandwidth, the per-pair status
 * table, and the matrices (status; with bandwidth: copy engine one way with
 * P2P on and off, SM, both ways, latency). Matrices follow nvbandwidth's
 * layout: row = source GPU, column = destination GPU, the diagonal empty.
 * JSON (docs/json.md, "p2p"): "gpus", "pairs" (one object per ordered pair),
 * "matrices" (arrays of arrays, null where not measured), "summary". */
#include "engine/p2p.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <string.h>

static struct value gbs(double v)
{
	char buf[32];
	snprintf(buf, sizeof(buf), "%.1f", v);
	return v > 0 ? val_with_display(val_double(v), buf) : val_unknown("not measured");
}

static json_t *num_or_null(double v)
{
	return v > 0 ? json_real(v) : json_null();
}

static const char *gpu_state(const struct pgpu *g, bool force)
{
	if (!g->selected)
		return "not selected";
	if (g->lost)
		return "lost";
	if (g->busy && !force)
		return "busy: skipped";
	if (g->wedged)
		return "wedged";
	return g->busy ? "busy: tested (--force)" : "tested";
}

static void show_gpus(struct result *r, struct p2p_run *p)
{
	struct section *s = result_section(r, "gpus", "GPUs");
	s->kind = SECTION_TEXT_ONLY; /* JSON: the "gpus" member */
	static const struct column cols[] = {
		{ "index", "GPU", 0 }, { "name", "name", 0 }, { "bdf", "PCI", 0 }, { "state", "state", 0 },
		{ "local_copy_ce_gbs", "copy CE GB/s", 0 }, { "local_copy_sm_gbs", "copy SM GB/s", 0 },
		{ "h2d_gbs", "H2D GB/s", 0 }, { "d2h_gbs", "D2H GB/s", 0 }, { "status", "status", 0 },
	};
	struct table *t = section_table(s, "gpus", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	if (p->quick) { /* nothing measured per GPU: text counts the GPUs tested and lists the others */
		for (size_t c = 4; c < t->ncols; c++)
			t->cols[c].show = SHOW_JSON_ONLY;
		t->ok_rows = "GPUs tested";
	}
	json_t *arr = json_array();
	char b1[32], b2[32];
	for (int k = 0; k < p->n; k++) {
		struct pgpu *g = &p->g[k];
		size_t row = table_add_row(t);
		const char *st = gpu_state(g, p->force);
		table_set(t, row, "index", val_int(g->index));
		table_set(t, row, "name", g->name ? val_str(g->name) : val_unknown("not reported"));
		table_set(t, row, "bdf", val_str(g->bdf));
		table_set(t, row, "state", val_str(st));
		if (strcmp(st, "tested") && strcmp(st, "busy: tested (--force)") && strcmp(st, "not selected"))
			table_mark(t, row, "state", MARK_WARN);
		table_set(t, row, "local_copy_ce_gbs", gbs(g->ce));
		table_set(t, row, "local_copy_sm_gbs", gbs(g->sm));
		table_set(t, row, "h2d_gbs", gbs(g->h2d));
		table_set(t, row, "d2h_gbs", gbs(g->d2h));
		if (g->slow)
			table_mark(t, row, "local_copy_ce_gbs", MARK_WARN);
		table_set(t, row, "status", g->measured ? val_str(p2p_status_name(g->status)) : val_unknown("not measured"));
		if (g->measured && g->status != P2P_OK)
			table_mark(t, row, "status", MARK_BAD);
		json_t *o = json_pack("{s:i,s:s,s:s,s:b,s:b,s:b}", "index", g->index, "bdf", g->bdf, "state", st, "busy", g->busy,
				      "wedged", g->wedged, "lost", g->lost);
		json_object_set_new(o, "name", g->name ? json_string(g->name) : json_null());
		json_object_set_new(o, "uuid", g->uuid ? json_string(g->uuid) : json_null());
		json_object_set_new(o, "local_copy_ce_gbs", num_or_null(g->ce));
		json_object_set_new(o, "local_copy_sm_gbs", num_or_null(g->sm));
		json_object_set_new(o, "h2d_gbs", num_or_null(g->h2d));
		json_object_set_new(o, "d2h_gbs", num_or_null(g->d2h));
		json_object_set_new(o, "status", g->measured ? json_string(p2p_status_name(g->status)) : json_null());
		if (g->detail[0])
			json_object_set_new(o, "detail", json_string(g->detail));
		if (g->busy)
			json_object_set_new(o, "busy_why", json_string(g->busy_why));
		json_array_append_new(arr, o);
	}
	json_object_set_new(r->extra, "gpus", arr);
	if (!p->quick)
		section_note(s, "per-GPU bandwidth: %s buffers, median of %lld repetitions of 4 copies, GB = 1e9 bytes, "
				"each byte counted once; H2D/D2H from pinned host memory", fmt_bytes((uint64_t)p->gsize, b1, sizeof(b1)),
			     p->reps);
	(void)b2;
}

static const char *detail_text(const struct p2p_result *x, char *buf, size_t bufsz)
{
	switch (x->status) {
	case P2P_CORRUPT:
		snprintf(buf, bufsz, "%s: first bad byte at offset %lld", x->step, x->bad_offset);
		break;
	case P2P_ERROR:
		snprintf(buf, bufsz, "%.150s: %.90s", x->step, x->error);
		break;
	case P2P_HANG: case P2P_VOID: case P2P_SLOW:
		snprintf(buf, bufsz, "%s", x->step);
		break;
	case P2P_NO_P2P:
		snprintf(buf, bufsz, "no peer access: copy through host memory %s", x->ce_ok ? "verified" : "failed");
		break;
	default:
		snprintf(buf, bufsz, "%s", x->note);
	}
	return buf;
}

static json_t *pair_json(struct p2p_run *p, const struct p2p_result *x)
{
	char buf[32];
	json_t *o = json_pack("{s:i,s:i,s:s,s:s,s:s}", "src", p->g[x->src].index, "dst", p->g[x->dst].index, "link",
			      link_cell_text(p->link[x->src][x->dst], buf, sizeof(buf)), "nvml_p2p", p->nvml_p2p[x->src][x->dst],
			      "status", p2p_status_name(x->status));
	json_t *caps = p->nvml_caps[x->src][x->dst];
	json_object_set_new(o, "nvml_p2p_caps", caps ? json_incref(caps) : json_null());
	json_object_set_new(o, "can_access_peer", x->can_access < 0 ? json_null() : json_boolean(x->can_access));
	json_object_set_new(o, "step", x->step[0] ? json_string(x->step) : json_null());
	json_object_set_new(o, "first_bad_offset", x->bad_offset >= 0 ? json_integer(x->bad_offset) : json_null());
	json_object_set_new(o, "error", x->error[0] ? json_string(x->error) : json_null());
	json_object_set_new(o, "ce_path", x->path[0] ? json_string(x->path) : json_null());
	json_object_set_new(o, "ce_verified", json_boolean(x->ce_ok));
	json_object_set_new(o, "sm_verified", x->sm_tested ? json_boolean(x->sm_ok) : json_null());
	json_object_set_new(o, "nccl_verified", x->nccl < 0 ? json_null() : json_boolean(x->nccl));
	json_object_set_new(o, "ce_gbs", num_or_null(x->ce_gbs));
	json_object_set_new(o, "ce_nop2p_gbs", num_or_null(x->ce_nop2p_gbs));
	json_object_set_new(o, "sm_gbs", num_or_null(x->sm_gbs));
	json_object_set_new(o, "bidir_gbs", num_or_null(x->bidir_gbs));
	json_object_set_new(o, "bidir_nop2p_gbs", num_or_null(x->bidir_nop2p_gbs));
	json_object_set_new(o, "sm_bidir_gbs", num_or_null(x->sm_bidir_gbs));
	json_object_set_new(o, "latency_us", num_or_null(x->lat_us));
	json_object_set_new(o, "latency_nop2p_us", num_or_null(x->lat_nop2p_us));
	json_object_set_new(o, "expected_gbs", num_or_null(x->expected_gbs));
	json_object_set_new(o, "ratio", num_or_null(x->ratio));
	if (x->note[0])
		json_object_set_new(o, "note", json_string(x->note));
	return o;
}

static void show_pairs(struct result *r, struct p2p_run *p)
{
	struct section *s = result_section(r, "pairs", "GPU pairs");
	s->kind = SECTION_TEXT_ONLY; /* JSON: the "pairs" member */
	static const struct column cols[] = {
		{ "pair", "pair", 0 }, { "link", "link", 0 }, { "peer", "peer access", 0 }, { "status", "status", 0 },
		{ "ce", "CE", 0 }, { "sm", "SM", 0 }, { "nccl", "NCCL", 0 }, { "detail", "detail", 0 },
	};
	struct table *t = section_table(s, "pairs", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	t->ok_rows = "pairs"; /* text: "44 pairs OK", the problems listed */
	json_t *arr = json_array();
	char buf[256];
	int count[P2P_VOID + 1] = { 0 };
	for (int i = 0; i < p->ntested; i++)
		for (int j = 0; j < p->ntested; j++) {
			int a = p->tested[i], b = p->tested[j];
			if (a == b || !p->pair_run[a][b])
				continue;
			struct p2p_result *x = pres(p, a, b);
			count[x->status]++;
			json_array_append_new(arr, pair_json(p, x));
			size_t row = table_add_row(t);
			table_set(t, row, "pair", val_strf("%d->%d", p->g[a].index, p->g[b].index));
			table_set(t, row, "link", val_str(link_cell_text(p->link[a][b], buf, sizeof(buf))));
			table_set(t, row, "peer", x->can_access < 0 ? val_unknown("not reached") : val_str(x->can_access ? "yes" : "no"));
			table_set(t, row, "status", val_str(p2p_status_name(x->status)));
			table_mark(t, row, "status", x->status == P2P_OK ? MARK_OK : x->status <= P2P_SLOW ? MARK_WARN : MARK_BAD);
			table_set(t, row, "ce", x->path[0] ? val_strf("%s %s", x->ce_ok ? "ok" : "BAD", x->path) : val_str("-"));
			table_set(t, row, "sm", x->sm_tested ? val_str(x->sm_ok ? "ok" : "BAD") : val_str("-"));
			table_set(t, row, "nccl", val_str(x->nccl < 0 ? "-" : x->nccl ? "ok" : "BAD"));
			if (x->nccl == 0)
				table_mark(t, row, "nccl", MARK_BAD);
			table_set(t, row, "detail", val_str(detail_text(x, buf, sizeof(buf))));
		}
	json_object_set_new(r->extra, "pairs", arr);
	if (p->ntested < 2)
		section_note(s, "%s: no GPU pair exists, so only the per-GPU numbers are measured",
			     p->ntested == 1 ? "only one GPU is tested" : "no GPU is tested");
	json_t *sum = json_object();
	for (int k = 0; k <= P2P_VOID; k++)
		json_object_set_new(sum, p2p_status_name((enum p2p_status)k), json_integer(count[k]));
	json_object_set_new(r->extra, "status_counts", sum);
	int npairs = 0;
	for (int k = 0; k <= P2P_VOID; k++)
		npairs += count[k];
	struct strbuf sb = STRBUF_INIT;
	strbuf_init(&sb, 256);
	for (int k = 0; k <= P2P_VOID; k++)
		if (count[k])
			strbuf_addf(&sb, "%s%d %s", sb.len ? ", " : "", count[k], p2p_status_name((enum p2p_status)k));
	if (p->ntested < 2)
		result_set_headline(r, "%d GPU%s tested: no GPU pair exists%s%s", p->ntested, p->ntested == 1 ? "" : "s",
				    p->driver ? "; driver " : "", p->driver ? p->driver : "");
	else
		result_set_headline(r, "%d GPUs tested, %d ordered pair%s%s%s%s%s", p->ntested, npairs, npairs == 1 ? "" : "s",
				    sb.len ? ": " : "", strbuf_str(&sb), p->driver ? "; driver " : "", p->driver ? p->driver : "");
	strbuf_release(&sb);
}

enum mat { M_STATUS, M_CE, M_CE_NOP2P, M_SM, M_BIDIR, M_BIDIR_NOP2P, M_SM_BIDIR, M_LAT, M_LAT_NOP2P, M_COUNT };
static const struct { const char *key, *title; } mats[M_COUNT] = {
	{ "status", "Status (row: source GPU, column: destination GPU)" },
	{ "ce_unidir_gbs", "Copy engine, one way, P2P on, GB/s (memcpy CE GPU(row) -> GPU(column))" },
	{ "ce_unidir_nop2p_gbs", "Copy engine, one way, P2P off (through host memory), GB/s" },
	{ "sm_unidir_gbs", "SM stores, one way, GB/s (copy kernel on the row GPU writing into the column GPU)" },
	{ "ce_bidir_gbs", "Copy engine, both ways at once, P2P on, GB/s (bytes of both directions)" },
	{ "ce_bidir_nop2p_gbs", "Copy engine, both ways at once, P2P off, GB/s" },
	{ "sm_bidir_gbs", "SM stores, both ways at once, GB/s" },
	{ "latency_us", "Latency, P2P on, microseconds (4-byte copy, median)" },
	{ "latency_nop2p_us", "Latency, P2P off, microseconds" },
};

static double mat_value(const struct p2p_result *x, enum mat m)
{
	switch (m) {
	case M_CE: return x->ce_gbs;
	case M_CE_NOP2P: return x->ce_nop2p_gbs;
	case M_SM: return x->sm_gbs;
	case M_BIDIR: return x->bidir_gbs;
	case M_BIDIR_NOP2P: return x->bidir_nop2p_gbs;
	case M_SM_BIDIR: return x->sm_bidir_gbs;
	case M_LAT: return x->lat_us;
	case M_LAT_NOP2P: return x->lat_nop2p_us;
	default: return 0;
	}
}

static void show_matrix(struct result *r, struct p2p_run *p, struct section *s, enum mat m, json_t *mj)
{
	int n = p->ntested;
	struct column *cols = xcalloc((size_t)n + 1, sizeof(*cols));
	char **names = xcalloc((size_t)n, sizeof(char *));
	cols[0] = (struct column){ "gpu", "", SHOW_TEXT_ONLY };
	for (int i = 0; i < n; i++) {
		names[i] = xasprintf("GPU%d", p->g[p->tested[i]].index);
		cols[1 + i] = (struct column){ names[i], names[i], SHOW_TEXT_ONLY };
	}
	struct table *t = section_table(s, mats[m].key, mats[m].title, cols, (size_t)n + 1);
	json_t *rows = json_array();
	for (int i = 0; i < n; i++) {
		size_t row = table_add_row(t);
		json_t *jr = json_array();
		table_set(t, row, "gpu", val_str(names[i]));
		for (int j = 0; j < n; j++) {
			int a = p->tested[i], b = p->tested[j];
			struct p2p_result *x = pres(p, a, b);
			if (a == b || !p->pair_run[a][b]) {
				table_set(t, row, names[j], val_str(a == b ? "X" : "-"));
				json_array_append_new(jr, json_null());
			} else if (m == M_STATUS) {
				table_set(t, row, names[j], val_str(p2p_status_name(x->status)));
				table_mark(t, row, names[j], x->status == P2P_OK ? MARK_NONE : x->status <= P2P_SLOW ? MARK_WARN : MARK_BAD);
				json_array_append_new(jr, json_string(p2p_status_name(x->status)));
			} else {
				double v = mat_value(x, m);
				table_set(t, row, names[j], v > 0 ? val_strf("%.2f", v) : val_str("-"));
				if (m == M_CE && x->status == P2P_SLOW)
					table_mark(t, row, names[j], MARK_WARN);
				json_array_append_new(jr, num_or_null(v));
			}
		}
		json_array_append_new(rows, jr);
	}
	json_object_set_new(mj, mats[m].key, rows);
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(cols);
	(void)r;
}

void p2p_show(struct result *r, struct p2p_run *p)
{
	struct section *s = result_section(r, "run", "Run");
	char buf[32];
	section_add(s, "mode", "mode", val_str(p->quick ? "quick (function tests only)" : "full (function tests and bandwidth)"));
	section_add(s, "function_bytes", "function test buffer", val_with_display(val_int(p->fsize), fmt_bytes((uint64_t)p->fsize, buf, sizeof(buf))));
	section_add(s, "rounds", "rounds of disjoint pairs", val_int(p->rounds));
	section_add(s, "seconds_gpus", "per-GPU tests (s)", val_strf("%.1f", p->t_gpus));
	section_add(s, "seconds_function", "pair function tests and NCCL (s)", val_strf("%.1f", p->t_func));
	section_add(s, "seconds_bandwidth", "pair bandwidth (s)", val_strf("%.1f", p->t_bw));
	if (p->no_nccl)
		section_note(s, "--no-nccl: the NCCL send/recv step was skipped");
	show_gpus(r, p);
	show_pairs(r, p);
	if (p->ntested < 2)
		return;
	struct section *ms = result_section(r, "matrices", "Matrices");
	ms->kind = SECTION_TEXT_ONLY; /* JSON: the "matrices" member */
	json_t *mj = json_object();
	for (int m = 0; m < M_COUNT; m++)
		if (m == M_STATUS || !p->quick)
			show_matrix(r, p, ms, (enum mat)m, mj);
	json_object_set_new(r->extra, "matrices", mj);
	if (!p->quick)
		section_note(ms, "pairs: %s buffers, median of %lld repetitions; GB = 1e9 bytes; a failed pair is not measured",
			     fmt_bytes((uint64_t)p->bsize, buf, sizeof(buf)), p->reps);
}
