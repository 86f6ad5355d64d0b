/* nccl-doctor check: the one-command verdict (the default command).
 *
 * Stages (engine/stages.c, shared with `fix`), each into its own result that
 * is then absorbed into one report: sys (host facts, no GPU work), topo
 * (NVML and CUDA workers under deadlines), kernel (the kernel log since
 * boot), p2p --quick (every GPU pair: copies, SM loads/stores, NCCL
 * send/recv, each under a deadline), bench (all_reduce with the environment
 * as given, one process per GPU, at a few sizes, under deadlines), and when
 * that failed or is slow, or GPU pairs broke, fix (the configuration search
 * of `nccl-doctor fix`, engine/fix_search.c: the candidates tried for real,
 * stopping once the best that can still pass has passed). Then the verdict:
 * HEALTHY, DEGRADED, BROKEN or INCOMPLETE, the cause classes ranked from
 * every stage's findings with their evidence, and the measured winner in
 * the forms people paste. The whole check stays inside --budget: a stage
 * that would start past it is skipped and the verdict says incomplete. */
#include "analyze/bench.h"
#include "analyze/host_hint.h"
#include "analyze/nccllog.h"
#include "analyze/sys.h"
#include "cmd/check_nodes.h"
#include "cmd/cmd.h"
#include "cmd/fix.h"
#include "kb/findings.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor [check] [--profile P] [--budget SEC] [--force] [--max-bytes SIZE] [--quiet | --progress]\n"
		"                           [--driver]\n"
		"\n"
		"The whole checkup in one command: host facts (sys), the GPUs and their links\n"
		"(topo), the kernel log since boot (kernel), every GPU pair tested for real\n"
		"(p2p --quick: copies, SM loads and stores, NCCL send/recv, each under a\n"
		"deadline), a short all_reduce with the environment as given (bench: one\n"
		"process per GPU, 8 B, 1 MiB and 64 MiB), and when that fails or is slow, or a\n"
		"pair broke, the configuration search of `nccl-doctor fix` (each candidate tried\n"
		"for real). Ends with a verdict, the likely cause with its evidence from every\n"
		"stage, and the configuration that worked fastest.\n"
		"\n"
		"options:\n"
		"  --profile P      what a host's tools can afford (docs/fleet.md): full (the\n"
		"                   default: 90 s, the fix search), healthcheck (45 s, within\n"
		"                   Slurm's 60 s HealthCheckProgram limit: no fix search, 8M\n"
		"                   all_reduce), prolog (30 s, no fix search, 8M) or epilog (60 s,\n"
		"                   no fix search); busy GPUs are never tested without --force;\n"
		"                   --budget and --max-bytes given too win\n"
		"  --budget SEC     the most the whole check may take (default 90; 5 to 86400):\n"
		"                   a stage that would start past it is skipped and the verdict\n"
		"                   is INCOMPLETE\n"
		"  --force          also test GPUs that other processes use\n"
		"  --max-bytes SIZE largest all_reduce size of the bench and fix stages (default\n"
		"                   64M; at least 1M)\n"
		"  --quiet          no progress on stderr\n"
		"  --progress       progress on stderr even when it is not a terminal\n"
		"  --driver         with --sysroot: read the host facts there but still test this\n"
		"                   machine's GPUs (as p2p --driver does)\n"
		"  --across-nodes   under a launcher (srun with one task per node, torchrun, an\n"
		"                   Indexed Job: one process per node): every node checks\n"
		"                   itself, one all_reduce runs across the nodes, and rank 0\n"
		"                   prints one fleet verdict (docs/fleet.md); without it each\n"
		"                   process checks its own node alone, as before\n"
		"  --rendezvous HOST:PORT  rank 0's address for --across-nodes (implies it);\n"
		"                   else MASTER_ADDR/PORT or the srun step's first node\n"
		"  --join-timeout SEC  how long the nodes wait for each other (60); a node not\n"
		"                   there by then is a row of state \"missing\" in the verdict\n"
		"  --log FILE...    a failed job's NCCL / PyTorch / vLLM logs (as `logs` reads\n"
		"                   them; repeat it, or name more files after it): their\n"
		"                   causes are weighed with this machine's facts, and the\n"
		"                   verdict names the cause both point to\n"
		"  --html FILE      also write the report as one self-contained HTML page\n"
		"                   (heatmaps of the GPU pairs, the stages, the fix search;\n"
		"                   the JSON inside; docs/html.md)\n"
		"  -h, --help       this help\n"
		"\n"
		"Run it as root: ACS on the PCIe bridges and the kernel log need privilege.\n"
		"verdicts: HEALTHY (exit 0), DEGRADED (1: warnings, e.g. a slow link),\n"
		"INCOMPLETE (1: a stage was skipped or GPUs were busy), BROKEN (2: an error\n"
		"found); 3: the tool could not run, or NOTHING TO CHECK (" NO_NVIDIA_TEXT ");\n"
		"64 bad usage\n");
}

