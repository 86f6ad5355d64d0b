/* NCCL log analysis: turns the model of the reader (nccllog.h) into
 * findings, ranked causes (the cause classes of DESIGN.md, with confidence
 * and evidence lines) and one row per rank. The rules run in the order of
 * rules/table.c; score.c ranks the causes they gave.
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
 *     completed) and nothing better explains it;
 *  5. weak priors of a run that failed with nothing specific, and the rules
 *     that revise what the others concluded. */
#include "analyze/logs/rules/rules.h"
#include "analyze/logs/inputs/flight_recorder.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- output ------------------------------------------------------------------- */

static double round2(double v)
{
	return floor(v * 100.0 + 0.5) / 100.0;
}

/* v cut down (floor2) or up (ceil2) to two decimals, so that a confidence
 * below a limit never prints as the limit (0.0996 dropped below 0.1 is
 * 0.09, 0.4049 capped at 0.4 came from 0.41); the margin keeps the
 * rounding noise of the noisy-or (0.2 as 0.19999999999999996) out. */
static double floor2(double v)
{
	return floor(v * 100.0 + 1e-6) / 100.0;
}

static double ceil2(double v)
{
	return ceil(v * 100.0 - 1e-6) / 100.0;
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

/* Another process lost its connection to a peer (a peer_died_or_oom event
 * that followed a failure) and no process printed a failure of its own: a
 * process whose log then ends with no error is the likely peer that was
 * killed (SIGKILL, the OOM killer) without a word, not "ok". */
static bool peer_lost_elsewhere(const struct ana *a, int pi)
{
	const struct nccllog *lg = a->lg;
	bool lost = false;
	for (size_t k = 0; k < lg->nev; k++) {
		const struct nl_event *e = &lg->ev[k];
		if (e->proc < 0)
			continue;
		if (a->sigs[e->sig].role == NSR_ROOT)
			return false; /* that process's own failure explains the others */
		if (e->proc != pi && a->sigs[e->sig].role == NSR_SECONDARY &&
		    strcmp(nccl_signature_cause(&a->sigs[e->sig]), "peer_died_or_oom") == 0)
			lost = true;
	}
	return lost;
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
	const struct nl_comm *mc = nl_proc_main_comm(p);
	if (!(mc && (mc->destroyed || mc->aborted)) && peer_lost_elsewhere(a, pi)) {
		snprintf(buf, bufsz, "log ends, no error: the peer that went away?");
		return buf;
	}
	if (stage_of(p) < 9)
		snprintf(buf, bufsz, "stuck before init completed");
	else if (a->have_hang)
		snprintf(buf, bufsz, hs >= 10 ? "stuck in a collective" : "stuck at the first collective");
	else
		snprintf(buf, bufsz, "ok");
	return buf;
}

static char *dup_or_null(const char *s)
{
	return s && s[0] ? xstrdup(s) : NULL;
}

/* One typed row per process (model/runs.h), in rank order. */
static void ranks_output(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char sc[16];
	int *order = xmalloc(sizeof(int) * (size_t)(lg->nprocs ? lg->nprocs : 1));
	for (int i = 0; i < lg->nprocs; i++)
		order[i] = i;
	qsort_r(order, (size_t)lg->nprocs, sizeof(int), cmp_proc, (void *)lg);
	struct rank_list *ranks = result_ranks(a->r, "Ranks (one line per process)");
	if (!lg->nprocs)
		section_note(result_section(a->r, "ranks", NULL), "no NCCL process found in the input");
	for (int oi = 0; oi < lg->nprocs; oi++) {
		int i = order[oi];
		const struct nl_proc *p = &lg->procs[i];
		const struct nl_comm *c = nl_proc_main_comm(p);
		int st = stage_of(p);
		struct rank *k = rank_list_add(ranks);
		k->host = xstrdup(p->host);
		k->pid = p->pid;
		k->rank = nl_proc_rank(p);
		k->nranks = c && c->nranks > 0 ? c->nranks : 0;
		k->rank_of_comm = c && c->rank >= 0;
		k->cuda_dev = c && c->cudadev >= 0 ? c->cudadev : p->dev >= 0 ? p->dev : -1;
		k->nvml_dev = c && c->nvmldev >= 0 ? c->nvmldev : -1;
		k->bus_id = c ? dup_or_null(c->busid) : NULL;
		k->comm_id = c ? dup_or_null(c->commid) : NULL;
		k->nccl_version = dup_or_null(p->version);
		k->cuda_driver = p->cuda_driver;
		k->bootstrap_if = dup_or_null(p->bootstrap_if);
		k->network = dup_or_null(p->net);
		k->stage = xstrdup(stage_code(st, sc, sizeof(sc)));
		k->stage_name = xstrdup(nccl_stage_name(st));
		k->init_complete = st >= 9;
		char vb[96];
		k->verdict = xstrdup(proc_verdict(a, i, vb, sizeof(vb)));
		k->init_seconds = c && c->init_total >= 0 ? c->init_total : -1;
		k->warnings = p->nwarn;
		for (int t = 0; t < p->ntr; t++)
			rank_add_transport(k, p->tr[t].peer, p->tr[t].kind, p->tr[t].count);
		for (int t = 0; t < p->nenv; t++)
			rank_add_env(k, p->env[t].name, p->env[t].value);
		for (size_t t = 0; t < lg->nev; t++) {
			const struct nl_event *e = &lg->ev[t];
			if (e->proc != i || a->sigs[e->sig].role == NSR_INFO)
				continue;
			struct rank_event *x = rank_add_event(k);
			x->signature = xstrdup(a->sigs[e->sig].id);
			x->finding_id = xstrdup(a->sigs[e->sig].finding);
			x->file = dup_or_null(file_name(lg, e->file));
			x->line = (long)e->line;
			x->text = xstrdup(e->text);
			x->chain = dup_or_null(e->chain);
			x->nccl_result = e->code;
		}
		for (int t = 0; t < p->ncomms; t++) {
			const struct nl_comm *m = &p->comms[t];
			struct rank_comm *x = rank_add_comm(k);
			x->comm = xstrdup(m->ptr);
			x->comm_id = dup_or_null(m->commid);
			x->rank = m->rank;
			x->nranks = m->nranks > 0 ? m->nranks : 0;
			x->stage = xstrdup(stage_code(m->stage, sc, sizeof(sc)));
			x->complete = m->complete;
			x->destroyed = m->destroyed;
		}
		k->last_file = dup_or_null(file_name(lg, p->last_file));
		k->last_line = (long)p->last_line;
		k->last_text = xstrdup(p->last_text);
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
				skip = finding_for(a->r, FID_LOG_INPUT_SKIPPED, SEV_INFO, "parts of the input could not be read as text");
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

/* Why score.c capped or dropped a cause (a cap or drop always says why):
 * a cap is one evidence line of the cause it lowered, a drop one of the
 * first cause (the cause dropped is not listed), in the order they
 * happened; each is also a note of the causes section, since the text's
 * table shows a cause's first evidence only. */
static void score_reasons(const struct ana *a, struct cause_list *cl, struct section *sec)
{
	for (int i = 0; i < a->nnotes; i++) {
		const struct score_note *n = &a->notes[i];
		char line[320];
		struct cause *x = NULL;
		if (n->dropped) {
			snprintf(line, sizeof(line), "dropped %s (%.2f): %s", n->cause, floor2(n->from), n->why);
			x = cl->n ? &cl->v[0] : NULL;
		} else {
			snprintf(line, sizeof(line), "lowered from %.2f to %.2f: %s", ceil2(n->from), round2(n->to), n->why);
			for (size_t k = 0; k < cl->n && !x; k++)
				if (strcmp(cl->v[k].cause, n->cause) == 0)
					x = &cl->v[k];
		}
		if (x)
			cause_add_evidence_from(x, a->lg->host.known ? "analysis" : NULL, NULL, 0, line);
		section_note(sec, "%s%s%s", n->dropped ? "" : n->cause, n->dropped ? "" : " ", line);
	}
	if (a->notes_lost)
		section_note(sec, "and %d more change%s of the causes", a->notes_lost, a->notes_lost == 1 ? "" : "s");
}

void nccllog_analyze(const struct nccllog *lg, struct result *r)
{
	struct ana a;
	memset(&a, 0, sizeof(a));
	a.lg = lg;
	a.r = r;
	a.sigs = kb_nccl_signatures(&a.nsigs);

	inputs_output(&a);
	logs_rules_run(&a);
	score_close(&a);
	bool failed = a.failed;

	ranks_output(&a);

	/* the causes, best first */
	struct cause_list *cl = result_causes(r, a.unknown ? "Causes: unknown; candidates to rule out"
						 : failed ? "Causes (best first)" : "Causes");
	cl->failed = failed;
	cl->unknown = a.unknown;
	for (int i = 0; i < a.ncauses; i++) {
		const struct cause_acc *c = &a.causes[i];
		struct cause *x = cause_list_add(cl, c->cause, cause_conf_shown(c->conf));
		/* joined with the machine's facts (lg->host): each line says
		 * where it came from, a fact right after the first log line */
		const char *from = lg->host.known ? "log" : NULL;
		for (int k = 0; k < c->nev; k++) {
			if (k == 1)
				for (int j = 0; j < c->nfacts; j++)
					cause_add_evidence_from(x, "machine", NULL, 0, c->facts[j]);
			cause_add_evidence_from(x, from, file_name(lg, c->ev[k].file), (long)c->ev[k].line, c->ev[k].text);
		}
		if (c->nev < 2)
			for (int j = 0; j < c->nfacts; j++)
				cause_add_evidence_from(x, "machine", NULL, 0, c->facts[j]);
		for (int k = 0; k < c->nfids; k++)
			cause_add_finding(x, c->fids[k]);
	}
	score_reasons(&a, cl, result_section(r, "causes", NULL));
	if (!a.ncauses)
		section_note(result_section(r, "causes", NULL), "%s",
			     lg->nprocs ? "no failure: every rank completed NCCL init and no error was logged"
					: "nothing points to a cause");
	if (a.first) {
		char lbl[96];
		cause_list_set_first(cl, file_name(lg, a.first->file), (long)a.first->line,
				     event_label(lg, a.first, lbl, sizeof(lbl)), a.first->text);
	}

	int nranks_seen = 0;
	for (int i = 0; i < lg->nprocs; i++)
		if (nl_proc_main_comm(&lg->procs[i]))
			nranks_seen++;
	int cut = nl_fr_cut_file(lg);
	char sc[16];
	if (a.unknown) /* only priors: no verdict, what to collect (LOG_CAUSE_UNKNOWN) */
		result_set_headline(r, "NCCL logs: %d file%s, %d process%s: cause unknown: the log says where the run stopped "
				    "(%s), not why; what to collect next is under LOG_CAUSE_UNKNOWN", lg->nfiles,
				    lg->nfiles == 1 ? "" : "s", lg->nprocs, lg->nprocs == 1 ? "" : "es",
				    a.unknown_stage >= 0 ? stage_code(a.unknown_stage, sc, sizeof(sc)) : "no NCCL line");
	else if (a.ncauses && failed)
		result_set_headline(r, "NCCL logs: %d file%s, %d process%s: most likely %s (confidence %.2f)", lg->nfiles,
				    lg->nfiles == 1 ? "" : "s", lg->nprocs, lg->nprocs == 1 ? "" : "es", a.causes[0].cause,
				    cause_conf_shown(a.causes[0].conf));
	else if (cut >= 0) /* a one-line dump longer than --max-line: not read, so no verdict */
		result_set_headline(r, "NCCL logs: %d file%s: the flight-recorder dump '%s' was cut (its line is longer "
				    "than --max-line) and not read: cannot tell; read it whole with 'nccl-doctor logs "
				    "--max-line 67108864 %s'", lg->nfiles, lg->nfiles == 1 ? "" : "s",
				    file_name(lg, cut), file_name(lg, cut));
	else
		result_set_headline(r, "NCCL logs: %d file%s, %d process%s, %d with a communicator%s", lg->nfiles,
				    lg->nfiles == 1 ? "" : "s", lg->nprocs, lg->nprocs == 1 ? "" : "es", nranks_seen,
				    failed ? "" : ": no failure found");
}
