/* watch: NCCL's own diagnostics. --nccl-diag sets NCCL_RUN_DIAGNOSTICS=1
 * when the libnccl the job will load is 2.31 or newer (the version is read
 * from the library file by the library probe, never by loading it). At a
 * stall, a job whose NCCL has RAS (2.24 and newer, on unless NCCL_RAS_ENABLE=0)
 * is asked for its STATUS over NCCL_RAS_ADDR (default localhost:28028) with
 * our own client (probe/ras.h): dead processes, processes that did not
 * answer, communicators in INIT or with mismatched collective counts. For
 * NCCL 2.29 and newer RAS's MONITOR stream is followed during the whole run
 * (wras_*): a process declared dead is said at once and is evidence of
 * every later diagnosis and of the exit summary. */
#include "cmd/watch_int.h"
#include "cmd/watch_ras.h"
#include "collect/collect.h"
#include "kb/findings.h"
#include "probe/ncclib.h"
#include "probe/proc.h"
#include "probe/ras.h"
#include "report/report.h"
#include "util/ncclver.h"
#include "util/text.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RAS_MIN_VERSION 22400      /* 2.24.3 added RAS */
#define DIAG_MIN_VERSION 23100     /* 2.31.2 added NCCL_RUN_DIAGNOSTICS */
#define RAS_NCCL_TIMEOUT 2         /* seconds NCCL waits for its peers */
#define RAS_DEADLINE 6.0           /* our deadline for the whole query */

static int code_of(const struct nccl_version *v)
{
	return v->major * 10000 + v->minor * 100 + v->patch;
}

/* A Python launcher (python, torchrun, vllm, accelerate, deepspeed...) loads
 * PyTorch's libnccl; anything else the one ld.so picks. */
