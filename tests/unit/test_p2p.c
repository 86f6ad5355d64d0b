/* Unit tests of p2p's pure parts: the pattern (C twin of the PTX), the PTX
 * text (compiled with ptxas for sm_90 when a CUDA toolkit is installed),
 * medians and GB/s, link classes, expected bandwidth per class, the
 * round-robin schedule (every pair once, rounds disjoint), pair statuses
 * from worker results (OK, NO_P2P, CORRUPT with offset, HANG with step,
 * ERROR with the code, NCCL, SLOW), and the PCI path between two GPUs of
 * the pcie-4gpu-acs sysroot with its ACS redirect bridges. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/p2p.h"
#include "gpu/p2p_util.h"
#include "probe/pci.h"
#include "gpu/ptx.h"
#include "util/sysroot.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void test_pattern(void **state)
{
	(void)state;
	/* fixed values: a change breaks the agreement with the PTX text */
	uint32_t p0 = 0x5eed ^ (0x5eed >> 15);
	assert_int_equal(nd_pattern(0, 0x5eed), p0);
	uint32_t x = 1u * 0x9E3779B1u + 7;
	assert_int_equal(nd_pattern(1, 7), x ^ x >> 15);
	/* the high half of the index counts */
	assert_int_not_equal(nd_pattern(1ULL << 32, 0), nd_pattern(0, 0));
	/* neighbours and seeds differ */
	int same = 0;
	for (uint64_t i = 0; i < 100000; i++)
		same += nd_pattern(i, 1) == nd_pattern(i + 1, 1) || nd_pattern(i, 1) == nd_pattern(i, 2);
	assert_true(same < 5);
	/* the poison value is not a pattern of the first words */
	for (uint64_t i = 0; i < 4096; i++)
		assert_int_not_equal(nd_pattern(i, 0x5eed), 0xdeadbeefu);
}

static void test_ptx_text(void **state)
{
	(void)state;
	const char *t = ptx_source();
	assert_non_null(strstr(t, ".entry " PTX_FILL "("));
	assert_non_null(strstr(t, ".entry " PTX_VERIFY "("));
	assert_non_null(strstr(t, ".entry " PTX_COPY "("));
	assert_non_null(strstr(t, "0x9E3779B1"));
	assert_non_null(strstr(t, "0x85EBCA6B"));
	static const char *ptxas[] = { "/usr/local/cuda/bin/ptxas", "/usr/local/cuda-13.0/bin/ptxas", NULL };
	for (int i = 0; ptxas[i]; i++) {
		if (access(ptxas[i], X_OK) != 0)
			continue;
		char dir[] = "/tmp/nd-ptx.XXXXXX";
		assert_non_null(mkdtemp(dir));
		char src[128], cmd[512];
		snprintf(src, sizeof(src), "%s/k.ptx", dir);
		FILE *f = fopen(src, "w");
		assert_non_null(f);
		fputs(t, f);
		fclose(f);
		snprintf(cmd, sizeof(cmd), "%s -arch=sm_90 %s -o %s/k.cubin 2>&1", ptxas[i], src, dir);
		int rc = system(cmd);
		snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", dir);
		assert_int_equal(rc, 0);
		printf("ptxas -arch=sm_90 accepts the PTX text (%s)\n", ptxas[i]);
		break;
	}
}

static void test_median_gbs(void **state)
{
	(void)state;
	double v[] = { 5, 1, 3 };
	assert_true(p2p_median(v, 3) == 3);
	double w[] = { 4, 1, 3, 2 };
	assert_true(p2p_median(w, 4) == 2.5);
	assert_true(p2p_median(w, 0) == 0);
	/* 512 MiB four times in 1 ms: 2147.48 GB/s, each byte counted once */
	assert_true(fabs(p2p_gbs(512u << 20, 4, 1.0) - 2147.483648) < 1e-6);
	assert_true(p2p_gbs(1, 1, 0) == 0);
}

static void test_links_expected(void **state)
{
	(void)state;
	struct link l;
	/* H100/H200: 18 links x 25 GB/s x 0.8 */
	assert_true(link_cell_parse("NV18", &l));
	assert_true(fabs(p2p_expected_gbs(&l, 9, 5, 16, true) - 360) < 1e-9);
	/* B200: 50 GB/s per link */
	assert_true(fabs(p2p_expected_gbs(&l, 10, 5, 16, true) - 720) < 1e-9);
	/* gen4 x16 with P2P: 16 x 1.969 x 0.8 = 25.2; through the host half */
	link_cell_parse("PIX", &l);
	assert_true(fabs(p2p_expected_gbs(&l, 9, 4, 16, true) - 16 * 16.0 * 128 / 130 / 8 * 0.8) < 1e-9);
	assert_true(fabs(p2p_expected_gbs(&l, 9, 4, 16, false) - 16 * 16.0 * 128 / 130 / 8 * 0.4) < 1e-9);
	assert_true(p2p_expected_gbs(&l, 9, 0, 16, true) == 0); /* unknown generation */
	assert_true(p2p_pcie_lane_gbs(7) == 0);
}

