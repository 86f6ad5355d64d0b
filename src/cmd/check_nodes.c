/* check on many nodes at once: `srun --ntasks-per-node=1 nccl-doctor check
 * --across-nodes` (or torchrun --nproc-per-node=1, an Indexed Job,
 * --rendezvous) makes every process one node's check. The processes meet in the rendezvous
 * before anything else (engine/bench_net.c: a node that never starts is
 * named within --join-timeout, by every node), each runs its own checkup as
 * on one machine, sends its --json result to rank 0, and then one all_reduce
 * with one rank per node (its first GPU) tests the network between them.
 * Rank 0 joins the results with merge's analysis (analyze/fleet.c: worst
 * node first, outliers within a hardware class, versions that differ, the
 * NCCL of each node's rank of the all_reduce among them, the drain and
 * cordon lines), adds the all_reduce across the nodes as its own
 * section and findings, and prints one fleet verdict; every node exits with
 * rank 0's status. */
#include "cmd/check_nodes.h"
#include "analyze/fleet.h"
#include "kb/findings.h"
#include "util/hostlist.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the all_reduce across the nodes: small, so that it costs seconds */
#define INTERNODE_SIZES { 1u << 20, 8u << 20 }

int check_nodes_join(struct check_nodes *cn, const struct run_opts *opt)
{
	static const uint64_t sizes[] = INTERNODE_SIZES;
	double join = cn->join_timeout > 0 ? cn->join_timeout : 60;
	cn->active = false;
	if (!cn->across && !cn->rendezvous) /* a fan-out of independent checks (docs/fleet.md's --out %h) */
		return 0;
	if (bench_trial_opts(&cn->bo, 1, 20, join) != 0)
		return EXIT_CANNOT_RUN;
	cn->bo.nsizes = 0;
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++)
		cn->bo.sizes[cn->bo.nsizes++] = sizes[k];
	cn->bo.rendezvous = cn->rendezvous;
	/* a node that never comes is a row of the verdict ("missing"), so the
	 * nodes that came go on without it (rank 0 names it to them) */
	cn->bo.join_partial = true;
	char err[1024];
	int rc = bench_world_devices(&cn->bo, opt, err, sizeof(err));
	if (rc == -EINVAL)
		return cmd_usage_error("check", "%s", err);
	if (rc < 0)
		return cmd_fatal("check: %s", err);
	cn->active = rc > 0;
	return 0;
}

/* The nodes of the world, each once, as a host list (the expected nodes):
 * those that joined and those that never did */
static void world_nodes(struct hostlist *hl)
{
	char *list = xcalloc((size_t)bench_world_size(), 66), absent[64];
	for (int i = 0; i < bench_world_size(); i++) {
		const char *n = bench_world_rank_absent(i, absent, sizeof(absent)) ? absent : bench_world_rank_node(i);
		if (n)
			strcat(strcat(list, list[0] ? "," : ""), n);
	}
	char why[200];
	if (hostlist_expand(list, hl, why, sizeof(why)) < 0)
		memset(hl, 0, sizeof(*hl));
	free(list);
}

/* merge's reason for a node of the world that sent nothing */
static const char *missing_why(const char *node, void *ctx)
{
	const struct check_nodes *cn = ctx;
	char name[64];
	for (int i = 0; i < bench_world_size(); i++)
		if (bench_world_rank_absent(i, name, sizeof(name)) && strcmp(name, node) == 0)
			return cn->never_joined;
	return NULL;
}

static struct section *internode_section(struct result *r)
{
	return result_section(r, "internode", "all_reduce across the nodes (one rank per node)");
}

/* The all_reduce across the nodes is not run while a node is missing: a
 * world of the others would test another network than the job's. */
static void internode_not_run(struct result *r, const char *why)
{
	struct section *s = internode_section(r);
	int joined = 0;
	char name[64];
	for (int i = 0; i < bench_world_size(); i++)
		joined += !bench_world_rank_absent(i, name, sizeof(name));
	section_add(s, "nodes", "nodes", val_int(joined));
	section_add(s, "ranks", "ranks", val_int(joined));
	section_add(s, "complete", "every size done", val_bool(false));
	section_add(s, "avg_busbw", "average busbw (GB/s)", val_double(0));
	section_add(s, "not_run", "not run", val_str(why))->mark = MARK_BAD;
}

/* The all_reduce across the nodes into r: a section, and its findings as
 * the nodes' own; returns its exit status (0 when it ran well). */
static int internode(struct result *r, struct bench_run *br)
{
	struct result *b = bench_result(br);
	struct section *s = internode_section(r);
	section_add(s, "nodes", "nodes", val_int(bench_node_count(br)));
	section_add(s, "ranks", "ranks", val_int(br->o->nranks));
	section_add(s, "complete", "every size done", val_bool(br->complete && br->failed_rank < 0));
	section_add(s, "avg_busbw", "average busbw (GB/s)", val_double(br->avg_busbw));
	if (br->failed_rank >= 0)
		section_add(s, "phase", "where it stopped", val_str(br->phase));
	for (size_t i = 0; i < b->nfindings; i++) {
		const struct finding *f = b->findings[i];
		int id = kb_finding_id(f->id); /* the bench's findings are the catalog's */
		/* the NCCL versions the ranks loaded are the nodes' own facts
		 * (loaded_nccl): merge has compared them, once */
		if (f->sev < SEV_WARNING || id < 0 || id == FID_FLEET_VERSION_DIFFERS)
			continue;
		struct finding *g = finding_add(r, (enum finding_id)id, f->sev, "across the nodes: %s", f->title);
		for (size_t k = 0; k < f->nev; k++)
			finding_evidence(g, NULL, 0, "%s", f->ev[k].text);
	}
	int code = result_exit_code(b);
	result_free(b);
	return code;
}

