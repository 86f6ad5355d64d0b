/* The p2p engine, run by `nccl-doctor p2p` (cmd/p2p.c: its options) and
 * by the p2p stage of check and fix (engine/stages.c): p2p.c (the phases:
 * facts, busy check, per-GPU numbers, pair function tests, NCCL,
 * bandwidth), p2p_show.c (sections, matrices, JSON) and p2p_why.c (the join
 * with `sys`: the PCI path of a broken pair, ACS, IOMMU, VM; findings and
 * fixes). */
#ifndef ND_ENGINE_P2P_H
#define ND_ENGINE_P2P_H
#include "analyze/p2p.h"
#include "analyze/user_env.h"
#include "engine/engine.h"
#include "engine/user_env_run.h"
#include "model/machine.h"
#include "model/result.h"
#include "run/worker.h"
#include "util/progress.h"
#include "util/strbuf.h"

struct pgpu {
	int index;                 /* NVML index = CUDA ordinal in PCI order */
	char bdf[PCI_BDF_LEN + 16];
	const char *name, *uuid;   /* borrowed from the nvml-topo result */
	int cc_major;              /* 0 unknown */
	int gen, width;            /* PCIe max generation, current width */
	bool selected;             /* --gpus */
	bool busy;                 /* compute processes on it */
	char busy_why[256];
	bool wedged;               /* utilisation with no process after a hang */
	char wedged_after[64];     /* the pair whose hang preceded it */
	bool lost;
	/* per-GPU numbers (full mode) */
	bool measured;
	enum p2p_status status;    /* of the per-GPU test */
	char detail[200];
	double ce, sm, h2d, d2h;   /* GB/s, 0 when not measured */
	bool slow;
};

#define P2P_PLAN_FLOOR 5.0       /* the shortest round deadline the planner gives, s */
#define P2P_PLAN_SHORT 3.0       /* the shortest deadline of a pair whose class hung, s */

struct p2p_run {
	const struct run_opts *opt;
	bool quick, force, no_nccl;
	struct progress prog;      /* progress lines (util/progress.h): the caller's command and start; out NULL: none */
	long long fsize, bsize, gsize, reps;
	json_t *topo, *cuda, *procs; /* worker results (owned references) */
	const char *driver;
	struct pgpu g[P2P_MAX_GPUS];
	int n;
	int tested[P2P_MAX_GPUS];  /* positions of the GPUs whose pairs run */
	int ntested;
	struct link link[P2P_MAX_GPUS][P2P_MAX_GPUS];
	char nvml_p2p[P2P_MAX_GPUS][P2P_MAX_GPUS][32]; /* NVML read status text */
	json_t *nvml_caps[P2P_MAX_GPUS][P2P_MAX_GPUS]; /* NVML read/write/nvlink/atomics (borrowed from topo) */
	struct p2p_result *res;    /* n x n, res[a * n + b] for a -> b */
	bool pair_run[P2P_MAX_GPUS][P2P_MAX_GPUS];
	json_t *workers;           /* summaries of every worker run */
	/* the GPU workers' environment: PCI order, and every GPU by UUID in
	 * NVML's order so that CUDA ordinal k is NVML GPU k whatever
	 * CUDA_VISIBLE_DEVICES the caller has */
	char visible[P2P_MAX_GPUS * 100];
	const char *env[3];
	/* NCCL's send/recv could not start because of a variable the user set
	 * (engine/user_env_run.h): not a fault of the pairs; the first hit */
	struct uenv_run uenv;      /* the user's NCCL_* and CUDA_* variables (loaded by p2p_execute) */
	struct uenv_hit nccl_env;
	int nccl_env_pairs;        /* pairs whose NCCL step it stopped */
	double t_start, t_gpus, t_func, t_bw;
	int rounds;
	/* the budget planner's part (check): budget 0 keeps every worker's
	 * default deadline. With a budget the rounds share it (a round's
	 * deadline is what is left over the rounds left, at least
	 * P2P_PLAN_FLOOR s), a pair whose link class already hung gets a short
	 * deadline, and when the default deadlines cannot fit, NCCL is tested
	 * on one pair per link class; the plan says what it shortened. */
	double budget;
	struct p2p_plan {
		bool nccl_per_class;   /* one NCCL pair test per link class */
		int nccl_skipped;      /* pairs whose NCCL test that left out */
		int shortened;         /* pairs tested under a deadline shortened after their class hung */
		double first_deadline; /* the first round's deadline, s */
		double min_deadline;   /* the shortest deadline any pair got, s */
		double short_deadline; /* the deadline of pairs of a class that hung, s (0 none) */
	} plan;
	/* the machine model (collect/): the driver's answers and the facts
	 * for the join with sys; NULL until p2p_execute, which makes its own
	 * when the caller gave none */
	struct machine *mach;
	bool own_mach;
	const struct pci_list *pci; /* mach's */
	bool have_pci;
	const struct host_facts *host; /* mach's */
	bool have_host;
};

static inline struct p2p_result *pres(struct p2p_run *p, int a, int b)
{
	return &p->res[a * p->n + b];
}

/* A run with the default sizes (p2p.c); set quick/force (and mach, to share
 * a machine model with other stages) before executing. */
struct p2p_run *p2p_run_new(const struct run_opts *opt);
/* The phases into r: facts, busy check, per-GPU numbers (full), pair
 * function tests, NCCL, bandwidth (full), sections and findings. `check`
 * calls it with quick set. */
void p2p_execute(struct result *r, struct p2p_run *p);
void p2p_run_free(struct p2p_run *p);

/* a progress line on stderr, in the one style (util/progress.h), when shown */
void p2p_progress(const struct p2p_run *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* p2p_show.c */
void p2p_show(struct result *r, struct p2p_run *p);
/* p2p_why.c: findings for broken, slow and skipped pairs and GPUs */
void p2p_findings(struct result *r, struct p2p_run *p);

#endif
