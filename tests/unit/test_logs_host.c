/* Unit tests of the machine's facts in the log analysis (analyze/logs/rules/
 * host.c through score.c): a log read from memory, struct nl_host set by
 * hand, nccllog_analyze's causes checked. A fact that explains what the log
 * shows raises its cause above the log alone, with the fact as evidence
 * (source "machine"); a fact that rules it out drops or caps it; unknown
 * facts change nothing; only priors make the cause unknown
 * (rules/unknown.c). No file, no sysroot. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/nccllog.h"
#include "model/result.h"

#include <stdio.h>
#include <string.h>

/* A log that stops right after its P2P/IPC channels, before Init COMPLETE. */
static const char *const p2p_stop[] = {
	"b:41:41 [0] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>",
	"NCCL version 2.21.5+cuda12.4",
	"b:42:42 [1] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>",
	"b:41:41 [0] NCCL INFO comm 0x55d1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 3000 commId 0x4a7c - Init START",
	"b:42:42 [1] NCCL INFO comm 0x55e1 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 4000 commId 0x4a7c - Init START",
	"b:41:41 [0] NCCL INFO comm 0x55d1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0",
	"b:42:42 [1] NCCL INFO comm 0x55e1 rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1 MNNVL 0",
	"b:41:41 [0] NCCL INFO P2P Chunksize set to 131072",
	"b:41:81 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
	"b:42:82 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC",
	NULL,
};

/* NCCL_NET=IB and no network plugin (NCCL 2.28's words). */
static const char *const net_ib[] = {
	"h:1:1 [0] NCCL INFO NCCL_NET set by environment to IB",
	"NCCL version 2.28.9+cuda13.0",
	"[2026-12-03 08:15:58] h:1:1 [0] plugin/net.cc:379 NCCL WARN Failed to initialize any NET plugin",
	"h:1:1 [0] NCCL INFO init.cc:421 -> 5",
	NULL,
};

/* Channels over SHM, then a SIGBUS. */
static const char *const shm_bus[] = {
	"x:31:31 [0] NCCL INFO Bootstrap : Using eth0:172.17.0.2<0>",
	"NCCL version 2.19.3+cuda12.3",
	"x:32:32 [1] NCCL INFO Bootstrap : Using eth0:172.17.0.2<0>",
	"x:31:31 [0] NCCL INFO comm 0x5590 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 4000 commId 0x1f2e - Init START",
	"x:32:32 [1] NCCL INFO comm 0x5591 rank 1 nranks 2 cudaDev 1 nvmlDev 1 busId 5000 commId 0x1f2e - Init START",
	"x:31:81 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct",
	"x:32:82 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct",
	"Bus error (core dumped)",
	NULL,
};

/* The facts of a machine where everything is unknown but the struct is
 * filled: what host_hint_from_machine gives with nothing gathered. */
static void host_unknown(struct nl_host *h)
{
	memset(h, 0, sizeof(*h));
	h->known = true;
	snprintf(h->origin, sizeof(h->origin), "the test machine");
	h->nvlink = h->p2p_blocked = h->xid = h->ib_devices = h->shm_small = -1;
}

/* Reads lines, sets the facts, analyses into r (the caller frees it). */
static struct result *analyse(const char *const *lines, const struct nl_host *h)
{
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "t.log");
	uint64_t n = 0;
	char buf[512];
	for (; lines[n]; n++) {
		snprintf(buf, sizeof(buf), "%s", lines[n]);
		nccllog_feed(&lg, f, buf, strlen(buf), n + 1);
	}
	nccllog_end_file(&lg, f, n, 1000, 0, false);
	if (h)
		lg.host = *h;
	struct result *r = result_new("logs");
	nccllog_analyze(&lg, r);
	nccllog_release(&lg);
	return r;
}

static const struct cause *cause_of(const struct result *r, const char *cls)
{
	for (size_t i = 0; r->causes && i < r->causes->n; i++)
		if (strcmp(r->causes->v[i].cause, cls) == 0)
			return &r->causes->v[i];
	return NULL;
}

static double conf_of(const struct result *r, const char *cls)
{
	const struct cause *c = cause_of(r, cls);
	return c ? c->confidence : 0;
}

/* The evidence of c from source src whose text holds part. */
static bool has_ev(const struct cause *c, const char *src, const char *part)
{
	for (size_t i = 0; c && i < c->nev; i++)
		if (c->ev[i].source && strcmp(c->ev[i].source, src) == 0 && strstr(c->ev[i].text, part))
			return true;
	return false;
}

