/* NCCL log analysis: a "dead" peer that in fact ended normally. A rank
 * that sees its connection closed by a peer (`socketProgress: Connection
 * closed by remote peer`, ncclRemoteError) reads like a crash of that peer;
 * when the peer's own log shows its communicator destroyed cleanly
 * (`comm 0x.. rank N ... - Destroy COMPLETE`, not an abort), the peer did
 * not die: it finished its collectives while this rank still waited in
 * one, so the ranks issued different collectives (a count or a size that
 * differs: NCCL's ring completes on the rank that needed fewer bytes). Seen
 * on the H200 with two ranks all_reducing 4 and 16 MiB
 * (tests/fixtures/logs/real-h200-2rank/collsize). */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"

#include <stdio.h>
#include <string.h>

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
		if ((fid != FID_LOG_PEER_CONNECTION_LOST && fid != FID_LOG_NCCL_REMOTE_ERROR) || e->proc < 0)
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
					char l1[96], l2[96];
					struct finding *f = finding_add(a->r, FID_LOG_PEER_EXITED_CLEANLY, SEV_ERROR,
									"rank %d ended normally while rank %d still waited on it",
									d->rank, c->rank);
					finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s: %s",
							 proc_label(lg, e->proc, l1, sizeof(l1)), e->text);
					finding_evidence(f, file_name(lg, d->file), (long)d->stage_line,
							 "%s: its communicator destroyed cleanly (Destroy COMPLETE, no abort)",
							 proc_label(lg, j, l2, sizeof(l2)));
					struct cause_acc *m = contribute(a, "collective_mismatch_app_bug", 0.8,
									 FID_LOG_PEER_EXITED_CLEANLY);
					cause_evidence(m, e->file, e->line, e->text);
					/* the peer did not die: what said so weighs less */
					struct cause_acc *dead = cause_get(a, "peer_died_or_oom");
					if (dead && dead->conf > 0.4)
						dead->conf = 0.4;
					return;
				}
			}
		}
	}
}
