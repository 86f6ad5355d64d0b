/* Unit tests of analyze/fix_candidates: the safe P2P level from per-pair
 * results, and which configurations are tried in which order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/fix_candidates.h"

#include <string.h>

/* 4 GPUs on two PCIe switches: 0-1 and 2-3 PIX, across the switches PHB */
static void pcie4(struct fixc_input *in, bool cross_broken)
{
	memset(in, 0, sizeof(*in));
	in->ngpus = 4;
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++) {
			in->link[i][j] = i == j ? LINK_UNKNOWN : (i / 2 == j / 2 ? LINK_PIX : LINK_PHB);
			in->pair[i][j] = i == j ? FIXC_PAIR_UNTESTED
						: (cross_broken && i / 2 != j / 2 ? FIXC_PAIR_BROKEN : FIXC_PAIR_OK);
		}
}

static int find(const struct fix_candidate *c, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(c[i].name, name) == 0)
			return i;
	return -1;
}

static void test_safe_level(void **state)
{
	(void)state;
	struct fixc_input in;
	pcie4(&in, true);
	assert_int_equal(fixc_safe_level(&in), LINK_PIX);
	pcie4(&in, false);
	assert_int_equal(fixc_safe_level(&in), LINK_UNKNOWN); /* nothing broken */
	/* a broken pair inside a switch: no level keeps P2P anywhere useful */
	pcie4(&in, false);
	in.pair[0][1] = FIXC_PAIR_BROKEN;
	assert_int_equal(fixc_safe_level(&in), LINK_UNKNOWN);
	/* only SYS pairs broken on a PXB/SYS machine: PXB keeps the rest */
	pcie4(&in, false);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			if (i != j)
				in.link[i][j] = i / 2 == j / 2 ? LINK_PXB : LINK_SYS;
	in.pair[0][3] = FIXC_PAIR_BROKEN;
	assert_int_equal(fixc_safe_level(&in), LINK_PXB);
	/* the pairs' path classes count as their NCCL levels: NODE as PHB, so
	 * PXB keeps P2P when NODE pairs broke on a machine of PXB, PHB and NODE */
	pcie4(&in, false);
	for (int i = 0; i < 4; i++)
		for (int j = 0; j < 4; j++)
			if (i != j)
				in.link[i][j] = i / 2 == j / 2 ? LINK_PXB : (i + j) % 2 ? LINK_NODE : LINK_PHB;
	in.pair[0][3] = FIXC_PAIR_BROKEN; /* NODE */
	assert_int_equal(fixc_safe_level(&in), LINK_PXB);
	/* a broken NVLink pair: no P2P level helps */
	pcie4(&in, false);
	in.link[0][1] = in.link[1][0] = LINK_NV;
	in.pair[0][1] = FIXC_PAIR_BROKEN;
	assert_int_equal(fixc_safe_level(&in), LINK_UNKNOWN);
}

static void test_classic_acs_case(void **state)
{
	(void)state;
	struct fixc_input in;
	struct fix_candidate c[FIXC_MAX];
	pcie4(&in, true);
	int n = fixc_candidates(&in, c);
	int given = find(c, n, "as given"), lvl = find(c, n, "NCCL_P2P_LEVEL=PIX"), dis = find(c, n, "NCCL_P2P_DISABLE=1"),
	    sock = find(c, n, "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1");
	assert_int_equal(given, 0);
	assert_true(lvl > 0 && dis > lvl && sock > dis);
	assert_string_equal(c[lvl].env[0].name, "NCCL_P2P_LEVEL");
	assert_string_equal(c[lvl].env[0].value, "PIX");
	assert_true(c[lvl].expected > c[dis].expected);
	assert_true(c[dis].p2p_off);
	assert_false(c[lvl].p2p_off);
	assert_int_equal(find(c, n, "NCCL_NVLS_ENABLE=0"), -1);
	assert_int_equal(find(c, n, "NCCL_IB_DISABLE=1"), -1);
}

