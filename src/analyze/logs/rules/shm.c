/* NCCL log analysis, /dev/shm (shm_too_small): what tells a SIGBUS of
 * NCCL's shared memory from one of a library load, and the size of
 * /dev/shm a paste shows (df, docker's --shm-size). */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A /dev/shm segment NCCL failed to create or attach (S52) whose name holds
 * bytes NCCL never writes there: NCCL names its segments with mkstemp on
 * "/dev/shm/nccl-XXXXXX" (N:misc/shmutils.cc ncclShmOpen, N:proxy.cc;
 * before 2.12 "nccl-shm-recv-<hash>-..."), ASCII letters, digits and '-'.
 * A byte outside ASCII or a control byte means NCCL took something else
 * for the path it was handed (nccl#2190 and PR 2059: on hosts with
 * memoryless NUMA nodes a peer's cuMem descriptor was read as a /dev/shm
 * name; case 460): an NCCL bug, not the size of /dev/shm
 * (driver_or_kernel_bug 0.85, shm_too_small capped at 0.3). A user's
 * redaction ("nccl-...", "nccl-xxxxx", "nccl-*") is ASCII and stays
 * /dev/shm's. */
static bool shm_name_binary(const char *t)
{
	for (; *t && *t != ' ' && *t != '\'' && *t != '"' && *t != ','; t++)
		if ((unsigned char)*t >= 0x80 || (unsigned char)*t < 0x20 || *t == 0x7f)
			return true;
	return false;
}

void shm_name_garbled(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		const char *p = strcmp(a->sigs[e->sig].id, "S52") == 0 ? strstr(e->text, "/dev/shm/nccl-") : NULL;
		if (!p || !shm_name_binary(p + strlen("/dev/shm/nccl-")))
			continue;
		struct finding *f = finding_for(a->r, FID_LOG_SHM_NAME_GARBLED, SEV_ERROR,
						"NCCL used a /dev/shm name it never makes: it read something else as the segment's path");
		event_evidence(a, f, NULL, e);
		finding_evidence(f, NULL, 0, "NCCL's segment names are ASCII (mkstemp's nccl-XXXXXX); this one holds other bytes");
		event_evidence(a, NULL, contribute(a, "driver_or_kernel_bug", 0.85, FID_LOG_SHM_NAME_GARBLED), e);
		score_cap(a, "shm_too_small", 0.3, "the segment's name is not one NCCL makes: not the size of /dev/shm");
		return;
	}
}

/* A SIGBUS (LOG_SHM_SIGBUS rows) after a framework's libnccl load line
 * (LB01: vLLM's "Loading nccl from library X" / "Found nccl from library X")
 * in the same file, with no NCCL line of that file after the load: NCCL
 * never started, so no /dev/shm segment existed; the process died touching
 * the mapped library (LOG_NCCL_LIB_LOAD_CRASH, as LD02 on one line). The
 * SIGBUS's /dev/shm reading steps back (0.2) unless another /dev/shm
 * signature speaks for it. */
void lib_load_sigbus(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *b = &lg->ev[i];
		if (a->sigs[b->sig].fid != FID_LOG_SHM_SIGBUS)
			continue;
		const struct nl_event *load = NULL;
		for (size_t k = 0; k < lg->nev; k++) {
			const struct nl_event *e = &lg->ev[k];
			if (strcmp(a->sigs[e->sig].id, "LB01") == 0 && e->file == b->file && e->line < b->line &&
			    strstr(e->text, "nccl from library"))
				load = e;
		}
		if (!load)
			continue;
		bool nccl_after = false;
		for (int p = 0; p < lg->nprocs; p++)
			if (lg->procs[p].last_file == b->file && lg->procs[p].last_line > load->line)
				nccl_after = true;
		if (nccl_after)
			continue;
		struct finding *f = finding_add(a->r, FID_LOG_NCCL_LIB_LOAD_CRASH, SEV_ERROR,
						"a process died of SIGBUS right after loading libnccl, before NCCL printed anything");
		struct cause_acc *c = contribute(a, "version_mismatch", 0.7, FID_LOG_NCCL_LIB_LOAD_CRASH);
		event_evidence(a, f, c, load);
		event_evidence(a, f, c, b);
		bool other_shm = false;
		for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++)
			if (lg->sigcount[s] && a->sigs[s].fid != FID_LOG_SHM_SIGBUS &&
			    strcmp(nccl_signature_cause(&a->sigs[s]), "shm_too_small") == 0)
				other_shm = true;
		if (!other_shm)
			score_cap(a, "shm_too_small", 0.2,
				  "a SIGBUS right after a libnccl load, no NCCL line after it and no other /dev/shm line: "
				  "a library load crash");
		return;
	}
}

/* A size as docker and df write it: "64m", "1g", "64M", "1.0G", "2gb",
 * "67108864" (docker: bytes; df without -h: 1K blocks, def_kib). Bytes,
 * -1 when there is no number. */
static double size_at(const char *s, bool def_kib)
{
	while (*s == ' ' || *s == '=' || *s == '"' || *s == '\'' || *s == '\t')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	char *end;
	double v = strtod(s, &end);
	switch (tolower((unsigned char)*end)) {
	case 'k': return v * 1024;
	case 'm': return v * 1024 * 1024;
	case 'g': return v * 1024 * 1024 * 1024;
	case 't': return v * 1024 * 1024 * 1024 * 1024;
	case 'b': return v;
	default: return def_kib ? v * 1024 : v;
	}
}

/* The size of one SZ01 line: after "--shm-size", "shm_size:" or Ray's
 * "/dev/shm has only", or a df line's second field (its mount point
 * /dev/shm ends the line). */
static double shm_line_size(const char *t)
{
	const char *k = strstr(t, "--shm-size");
	if (k)
		return size_at(k + 10, false);
	if ((k = strstr(t, "shm_size:")))
		return size_at(k + 9, false);
	if ((k = strstr(t, "/dev/shm has only "))) /* Ray: "... has only 67108864 bytes available" */
		return size_at(k + 18, false);
	const char *m = strstr(t, "% /dev/shm");
	if (!m || (m[10] && m[10] != ' ' && m[10] != '\r'))
		return -1;
	const char *p = t; /* "shm  64M  0  64M  0% /dev/shm": the field after the name */
	while (*p == ' ')
		p++;
	while (*p && *p != ' ')
		p++;
	return p < m ? size_at(p, true) : -1;
}

/* A /dev/shm under 1 GiB (Docker's default is 64 MiB) shown in the paste
 * of a run that failed or stopped: shm_too_small 0.35, a strong hint with
 * NCCL's or PyTorch's generic errors (ncclSystemError, a bus error) beside
 * it; the finding says the size. A large one says nothing. */
void shm_size_small(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (!a->failed && !run_failed(a))
		return;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (strcmp(a->sigs[e->sig].id, "SZ01") != 0)
			continue;
		double b = shm_line_size(e->text);
		if (b < 0 || b >= 1024.0 * 1024 * 1024)
			continue;
		struct finding *f = finding_get(a->r, FID_LOG_SHM_SIZE_SEEN);
		if (f) {
			f->sev = SEV_WARNING;
			free(f->title);
			f->title = xasprintf("/dev/shm is %.0f MiB in a run that failed (under 1 GiB; Docker's default is 64 MiB)",
					     b / (1024 * 1024));
		}
		struct cause_acc *c = contribute(a, "shm_too_small", 0.35, FID_LOG_SHM_SIZE_SEEN);
		cause_evidence(c, e->file, e->line, e->text);
		return;
	}
}