static bool python_job(char *const *argv)
{
	const char *b = strrchr(argv[0], '/');
	b = b ? b + 1 : argv[0];
	static const char *const names[] = { "python", "torchrun", "vllm", "accelerate", "deepspeed", "sglang", "ray" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (str_startswith(b, names[i]))
			return true;
	return false;
}

/* The version and path of the library the job will load; 0 or -ENOENT. */
static int predict(char *const *argv, const char *nccl_path, struct nccl_version *v, char *path, size_t pathsz)
{
	if (nccl_path) {
		char *vs = NULL;
		str_copy(path, nccl_path, pathsz);
		int rc = ncclib_read_version(nccl_path, &vs, v);
		free(vs);
		return rc < 0 ? rc : 0;
	}
	struct machine m;
	machine_init(&m);
	collect_libs(&m);
	const struct ncclib_scan *s = &m.libs;
	int rc = -ENOENT;
	for (size_t i = 0; python_job(argv) && i < s->ntorch && rc < 0; i++) {
		const struct ncclib_torch *t = &s->torch[i];
		if (t->how == TORCH_NCCL_SHARED && t->lib >= 0 && s->libs[t->lib].has_version) {
			*v = s->libs[t->lib].version;
			str_copy(path, s->libs[t->lib].path, pathsz);
			rc = 0;
		} else if (t->how == TORCH_NCCL_STATIC && t->static_version && nccl_version_parse(t->static_version, v) == 0) {
			snprintf(path, pathsz, "%s (linked into PyTorch)", t->libtorch ? t->libtorch : t->path);
			rc = 0;
		}
	}
	if (rc < 0 && s->ld_default >= 0 && s->libs[s->ld_default].has_version) {
		*v = s->libs[s->ld_default].version;
		str_copy(path, s->libs[s->ld_default].path, pathsz);
		rc = 0;
	}
	machine_release(&m);
	return rc;
}

void wnccl_diag_env(char *const *argv, const char *nccl_path, char *env, size_t envsz, char *note, size_t notesz)
{
	struct nccl_version v;
	char path[1024], vb[64];
	env[0] = note[0] = '\0';
	if (predict(argv, nccl_path, &v, path, sizeof(path)) < 0) {
		str_copy(env, "NCCL_RUN_DIAGNOSTICS=1", envsz);
		snprintf(note, notesz, "--nccl-diag: cannot tell which libnccl the job loads%s; NCCL_RUN_DIAGNOSTICS=1 "
			 "is set anyway (NCCL before 2.31 ignores it)", nccl_path ? " (--nccl has no version string)" : "");
		return;
	}
	nccl_version_str(&v, vb, sizeof(vb));
	if (code_of(&v) >= DIAG_MIN_VERSION) {
		str_copy(env, "NCCL_RUN_DIAGNOSTICS=1", envsz);
		return;
	}
	char shown[1024];
	snprintf(note, notesz, "--nccl-diag: not available: the job loads NCCL %s (%s); NCCL_RUN_DIAGNOSTICS needs 2.31",
		 vb, str_shown(path, shown, sizeof(shown), 0)); /* a file name: printed as it is */
}

/* The newest NCCL version among the logs and the libraries the job's
 * processes mapped (code, 0 when none is known). */
static int job_version(const int *pids, int npids, const char *const *versions, int nver, char *vs, size_t vssz)
{
	int best = 0;
	for (int i = 0; i < nver; i++) {
		int c = nccl_version_code(versions[i]);
		if (c > best) {
			best = c;
			str_copy(vs, versions[i], vssz);
		}
	}
	for (int i = 0; i < npids && best == 0; i++) {
		struct proc_info pi;
		if (proc_read(pids[i], &pi) < 0 || !pi.nccl)
			continue;
		char *s = NULL;
		struct nccl_version v;
		if (ncclib_read_version(pi.nccl_path, &s, &v) == 0 && code_of(&v) > best) {
			best = code_of(&v);
			nccl_version_str(&v, vs, vssz);
		}
		free(s);
	}
	return best;
}

/* NCCL_RAS_ENABLE and NCCL_RAS_ADDR as a job process sees them. */
static void ras_env(const int *pids, int npids, bool *off, char *addr, size_t addrsz)
{
	char v[64];
	*off = false;
	addr[0] = '\0';
	for (int i = 0; i < npids; i++) {
		if (proc_environ_get(pids[i], "NCCL_RAS_ENABLE", v, sizeof(v)) == 0)
			*off |= strcmp(v, "0") == 0;
		if (!addr[0])
			proc_environ_get(pids[i], "NCCL_RAS_ADDR", addr, addrsz);
	}
}

static void add_summary(struct result *r, struct section *s, const struct ras_summary *rs, const char *where)
{
	if (rs->have_version)
		section_add(s, "version", "NCCL (RAS)", val_str(rs->version));
	section_add(s, "communicators", "communicator groups", val_int(rs->ncomm_groups));
	if (rs->status[0])
		section_add(s, "status", "status", val_str(rs->status));
	section_add(s, "dead", "processes considered dead", val_int(rs->dead < 0 ? 0 : rs->dead));
	section_add(s, "missing", "processes that did not answer", val_int(rs->missing));
	for (int i = 0; i < rs->nlines; i++)
		section_note(s, "%s", rs->lines[i]);
	if (rs->nlines_total > rs->nlines)
		section_note(s, "... %d more lines", rs->nlines_total - rs->nlines);
	if (rs->dead > 0 || rs->missing > 0) {
		/* the monitor's finding (2.29+) comes first: the report is its evidence */
		struct finding *f = result_find(r, "WATCH_RAS_PEER_DEAD");
		if (!f)
			f = finding_add(r, FID_WATCH_RAS_PEER_DEAD, SEV_ERROR,
					"NCCL's RAS: %d process%s considered dead, %d not answering", rs->dead,
					rs->dead == 1 ? "" : "es", rs->missing);
		finding_evidence(f, NULL, 0, "RAS STATUS from %s: %d process%s considered dead, %d not answering", where,
				 rs->dead, rs->dead == 1 ? "" : "es", rs->missing);
		for (int i = 0; i < rs->nlines && i < 8; i++)
			if (strstr(rs->lines[i], "Process ") || strstr(rs->lines[i], "considered dead") ||
			    strstr(rs->lines[i], "Missing"))
				finding_evidence(f, NULL, 0, "%s", rs->lines[i] + strspn(rs->lines[i], " "));
	} else if (rs->mismatch || rs->error) {
		struct finding *f = finding_add(r, FID_WATCH_RAS_MISMATCH, SEV_ERROR,
						"NCCL's RAS: communicators %s across ranks",
						rs->error ? "report errors" : "disagree (status or collective counts)");
		finding_evidence(f, NULL, 0, "RAS STATUS from %s: status %s", where, rs->status[0] ? rs->status : "?");
		for (int i = 0; i < rs->nlines && i < 6; i++)
			finding_evidence(f, NULL, 0, "%s", rs->lines[i] + strspn(rs->lines[i], " "));
	}
}

void wnccl_ras_add(struct result *r, const int *pids, int npids, const char *const *versions, int nver)
{
	char vs[48] = "", addr[256], host[256], err[512];
	unsigned port;
	int code = job_version(pids, npids, versions, nver, vs, sizeof(vs));
	if (code == 0)
		return; /* no NCCL in the job yet */
	struct section *s = result_section(r, "ras", "NCCL RAS (the job's own view of its ranks)");
	section_add(s, "job_nccl", "the job's NCCL", val_str(vs));
	if (code < RAS_MIN_VERSION) {
		section_add(s, "available", "RAS", val_unknown("NCCL before 2.24 has no RAS"));
		return;
	}
	bool off;
	ras_env(pids, npids, &off, addr, sizeof(addr));
	if (off) {
		section_add(s, "available", "RAS", val_unknown("off in the job (NCCL_RAS_ENABLE=0)"));
		return;
	}
	if (ras_addr_parse(addr[0] ? addr : NULL, host, sizeof(host), &port) < 0) {
		section_add(s, "available", "RAS", val_unknown("NCCL_RAS_ADDR has a form we do not read"));
		return;
	}
	char *text = NULL;
	char where[300];
	snprintf(where, sizeof(where), "%s:%u", host, port);
	section_add(s, "address", "queried", val_str(where));
	/* pids[0] is the job's first process: only a RAS socket of the job answers */
	int rc = ras_query(host, port, pids[0], RAS_NCCL_TIMEOUT, RAS_DEADLINE, &text, err, sizeof(err));
	struct ras_summary rs;
	if (rc < 0) {
		section_add(s, "answer", "answer", val_unknown(err));
	} else if (ras_parse(text, &rs) < 0) {
		section_add(s, "answer", "answer", val_unknown("not a RAS status report"));
	} else {
		add_summary(r, s, &rs, where);
	}
	free(text);
}

/* ---- RAS's MONITOR stream (2.29+) ---------------------------------------- */

#define MON_MIN_VERSION 22900      /* 2.29.2 added MONITOR */
#define MON_BACKOFF_MIN 0.25       /* seconds before the first retry */
#define MON_BACKOFF_MAX 4.0
#define MON_GRACE_AFTER_INIT 10.0  /* refused that long after Init COMPLETE: give up */
#define MON_EARLY_CLOSES 5         /* closed before MONITOR's OK that often: give up */

void wras_init(struct watch_ras *wr, double t0)
{
	memset(wr, 0, sizeof(*wr));
	ras_monitor_init(&wr->m);
	wr->t0 = t0;
	wr->backoff = MON_BACKOFF_MIN;
}

void wras_release(struct watch_ras *wr)
{
	ras_monitor_close(&wr->m);
}

int wras_dead(const struct watch_ras *wr)
{
	return wr->ndead;
}

/* "process 4242 on node 10.0.0.2 (GPU 1, rank 1)" or the address. */
static void peer_text(const struct ras_event *ev, int rank, char *buf, size_t bufsz)
{
	char extra[96] = "";
	size_t len = 0, el = 0;
	buf[0] = '\0';
	if (ev->pid >= 0)
		str_appendf(buf, bufsz, &len, "process %ld on node %s", ev->pid, ev->host);
	else
		str_appendf(buf, bufsz, &len, ev->addr[0] ? "the process at %s" : "a process (no address given)%s", ev->addr);
	if (ev->gpus[0])
		str_appendf(extra, sizeof(extra), &el, "GPU %s", ev->gpus);
	if (rank >= 0)
		str_appendf(extra, sizeof(extra), &el, "%srank %d", el ? ", " : "", rank);
	if (el)
		str_appendf(buf, bufsz, &len, " (%s)", extra);
}

/* The rank of a pid of this machine, as its NCCL log says (our log files
 * are all local: NCCL_DEBUG_FILE is a directory here). */
static int local_rank(const struct nccllog *lg, const struct ras_event *ev)
{
	if (!lg || ev->pid < 0 || !ras_host_is_local(ev->host))
		return -1;
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].pid == ev->pid) {
			const struct nl_comm *c = nl_proc_main_comm(&lg->procs[i]);
			return c ? c->rank : -1;
		}
	return -1;
}

