/* NCCL log analysis: turns the model of nccllog*.c into findings, ranked
 * causes (the cause classes of DESIGN.md, with confidence and evidence
 * lines) and one row per rank.
 *
 * Reasoning, in order:
 *  1. signature matches: root failures count fully; consequences (a closed
 *     connection, a remote error, an abort, a framework's wrapper error)
 *     count little once a root failure is known;
 *  2. the first root failure in time (NCCL's WARN timestamps, else the order
 *     within a file) gets a bonus: later failures are usually its effects;
 *  3. model checks: NCCL versions or drivers that differ, two ranks on one
 *     GPU, ranks that never appear, environment that differs, bootstrap over
 *     a virtual interface;
 *  4. the stage timeline: where each rank stopped, and what a hang in that
 *     stage usually means, when the run hung (killed, watchdog, init never
 *     completed) and nothing better explains it. */
#include "analyze/nccllog_ana.h"
#include "kb/causes.h"
#include "kb/findings.h"
#include "util/ncclver.h"
#include "util/jsonx.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- findings from signature matches ----------------------------------- */

static void signature_findings(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96];
	/* role flags */
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++) {
		if (!lg->sigcount[s])
			continue;
		const struct nccl_signature *g = &a->sigs[s];
		if (g->role == NSR_ROOT) {
			a->have_any_root = true;
			if (g->weight >= 0.5)
				a->have_root = true;
		} else if (g->role == NSR_SECONDARY) {
			a->have_secondary = true;
		} else if (g->role == NSR_HANG) {
			a->have_hang = true;
		}
	}
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].role == NSR_ROOT && (!a->first || event_before(e, a->first)))
			a->first = e;
	}
	/* one finding per finding id, evidence from every signature raising it */
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++) {
		if (!lg->sigcount[s])
			continue;
		const struct nccl_signature *g = &a->sigs[s];
		const struct finding_def *d = kb_finding(g->finding);
		if (!d)
			continue;
		enum severity sev = d->severity;
		/* a consequence seen next to its root cause is only a warning */
		if (g->role == NSR_SECONDARY && a->have_root && sev == SEV_ERROR)
			sev = SEV_WARNING;
		const struct nl_event *firstev = NULL;
		for (size_t i = 0; i < lg->nev; i++)
			if (lg->ev[i].sig == (int)s) {
				firstev = &lg->ev[i];
				break;
			}
		char title[400];
		int nprocs = procs_with_sig(lg, (int)s);
		snprintf(title, sizeof(title), "%s%s%s", d->summary, firstev ? ": " : "", firstev ? firstev->text : "");
		struct finding *f = result_find(a->r, g->finding);
		if (!f) {
			f = finding_for(a->r, g->finding, sev, title);
		} else if (sev > f->sev) {
			f->sev = sev;
		}
		for (size_t i = 0; i < lg->nev; i++) {
			const struct nl_event *e = &lg->ev[i];
			if (e->sig != (int)s)
				continue;
			if (f->nev >= 8)
				break;
			event_label(lg, e, lbl, sizeof(lbl));
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s%s%s%s [%s, %s]", e->text,
					 e->chain[0] ? " (back-trace: " : "", e->chain, e->chain[0] ? ")" : "", lbl, g->id);
		}
		if (lg->sigcount[s] > lg->sigstored[s] || nprocs > 1)
			finding_evidence(f, NULL, 0, "%s: %u line%s in all, from %d process%s", g->id, lg->sigcount[s],
					 lg->sigcount[s] == 1 ? "" : "s", nprocs, nprocs == 1 ? "" : "es");
	}
}

