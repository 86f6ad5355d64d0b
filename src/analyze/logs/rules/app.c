/* NCCL log analysis, the application and its framework
 * (collective_mismatch_app_bug, peer_died_or_oom): ranks that wait in
 * different collectives, a peer said dead whose own log ends cleanly,
 * PyTorch's "failed or timed out" echo of an NCCL error, and nccl-tests'
 * own exit code. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PT_FAILED_OR_TIMED_OUT "Some NCCL operations have failed or timed out"

/* An NCCL error (a root failure or its consequence) logged in e's file
 * before e; NULL when none. An abort (PT08, S69) is not one: PyTorch
 * aborts communicators after a timeout too. */
static const struct nl_event *error_before(const struct ana *a, const struct nl_event *e)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *x = &lg->ev[i];
		enum nccl_sig_role r = a->sigs[x->sig].role;
		if ((r == NSR_ROOT || r == NSR_SECONDARY) && a->sigs[x->sig].fid != FID_LOG_COMM_ABORTED &&
		    x->file == e->file && x->line < e->line)
			return x;
	}
	return NULL;
}

/* PyTorch's WorkNCCL::handleException logs "Some NCCL operations have
 * failed or timed out. Due to the asynchronous nature of CUDA kernels,
 * ..." whenever the work holds an exception: the timeout checkTimeout sets
 * and equally an NCCL error the watchdog took from ncclCommGetAsyncError
 * (pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp,
 * handleException). When every hang marker of the log is that line and
 * each comes after an NCCL error in its file, the error explains it: the
 * run failed, it did not time out (have_hang off, the finding a warning
 * that says so). A real timeout line (PT01, PT02f) keeps the hang. */
void failed_or_timed_out_echo(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (!a->have_hang)
		return;
	const struct nl_event *echo = NULL, *err = NULL;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].role != NSR_HANG)
			continue;
		const struct nl_event *x = strstr(e->text, PT_FAILED_OR_TIMED_OUT) ? error_before(a, e) : NULL;
		if (!x)
			return; /* a hang marker of its own */
		if (!echo) {
			echo = e;
			err = x;
		}
	}
	if (!echo)
		return;
	a->have_hang = false;
	struct finding *f = finding_get(a->r, FID_LOG_WATCHDOG_TIMEOUT);
	if (!f)
		return;
	if (f->sev > SEV_WARNING)
		f->sev = SEV_WARNING;
	finding_evidence(f, file_name(lg, err->file), (long)err->line,
			 "not a timeout: PyTorch prints '" PT_FAILED_OR_TIMED_OUT "' for any exception of a collective, and "
			 "this NCCL error came first: %s",
			 err->text);
}

/* Watchdog timeouts that name different collectives. */
void check_watchdog(struct ana *a)
{
	const struct nccllog *lg = a->lg;
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
}

/* Whether comms c and d are the same communicator (commId when printed,
 * else the same size and other ranks). */
static bool same_comm(const struct nl_comm *c, const struct nl_comm *d)
{
	if (c->commid[0] && d->commid[0])
		return strcmp(c->commid, d->commid) == 0;
	return c->nranks == d->nranks && c->rank != d->rank;
}

void peer_exit_check(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		enum finding_id fid = a->sigs[e->sig].fid;
		if (!finding_is_peer_loss(fid) || e->proc < 0)
			continue;
		const struct nl_proc *p = &lg->procs[e->proc];
		for (int ci = 0; ci < p->ncomms; ci++) {
			const struct nl_comm *c = &p->comms[ci];
			if (c->rank < 0 || (c->destroyed && !c->aborted))
				continue;
			for (int j = 0; j < lg->nprocs; j++) {
				const struct nl_proc *q = &lg->procs[j];
				for (int cj = 0; j != e->proc && cj < q->ncomms; cj++) {
					const struct nl_comm *d = &q->comms[cj];
					if (!d->destroyed || d->aborted || !d->complete || !same_comm(c, d))
						continue;
					char l1[96], l2[96], title[128];
					snprintf(title, sizeof(title), "rank %d ended normally while rank %d still waited on it",
						 d->rank, c->rank);
					/* finding_for: the catalog's fix (the same collectives on every
					 * rank) is the first screen's next step */
					struct finding *f = finding_for(a->r, FID_LOG_PEER_EXITED_CLEANLY, SEV_ERROR, title);
					finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s: %s",
							 proc_label(lg, e->proc, l1, sizeof(l1)), e->text);
					finding_evidence(f, file_name(lg, d->file), (long)d->stage_line,
							 "%s: its communicator destroyed cleanly (Destroy COMPLETE, no abort)",
							 proc_label(lg, j, l2, sizeof(l2)));
					struct cause_acc *m = contribute(a, "collective_mismatch_app_bug", 0.8,
									 FID_LOG_PEER_EXITED_CLEANLY);
					cause_evidence(m, e->file, e->line, e->text);
					const char *t = ana_text(a, "rank %d ended normally (its communicator destroyed, no abort) "
								    "while rank %d still waited on it", d->rank, c->rank);
					if (t) /* the reading, ahead of the stage's lines */
						cause_evidence_first(m, d->file, d->stage_line, t);
					/* the peer did not die: what said so weighs less */
					score_cap(a, "peer_died_or_oom", 0.4,
						  "the peer said dead destroyed its communicator cleanly: it did not die");
					return;
				}
			}
		}
	}
}