static void test_p2p_blocked_joins(void **state)
{
	(void)state;
	struct result *alone = analyse(p2p_stop, NULL);
	double a = conf_of(alone, "p2p_pcie_acs_iommu");
	assert_true(a > 0 && a < 0.25);
	assert_true(alone->causes->unknown); /* only the prior of a stop */
	assert_null(alone->causes->v[0].ev[0].source); /* no machine: no source said */

	struct nl_host h;
	host_unknown(&h);
	h.p2p_blocked = 1;
	snprintf(h.p2p_why, sizeof(h.p2p_why), "the test machine: ACS redirect is on at bridge 0000:02:08.0");
	struct result *r = analyse(p2p_stop, &h);
	const struct cause *c = cause_of(r, "p2p_pcie_acs_iommu");
	assert_non_null(c);
	assert_ptr_equal(c, &r->causes->v[0]);
	assert_true(c->confidence > 0.6 && c->confidence > a);
	assert_false(r->causes->unknown);
	assert_true(has_ev(c, "machine", "bridge 0000:02:08.0"));
	assert_true(has_ev(c, "log", "via P2P/IPC"));
	assert_string_equal(c->ev[1].source, "machine"); /* right after the first log line */
	result_free(r);
	result_free(alone);
}

static void test_p2p_open_or_nvlink(void **state)
{
	(void)state;
	struct nl_host h;
	host_unknown(&h);
	h.p2p_blocked = 0;
	snprintf(h.p2p_why, sizeof(h.p2p_why), "the test machine: ACS redirect is off");
	struct result *r = analyse(p2p_stop, &h);
	assert_null(cause_of(r, "p2p_pcie_acs_iommu"));
	assert_true(r->causes->unknown); /* what is left is priors */
	bool said = false;
	for (size_t i = 0; i < r->causes->n; i++)
		said |= has_ev(&r->causes->v[i], "analysis", "dropped p2p_pcie_acs_iommu");
	assert_true(said);
	result_free(r);

	host_unknown(&h);
	h.nvlink = 1;
	r = analyse(p2p_stop, &h);
	assert_true(conf_of(r, "p2p_pcie_acs_iommu") <= 0.1);
	result_free(r);
}

static void test_unknown_facts_change_nothing(void **state)
{
	(void)state;
	const char *const *logs[] = { p2p_stop, net_ib, shm_bus };
	for (size_t k = 0; k < sizeof(logs) / sizeof(logs[0]); k++) {
		struct nl_host h;
		host_unknown(&h);
		struct result *a = analyse(logs[k], NULL), *b = analyse(logs[k], &h);
		assert_int_equal(a->causes->n, b->causes->n);
		for (size_t i = 0; i < a->causes->n; i++) {
			assert_string_equal(a->causes->v[i].cause, b->causes->v[i].cause);
			assert_true(a->causes->v[i].confidence == b->causes->v[i].confidence);
		}
		result_free(a);
		result_free(b);
	}
}

static void test_net_ib_certain(void **state)
{
	(void)state;
	struct result *alone = analyse(net_ib, NULL);
	double a = conf_of(alone, "nccl_config_error");
	struct nl_host h;
	host_unknown(&h);
	h.ib_devices = 0;
	snprintf(h.ib_why, sizeof(h.ib_why), "the test machine: no RDMA device");
	struct result *r = analyse(net_ib, &h);
	const struct cause *c = cause_of(r, "nccl_config_error");
	assert_non_null(c);
	assert_true(c->confidence >= 0.97 && c->confidence > a);
	assert_true(has_ev(c, "machine", "no RDMA device"));
	assert_true(has_ev(c, "log", "Failed to initialize any NET plugin"));
	assert_true(has_ev(c, "log", "NCCL_NET set by environment to IB"));
	result_free(r);
	/* an RDMA device present: NCCL_NET=IB may be right, nothing joins */
	h.ib_devices = 2;
	r = analyse(net_ib, &h);
	assert_true(conf_of(r, "nccl_config_error") == a);
	result_free(r);
	result_free(alone);
}

static void test_shm_small_joins(void **state)
{
	(void)state;
	struct result *alone = analyse(shm_bus, NULL);
	double a = conf_of(alone, "shm_too_small");
	assert_true(a > 0.3);
	struct nl_host h;
	host_unknown(&h);
	h.shm_small = 1;
	snprintf(h.shm_why, sizeof(h.shm_why), "the test machine: /dev/shm is only 64 MiB");
	struct result *r = analyse(shm_bus, &h);
	assert_true(conf_of(r, "shm_too_small") > a);
	assert_true(has_ev(cause_of(r, "shm_too_small"), "machine", "64 MiB"));
	result_free(r);
	/* a large /dev/shm leaves a failure the log shows as it is */
	h.shm_small = 0;
	r = analyse(shm_bus, &h);
	assert_true(conf_of(r, "shm_too_small") == a);
	result_free(r);
	result_free(alone);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_p2p_blocked_joins),
		cmocka_unit_test(test_p2p_open_or_nvlink),
		cmocka_unit_test(test_unknown_facts_change_nothing),
		cmocka_unit_test(test_net_ib_certain),
		cmocka_unit_test(test_shm_small_joins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
