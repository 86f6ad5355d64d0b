/* NCCL log analysis: turns the model of nccllog.c into findings, ranked
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
#include "analyze/nccllog.h"
#include "kb/causes.h"
#include "kb/findings.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CAUSE_EV 5
#define MAX_CAUSE_FIDS 8

struct cause_ev {
	int file;
	uint64_t line;
	const char *text;
};

struct cause_acc {
	const char *cause;
	double conf;
	struct cause_ev ev[MAX_CAUSE_EV];
	int nev;
	const char *fids[MAX_CAUSE_FIDS];
	int nfids;
};

struct ana {
	const struct nccllog *lg;
	struct result *r;
	const struct nccl_signature *sigs;
	size_t nsigs;
	struct cause_acc causes[32];
	int ncauses;
	bool have_root;        /* a root failure with weight >= 0.5 */
	bool have_any_root;
	bool have_secondary;
	bool have_hang;
	const struct nl_event *first; /* first root failure */
};

static const char *file_name(const struct nccllog *lg, int file)
{
	if (file < 0 || file >= lg->nfiles)
		return NULL;
	return lg->files[file].name;
}

static struct cause_acc *cause_get(struct ana *a, const char *cause)
{
	for (int i = 0; i < a->ncauses; i++)
		if (strcmp(a->causes[i].cause, cause) == 0)
			return &a->causes[i];
	if (a->ncauses >= 32)
		return NULL;
	struct cause_acc *c = &a->causes[a->ncauses++];
	memset(c, 0, sizeof(*c));
	c->cause = cause;
	return c;
}

/* Adds weight w to a cause (noisy-or), with the finding id (FID_COUNT: none). */
static struct cause_acc *contribute(struct ana *a, const char *cause, double w, enum finding_id id)
{
	const char *fid = id < FID_COUNT ? kb_finding_def(id)->id : NULL;
	if (w <= 0)
		return NULL;
	struct cause_acc *c = cause_get(a, cause);
	if (!c)
		return NULL;
	c->conf = 1.0 - (1.0 - c->conf) * (1.0 - w);
	if (c->conf > 0.97)
		c->conf = 0.97;
	if (fid) {
		bool have = false;
		for (int i = 0; i < c->nfids; i++)
			if (strcmp(c->fids[i], fid) == 0)
				have = true;
		if (!have && c->nfids < MAX_CAUSE_FIDS)
			c->fids[c->nfids++] = fid;
	}
	return c;
}

static void cause_evidence(struct cause_acc *c, int file, uint64_t line, const char *text)
{
	if (!c || c->nev >= MAX_CAUSE_EV)
		return;
	for (int i = 0; i < c->nev; i++)
		if (c->ev[i].file == file && c->ev[i].line == line)
			return;
	c->ev[c->nev].file = file;
	c->ev[c->nev].line = line;
	c->ev[c->nev].text = text;
	c->nev++;
}

static const char *proc_label(const struct nccllog *lg, int pi, char *buf, size_t bufsz)
{
	if (pi < 0) {
		snprintf(buf, bufsz, "unattributed");
		return buf;
	}
	const struct nl_proc *p = &lg->procs[pi];
	const struct nl_comm *c = nl_proc_main_comm(p);
	int rank = c && c->rank >= 0 ? c->rank : p->prank;
	if (rank >= 0)
		snprintf(buf, bufsz, "rank %d (%s:%ld)", rank, p->host, p->pid);
	else
		snprintf(buf, bufsz, "%s:%ld", p->host, p->pid);
	return buf;
}

static int stage_of(const struct nl_proc *p)
{
	int s = nl_proc_stage(p);
	return s < 0 && p->nlines > 0 ? 0 : s;
}

/* NCCL version as a number (2.21.5 -> 22105), 0 when unknown. */
static int version_code(const char *v)
{
	int a = 0, b = 0, c = 0;
	if (sscanf(v, "%d.%d.%d", &a, &b, &c) < 2)
		return 0;
	return a * 10000 + b * 100 + c;
}

/* Stage for the hang verdict: after Init COMPLETE, a rank whose transports
 * were connected during init (NCCL < 2.22, NCCL_RUNTIME_CONNECT=0) has
 * nothing left to connect, so a hang there is in the data path (T10). */
static int hang_stage(const struct nl_proc *p)
{
	int s = stage_of(p);
	if (s != 9 || !p->ncomms)
		return s;
	const struct nl_comm *c = &p->comms[p->ncomms - 1];
	int v = version_code(p->version);
	if (c->conn_in_init || (v && v < 22200) || c->nranks == 1)
		return 10;
	return s;
}

