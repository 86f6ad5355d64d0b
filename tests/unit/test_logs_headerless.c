/* Unit tests of the NCCL log reader's fallbacks added for the held-out
 * public batches 5 and 6 (issue 14): NCCL lines pasted without their
 * host:pid:tid [dev] header (analyze/logs/read/headerless.c), the nvidia-smi
 * topo -m matrix reader, the stop inside NVLS set-up and NET/Socket's
 * interface list wrapped one a line (analyze/logs/read/topomat.c; the NVLS
 * stop: analyze/logs/rules/fabric.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/nccllog.h"
#include "model/result.h"
#include "logslines.h"

#include <stdlib.h>
#include <string.h>

static int parse(const char *s, struct nl_line *l)
{
	return nccllog_parse_line(s, strlen(s), l);
}

static bool field_is(const char *p, size_t n, const char *want)
{
	return p && n == strlen(want) && memcmp(p, want, n) == 0;
}

static void test_headerless_shapes(void **state)
{
	(void)state;
	struct nl_line l;
	/* WARN with its source file (nccl#379) */
	assert_int_equal(parse("graph/xml.h:77 NCCL WARN Attribute arch of node cpu not found", &l), 1);
	assert_int_equal(l.level, NL_WARN);
	assert_true(field_is(l.host, l.hostlen, "unknown host"));
	assert_int_equal(l.pid, 0);
	assert_int_equal(l.dev, -1);
	assert_true(field_is(l.src, l.srclen, "graph/xml.h"));
	assert_int_equal(l.srcline, 77);
	assert_true(field_is(l.msg, l.msglen, "Attribute arch of node cpu not found"));
	/* the device field kept, in markdown backticks (nccl#718) */
	assert_int_equal(parse("`[0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed with error No such device`", &l), 1);
	assert_int_equal(l.level, NL_WARN);
	assert_int_equal(l.dev, 0);
	assert_true(field_is(l.src, l.srclen, "misc/ibvwrap.cc"));
	assert_true(field_is(l.msg, l.msglen, "Call to ibv_modify_qp failed with error No such device"));
	/* INFO back-trace without header */
	assert_int_equal(parse("NCCL INFO graph/topo.cc:380 -> 3", &l), 1);
	assert_int_equal(l.level, NL_INFO);
	assert_null(l.src);
	assert_true(field_is(l.msg, l.msglen, "graph/topo.cc:380 -> 3"));
	/* a bare INFO of an NCCL subsystem (nccl#697) */
	assert_int_equal(parse("INFO NET/Socket : Using", &l), 1);
	assert_int_equal(l.level, NL_INFO);
	assert_true(field_is(l.msg, l.msglen, "NET/Socket : Using"));
	assert_int_equal(parse("  INFO Bootstrap : Using eth0:10.0.0.1<0>", &l), 1);
	assert_int_equal(parse("INFO init.cc:840 -> 3", &l), 1);
	/* the real header still wins */
	assert_int_equal(parse("gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure 'x'", &l), 1);
	assert_true(field_is(l.host, l.hostlen, "gcn75"));
	/* not NCCL lines */
	assert_int_equal(parse("INFO 04-13 19:52:24 [multiproc_executor.py:749] Parent process exited", &l), 0);
	assert_int_equal(parse("INFO: Started server process [42]", &l), 0);
	assert_int_equal(parse("INFO worker started", &l), 0);
	assert_int_equal(parse("some text NCCL INFO without a header", &l), 0);
	assert_int_equal(parse("NCCL version 2.21.5+cuda12.4", &l), 0);
	assert_int_equal(parse("NCCL INFORMATION", &l), 0);
	assert_int_equal(parse("main.py:12 NCCL WARNING: x", &l), 0);
	assert_int_equal(parse("[0] text", &l), 0);
	assert_int_equal(l.dev, -1);
	assert_int_equal(parse("`", &l), 0);
	assert_int_equal(parse("[99999999999999999999] a.cc:1 NCCL WARN x", &l), 0);
}

static const struct cause *cause_named(const struct cause_list *cl, const char *name)
{
	for (size_t i = 0; i < cl->n; i++)
		if (strcmp(cl->v[i].cause, name) == 0)
			return &cl->v[i];
	return NULL;
}

