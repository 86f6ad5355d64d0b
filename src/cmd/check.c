/* nccl-doctor check: the one-command verdict (the default command).
 *
 * Stages, each into its own result that is then absorbed into one report
 * (model/result_absorb): sys (host facts, no GPU work), topo (NVML and CUDA
 * workers under deadlines), kernel (the kernel log since boot), p2p --quick
 * (every GPU pair: copies, SM loads/stores, NCCL send/recv, each under a
 * deadline). Then the verdict: HEALTHY, DEGRADED, BROKEN or INCOMPLETE, the
 * cause classes ranked from every stage's findings with their evidence, and
 * when GPU pairs broke, the configurations to try (analyze/fix_candidates)
 * and the first of them in the forms people paste (analyze/fix_emit). The
 * whole check stays inside --budget: a stage that would start past it is
 * skipped and the verdict says incomplete. */
#include "analyze/fix_candidates.h"
#include "analyze/fix_emit.h"
#include "analyze/sys.h"
#include "analyze/topo.h"
#include "cmd/cmd.h"
#include "cmd/p2p_int.h"
#include "kb/findings.h"
#include "model/runs.h"
#include "util/input.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_STAGES 8

static void usage(FILE *out)
{
	fprintf(out,
		"usage: nccl-doctor [check] [--budget SEC] [--force] [--quiet | --progress] [--driver]\n"
		"\n"
		"The whole checkup in one command: host facts (sys), the GPUs and their links\n"
		"(topo), the kernel log since boot (kernel), and every GPU pair tested for real\n"
		"(p2p --quick: copies, SM loads and stores, NCCL send/recv, each under a\n"
		"deadline). Ends with a verdict, the likely cause with its evidence from every\n"
		"stage, and what to try.\n"
		"\n"
		"options:\n"
		"  --budget SEC   the most the whole check may take (default 90); a stage that\n"
		"                 would start past it is skipped and the verdict is INCOMPLETE\n"
		"  --force        also test GPUs that other processes use\n"
		"  --quiet        no progress on stderr\n"
		"  --progress     progress on stderr even when it is not a terminal\n"
		"  --driver       with --sysroot: read the host facts there but still test this\n"
		"                 machine's GPUs (as p2p --driver does)\n"
		"  -h, --help     this help\n"
		"\n"
		"Run it as root: ACS on the PCIe bridges and the kernel log need privilege.\n"
		"verdicts: HEALTHY (exit 0), DEGRADED (1: warnings, e.g. a slow link),\n"
		"INCOMPLETE (1: a stage was skipped or GPUs were busy), BROKEN (2: an error\n"
		"found); 3: the tool could not run, or " NO_NVIDIA_TEXT "; 64 bad usage\n");
}

struct stage {
	const char *name;
	double secs;
	char result[160];
	bool skipped, failed;
};