static const char *stage_code(int s, char *buf, size_t bufsz)
{
	if (s < 0)
		snprintf(buf, bufsz, "-");
	else
		snprintf(buf, bufsz, "T%d", s);
	return buf;
}

/* Who logged an event: its process, else the launcher's rank prefix. */
static const char *event_label(const struct nccllog *lg, const struct nl_event *e, char *buf, size_t bufsz)
{
	if (e->proc < 0 && e->prank >= 0) {
		snprintf(buf, bufsz, "rank %d", e->prank);
		return buf;
	}
	if (e->proc < 0) {
		snprintf(buf, bufsz, "no rank");
		return buf;
	}
	return proc_label(lg, e->proc, buf, bufsz);
}

/* Earlier of two events: NCCL timestamps when both have one, else order
 * within one file, else reading order. */
static bool event_before(const struct nl_event *x, const struct nl_event *y)
{
	if (x->ts && y->ts && x->ts != y->ts)
		return x->ts < y->ts;
	if (x->file == y->file)
		return x->line < y->line;
	return x->seq < y->seq;
}

static int procs_with_sig(const struct nccllog *lg, int sig)
{
	int n = 0;
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].sighits[sig / 64] & (1ULL << (sig % 64)))
			n++;
	return n;
}

static uint32_t count_of(const struct ana *a, const char *id)
{
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++)
		if (strcmp(a->sigs[s].id, id) == 0)
			return a->lg->sigcount[s];
	return 0;
}

/* A process that logged a failure of its own (root or consequence). */
static bool proc_failed(const struct ana *a, const struct nl_proc *p)
{
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++)
		if ((p->sighits[s / 64] & (1ULL << (s % 64))) &&
		    (a->sigs[s].role == NSR_ROOT || a->sigs[s].role == NSR_SECONDARY))
			return true;
	return false;
}

/* ---- findings from signature matches ----------------------------------- */

static struct finding *finding_for(struct result *r, enum finding_id fid, enum severity sev, const char *title)
{
	struct finding *f = finding_get(r, fid);
	if (f)
		return f;
	f = finding_add(r, fid, sev, "%s", title);
	const struct finding_def *d = kb_finding_def(fid);
	if (d->fix)
		finding_fix(f, "note", NULL, "%s", d->fix);
	return f;
}

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
		const struct finding_def *d = kb_finding_def(g->fid);
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
		struct finding *f = finding_get(a->r, g->fid);
		if (!f) {
			f = finding_for(a->r, g->fid, sev, title);
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
		const struct finding_def *d = kb_finding_def(a->sigs[a->first->sig].fid);
		if (d)
			cause_evidence(cause_get(a, d->cause), a->first->file, a->first->line, a->first->text);
	}
	for (size_t k = 0; k < 2 * a->nsigs && k < 2 * NL_MAX_SIGS; k++) {
		/* root failures first, so their lines lead each cause's evidence */
		size_t s = k % a->nsigs;
		if (!lg->sigcount[s] || (k < a->nsigs) != (a->sigs[s].role == NSR_ROOT))
			continue;
		const struct nccl_signature *g = &a->sigs[s];
		const struct finding_def *d = kb_finding_def(g->fid);
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
		struct cause_acc *c = contribute(a, d->cause, w, g->fid);
		/* the first failure's line first */
		if (a->first && a->first->sig == (int)s)
			cause_evidence(c, a->first->file, a->first->line, a->first->text);
		for (size_t i = 0; i < lg->nev; i++)
			if (lg->ev[i].sig == (int)s)
				cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
	}
}

/* ---- model checks ---------------------------------------------------------- */

static bool virtual_if(const char *ifaddr)
{
	static const char *pfx[] = { "docker", "virbr", "veth", "lo:", "tailscale", "br-", "cni", "flannel", "lxcbr" };
	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (strncmp(ifaddr, pfx[i], strlen(pfx[i])) == 0)
			return true;
	return strstr(ifaddr, ":fe80") != NULL;
}