static bool same_peer(const struct ras_event *a, const struct ras_event *b)
{
	if (a->pid >= 0 && b->pid >= 0)
		return a->pid == b->pid && strcmp(a->host, b->host) == 0;
	return a->addr[0] && strcmp(a->addr, b->addr) == 0;
}

static void on_event(void *ctx, const struct ras_event *ev)
{
	struct watch_ras *wr = ctx;
	double t = wr->t_now - wr->t0;
	wr->nevents++;
	switch (ev->kind) {
	case RAS_EV_DEAD: {
		for (int i = 0; i < wr->ndead && i < WRAS_MAX_DEAD; i++)
			if (same_peer(&wr->dead[i].ev, ev))
				return; /* PEER_TIMEOUT_DEAD and PEER_DEAD of one peer */
		int rank = local_rank(wr->lg, ev);
		if (wr->ndead < WRAS_MAX_DEAD)
			wr->dead[wr->ndead] = (struct wras_dead){ .ev = *ev, .t = t, .rank = rank };
		wr->ndead++;
		if (wr->say) {
			char peer[256];
			peer_text(ev, rank, peer, sizeof(peer));
			report_say(wr->say, "nccl-doctor watch: NCCL's RAS reports %s dead (%s at %s)", peer, ev->type, ev->time);
			fflush(wr->say);
		}
		return;
	}
	case RAS_EV_TROUBLE:
	case RAS_EV_RECOVERED:
		wr->ntrouble += ev->kind == RAS_EV_TROUBLE;
		wr->nrecovered += ev->kind == RAS_EV_RECOVERED;
		wr->kept[wr->nkept % WRAS_MAX_KEPT] = *ev;
		wr->kept_t[wr->nkept % WRAS_MAX_KEPT] = t;
		wr->nkept++;
		return;
	case RAS_EV_NEW: wr->nnew++; return;
	default: return;
	}
}

