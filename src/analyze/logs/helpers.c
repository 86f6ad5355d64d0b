/* NCCL log analysis: the helpers the rules share (see logs/ana.h): labels,
 * stages, the order of events, signature counts, findings. */
#include "analyze/logs/ana.h"
#include "kb/causes.h"
#include "kb/findings.h"
#include "kb/nccl_warns.h"
#include "util/ncclver.h"
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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

const struct nl_env *proc_env(const struct nl_proc *p, const char *name)
{
	for (int k = 0; k < p->nenv; k++)
		if (strcmp(p->env[k].name, name) == 0)
			return &p->env[k];
	return NULL;
}

const struct nl_env *log_env(const struct nccllog *lg, const char *name)
{
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_env *v = proc_env(&lg->procs[i], name);
		if (v && v->value[0])
			return v;
	}
	return NULL;
}

void env_explains(struct ana *a, struct finding *f, const char *cause, const struct nl_env *v, const char *why)
{
	const char *t = ana_text(a, "%s=%s %s", v->name, v->value, why);
	finding_evidence(f, file_name(a->lg, v->file), (long)v->line, "%s", t ? t : v->name);
	cause_evidence_first(cause_get(a, cause), v->file, v->line, t ? t : v->name);
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
const char *ana_text(struct ana *a, const char *fmt, ...)
{
	if (a->ntexts >= ANA_TEXTS)
		return NULL;
	char *t = a->texts[a->ntexts++];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t, sizeof(a->texts[0]), fmt, ap);
	va_end(ap);
	return t;
}

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

/* finding_for, for a finding whose line names a cause class through a
 * table (NCCL's messages, a framework's): its next step is the table row's
 * own (next, when not NULL), else the class's (kb/causes.c `next`), rather
 * than the catalog's "read the line". */
struct finding *finding_for_class(struct result *r, enum finding_id fid, enum severity sev, const char *title,
				  const char *cls, const char *next)
{
	struct finding *f = finding_get(r, fid);
	if (f)
		return f;
	const struct cause_def *c = cls ? kb_cause_find(cls) : NULL;
	if (!next && c && strcmp(c->name, "unknown") != 0)
		next = c->next;
	if (!next)
		return finding_for(r, fid, sev, title);
	f = finding_add(r, fid, sev, "%s", title);
	finding_fix(f, "note", NULL, "%s", next);
	return f;
}

/* The row of NCCL's own messages a warning no signature knows matched. */
const struct nccl_warn *known_warn(const struct nl_event *e)
{
	size_t n;
	const struct nccl_warn *w = kb_nccl_warns(&n);
	return e->gen > 0 && (size_t)e->gen <= n ? &w[e->gen - 1] : NULL;
}

bool run_failed(const struct ana *a)
{
	return a->have_any_root || a->have_secondary || a->have_hang;
}

/* "eth0" of "eth0:10.0.0.1<0>" into out. */
void if_name(const char *ifaddr, char *out, size_t outsz)
{
	size_t k = strcspn(ifaddr, ":<");
	if (k >= outsz)
		k = outsz - 1;
	memcpy(out, ifaddr, k);
	out[k] = '\0';
}

/* "10.0.0.1" of "eth0:10.0.0.1<0>" (IPv6: everything up to '<' or '%'). */
void if_addr(const char *ifaddr, char *out, size_t outsz)
{
	const char *c = strchr(ifaddr, ':');
	out[0] = '\0';
	if (!c)
		return;
	size_t k = strcspn(c + 1, "<%");
	if (k >= outsz)
		k = outsz - 1;
	memcpy(out, c + 1, k);
	out[k] = '\0';
}

/* A field of the processes that differs between two hosts: one finding
 * naming both hosts and values. name_only compares interface names. */
