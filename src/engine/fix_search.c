/* The trials of `fix` (engine/fix.h): the GPUs to use, the candidates
 * from the stages' evidence, each candidate run under deadlines as real
 * rank processes (or the user's command), the wedged-GPU check after a
 * trial that timed out, and the early stop once the best candidate that can
 * still pass has passed. */
#include "engine/bench.h"
#include "engine/fix.h"
#include "run/supervise.h"
#include "run/worker.h"
#include "util/text.h"

#include <math.h>
#include <signal.h>
#include <strings.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

extern char **environ;

static const uint64_t sizes_all[] = { 8, 1ULL << 20, 64ULL << 20, 256ULL << 20 };

double fix_trial_measure(const struct fix_trial *t)
{
	if (t->state != TRIAL_OK)
		return -1;
	/* bandwidth: 64 and 256 MiB; 1 MiB (mostly latency) only when neither ran */
	double s = 0;
	int n = 0;
	for (int k = 1; k <= 2; k++)
		if (t->bw[k] >= 0) {
			s += t->bw[k];
			n++;
		}
	return n ? s / n : t->bw[0];
}

static void append_busy(char *buf, size_t sz, int gpu, const char *why)
{
	size_t off = strlen(buf);
	if (off < sz - 1)
		snprintf(buf + off, sz - off, "%sGPU %d (%s)", off ? ", " : "", gpu, why);
}

/* The user's NCCL_* and CUDA_* variables of the environment the rank
 * processes inherit (this process's own: the trials run here), in order,
 * up to FIXC_MAX_USER, for the candidates that remove them. */
static void user_vars(struct fix_search *fs)
{
	fs->nuvars = 0;
	for (char **e = environ; e && *e && fs->nuvars < FIXC_MAX_USER; e++) {
		const char *eq = strchr(*e, '=');
		size_t n = eq ? (size_t)(eq - *e) : 0;
		if (!eq || n >= sizeof(fs->uvar_name[0]))
			continue;
		char *name = fs->uvar_name[fs->nuvars];
		memcpy(name, *e, n);
		name[n] = '\0';
		if (!uenv_suspectable(name))
			continue;
		fs->uvar_value[fs->nuvars] = eq + 1;
		fs->in.user_vars[fs->nuvars] = name;
		fs->nuvars++;
	}
	fs->in.nuser_vars = fs->nuvars;
}

const struct uenv_hit *fix_trial_fatal_hit(const struct fix_trial *t)
{
	for (int k = 0; k < t->nhits; k++)
		if (t->hits[k].fatal)
			return &t->hits[k];
	return NULL;
}

/* The GPUs: those p2p tested (selected, not lost, not busy unless --force),
 * in NVML order; their pairs and link classes; the healthy ring's busbw. */