/* Every communicator the logs show completed its init (and there is one). */
static bool init_done(const struct nccllog *lg)
{
	int n = 0;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_comm *c = nl_proc_main_comm(&lg->procs[i]);
		if (!c)
			continue;
		if (!c->complete)
			return false;
		n++;
	}
	return n > 0;
}

/* Whether the job runs an NCCL with MONITOR and RAS on: decides once. */
static void decide(struct watch_ras *wr, const struct nccllog *lg, int job_pid, double now)
{
	const char *vers[64];
	int nv = 0;
	for (int i = 0; i < lg->nprocs && nv < 64; i++)
		if (lg->procs[i].version[0])
			vers[nv++] = lg->procs[i].version;
	int pids[512], npids = 0, code = 0;
	if (nv > 0 || now >= wr->t_maps) {
		/* without a version line, the libraries mapped: every 5 s at most */
		wr->t_maps = now + 5.0;
		npids = job_pid > 0 ? proc_tree(job_pid, pids, 512) : 0;
		code = job_version(pids, npids < 0 ? 0 : npids, vers, nv, wr->version, sizeof(wr->version));
	}
	if (code == 0)
		return;
	char addr[256];
	bool off;
	if (code < MON_MIN_VERSION) {
		wr->state = WRAS_NO;
		snprintf(wr->why, sizeof(wr->why), "monitor needs NCCL >= 2.29 (the job runs %s)%s", wr->version,
			 code >= RAS_MIN_VERSION ? "; RAS STATUS is asked at a stall" : "");
		return;
	}
	ras_env(pids, npids < 0 ? 0 : npids, &off, addr, sizeof(addr));
	if (off) {
		wr->state = WRAS_NO;
		str_copy(wr->why, "off in the job (NCCL_RAS_ENABLE=0)", sizeof(wr->why));
	} else if (ras_addr_parse(addr[0] ? addr : NULL, wr->host, sizeof(wr->host), &wr->port) < 0) {
		wr->state = WRAS_NO;
		str_copy(wr->why, "NCCL_RAS_ADDR has a form we do not read", sizeof(wr->why));
	} else {
		wr->state = WRAS_TRY;
		wr->t_next_try = now;
	}
}