void compare_field(struct ana *a, size_t off, bool name_only, enum finding_id fid, const char *what,
			  const char *cause, double w, const char *evtext)
{
	const struct nccllog *lg = a->lg;
	char v1[64], v2[64], l1[96], l2[96];
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		const char *x = (const char *)p + off;
		if (!x[0])
			continue;
		for (int j = i + 1; j < lg->nprocs; j++) {
			const struct nl_proc *q = &lg->procs[j];
			const char *y = (const char *)q + off;
			if (!y[0] || strcmp(p->host, q->host) == 0)
				continue;
			if (name_only) {
				if_name(x, v1, sizeof(v1));
				if_name(y, v2, sizeof(v2));
			} else {
				snprintf(v1, sizeof(v1), "%s", x);
				snprintf(v2, sizeof(v2), "%s", y);
			}
			if (strcmp(v1, v2) == 0)
				continue;
			struct finding *f = finding_add(a->r, fid, SEV_WARNING, "%s: %s on %s, %s on %s", what, v1, p->host, v2, q->host);
			finding_evidence(f, file_name(lg, p->file), 0, "%s: %s %s", proc_label(lg, i, l1, sizeof(l1)), what, x);
			finding_evidence(f, file_name(lg, q->file), 0, "%s: %s %s", proc_label(lg, j, l2, sizeof(l2)), what, y);
			if (run_failed(a))
				cause_evidence(contribute(a, cause, w, fid), q->file, 0, evtext);
			return;
		}
	}
}

/* A variable that changes how NCCL cuts a collective into messages, set to
 * different values (or on some ranks only) in two processes of the logs:
 * NCCL_PROTO and NCCL_ALGO are those the socket transport's own message
 * names (transport/net_socket.cc, "a mismatch in collective sizes or
 * environment settings (e.g. NCCL_PROTO, NCCL_ALGO) between ranks", 2.19+);
 * buffer, chunk and thread sizes cut the data the same way (NCCL's docs: its
 * variables must have the same value on every rank). Recorded on the H200
 * machine: NCCL_PROTO=LL on one rank, Simple on the other, "message
 * truncated : receiving 524288 bytes instead of 65536" (real-h200-2rank/
 * protodiff). */
const struct nl_env *shaping_env_differs(const struct nccllog *lg, const char **other, int *pi, int *pj)
{
	static const char *const vars[] = { "NCCL_PROTO", "NCCL_ALGO", "NCCL_BUFFSIZE", "NCCL_LL_BUFFSIZE",
					    "NCCL_LL128_BUFFSIZE", "NCCL_NTHREADS", "NCCL_LL128_NTHREADS",
					    "NCCL_P2P_NET_CHUNKSIZE", "NCCL_P2P_PCI_CHUNKSIZE", "NCCL_P2P_NVL_CHUNKSIZE",
					    "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS", "NCCL_MIN_CTAS", "NCCL_MAX_CTAS" };
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].nenv; k++) {
			const struct nl_env *v = &lg->procs[i].env[k];
			bool shaping = false;
			for (size_t n = 0; n < sizeof(vars) / sizeof(vars[0]) && !shaping; n++)
				shaping = strcmp(v->name, vars[n]) == 0;
			if (!shaping)
				continue;
			for (int j = 0; j < lg->nprocs; j++) {
				const struct nl_proc *q = &lg->procs[j];
				if (j == i || !q->nenv)
					continue; /* a process with no variable line at all may just lack INFO */
				const char *val = "not set";
				for (int m = 0; m < q->nenv; m++)
					if (strcmp(q->env[m].name, v->name) == 0)
						val = q->env[m].value;
				if (strcasecmp(val, v->value) != 0) {
					*other = val;
					*pi = i;
					*pj = j;
					return v;
				}
			}
		}
	return NULL;
}

/* Whether some process printed NCCL lines and stopped before Init
 * COMPLETE (T9). */
bool init_unfinished(const struct nccllog *lg)
{
	for (int i = 0; i < lg->nprocs; i++) {
		int s = stage_of(&lg->procs[i]);
		if (s >= 0 && s < 9)
			return true;
	}
	return false;
}

/* Whether every process of the log runs on one host (true with none). */
bool one_host(const struct nccllog *lg)
{
	for (int i = 1; i < lg->nprocs; i++)
		if (strcmp(lg->procs[i].host, lg->procs[0].host) != 0)
			return false;
	return true;
}

/* Replaces f's title by prefix + the old title, once. */
void title_prefix(struct finding *f, const char *prefix)
{
	if (!f->title || strncmp(f->title, prefix, strlen(prefix)) == 0)
		return;
	char *t = xasprintf("%s%s", prefix, f->title);
	free(f->title);
	f->title = t;
}