static void model_checks(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96], lbl2[96];
	/* NCCL versions */
	int vfirst = -1;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (!p->version[0])
			continue;
		if (vfirst < 0) {
			vfirst = i;
			continue;
		}
		const struct nl_proc *q = &lg->procs[vfirst];
		if (strcmp(p->version, q->version) != 0) {
			struct finding *f = finding_for(a->r, FID_LOG_NCCL_VERSION_MISMATCH, SEV_ERROR, "ranks load different NCCL versions");
			finding_evidence(f, file_name(lg, q->version_file), (long)q->version_line, "%s loads NCCL %s",
					 proc_label(lg, vfirst, lbl, sizeof(lbl)), q->version);
			finding_evidence(f, file_name(lg, p->version_file), (long)p->version_line, "%s loads NCCL %s",
					 proc_label(lg, i, lbl2, sizeof(lbl2)), p->version);
			struct cause_acc *c = contribute(a, "version_mismatch", a->have_root ? 0.5 : 0.75, FID_LOG_NCCL_VERSION_MISMATCH);
			cause_evidence(c, q->version_file, q->version_line, q->version);
			cause_evidence(c, p->version_file, p->version_line, p->version);
			break;
		}
	}
	/* CUDA drivers */
	for (int i = 1; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i], *q = &lg->procs[0];
		if (p->cuda_driver && q->cuda_driver && p->cuda_driver != q->cuda_driver) {
			struct finding *f = finding_for(a->r, FID_LOG_CUDA_DRIVER_DIFFERS, SEV_WARNING, "ranks run on different CUDA driver versions");
			finding_evidence(f, file_name(lg, q->file), 0, "%s: cudaDriverVersion %d", proc_label(lg, 0, lbl, sizeof(lbl)), q->cuda_driver);
			finding_evidence(f, file_name(lg, p->file), 0, "%s: cudaDriverVersion %d", proc_label(lg, i, lbl2, sizeof(lbl2)), p->cuda_driver);
			contribute(a, "version_mismatch", 0.2, FID_LOG_CUDA_DRIVER_DIFFERS);
			break;
		}
	}
	/* two ranks of one communicator on one GPU (same host, same bus id) */
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		for (int ci = 0; ci < p->ncomms; ci++) {
			const struct nl_comm *c = &p->comms[ci];
			if (!c->busid[0] || c->rank < 0)
				continue;
			for (int j = i + 1; j < lg->nprocs; j++) {
				const struct nl_proc *q = &lg->procs[j];
				if (strcmp(p->host, q->host) != 0)
					continue;
				for (int cj = 0; cj < q->ncomms; cj++) {
					const struct nl_comm *d = &q->comms[cj];
					if (d->rank < 0 || d->rank == c->rank || strcmp(d->busid, c->busid) != 0)
						continue;
					if (c->commid[0] ? strcmp(c->commid, d->commid) != 0 : c->nranks != d->nranks)
						continue;
					struct finding *f = finding_for(a->r, FID_LOG_DUPLICATE_GPU, SEV_ERROR, "two ranks use the same GPU");
					finding_evidence(f, file_name(lg, c->file), (long)c->stage_line,
							 "rank %d (%s:%ld) and rank %d (%s:%ld) both on busId %s", c->rank, p->host, p->pid,
							 d->rank, q->host, q->pid, c->busid);
					struct cause_acc *ca = contribute(a, "duplicate_gpu_or_device_mapping", 0.8, FID_LOG_DUPLICATE_GPU);
					cause_evidence(ca, c->file, c->stage_line, "two ranks on one GPU (same busId)");
					goto dup_done;
				}
			}
		}
	}
