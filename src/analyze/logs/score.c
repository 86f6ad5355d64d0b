/* NCCL log analysis: the cause table (noisy-or of weights, the ranking
 * formula of model/runs.h, with evidence lines and finding ids per cause). The only code that adds to, caps or
 * drops a cause: the rules call contribute() (an add: its reason is the
 * finding id), score_cap() and score_drop() (each with the reason, kept
 * in a->notes), and score_close() ranks them once every rule has run. */
#include "analyze/logs/ana.h"
#include "kb/causes.h"
#include "kb/findings.h"

#include <stdlib.h>
#include <string.h>

struct cause_acc *cause_get(struct ana *a, const char *cause)
{
	cause = kb_cause_canonical(cause); /* a rule that still names a former id */
	for (int i = 0; i < a->ncauses; i++)
		if (strcmp(a->causes[i].cause, cause) == 0)
			return &a->causes[i];
	if (a->ncauses >= MAX_CAUSES)
		return NULL;
	struct cause_acc *c = &a->causes[a->ncauses++];
	memset(c, 0, sizeof(*c));
	c->cause = cause;
	return c;
}

/* Adds weight w to a cause (noisy-or), with the finding id and evidence. */
struct cause_acc *contribute(struct ana *a, const char *cause, double w, enum finding_id id)
{
	const char *fid = id < FID_COUNT ? kb_finding_def(id)->id : NULL; /* FID_COUNT: none */
	if (w <= 0)
		return NULL;
	struct cause_acc *c = cause_get(a, cause);
	if (!c)
		return NULL;
	c->conf = cause_conf_add(c->conf, w);
	if (fid) {
		bool have = false;
		for (int i = 0; i < c->nfids; i++)
			if (strcmp(c->fids[i], fid) == 0)
				have = true;
		if (!have && c->nfids < MAX_CAUSE_FIDS)
			c->fids[c->nfids++] = fid;
	}
	return c;
}

void cause_evidence(struct cause_acc *c, int file, uint64_t line, const char *text)
{
	if (!c || c->nev >= MAX_CAUSE_EV)
		return;
	for (int i = 0; i < c->nev; i++)
		if (c->ev[i].file == file && c->ev[i].line == line)
			return;
	c->ev[c->nev].file = file;
	c->ev[c->nev].line = line;
	c->ev[c->nev].text = text;
	c->nev++;
}

void cause_evidence_first(struct cause_acc *c, int file, uint64_t line, const char *text)
{
	if (!c)
		return;
	for (int i = 0; i < c->nev; i++)
		if (c->ev[i].file == file && c->ev[i].line == line) { /* the line is there: it moves up with the reading */
			memmove(&c->ev[i], &c->ev[i + 1], (size_t)(c->nev - i - 1) * sizeof(c->ev[0]));
			c->nev--;
			break;
		}
	int n = c->nev < MAX_CAUSE_EV ? c->nev : MAX_CAUSE_EV - 1;
	memmove(&c->ev[1], &c->ev[0], (size_t)n * sizeof(c->ev[0]));
	c->ev[0].file = file;
	c->ev[0].line = line;
	c->ev[0].text = text;
	c->nev = n + 1;
}

void cause_fact(struct cause_acc *c, const char *text)
{
	if (!c || !text || !text[0] || c->nfacts >= MAX_CAUSE_FACTS)
		return;
	for (int i = 0; i < c->nfacts; i++)
		if (strcmp(c->facts[i], text) == 0)
			return;
	c->facts[c->nfacts++] = text;
}

const struct cause_acc *score_find(const struct ana *a, const char *cause)
{
	cause = kb_cause_canonical(cause);
	for (int i = 0; i < a->ncauses; i++)
		if (strcmp(a->causes[i].cause, cause) == 0)
			return &a->causes[i];
	return NULL;
}

double score_conf(const struct ana *a, const char *cause)
{
	const struct cause_acc *c = score_find(a, cause);
	return c ? c->conf : 0;
}

double score_best_known(const struct ana *a)
{
	double best = 0;
	for (int i = 0; i < a->ncauses; i++)
		if (strcmp(a->causes[i].cause, "unknown") != 0 && a->causes[i].conf > best)
			best = a->causes[i].conf;
	return best;
}

static void note(struct ana *a, const struct cause_acc *c, double to, bool dropped, const char *why)
{
	if (a->nnotes >= MAX_SCORE_NOTES) {
		a->notes_lost++;
		return;
	}
	a->notes[a->nnotes++] = (struct score_note){ c->cause, why, c->conf, to, dropped };
}

void score_cap(struct ana *a, const char *cause, double cap, const char *why)
{
	cause = kb_cause_canonical(cause);
	for (int i = 0; i < a->ncauses; i++) {
		struct cause_acc *c = &a->causes[i];
		if (strcmp(c->cause, cause) != 0)
			continue;
		if (c->conf > cap) {
			note(a, c, cap, false, why);
			c->conf = cap;
		}
		return;
	}
}

void score_drop(struct ana *a, const char *cause, const char *why)
{
	cause = kb_cause_canonical(cause);
	for (int i = 0; i < a->ncauses; i++) {
		if (strcmp(a->causes[i].cause, cause) != 0)
			continue;
		note(a, &a->causes[i], 0, true, why);
		memmove(&a->causes[i], &a->causes[i + 1], sizeof(a->causes[0]) * (size_t)(a->ncauses - i - 1));
		a->ncauses--;
		return;
	}
}

void score_link_finding(struct ana *a, const char *cause, const char *fid)
{
	struct cause_acc *c = cause_get(a, cause);
	if (!c || c->nfids >= MAX_CAUSE_FIDS)
		return;
	for (int j = 0; j < c->nfids; j++)
		if (strcmp(c->fids[j], fid) == 0)
			return;
	c->fids[c->nfids++] = fid;
}

static int cmp_cause(const void *x, const void *y)
{
	const struct cause_acc *a = x, *b = y;
	return cause_rank_cmp(a->conf, a->cause, b->conf, b->cause);
}

void score_close(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (int i = 0; i < a->ncauses; i++)
		if (a->causes[i].conf >= 0.5)
			a->failed = true;
	if (a->failed && a->ncauses == 0) {
		struct cause_acc *c = contribute(a, "unknown", 0.1, FID_COUNT);
		for (size_t i = 0; i < lg->nev && c; i++)
			if (a->sigs[lg->ev[i].sig].role != NSR_INFO)
				cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
	}
	if (a->ncauses == 0 && result_exit_code(a->r) >= 1) /* not healthy, no lead */
		contribute(a, "unknown", 0.1, FID_COUNT);
	qsort(a->causes, (size_t)a->ncauses, sizeof(a->causes[0]), cmp_cause);
	/* keep what says something: weak echoes of a strong cause go; with
	 * only weak priors (a log that just ends) their order is the answer */
	double floor_conf = a->ncauses && a->causes[0].conf >= 0.3 ? 0.1 : 0.05;
	while (a->ncauses > 1 && a->causes[a->ncauses - 1].conf < floor_conf) {
		note(a, &a->causes[a->ncauses - 1], 0, true,
		     floor_conf > 0.05 ? "below 0.1 beside a cause of 0.3 or more: an echo of it"
				       : "below 0.05: weaker than the weakest prior");
		a->ncauses--;
	}
}