/* The status in "Exit code:    3" (Open MPI) or "Exited with exit code 3"
 * (Slurm); -1 none. */
static int exit_code_of(const char *t)
{
	const char *p = strstr(t, "Exit code:");
	if (p)
		p += strlen("Exit code:");
	else if ((p = strstr(t, "Exited with exit code ")))
		p += strlen("Exited with exit code ");
	else
		return -1;
	char *end;
	long v = strtol(p, &end, 10);
	return end == p || v < 0 || v > 255 ? -1 : (int)v;
}

static const char *const hang_fids[] = { "LOG_HANG_STAGE_UNKNOWN", "LOG_HANG_BOOTSTRAP", "LOG_HANG_INIT_CONNECT",
					  "LOG_HANG_RUNTIME_CONNECT", "LOG_HANG_DATA_PATH" };

/* A launcher's exit code (MP01) in a log with nccl-tests' output (its
 * table header TB01, its GPU lines NT02): nccl-tests exits with the
 * testResult_t of the step that failed (nccl-tests src/common.h, the same
 * values v2.0.0 to v2.19.6: 1 testInternalError, 2 testCudaError, 3
 * testNcclError, 4 testTimeout; main() returns run()'s result, TESTCHECK in
 * 2.13+; wrong results exit 1 before 2.17.3, 6 testNumResults after). 1, 2,
 * 3, 6: the process failed by itself, the run did not hang (have_hang and
 * the stage findings read a stop as a possible hang: they drop to info and
 * say why). 4: nccl-tests' -T timeout ended a collective that hung. */
void tests_exit_code(struct ana *a)
{
	static const char *const meaning[] = { NULL,
					       "testInternalError, or before nccl-tests 2.17.3 wrong results",
					       "testCudaError: a CUDA call failed",
					       "testNcclError: an NCCL call failed",
					       "testTimeout: a collective did not finish within -T seconds",
					       NULL,
					       "testNumResults: wrong results or a bandwidth below the check" };
	const struct nccllog *lg = a->lg;
	if (!count_of(a, "TB01") && !count_of(a, "NT02"))
		return;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		int code = strcmp(a->sigs[e->sig].id, "MP01") == 0 ? exit_code_of(e->text) : -1;
		if (code <= 0 || code >= (int)(sizeof(meaning) / sizeof(meaning[0])) || !meaning[code])
			continue;
		a->failed = true;
		for (size_t k = 0; k < sizeof(hang_fids) / sizeof(hang_fids[0]); k++) {
			struct finding *h = result_find(a->r, hang_fids[k]);
			if (!h)
				continue;
			if (code == 4) {
				h->sev = SEV_ERROR;
				finding_evidence(h, file_name(lg, e->file), (long)e->line,
						 "a hang: nccl-tests exited with 4 (testTimeout), its own timeout ended the collective");
			} else if (!a->have_hang) {
				h->sev = SEV_INFO;
				if (k == 0) { /* its title speaks of a possible hang only */
					free(h->title);
					h->title = xasprintf("the run failed at a stage its log does not show (nccl-tests exited "
							     "with %d, not a hang)", code);
				} else {
					title_prefix(h, "not a hang, the test exited with an error; ");
				}
				finding_evidence(h, file_name(lg, e->file), (long)e->line,
						 "nccl-tests exited with %d (%s): the run stopped by itself, where the log ends is where "
						 "it failed; the candidates keep the order of a stop there",
						 code, meaning[code]);
			}
		}
		if (code != 4) {
			char title[200];
			snprintf(title, sizeof(title), "nccl-tests exited with %d (%s): the run failed, it did not hang", code,
				 meaning[code]);
			struct finding *f = finding_for(a->r, FID_LOG_NCCL_TESTS_EXIT, SEV_ERROR, title);
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s", e->text);
		}
		return;
	}
}

/* The weight of a program's own exception with nothing stronger: above
 * the priors of where a run stopped (PRIORS_ONLY), below any line that
 * names a cause (a framework catalog line decides at 0.8). */
#define PROGRAM_EXCEPTION 0.35

/* A traceback that ends in a built-in exception of a program's own
 * mistake (reader: nl_py_program_error: ValueError, TypeError,
 * AssertionError ...) in a log where nothing else names a cause: no NCCL
 * failure, no consequence, no cause at the priors' limit or above. The
 * code of the job or its framework refused an argument, a value or a
 * state; NCCL, the network and the driver mostly come as RuntimeError,
 * OSError or classes of their own (where a framework asserts on them, a
 * row of its own names the cause first: vLLM's local_world_size, VL08). Of the corpus's cases whose paste holds such a
 * line and nothing stronger, three of four were the application's own
 * bug (the fourth a launcher's local-rank mapping). */
void program_exception(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (!lg->py_prog.line || a->have_any_root || a->have_secondary)
		return;
	if (score_best_known(a) >= PRIORS_ONLY)
		return;
	struct finding *f = finding_for(a->r, FID_LOG_PROGRAM_EXCEPTION, SEV_ERROR,
					"the job stopped on an exception of the program's own code");
	finding_evidence(f, file_name(lg, lg->py_prog.file), (long)lg->py_prog.line, "%s", lg->py_prog.text);
	struct cause_acc *c = contribute(a, "collective_mismatch_app_bug", PROGRAM_EXCEPTION, FID_LOG_PROGRAM_EXCEPTION);
	cause_evidence(c, lg->py_prog.file, lg->py_prog.line, lg->py_prog.text);
	a->failed = true;
}