static void test_shm_small_goes_last(void **state)
{
	(void)state;
	struct fixc_input in;
	struct fix_candidate c[FIXC_MAX];
	pcie4(&in, true);
	in.shm_small = true;
	int n = fixc_candidates(&in, c);
	int lvl = find(c, n, "NCCL_P2P_LEVEL=PIX"), sock = find(c, n, "NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1");
	assert_true(lvl > sock); /* SHM-bound candidates after the socket one */
	assert_true(c[n - 1].needs_shm);
}

static void test_bootstrap_and_nvls(void **state)
{
	(void)state;
	struct fixc_input in;
	struct fix_candidate c[FIXC_MAX];
	pcie4(&in, false);
	in.bootstrap_failed = true;
	in.good_ifname = "eth0";
	in.nvls_evidence = true;
	int n = fixc_candidates(&in, c);
	int ifn = find(c, n, "NCCL_SOCKET_IFNAME==eth0"), nvls = find(c, n, "NCCL_NVLS_ENABLE=0");
	assert_true(ifn == 1); /* as fast as the original: right after it */
	assert_string_equal(c[ifn].env[0].value, "=eth0");
	assert_true(nvls > ifn);
	assert_int_equal(find(c, n, "NCCL_IB_DISABLE=1"), -1); /* one node */
	in.multi_node = true;
	n = fixc_candidates(&in, c);
	assert_true(find(c, n, "NCCL_IB_DISABLE=1") > 0);
	assert_true(n <= FIXC_MAX);
}

/* the user's variables: each one NCCL's output implicated gives "unset
 * NAME" right after as given; the clean environment comes last, once a
 * trial failed, whatever its expected share */
static void test_user_vars(void **state)
{
	(void)state;
	struct fixc_input in;
	struct fix_candidate c[FIXC_MAX];
	pcie4(&in, false);
	in.user_vars[0] = "NCCL_NET";
	in.user_vars[1] = "CUDA_HOME";
	in.nuser_vars = 2;
	int n = fixc_candidates(&in, c);
	assert_int_equal(find(c, n, "unset every NCCL_*/CUDA_* of yours"), -1); /* nothing failed yet */
	in.implicated[0] = in.user_vars[0];
	in.nimplicated = 1;
	in.failed = true;
	n = fixc_candidates(&in, c);
	assert_int_equal(find(c, n, "as given"), 0);
	int u = find(c, n, "unset NCCL_NET");
	assert_int_equal(u, 1);
	assert_int_equal(c[u].nunset, 1);
	assert_string_equal(c[u].unset[0], "NCCL_NET");
	assert_int_equal(c[u].nenv, 0);
	assert_true(c[u].expected >= 0.99);
	int cl = find(c, n, "unset every NCCL_*/CUDA_* of yours");
	assert_int_equal(cl, n - 1);
	assert_int_equal(c[cl].nunset, 2);
	assert_true(c[cl].last);
	/* /dev/shm too small: SHM candidates move down, the clean one stays last */
	in.shm_small = true;
	n = fixc_candidates(&in, c);
	assert_int_equal(find(c, n, "unset every NCCL_*/CUDA_* of yours"), n - 1);
	assert_int_equal(find(c, n, "unset NCCL_NET"), 1);
	/* one variable of the user's, and it is the one implicated: no clean
	 * candidate (it would be the same) */
	in.shm_small = false;
	in.nuser_vars = 1;
	n = fixc_candidates(&in, c);
	assert_int_equal(find(c, n, "unset every NCCL_*/CUDA_* of yours"), -1);
	/* nothing implicated, one variable set: the clean environment is tried */
	in.nimplicated = 0;
	n = fixc_candidates(&in, c);
	assert_int_equal(find(c, n, "unset every NCCL_*/CUDA_* of yours"), n - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_safe_level),
		cmocka_unit_test(test_classic_acs_case),
		cmocka_unit_test(test_shm_small_goes_last),
		cmocka_unit_test(test_bootstrap_and_nvls),
		cmocka_unit_test(test_user_vars),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
