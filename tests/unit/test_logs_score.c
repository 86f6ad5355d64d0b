/* Unit tests of the log analysis's cause table (analyze/logs/score.c), the
 * only code that adds to, caps or drops a cause: noisy-or adds with their
 * finding ids, caps and drops that keep their reason, and the close of the
 * scoring (strong causes mark a failure, `unknown` when nothing else, best
 * first, weak echoes dropped with a reason). In-memory: no log is read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/logs/ana.h"
#include "kb/findings.h"

#include <math.h>
#include <string.h>

static struct nccllog lg; /* no lines, no processes */

static void ana_init(struct ana *a, struct result *r)
{
	memset(a, 0, sizeof(*a));
	a->lg = &lg;
	a->r = r;
	a->sigs = kb_nccl_signatures(&a->nsigs);
}

static bool near(double x, double y)
{
	return fabs(x - y) < 1e-9;
}

static void test_contribute_noisy_or(void **state)
{
	(void)state;
	struct ana a;
	ana_init(&a, NULL);
	struct cause_acc *c = contribute(&a, "shm_too_small", 0.5, FID_LOG_SHM_EXTEND_FAILED);
	assert_non_null(c);
	contribute(&a, "shm_too_small", 0.5, FID_LOG_SHM_EXTEND_FAILED);
	assert_true(near(score_conf(&a, "shm_too_small"), 0.75));
	assert_int_equal(c->nfids, 1); /* the same reason once */
	assert_string_equal(c->fids[0], "LOG_SHM_EXTEND_FAILED");
	for (int i = 0; i < 10; i++)
		contribute(&a, "shm_too_small", 0.9, FID_LOG_SHM_SIGBUS);
	assert_true(near(score_conf(&a, "shm_too_small"), 0.97)); /* never certain */
	assert_int_equal(c->nfids, 2);
	assert_null(contribute(&a, "bootstrap_network", 0, FID_LOG_HANG_BOOTSTRAP)); /* no weight: nothing */
	assert_null(score_find(&a, "bootstrap_network"));
	assert_int_equal(a.ncauses, 1);
}

static void test_cap_keeps_why(void **state)
{
	(void)state;
	struct ana a;
	ana_init(&a, NULL);
	contribute(&a, "peer_died_or_oom", 0.8, FID_LOG_PEER_CONNECTION_LOST);
	score_cap(&a, "peer_died_or_oom", 0.4, "the peer ended cleanly");
	assert_true(near(score_conf(&a, "peer_died_or_oom"), 0.4));
	assert_int_equal(a.nnotes, 1);
	assert_string_equal(a.notes[0].cause, "peer_died_or_oom");
	assert_string_equal(a.notes[0].why, "the peer ended cleanly");
	assert_true(near(a.notes[0].from, 0.8) && near(a.notes[0].to, 0.4) && !a.notes[0].dropped);
	/* below the cap, or no such cause: nothing changes, nothing noted */
	score_cap(&a, "peer_died_or_oom", 0.5, "not below");
	score_cap(&a, "unknown", 0.1, "absent");
	assert_int_equal(a.nnotes, 1);
	assert_null(score_find(&a, "unknown")); /* a cap adds no entry */
	assert_int_equal(a.ncauses, 1);
}

static void test_drop_keeps_why(void **state)
{
	(void)state;
	struct ana a;
	ana_init(&a, NULL);
	contribute(&a, "p2p_pcie_acs_iommu", 0.3, FID_LOG_HANG_INIT_CONNECT);
	contribute(&a, "shm_too_small", 0.25, FID_LOG_HANG_INIT_CONNECT);
	/* a rule that still names the former class counts for its successor */
	contribute(&a, "hardware_xid_nvlink", 0.2, FID_LOG_HANG_INIT_CONNECT);
	score_drop(&a, "shm_too_small", "switched off");
	assert_int_equal(a.ncauses, 2);
	assert_null(score_find(&a, "shm_too_small"));
	assert_string_equal(a.causes[0].cause, "p2p_pcie_acs_iommu"); /* the others keep their order */
	assert_string_equal(a.causes[1].cause, "gpu_hardware");
	assert_non_null(score_find(&a, "hardware_xid_nvlink"));
	assert_int_equal(a.nnotes, 1);
	assert_true(a.notes[0].dropped);
	assert_true(near(a.notes[0].from, 0.25));
	assert_string_equal(a.notes[0].why, "switched off");
	score_drop(&a, "shm_too_small", "again");
	assert_int_equal(a.nnotes, 1);
}

static void test_link_finding_once(void **state)
{
	(void)state;
	struct ana a;
	ana_init(&a, NULL);
	contribute(&a, "bootstrap_network", 0.4, FID_LOG_HANG_BOOTSTRAP);
	score_link_finding(&a, "bootstrap_network", "LOG_WATCHDOG_TIMEOUT");
	score_link_finding(&a, "bootstrap_network", "LOG_WATCHDOG_TIMEOUT");
	const struct cause_acc *c = score_find(&a, "bootstrap_network");
	assert_int_equal(c->nfids, 2);
	assert_string_equal(c->fids[1], "LOG_WATCHDOG_TIMEOUT");
}

static void test_close_ranks_and_drops_echoes(void **state)
{
	(void)state;
	struct result *r = result_new("logs");
	struct ana a;
	ana_init(&a, r);
	contribute(&a, "shm_too_small", 0.6, FID_LOG_SHM_EXTEND_FAILED);
	contribute(&a, "bootstrap_network", 0.2, FID_LOG_HANG_BOOTSTRAP);
	contribute(&a, "ib_rdma_config", 0.08, FID_LOG_IB_ERROR);
	contribute(&a, "bootstrap_network", 0, FID_LOG_HANG_BOOTSTRAP);
	score_close(&a);
	assert_true(a.failed); /* a cause of 0.5 or more */
	assert_int_equal(a.ncauses, 2);
	assert_string_equal(a.causes[0].cause, "shm_too_small");
	assert_string_equal(a.causes[1].cause, "bootstrap_network");
	assert_int_equal(a.nnotes, 1); /* 0.08 beside 0.6: dropped, with its reason */
	assert_string_equal(a.notes[0].cause, "ib_rdma_config");
	assert_true(a.notes[0].dropped);
	assert_non_null(strstr(a.notes[0].why, "echo"));
	result_free(r);
}

static void test_close_unknown_when_failed(void **state)
{
	(void)state;
	struct result *r = result_new("logs");
	struct ana a;
	ana_init(&a, r);
	a.failed = true;
	score_close(&a);
	assert_int_equal(a.ncauses, 1);
	assert_string_equal(a.causes[0].cause, "unknown");
	assert_true(near(a.causes[0].conf, 0.1));
	ana_init(&a, r);
	score_close(&a); /* healthy, no lead: no cause */
	assert_int_equal(a.ncauses, 0);
	assert_false(a.failed);
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_contribute_noisy_or),  cmocka_unit_test(test_cap_keeps_why),
		cmocka_unit_test(test_drop_keeps_why),       cmocka_unit_test(test_link_finding_once),
		cmocka_unit_test(test_close_ranks_and_drops_echoes), cmocka_unit_test(test_close_unknown_when_failed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