/* --profile: what a host's tools can afford, as check's own options. The
 * budget is the whole check's (the stage runner skips what would start
 * past it); busy GPUs are skipped unless --force, in every profile. */
enum { PROFILE_FULL, PROFILE_HEALTHCHECK, PROFILE_PROLOG, PROFILE_EPILOG };
static const char *const profile_names[] = { "full", "healthcheck", "prolog", "epilog", NULL };
static const struct {
	double budget;      /* s */
	uint64_t max_bytes; /* the bench and fix stages' largest all_reduce */
	bool fix;           /* the fix search when bench failed or was slow */
} profiles[] = {
	[PROFILE_FULL] = { 90, 64ULL << 20, true },
	/* Slurm kills HealthCheckProgram at 60 s: 45 s leaves room for the
	 * script, the worker deadlines' grace and a loaded node */
	[PROFILE_HEALTHCHECK] = { 45, 8ULL << 20, false },
	/* a prolog delays the job: short, and no search for a fix (no one
	 * reads it; the node is drained or not) */
	[PROFILE_PROLOG] = { 30, 8ULL << 20, false },
	/* after the job the GPUs are free: a full measurement, no search */
	[PROFILE_EPILOG] = { 60, 64ULL << 20, false },
};

struct check {
	struct stages st;
	uint64_t max_bytes;
	int profile;              /* PROFILE_*: --profile */
	bool no_fix;              /* the profile runs no fix search */
	bool fix_incomplete;
	bool harm;                /* bench failed, was slow or cut short, or pairs broke */
	char winner[64];          /* the fix stage's measured winner, "" none */
	int copies_hang, npairs;  /* NCCL works as given, copies hang on copies_hang of npairs pairs */
	char **logs;              /* --log FILE...: a job's logs to join with the machine's facts */
	size_t nlogs, alogs;
	struct finding **logf;    /* the log analysis's findings in r (its causes ranked them already) */
	size_t nlogf;
	struct check_nodes nodes; /* under a launcher: one node of several (check_nodes.c) */
};

/* ---- bench and fix ------------------------------------------------------ */

static bool pairs_broke(const struct fix_search *fs)
{
	for (int a = 0; a < fs->in.ngpus; a++)
		for (int b = 0; b < fs->in.ngpus; b++)
			if (fs->in.pair[a][b] == FIXC_PAIR_BROKEN)
				return true;
	return false;
}

/* The first pair (positions in fs's GPU list) whose NCCL send/recv failed
 * or hung in the p2p stage, or -1 in *a when none. */
static void nccl_failed_pair(const struct fix_search *fs, int *a, int *b)
{
	struct p2p_run *p = fs->st->p2p;
	*a = *b = -1;
	for (int i = 0; p && i < fs->ndev; i++)
		for (int j = 0; j < fs->ndev; j++)
			if (i != j && p->pair_run[fs->pos[i]][fs->pos[j]] && pres(p, fs->pos[i], fs->pos[j])->nccl == 0) {
				*a = i, *b = j;
				return;
			}
}