static void give_up(struct watch_ras *wr)
{
	wr->state = WRAS_GAVE_UP;
}

/* The connection ended (rc < 0): retry later, or give up. */
static void ended(struct watch_ras *wr, int rc, double now)
{
	wr->last_err = rc;
	if (rc == -EPERM) {
		/* the listener, or the socket that answered, is not the job's:
		 * nothing it says is evidence (a forged dead peer would also stop
		 * --retry-with-fix) */
		str_copy(wr->why, wr->m.refused, sizeof(wr->why));
		give_up(wr);
		return;
	}
	if (wr->state == WRAS_FOLLOW) { /* the process it reached ended: another may answer */
		wr->state = WRAS_TRY;
		wr->lost++;
		wr->backoff = MON_BACKOFF_MIN;
		wr->t_next_try = now + wr->backoff;
		return;
	}
	if (rc == -EPROTO || rc == -EOPNOTSUPP) {
		str_setf(wr->why, sizeof(wr->why), "%s:%u is not a RAS monitor: it answered '%s'", wr->host, wr->port,
			 wr->m.answer);
		give_up(wr);
		return;
	}
	if (rc == -ETIMEDOUT || rc == -EINVAL) {
		str_setf(wr->why, sizeof(wr->why), "%s:%u: %s", wr->host, wr->port,
			 rc == -EINVAL ? "not a numeric address" : "no answer in time");
		give_up(wr);
		return;
	}
	if (rc == -ECONNRESET && ++wr->early_closes >= MON_EARLY_CLOSES) {
		str_setf(wr->why, sizeof(wr->why), "%s:%u closed the connection before MONITOR's answer %d times",
			 wr->host, wr->port, MON_EARLY_CLOSES);
		give_up(wr);
		return;
	}
	if (wr->follows == 0 && init_done(wr->lg)) {
		if (wr->t_init_done == 0)
			wr->t_init_done = now;
		else if (now - wr->t_init_done > MON_GRACE_AFTER_INIT) {
			str_setf(wr->why, sizeof(wr->why), "nothing answered at %s:%u after the job's init (%s)", wr->host,
				 wr->port, strerror(-rc));
			give_up(wr);
			return;
		}
	}
	wr->t_next_try = now + wr->backoff;
	wr->backoff = wr->backoff * 2 > MON_BACKOFF_MAX ? MON_BACKOFF_MAX : wr->backoff * 2;
}

void wras_tick(struct watch_ras *wr, const struct nccllog *lg, int job_pid, double now, FILE *say)
{
	wr->lg = lg;
	wr->say = say;
	wr->t_now = now;
	if (wr->state == WRAS_WAIT && now >= wr->t_check) {
		wr->t_check = now + 1.0;
		decide(wr, lg, job_pid, now);
	}
	/* once the job is gone there is nobody to follow: no new connection */
	if (wr->state == WRAS_TRY && wr->m.state == RAS_MON_IDLE && now >= wr->t_next_try && job_pid > 0) {
		wr->attempts++;
		int rc = ras_monitor_connect(&wr->m, wr->host, wr->port, job_pid);
		if (rc < 0)
			ended(wr, rc, now);
	}
	if (wr->m.state != RAS_MON_IDLE) {
		int rc = ras_monitor_poll(&wr->m, now, on_event, wr);
		if (wr->m.state == RAS_MON_FOLLOW && wr->state == WRAS_TRY) {
			wr->state = WRAS_FOLLOW;
			wr->follows++;
			wr->t_follow = now;
			wr->backoff = MON_BACKOFF_MIN;
		}
		if (rc < 0)
			ended(wr, rc, now);
	}
	wr->lg = NULL;
}