static void test_topo_matrix(void **state)
{
	(void)state;
	/* nccl#667: PXB and PIX pairs, tabs and padded cells */
	static const char *const pcie[] = {
		"\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity",
		"GPU0\t X \tPXB\tSYS\tSYS\t0-27,56-83\t0",
		"GPU1\tPXB\t X \tSYS\tSYS\t0-27,56-83\t0",
		"GPU2\tSYS\tSYS\t X \tPIX\t28-55,84-111\t1",
		"GPU3\tSYS\tSYS\tPIX\t X \t28-55,84-111\t1",
	};
	struct result *r = analyze_lines(pcie, 5);
	const struct cause *c = cause_named(r->causes, "p2p_pcie_acs_iommu");
	assert_non_null(c);
	assert_true(c->confidence >= 0.3);
	assert_string_equal(r->causes->v[0].cause, "p2p_pcie_acs_iommu");
	result_free(r);
	/* NVLink between the GPUs, a NIC column: no PCIe-only lead */
	static const char *const nv[] = {
		"        GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity",
		"GPU0     X      NV18    PXB     0-63            0",
		"GPU1    NV18     X      PXB     0-63            0",
		"NIC0    PXB     PXB      X",
	};
	r = analyze_lines(nv, 4);
	assert_null(cause_named(r->causes, "p2p_pcie_acs_iommu"));
	result_free(r);
	/* rows without a header, or that do not read as a matrix row */
	static const char *const bad[] = {
		"GPU0     X      NODE    0-63            0",
		"        GPU0    GPU1    CPU Affinity",
		"GPU0 is busy with NODE and SYS",
		"GPU1    NODE    NODE    0-63",
	};
	r = analyze_lines(bad, 4);
	assert_null(cause_named(r->causes, "p2p_pcie_acs_iommu"));
	result_free(r);
}

static void test_nvls_stop(void **state)
{
	(void)state;
	/* nccl-tests#216: the last line of every rank */
	static const char *const stop[] = {
		"c2ce1c877ea3:1023:1032 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x7f3310ccb240 MC handle 0x7f3310ccaa20 size 1073741824",
	};
	struct result *r = analyze_lines(stop, 1);
	assert_true(r->causes->n >= 1);
	assert_string_equal(r->causes->v[0].cause, "fabric_manager_nvswitch");
	result_free(r);
	/* with a timeout's kill: stronger */
	static const char *const killed[] = {
		"c2ce1c877ea3:1023:1032 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x7f3310ccb240 MC handle 0x7f3310ccaa20 size 1073741824",
		"rc=124",
	};
	r = analyze_lines(killed, 2);
	const struct cause *c = cause_named(r->causes, "fabric_manager_nvswitch");
	assert_non_null(c);
	assert_true(c->confidence >= 0.6);
	result_free(r);
	/* NVLS capability and tear-down lines are no stop in set-up */
	static const char *const other[] = {
		"h:1:1 [0] NCCL INFO NVLS multicast support is available on dev 0",
		"h:1:1 [0] NCCL INFO NVLS Unbind MC handle 7f00 size 1024 dev 0",
	};
	r = analyze_lines(other, 2);
	assert_null(cause_named(r->causes, "fabric_manager_nvswitch"));
	result_free(r);
}

static void test_wrapped_interfaces(void **state)
{
	(void)state;
	/* nccl#697's list, wrapped one interface a line, in a failed run */
	static const char *const failed[] = {
		"ncclSystemError: System call (socket, malloc, munmap, etc) failed.",
		"[0]bond0:192.168.1.161<0>",
		"[1]br-05ab815fa14e:172.19.0.1<0>",
		"[12]veth6163fba:fe80::b878:6cff:fe52:abe2%veth6163fba<0> ",
	};
	struct result *r = analyze_lines(failed, 4);
	const struct cause *c = cause_named(r->causes, "bootstrap_network");
	assert_non_null(c);
	assert_true(c->confidence >= 0.35);
	result_free(r);
	/* routable interfaces only, or no failure: nothing */
	static const char *const plain[] = {
		"ncclSystemError: System call (socket, malloc, munmap, etc) failed.",
		"[0]bond0:192.168.1.161<0>",
		"[1]eth1:10.0.0.2<0>",
		"[2]br-x",
	};
	r = analyze_lines(plain, 4);
	assert_null(cause_named(r->causes, "bootstrap_network"));
	result_free(r);
	static const char *const ok[] = { "[1]br-05ab815fa14e:172.19.0.1<0>" };
	r = analyze_lines(ok, 1);
	assert_null(cause_named(r->causes, "bootstrap_network"));
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_headerless_shapes),
		cmocka_unit_test(test_topo_matrix),
		cmocka_unit_test(test_nvls_stop),
		cmocka_unit_test(test_wrapped_interfaces),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