/* bench: all_reduce as given on the GPUs p2p tested; then, when it failed
 * or is slow or pairs broke, the search, which reuses that trial. */
static void run_bench_fix(struct check *ck, struct result *r)
{
	struct stages *c = &ck->st;
	if (!c->p2p || c->p2p->ntested < 1) {
		stage_skip(c, "bench", c->p2p ? "no GPU to test" : "p2p did not run");
		return;
	}
	if (stages_left(c) < 5) {
		stage_skip(c, "bench", "the budget is spent");
		return;
	}
	struct fix_search *fs = calloc(1, sizeof(*fs));
	if (!fs)
		return;
	fs->st = c, fs->max_bytes = ck->max_bytes;
	struct fix_trial given = { .init_s = -1 };
	str_copy(given.cand.name, "as given", sizeof(given.cand.name));
	given.cand.expected = 1;
	given.cand.why = "the environment as it is";
	struct stage *s = stage_begin(c, "bench");
	if (fix_search_prepare(fs) < 0) {
		snprintf(s->result, sizeof(s->result), "%.150s", fs->why_not);
		s->failed = true;
		stage_end(c, s, NULL, r);
		free(fs);
		return;
	}
	/* NCCL already failed between two of these GPUs in p2p: the ring over
	 * all of them is expected to fail the same way, so it gets a short
	 * deadline (init 6 s, each collective 3 s) and the fix search the time */
	int na, nb;
	nccl_failed_pair(fs, &na, &nb);
	/* else up to 60 s, keeping 25 s for the search: a slow machine's
	 * healthy run still finishes (a hang ends at its phase's deadline,
	 * not at this one) */
	double left = stages_left(c), cap = na >= 0 ? 15 : fmin(fmax(left - 25, 40), 60);
	double d = fmin(left, cap);
	if (na >= 0)
		stages_say(c, "bench: NCCL failed between GPUs %d and %d in p2p: a %.0f s deadline", fs->dev[na], fs->dev[nb], d);
	fix_trial_bench(fs, &given, d);
	double m = fix_trial_measure(&given);
	bool big = given.bw[1] >= 0 || given.bw[2] >= 0;
	given.slow = given.state == TRIAL_OK && big && fs->healthy > 0 && m >= 0 && m < FIX_SLOW_SHARE * fs->healthy;
	snprintf(s->result, sizeof(s->result), "%.100s%s", given.result, given.slow ? " (slow)" : "");
	if (m >= 0)
		/* one rank moves nothing between GPUs: nccl-tests' busbw is 0 there,
		 * and the trial measures its algbw (a copy within the GPU) */
		snprintf(s->result + strlen(s->result), sizeof(s->result) - strlen(s->result), ", %s %.1f GB/s",
			 fs->ndev > 1 ? "busbw" : "algbw", m);
	if (na >= 0 && given.state == TRIAL_HANG) /* why it waited only so long */
		snprintf(s->result + strlen(s->result), sizeof(s->result) - strlen(s->result),
			 " (a %.0f s deadline: NCCL failed on GPUs %d-%d in p2p)", d, fs->dev[na], fs->dev[nb]);
	/* cut short by the budget while every phase was within its deadline:
	 * slow, not broken; no search for a fix of what did not fail */
	bool cut = given.state == TRIAL_CUT;
	s->failed = given.state != TRIAL_OK && !cut;
	stage_end(c, s, NULL, r);
	bool need = (given.state != TRIAL_OK && !cut) || given.slow || pairs_broke(fs);
	ck->harm = need || cut;
	if (!need)
		fix_trial_ignored_vars(&given, r); /* with a search, its report says it */
	if (cut && !need) { /* with a search, its report says it of "as given" */
		struct finding *f = finding_add(r, FID_BENCH_NOT_FINISHED, SEV_WARNING, "all_reduce on %d GPU%s: %s", fs->ndev,
						fs->ndev == 1 ? "" : "s", given.result);
		finding_evidence(f, NULL, 0, "every rank was still within the deadline of its phase: slow, not shown to be stuck");
		finding_fix(f, "shell", "a longer budget lets the benchmark finish", "nccl-doctor check --budget %.0f",
			    c->budget * 2);
	}
	if (!need) {
		free(fs);
		return;
	}
	if (ck->no_fix) {
		/* said, not skipped: the profile chose it, the check is complete */
		section_note(result_section(r, "check", "Check"), "no fix search: --profile %s runs none",
			     profile_names[ck->profile]);
		free(fs);
		return;
	}
	if (stages_left(c) < 5) {
		stage_skip(c, "fix", "the budget is spent");
		ck->fix_incomplete = true;
		free(fs);
		return;
	}
	/* the search starts afresh from the same facts, with the trial above as "as given" */
	struct fix_search *f2 = calloc(1, sizeof(*f2));
	if (f2) {
		f2->st = c, f2->max_bytes = ck->max_bytes;
		s = stage_begin(c, "fix");
		f2->budget = stages_left(c);
		fix_search_run(f2, &given);
		snprintf(s->result, sizeof(s->result), "%.150s", fix_search_outcome(f2));
		s->failed = f2->winner < 0;
		stage_end(c, s, NULL, r);
		unsigned forms = 1u << FIX_FORM_SHELL | 1u << FIX_FORM_DOCKER | 1u << FIX_FORM_K8S | 1u << FIX_FORM_VLLM;
		fix_report(f2, r, forms, "fix");
		ck->fix_incomplete = f2->incomplete;
		if (f2->winner > 0)
			str_copy(ck->winner, f2->t[f2->winner].cand.name, sizeof(ck->winner));
		ck->copies_hang = fix_copies_hang(f2, &ck->npairs);
		free(f2);
	}
	free(fs);
}