/* Cause contributions of signature matches. */
static void signature_causes(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->first) {
		const struct finding_def *d = kb_finding(a->sigs[a->first->sig].finding);
		if (d)
			cause_evidence(cause_get(a, d->cause), a->first->file, a->first->line, a->first->text);
	}
	for (size_t k = 0; k < 2 * a->nsigs && k < 2 * NL_MAX_SIGS; k++) {
		/* root failures first, so their lines lead each cause's evidence */
		size_t s = k % a->nsigs;
		if (!lg->sigcount[s] || (k < a->nsigs) != (a->sigs[s].role == NSR_ROOT))
			continue;
		const struct nccl_signature *g = &a->sigs[s];
		const struct finding_def *d = kb_finding(g->finding);
		if (!d || g->role == NSR_INFO || g->role == NSR_HANG)
			continue;
		double w = g->weight;
		if (g->role == NSR_SECONDARY && a->have_root)
			w *= 0.3;
		if (g->role == NSR_CONTEXT && !a->have_root && !a->have_secondary && !a->have_hang)
			continue; /* a warning in a run that did not fail names no cause */
		int np = procs_with_sig(lg, (int)s);
		if (np > 1 && g->role == NSR_ROOT)
			w += 0.03 * (np - 1 < 3 ? np - 1 : 3);
		if (a->first && a->first->sig == (int)s)
			w += 0.1;
		if (w > 0.97)
			w = 0.97;
		struct cause_acc *c = contribute(a, d->cause, w, g->finding);
		/* the first failure's line first */
		if (a->first && a->first->sig == (int)s)
			cause_evidence(c, a->first->file, a->first->line, a->first->text);
		for (size_t i = 0; i < lg->nev; i++)
			if (lg->ev[i].sig == (int)s)
				cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
	}
}

/* ---- model checks ---------------------------------------------------------- */

/* ---- output ------------------------------------------------------------------- */

static int cmp_cause(const void *x, const void *y)
{
	const struct cause_acc *a = x, *b = y;
	if (a->conf != b->conf)
		return a->conf < b->conf ? 1 : -1;
	return strcmp(a->cause, b->cause);
}

static double round2(double v)
{
	return floor(v * 100.0 + 0.5) / 100.0;
}

static json_t *causes_json(struct ana *a)
{
	json_t *arr = json_array();
	for (int i = 0; i < a->ncauses; i++) {
		const struct cause_acc *c = &a->causes[i];
		json_t *o = json_object();
		json_object_set_new(o, "cause", json_string(c->cause));
		json_object_set_new(o, "confidence", json_real(round2(c->conf)));
		json_t *ev = json_array();
		for (int k = 0; k < c->nev; k++) {
			json_t *e = json_object();
			const char *fn = file_name(a->lg, c->ev[k].file);
			json_object_set_new(e, "file", fn ? json_str_lossy(fn) : json_null());
			json_object_set_new(e, "line", json_integer((json_int_t)c->ev[k].line));
			json_object_set_new(e, "text", json_str_lossy(c->ev[k].text ? c->ev[k].text : ""));
			json_array_append_new(ev, e);
		}
		json_object_set_new(o, "evidence", ev);
		json_t *fids = json_array();
		for (int k = 0; k < c->nfids; k++)
			json_array_append_new(fids, json_string(c->fids[k]));
		json_object_set_new(o, "finding_ids", fids);
		json_array_append_new(arr, o);
	}
	return arr;
}

static int cmp_proc(const void *x, const void *y, void *ctx)
{
	const struct nccllog *lg = ctx;
	const struct nl_proc *p = &lg->procs[*(const int *)x], *q = &lg->procs[*(const int *)y];
	const struct nl_comm *a = nl_proc_main_comm(p), *b = nl_proc_main_comm(q);
	int ra = a && a->rank >= 0 ? a->rank : 1 << 30, rb = b && b->rank >= 0 ? b->rank : 1 << 30;
	if (ra != rb)
		return ra < rb ? -1 : 1;
	int h = strcmp(p->host, q->host);
	if (h)
		return h;
	return p->pid < q->pid ? -1 : p->pid > q->pid;
}

static void transports_text(const struct nl_proc *p, char *buf, size_t bufsz)
{
	size_t len = 0;
	buf[0] = '\0';
	for (int t = 0; t < p->ntr && len + 2 < bufsz; t++) {
		bool dup = false;
		for (int u = 0; u < t; u++)
			if (strcmp(p->tr[u].kind, p->tr[t].kind) == 0)
				dup = true;
		if (dup)
			continue;
		int n = snprintf(buf + len, bufsz - len, "%s%s", len ? "," : "", p->tr[t].kind);
		if (n < 0 || (size_t)n >= bufsz - len)
			break;
		len += (size_t)n;
	}
	if (!buf[0])
		snprintf(buf, bufsz, "-");
}

