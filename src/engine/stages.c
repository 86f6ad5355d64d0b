/* The stages `check` and `fix` share (engine/stages.h): sys, topo, kernel and
 * p2p --quick, timed, inside one budget. */
#include "engine/stages.h"
#include "analyze/sys.h"
#include "analyze/topo.h"
#include "analyze/worker_findings.h"
#include "collect/collect.h"
#include "engine/kernel.h"
#include "kb/findings.h"
#include "report/report.h"
#include "util/input.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

double stages_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

void stages_init(struct stages *c, const char *cmd, const struct run_opts *opt, double budget)
{
	memset(c, 0, sizeof(*c));
	c->cmd = cmd;
	c->opt = opt;
	c->sub = *opt;
	c->budget = budget;
	c->t0 = stages_now();
	machine_init(&c->mach);
}

void stages_release(struct stages *c)
{
	if (c->p2p)
		p2p_run_free(c->p2p);
	c->p2p = NULL;
	machine_release(&c->mach);
}

double stages_left(const struct stages *c)
{
	return c->budget - (stages_now() - c->t0);
}

void stages_say(const struct stages *c, const char *fmt, ...)
{
	if (!progress_wanted(c->quiet, c->progress, false))
		return;
	struct progress p = c->prog; /* its counter; the command and start of now */
	p.out = stderr, p.command = c->cmd, p.t0 = c->t0;
	va_list ap;
	va_start(ap, fmt);
	progress_vsay(&p, fmt, ap);
	va_end(ap);
}

struct stage *stage_begin(struct stages *c, const char *name)
{
	struct stage *s = &c->st[c->nst < STAGES_MAX ? c->nst++ : STAGES_MAX - 1];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->secs = stages_now();
	/* workers of this stage keep their default deadlines (or --timeout),
	 * cut to what is left of the budget */
	double l = stages_left(c) > 1 ? stages_left(c) : 1;
	c->sub = *c->opt;
	if (c->sub.timeout > l || (c->sub.timeout <= 0 && l < DEADLINE_QUERY))
		c->sub.timeout = l;
	progress_uncount(&c->prog); /* a stage counts its own work, if known */
	stages_say(c, "%s ...", name);
	return s;
}

void stage_end(struct stages *c, struct stage *s, struct result *sr, struct result *r)
{
	s->secs = stages_now() - s->secs;
	if (sr) {
		int code = result_exit_code(sr);
		s->failed = sr->error != NULL;
		if (sr->error || code == 0) {
			snprintf(s->result, sizeof(s->result), "%s", sr->error ? sr->error : "ok");
		} else { /* "problem: P2P_HANG", "warnings: A, B": the findings list says what each is */
			enum severity worst = code == 2 ? SEV_ERROR : SEV_WARNING;
			int n = 0;
			size_t len = 0;
			for (size_t i = 0; i < sr->nfindings; i++)
				n += sr->findings[i]->sev == worst;
			len = (size_t)snprintf(s->result, sizeof(s->result), "%s%s:", worst == SEV_ERROR ? "problem" : "warning",
					       n == 1 ? "" : "s");
			for (size_t i = 0, k = 0; i < sr->nfindings && len < sizeof(s->result); i++)
				if (sr->findings[i]->sev == worst)
					len += (size_t)snprintf(s->result + len, sizeof(s->result) - len, "%s %s", k++ ? "," : "",
								sr->findings[i]->id);
		}
		result_absorb(r, sr, s->name);
	}
	stages_say(c, "%s: %s (%.1f s)", s->name, s->result, s->secs);
}

void stage_skip(struct stages *c, const char *name, const char *why)
{
	struct stage *s = &c->st[c->nst < STAGES_MAX ? c->nst++ : STAGES_MAX - 1];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->skipped = true;
	snprintf(s->result, sizeof(s->result), "skipped: %s", why);
	stages_say(c, "%s: %s", name, s->result);
}