/* ---- verdict ------------------------------------------------------------ */

static int cmp_cause(const void *x, const void *y)
{
	const struct cause *a = x, *b = y;
	return cause_rank_cmp(a->confidence, a->cause, b->confidence, b->cause);
}

/* Cause classes ranked from every stage's findings (model/runs.h's formula,
 * 0.6 per error and 0.25 per warning), each with the findings as its evidence.
 * With --log, r already holds the log's causes, which the log analysis
 * weighed with the same machine facts (lg->host, rules/host.c): a class
 * both name keeps the larger confidence (the fact is not counted twice)
 * and gains the findings as evidence from the machine; the rest join. */
static bool is_log_finding(const struct check *ck, const struct finding *f)
{
	for (size_t i = 0; i < ck->nlogf; i++)
		if (ck->logf[i] == f)
			return true;
	return false;
}

static void rank_causes(const struct check *ck, struct result *r, bool failed)
{
	struct acc {
		const char *cause;
		double conf;
		int idx[6];
		int n;
	} acc[24];
	int na = 0;
	for (size_t i = 0; i < r->nfindings; i++) {
		const struct finding *f = r->findings[i];
		if (f->sev < SEV_WARNING || !f->cause || strcmp(f->cause, "unknown") == 0 || is_log_finding(ck, f))
			continue;
		int k = 0;
		while (k < na && strcmp(acc[k].cause, f->cause) != 0)
			k++;
		if (k == na) {
			if (na == 24)
				continue;
			acc[na++] = (struct acc){ .cause = f->cause };
		}
		double w = f->sev == SEV_ERROR ? 0.6 : 0.25;
		acc[k].conf = cause_conf_add(acc[k].conf, w);
		if (acc[k].n < 6)
			acc[k].idx[acc[k].n++] = (int)i;
	}
	bool joined = r->causes != NULL;
	if (na == 0 && !joined)
		return;
	for (int i = 1; i < na; i++) /* best first */
		for (int j = i; j > 0 && cause_rank_cmp(acc[j - 1].conf, acc[j - 1].cause, acc[j].conf, acc[j].cause) > 0; j--) {
			struct acc t = acc[j];
			acc[j] = acc[j - 1];
			acc[j - 1] = t;
		}
	struct cause_list *cl = result_causes(r, "Causes (best first)");
	cl->failed |= failed;
	for (int k = 0; k < na; k++) {
		struct cause *x = NULL;
		for (size_t i = 0; joined && i < cl->n && !x; i++)
			if (strcmp(cl->v[i].cause, acc[k].cause) == 0)
				x = &cl->v[i];
		double conf = cause_conf_shown(acc[k].conf);
		if (!x)
			x = cause_list_add(cl, acc[k].cause, conf);
		else if (conf > x->confidence)
			x->confidence = conf;
		for (int e = 0; e < acc[k].n; e++) {
			const struct finding *f = r->findings[acc[k].idx[e]];
			cause_add_evidence_from(x, joined ? "machine" : NULL, NULL, 0, f->title);
			cause_add_finding(x, f->id);
		}
	}
	if (joined)
		qsort(cl->v, cl->n, sizeof(cl->v[0]), cmp_cause);
	/* the log's "cause unknown" holds unless a finding of the machine
	 * now leads (a warning's 0.25 is more than the log's priors) */
	if (cl->unknown && cl->n && cl->v[0].confidence >= 0.25)
		cl->unknown = false;
}

