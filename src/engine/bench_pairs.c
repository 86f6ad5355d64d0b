/* The pairwise node sweep (`bench --pairs quick|all` under a launcher): the
 * nodes of the job taken two at a time, in rounds of disjoint pairs (quick:
 * a ring, each node with the next; all: every pair), each pair running the
 * benchmark with all ranks of its two nodes in a world of its own (its
 * leader's rendezvous, engine/bench_net.c) under the usual deadlines, while
 * the other pairs of the round run theirs. After every round the pairs'
 * leaders send their link's result to rank 0, which builds the node x node
 * busbw matrix and finds the slow links as outliers among the links between
 * nodes of one hardware class (merge's median/MAD test, analyze/fleet.c),
 * and the slow nodes: a node whose fastest link is an outlier among the
 * nodes' fastest links, or whose every link (at least two) is slow. */
#include "analyze/fleet.h"
#include "engine/bench_world.h"
#include "kb/findings.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The nodes in rank order and each rank's node index. */
static int nodes_of(struct bench_pairs *p, int size, int *node_of)
{
	for (int i = 0; i < size; i++) {
		const char *n = bench_world_rank_node(i);
		int k = 0;
		while (k < p->nnodes && strcmp(p->nodes[k], n ? n : "?") != 0)
			k++;
		if (k == p->nnodes)
			snprintf(p->nodes[p->nnodes++], sizeof(p->nodes[0]), "%s", n ? n : "?");
		node_of[i] = k;
	}
	return p->nnodes;
}

/* The links wanted, then put in rounds: each round takes the links left
 * whose nodes are both still free (greedy; a ring of M nodes takes 2
 * rounds, 3 when M is odd; every pair about M rounds). */
void bench_pairs_schedule(struct bench_pairs *p)
{
	int m = p->nnodes;
	p->links = xcalloc((size_t)(m * (m - 1) / 2 + 1), sizeof(*p->links));
	for (int a = 0; a < m; a++)
		for (int b = a + 1; b < m; b++)
			if (p->mode == BENCH_PAIRS_ALL || b == a + 1 || (a == 0 && b == m - 1 && m > 2))
				p->links[p->nlinks++] = (struct bench_link){ .a = a, .b = b, .round = -1, .busbw = -1 };
	bool *busy = xcalloc((size_t)m, sizeof(bool));
	for (int left = p->nlinks; left > 0; p->rounds++) {
		memset(busy, 0, (size_t)m * sizeof(bool));
		for (int i = 0; i < p->nlinks; i++) {
			struct bench_link *l = &p->links[i];
			if (l->round >= 0 || busy[l->a] || busy[l->b])
				continue;
			l->round = p->rounds;
			busy[l->a] = busy[l->b] = true;
			left--;
		}
	}
	free(busy);
}

/* One pair's benchmark, this process being one of its ranks; its leader
 * fills msg with the link's result as JSON (malloc'd). */
static void run_pair(const struct bench_opts *o, const struct run_opts *opt, const int *ranks, int n, int round, char **msg)
{
	char err[512] = "";
	struct bench_opts po = *o;
	po.nranks = n;
	/* a pair is a communicator of its own: no NCCL_TESTS_SPLIT groups
	 * (the world's), its bus-bandwidth factor that of n ranks */
	po.ngroups = 1, po.comm_ranks = 0;
	memset(po.colors, 0, sizeof(po.colors));
	for (int i = 0; i < n; i++)
		po.devices[i] = o->devices[ranks[i]];
	int rc = bench_net_pair_begin(ranks, n, round, err, sizeof(err));
	struct bench_run *br = NULL;
	if (rc == 0)
		rc = bench_execute(&po, opt, NULL, &br);
	if (rc == 0 && !bench_world_root()) {
		bench_run_free(br);
		bench_net_pair_end();
		return;
	}
	bool done = rc == 0 && br->complete && br->failed_rank < 0;
	json_t *j = json_pack("{s:b,s:f,s:s,s:s}", "complete", done, "busbw", done ? br->avg_busbw : 0.0, "phase",
			      rc < 0 ? (err[0] ? err : strerror(-rc)) : br->failed_rank >= 0 ? br->phase : "", "gpu",
			      rc == 0 ? br->ranks[0].name : "");
	*msg = json_dumps(j, JSON_COMPACT);
	json_decref(j);
	bench_run_free(br);
	bench_net_pair_end();
}

/* The slow nodes. A link is as fast as its slower end, so a node's
 * fastest link bounds what the node itself can do: a node is slow when its
 * fastest link (of two at least) is an outlier among the fastest links of
 * the nodes of its class (merge's median/MAD test), or when every link of
 * it is slow. The first finds a slow node where its slow links are too
 * many to be outliers themselves (a ring of 4: two of its four links); a
 * slow link alone leaves both its nodes a fast one. x, low, idx: scratch
 * of p->nnodes at least. */
