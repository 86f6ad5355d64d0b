/* A bench run across nodes, by node: which ranks and GPUs each holds, the
 * transports and the network its ranks' NCCL took, and which of its ranks
 * did not finish (status and stage), so a hang names its node as well as
 * its rank and phase. Shown only when the ranks ran on more than one node
 * (the node is each rank's host: under a launcher the name it joined
 * with). */
#include "engine/bench.h"
#include "util/strbuf.h"

#include <stdio.h>
#include <string.h>

/* the index of the first rank on rank i's node */
static int first_of_node(const struct bench_run *br, int i)
{
	for (int k = 0; k < i; k++)
		if (strcmp(br->ranks[k].host, br->ranks[i].host) == 0)
			return k;
	return i;
}

/* the named nodes: a rank that stopped before saying where it runs (host
 * "") makes no node of its own on one machine */
int bench_node_count(const struct bench_run *br)
{
	int n = 0;
	for (int i = 0; i < br->o->nranks; i++)
		n += first_of_node(br, i) == i && br->ranks[i].host[0];
	return n;
}

static bool finished(const struct bench_rank *rk)
{
	return rk->done && rk->w && rk->w->status != WORKER_CRASH;
}

static const char *rank_state(const struct bench_rank *rk)
{
	return rk->w && rk->w->pid ? worker_status_name(rk->w->status) : "not started";
}

void bench_nodes_text(const struct bench_run *br, struct strbuf *sb)
{
	if (bench_node_count(br) < 2)
		return;
	for (int i = 0; i < br->o->nranks; i++) {
		if (first_of_node(br, i) != i)
			continue;
		const struct bench_rank *rk = &br->ranks[i];
		strbuf_addf(sb, "# nccl-doctor: node %s: ranks ", rk->host[0] ? rk->host : "?");
		int k = 0;
		for (int j = i; j < br->o->nranks; j++)
			if (first_of_node(br, j) == i)
				strbuf_addf(sb, "%s%d", k++ ? "," : "", j);
		strbuf_addf(sb, ", network %s", rk->nics[0] ? rk->nics : "none printed");
		k = 0;
		for (int j = i; j < br->o->nranks; j++) {
			const struct bench_rank *o = &br->ranks[j];
			if (first_of_node(br, j) != i || finished(o))
				continue;
			strbuf_addf(sb, "%s%d (%s in '%s')", k++ ? ", " : "; not finished: ", j, rank_state(o),
				    o->w ? o->w->stage : "start");
		}
		strbuf_adds(sb, "\n");
	}
}

json_t *bench_nodes_json(const struct bench_run *br)
{
	json_t *a = json_array();
	for (int i = 0; i < br->o->nranks; i++) {
		if (first_of_node(br, i) != i)
			continue;
		json_t *ranks = json_array(), *devs = json_array(), *tr = json_array(), *late = json_array();
		for (int j = i; j < br->o->nranks; j++) {
			const struct bench_rank *o = &br->ranks[j];
			if (first_of_node(br, j) != i)
				continue;
			json_array_append_new(ranks, json_integer(j));
			json_array_append_new(devs, json_integer(o->device));
			if (o->transports[0])
				json_array_append_new(tr, json_pack("{s:i,s:s}", "rank", j, "transports", o->transports));
			if (!finished(o))
				json_array_append_new(late, json_pack("{s:i,s:s,s:s}", "rank", j, "status", rank_state(o),
								      "stage", o->w ? o->w->stage : "start"));
		}
		const struct bench_rank *rk = &br->ranks[i];
		json_array_append_new(a, json_pack("{s:s,s:o,s:o,s:o,s:o,s:o}", "node", rk->host, "ranks", ranks, "devices",
						   devs, "transports", tr, "network",
						   rk->nics[0] ? json_string(rk->nics) : json_null(), "not_finished", late));
	}
	return a;
}
