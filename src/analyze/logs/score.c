/* NCCL log analysis: the cause table (noisy-or of weights, with evidence
 * lines and finding ids per cause). The only code that adds to, caps or
 * drops a cause: the rules call contribute() (an add: its reason is the
 * finding id), score_cap() and score_drop() (each with the reason, kept
 * in a->notes), and score_close() ranks them once every rule has run. */
#include "analyze/logs/ana.h"
#include "kb/findings.h"

#include <string.h>

struct cause_acc *cause_get(struct ana *a, const char *cause)
{
	for (int i = 0; i < a->ncauses; i++)
		if (strcmp(a->causes[i].cause, cause) == 0)
			return &a->causes[i];
	if (a->ncauses >= 32)
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
	c->conf = 1.0 - (1.0 - c->conf) * (1.0 - w);
	if (c->conf > 0.97)
		c->conf = 0.97;
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