static void test_schedule(void **state)
{
	(void)state;
	int pairs[64 * 64][2], round[64 * 64];
	for (int n = 0; n <= 9; n++) {
		int np = p2p_schedule(n, pairs, round, 64 * 64);
		assert_int_equal(np, n * (n - 1) / 2);
		int seen[9][9] = { { 0 } };
		for (int k = 0; k < np; k++) {
			assert_true(pairs[k][0] < pairs[k][1]);
			seen[pairs[k][0]][pairs[k][1]]++;
			/* disjoint within a round */
			for (int j = 0; j < k; j++)
				if (round[j] == round[k])
					assert_true(pairs[j][0] != pairs[k][0] && pairs[j][0] != pairs[k][1] &&
						    pairs[j][1] != pairs[k][0] && pairs[j][1] != pairs[k][1]);
			if (k)
				assert_true(round[k] >= round[k - 1]);
		}
		for (int a = 0; a < n; a++)
			for (int b = a + 1; b < n; b++)
				assert_int_equal(seen[a][b], 1);
		/* n - 1 rounds for even n, n for odd */
		if (n >= 2)
			assert_int_equal(round[np - 1] + 1, n % 2 ? n : n - 1);
	}
}

static json_t *J(const char *s)
{
	json_error_t e;
	json_t *j = json_loads(s, 0, &e);
	assert_non_null(j);
	return j;
}

static void test_pair_status(void **state)
{
	(void)state;
	struct p2p_result r;
	/* all good */
	json_t *ok = J("[{\"step\":\"capability\",\"a_to_b\":{\"can_access_peer\":true}},"
		       "{\"step\":\"ce\",\"ok\":true,\"path\":\"p2p\",\"first_bad_offset\":null},"
		       "{\"step\":\"sm_write\",\"ok\":true},{\"step\":\"sm_read\",\"ok\":true},{\"step\":\"done\"}]");
	p2p_result_init(&r, 0, 1);
	p2p_apply_pair_worker(&r, WORKER_OK, ok, "done", NULL, 0);
	assert_int_equal(r.status, P2P_OK);
	assert_true(r.ce_ok && r.sm_ok && r.sm_tested);
	assert_string_equal(r.path, "p2p");
	/* NCCL corrupts what rank 1 received: a -> b */
	json_t *bad = J("{\"step\":\"nccl\",\"ok\":false,\"first_bad_offset\":4096}");
	p2p_apply_nccl(&r, NULL, WORKER_OK, bad, "verify", NULL, 0);
	assert_int_equal(r.status, P2P_CORRUPT);
	assert_int_equal(r.bad_offset, 4096);
	assert_int_equal(r.nccl, 0);
	json_decref(bad);
	json_decref(ok);

	/* no peer access: the host path verified */
	json_t *nop = J("[{\"step\":\"capability\",\"a_to_b\":{\"can_access_peer\":false}},"
			"{\"step\":\"ce\",\"ok\":true,\"path\":\"host\"},{\"step\":\"done\"}]");
	p2p_result_init(&r, 0, 1);
	p2p_apply_pair_worker(&r, WORKER_OK, nop, "done", NULL, 0);
	assert_int_equal(r.status, P2P_NO_P2P);
	assert_false(r.sm_tested);
	json_decref(nop);

	/* corrupt SM stores, offset kept */
	json_t *cor = J("[{\"step\":\"capability\",\"a_to_b\":{\"can_access_peer\":true}},"
			"{\"step\":\"ce\",\"ok\":true,\"path\":\"p2p\"},"
			"{\"step\":\"sm_write\",\"ok\":false,\"first_bad_offset\":8192}]");
	p2p_result_init(&r, 2, 3);
	p2p_apply_pair_worker(&r, WORKER_OK, cor, "done", NULL, 0);
	assert_int_equal(r.status, P2P_CORRUPT);
	assert_int_equal(r.bad_offset, 8192);
	assert_string_equal(r.step, "sm write 2->3");

	/* a hang after that: HANG wins, with the stage */
	p2p_result_init(&r, 2, 3);
	p2p_apply_pair_worker(&r, WORKER_HANG, cor, "2->3 sm read (kernel on 2 loads from 3)", NULL, 0);
	assert_int_equal(r.status, P2P_HANG);
	assert_string_equal(r.step, "2->3 sm read (kernel on 2 loads from 3)");
	json_decref(cor);

	/* an error names the code; a crash the signal */
	json_t *err = J("{\"type\":\"error\",\"name\":\"CUDA_ERROR_ILLEGAL_ADDRESS\",\"message\":\"x\"}");
	json_t *none = json_array();
	p2p_result_init(&r, 0, 1);
	p2p_apply_pair_worker(&r, WORKER_ERROR, none, "0->1 sm write", err, 0);
	assert_int_equal(r.status, P2P_ERROR);
	assert_string_equal(r.error, "CUDA_ERROR_ILLEGAL_ADDRESS");
	p2p_result_init(&r, 0, 1);
	p2p_apply_pair_worker(&r, WORKER_CRASH, none, "0->1 ce copy", NULL, 11);
	assert_string_equal(r.error, "signal 11");
	/* a worker that said OK but gave no copy result is an error, not OK */
	p2p_result_init(&r, 0, 1);
	p2p_apply_pair_worker(&r, WORKER_OK, none, "done", NULL, 0);
	assert_int_equal(r.status, P2P_ERROR);
	json_decref(err);

	/* NCCL hang applies to both directions */
	struct p2p_result ab, ba;
	p2p_result_init(&ab, 0, 1);
	p2p_result_init(&ba, 1, 0);
	p2p_apply_nccl(&ba, &ab, WORKER_HANG, NULL, "ncclSend/ncclRecv", NULL, 0);
	assert_int_equal(ab.status, P2P_HANG);
	assert_int_equal(ba.status, P2P_HANG);
	assert_string_equal(ab.step, "nccl ncclSend/ncclRecv");
	json_decref(none);

	/* bandwidth and the SLOW rule */
	json_t *bw = J("[{\"step\":\"bandwidth\",\"src\":0,\"dst\":1,\"ce_gbs\":10.0,\"ce_nop2p_gbs\":12.0,\"latency_us\":3.0},"
		       "{\"step\":\"bandwidth\",\"src\":1,\"dst\":0,\"ce_gbs\":24.0},"
		       "{\"step\":\"bandwidth_bidir\",\"ce_gbs\":40.0}]");
	p2p_result_init(&ab, 0, 1);
	p2p_result_init(&ba, 1, 0);
	p2p_apply_bandwidth(&ab, &ba, bw);
	assert_true(ab.ce_gbs == 10 && ab.ce_nop2p_gbs == 12 && ab.lat_us == 3 && ba.ce_gbs == 24 && ab.bidir_gbs == 40);
	p2p_judge_speed(&ab, 25.2);
	p2p_judge_speed(&ba, 25.2);
	assert_int_equal(ab.status, P2P_SLOW);
	assert_true(fabs(ab.ratio - 10 / 25.2) < 1e-9);
	assert_int_equal(ba.status, P2P_OK);
	/* no expectation: no judgement */
	p2p_result_init(&ab, 0, 1);
	ab.ce_gbs = 1;
	p2p_judge_speed(&ab, 0);
	assert_int_equal(ab.status, P2P_OK);
	json_decref(bw);
	assert_string_equal(p2p_status_name(P2P_VOID), "VOID");
}