dup_done:
	/* cudaDev and nvmlDev differ */
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_comm *c = nl_proc_main_comm(&lg->procs[i]);
		if (c && c->cudadev >= 0 && c->nvmldev >= 0 && c->cudadev != c->nvmldev) {
			struct finding *f = finding_for(a->r, FID_LOG_DEVICE_ORDER_DIFFERS, SEV_INFO, "CUDA device order differs from NVML (PCI) order");
			finding_evidence(f, file_name(lg, c->file), 0, "%s: cudaDev %d is nvmlDev %d", proc_label(lg, i, lbl, sizeof(lbl)),
					 c->cudadev, c->nvmldev);
			break;
		}
	}
	/* bootstrap over a virtual interface */
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (p->bootstrap_if[0] && virtual_if(p->bootstrap_if)) {
			bool multinode = false;
			for (int j = 0; j < lg->nprocs; j++)
				if (strcmp(lg->procs[j].host, p->host) != 0)
					multinode = true;
			const struct nl_comm *c = nl_proc_main_comm(p);
			if (c && c->nnodes > 1)
				multinode = true;
			struct finding *f = finding_for(a->r, FID_LOG_BOOTSTRAP_VIRTUAL_IF, multinode ? SEV_WARNING : SEV_INFO,
							"NCCL bootstraps over a virtual or loopback interface");
			finding_evidence(f, file_name(lg, p->file), 0, "%s: Bootstrap: Using %s", proc_label(lg, i, lbl, sizeof(lbl)), p->bootstrap_if);
			if (multinode)
				contribute(a, "bootstrap_network", 0.35, FID_LOG_BOOTSTRAP_VIRTUAL_IF);
			break;
		}
	}
	/* environment: reported overrides, and differences between ranks */
	struct finding *envf = NULL;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		for (int k = 0; k < p->nenv; k++) {
			if (!envf)
				envf = finding_for(a->r, FID_LOG_ENV_OVERRIDE, SEV_INFO, "NCCL variables set by the environment");
			bool seen = false;
			for (int j = 0; j < i && !seen; j++)
				for (int m = 0; m < lg->procs[j].nenv; m++)
					if (strcmp(lg->procs[j].env[m].name, p->env[k].name) == 0 &&
					    strcmp(lg->procs[j].env[m].value, p->env[k].value) == 0)
						seen = true;
			if (!seen && envf->nev < 12)
				finding_evidence(envf, file_name(lg, p->env[k].file), (long)p->env[k].line, "%s=%s (%s)", p->env[k].name,
						 p->env[k].value, proc_label(lg, i, lbl, sizeof(lbl)));
		}
	}
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (stage_of(p) < 3)
			continue;
		for (int j = 0; j < lg->nprocs; j++) {
			const struct nl_proc *q = &lg->procs[j];
			if (j == i || stage_of(q) < 3)
				continue;
			for (int k = 0; k < p->nenv; k++) {
				const char *other = NULL;
				for (int m = 0; m < q->nenv; m++)
					if (strcmp(q->env[m].name, p->env[k].name) == 0)
						other = q->env[m].value;
				if (other && strcmp(other, p->env[k].value) == 0)
					continue;
				struct finding *f = finding_for(a->r, FID_LOG_ENV_DIFFERS, SEV_WARNING, "ranks run with different NCCL variables");
				finding_evidence(f, file_name(lg, p->env[k].file), (long)p->env[k].line, "%s: %s=%s, but %s: %s", proc_label(lg, i, lbl, sizeof(lbl)),
						 p->env[k].name, p->env[k].value, proc_label(lg, j, lbl2, sizeof(lbl2)), other ? other : "not set");
				struct cause_acc *c = contribute(a, "nccl_config_error", 0.35, FID_LOG_ENV_DIFFERS);
				cause_evidence(c, p->env[k].file, p->env[k].line, "NCCL variable differs between ranks");
				goto env_done;
			}
		}
	}
env_done:;
	/* watchdog timeouts that name different collectives */
	for (int i = 1; i < lg->nwd; i++) {
		const struct nl_watchdog *w0 = &lg->wd[0], *w = &lg->wd[i];
		if (w->seq == w0->seq && strcmp(w->optype, w0->optype) == 0)
			continue;
		struct finding *f = finding_for(a->r, FID_LOG_COLLECTIVE_MISMATCH, SEV_ERROR, "ranks timed out in different collectives");
		finding_evidence(f, file_name(lg, w0->file), (long)w0->line, "rank %d waits in %s SeqNum=%lld", w0->rank,
				 w0->optype[0] ? w0->optype : "?", w0->seq);
		finding_evidence(f, file_name(lg, w->file), (long)w->line, "rank %d waits in %s SeqNum=%lld", w->rank,
				 w->optype[0] ? w->optype : "?", w->seq);
		struct cause_acc *c = contribute(a, "collective_mismatch_app_bug", 0.55, FID_LOG_COLLECTIVE_MISMATCH);
		cause_evidence(c, w0->file, w0->line, "watchdog: different collectives on different ranks");
		cause_evidence(c, w->file, w->line, "watchdog: different collectives on different ranks");
		break;
	}
	/* vLLM's own NCCL wrapper against the NCCL that printed the version lines */
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (strcmp(a->sigs[e->sig].id, "VL05") != 0)
			continue;
		const char *v = strstr(e->text, "nccl==");
		if (!v)
			continue;
		v += 6;
		size_t vl = strspn(v, "0123456789.");
		for (int k = 0; k < lg->nprocs; k++) {
			const char *pv = lg->procs[k].version;
			size_t pl = strcspn(pv, "+");
			if (!pv[0] || (pl == vl && strncmp(pv, v, vl) == 0))
				continue;
			struct finding *f = finding_for(a->r, FID_LOG_NCCL_VERSION_MISMATCH, SEV_ERROR, "ranks load different NCCL versions");
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "vLLM: %s", e->text);
			finding_evidence(f, file_name(lg, lg->procs[k].version_file), (long)lg->procs[k].version_line,
					 "%s prints NCCL version %s", proc_label(lg, k, lbl, sizeof(lbl)), pv);
			struct cause_acc *c = contribute(a, "version_mismatch", a->have_root ? 0.3 : 0.45, FID_LOG_NCCL_VERSION_MISMATCH);
			cause_evidence(c, e->file, e->line, e->text);
			i = lg->nev;
			break;
		}
	}
}