/* --log: the logs are read before any stage runs, so that a name that
 * cannot be read (or nothing read) ends the check at once with one error
 * line (exit 3); they are analysed after the stages, with the facts the
 * stages gathered (join_logs). */
static int read_logs(struct check *ck, struct nccllog *lg, const struct run_opts *opt)
{
	struct result *lr = result_new("check");
	if (logs_read_inputs(lg, ck->logs, (int)ck->nlogs, opt, lr) == 0) {
		result_free(lr);
		return -1;
	}
	char *why = xstrdup(lr->error ? lr->error : "nothing was read");
	result_free(lr);
	struct result *er = result_new("check");
	result_set_error(er, "--log: %s", why);
	free(why);
	return cmd_finish(er, opt);
}

/* The log analysed with the machine's facts (lg->host from the model the
 * stages filled, the kernel stage's Xids): rules/host.c weighs the log's
 * causes with them in the log analysis's one cause table; its findings,
 * sections and causes then join r (rank_causes adds check's own). */
static void join_logs(struct check *ck, struct nccllog *lg, struct result *r)
{
	struct stages *c = &ck->st;
	char origin[96] = "this machine";
	if (c->opt->sysroot) /* the host facts are the tree's (with --driver too) */
		snprintf(origin, sizeof(origin), "the machine of sysroot %.70s", c->opt->sysroot);
	const struct stage *k = NULL;
	for (int i = 0; i < c->nst; i++)
		if (strcmp(c->st[i].name, "kernel") == 0 && !c->st[i].skipped && !c->st[i].failed)
			k = &c->st[i];
	/* an Xid, a PCIe error or an IOMMU fault in the kernel log, or a
	 * GPU or NVLink fault another stage found */
	static const char *const hw[] = { "gpu_hardware", "nvlink_fabric", "pcie_link" };
	int xid = k ? 0 : -1;
	for (size_t i = 0; k && i < r->nfindings; i++) {
		const struct finding *f = r->findings[i];
		xid |= strstr(f->id, "IOMMU_FAULT") != NULL;
		for (size_t j = 0; j < sizeof(hw) / sizeof(hw[0]); j++)
			xid |= f->cause && strcmp(f->cause, hw[j]) == 0;
	}
	host_hint_from_machine(&c->mach, -1, origin, &lg->host);
	host_hint_set_xid(&lg->host, xid, "since boot");
	struct result *lr = result_new("logs");
	nccllog_analyze(lg, lr);
	ck->logf = xcalloc(lr->nfindings ? lr->nfindings : 1, sizeof(*ck->logf));
	for (size_t i = 0; i < lr->nfindings; i++)
		ck->logf[ck->nlogf++] = lr->findings[i];
	result_absorb(r, lr, "log");
}

