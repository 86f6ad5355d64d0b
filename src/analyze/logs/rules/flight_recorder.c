/* NCCL log rules: the PyTorch flight-recorder dumps read by
 * logs/inputs/flight_recorder.c and pickle.c. Per process group, the ranks' first unfinished collectives
 * are matched (as PyTorch's fr_trace does): different collectives, seq ids,
 * sizes or dtypes are a collective mismatch; a rank of the group without a
 * dump, or one whose entries never reach the collective the others wait
 * in, is the straggler; every rank started in the same collective points
 * to the data path. */
#include "analyze/logs/inputs/flight_recorder.h"
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"

#include <stdio.h>
#include <string.h>

/* "nccl:all_reduce seq 12 sizes [[1024]] float (started)" */
static void head_text(const struct fr_head *h, char *out, size_t outsz)
{
	if (h->seq < 0)
		snprintf(out, outsz, "none");
	else
		snprintf(out, outsz, "%s seq %lld sizes %s %s (%s)", h->name[0] ? h->name : "?", h->seq, h->sizes,
			 h->dtypes, h->state[0] ? h->state : "?");
}

static bool same_call(const struct fr_head *x, const struct fr_head *y)
{
	return x->seq == y->seq && strcmp(x->name, y->name) == 0 && strcmp(x->sizes, y->sizes) == 0 &&
	       strcmp(x->dtypes, y->dtypes) == 0;
}

static struct fr_pg *find_pg(struct fr_dump *d, const char *name)
{
	for (int i = 0; i < d->npg; i++)
		if (strcmp(d->pg[i].name, name) == 0)
			return &d->pg[i];
	return NULL;
}

static bool has_rank(const struct nl_fr *fr, int rank)
{
	for (int i = 0; i < fr->ndumps; i++)
		if (fr->dumps[i].rank == rank)
			return true;
	return false;
}

/* Whether dump i is the first of its rank (among those naming pgname, or
 * among all dumps when pgname is NULL): two dumps of one rank (a watchdog's
 * pickle and a JSON dump taken during the hang) are one rank, not two. */
static bool first_of_rank(struct nl_fr *fr, int i, const char *pgname)
{
	for (int j = 0; j < i; j++)
		if (fr->dumps[j].rank == fr->dumps[i].rank && (!pgname || find_pg(&fr->dumps[j], pgname)))
			return false;
	return true;
}

/* Per rank and group: where it stands (the summary finding). */
static void fr_summary(struct ana *a, struct nl_fr *fr)
{
	const struct nccllog *lg = a->lg;
	struct finding *f = finding_add(a->r, FID_LOG_FR_SUMMARY, SEV_INFO, "%d flight-recorder dump%s", fr->ndumps,
					fr->ndumps == 1 ? "" : "s");
	char h1[256], h2[256];
	/* a rank dumped more than once: a note, counted once everywhere else */
	for (int i = 0; i < fr->ndumps && f->nev < 24; i++) {
		if (!first_of_rank(fr, i, NULL))
			continue;
		int n = 0;
		for (int j = i; j < fr->ndumps; j++)
			n += fr->dumps[j].rank == fr->dumps[i].rank;
		if (n == 2)
			finding_evidence(f, NULL, 0, "two dumps of rank %d (counted as one rank)", fr->dumps[i].rank);
		else if (n > 2)
			finding_evidence(f, NULL, 0, "%d dumps of rank %d (counted as one rank)", n, fr->dumps[i].rank);
	}
	for (int i = 0; i < fr->ndumps && f->nev < 24; i++) {
		const struct fr_dump *d = &fr->dumps[i];
		for (int k = 0; k < d->npg && f->nev < 24; k++) {
			const struct fr_pg *p = &d->pg[k];
			if (p->last_done.seq < 0 && p->head.seq < 0)
				continue;
			head_text(&p->last_done, h1, sizeof(h1));
			head_text(&p->head, h2, sizeof(h2));
			finding_evidence(f, file_name(lg, d->file), 0, "rank %d pg %s%s%s%s: last completed %s; first not completed %s",
					 d->rank, p->name, p->desc[0] ? " (" : "", p->desc, p->desc[0] ? ")" : "", h1, h2);
		}
	}
}

