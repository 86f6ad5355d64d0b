/* NCCL log analysis: the cause accumulator (noisy-or of weights, with
 * evidence lines and finding ids per cause) and the helpers the parts of
 * the analysis share (see nccllog_ana.h). */
#include "analyze/nccllog_ana.h"
#include "kb/findings.h"
#include "util/ncclver.h"

#include <stdio.h>
#include <string.h>

const char *file_name(const struct nccllog *lg, int file)
{
	if (file < 0 || file >= lg->nfiles)
		return NULL;
	return lg->files[file].name;
}

struct cause_acc *cause_get(struct ana *a, const char *cause)
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

/* Adds weight w to a cause (noisy-or), with the finding id and evidence. */
struct cause_acc *contribute(struct ana *a, const char *cause, double w, enum finding_id id)
{
	const char *fid = id < FID_COUNT ? kb_finding_def(id)->id : NULL; /* FID_COUNT: none */
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

/* Line e as evidence of finding f and of cause c (either may be NULL). */
void event_evidence(const struct ana *a, struct finding *f, struct cause_acc *c, const struct nl_event *e)
{
	if (f)
		finding_evidence(f, file_name(a->lg, e->file), (long)e->line, "%s", e->text);
	cause_evidence(c, e->file, e->line, e->text);
}

void cause_evidence(struct cause_acc *c, int file, uint64_t line, const char *text)
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

const char *proc_label(const struct nccllog *lg, int pi, char *buf, size_t bufsz)
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

int stage_of(const struct nl_proc *p)
{
	int s = nl_proc_stage(p);
	return s < 0 && p->nlines > 0 ? 0 : s;
}

/* Stage for the hang verdict: after Init COMPLETE, a rank whose transports
 * were connected during init (NCCL < 2.22, NCCL_RUNTIME_CONNECT=0) has
 * nothing left to connect, so a hang there is in the data path (T10). */
int hang_stage(const struct nl_proc *p)
{
	int s = stage_of(p);
	if (s != 9 || !p->ncomms)
		return s;
	const struct nl_comm *c = &p->comms[p->ncomms - 1];
	int v = nccl_version_code(p->version);
	if (c->conn_in_init || (v && v < 22200) || c->nranks == 1)
		return 10;
	return s;
}

const char *stage_code(int s, char *buf, size_t bufsz)
{
	if (s < 0)
		snprintf(buf, bufsz, "-");
	else
		snprintf(buf, bufsz, "T%d", s);
	return buf;
}

/* Who logged an event: its process, else the launcher's rank prefix. */
const char *event_label(const struct nccllog *lg, const struct nl_event *e, char *buf, size_t bufsz)
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
bool event_before(const struct nl_event *x, const struct nl_event *y)
{
	if (x->ts && y->ts && x->ts != y->ts)
		return x->ts < y->ts;
	if (x->file == y->file)
		return x->line < y->line;
	return x->seq < y->seq;
}

int procs_with_sig(const struct nccllog *lg, int sig)
{
	int n = 0;
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].sighits[sig / 64] & (1ULL << (sig % 64)))
			n++;
	return n;
}

uint32_t count_of(const struct ana *a, const char *id)
{
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++)
		if (strcmp(a->sigs[s].id, id) == 0)
			return a->lg->sigcount[s];
	return 0;
}

const struct nl_event *first_of(const struct ana *a, const char *id)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++)
		if (strcmp(a->sigs[lg->ev[i].sig].id, id) == 0)
			return &lg->ev[i];
	return NULL;
}

/* A process that logged a failure of its own (root or consequence). */
bool proc_failed(const struct ana *a, const struct nl_proc *p)
{
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++)
		if ((p->sighits[s / 64] & (1ULL << (s % 64))) &&
		    (a->sigs[s].role == NSR_ROOT || a->sigs[s].role == NSR_SECONDARY))
			return true;
	return false;
}

struct finding *finding_for(struct result *r, enum finding_id fid, enum severity sev, const char *title)
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