static const struct stage *stage_named(const struct stages *c, const char *name)
{
	for (int i = 0; i < c->nst; i++)
		if (strcmp(c->st[i].name, name) == 0)
			return &c->st[i];
	return NULL;
}

/* sys predicts from the PCI tree what p2p and bench then measure. When
 * every pair of two or more GPUs worked (copies and NCCL) and all_reduce
 * neither failed nor was slow, ACS redirect or a translating IOMMU costs
 * this job nothing measurable now: a risk (slower P2P through the root
 * complex, hangs after a driver or BIOS change), a warning, not an error;
 * unless the job's log (--log) shows it stopped in P2P here. */
static void calibrate(const struct check *ck, struct result *r)
{
	const struct stage *p = stage_named(&ck->st, "p2p"), *b = stage_named(&ck->st, "bench");
	if (!p || p->skipped || p->failed || strcmp(p->result, "ok") != 0 || !ck->st.p2p || ck->st.p2p->ntested < 2)
		return;
	if (!b || b->skipped || b->failed || ck->harm)
		return;
	/* --log (joined before): the job itself stopped in P2P on this machine,
	 * so the risk is what happened to it; the error stays */
	const struct cause *lc = r->causes && r->causes->n ? &r->causes->v[0] : NULL;
	bool job_hit = lc && strcmp(lc->cause, "p2p_pcie_acs_iommu") == 0 && lc->confidence >= 0.5;
	static const enum finding_id predicted[] = { FID_ACS_REDIRECT_ENABLED, FID_IOMMU_TRANSLATED };
	for (size_t k = 0; k < sizeof(predicted) / sizeof(predicted[0]); k++) {
		struct finding *f = finding_get(r, predicted[k]);
		if (!f || f->sev != SEV_ERROR)
			continue;
		if (job_hit) {
			finding_evidence(f, NULL, 0,
					 "every pair of the %d GPUs tested worked here, but the job's log (--log) stopped "
					 "in P2P on this machine: what it risks happened to the job",
					 ck->st.p2p->ntested);
			continue;
		}
		f->sev = SEV_WARNING;
		finding_evidence(f, NULL, 0,
				 "measured: every pair of the %d GPUs tested worked (copies and NCCL) and all_reduce "
				 "was not slow, so a risk here rather than a failure",
				 ck->st.p2p->ntested);
	}
}

/* Whether a measurement failed or was slow: only then is a cause "most
 * likely"; otherwise a DEGRADED verdict names the risk it saw. */
static bool measured_harm(const struct check *ck)
{
	if (ck->harm)
		return true;
	for (int i = 0; i < ck->st.nst; i++) {
		const struct stage *s = &ck->st.st[i];
		bool gpu_stage = strcmp(s->name, "sys") != 0 && strcmp(s->name, "kernel") != 0;
		if ((gpu_stage && s->failed) || (strcmp(s->name, "p2p") == 0 && !s->skipped && strcmp(s->result, "ok") != 0))
			return true;
	}
	return false;
}

static const char *verdict(struct stages *c, struct result *r, bool fix_incomplete)
{
	int code = result_exit_code(r);
	bool incomplete = finding_get(r, FID_GPU_BUSY_SKIPPED) != NULL || fix_incomplete;
	for (int i = 0; i < c->nst; i++)
		incomplete |= c->st[i].skipped || c->st[i].failed;
	if (code >= 2)
		return RESULT_BROKEN;
	if (incomplete)
		return RESULT_INCOMPLETE;
	return code == 1 ? RESULT_DEGRADED : RESULT_HEALTHY;
}