/* One process group across the dumps; true when it shows a stuck collective. */
static bool fr_group(struct ana *a, struct nl_fr *fr, const char *pgname)
{
	const struct nccllog *lg = a->lg;
	struct fr_dump *ref = NULL;
	struct fr_pg *rp = NULL;
	/* ndumps: the dumps naming the group; nranks: the distinct ranks among them */
	int nhead = 0, nstarted = 0, ndumps = 0, nranks = 0;
	for (int i = 0; i < fr->ndumps; i++) {
		struct fr_pg *p = find_pg(&fr->dumps[i], pgname);
		if (!p)
			continue;
		ndumps++;
		nranks += first_of_rank(fr, i, pgname);
		if (p->head.seq >= 0) {
			nhead++;
			nstarted += strcmp(p->head.state, "started") == 0;
			if (!rp || p->head.seq < rp->head.seq)
				ref = &fr->dumps[i], rp = p;
		}
	}
	if (!rp)
		return false; /* nothing pending in this group */
	char t1[256], t2[256];
	head_text(&rp->head, t1, sizeof(t1));
	bool problem = false;
	/* ranks on another collective, or that never issued this one */
	for (int i = 0; i < fr->ndumps; i++) {
		struct fr_dump *d = &fr->dumps[i];
		struct fr_pg *p = find_pg(d, pgname);
		if (!p || d == ref || d->rank == ref->rank)
			continue; /* another dump of the same rank is no other rank */
		if (p->head.seq >= 0 && !same_call(&p->head, &rp->head)) {
			head_text(&p->head, t2, sizeof(t2));
			struct finding *f = finding_get(a->r, FID_LOG_FR_MISMATCH);
			if (!f)
				f = finding_add(a->r, FID_LOG_FR_MISMATCH, SEV_ERROR, "pg %s: rank %d waits in %s, rank %d in %s",
						pgname, ref->rank, t1, d->rank, t2);
			finding_evidence(f, file_name(lg, d->file), 0, "pg %s: rank %d waits in %s; rank %d waits in %s", pgname,
					 ref->rank, t1, d->rank, t2);
			snprintf(d->text[0], sizeof(d->text[0]), "flight recorder pg %s: rank %d in %s, rank %d in %s", pgname,
				 ref->rank, rp->head.name, d->rank, p->head.name);
			struct cause_acc *c = contribute(a, "collective_mismatch_app_bug", 0.85, FID_LOG_FR_MISMATCH);
			cause_evidence(c, d->file, 0, d->text[0]);
			problem = true;
		} else if (p->head.seq < 0 && p->last_done.seq < rp->head.seq) {
			head_text(&p->last_done, t2, sizeof(t2));
			struct finding *f = finding_add(a->r, FID_LOG_FR_STRAGGLER, SEV_ERROR,
							"pg %s: rank %d never issued %s", pgname, d->rank, t1);
			finding_evidence(f, file_name(lg, d->file), 0, "rank %d: last completed %s, nothing pending", d->rank, t2);
			snprintf(d->text[1], sizeof(d->text[1]), "flight recorder pg %s: rank %d never issued seq %lld (%s)",
				 pgname, d->rank, rp->head.seq, rp->head.name);
			struct cause_acc *c = contribute(a, "peer_died_or_oom", 0.55, FID_LOG_FR_STRAGGLER);
			cause_evidence(c, d->file, 0, d->text[1]);
			c = contribute(a, "collective_mismatch_app_bug", 0.3, FID_LOG_FR_STRAGGLER);
			cause_evidence(c, d->file, 0, d->text[1]);
			problem = true;
		}
	}
	/* ranks of the group (pg_config) with no dump at all */
	int missing[16], nmiss = 0, nmiss_all = 0;
	for (int k = 0; k < rp->nranks; k++)
		if (!has_rank(fr, rp->ranks[k])) {
			if (nmiss < 16)
				missing[nmiss++] = rp->ranks[k];
			nmiss_all++;
		}
	if (nmiss_all && fr->ndumps > 0) {
		char list[120] = "";
		size_t o = 0;
		for (int k = 0; k < nmiss && o + 12 < sizeof(list); k++)
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%d", k ? ", " : "", missing[k]);
		/* one dump alone says little about the others: the user may have
		 * given only it */
		bool alone = nranks == 1;
		struct finding *f = finding_get(a->r, FID_LOG_FR_STRAGGLER);
		if (!f)
			f = finding_add(a->r, FID_LOG_FR_STRAGGLER, alone ? SEV_WARNING : SEV_ERROR,
					"pg %s: no dump from rank%s %s%s while rank %d waits in %s", pgname, nmiss_all == 1 ? "" : "s",
					list, nmiss_all > nmiss ? ", ..." : "", ref->rank, t1);
		if (alone)
			finding_evidence(f, NULL, 0, "only one rank's dump was given: give every rank's dump to tell a "
						     "missing rank from one that was left out");
		finding_evidence(f, file_name(lg, ref->file), 0, "pg %s has %d ranks (pg_config), dumps from %d; missing: %s%s",
				 pgname, rp->nranks, nranks, list, nmiss_all > nmiss ? ", ..." : "");
		snprintf(ref->text[2], sizeof(ref->text[2]), "flight recorder pg %s: no dump from rank%s %s while the others wait in %s",
			 pgname, nmiss_all == 1 ? "" : "s", list, rp->head.name);
		struct cause_acc *c = contribute(a, "peer_died_or_oom", alone ? 0.25 : 0.5, FID_LOG_FR_STRAGGLER);
		cause_evidence(c, ref->file, 0, ref->text[2]);
		problem = true;
	}
	if (!problem && nhead == ndumps && nstarted == nhead && nranks > 1) {
		struct finding *f = finding_add(a->r, FID_LOG_FR_ALL_STUCK, SEV_ERROR, "pg %s: all %d ranks started %s and none finished",
						pgname, nranks, t1);
		finding_evidence(f, file_name(lg, ref->file), 0, "%s", nccl_stage_hang_meaning(10));
		snprintf(ref->text[3], sizeof(ref->text[3]), "flight recorder pg %s: all %d ranks started %s, none finished",
			 pgname, nranks, rp->head.name);
		static const struct {
			const char *cause;
			double w;
		} dp[] = { { "p2p_pcie_acs_iommu", 0.35 }, { "hardware_xid_nvlink", 0.3 }, { "ib_rdma_config", 0.2 } };
		for (size_t k = 0; k < sizeof(dp) / sizeof(dp[0]); k++)
			cause_evidence(contribute(a, dp[k].cause, dp[k].w, FID_LOG_FR_ALL_STUCK), ref->file, 0, ref->text[3]);
		problem = true;
	}
	return problem;
}

void flight_recorder_dumps(struct ana *a)
{
	struct nl_fr *fr = a->lg->fr;
	if (!fr)
		return;
	if (fr->bad) {
		struct finding *f = finding_add(a->r, FID_LOG_FR_SUMMARY, SEV_WARNING, "a flight-recorder dump could not be read");
		finding_evidence(f, file_name(a->lg, fr->bad_file), 0, "%s", fr->bad_text);
	}
	if (!fr->ndumps)
		return;
	fr_summary(a, fr);
	/* every group named by any dump, once */
	for (int i = 0; i < fr->ndumps; i++)
		for (int k = 0; k < fr->dumps[i].npg; k++) {
			const char *name = fr->dumps[i].pg[k].name;
			bool seen = false;
			for (int j = 0; j < i && !seen; j++)
				seen = find_pg(&fr->dumps[j], name) != NULL;
			for (int kk = 0; kk < k && !seen; kk++)
				seen = strcmp(fr->dumps[i].pg[kk].name, name) == 0;
			if (!seen && fr_group(a, fr, name))
				a->failed = true;
		}
}
