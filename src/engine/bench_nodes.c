/* A bench run across nodes, by node: which ranks and GPUs each holds, the
 * transports and the network its ranks' NCCL took, and which of its ranks
 * did not finish (status and stage), so a hang names its node as well as
 * its rank and phase. Shown only when the ranks ran on more than one node
 * (the node is each rank's host: under a launcher the name it joined
 * with). */
#include "engine/bench.h"
#include "kb/findings.h"
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

/* The ranks each process of a world drives when more than one (-g G under
 * a launcher: ranks process x G + k, all on the process's node), else 0:
 * a rank's process is then named with it. */
static int ranks_per_process(const struct bench_run *br)
{
	int per = br->o->world ? bench_world_per_process() : 1;
	return per > 1 ? per : 0;
}

void bench_nodes_text(const struct bench_run *br, struct strbuf *sb)
{
	int per = ranks_per_process(br);
	/* one node of several processes (mpirun -np 2 ... -g 2 on one host): the line names them */
	if (bench_node_count(br) < 2 && !per)
		return;
	for (int i = 0; i < br->o->nranks; i++) {
		if (first_of_node(br, i) != i)
			continue;
		const struct bench_rank *rk = &br->ranks[i];
		strbuf_addf(sb, "# nccl-doctor: node %s: ranks ", rk->host[0] ? rk->host : "?");
		int k = 0;
		for (int j = i; j < br->o->nranks; j++) {
			if (first_of_node(br, j) != i)
				continue;
			strbuf_addf(sb, "%s%d", !k++ ? "" : per && j % per == 0 ? ", " : ",", j);
			if (per && j % per == per - 1) /* "ranks 0,1 (process 0), 2,3 (process 1)" */
				strbuf_addf(sb, " (process %d)", j / per);
		}
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
		json_t *node = json_pack("{s:s,s:o,s:o,s:o,s:o,s:o}", "node", rk->host, "ranks", ranks, "devices", devs,
					 "transports", tr, "network", rk->nics[0] ? json_string(rk->nics) : json_null(),
					 "not_finished", late);
		int per = ranks_per_process(br);
		if (per) { /* the processes of the node, each of per ranks */
			json_t *procs = json_array();
			for (int j = i; j < br->o->nranks; j++)
				if (first_of_node(br, j) == i && j % per == 0)
					json_array_append_new(procs, json_integer(j / per));
			json_object_set_new(node, "processes", procs);
		}
		json_array_append_new(a, node);
	}
	return a;
}

/* The NCCL each rank loaded, compared across the ranks: ranks of one
 * communicator on different NCCL versions can hang in init or fail with
 * protocol errors, and across nodes it is most often the node left out of
 * an upgrade (merge's FLEET_VERSION_DIFFERS, said here by the run itself:
 * a job's nodes rarely have their own checkups merged). */
/* whether rank i is the first of the ranks before it (from `from`) with
 * its NCCL version and, when host, its host too */
static bool first_with(const struct bench_rank *rk, int from, int i, bool host)
{
	for (int k = from; k < i; k++)
		if (strcmp(rk[k].nccl_version, rk[i].nccl_version) == 0 && (!host || strcmp(rk[k].host, rk[i].host) == 0))
			return false;
	return true;
}

void bench_nodes_versions(const struct bench_run *br, struct result *r)
{
	const struct bench_rank *rk = br->ranks;
	int n = br->o->nranks, distinct = 0;
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < n; i++) { /* each version once, with the nodes that hold it */
		if (!rk[i].nccl_version[0] || !first_with(rk, 0, i, false))
			continue;
		strbuf_addf(&sb, "%s%s on ", distinct++ ? "; " : "", rk[i].nccl_version);
		for (int j = i, shown = 0; j < n; j++)
			if (strcmp(rk[j].nccl_version, rk[i].nccl_version) == 0 && first_with(rk, i, j, true))
				strbuf_addf(&sb, "%s%s", shown++ ? "," : "", rk[j].host[0] ? rk[j].host : "?");
	}
	if (distinct >= 2) {
		struct finding *f = finding_add(r, FID_FLEET_VERSION_DIFFERS, SEV_WARNING, "NCCL differs across the ranks: %s",
						strbuf_str(&sb));
		for (int i = 0, shown = 0; i < n && shown < 16; i++)
			if (rk[i].nccl_version[0]) {
				finding_evidence(f, NULL, 0, "rank %d (node %s, device %d) loaded NCCL %s", i,
						 rk[i].host[0] ? rk[i].host : "?", rk[i].device, rk[i].nccl_version);
				shown++;
			}
	}
	strbuf_release(&sb);
}
