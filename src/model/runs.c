/* Typed causes and ranks of the result model: see runs.h. */
#include "model/runs.h"
#include "model/result.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

double cause_conf_add(double conf, double w)
{
	if (w > 0)
		conf = 1.0 - (1.0 - conf) * (1.0 - w);
	return conf > CAUSE_CONF_MAX ? CAUSE_CONF_MAX : conf;
}

int cause_rank_cmp(double ca, const char *a, double cb, const char *b)
{
	if (ca != cb)
		return ca < cb ? 1 : -1;
	return strcmp(a, b);
}

double cause_conf_shown(double conf)
{
	return floor(fmin(conf, CAUSE_CONF_MAX) * 100.0 + 0.5) / 100.0;
}

struct cause *cause_list_add(struct cause_list *l, const char *cause, double confidence)
{
	XGROW(l->v, l->a, l->n + 1);
	struct cause *c = &l->v[l->n++];
	memset(c, 0, sizeof(*c));
	c->cause = xstrdup(cause);
	c->confidence = confidence;
	return c;
}

void cause_add_evidence(struct cause *c, const char *file, long line, const char *text)
{
	XGROW(c->ev, c->aev, c->nev + 1);
	struct evidence *e = &c->ev[c->nev++];
	e->file = dup_or_null(file);
	e->line = line;
	e->text = xstrdup(text ? text : "");
	e->source = NULL;
}

void cause_add_evidence_from(struct cause *c, const char *source, const char *file, long line, const char *text)
{
	cause_add_evidence(c, file, line, text);
	c->ev[c->nev - 1].source = source;
}

void cause_add_finding(struct cause *c, const char *id)
{
	XGROW(c->finding_ids, c->afids, c->nfids + 1);
	c->finding_ids[c->nfids++] = xstrdup(id);
}

void cause_list_set_first(struct cause_list *l, const char *file, long line, const char *label, const char *text)
{
	free(l->first_file);
	free(l->first_label);
	free(l->first_text);
	l->have_first = true;
	l->first_file = dup_or_null(file);
	l->first_line = line;
	l->first_label = dup_or_null(label);
	l->first_text = xstrdup(text ? text : "");
}

void cause_list_release(struct cause_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		struct cause *c = &l->v[i];
		for (size_t k = 0; k < c->nev; k++) {
			free(c->ev[k].file);
			free(c->ev[k].text);
		}
		for (size_t k = 0; k < c->nfids; k++)
			free(c->finding_ids[k]);
		free(c->ev);
		free(c->finding_ids);
		free(c->cause);
	}
	free(l->v);
	free(l->first_file);
	free(l->first_label);
	free(l->first_text);
	memset(l, 0, sizeof(*l));
}

struct rank *rank_list_add(struct rank_list *l)
{
	XGROW(l->v, l->a, l->n + 1);
	struct rank *k = &l->v[l->n++];
	memset(k, 0, sizeof(*k));
	k->rank = -1;
	k->cuda_dev = -1;
	k->nvml_dev = -1;
	k->init_seconds = -1;
	return k;
}

void rank_add_transport(struct rank *k, int peer, const char *kind, int channels)
{
	XGROW(k->tr, k->atr, k->ntr + 1);
	struct rank_transport *t = &k->tr[k->ntr++];
	t->peer = peer;
	t->kind = xstrdup(kind);
	t->channels = channels;
}

void rank_add_env(struct rank *k, const char *name, const char *value)
{
	XGROW(k->env, k->aenv, k->nenv + 1);
	k->env[k->nenv].name = xstrdup(name);
	k->env[k->nenv].value = xstrdup(value ? value : "");
	k->nenv++;
}

struct rank_event *rank_add_event(struct rank *k)
{
	XGROW(k->ev, k->aev, k->nev + 1);
	struct rank_event *e = &k->ev[k->nev++];
	memset(e, 0, sizeof(*e));
	return e;
}

struct rank_comm *rank_add_comm(struct rank *k)
{
	XGROW(k->comms, k->acomms, k->ncomms + 1);
	struct rank_comm *m = &k->comms[k->ncomms++];
	memset(m, 0, sizeof(*m));
	m->rank = -1;
	return m;
}

static void rank_release(struct rank *k)
{
	free(k->host);
	free(k->bus_id);
	free(k->comm_id);
	free(k->nccl_version);
	free(k->bootstrap_if);
	free(k->network);
	free(k->stage);
	free(k->stage_name);
	free(k->verdict);
	for (size_t i = 0; i < k->ntr; i++)
		free(k->tr[i].kind);
	for (size_t i = 0; i < k->nenv; i++) {
		free(k->env[i].name);
		free(k->env[i].value);
	}
	for (size_t i = 0; i < k->nev; i++) {
		free(k->ev[i].signature);
		free(k->ev[i].finding_id);
		free(k->ev[i].file);
		free(k->ev[i].text);
		free(k->ev[i].chain);
	}
	for (size_t i = 0; i < k->ncomms; i++) {
		free(k->comms[i].comm);
		free(k->comms[i].comm_id);
		free(k->comms[i].stage);
	}
	free(k->tr);
	free(k->env);
	free(k->ev);
	free(k->comms);
	free(k->last_file);
	free(k->last_text);
}

void rank_list_release(struct rank_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		rank_release(&l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}