/* --log FILE (an opt_fn of util/options.h): one more log. */
static int add_log(void *target, const char *value, char *why, size_t whysz)
{
	struct check *ck = target;
	(void)why, (void)whysz;
	if (!*value)
		return -1;
	XGROW(ck->logs, ck->alogs, ck->nlogs + 1);
	ck->logs[ck->nlogs++] = (char *)value;
	return 0;
}

static int parse_options(int argc, char **argv, struct check *ck, struct run_opts *ro)
{
	struct stages *c = &ck->st;
	bool progress = false;
	double budget = 0;
	uint64_t max_bytes = 0;
	const struct opt_spec opts[] = {
		OPT_ENUM("profile", 0, &ck->profile, profile_names, "what a host's tools can afford"),
		OPT_SECONDS("budget", 0, &budget, CMD_BUDGET_MIN, CMD_BUDGET_MAX, "the most the whole check may take"),
		CMD_OPTS_GPU_RUN(&c->force, &c->quiet, &progress, &c->driver, &max_bytes),
		OPT_CALL("log", 0, ck, add_log, "a log file", "a failed job's log to join with the machine's facts"),
		CMD_OPT_HTML(ro),
		OPT_STRING("rendezvous", 0, &ck->nodes.rendezvous, "rank 0's HOST:PORT under a launcher"),
		OPT_SECONDS("join-timeout", 0, &ck->nodes.join_timeout, 1, 3600, "how long the nodes wait for each other"),
		OPT_FLAG("across-nodes", 0, &ck->nodes.across, "one check of every node the launcher started"),
		OPT_HELP(),
		OPT_END(),
	};
	int next, rc = cmd_options("check", argc, argv, opts, 0, usage, &next);
	if (rc >= 0 || (rc = cmd_html_check("check", ro)) >= 0)
		return rc;
	if (next < argc && !ck->nlogs)
		return cmd_usage_error("check", "unexpected argument '%s'", argv[next]);
	/* the profile's settings, unless given */
	c->budget = budget > 0 ? budget : profiles[ck->profile].budget;
	ck->max_bytes = max_bytes ? max_bytes : profiles[ck->profile].max_bytes;
	ck->no_fix = !profiles[ck->profile].fix;
	for (int i = next; i < argc; i++) /* check --log FILE FILE...: the rest are logs too */
		add_log(ck, argv[i], NULL, 0);
	size_t nstdin = 0;
	for (size_t i = 0; i < ck->nlogs; i++)
		nstdin += strcmp(ck->logs[i], "-") == 0;
	if (nstdin > 1)
		return cmd_usage_error("check", "--log '-' (standard input) can be given once");
	c->progress = progress || c->opt->progress || isatty(STDERR_FILENO); /* --progress is global too */
	c->quiet |= c->opt->quiet; /* the global --quiet (main.c takes it wherever it stands) */
	return -1;
}