/* One word on a process: what its own log says happened to it. */
static const char *proc_verdict(const struct ana *a, int pi, char *buf, size_t bufsz)
{
	const struct nccllog *lg = a->lg;
	const struct nl_proc *p = &lg->procs[pi];
	const struct nl_event *root = NULL, *second = NULL;
	for (size_t k = 0; k < lg->nev; k++) {
		const struct nl_event *e = &lg->ev[k];
		if (e->proc != pi)
			continue;
		if (a->sigs[e->sig].role == NSR_ROOT && (!root || event_before(e, root)))
			root = e;
		if (a->sigs[e->sig].role == NSR_SECONDARY && (!second || event_before(e, second)))
			second = e;
	}
	if (root) {
		snprintf(buf, bufsz, "failed: %s (line %llu)", a->sigs[root->sig].finding, (unsigned long long)root->line);
		return buf;
	}
	if (second) {
		snprintf(buf, bufsz, "after a failure: %s (line %llu)", a->sigs[second->sig].finding, (unsigned long long)second->line);
		return buf;
	}
	int hs = hang_stage(p);
	if (stage_of(p) < 9)
		snprintf(buf, bufsz, "stuck before init completed");
	else if (a->have_hang)
		snprintf(buf, bufsz, hs >= 10 ? "stuck in a collective" : "stuck at the first collective");
	else
		snprintf(buf, bufsz, "ok");
	return buf;
}

