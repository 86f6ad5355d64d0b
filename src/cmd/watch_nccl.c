/* watch: NCCL's own diagnostics. --nccl-diag sets NCCL_RUN_DIAGNOSTICS=1
 * when the libnccl the job will load is 2.31 or newer (the version is read
 * from the library file by the library probe, never by loading it). At a
 * stall, a job whose NCCL has RAS (2.24 and newer, on unless NCCL_RAS_ENABLE=0)
 * is asked for its STATUS over NCCL_RAS_ADDR (default localhost:28028) with
 * our own client (probe/ras.h): dead processes, processes that did not
 * answer, communicators in INIT or with mismatched collective counts. */
#include "cmd/watch_int.h"
#include "kb/findings.h"
#include "probe/ncclib.h"
#include "probe/proc.h"
#include "probe/ras.h"
#include "util/ncclver.h"
#include "util/text.h"

#include <errno.h>
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
	struct ncclib_scan s;
	ncclib_scan(&s);
	int rc = -ENOENT;
	for (size_t i = 0; python_job(argv) && i < s.ntorch && rc < 0; i++) {
		const struct ncclib_torch *t = &s.torch[i];
		if (t->how == TORCH_NCCL_SHARED && t->lib >= 0 && s.libs[t->lib].has_version) {
			*v = s.libs[t->lib].version;
			str_copy(path, s.libs[t->lib].path, pathsz);
			rc = 0;
		} else if (t->how == TORCH_NCCL_STATIC && t->static_version && nccl_version_parse(t->static_version, v) == 0) {
			snprintf(path, pathsz, "%s (linked into PyTorch)", t->libtorch ? t->libtorch : t->path);
			rc = 0;
		}
	}
	if (rc < 0 && s.ld_default >= 0 && s.libs[s.ld_default].has_version) {
		*v = s.libs[s.ld_default].version;
		str_copy(path, s.libs[s.ld_default].path, pathsz);
		rc = 0;
	}
	ncclib_scan_release(&s);
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
	snprintf(note, notesz, "--nccl-diag: not available: the job loads NCCL %s (%s); NCCL_RUN_DIAGNOSTICS needs 2.31",
		 vb, path);
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
		struct finding *f = finding_add(r, FID_WATCH_RAS_PEER_DEAD, SEV_ERROR,
						"NCCL's RAS: %d process%s considered dead, %d not answering", rs->dead,
						rs->dead == 1 ? "" : "es", rs->missing);
		finding_evidence(f, NULL, 0, "RAS STATUS from %s", where);
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
	int rc = ras_query(host, port, RAS_NCCL_TIMEOUT, RAS_DEADLINE, &text, err, sizeof(err));
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