static void test_path(void **state)
{
	(void)state;
	assert_int_equal(sysroot_set(ND_FIXTURES "/sysroot/pcie-4gpu-acs"), 0);
	struct pci_list l;
	assert_true(pci_scan(&l) > 0);
	const struct pci_dev *g0 = pci_find(&l, "0000:03:00.0"), *g1 = pci_find(&l, "0000:04:00.0");
	const struct pci_dev *g2 = pci_find(&l, "0000:13:00.0");
	assert_non_null(g0);
	assert_non_null(g1);
	assert_non_null(g2);
	struct p2p_path p;
	/* same switch: the two downstream ports and the switch's upstream port */
	p2p_path_between(&l, g0, g1, &p);
	assert_true(p.same_root);
	assert_int_equal(p.n, 3);
	assert_string_equal(p.bridges[0]->bdf, "0000:02:08.0");
	assert_string_equal(p.bridges[1]->bdf, "0000:02:10.0");
	assert_string_equal(p.bridges[2]->bdf, "0000:01:00.0");
	assert_int_equal(p.redirect, 2);
	/* across the switches: up one side, down the other, through the root ports */
	p2p_path_between(&l, g0, g2, &p);
	assert_false(p.same_root);
	assert_int_equal(p.n, 6);
	assert_string_equal(p.bridges[0]->bdf, "0000:02:08.0");
	assert_string_equal(p.bridges[5]->bdf, "0000:12:08.0");
	assert_int_equal(p.redirect, 2);
	pci_list_release(&l);
	sysroot_set(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pattern),       cmocka_unit_test(test_ptx_text),   cmocka_unit_test(test_median_gbs),
		cmocka_unit_test(test_links_expected), cmocka_unit_test(test_schedule),  cmocka_unit_test(test_pair_status),
		cmocka_unit_test(test_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