static void judge_nodes(struct bench_pairs *p, double *x, bool *low, int *idx)
{
	free(p->node_best), free(p->node_median);
	p->node_best = xcalloc((size_t)p->nnodes + 1, sizeof(double));
	p->node_median = xcalloc((size_t)p->nnodes + 1, sizeof(double));
	const char **cls = xcalloc((size_t)p->nnodes + 1, sizeof(*cls));
	int *links = xcalloc((size_t)p->nnodes + 1, sizeof(int));
	for (int nd = 0; nd < p->nnodes; nd++) {
		int slow = 0, n = 0;
		p->node_best[nd] = p->node_median[nd] = -1;
		for (int i = 0; i < p->nlinks; i++) {
			const struct bench_link *l = &p->links[i];
			if (l->a != nd && l->b != nd)
				continue;
			links[nd]++, slow += l->slow;
			if (l->complete && l->busbw > p->node_best[nd])
				p->node_best[nd] = l->busbw, cls[nd] = l->cls, n++;
		}
		p->slow_node[nd] = links[nd] >= 2 && slow == links[nd];
		if (n == 0)
			cls[nd] = NULL; /* no measurement: in no class */
	}
	for (int nd = 0; nd < p->nnodes; nd++) {
		if (!cls[nd] || links[nd] < 2 || p->node_median[nd] >= 0)
			continue;
		size_t n = 0;
		for (int k = nd; k < p->nnodes; k++)
			if (cls[k] && links[k] >= 2 && strcmp(cls[k], cls[nd]) == 0) {
				idx[n] = k;
				x[n++] = p->node_best[k];
			}
		double med, mad;
		fleet_outliers_low(x, n, low, &med, &mad);
		for (size_t k = 0; k < n; k++) {
			p->node_median[idx[k]] = n >= 3 ? med : 0;
			p->slow_node[idx[k]] |= low[k] && n >= 3;
		}
	}
	free(cls), free(links);
}

/* Rank 0: slow links within each class (the GPU models of both nodes),
 * slow nodes. */
void bench_pairs_judge(struct bench_pairs *p)
{
	size_t most = (size_t)(p->nlinks > p->nnodes ? p->nlinks : p->nnodes) + 1;
	double *x = xcalloc(most, sizeof(double));
	bool *low = xcalloc(most, sizeof(bool));
	int *idx = xcalloc(most, sizeof(int));
	bool *seen = xcalloc((size_t)p->nlinks + 1, sizeof(bool));
	for (int i = 0; i < p->nlinks; i++) {
		if (seen[i] || !p->links[i].complete)
			continue;
		size_t n = 0;
		for (int k = i; k < p->nlinks; k++)
			if (!seen[k] && p->links[k].complete && strcmp(p->links[k].cls, p->links[i].cls) == 0) {
				seen[k] = true;
				idx[n] = k;
				x[n++] = p->links[k].busbw;
			}
		double med, mad;
		if (fleet_outliers_low(x, n, low, &med, &mad) == 0 && n < 3)
			med = mad = -1;
		for (size_t k = 0; k < n; k++) {
			p->links[idx[k]].slow = low[k];
			p->links[idx[k]].median = med;
			p->links[idx[k]].mad = mad;
		}
	}
	judge_nodes(p, x, low, idx);
	free(x), free(low), free(idx), free(seen);
}

