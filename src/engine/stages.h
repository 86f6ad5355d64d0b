/* The stages `check` and `fix` share: sys (host facts, no GPU work), topo
 * (NVML and CUDA workers), kernel (the kernel log since boot) and p2p --quick
 * (every GPU pair tested for real), each into its own result that is then
 * absorbed into the command's report (model/result_absorb), timed, within
 * one time budget (a stage that would start past it is skipped), with a
 * progress line per stage on stderr. Also what later stages need from them:
 * the GPUs, the p2p run (pairs, link classes, busy GPUs) and a network
 * interface that is up for bootstrap. Every stage reads the one machine
 * model (c->mach, collect/): the PCI tree is read once and the NVML and CUDA
 * workers run once, whatever number of stages use their answers. */
#ifndef ND_ENGINE_STAGES_H
#define ND_ENGINE_STAGES_H
#include "engine/engine.h"
#include "engine/p2p.h"
#include "model/machine.h"
#include "util/progress.h"

#include <stdbool.h>

#define STAGES_MAX 10

struct stage {
	const char *name;
	double secs;
	char result[160];
	bool skipped, failed;
};

struct stages {
	const char *cmd;              /* "check" or "fix" */
	const struct run_opts *opt;
	struct run_opts sub;          /* opt with the remaining budget as timeout */
	double budget, t0;
	bool quiet, progress, force, driver;
	struct progress prog;         /* the counter of the work under way (util/progress.h); stages_say prints */
	struct stage st[STAGES_MAX];
	int nst;
	int ngpus;                    /* from topo */
	struct p2p_run *p2p;          /* kept for the fix candidates; NULL when p2p did not run */
	char good_ifname[64];         /* sys: the first physical interface that is up, "" none */
	bool has_ib;
	bool shm_small;               /* sys: /dev/shm too small or missing */
	double reserve;               /* seconds the stages after p2p need (check: bench and fix); p2p plans within the rest */
	struct machine mach;          /* the facts every stage shares, each gathered once (collect/) */
};

void stages_init(struct stages *c, const char *cmd, const struct run_opts *opt, double budget);
void stages_release(struct stages *c);
double stages_now(void);
/* Seconds left of the budget. */
double stages_left(const struct stages *c);
/* A progress line "nccl-doctor CMD [  1.2s] ..." (util/progress.h, with the
 * counter of c->prog) on stderr unless quiet or not wanted. */
void stages_say(const struct stages *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A stage of one's own: begin sets c->sub (opt's deadlines cut to what is
 * left of the budget); end records the time and absorbs sr (may be NULL:
 * then set s->result yourself) into r under the stage's name. */
struct stage *stage_begin(struct stages *c, const char *name);
void stage_end(struct stages *c, struct stage *s, struct result *sr, struct result *r);
void stage_skip(struct stages *c, const char *name, const char *why);

/* sys: returns whether neither a GPU nor a driver is here (decided finally
 * after topo: NVML may answer all the same). */
bool stages_sys(struct stages *c, struct result *r);
void stages_topo(struct stages *c, struct result *r);
void stages_kernel(struct stages *c, struct result *r);
void stages_p2p(struct stages *c, struct result *r);
/* The "stages" table of section "check" (key) with each stage's time. */
void stages_table(struct stages *c, struct result *r, const char *key, const char *title);

#endif