/* ---- ranks that never appear ------------------------------------------------ */

struct group {
	const char *commid;  /* "" when not printed */
	int nranks;
	uint8_t *seen;       /* nranks bytes */
	int nseen;
	int min_stage;
};

/* Returns true when ranks are missing; adds the finding. */
static bool missing_ranks(struct ana *a, bool *early)
{
	const struct nccllog *lg = a->lg;
	struct group g[64];
	int ng = 0;
	bool any = false;
	*early = false;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		for (int ci = 0; ci < p->ncomms; ci++) {
			const struct nl_comm *c = &p->comms[ci];
			if (c->nranks <= 0 || c->rank < 0 || c->rank >= c->nranks || c->nranks > 1 << 20)
				continue;
			int k;
			for (k = 0; k < ng; k++)
				if (g[k].nranks == c->nranks && strcmp(g[k].commid, c->commid) == 0)
					break;
			if (k == ng) {
				if (ng >= 64)
					continue;
				g[k].commid = c->commid;
				g[k].nranks = c->nranks;
				g[k].seen = xcalloc((size_t)c->nranks, 1);
				g[k].nseen = 0;
				g[k].min_stage = 99;
				ng++;
			}
			if (!g[k].seen[c->rank]) {
				g[k].seen[c->rank] = 1;
				g[k].nseen++;
			}
			if (c->stage < g[k].min_stage)
				g[k].min_stage = c->stage;
		}
	}
	for (int k = 0; k < ng; k++) {
		if (g[k].nseen < g[k].nranks) {
			any = true;
			if (g[k].min_stage < 5)
				*early = true;
			char list[256] = "";
			size_t len = 0;
			int shown = 0;
			for (int r = 0; r < g[k].nranks && len + 16 < sizeof(list); r++)
				if (!g[k].seen[r]) {
					len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%d", shown ? "," : "", r);
					shown++;
				}
			struct finding *f = finding_for(a->r, FID_LOG_RANKS_MISSING, SEV_WARNING, "ranks of a communicator never appear in the logs");
			finding_evidence(f, NULL, 0, "communicator %s: %d of %d ranks seen; missing rank%s %s",
					 g[k].commid[0] ? g[k].commid : "(no commId)", g[k].nseen, g[k].nranks, shown == 1 ? "" : "s", list);
		}
		free(g[k].seen);
	}
	return any;
}

/* ---- where each rank stopped -------------------------------------------------- */

