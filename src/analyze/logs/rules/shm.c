/* NCCL log analysis, /dev/shm (shm_too_small): what tells a SIGBUS of
 * NCCL's shared memory from one of a library load. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

#include <string.h>

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