int fix_search_prepare(struct fix_search *fs)
{
	struct p2p_run *p = fs->st->p2p;
	fs->winner = -1;
	if (!p || p->n < 1 || !p->res) {
		snprintf(fs->why_not, sizeof(fs->why_not), "no GPU was tested (the p2p stage did not run)");
		return -1;
	}
	for (int k = 0; k < p->n; k++)
		if (p->g[k].selected && p->g[k].busy && !fs->st->force) {
			append_busy(fs->skipped_busy, sizeof(fs->skipped_busy), p->g[k].index, p->g[k].busy_why);
			fs->incomplete = true;
		}
	for (int t = 0; t < p->ntested && fs->ndev < FIXC_MAX_GPUS; t++) {
		int k = p->tested[t];
		fs->pos[fs->ndev] = k;
		fs->dev[fs->ndev] = k; /* CUDA ordinal under p2p's CUDA_VISIBLE_DEVICES (NVML order) */
		if (p->g[k].wedged) {
			fs->wedged[fs->ndev] = true;
			snprintf(fs->wedged_after[fs->ndev], sizeof(fs->wedged_after[0]), "p2p's %s", p->g[k].wedged_after);
		}
		fs->ndev++;
	}
	if (fs->ndev == 0) {
		snprintf(fs->why_not, sizeof(fs->why_not), "no GPU to test%s", fs->skipped_busy[0] ? " (all are in use: --force tests them)" : "");
		return -1;
	}
	struct fixc_input *in = &fs->in;
	memset(in, 0, sizeof(*in));
	in->ngpus = fs->ndev;
	for (int a = 0; a < fs->ndev; a++)
		for (int b = 0; b < fs->ndev; b++) {
			int x = fs->pos[a], y = fs->pos[b];
			in->link[a][b] = a == b ? LINK_UNKNOWN : p->link[x][y].cls;
			if (a == b || !p->pair_run[x][y])
				continue;
			enum p2p_status st = pres(p, x, y)->status;
			in->pair[a][b] = st == P2P_HANG || st == P2P_CORRUPT || st == P2P_ERROR ? FIXC_PAIR_BROKEN : FIXC_PAIR_OK;
		}
	in->shm_small = fs->st->shm_small || fs->seed.shm_small;
	in->nvls_evidence = fs->seed.nvls;
	in->cumem_evidence = fs->seed.cumem;
	in->bootstrap_failed = fs->seed.bootstrap;
	in->good_ifname = fs->st->good_ifname[0] ? fs->st->good_ifname : NULL;
	user_vars(fs);
	/* a healthy ring over these GPUs: its slowest link at the rate of its class
	 * (P2P up to PXB, through host memory beyond, as NCCL chooses by default) */
	fs->healthy = 0;
	if (fs->ndev > 1) {
		double h = INFINITY;
		for (int a = 0; a < fs->ndev && h > 0; a++) {
			const struct pgpu *g1 = &p->g[fs->pos[a]], *g2 = &p->g[fs->pos[(a + 1) % fs->ndev]];
			int gen = g1->gen < g2->gen ? g1->gen : g2->gen, w = g1->width < g2->width ? g1->width : g2->width;
			const struct link *l = &p->link[fs->pos[a]][fs->pos[(a + 1) % fs->ndev]];
			/* beyond PXB NCCL goes through host memory by default (its P2P level on x86) */
			bool p2p = l->cls == LINK_NV || l->cls == LINK_PIX || l->cls == LINK_PXB;
			double e = p2p_expected_gbs(l, g1->cc_major, gen, w, p2p);
			h = e < h ? e : h;
		}
		fs->healthy = isfinite(h) && h > 0 ? h : 0;
	}
	return 0;
}

/* ---- one trial: our all_reduce ----------------------------------------- */

