/* NCCL log analysis: the helpers the rules share (see logs/ana.h): labels,
 * stages, the order of events, signature counts, findings. */
#include "analyze/logs/ana.h"
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

/* Line e as evidence of finding f and of cause c (either may be NULL). */
void event_evidence(const struct ana *a, struct finding *f, struct cause_acc *c, const struct nl_event *e)
{
	if (f)
		finding_evidence(f, file_name(a->lg, e->file), (long)e->line, "%s", e->text);
	cause_evidence(c, e->file, e->line, e->text);
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