bool stages_sys(struct stages *c, struct result *r)
{
	struct stage *s = stage_begin(c, "sys");
	struct result *sr = result_new("sys");
	collect_sys(&c->mach);
	struct sys_ctx ctx;
	sys_ctx_init(&ctx, &c->mach);
	sys_run(sr, &ctx);
	bool nothing = sys_no_nvidia_here(ctx.pci_err ? NULL : ctx.pci, ctx.drv);
	if (ctx.host->hostname[0])
		section_add(result_section(r, c->cmd, c->cmd[0] == 'c' ? "Check" : "Fix"), "host", "host",
			    val_str(ctx.host->hostname));
	/* an interface for NCCL_SOCKET_IFNAME: physical, up, not loopback */
	for (size_t i = 0; i < ctx.net->nifs && !c->good_ifname[0]; i++) {
		const struct net_if *f = &ctx.net->ifs[i];
		if (net_if_up(f) && !f->is_loopback && !f->is_virtual && strlen(f->name) < 16)
			str_copy(c->good_ifname, f->name, sizeof(c->good_ifname));
	}
	c->has_ib = ctx.has_ib;
	c->shm_small = finding_get(sr, FID_SHM_TOO_SMALL) || finding_get(sr, FID_SHM_NOT_MOUNTED);
	stage_end(c, s, sr, r);
	return nothing;
}

void stages_topo(struct stages *c, struct result *r)
{
	struct stage *s = stage_begin(c, "topo");
	struct result *tr = result_new("topo");
	struct topo_params tp = {
		.ask_driver = sysroot_is_live() || c->driver,
		.gpus = &c->opt->gpus,
	};
	collect_pci(&c->mach);
	collect_driver(&c->mach);
	if (tp.ask_driver)
		collect_gpus(&c->mach, opt_deadline(&c->sub, DEADLINE_QUERY));
	topo_run(tr, &tp, &c->mach);
	c->ngpus = tr->topo ? (int)tr->topo->n : 0;
	stage_end(c, s, tr, r);
}

void stages_kernel(struct stages *c, struct result *r)
{
	if (stages_left(c) <= 1) {
		stage_skip(c, "kernel", "the budget is spent");
		return;
	}
	struct stage *s = stage_begin(c, "kernel");
	struct result *kr = result_new("kernel");
	kernel_collect(kr, &c->sub, 0, NULL, 0,
		       stages_left(c) < INPUT_TIMEOUT_DEFAULT ? stages_left(c) : INPUT_TIMEOUT_DEFAULT, &c->mach);
	stage_end(c, s, kr, r);
}

void stages_p2p(struct stages *c, struct result *r)
{
	if (!sysroot_is_live() && !c->driver) {
		stage_skip(c, "p2p", "a recorded sysroot has no GPUs to test (--driver tests this machine's)");
		return;
	}
	/* NVML missing, failing or hung in topo: p2p would wait for it again */
	bool nvml_ok = r->topo && r->topo->from_nvml && !finding_get(r, FID_NVML_NOT_AVAILABLE);
	if (c->ngpus < 1 || !nvml_ok) {
		stage_skip(c, "p2p", c->ngpus < 1 ? "no GPU to test"
				     : finding_get(r, FID_NVML_NOT_AVAILABLE) ? NVML_LIB_TEXT " is missing: GPU pairs cannot be tested"
				     : finding_get(r, FID_NVML_HANG)	      ? "the driver did not answer topo's NVML query"
									      : "NVML failed in topo's query");
		return;
	}
	if (stages_left(c) < 5) {
		stage_skip(c, "p2p", "the budget is spent");
		return;
	}
	struct stage *s = stage_begin(c, "p2p");
	struct result *pr = result_new("p2p");
	c->p2p = p2p_run_new(&c->sub);
	c->p2p->mach = &c->mach; /* topo's NVML and CUDA answers, the PCI tree and host facts */
	/* the budget planner: p2p's rounds share what the later stages leave
	 * (at most 60 % of what is left goes to them) */
	double left = stages_left(c), reserve = c->reserve < 0.6 * left ? c->reserve : 0.6 * left;
	c->p2p->budget = left - reserve > 1 ? left - reserve : 1;
	c->p2p->quick = true;
	c->p2p->force = c->force;
	progress_init(&c->p2p->prog, c->cmd, c->t0, progress_wanted(c->quiet, c->progress, false) ? stderr : NULL);
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

void stages_table(struct stages *c, struct result *r, const char *key, const char *title)
{
	static const struct column cols[] = {
		{ "stage", "stage", 0 }, { "seconds", "time", 0 }, { "result", "result", 0 },
	};
	struct section *s = result_section(r, key, title);
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