static double clampd(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* NCCL's own lines must reach the trial's capture (NCCL_DEBUG at INFO or
 * WARN, and not into a file of the user's: NCCL truncates it) */
static bool debug_level_shows_warn(const char *v)
{
	return v && (strcasecmp(v, "INFO") == 0 || strcasecmp(v, "WARN") == 0 || strcasecmp(v, "TRACE") == 0 ||
		     strcasecmp(v, "ABORT") == 0);
}

#define TRIAL_ENV_MAX (FIXC_MAX_ENV + FIXC_MAX_USER + 6)

static void env_of(const struct fix_search *fs, const struct fix_candidate *c, char store[][96], const char **env)
{
	int n = 0;
	const struct p2p_run *p = fs->st->p2p;
	for (int k = 0; p && k < 2 && p->env[k]; k++)
		env[n++] = p->env[k];
	for (int k = 0; k < c->nenv; k++) {
		snprintf(store[k], 96, "%s=%s", c->env[k].name, c->env[k].value);
		env[n++] = store[k];
	}
	for (int k = 0; k < c->nunset; k++)
		env[n++] = c->unset[k]; /* "NAME": removed (run/worker.h) */
	const char *dbg = getenv("NCCL_DEBUG");
	if (dbg && !debug_level_shows_warn(dbg))
		env[n++] = "NCCL_DEBUG=INFO";
	if (getenv("NCCL_DEBUG_FILE"))
		env[n++] = "NCCL_DEBUG_FILE";
	env[n] = NULL;
}

/* The log analysis of `logs` over a failed trial's NCCL lines: its first
 * cause (not unknown) and that cause's first evidence line. */
static void log_cause(struct fix_trial *t, const char *const *lines, size_t nl)
{
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "trial");
	uint64_t n = 0;
	for (size_t i = 0; i < nl; i++) {
		char *dup = strdup(lines[i]);
		if (!dup)
			continue;
		nccllog_feed(&lg, f, dup, strlen(dup), ++n);
		free(dup);
	}
	nccllog_end_file(&lg, f, n, 0, 0, false);
	struct result *r = result_new("logs");
	nccllog_analyze(&lg, r);
	const struct cause *c = r->causes && r->causes->n ? &r->causes->v[0] : NULL;
	if (c && c->cause && strcmp(c->cause, "unknown") != 0) {
		str_copy(t->log_cause, c->cause, sizeof(t->log_cause));
		t->log_conf = c->confidence;
		if (c->nev && c->ev[0].text)
			str_copy(t->log_evidence, c->ev[0].text, sizeof(t->log_evidence));
	}
	result_free(r);
	nccllog_release(&lg);
}

/* NCCL's lines of a trial: every rank's output tail and the lines its
 * worker sent (nccl_lines), for analyze/user_env. */
static void trial_hits(const struct fix_search *fs, struct fix_trial *t, const struct bench_run *br)
{
	enum { MAXL = 512 };
	const char **lines = calloc(MAXL, sizeof(*lines));
	char **owned = calloc(MAXL, sizeof(*owned));
	size_t nl = 0, no = 0;
	if (!lines || !owned)
		goto out;
	for (int i = 0; i < br->nworkers; i++) {
		const struct worker *w = &br->ws[i];
		size_t k;
		json_t *res;
		json_array_foreach(w->results, k, res) {
			const char *kind = json_string_value(json_object_get(res, "kind"));
			if (!kind || strcmp(kind, "nccl_lines") != 0)
				continue;
			size_t j;
			json_t *l;
			json_array_foreach(json_object_get(res, "lines"), j, l)
				if (json_string_value(l) && nl < MAXL)
					lines[nl++] = json_string_value(l);
		}
		char *tail = strdup(strbuf_str(&w->tail));
		if (!tail || no >= MAXL) {
			free(tail);
			continue;
		}
		owned[no++] = tail;
		char *save = NULL;
		for (char *l = strtok_r(tail, "\n", &save); l && nl < MAXL; l = strtok_r(NULL, "\n", &save))
			lines[nl++] = l;
	}
	/* NCCL's last error (ncclGetLastError keeps it whatever NCCL_DEBUG says) */
	for (int i = 0; i < br->nworkers && nl < MAXL; i++) {
		const char *msg = json_string_value(json_object_get(worker_error(&br->ws[i]), "message"));
		if (msg)
			lines[nl++] = msg;
	}
	struct uenv_var vars[FIXC_MAX_USER];
	for (int k = 0; k < fs->nuvars; k++)
		vars[k] = (struct uenv_var){ fs->uvar_name[k], fs->uvar_value[k] };
	/* only what this trial left in place can be implicated */
	struct uenv_var kept[FIXC_MAX_USER];
	size_t nk = 0;
	for (int k = 0; k < fs->nuvars; k++) {
		bool removed = false;
		for (int u = 0; u < t->cand.nunset; u++)
			removed |= strcmp(t->cand.unset[u], vars[k].name) == 0;
		for (int e = 0; e < t->cand.nenv; e++)
			removed |= strcmp(t->cand.env[e].name, vars[k].name) == 0;
		if (!removed)
			kept[nk++] = vars[k];
	}
	t->nhits = uenv_implicated(kept, nk, lines, nl, t->hits, FIX_TRIAL_HITS);
	bool failed = t->state == TRIAL_HANG || t->state == TRIAL_ERROR || t->state == TRIAL_WRONG;
	if (failed && !fix_trial_fatal_hit(t))
		log_cause(t, lines, nl);
out:
	for (size_t k = 0; k < no; k++)
		free(owned[k]);
	free(owned);
	free(lines);
}

static bool text_has(const char *s, const char *needle)
{
	return s && strstr(s, needle) != NULL;
}

/* What the ranks of br say about the trial */
static void judge_bench(struct fix_trial *t, const struct bench_run *br)
{
	const struct bench_opts *o = br->o;
	t->init_s = -1;
	bool inited = true;
	for (int i = 0; i < o->nranks; i++) {
		if (br->ranks[i].init_s < 0)
			inited = false;
		else if (br->ranks[i].init_s > t->init_s)
			t->init_s = br->ranks[i].init_s;
		const char *tail = strbuf_str(&br->ranks[i].w->tail);
		t->shm_evidence |= text_has(br->ranks[i].last_line, "/dev/shm") || text_has(tail, "/dev/shm/nccl");
	}
	str_copy(t->transports, br->ranks[0].transports, sizeof(t->transports));
	for (int k = 0; k < 3; k++)
		t->bw[k] = -1;
	t->lat8_us = -1;
	for (int row = 0; row < br->nrows; row++) {
		const struct bench_cell *c = &br->cells[row * 2].cell;
		if (!c->present)
			continue;
		uint64_t size = o->sizes[row % o->nsizes];
		double bw = o->nranks > 1 ? c->busbw : c->algbw;
		if (size == 8)
			t->lat8_us = c->time_us;
		for (int k = 0; k < 3; k++)
			if (size == sizes_all[k + 1])
				t->bw[k] = bw;
	}
	const struct worker *w = br->failed_rank >= 0 ? br->ranks[br->failed_rank].w : NULL;
	const char *ename = w ? json_string_value(json_object_get(worker_error(w), "name")) : NULL;
	bool hang = w && (w->status == WORKER_HANG || (ename && strcmp(ename, "timeout") == 0));
	if (br->complete && br->failed_rank < 0) {
		t->state = br->wrong_total > 0 ? TRIAL_WRONG : TRIAL_OK;
		snprintf(t->result, sizeof(t->result), br->wrong_total > 0 ? "WRONG (%lld elements)" : "OK", br->wrong_total);
	} else if (bench_run_cut(br)) {
		t->state = TRIAL_CUT;
		snprintf(t->result, sizeof(t->result), "not finished in %.0f s (deadline cut by the budget) at %.90s",
			 w->spec.deadline, br->phase);
	} else {
		t->state = hang ? TRIAL_HANG : TRIAL_ERROR;
		if (hang)
			snprintf(t->result, sizeof(t->result), "HANG at %.140s", br->phase);
		else
			snprintf(t->result, sizeof(t->result), "ERROR: %.140s", br->why[0] ? br->why : br->phase);
		str_copy(t->detail, br->ranks[br->failed_rank].last_line, sizeof(t->detail));
		const char *tail = strbuf_str(&br->ranks[br->failed_rank].w->tail);
		t->bootstrap_evidence = strncmp(br->phase, "bootstrap", 9) == 0 ||
					(!inited && (str_casestr(t->detail, "socket") || str_casestr(t->detail, "bootstrap") ||
						     str_casestr(t->result, "bootstrap") || text_has(tail, "socketStartConnect")));
	}
	if (inited)
		snprintf(t->init, sizeof(t->init), "ok");
	else
		snprintf(t->init, sizeof(t->init), "%s", t->state == TRIAL_HANG ? "HANG" : t->state == TRIAL_CUT ? "not finished" : "ERROR");
	if (!inited && t->state == TRIAL_OK)
		snprintf(t->init, sizeof(t->init), "?");
}

void fix_trial_bench(struct fix_search *fs, struct fix_trial *t, double deadline)
{
	double t0 = stages_now();
	char a_t[32], a_i[32]; /* the deadlines as `bench -T S --deadline-init S` took them */
	double init = clampd(deadline * 0.4, 2, 30), coll = clampd(deadline * 0.2, 2, 15);
	const struct run_opts *opt = fs->st->opt;
	if (opt->timeout > 0) { /* --timeout: the deadline of each step */
		init = init < opt->timeout ? init : opt->timeout;
		coll = coll < opt->timeout ? coll : opt->timeout;
	}
	snprintf(a_t, sizeof(a_t), "%g", coll);
	snprintf(a_i, sizeof(a_i), "%g", init);
	struct run_opts sub = *opt;
	memset(&sub.gpus, 0, sizeof(sub.gpus));
	sub.timeout = init + coll * 8 + 10 < deadline ? init + coll * 8 + 10 : deadline;
	struct bench_opts *o = calloc(1, sizeof(*o));
	if (!o || bench_trial_opts(o, fs->ndev, strtod(a_t, NULL), strtod(a_i, NULL)) != 0) {
		t->state = TRIAL_ERROR;
		snprintf(t->result, sizeof(t->result), "ERROR: cannot set up the benchmark");
		free(o);
		return;
	}
	o->nsizes = 0;
	for (size_t k = 0; k < sizeof(sizes_all) / sizeof(sizes_all[0]); k++)
		if (sizes_all[k] <= fs->max_bytes || k == 0)
			o->sizes[o->nsizes++] = sizes_all[k];
	for (int i = 0; i < fs->ndev; i++)
		o->devices[i] = fs->dev[i];
	char store[FIXC_MAX_ENV][96];
	const char *env[TRIAL_ENV_MAX];
	env_of(fs, &t->cand, store, env);
	struct bench_run *br = NULL;
	int r = bench_execute(o, &sub, env, &br);
	if (r < 0) {
		t->state = TRIAL_ERROR;
		snprintf(t->result, sizeof(t->result), "ERROR: cannot start the rank processes: %s", strerror(-r));
	} else {
		judge_bench(t, br);
		trial_hits(fs, t, br);
		bench_run_free(br);
	}
	free(o);
	t->secs = stages_now() - t0;
}

/* ---- one trial: the user's command ------------------------------------- */

struct cmd_tail {
	char last[256];
	char part[256];
	size_t plen;
};

static void on_output(void *ctx, int stream, const char *data, size_t len)
{
	struct cmd_tail *ct = ctx;
	(void)stream;
	for (size_t i = 0; i < len; i++) {
		if (data[i] == '\n') {
			ct->part[ct->plen] = '\0';
			if (ct->plen)
				memcpy(ct->last, ct->part, ct->plen + 1);
			ct->plen = 0;
		} else if (ct->plen < sizeof(ct->part) - 1) {
			ct->part[ct->plen++] = data[i];
		}
	}
}

static void trial_command(struct fix_search *fs, struct fix_trial *t, double deadline)
{
	double t0 = stages_now();
	char store[FIXC_MAX_ENV][96];
	const char *env[TRIAL_ENV_MAX];
	int n = 0;
	for (int k = 0; k < t->cand.nenv; k++) {
		snprintf(store[k], sizeof(store[k]), "%s=%s", t->cand.env[k].name, t->cand.env[k].value);
		env[n++] = store[k];
	}
	for (int k = 0; k < t->cand.nunset; k++)
		env[n++] = t->cand.unset[k]; /* "NAME": removed (run/supervise.h) */
	env[n] = NULL;
	struct sup_spec spec = { .argv = fs->command, .env_set = env, .out_fd = -1, .err_fd = -1 };
	struct sup s;
	struct cmd_tail ct = { .last = "" };
	t->lat8_us = -1;
	for (int k = 0; k < 3; k++)
		t->bw[k] = -1;
	str_copy(t->init, "-", sizeof(t->init));
	int r = sup_start(&s, &spec);
	if (r < 0) {
		t->state = TRIAL_ERROR;
		snprintf(t->result, sizeof(t->result), "ERROR: cannot run the command: %s", strerror(-r));
		t->secs = stages_now() - t0;
		return;
	}
	bool timed_out = false;
	double kill_at = 0;
	while (sup_poll(&s, 0.1, on_output, &ct)) {
		double now = stages_now();
		if (!timed_out && now - t0 > deadline) {
			timed_out = true;
			sup_signal(&s, SIGTERM);
			kill_at = now + 2;
		} else if (timed_out && kill_at && now > kill_at) {
			sup_signal(&s, SIGKILL);
			kill_at = 0;
		}
	}
	sup_signal(&s, SIGKILL); /* whatever it left in its group */
	t->exit_code = sup_exit_code(&s);
	if (ct.plen) {
		ct.part[ct.plen] = '\0';
		memcpy(ct.last, ct.part, ct.plen + 1);
	}
	str_copy(t->detail, ct.last, sizeof(t->detail));
	sup_release(&s);
	t->secs = stages_now() - t0;
	if (timed_out) {
		t->state = TRIAL_HANG;
		snprintf(t->result, sizeof(t->result), "timed out after %.0f s", deadline);
	} else if (t->exit_code == 0) {
		t->state = TRIAL_OK;
		snprintf(t->result, sizeof(t->result), "OK (exit 0)");
	} else {
		t->state = TRIAL_ERROR;
		snprintf(t->result, sizeof(t->result), "exit %d", t->exit_code);
	}
	t->shm_evidence = text_has(t->detail, "/dev/shm");
}

/* ---- wedged GPUs -------------------------------------------------------- */

/* GPUs of the trial busy with no process now, per p2p-procs; false when it failed */
static bool idle_busy(struct fix_search *fs, bool *busy)
{
	struct worker w;
	struct worker_spec s = { .task = "p2p-procs", .env = fs->st->p2p->env,
				 .deadline = opt_deadline(fs->st->opt, DEADLINE_QUERY), .grace = 1 };
	worker_run(&w, &s);
	json_t *o, *res = w.status == WORKER_OK ? worker_result(&w) : NULL;
	size_t i;
	json_array_foreach(json_object_get(res, "gpus"), i, o) {
		int idx = (int)json_integer_value(json_object_get(o, "index"));
		json_t *pc = json_object_get(o, "process_count");
		for (int d = 0; d < fs->ndev; d++)
			if (fs->st->p2p->g[fs->pos[d]].index == idx)
				busy[d] = json_integer_value(json_object_get(o, "utilization")) > 0 && json_is_integer(pc) &&
					  json_integer_value(pc) == 0;
	}
	worker_release(&w);
	return res != NULL;
}

/* After a trial that timed out: a GPU busy with no process, twice 1.5 s
 * apart, is wedged; the later trials on it are void. */
static void wedged_check(struct fix_search *fs, const struct fix_trial *t)
{
	bool b1[FIXC_MAX_GPUS] = { false }, b2[FIXC_MAX_GPUS] = { false };
	if (!idle_busy(fs, b1))
		return;
	bool any = false;
	for (int d = 0; d < fs->ndev; d++)
		any |= b1[d] && !fs->wedged[d];
	if (!any)
		return;
	struct timespec ts = { 1, 500000000 };
	nanosleep(&ts, NULL);
	if (!idle_busy(fs, b2))
		return;
	for (int d = 0; d < fs->ndev; d++)
		if (b1[d] && b2[d] && !fs->wedged[d]) {
			fs->wedged[d] = true;
			snprintf(fs->wedged_after[d], sizeof(fs->wedged_after[0]), "the trial of %s", t->cand.name);
			stages_say(fs->st, "GPU %d stays busy with no process after the trial of %s: wedged", fs->dev[d], t->cand.name);
		}
}

static bool any_wedged(const struct fix_search *fs)
{
	for (int d = 0; d < fs->ndev; d++)
		if (fs->wedged[d])
			return true;
	return false;
}

/* ---- the search --------------------------------------------------------- */

/* The candidates not yet tried, from fs->in as it stands now (a trial's
 * evidence changes it: a bootstrap failure adds NCCL_SOCKET_IFNAME, a
 * /dev/shm failure puts the SHM candidates last). */
static void refresh_candidates(struct fix_search *fs, int from)
{
	struct fix_candidate c[FIXC_MAX];
	int n = fixc_candidates(&fs->in, c), m = from;
	for (int i = 0; i < n && m < FIX_MAX_TRIALS; i++) {
		bool tried = false;
		for (int j = 0; j < from; j++)
			tried |= strcmp(fs->t[j].cand.name, c[i].name) == 0;
		if (tried)
			continue;
		memset(&fs->t[m], 0, sizeof(fs->t[m]));
		fs->t[m].cand = c[i];
		fs->t[m].init_s = -1;
		fs->t[m].lat8_us = -1;
		for (int k = 0; k < 3; k++)
			fs->t[m].bw[k] = -1;
		m++;
	}
	fs->n = m;
}

static bool passed(const struct fix_search *fs, struct fix_trial *t)
{
	if (t->state != TRIAL_OK)
		return false;
	/* OK but far below what it should keep of a healthy machine: slow */
	double m = fix_trial_measure(t);
	bool big = t->bw[1] >= 0 || t->bw[2] >= 0; /* small sizes measure latency, not bandwidth */
	if (!fs->command && fs->healthy > 0 && big && m >= 0 && m < FIX_SLOW_SHARE * t->cand.expected * fs->healthy)
		t->slow = true;
	return !t->slow;
}

static void learn(struct fix_search *fs, const struct fix_trial *t, int i)
{
	bool changed = false;
	if (t->bootstrap_evidence && !fs->in.bootstrap_failed) {
		fs->in.bootstrap_failed = true;
		changed = true;
	}
	if (t->shm_evidence && !fs->in.shm_small) {
		fs->in.shm_small = true;
		changed = true;
	}
	bool failed = t->state == TRIAL_HANG || t->state == TRIAL_ERROR || t->state == TRIAL_WRONG;
	if (failed && !fs->in.failed) {
		fs->in.failed = true;
		changed |= fs->in.nuser_vars > 0;
	}
	/* a variable of the user's that NCCL's output implicates: try without it */
	for (int k = 0; failed && k < t->nhits; k++) {
		if (!t->hits[k].fatal)
			continue;
		bool have = false;
		for (int j = 0; j < fs->in.nimplicated; j++)
			have |= strcmp(fs->in.implicated[j], t->hits[k].name) == 0;
		for (int j = 0; !have && j < fs->nuvars && fs->in.nimplicated < FIXC_MAX_USER; j++)
			if (strcmp(fs->uvar_name[j], t->hits[k].name) == 0) {
				fs->in.implicated[fs->in.nimplicated++] = fs->uvar_name[j];
				changed = true;
				have = true;
			}
	}
	if (changed)
		refresh_candidates(fs, i + 1);
}

int fix_copies_hang(const struct fix_search *fs, int *npairs)
{
	int n = 0, all = 0;
	for (int a = 0; a < fs->in.ngpus; a++)
		for (int b = a + 1; b < fs->in.ngpus; b++) {
			all++;
			n += fs->in.pair[a][b] == FIXC_PAIR_BROKEN || fs->in.pair[b][a] == FIXC_PAIR_BROKEN;
		}
	if (npairs)
		*npairs = all;
	bool as_given = fs->winner >= 0 && strcmp(fs->t[fs->winner].cand.name, "as given") == 0;
	return as_given ? n : 0;
}

const char *fix_search_outcome(const struct fix_search *fs)
{
	if (fs->why_not[0])
		return fs->why_not;
	if (fs->winner >= 0)
		return fs->t[fs->winner].cand.name;
	/* the candidates, when any ran: "as given" failing is why they ran */
	bool ran = false, all_cut = true;
	for (int pass = 0; pass < 2 && !ran; pass++)
		for (int i = pass ? 0 : 1; i < fs->n; i++)
			if (fs->t[i].state >= TRIAL_OK) {
				ran = true;
				all_cut &= fs->t[i].state == TRIAL_CUT;
			}
	return ran && all_cut ? "no trial finished within the budget" : "nothing worked";
}

void fix_search_run(struct fix_search *fs, const struct fix_trial *given)
{
	double t0 = stages_now();
	if (fix_search_prepare(fs) < 0)
		return;
	refresh_candidates(fs, 0);
	bool stop = false;
	/* the trials are the counted work (the candidates learnt on the way
	 * add to it; an early stop ends it sooner than the ETA says) */
	progress_count(&fs->st->prog, "trials", fs->n, stages_now());
	for (int i = 0; i < fs->n; i++) {
		struct fix_trial *t = &fs->t[i];
		double left = fs->budget - (stages_now() - t0);
		fs->st->prog.total = fs->n;
		progress_done(&fs->st->prog, i);
		if (stop) {
			t->state = TRIAL_FASTER_WORKS;
			continue;
		}
		if (any_wedged(fs)) {
			t->state = TRIAL_VOID_WEDGED;
			fs->incomplete = true;
			continue;
		}
		if (left < 3) {
			t->state = TRIAL_NO_BUDGET;
			fs->incomplete = true;
			continue;
		}
		if (i == 0 && given && strcmp(t->cand.name, "as given") == 0) {
			struct fix_candidate c = t->cand;
			*t = *given;
			t->cand = c;
		} else {
			/* the budget split over what is left to try (at most 60 s each) */
			int rest = fs->n - i;
			double d = clampd(left / (rest < 3 ? rest : 3), 3, 60);
			d = d < left ? d : left;
			stages_say(fs->st, "fix: trying %s (deadline %.0f s)", t->cand.name, d);
			if (fs->command)
				trial_command(fs, t, d);
			else
				fix_trial_bench(fs, t, d);
			progress_done(&fs->st->prog, i + 1);
			stages_say(fs->st, "fix: %s: %s (%.1f s)", t->cand.name, t->result, t->secs);
		}
		if (t->state == TRIAL_HANG)
			wedged_check(fs, t);
		if (passed(fs, t) && !fs->all)
			stop = true;
		learn(fs, t, i);
	}
	/* the fastest correct one: measured (our all_reduce), else the first that passed */
	double best = -1;
	for (int i = 0; i < fs->n; i++) {
		if (fs->t[i].state != TRIAL_OK)
			continue;
		double m = fix_trial_measure(&fs->t[i]);
		if (fs->winner < 0 || (m > best * 1.05 && best >= 0)) {
			fs->winner = i;
			best = m;
		}
	}
	progress_uncount(&fs->st->prog);
	fs->secs = stages_now() - t0;
}