static void stage_analysis(struct ana *a, bool *failed)
{
	const struct nccllog *lg = a->lg;
	char lbl[96], sc[16];
	int min_stage = 99, max_stage = -1, nincomplete = 0, nlive = 0;
	bool any_cumem = false, any_shm = false, any_p2p = false, pcie = false;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		int s = stage_of(p);
		if (s < 0)
			continue;
		nlive++;
		if (s < min_stage)
			min_stage = s;
		if (s > max_stage)
			max_stage = s;
		if (s < 9)
			nincomplete++;
		for (int t = 0; t < p->ntr; t++) {
			if (strstr(p->tr[t].kind, "CUMEM"))
				any_cumem = true;
			if (strncmp(p->tr[t].kind, "SHM", 3) == 0 || strstr(p->tr[t].kind, "shared memory"))
				any_shm = true;
			if (strncmp(p->tr[t].kind, "P2P", 3) == 0)
				any_p2p = true;
		}
		const struct nl_comm *c = nl_proc_main_comm(p);
		if (c && c->chunksize && c->chunksize < 524288)
			pcie = true;
	}
	bool early_missing = false;
	bool missing = missing_ranks(a, &early_missing);

	/* no NCCL output at all */
	bool watchdog = count_of(a, "PT01") || count_of(a, "PT02");
	if (nlive == 0 && watchdog && !a->have_any_root) {
		/* PyTorch's watchdog only covers collectives: NCCL was up (pytorch#88103) */
		struct finding *f = finding_for(a->r, FID_LOG_HANG_DATA_PATH, SEV_ERROR,
						"a collective never finished (PyTorch watchdog); no NCCL lines to say more");
		finding_evidence(f, NULL, 0, "%s", nccl_stage_hang_meaning(10));
		finding_evidence(f, NULL, 0, "rerun with NCCL_DEBUG=INFO to see the transports and where each rank stopped");
		static const struct {
			const char *cause;
			double w;
		} dp[] = { { "p2p_pcie_acs_iommu", 0.3 }, { "hardware_xid_nvlink", 0.25 }, { "collective_mismatch_app_bug", 0.2 },
			   { "peer_died_or_oom", 0.2 } };
		for (size_t k = 0; k < sizeof(dp) / sizeof(dp[0]); k++) {
			struct cause_acc *c = contribute(a, dp[k].cause, dp[k].w, FID_LOG_HANG_DATA_PATH);
			for (size_t i = 0; i < lg->nev && c; i++)
				if (a->sigs[lg->ev[i].sig].role == NSR_HANG) {
					cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
					contribute(a, dp[k].cause, 0, a->sigs[lg->ev[i].sig].fid);
					break;
				}
		}
		*failed = true;
		return;
	}
	if (nlive == 0) {
		if (a->have_hang && !a->have_any_root) {
			struct finding *f = finding_for(a->r, FID_LOG_HANG_BEFORE_NCCL, SEV_ERROR,
							"the process hung before NCCL printed anything (stage T0 never reached)");
			struct cause_acc *c = contribute(a, "bootstrap_network", 0.4, FID_LOG_HANG_BEFORE_NCCL);
			struct cause_acc *c2 = contribute(a, "peer_died_or_oom", 0.2, FID_LOG_HANG_BEFORE_NCCL);
			for (size_t i = 0; i < lg->nev; i++) {
				const struct nl_event *e = &lg->ev[i];
				if (a->sigs[e->sig].role != NSR_HANG)
					continue;
				finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s", e->text);
				cause_evidence(c, e->file, e->line, e->text);
				cause_evidence(c2, e->file, e->line, e->text);
			}
			for (int fi = 0; fi < lg->nfiles; fi++)
				finding_evidence(f, lg->files[fi].name, 0, "%llu line%s, none from NCCL",
						 (unsigned long long)lg->files[fi].lines, lg->files[fi].lines == 1 ? "" : "s");
			*failed = true;
		} else if (!a->have_any_root && !a->have_secondary) {
			struct finding *f = finding_for(a->r, FID_LOG_NO_NCCL_LINES, SEV_WARNING, "the log holds no NCCL lines");
			for (int fi = 0; fi < lg->nfiles; fi++)
				finding_evidence(f, lg->files[fi].name, 0, "%llu line%s, none from NCCL",
						 (unsigned long long)lg->files[fi].lines, lg->files[fi].lines == 1 ? "" : "s");
		}
		return;
	}

	/* A log that stops right after NCCL's own lines, with every rank past
	 * init, nothing destroyed and no output of the application after: a
	 * hang is likely but not shown (a server that runs on looks the same). */
	bool destroyed = false, ends_in_nccl = false;
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].ncomms; k++)
			destroyed |= lg->procs[i].comms[k].destroyed;
	for (int i = 0; i < lg->nfiles; i++)
		if (lg->files[i].nccl_lines && lg->files[i].last_nccl_line > lg->files[i].last_line_no)
			ends_in_nccl = true;
	bool suspect = !a->have_hang && nincomplete == 0 && !destroyed && ends_in_nccl && !a->have_any_root &&
		       !a->have_secondary;
	bool hung = a->have_hang || nincomplete > 0 || suspect;
	if (!hung && !missing)
		return;
	/* With a root failure known, ranks that logged their own failure did
	 * not hang: only the ones left waiting tell a stage. */
	int wmin = 99, nwait = 0;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		int s = hang_stage(p);
		if (s < 0 || (a->have_root && proc_failed(a, p)) || (s >= 9 && !a->have_hang && !suspect))
			continue;
		nwait++;
		if (s < wmin)
			wmin = s;
	}
	double scale = a->have_root ? 0.25 : suspect ? 0.5 : 1.0;
	enum finding_id fid;
	int cls = nwait ? wmin : -1;
	if (cls < 0)
		fid = FID_COUNT; /* none */
	else if (cls <= 4)
		fid = FID_LOG_HANG_BOOTSTRAP;
	else if (cls <= 8)
		fid = FID_LOG_HANG_INIT_CONNECT;
	else if (cls == 9)
		fid = FID_LOG_HANG_RUNTIME_CONNECT;
	else
		fid = FID_LOG_HANG_DATA_PATH;
	if (missing) {
		struct finding *f = finding_get(a->r, FID_LOG_RANKS_MISSING);
		if (f && (early_missing || hung) && !a->have_root)
			f->sev = SEV_ERROR;
		if (early_missing || (hung && cls >= 0 && cls <= 4)) {
			struct cause_acc *c1 = contribute(a, "peer_died_or_oom", 0.45 * scale, FID_LOG_RANKS_MISSING);
			struct cause_acc *c2 = contribute(a, "bootstrap_network", 0.3 * scale, FID_LOG_RANKS_MISSING);
			for (int i = 0; i < lg->nprocs; i++) {
				const struct nl_proc *p = &lg->procs[i];
				if (stage_of(p) >= 0) {
					cause_evidence(c1, p->stage_file, p->stage_line, p->stage_text);
					cause_evidence(c2, p->stage_file, p->stage_line, p->stage_text);
				}
			}
			*failed = true;
		}
	}
	if (fid == FID_COUNT)
		return;
	*failed = true;
	if (cls <= 4) {
		struct finding *vf = finding_get(a->r, FID_LOG_BOOTSTRAP_VIRTUAL_IF);
		if (vf && vf->sev < SEV_WARNING) {
			vf->sev = SEV_WARNING;
			struct cause_acc *c = contribute(a, "bootstrap_network", 0.35 * scale, FID_LOG_BOOTSTRAP_VIRTUAL_IF);
			if (c && vf->nev)
				cause_evidence(c, -1, 0, vf->ev[0].text);
		}
	}
	char title[300];
	snprintf(title, sizeof(title), "%s%s: %s at %s (%s)", suspect ? "possible hang, the log just stops; " : "",
		 kb_finding_def(fid)->summary, a->have_root ? "ranks left waiting stopped" : "the slowest rank stopped",
		 stage_code(cls, sc, sizeof(sc)), nccl_stage_name(cls));
	struct finding *f = finding_for(a->r, fid, a->have_root || suspect ? SEV_WARNING : SEV_ERROR, title);
	finding_evidence(f, NULL, 0, "%s", nccl_stage_hang_meaning(cls));
	const char *why = a->have_root ? "these ranks wait for the rank that failed"
		: a->have_hang ? "the run was killed or timed out"
		: suspect ? "the log stops after NCCL's lines with no Destroy and no output after them: "
			    "if the job hung there, this is where (a server still running looks the same)"
		: "the log ends before Init COMPLETE";
	finding_evidence(f, NULL, 0, "%s", why);
	for (int i = 0; i < lg->nprocs && f->nev < 10; i++) {
		const struct nl_proc *p = &lg->procs[i];
		int s = hang_stage(p);
		if (s < 0 || s > cls || (a->have_root && proc_failed(a, p)))
			continue;
		finding_evidence(f, file_name(lg, p->stage_file), (long)p->stage_line, "%s stopped at %s%s; furthest line: %s; last line %s:%llu: %s",
				 proc_label(lg, i, lbl, sizeof(lbl)), stage_code(s, sc, sizeof(sc)),
				 s != stage_of(p) ? " (transports were connected during init)" : "", p->stage_text,
				 file_name(lg, p->last_file), (unsigned long long)p->last_line, p->last_text);
	}
	/* causes the stage points to */
	struct cand {
		const char *cause;
		double w;
	} cand[5];
	/* a vLLM run whose custom all-reduce was not reported disabled */
	bool vllm_custom_ar = (count_of(a, "VL05") || count_of(a, "VL01") || count_of(a, "VL02") || count_of(a, "VL04")) &&
			      !count_of(a, "VL03");
	int nc = 0;
	if (cls <= 4) {
		cand[nc++] = (struct cand){ "bootstrap_network", 0.5 };
		if (!missing)
			cand[nc++] = (struct cand){ "peer_died_or_oom", 0.2 };
	} else if (cls <= 8) {
		cand[nc++] = (struct cand){ "custom_allreduce_or_cumem", any_cumem ? 0.4 : 0.25 };
		cand[nc++] = (struct cand){ "shm_too_small", any_shm ? 0.4 : 0.25 };
		cand[nc++] = (struct cand){ "p2p_pcie_acs_iommu", any_p2p ? 0.35 : 0.2 };
		cand[nc++] = (struct cand){ "p2p_virtualization", 0.15 };
	} else if (fid == FID_LOG_HANG_RUNTIME_CONNECT) {
		cand[nc++] = (struct cand){ "custom_allreduce_or_cumem", vllm_custom_ar ? 0.45 : 0.4 };
		cand[nc++] = (struct cand){ "shm_too_small", 0.3 };
		cand[nc++] = (struct cand){ "p2p_pcie_acs_iommu", 0.25 };
	} else {
		cand[nc++] = (struct cand){ "p2p_pcie_acs_iommu", any_p2p && pcie ? 0.5 : any_p2p ? 0.35 : 0.25 };
		cand[nc++] = (struct cand){ "hardware_xid_nvlink", any_p2p && !pcie ? 0.35 : 0.25 };
		cand[nc++] = (struct cand){ "collective_mismatch_app_bug", 0.2 };
		cand[nc++] = (struct cand){ vllm_custom_ar ? "custom_allreduce_or_cumem" : "peer_died_or_oom", vllm_custom_ar ? 0.35 : 0.2 };
	}
	for (int k = 0; k < nc; k++) {
		double w = cand[k].w * scale * (a->have_hang || cls < 9 ? 1.0 : 0.8);
		struct cause_acc *c = contribute(a, cand[k].cause, w, fid);
		if (cls >= 10 && strncmp(cand[k].cause, "p2p", 3) == 0)
			for (int i = 0; i < lg->nprocs && c && c->nev < 2; i++)
				if (lg->procs[i].via_line)
					cause_evidence(c, lg->procs[i].via_file, lg->procs[i].via_line, lg->procs[i].via_text);
		for (int i = 0; i < lg->nprocs && c && c->nev < 3; i++) {
			const struct nl_proc *p = &lg->procs[i];
			if (hang_stage(p) == cls && !(a->have_root && proc_failed(a, p)))
				cause_evidence(c, p->stage_file, p->stage_line, p->stage_text);
		}
		if (a->have_hang)
			for (size_t i = 0; i < lg->nev; i++)
				if (a->sigs[lg->ev[i].sig].role == NSR_HANG) {
					cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
					contribute(a, cand[k].cause, 0, a->sigs[lg->ev[i].sig].fid);
					break;
				}
	}
	/* the hang symptom findings belong to these causes too */
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++)
		if (lg->sigcount[s] && a->sigs[s].role == NSR_HANG)
			for (int k = 0; k < nc; k++) {
				struct cause_acc *c = cause_get(a, cand[k].cause);
				if (c && c->nfids < MAX_CAUSE_FIDS) {
					bool have = false;
					for (int j = 0; j < c->nfids; j++)
						if (strcmp(c->fids[j], a->sigs[s].finding) == 0)
							have = true;
					if (!have)
						c->fids[c->nfids++] = a->sigs[s].finding;
				}
			}
}

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
		k->rank = c && c->rank >= 0 ? c->rank : p->prank;
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
		struct cause_acc *c = contribute(&a, "unknown", 0.1, FID_COUNT);
		for (size_t i = 0; i < lg->nev && c; i++)
			if (a.sigs[lg->ev[i].sig].role != NSR_INFO)
				cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
	}
	if (a.ncauses == 0 && result_exit_code(r) >= 1) /* not healthy, no lead */
		contribute(&a, "unknown", 0.1, FID_COUNT);
	qsort(a.causes, (size_t)a.ncauses, sizeof(a.causes[0]), cmp_cause);
	/* keep what says something: weak echoes of a strong cause go */
	while (a.ncauses > 1 && a.causes[a.ncauses - 1].conf < 0.1)
		a.ncauses--;

	ranks_output(&a);

	/* the causes, best first */
	struct cause_list *cl = result_causes(r, failed ? "Causes (best first)" : "Causes");
	cl->failed = failed;
	for (int i = 0; i < a.ncauses; i++) {
		const struct cause_acc *c = &a.causes[i];
		struct cause *x = cause_list_add(cl, c->cause, round2(c->conf));
		for (int k = 0; k < c->nev; k++)
			cause_add_evidence(x, file_name(lg, c->ev[k].file), (long)c->ev[k].line, c->ev[k].text);
		for (int k = 0; k < c->nfids; k++)
			cause_add_finding(x, c->fids[k]);
	}
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
	if (a.ncauses && failed)
		result_set_headline(r, "NCCL logs: %d file%s, %d process%s: most likely %s (confidence %.2f)", lg->nfiles,
				    lg->nfiles == 1 ? "" : "s", lg->nprocs, lg->nprocs == 1 ? "" : "es", a.causes[0].cause,
				    round2(a.causes[0].conf));
	else
		result_set_headline(r, "NCCL logs: %d file%s, %d process%s, %d with a communicator%s", lg->nfiles,
				    lg->nfiles == 1 ? "" : "s", lg->nprocs, lg->nprocs == 1 ? "" : "es", nranks_seen,
				    failed ? "" : ": no failure found");
}