static void add_events(const struct watch_ras *wr, struct section *s)
{
	static const struct column cols[] = {
		{ "time", "time (NCCL's)", 0 }, { "event", "event", 0 }, { "peer", "peer", 0 },
		{ "rank", "rank", 0 },          { "details", "details", 0 }, { "received_s", "after s", 0 },
	};
	int nk = wr->nkept < WRAS_MAX_KEPT ? wr->nkept : WRAS_MAX_KEPT;
	int nd = wr->ndead < WRAS_MAX_DEAD ? wr->ndead : WRAS_MAX_DEAD;
	if (nk + nd == 0)
		return;
	struct table *t = section_table(s, "events", "RAS monitor events", cols, sizeof(cols) / sizeof(cols[0]));
	for (int i = 0; i < nd + nk; i++) {
		const struct ras_event *ev;
		double at;
		int rank = -1;
		if (i < nd) {
			ev = &wr->dead[i].ev;
			at = wr->dead[i].t;
			rank = wr->dead[i].rank;
		} else { /* the ring, oldest first */
			int k = (wr->nkept - nk + (i - nd)) % WRAS_MAX_KEPT;
			ev = &wr->kept[k];
			at = wr->kept_t[k];
		}
		char peer[200];
		peer_text(ev, -1, peer, sizeof(peer));
		size_t row = table_add_row(t);
		table_set(t, row, "time", val_str(ev->time));
		table_set(t, row, "event", val_str(ev->type));
		table_set(t, row, "peer", val_str(peer));
		table_set(t, row, "rank", rank >= 0 ? val_int(rank) : val_none());
		table_set(t, row, "details", ev->details[0] ? val_str(ev->details) : val_none());
		table_set(t, row, "received_s", val_double(round(at * 10) / 10));
	}
	if (wr->nkept > nk)
		section_note(s, "%d older trouble or recovery events are not shown", wr->nkept - nk);
}

static void add_dead_finding(const struct watch_ras *wr, struct result *r)
{
	const struct wras_dead *d = &wr->dead[0];
	char peer[256];
	peer_text(&d->ev, d->rank, peer, sizeof(peer));
	struct finding *f;
	if (wr->ndead == 1)
		f = finding_add(r, FID_WATCH_RAS_PEER_DEAD, SEV_ERROR, "NCCL's RAS: %s died (%s at %s)", peer, d->ev.type,
				d->ev.time);
	else
		f = finding_add(r, FID_WATCH_RAS_PEER_DEAD, SEV_ERROR, "NCCL's RAS: %d processes died, first %s (%s at %s)",
				wr->ndead, peer, d->ev.type, d->ev.time);
	for (int i = 0; i < wr->ndead && i < WRAS_MAX_DEAD; i++) {
		const struct ras_event *ev = &wr->dead[i].ev;
		char who[256];
		peer_text(ev, wr->dead[i].rank, who, sizeof(who));
		finding_evidence(f, NULL, 0, "RAS monitor of %s:%u: [%s] %s: %s%s%s (received %.0f s after the start)",
				 wr->host, wr->port, ev->time, ev->type, who, ev->details[0] ? ": " : "", ev->details,
				 wr->dead[i].t);
	}
	if (wr->ndead > WRAS_MAX_DEAD)
		finding_evidence(f, NULL, 0, "and %d more", wr->ndead - WRAS_MAX_DEAD);
}

void wras_add(const struct watch_ras *wr, struct result *r, double now)
{
	if (wr->state == WRAS_WAIT)
		return; /* no NCCL in the job yet */
	struct section *s = result_section(r, "ras", "NCCL RAS (the job's own view of its ranks)");
	switch (wr->state) {
	case WRAS_NO:
	case WRAS_GAVE_UP:
		section_add(s, "monitor", "monitor", val_unknown(wr->why));
		break;
	case WRAS_FOLLOW:
		section_add(s, "monitor", "monitor",
			    val_strf("following %s:%u for %.0f s", wr->host, wr->port, now - wr->t_follow));
		break;
	default:
		section_add(s, "monitor", "monitor",
			    wr->follows ? val_strf("reconnecting to %s:%u (the connection was lost %d time%s)", wr->host,
						   wr->port, wr->lost, wr->lost == 1 ? "" : "s")
					: val_strf("not answering yet at %s:%u (%d attempt%s: %s)", wr->host, wr->port,
						   wr->attempts, wr->attempts == 1 ? "" : "s",
						   wr->last_err ? strerror(-wr->last_err) : "connecting"));
		break;
	}
	if (wr->follows == 0 && wr->nevents == 0)
		return;
	section_add(s, "monitor_events", "monitor events received", val_int((long long)wr->nevents));
	if (wr->m.bad)
		section_note(s, "RAS monitor: %llu line%s that are no event were skipped", wr->m.bad, wr->m.bad == 1 ? "" : "s");
	add_events(wr, s);
	if (wr->ndead > 0)
		add_dead_finding(wr, r);
}