/* The NCCL that node `rank`'s rank of the all_reduce across the nodes
 * loaded, into that node's result as facts.internode_rank (its rank, GPU and
 * NCCL version): the library that ran is the node's NCCL even where its
 * checkup found none (a profile without a bench stage, a library the
 * sysroot does not hold), and merge compares it across the nodes
 * (FLEET_VERSION_DIFFERS). */
static void loaded_nccl(json_t *doc, const struct bench_run *br, int rank)
{
	json_t *facts = json_object_get(doc, "facts");
	if (!br || rank >= br->o->nranks || !br->ranks[rank].nccl_version[0] || !json_is_object(facts))
		return;
	const struct bench_rank *rk = &br->ranks[rank];
	json_object_set_new(facts, "internode_rank",
			    json_pack("{s:i,s:i,s:s}", "rank", rank, "device", rk->device, "nccl", rk->nccl_version));
}

/* Nagios' order of the worse of two statuses: 2, then 3, then 1, then 0 */
static int worse(int a, int b)
{
	static const int rank[4] = { 0, 1, 3, 2 };
	int ra = a >= 0 && a < 4 ? rank[a] : 2, rb = b >= 0 && b < 4 ? rank[b] : 2;
	return ra >= rb ? a : b;
}

int check_nodes_finish(struct check_nodes *cn, struct result *r, const struct run_opts *opt, double budget)
{
	json_t *doc = cmd_result_json(r, opt);
	result_free(r);
	/* the node as it joined (the launcher's name for it), which merge joins on */
	const char *me = bench_world_rank_node(bench_world_rank());
	if (me)
		json_object_set_new(doc, "hostname", json_string(me));
	char *mine = json_dumps(doc, JSON_COMPACT);
	json_decref(doc);
	int n = bench_world_size();
	char **all = xcalloc((size_t)n, sizeof(*all)), err[1024] = "";
	/* every node's result; a node's check takes up to the budget longer than another's */
	int grc = bench_world_gather("check result", mine ? mine : "{}", budget + 30, all, err, sizeof(err));
	free(mine);
	if (grc < 0 && !bench_world_root()) /* rank 0 is gone: nobody else will say it */
		report_say(stderr, "nccl-doctor check: %s", err);
	/* the network between the nodes: one rank each (every node gets here
	 * once rank 0 has every result, so they start together) */
	struct bench_run *br = NULL;
	const char *absent = bench_world_absent();
	int brc = absent ? 0 : bench_execute(&cn->bo, opt, NULL, &br);
	int code = EXIT_CANNOT_RUN;
	if (bench_world_root()) {
		struct fleet_doc *docs = xcalloc((size_t)n, sizeof(*docs));
		size_t nd = 0;
		for (int i = 0; i < n; i++) {
			json_t *d = all[i] ? json_loads(all[i], 0, NULL) : NULL;
			const char *node;
			char why[256];
			if (d && fleet_doc_check(d, ND_JSON_SCHEMA_VERSION, &node, why, sizeof(why)) == 0) {
				loaded_nccl(d, brc == 0 ? br : NULL, i); /* one rank per node: rank i is node i's */
				docs[nd].file = bench_world_rank_node(i);
				docs[nd++].doc = d;
			} else {
				json_decref(d);
			}
		}
		struct hostlist hl = { 0 };
		world_nodes(&hl);
		struct result *f = result_new("merge");
		struct fleet_opts fo = { .expect = hl.n ? &hl : NULL,
					 .drain_degraded = opt->fail_on_given && opt->fail_on == FAIL_ON_WARNING,
					 .schema = ND_JSON_SCHEMA_VERSION, .missing_why = missing_why, .ctx = cn };
		snprintf(cn->never_joined, sizeof(cn->never_joined), "never joined the rendezvous within %g s",
			 cn->join_timeout > 0 ? cn->join_timeout : 60);
		code = fleet_merge(f, docs, nd, &fo);
		if (grc < 0) /* who sent nothing: merge names them missing; the reason as well */
			result_set_error(f, "%s", err);
		if (absent)
			internode_not_run(f, absent);
		else if (brc == 0 && br)
			code = worse(code, internode(f, br));
		else
			result_set_error(f, "the all_reduce across the nodes did not start: %s", strerror(-brc));
		json_object_set_new(f->extra, "exit_code", json_integer(code));
		code = cmd_finish(f, opt);
		for (size_t i = 0; i < nd; i++)
			json_decref(docs[i].doc);
		free(docs);
		hostlist_release(&hl);
	}
	for (int i = 0; i < n; i++)
		free(all[i]);
	free(all);
	bench_run_free(br);
	return bench_world_finish(code);
}