struct check {
	const struct run_opts *opt;
	struct run_opts sub;          /* opt with the remaining budget as timeout */
	double budget, t0;
	bool quiet, progress, force, driver;
	struct stage st[MAX_STAGES];
	int nst;
	int ngpus;                    /* from topo */
	struct p2p_run *p2p;          /* kept for the fix candidates */
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static double left(const struct check *c)
{
	return c->budget - (now_s() - c->t0);
}

static void say(const struct check *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct check *c, const char *fmt, ...)
{
	if (c->quiet || !c->progress)
		return;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "[%5.1fs] ", now_s() - c->t0);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static struct stage *stage_begin(struct check *c, const char *name)
{
	struct stage *s = &c->st[c->nst++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->secs = now_s();
	/* workers of this stage keep their default deadlines (or --timeout),
	 * cut to what is left of the budget */
	double l = left(c) > 1 ? left(c) : 1;
	c->sub = *c->opt;
	if (c->sub.timeout > l || (c->sub.timeout <= 0 && l < DEADLINE_QUERY))
		c->sub.timeout = l;
	say(c, "%s ...", name);
	return s;
}

static void stage_end(struct check *c, struct stage *s, struct result *sr, struct result *r)
{
	s->secs = now_s() - s->secs;
	if (sr) {
		int code = result_exit_code(sr);
		s->failed = sr->error != NULL;
		snprintf(s->result, sizeof(s->result), "%s", sr->error ? sr->error
							 : code == 2	    ? "problem found"
							 : code == 1	    ? "warnings"
									    : "ok");
		result_absorb(r, sr, s->name);
	}
	say(c, "%s: %s (%.1f s)", s->name, s->result, s->secs);
}

static void stage_skip(struct check *c, const char *name, const char *why)
{
	struct stage *s = &c->st[c->nst++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->skipped = true;
	snprintf(s->result, sizeof(s->result), "skipped: %s", why);
	say(c, "%s: %s", name, s->result);
}

/* ---- stages ------------------------------------------------------------- */

/* Returns whether neither a GPU nor a driver is here (decided finally after
 * topo: NVML may answer all the same). */
static bool run_sys(struct check *c, struct result *r)
{
	struct stage *s = stage_begin(c, "sys");
	struct result *sr = result_new("sys");
	struct sys_ctx ctx;
	sys_ctx_probe(&ctx);
	sys_run(sr, &ctx);
	bool nothing = sys_no_nvidia_here(ctx.pci_err ? NULL : &ctx.pci, &ctx.drv);
	if (ctx.host.hostname[0])
		section_add(result_section(r, "check", "Check"), "host", "host", val_str(ctx.host.hostname));
	sys_ctx_release(&ctx);
	stage_end(c, s, sr, r);
	return nothing;
}

static void run_topo(struct check *c, struct result *r)
{
	struct stage *s = stage_begin(c, "topo");
	struct result *tr = result_new("topo");
	struct topo_params tp = {
		.ask_driver = sysroot_is_live() || c->driver,
		.gpus = &c->opt->gpus,
		.deadline = opt_deadline(&c->sub, DEADLINE_QUERY),
	};
	topo_collect(tr, &tp);
	c->ngpus = tr->topo ? (int)tr->topo->n : 0;
	stage_end(c, s, tr, r);
}

static void run_kernel(struct check *c, struct result *r)
{
	struct stage *s = stage_begin(c, "kernel");
	struct result *kr = result_new("kernel");
	kernel_collect(kr, &c->sub, 0, NULL, 0, left(c) < INPUT_TIMEOUT_DEFAULT ? left(c) : INPUT_TIMEOUT_DEFAULT);
	stage_end(c, s, kr, r);
}

static void run_p2p(struct check *c, struct result *r)
{
	if (!sysroot_is_live() && !c->driver) {
		stage_skip(c, "p2p", "a recorded sysroot has no GPUs to test (--driver tests this machine's)");
		return;
	}
	/* NVML missing, failing or hung in topo: p2p would wait for it again */
	bool nvml_ok = r->topo && r->topo->from_nvml && !finding_get(r, FID_NVML_NOT_AVAILABLE);
	if (c->ngpus < 1 || !nvml_ok) {
		stage_skip(c, "p2p", c->ngpus < 1 ? "no GPU to test" : "the driver did not answer topo's NVML query");
		return;
	}
	if (left(c) < 5) {
		stage_skip(c, "p2p", "the budget is spent");
		return;
	}
	struct stage *s = stage_begin(c, "p2p");
	struct result *pr = result_new("p2p");
	c->p2p = p2p_run_new(&c->sub);
	c->p2p->quick = true;
	c->p2p->force = c->force;
	c->p2p->quiet = c->quiet || !c->progress;
	p2p_execute(pr, c->p2p);
	stage_end(c, s, pr, r);
	/* "p2p" is topo's member (NVML's P2P status per ordered pair) in JSON:
	 * the p2p stage's own members (gpus, pairs, ...) go under "p2p_test" */
	json_t *x = json_object_get(r->extra, "p2p");
	if (x) {
		json_object_set(r->extra, "p2p_test", x);
		json_object_del(r->extra, "p2p");
	}
}

/* ---- verdict ------------------------------------------------------------ */

/* Cause classes ranked from every stage's findings (noisy-or of 0.6 per
 * error and 0.25 per warning), each with the findings as its evidence. */
static void rank_causes(struct result *r, bool failed)
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
		if (f->sev < SEV_WARNING || !f->cause || strcmp(f->cause, "unknown") == 0)
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
		acc[k].conf = 1 - (1 - acc[k].conf) * (1 - w);
		if (acc[k].n < 6)
			acc[k].idx[acc[k].n++] = (int)i;
	}
	if (na == 0)
		return;
	for (int i = 1; i < na; i++) /* best first, stable */
		for (int j = i; j > 0 && acc[j - 1].conf < acc[j].conf; j--) {
			struct acc t = acc[j];
			acc[j] = acc[j - 1];
			acc[j - 1] = t;
		}
	struct cause_list *cl = result_causes(r, "Causes (best first)");
	cl->failed = failed;
	for (int k = 0; k < na; k++) {
		struct cause *x = cause_list_add(cl, acc[k].cause, round(fmin(acc[k].conf, 0.97) * 100) / 100);
		for (int e = 0; e < acc[k].n; e++) {
			const struct finding *f = r->findings[acc[k].idx[e]];
			cause_add_evidence(x, NULL, 0, f->title);
			cause_add_finding(x, f->id);
		}
	}
}

static enum fixc_link link_of(const struct p2p_link *l)
{
	switch (l->cls) {
	case PC_NV: return FIXC_NVL;
	case PC_PIX: return FIXC_PIX;
	case PC_PXB: return FIXC_PXB;
	case PC_PHB:
	case PC_NODE: return FIXC_PHB;
	case PC_SYS: return FIXC_SYS;
	default: return FIXC_LINK_NONE;
	}
}

/* When GPU pairs broke: the configurations to try, fastest expected first,
 * and the first one that avoids the broken pairs in the usual forms. */
static void fix_advice(struct check *c, struct result *r)
{
	struct p2p_run *p = c->p2p;
	if (!p || !p->res || p->n < 2)
		return;
	struct fixc_input in = { .ngpus = p->n < FIXC_MAX_GPUS ? p->n : FIXC_MAX_GPUS };
	bool broken = false;
	for (int a = 0; a < in.ngpus; a++)
		for (int b = 0; b < in.ngpus; b++) {
			in.link[a][b] = a == b ? FIXC_LINK_NONE : link_of(&p->link[a][b]);
			if (a == b || !p->pair_run[a][b])
				continue;
			enum p2p_status st = pres(p, a, b)->status;
			bool bad = st == P2P_HANG || st == P2P_CORRUPT || st == P2P_ERROR;
			in.pair[a][b] = bad ? FIXC_PAIR_BROKEN : FIXC_PAIR_OK;
			broken |= bad;
		}
	if (!broken)
		return;
	in.shm_small = finding_get(r, FID_SHM_TOO_SMALL) || finding_get(r, FID_SHM_NOT_MOUNTED);
	struct fix_candidate cand[FIXC_MAX];
	int n = fixc_candidates(&in, cand);
	static const struct column cols[] = {
		{ "configuration", "configuration", 0 }, { "expected", "keeps (expected)", 0 }, { "why", "why", 0 },
	};
	struct section *s = result_section(r, "fix", "What to try (fastest expected first)");
	struct table *t = section_table(s, "candidates", NULL, cols, 3);
	const struct fix_candidate *first = NULL;
	for (int i = 0; i < n; i++) {
		size_t row = table_add_row(t);
		table_set(t, row, "configuration", val_str(cand[i].name));
		char pct[16];
		snprintf(pct, sizeof(pct), "~%.0f%%", cand[i].expected * 100);
		table_set(t, row, "expected", val_with_display(val_double(round(cand[i].expected * 100) / 100), pct));
		table_set(t, row, "why", val_str(cand[i].why));
		/* pairs broke: the first candidate that takes them off P2P and can
		 * work here (not one that needs a /dev/shm that is too small) */
		if (!first && cand[i].avoids_p2p_faults && !(in.shm_small && cand[i].needs_shm))
			first = &cand[i];
	}
	section_note(s, "not tried here: these are ranked from the pairs that broke; a configuration is proven "
			"only when the job (or a collective benchmark) runs with it");
	if (!first)
		return;
	struct fix_plan plan = { .p2p_broken = broken };
	for (int k = 0; k < first->nenv; k++)
		fix_plan_setenv(&plan, first->env[k].name, first->env[k].value);
	static const enum fix_form forms[] = { FIX_FORM_SHELL, FIX_FORM_DOCKER, FIX_FORM_K8S, FIX_FORM_VLLM };
	for (size_t k = 0; k < sizeof(forms) / sizeof(forms[0]); k++) {
		struct strbuf sb;
		strbuf_init(&sb, 1 << 14);
		if (fix_emit(&plan, forms[k], &sb) == 0) {
			section_note(s, "%s (%s):", fix_form_name(forms[k]), first->name);
			char *save = NULL, *text = strbuf_detach(&sb);
			for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
				section_note(s, "    %s", line);
			free(text);
		}
		strbuf_release(&sb);
	}
}

static const char *verdict(struct check *c, struct result *r)
{
	int code = result_exit_code(r);
	bool incomplete = finding_get(r, FID_GPU_BUSY_SKIPPED) != NULL;
	for (int i = 0; i < c->nst; i++)
		incomplete |= c->st[i].skipped || c->st[i].failed;
	if (code >= 2)
		return "BROKEN";
	if (incomplete)
		return "INCOMPLETE";
	return code == 1 ? "DEGRADED" : "HEALTHY";
}

static void stages_table(struct check *c, struct result *r)
{
	static const struct column cols[] = {
		{ "stage", "stage", 0 }, { "seconds", "time", 0 }, { "result", "result", 0 },
	};
	struct section *s = result_section(r, "check", "Check");
	struct table *t = section_table(s, "stages", "Stages", cols, 3);
	for (int i = 0; i < c->nst; i++) {
		size_t row = table_add_row(t);
		table_set(t, row, "stage", val_str(c->st[i].name));
		char tx[32];
		snprintf(tx, sizeof(tx), "%.2f s", c->st[i].secs);
		table_set(t, row, "seconds", c->st[i].skipped ? val_none() : val_with_display(val_double(c->st[i].secs), tx));
		table_set(t, row, "result", val_str(c->st[i].result));
		if (c->st[i].failed || c->st[i].skipped)
			table_mark(t, row, "result", MARK_WARN);
	}
}

static int parse_options(int argc, char **argv, struct check *c)
{
	static const struct option opts[] = {
		{ "budget", required_argument, NULL, 'b' }, { "force", no_argument, NULL, 'f' },
		{ "quiet", no_argument, NULL, 'q' },        { "progress", no_argument, NULL, 'p' },
		{ "driver", no_argument, NULL, 'd' },       { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	bool progress = false;
	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			if (parse_double(optarg, &c->budget) < 0 || !isfinite(c->budget) || c->budget < 5 || c->budget > 86400)
				return cmd_usage_error("check", "--budget wants seconds between 5 and 86400, not '%s'", optarg);
			break;
		case 'f': c->force = true; break;
		case 'd': c->driver = true; break;
		case 'q': c->quiet = true; break;
		case 'p': progress = true; break;
		case 'h': usage(stdout); return 0;
		default: return cmd_usage_error("check", "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cmd_usage_error("check", "unexpected argument '%s'", argv[optind]);
	c->progress = progress || isatty(STDERR_FILENO);
	return -1;
}

int cmd_check(int argc, char **argv, const struct run_opts *opt)
{
	struct check c = { .opt = opt, .budget = 90 };
	int rc = parse_options(argc, argv, &c);
	if (rc >= 0)
		return rc;
	c.t0 = now_s();
	struct result *r = result_new("check");
	bool nothing = run_sys(&c, r);
	run_topo(&c, r);
	if (nothing && c.ngpus == 0) {
		/* nothing to check: say only that, not the host report */
		result_free(r);
		r = result_new("check");
		result_set_error(r, "%s", NO_NVIDIA_TEXT);
		json_object_set_new(r->extra, "verdict", json_string("NOTHING_TO_CHECK"));
		return cmd_finish(r, opt);
	}
	if (left(&c) > 1)
		run_kernel(&c, r);
	else
		stage_skip(&c, "kernel", "the budget is spent");
	run_p2p(&c, r);
	stages_table(&c, r);
	const char *v = verdict(&c, r);
	cmd_order(r);
	rank_causes(r, strcmp(v, "BROKEN") == 0);
	fix_advice(&c, r);
	const struct cause *top = r->causes && r->causes->n ? &r->causes->v[0] : NULL;
	if (top && strcmp(v, "HEALTHY") != 0)
		result_set_headline(r, "%s: %d GPU%s, %.1f s; most likely cause %s (%.2f)", v, c.ngpus, c.ngpus == 1 ? "" : "s",
				    now_s() - c.t0, top->cause, top->confidence);
	else
		result_set_headline(r, "%s: %d GPU%s, %.1f s", v, c.ngpus, c.ngpus == 1 ? "" : "s", now_s() - c.t0);
	json_object_set_new(r->extra, "verdict", json_string(v));
	r->verdict = v; /* a string literal of verdict() */
	json_object_set_new(r->extra, "elapsed_s", json_real(round((now_s() - c.t0) * 100) / 100));
	if (c.p2p)
		p2p_run_free(c.p2p);
	return cmd_finish(r, opt);
}