static void ranks_output(struct ana *a, json_t *ranks)
{
	const struct nccllog *lg = a->lg;
	char sc[16], buf[256];
	int *order = xmalloc(sizeof(int) * (size_t)(lg->nprocs ? lg->nprocs : 1));
	for (int i = 0; i < lg->nprocs; i++)
		order[i] = i;
	qsort_r(order, (size_t)lg->nprocs, sizeof(int), cmp_proc, (void *)lg);
	struct section *s = result_section(a->r, "ranks", "Ranks (one line per process)");
	static const struct column cols[] = {
		{ "rank", "rank", 0 }, { "process", "host:pid", 0 }, { "gpu", "gpu", 0 }, { "nccl", "nccl", 0 },
		{ "stage", "stage", 0 }, { "stage_name", "stopped at", 0 }, { "transports", "transports", 0 },
		{ "verdict", "verdict", 0 }, { "warnings", "warn", 0 }, { "last", "last NCCL line", 0 },
	};
	struct table *t = NULL;
	if (lg->nprocs)
		t = section_table(s, "table", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	else
		section_note(s, "no NCCL process found in the input");
	for (int oi = 0; oi < lg->nprocs; oi++) {
		int i = order[oi];
		const struct nl_proc *p = &lg->procs[i];
		const struct nl_comm *c = nl_proc_main_comm(p);
		int st = stage_of(p);
		size_t row = table_add_row(t);
		int rank = c && c->rank >= 0 ? c->rank : p->prank;
		if (c && c->rank >= 0 && c->nranks > 0)
			table_set(t, row, "rank", val_strf("%d/%d", c->rank, c->nranks));
		else if (rank >= 0)
			table_set(t, row, "rank", val_strf("%d", rank));
		else
			table_set(t, row, "rank", val_str("?"));
		table_set(t, row, "process", val_strf("%s:%ld", p->host, p->pid));
		if (c && c->busid[0])
			table_set(t, row, "gpu", val_strf("%d (bus %s)", c->cudadev >= 0 ? c->cudadev : p->dev, c->busid));
		else
			table_set(t, row, "gpu", p->dev >= 0 ? val_strf("%d", p->dev) : val_str("?"));
		table_set(t, row, "nccl", val_str(p->version[0] ? p->version : "?"));
		table_set(t, row, "stage", val_str(stage_code(st, sc, sizeof(sc))));
		table_set(t, row, "stage_name", val_str(nccl_stage_name(st)));
		if (st < 9)
			table_mark(t, row, "stage", MARK_BAD);
		transports_text(p, buf, sizeof(buf));
		table_set(t, row, "transports", val_str(buf));
		char vb[96];
		proc_verdict(a, i, vb, sizeof(vb));
		table_set(t, row, "verdict", val_str(vb));
		if (strcmp(vb, "ok") != 0)
			table_mark(t, row, "verdict", vb[0] == 'f' ? MARK_BAD : MARK_WARN);
		table_set(t, row, "warnings", val_int(p->nwarn));
		if (p->nwarn)
			table_mark(t, row, "warnings", MARK_WARN);
		table_set(t, row, "last", val_strf("%s:%llu: %.60s", file_name(lg, p->last_file), (unsigned long long)p->last_line, p->last_text));

		json_t *o = json_object();
		json_object_set_new(o, "host", json_str_lossy(p->host));
		json_object_set_new(o, "pid", json_integer(p->pid));
		json_object_set_new(o, "rank", rank >= 0 ? json_integer(rank) : json_null());
		json_object_set_new(o, "nranks", c && c->nranks > 0 ? json_integer(c->nranks) : json_null());
		json_object_set_new(o, "cuda_dev", c && c->cudadev >= 0 ? json_integer(c->cudadev) : p->dev >= 0 ? json_integer(p->dev) : json_null());
		json_object_set_new(o, "nvml_dev", c && c->nvmldev >= 0 ? json_integer(c->nvmldev) : json_null());
		json_object_set_new(o, "bus_id", c && c->busid[0] ? json_str_lossy(c->busid) : json_null());
		json_object_set_new(o, "comm_id", c && c->commid[0] ? json_str_lossy(c->commid) : json_null());
		json_object_set_new(o, "nccl_version", p->version[0] ? json_str_lossy(p->version) : json_null());
		json_object_set_new(o, "cuda_driver", p->cuda_driver ? json_integer(p->cuda_driver) : json_null());
		json_object_set_new(o, "bootstrap_interface", p->bootstrap_if[0] ? json_str_lossy(p->bootstrap_if) : json_null());
		json_object_set_new(o, "network", p->net[0] ? json_str_lossy(p->net) : json_null());
		json_object_set_new(o, "stage", json_string(stage_code(st, sc, sizeof(sc))));
		json_object_set_new(o, "stage_name", json_string(nccl_stage_name(st)));
		json_object_set_new(o, "init_complete", json_boolean(st >= 9));
		json_object_set_new(o, "verdict", json_string(vb));
		json_object_set_new(o, "init_seconds", c && c->init_total >= 0 ? json_real(c->init_total) : json_null());
		json_t *tr = json_array();
		for (int k = 0; k < p->ntr; k++) {
			json_t *x = json_object();
			json_object_set_new(x, "peer", json_integer(p->tr[k].peer));
			json_object_set_new(x, "transport", json_str_lossy(p->tr[k].kind));
			json_object_set_new(x, "channels", json_integer(p->tr[k].count));
			json_array_append_new(tr, x);
		}
		json_object_set_new(o, "transports", tr);
		json_t *env = json_object();
		for (int k = 0; k < p->nenv; k++)
			json_object_set_new(env, p->env[k].name, json_str_lossy(p->env[k].value));
		json_object_set_new(o, "env", env);
		json_object_set_new(o, "warnings", json_integer(p->nwarn));
		json_t *errs = json_array();
		for (size_t k = 0; k < lg->nev; k++) {
			const struct nl_event *e = &lg->ev[k];
			if (e->proc != i || a->sigs[e->sig].role == NSR_INFO)
				continue;
			json_t *x = json_object();
			json_object_set_new(x, "signature", json_string(a->sigs[e->sig].id));
			json_object_set_new(x, "finding_id", json_string(a->sigs[e->sig].finding));
			json_object_set_new(x, "file", json_str_lossy(file_name(lg, e->file)));
			json_object_set_new(x, "line", json_integer((json_int_t)e->line));
			json_object_set_new(x, "text", json_str_lossy(e->text));
			if (e->chain[0])
				json_object_set_new(x, "chain", json_str_lossy(e->chain));
			if (e->code)
				json_object_set_new(x, "nccl_result", json_integer(e->code));
			json_array_append_new(errs, x);
		}
		json_object_set_new(o, "events", errs);
		json_t *comms = json_array();
		for (int k = 0; k < p->ncomms; k++) {
			const struct nl_comm *m = &p->comms[k];
			json_t *x = json_object();
			json_object_set_new(x, "comm", json_str_lossy(m->ptr));
			json_object_set_new(x, "comm_id", m->commid[0] ? json_str_lossy(m->commid) : json_null());
			json_object_set_new(x, "rank", m->rank >= 0 ? json_integer(m->rank) : json_null());
			json_object_set_new(x, "nranks", m->nranks > 0 ? json_integer(m->nranks) : json_null());
			json_object_set_new(x, "stage", json_string(stage_code(m->stage, sc, sizeof(sc))));
			json_object_set_new(x, "complete", json_boolean(m->complete));
			json_object_set_new(x, "destroyed", json_boolean(m->destroyed));
			json_array_append_new(comms, x);
		}
		json_object_set_new(o, "comms", comms);
		json_t *last = json_object();
		json_object_set_new(last, "file", json_str_lossy(file_name(lg, p->last_file)));
		json_object_set_new(last, "line", json_integer((json_int_t)p->last_line));
		json_object_set_new(last, "text", json_str_lossy(p->last_text));
		json_object_set_new(o, "last_line", last);
		json_array_append_new(ranks, o);
	}
	free(order);
}

static void inputs_output(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct section *s = result_section(a->r, "inputs", "Inputs");
	static const struct column cols[] = {
		{ "file", "file", 0 }, { "lines", "lines", 0 }, { "nccl_lines", "NCCL lines", 0 }, { "processes", "processes", 0 },
		{ "skipped", "cleaned / cut", 0 },
	};
	struct table *t = section_table(s, "files", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	uint64_t cut = 0, nul = 0, ansi = 0;
	struct finding *skip = NULL;
	for (int i = 0; i < lg->nfiles; i++) {
		const struct nl_file *f = &lg->files[i];
		size_t row = table_add_row(t);
		table_set(t, row, "file", val_str(f->name));
		table_set(t, row, "lines", val_int((long long)f->lines));
		table_set(t, row, "nccl_lines", val_int((long long)f->nccl_lines));
		table_set(t, row, "processes", val_int(f->nprocs));
		char buf[160] = "";
		size_t len = 0;
		if (f->truncated)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu long line%s cut", len ? ", " : "",
						(unsigned long long)f->truncated, f->truncated == 1 ? "" : "s");
		if (f->nul_lines)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu with NUL bytes", len ? ", " : "",
						(unsigned long long)f->nul_lines);
		if (f->ansi_lines && len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu with colour codes", len ? ", " : "",
						(unsigned long long)f->ansi_lines);
		if (f->no_newline && len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%slast line unterminated", len ? ", " : "");
		table_set(t, row, "skipped", val_str(buf[0] ? buf : "-"));
		cut += f->truncated;
		nul += f->nul_lines;
		ansi += f->ansi_lines;
		if (f->truncated || f->nul_lines) {
			if (!skip)
				skip = finding_for(a->r, "LOG_INPUT_SKIPPED", SEV_INFO, "parts of the input could not be read as text");
			finding_evidence(skip, f->name, 0, "%s", buf);
		}
	}
	if (lg->procs_dropped)
		section_note(s, "%u lines of processes beyond the first %d were not analysed", lg->procs_dropped, NL_MAX_PROCS);
	if (lg->orphan_chain)
		section_note(s, "%llu back-trace line%s without a warning before them (usually benign, e.g. a disabled transport)",
			     (unsigned long long)lg->orphan_chain, lg->orphan_chain == 1 ? "" : "s");
	(void)cut;
	(void)nul;
	(void)ansi;
}

void nccllog_analyze(const struct nccllog *lg, struct result *r)
{
	struct ana a;
	memset(&a, 0, sizeof(a));
	a.lg = lg;
	a.r = r;
	a.sigs = kb_nccl_signatures(&a.nsigs);

	inputs_output(&a);
	signature_findings(&a);
	signature_causes(&a);
	model_checks(&a);
	bool failed = a.have_any_root || a.have_secondary || a.have_hang;
	stage_analysis(&a, &failed);
	for (int i = 0; i < a.ncauses; i++)
		if (a.causes[i].conf >= 0.5)
			failed = true;
	if (failed && a.ncauses == 0) {
		struct cause_acc *c = contribute(&a, "unknown", 0.1, NULL);
		for (size_t i = 0; i < lg->nev && c; i++)
			if (a.sigs[lg->ev[i].sig].role != NSR_INFO)
				cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
	}
	if (a.ncauses == 0 && result_exit_code(r) >= 1) /* not healthy, no lead */
		contribute(&a, "unknown", 0.1, NULL);
	qsort(a.causes, (size_t)a.ncauses, sizeof(a.causes[0]), cmp_cause);
	/* keep what says something: weak echoes of a strong cause go */
	while (a.ncauses > 1 && a.causes[a.ncauses - 1].conf < 0.1)
		a.ncauses--;

	json_t *ranks = json_array();
	ranks_output(&a, ranks);

	/* the causes, best first, as a section for the text report */
	struct section *s = result_section(r, "causes", failed ? "Causes (best first)" : "Causes");
	if (a.ncauses) {
		static const struct column cols[] = {
			{ "cause", "cause", 0 }, { "confidence", "confidence", 0 }, { "evidence", "first evidence", 0 },
			{ "findings", "findings", 0 },
		};
		struct table *t = section_table(s, "table", NULL, cols, sizeof(cols) / sizeof(cols[0]));
		for (int i = 0; i < a.ncauses; i++) {
			const struct cause_acc *c = &a.causes[i];
			size_t row = table_add_row(t);
			table_set(t, row, "cause", val_str(c->cause));
			table_set(t, row, "confidence", val_strf("%.2f", round2(c->conf)));
			if (c->nev)
				table_set(t, row, "evidence", val_strf("%s:%llu: %.70s", file_name(lg, c->ev[0].file) ? file_name(lg, c->ev[0].file) : "-",
								   (unsigned long long)c->ev[0].line, c->ev[0].text ? c->ev[0].text : ""));
			char fl[200] = "";
			size_t len = 0;
			for (int k = 0; k < c->nfids && len < sizeof(fl); k++)
				len += (size_t)snprintf(fl + len, sizeof(fl) - len, "%s%s", k ? "," : "", c->fids[k]);
			table_set(t, row, "findings", val_str(fl));
			if (i == 0 && failed)
				table_mark(t, row, "cause", MARK_BAD);
		}
	} else {
		section_note(s, "%s", lg->nprocs ? "no failure: every rank completed NCCL init and no error was logged"
						  : "nothing points to a cause");
	}
	if (a.first) {
		char lbl[96];
		section_note(s, "first failure: %s:%llu, %s: %s", file_name(lg, a.first->file), (unsigned long long)a.first->line,
			     event_label(lg, a.first, lbl, sizeof(lbl)), a.first->text);
	}

	if (!r->extra)
		r->extra = json_object();
	json_object_set_new(r->extra, "causes", causes_json(&a));
	json_object_set_new(r->extra, "ranks", ranks);

	int nranks_seen = 0;
	for (int i = 0; i < lg->nprocs; i++)
		if (nl_proc_main_comm(&lg->procs[i]))
			nranks_seen++;
	if (a.ncauses && failed)
		result_set_headline(r, "NCCL logs: %d file%s, %d process%s: most likely %s (confidence %.2f)", lg->nfiles,
				    lg->nfiles == 1 ? "" : "s", lg->nprocs, lg->nprocs == 1 ? "" : "es", a.causes[0].cause,
				    round2(a.causes[0].conf));
	else
		result_set_headline(r, "NCCL logs: %d file%s, %d process%s, %d with a communicator%s", lg->nfiles,
				    lg->nfiles == 1 ? "" : "s", lg->nprocs, lg->nprocs == 1 ? "" : "es", nranks_seen,
				    failed ? "" : ": no failure found");
	result_sort_findings(r);
}
