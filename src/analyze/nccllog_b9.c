/* NCCL log analysis: rules added after scoring the held-out public batch 9
 * (docs/logs.md, issue 14), each on facts the rows of kb/nccl_signatures.c
 * (S64*, S08, PT02) and the model already give:
 *  - PyTorch's "Some NCCL operations have failed or timed out" after an
 *    NCCL error: the error's echo, not a timeout;
 *  - an InfiniBand memory registration that ran out of memory: the size of
 *    NCCL's buffers is a candidate besides the locked-memory limit;
 *  - a connection closed during NCCL's bootstrap: an NCCL bug before
 *    2.27.3, or the network, rather than a dead peer.
 * Called once, right after the signature causes, so that the first rule
 * is settled before the stage analysis reads have_hang. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"

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
static void failed_or_timed_out_echo(struct ana *a)
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

/* An environment line of some process that sets a variable sizing NCCL's
 * buffers or channels; NULL when none. */
static const struct nl_env *buffer_env(const struct nccllog *lg)
{
	static const char *const names[] = { "NCCL_BUFFSIZE", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS",
					      "NCCL_NCHANNELS_PER_NET_PEER", "NCCL_MIN_NRINGS", "NCCL_MAX_NRINGS" };
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].nenv; k++)
			for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++)
				if (strcmp(lg->procs[i].env[k].name, names[j]) == 0)
					return &lg->procs[i].env[k];
	return NULL;
}

/* "Call to ibv_reg_mr / ibv_reg_mr_iova2 / ibv_reg_dmabuf_mr failed with
 * error Cannot allocate memory" (S64m, S64d): the registration of NCCL's
 * network buffers (N:transport/net_ib.cc ncclIbRegMrDmaBufInternal,
 * v2.25.1-1 lines 1717-1745, registers the buffer's whole page range)
 * failed with ENOMEM. The locked-memory limit (S64m's reading, NCCL's
 * troubleshooting guide, nccl-tests#206) is one cause; the size of what
 * NCCL registers is the other: NCCL_BUFFSIZE (default 4 MiB,
 * N:init.cc DEFAULT_BUFFSIZE) times the channels. nccl_config_error 0.3,
 * 0.5 when a process shows such a variable set. */
static void reg_mr_no_memory(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].fid != FID_LOG_IB_ERROR || !strstr(e->text, "ibv_reg_") ||
		    !strstr(e->text, "Cannot allocate memory"))
			continue;
		const struct nl_env *v = buffer_env(lg);
		struct finding *f = finding_for(a->r, FID_LOG_IB_REG_NO_MEMORY, SEV_WARNING,
						"an InfiniBand memory registration ran out of memory: the locked-memory limit or "
						"the size of NCCL's buffers");
		struct cause_acc *c = contribute(a, "nccl_config_error", v ? 0.5 : 0.3, FID_LOG_IB_REG_NO_MEMORY);
		event_evidence(a, f, c, e);
		if (v) {
			finding_evidence(f, file_name(lg, v->file), (long)v->line, "%s set to %s", v->name, v->value);
			cause_evidence(c, v->file, v->line, v->name);
		}
		return;
	}
}

/* Whether NCCL version text v ("2.27.3+cuda12.9") is 2.27.3 or newer;
 * false when it is not a version. */
static bool v2273_or_newer(const char *v)
{
	int mj = 0, mn = 0, pt = 0;
	if (sscanf(v, "%d.%d.%d", &mj, &mn, &pt) != 3)
		return false;
	return mj > 2 || (mj == 2 && (mn > 27 || (mn == 27 && pt >= 3)));
}

/* "Connection closed by remote peer" (S08) whose back-trace goes through
 * bootstrap.cc, in a process that never got past bootstrap (stage below
 * T5): a connection to the bootstrap socket closed before the exchange.
 * Before 2.27.3, N:misc/socket.cc socketFinalizeAccept fails on a
 * connection that closes before its 8-byte magic (a port scan, a health
 * check, a stale rank of another job) instead of accepting again; 2.27.3
 * added socketResetAccept (v2.27.3-1, nccl#1612, maintainer: resolved in
 * 2.27.3). driver_or_kernel_bug 0.3 unless a process printed 2.27.3 or
 * newer, and bootstrap_network 0.25: who closed it is not a rank that
 * had a communicator yet. The dead peer of S08 keeps its own weight. */
static void bootstrap_peer_closed(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (strcmp(a->sigs[e->sig].id, "S08") != 0 || !strstr(e->text, "Connection closed by remote peer") ||
		    !strstr(e->chain, "bootstrap.cc:"))
			continue;
		if (e->proc >= 0 && e->proc < lg->nprocs && stage_of(&lg->procs[e->proc]) >= 5)
			continue;
		const char *fixed = NULL;
		for (int p = 0; p < lg->nprocs && !fixed; p++)
			if (v2273_or_newer(lg->procs[p].version))
				fixed = lg->procs[p].version;
		struct finding *f = finding_for(a->r, FID_LOG_BOOTSTRAP_PEER_CLOSED, SEV_WARNING,
						"a connection closed during NCCL's bootstrap, before the ranks had joined");
		finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s (back-trace: %s)", e->text, e->chain);
		if (fixed) {
			finding_evidence(f, NULL, 0, "NCCL %s ignores connections that close before their magic: "
						     "not the bug fixed in 2.27.3", fixed);
		} else {
			finding_evidence(f, NULL, 0, "before NCCL 2.27.3 such a connection fails the bootstrap (no version "
						     "2.27.3 or newer in the log)");
			struct cause_acc *c = contribute(a, "driver_or_kernel_bug", 0.3, FID_LOG_BOOTSTRAP_PEER_CLOSED);
			cause_evidence(c, e->file, e->line, e->text);
		}
		struct cause_acc *c = contribute(a, "bootstrap_network", 0.25, FID_LOG_BOOTSTRAP_PEER_CLOSED);
		cause_evidence(c, e->file, e->line, e->text);
		return;
	}
}

void b9_checks(struct ana *a)
{
	failed_or_timed_out_echo(a);
	reg_mr_no_memory(a);
	bootstrap_peer_closed(a);
}