int cmd_check(int argc, char **argv, const struct run_opts *opt)
{
	struct check ck = { .max_bytes = 64ULL << 20 };
	struct run_opts ro = *opt; /* with --html */
	opt = &ro;
	stages_init(&ck.st, "check", opt, 90);
	/* the budget planner: what bench (as given: init, then a collective
	 * that may hang) and the fix search (two trials at least) need after
	 * p2p; p2p plans its rounds within the rest (engine/stages.c) */
	ck.st.reserve = 45;
	int rc = parse_options(argc, argv, &ck, &ro);
	if (rc >= 0) {
		free(ck.logs);
		return rc;
	}
	struct stages *c = &ck.st;
	if ((rc = check_nodes_join(&ck.nodes, opt)) != 0) {
		free(ck.logs);
		stages_release(c);
		return rc;
	}
	struct nccllog lg;
	nccllog_init(&lg);
	if (ck.nlogs && (rc = read_logs(&ck, &lg, opt)) >= 0) {
		nccllog_release(&lg);
		free(ck.logs);
		stages_release(c);
		return rc;
	}
	c->t0 = stages_now();
	struct result *r = result_new("check");
	bool nothing = stages_sys(c, r);
	stages_topo(c, r);
	if (nothing && c->ngpus == 0) {
		/* nothing to check: say only that, not the host report */
		result_free(r);
		r = result_new("check");
		result_set_nothing_to_check(r, NO_NVIDIA_TEXT);
		result_set_headline(r, "%s: no NVIDIA GPU or driver here", r->verdict);
		double budget = c->budget;
		stages_release(c);
		nccllog_release(&lg);
		free(ck.logs);
		return ck.nodes.active ? check_nodes_finish(&ck.nodes, r, opt, budget) : cmd_finish(r, opt);
	}
	stages_kernel(c, r);
	stages_p2p(c, r);
	run_bench_fix(&ck, r);
	stages_table(c, r, "check", "Check");
	if (ck.nlogs)
		join_logs(&ck, &lg, r);
	nccllog_release(&lg);
	calibrate(&ck, r);
	free(ck.logs);
	const char *v = verdict(c, r, ck.fix_incomplete);
	cmd_order(r);
	rank_causes(&ck, r, strcmp(v, "BROKEN") == 0);
	free(ck.logf);
	const struct cause *top = r->causes && r->causes->n ? &r->causes->v[0] : NULL;
	const struct finding *worst = NULL;
	for (size_t i = 0; i < r->nfindings && !worst; i++)
		if (r->findings[i]->sev >= SEV_WARNING)
			worst = r->findings[i];
	if (top && r->causes->unknown) /* --log: only priors point anywhere, here too */
		result_set_headline(r, "%s: %d GPU%s, %.1f s; cause unknown: the job's log says where it stopped, not why, "
				    "and nothing here explains it; what to collect next is under LOG_CAUSE_UNKNOWN", v,
				    c->ngpus, c->ngpus == 1 ? "" : "s", stages_now() - c->t0);
	else if (ck.copies_hang > 0) /* what is true first: NCCL works, the copies do not */
		result_set_headline(r, "%s: %d GPUs, %.1f s; " FIX_COPIES_HANG_TEXT, v, c->ngpus, stages_now() - c->t0,
				    ck.copies_hang, ck.npairs);
	else if (top && strcmp(v, "HEALTHY") != 0 && (strcmp(v, "BROKEN") == 0 || measured_harm(&ck)))
		result_set_headline(r, "%s: %d GPU%s, %.1f s; most likely cause %s (%.2f)%s%s", v, c->ngpus,
				    c->ngpus == 1 ? "" : "s", stages_now() - c->t0, top->cause, top->confidence,
				    ck.winner[0] ? "; works with " : "", ck.winner);
	else if (worst && strcmp(v, "HEALTHY") != 0) /* nothing failed or was slow: name the risk, not a cause */
		result_set_headline(r, "%s: %d GPU%s, %.1f s; nothing failed or was slow, but: %s", v, c->ngpus,
				    c->ngpus == 1 ? "" : "s", stages_now() - c->t0, worst->title);
	else
		result_set_headline(r, "%s: %d GPU%s, %.1f s", v, c->ngpus, c->ngpus == 1 ? "" : "s", stages_now() - c->t0);
	json_object_set_new(r->extra, "verdict", json_string(v));
	r->verdict = v; /* a string literal of verdict() */
	json_object_set_new(r->extra, "elapsed_s", json_real(round((stages_now() - c->t0) * 100) / 100));
	json_object_set_new(r->extra, "profile", json_string(profile_names[ck.profile]));
	json_object_set_new(r->extra, "budget_s", json_real(c->budget));
	double budget = c->budget;
	stages_release(c);
	return ck.nodes.active ? check_nodes_finish(&ck.nodes, r, opt, budget) : cmd_finish(r, opt);
}