int bench_pairs_run(const struct bench_opts *o, const struct run_opts *opt, struct bench_pairs **out)
{
	char err[512] = "";
	int size = bench_world_size();
	struct bench_pairs *p = xcalloc(1, sizeof(*p));
	p->mode = o->pairs;
	int *node_of = xcalloc((size_t)size, sizeof(int)), *ranks = xcalloc((size_t)size, sizeof(int));
	p->nodes = xcalloc((size_t)size, sizeof(*p->nodes));
	p->slow_node = xcalloc((size_t)size, sizeof(bool));
	nodes_of(p, size, node_of);
	*out = p;
	int rc = p->nnodes < 2 ? -EINVAL : bench_net_addresses(err, sizeof(err));
	if (rc < 0) {
		snprintf(p->why, sizeof(p->why), "%s", p->nnodes < 2 ? "the job's ranks are on one node: no pair to test" : err);
		free(node_of), free(ranks);
		return rc;
	}
	bench_pairs_schedule(p);
	int me = node_of[bench_world_rank()];
	for (int round = 0; round < p->rounds; round++) {
		char *msg = NULL;
		int li = -1;
		for (int i = 0; i < p->nlinks; i++)
			if (p->links[i].round == round && (p->links[i].a == me || p->links[i].b == me))
				li = i;
		if (li >= 0) {
			int n = 0;
			for (int side = 0; side < 2; side++)
				for (int r = 0; r < size; r++)
					if (node_of[r] == (side ? p->links[li].b : p->links[li].a))
						ranks[n++] = r;
			run_pair(o, opt, ranks, n, round, &msg);
		}
		/* the round's results to rank 0, by link (a process outside every pair sends nothing) */
		char tag[32];
		snprintf(tag, sizeof(tag), "%d ", li);
		struct strbuf sb;
		strbuf_init(&sb, 0);
		strbuf_adds(&sb, tag);
		strbuf_adds(&sb, msg ? msg : "");
		free(msg);
		char **all = bench_world_rank() == 0 ? xcalloc((size_t)size, sizeof(*all)) : NULL;
		bench_world_gather("pair results", strbuf_str(&sb), o->init_timeout + 30 + (o->coll_timeout + 5) * 2 * o->nsizes,
				   all, err, sizeof(err));
		strbuf_release(&sb);
		for (int i = 0; all && i < size; i++) {
			char *sp = all[i] ? strchr(all[i], ' ') : NULL;
			int k = all[i] ? atoi(all[i]) : -1;
			json_t *j = sp && sp[1] ? json_loads(sp + 1, 0, NULL) : NULL;
			if (k >= 0 && k < p->nlinks && j) {
				struct bench_link *l = &p->links[k];
				l->complete = json_is_true(json_object_get(j, "complete"));
				l->busbw = json_number_value(json_object_get(j, "busbw"));
				const char *ph = json_string_value(json_object_get(j, "phase")), *g = json_string_value(json_object_get(j, "gpu"));
				snprintf(l->phase, sizeof(l->phase), "%s", ph ? ph : "");
				snprintf(l->cls, sizeof(l->cls), "%s", g ? g : "");
			}
			json_decref(j);
			free(all[i]);
		}
		free(all);
		/* a barrier: the next round's pairs listen on ports of this one's */
		bench_world_agree(0);
	}
	for (int i = 0; i < p->nlinks; i++)
		if (!p->links[i].complete && !p->links[i].phase[0])
			snprintf(p->links[i].phase, sizeof(p->links[i].phase), "no result from the pair's leader");
	if (bench_world_rank() == 0)
		bench_pairs_judge(p);
	free(node_of), free(ranks);
	return 0;
}

/* Why node nd is slow, for the text and the finding; false when it is not. */
static bool slow_node_why(const struct bench_pairs *p, int nd, char *buf, size_t bufsz)
{
	if (!p->slow_node[nd])
		return false;
	bool every = true;
	for (int i = 0; i < p->nlinks; i++)
		if (p->links[i].a == nd || p->links[i].b == nd)
			every &= p->links[i].slow;
	if (every || !p->node_best)
		snprintf(buf, bufsz, "every link of it is slow");
	else
		snprintf(buf, bufsz, "its fastest link %.2f GB/s, the median of the nodes' fastest links %.2f",
			 p->node_best[nd], p->node_median[nd]);
	return true;
}

struct result *bench_pairs_result(const struct bench_pairs *p, const struct bench_opts *o)
{
	struct result *r = result_new("bench");
	result_set_headline(r, "pairwise sweep of %d nodes: %d links in %d rounds, %s", p->nnodes, p->nlinks, p->rounds,
			    bench_op_info(o->op)->name);
	if (p->why[0])
		result_set_error(r, "%s", p->why);
	bool all = !p->why[0];
	for (int i = 0; i < p->nlinks; i++) {
		const struct bench_link *l = &p->links[i];
		all &= l->complete;
		if (!l->complete)
			finding_add(r, FID_BENCH_HANG, SEV_ERROR, "link %s-%s did not finish (round %d): %s", p->nodes[l->a],
				    p->nodes[l->b], l->round, l->phase);
		else if (l->slow)
			finding_evidence(finding_add(r, FID_FLEET_OUTLIER, SEV_WARNING, "slow link %s-%s: %.2f GB/s, the median of its class %.2f",
						     p->nodes[l->a], p->nodes[l->b], l->busbw, l->median),
					 NULL, 0, "busbw of the links between nodes of %s: median %.2f, MAD %.2f (slow: more than 3 x 1.4826 x MAD and 10 %% below)",
					 l->cls[0] ? l->cls : "one GPU model", l->median, l->mad);
	}
	for (int nd = 0; nd < p->nnodes; nd++) {
		char why[200];
		if (slow_node_why(p, nd, why, sizeof(why)))
			finding_add(r, FID_FLEET_OUTLIER, SEV_WARNING, "slow node %s: %s", p->nodes[nd], why);
	}
	json_object_set_new(r->extra, "bench", json_pack("{s:[],s:i,s:f,s:b,s:o}", "rows", "out_of_bounds", 0, "avg_busbw", 0.0,
							  "complete", all, "pairs", bench_pairs_json(p)));
	return r;
}

