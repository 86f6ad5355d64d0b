/* Unit tests of the pairwise node sweep's pure steps (engine/bench_pairs.c):
 * the rounds of disjoint node pairs (a ring, every pair) and the slow links
 * and nodes found by merge's median/MAD test within a GPU class. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "engine/bench.h"

#include <stdlib.h>
#include <string.h>

static struct bench_pairs *make(int mode, int nnodes)
{
	struct bench_pairs *p = calloc(1, sizeof(*p));
	p->mode = mode;
	p->nnodes = nnodes;
	p->nodes = calloc((size_t)nnodes, sizeof(*p->nodes));
	p->slow_node = calloc((size_t)nnodes, sizeof(bool));
	for (int i = 0; i < nnodes; i++)
		snprintf(p->nodes[i], sizeof(p->nodes[i]), "n%d", i);
	bench_pairs_schedule(p);
	return p;
}

/* every round's pairs are disjoint; every wanted link has a round */
static void expect_rounds(const struct bench_pairs *p, int nlinks, int rounds)
{
	assert_int_equal(p->nlinks, nlinks);
	assert_int_equal(p->rounds, rounds);
	for (int r = 0; r < p->rounds; r++) {
		int used[64] = { 0 };
		for (int i = 0; i < p->nlinks; i++)
			if (p->links[i].round == r) {
				assert_int_equal(used[p->links[i].a]++, 0);
				assert_int_equal(used[p->links[i].b]++, 0);
			}
	}
	for (int i = 0; i < p->nlinks; i++) {
		assert_in_range(p->links[i].round, 0, p->rounds - 1);
		assert_true(p->links[i].a < p->links[i].b);
	}
}

static void test_schedule(void **state)
{
	(void)state;
	struct bench_pairs *p = make(BENCH_PAIRS_QUICK, 2);
	expect_rounds(p, 1, 1); /* two nodes: one link, not a ring of two */
	bench_pairs_free(p);
	p = make(BENCH_PAIRS_QUICK, 3);
	expect_rounds(p, 3, 3);
	bench_pairs_free(p);
	p = make(BENCH_PAIRS_QUICK, 8);
	expect_rounds(p, 8, 2); /* an even ring: two rounds */
	bench_pairs_free(p);
	p = make(BENCH_PAIRS_QUICK, 7);
	expect_rounds(p, 7, 3);
	bench_pairs_free(p);
	p = make(BENCH_PAIRS_ALL, 4);
	expect_rounds(p, 6, 3);
	bench_pairs_free(p);
	p = make(BENCH_PAIRS_ALL, 16);
	assert_int_equal(p->nlinks, 120);
	assert_in_range(p->rounds, 15, 20); /* greedy: near the N-1 rounds of a round robin */
	expect_rounds(p, 120, p->rounds);
	bench_pairs_free(p);
}

static void set_all(struct bench_pairs *p, double bw)
{
	for (int i = 0; i < p->nlinks; i++) {
		p->links[i].complete = true;
		p->links[i].busbw = bw;
		snprintf(p->links[i].cls, sizeof(p->links[i].cls), "H100");
	}
}

static struct bench_link *link_of(struct bench_pairs *p, int a, int b)
{
	for (int i = 0; i < p->nlinks; i++)
		if (p->links[i].a == a && p->links[i].b == b)
			return &p->links[i];
	fail_msg("no link %d-%d", a, b);
	return NULL;
}

static void test_judge(void **state)
{
	(void)state;
	/* a ring of 4, one slow link */
	struct bench_pairs *p = make(BENCH_PAIRS_QUICK, 4);
	set_all(p, 40);
	link_of(p, 1, 2)->busbw = 4;
	link_of(p, 0, 1)->busbw = 39; /* a 2.5 % dip is no outlier */
	bench_pairs_judge(p);
	for (int i = 0; i < p->nlinks; i++)
		assert_int_equal(p->links[i].slow, p->links[i].a == 1 && p->links[i].b == 2);
	assert_true(link_of(p, 1, 2)->median > 39 && link_of(p, 1, 2)->median <= 40);
	for (int n = 0; n < 4; n++)
		assert_false(p->slow_node[n]);
	bench_pairs_free(p);
	/* every pair of 5 nodes, node 3 slow on each of its 4 links: a slow node */
	p = make(BENCH_PAIRS_ALL, 5);
	set_all(p, 40);
	for (int i = 0; i < p->nlinks; i++)
		if (p->links[i].a == 3 || p->links[i].b == 3)
			p->links[i].busbw = 10;
	bench_pairs_judge(p);
	for (int n = 0; n < 5; n++)
		assert_int_equal(p->slow_node[n], n == 3);
	bench_pairs_free(p);
	/* a ring of 4, node 2 slow: half the links slow are no outliers among
	 * the links, but node 2's fastest link is among the nodes' fastest */
	p = make(BENCH_PAIRS_QUICK, 4);
	set_all(p, 40);
	link_of(p, 1, 2)->busbw = 4;
	link_of(p, 2, 3)->busbw = 4;
	bench_pairs_judge(p);
	for (int i = 0; i < p->nlinks; i++)
		assert_false(p->links[i].slow);
	for (int n = 0; n < 4; n++)
		assert_int_equal(p->slow_node[n], n == 2);
	assert_true(p->node_best[2] == 4 && p->node_median[2] == 40);
	bench_pairs_free(p);
	/* classes apart: a slow class is not compared with a fast one; a link
	 * that did not finish is no measurement */
	p = make(BENCH_PAIRS_ALL, 4);
	set_all(p, 40);
	for (int i = 0; i < 3; i++) {
		p->links[i].busbw = 10;
		snprintf(p->links[i].cls, sizeof(p->links[i].cls), "A100");
	}
	p->links[5].complete = false;
	bench_pairs_judge(p);
	for (int i = 0; i < p->nlinks; i++)
		assert_false(p->links[i].slow);
	bench_pairs_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_schedule),
		cmocka_unit_test(test_judge),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