void bench_pairs_print(const struct bench_pairs *p, const struct bench_opts *o, FILE *out)
{
	static const char *const modes[] = { "", "quick", "all" };
	if (p->why[0]) {
		fprintf(out, "# nccl-doctor: pairwise sweep: %s\n", p->why);
		return;
	}
	fprintf(out, "# nccl-doctor: pairwise sweep (%s): %d nodes, %d links in %d rounds, %s from %llu to %llu B\n",
		modes[p->mode], p->nnodes, p->nlinks, p->rounds, bench_op_info(o->op)->name,
		(unsigned long long)o->sizes[0], (unsigned long long)o->sizes[o->nsizes - 1]);
	fprintf(out, "# %-16s", "busbw (GB/s)");
	for (int b = 0; b < p->nnodes; b++)
		fprintf(out, " %10.10s", p->nodes[b]);
	fputc('\n', out);
	for (int a = 0; a < p->nnodes; a++) {
		fprintf(out, "# %-16.16s", p->nodes[a]);
		for (int b = 0; b < p->nnodes; b++) {
			const struct bench_link *l = NULL;
			for (int i = 0; i < p->nlinks; i++)
				if ((p->links[i].a == a && p->links[i].b == b) || (p->links[i].a == b && p->links[i].b == a))
					l = &p->links[i];
			if (a == b || !l)
				fprintf(out, " %10s", "-");
			else if (!l->complete)
				fprintf(out, " %10s", "FAILED");
			else
				fprintf(out, " %9.2f%s", l->busbw, l->slow ? "*" : " ");
		}
		fputc('\n', out);
	}
	for (int i = 0; i < p->nlinks; i++) {
		const struct bench_link *l = &p->links[i];
		if (!l->complete)
			fprintf(out, "# nccl-doctor: link %s-%s failed (round %d): %s\n", p->nodes[l->a], p->nodes[l->b], l->round,
				l->phase);
		else if (l->slow)
			fprintf(out, "# nccl-doctor: slow link %s-%s: %.2f GB/s, the median of its class %.2f (MAD %.2f)\n",
				p->nodes[l->a], p->nodes[l->b], l->busbw, l->median, l->mad);
	}
	for (int nd = 0; nd < p->nnodes; nd++) {
		char why[200];
		if (slow_node_why(p, nd, why, sizeof(why)))
			fprintf(out, "# nccl-doctor: slow node %s: %s\n", p->nodes[nd], why);
	}
}

json_t *bench_pairs_json(const struct bench_pairs *p)
{
	static const char *const modes[] = { "", "quick", "all" };
	json_t *nodes = json_array(), *links = json_array(), *slow = json_array();
	for (int nd = 0; nd < p->nnodes; nd++) {
		json_array_append_new(nodes, json_string(p->nodes[nd]));
		if (p->slow_node[nd])
			json_array_append_new(slow, json_string(p->nodes[nd]));
	}
	for (int i = 0; i < p->nlinks; i++) {
		const struct bench_link *l = &p->links[i];
		json_t *j = json_pack("{s:s,s:s,s:i,s:b,s:o,s:b,s:s}", "a", p->nodes[l->a], "b", p->nodes[l->b], "round", l->round,
				      "complete", l->complete, "busbw", l->complete ? json_real(l->busbw) : json_null(), "slow",
				      l->slow, "class", l->cls);
		if (l->phase[0])
			json_object_set_new(j, "phase", json_string(l->phase));
		if (l->median >= 0 && l->complete)
			json_object_set_new(j, "class_median", json_real(l->median));
		json_array_append_new(links, j);
	}
	json_t *o = json_pack("{s:s,s:i,s:o,s:o,s:o}", "mode", modes[p->mode], "rounds", p->rounds, "nodes", nodes, "links",
			      links, "slow_nodes", slow);
	if (p->why[0])
		json_object_set_new(o, "error", json_string(p->why));
	return o;
}

void bench_pairs_free(struct bench_pairs *p)
{
	if (!p)
		return;
	free(p->nodes);
	free(p->links);
	free(p->slow_node);
	free(p->node_best);
	free(p->node_median);
	free(p);
}
