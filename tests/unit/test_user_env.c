/* Unit tests of analyze/user_env: which of the user's NCCL variables NCCL's
 * own lines implicate, with the cause class and the line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/user_env.h"

#include <string.h>

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_suspectable(void **state)
{
	(void)state;
	assert_true(uenv_suspectable("NCCL_NET"));
	assert_true(uenv_suspectable("CUDA_LAUNCH_BLOCKING"));
	assert_false(uenv_suspectable("CUDA_VISIBLE_DEVICES"));
	assert_false(uenv_suspectable("CUDA_DEVICE_ORDER"));
	assert_false(uenv_suspectable("NCCL_DOCTOR_LIBRARY_PATH"));
	assert_false(uenv_suspectable("NCCL_DEBUG"));
	assert_false(uenv_suspectable("NCCL_DEBUG_FILE"));
	assert_false(uenv_suspectable("NCCL_"));
	assert_false(uenv_suspectable("PATH"));
	/* set by container images and toolkits, read by neither NCCL nor the driver */
	assert_false(uenv_suspectable("CUDA_HOME"));
	assert_false(uenv_suspectable("CUDA_VERSION"));
	assert_false(uenv_suspectable("NCCL_VERSION"));
	assert_true(uenv_suspectable("CUDA_HOME_X"));
	assert_false(uenv_suspectable(NULL));
}

/* NCCL_NET=IB on a host without InfiniBand (2.27+ words): NCCL_NET, not
 * the unrelated NCCL_P2P_LEVEL; NCCL_IB_HCA too, as the IB device search
 * came up empty while the network was required */
static void test_net_ib(void **state)
{
	(void)state;
	const struct uenv_var vars[] = { { "NCCL_P2P_LEVEL", "NVL" }, { "NCCL_NET", "IB" }, { "NCCL_IB_HCA", "mlx5_0" },
					 { "NCCL_DOCTOR_FAKEGPU_SCENARIO", "x.json" } };
	const char *lines[] = {
		"h:1:2 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>",
		"h:1:2 [0] NCCL INFO NET/IB : No device found.",
		"h:1:2 [0] NCCL INFO Failed to initialize NET plugin IB",
		"h:1:2 [0] NCCL WARN Failed to initialize any NET plugin",
	};
	struct uenv_hit h[UENV_MAX];
	int n = uenv_implicated(vars, N(vars), lines, N(lines), h, UENV_MAX);
	assert_int_equal(n, 2);
	assert_string_equal(h[0].name, "NCCL_NET");
	assert_string_equal(h[0].value, "IB");
	assert_string_equal(h[0].cause, "nccl_config_error");
	assert_string_equal(h[0].line, "NCCL WARN Failed to initialize any NET plugin");
	assert_true(h[0].fatal);
	assert_false(h[0].secondary);
	assert_string_equal(h[1].name, "NCCL_IB_HCA"); /* a suspect only with the failure: after it */
	assert_string_equal(h[1].cause, "ib_rdma_config");
	assert_true(h[1].secondary);
	/* without the failure, "No device found" implicates nothing */
	n = uenv_implicated(vars, N(vars), lines, 2, h, UENV_MAX);
	assert_int_equal(n, 0);
	/* NCCL before 2.27 */
	const char *old[] = { "h:1:2 [0] NCCL WARN Error: network IB not found." };
	n = uenv_implicated(vars + 1, 1, old, 1, h, UENV_MAX);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].name, "NCCL_NET");
}

/* a line implicates only what the user set */
static void test_not_set(void **state)
{
	(void)state;
	const struct uenv_var vars[] = { { "NCCL_P2P_DISABLE", "1" } };
	const char *lines[] = { "h:1:2 [0] NCCL WARN Failed to initialize any NET plugin",
				"h:1:2 [0] NCCL WARN Bootstrap : no socket interface found" };
	struct uenv_hit h[UENV_MAX];
	assert_int_equal(uenv_implicated(vars, N(vars), lines, N(lines), h, UENV_MAX), 0);
	assert_int_equal(uenv_implicated(NULL, 0, lines, N(lines), h, UENV_MAX), 0);
}

static void test_socket_ifname(void **state)
{
	(void)state;
	const struct uenv_var vars[] = { { "NCCL_SOCKET_IFNAME", "bogus0" } };
	const char *lines[] = { "h:1:1 [0] NCCL INFO NCCL_SOCKET_IFNAME set by environment to bogus0",
				"h:1:1 [0] NCCL WARN Bootstrap : no socket interface found" };
	struct uenv_hit h[UENV_MAX];
	int n = uenv_implicated(vars, N(vars), lines, N(lines), h, UENV_MAX);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].name, "NCCL_SOCKET_IFNAME");
	assert_string_equal(h[0].cause, "bootstrap_network");
	assert_string_equal(h[0].line, "NCCL WARN Bootstrap : no socket interface found");
}

/* an XML parse error points at the file NCCL said it was reading */
static void test_xml_context(void **state)
{
	(void)state;
	const struct uenv_var vars[] = { { "NCCL_TOPO_FILE", "/t.xml" }, { "NCCL_GRAPH_FILE", "/g.xml" } };
	const char *topo[] = { "h:1:2 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /t.xml",
			       "h:1:2 [0] NCCL INFO Loading topology file /t.xml",
			       "h:1:2 [0] NCCL WARN XML Parse : Unexpected EOF" };
	struct uenv_hit h[UENV_MAX];
	int n = uenv_implicated(vars, N(vars), topo, N(topo), h, UENV_MAX);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].name, "NCCL_TOPO_FILE");
	assert_true(h[0].fatal);
	const char *graph[] = { "h:1:2 [0] NCCL INFO NCCL_TOPO_FILE set by environment to /t.xml",
				"h:1:2 [0] NCCL INFO Loading topology file /t.xml",
				"h:1:2 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /g.xml",
				"h:1:2 [0] NCCL WARN XML Parse : unterminated graphs" };
	n = uenv_implicated(vars, N(vars), graph, N(graph), h, UENV_MAX);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].name, "NCCL_GRAPH_FILE");
	/* no context: both files are suspects */
	const char *bare[] = { "NCCL WARN XML Mismatch : system / cpu" };
	n = uenv_implicated(vars, N(vars), bare, 1, h, UENV_MAX);
	assert_int_equal(n, 2);
	/* an unopenable topology file: implicated, not fatal (NCCL skips it) */
	const char *skip[] = { "h:1:2 [0] NCCL INFO Could not open XML topology file /t.xml : No such file or directory" };
	n = uenv_implicated(vars, 1, skip, 1, h, UENV_MAX);
	assert_int_equal(n, 1);
	assert_false(h[0].fatal);
	const char *gskip[] = { "h:1:2 [0] NCCL WARN Could not open XML graph file /g.xml : Permission denied" };
	n = uenv_implicated(vars, N(vars), gskip, 1, h, UENV_MAX);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].name, "NCCL_GRAPH_FILE");
	assert_true(h[0].fatal);
}

/* a warning that names a variable the user set, as a whole word */
static void test_warn_names_var(void **state)
{
	(void)state;
	const struct uenv_var vars[] = { { "NCCL_IB_GID_INDEX", "9" }, { "NCCL_IB", "x" } };
	const char *lines[] = { "h:1:2 [0] NCCL WARN NCCL_IB_GID_INDEX 9 is out of range" };
	struct uenv_hit h[UENV_MAX];
	int n = uenv_implicated(vars, N(vars), lines, N(lines), h, UENV_MAX);
	assert_int_equal(n, 1);
	assert_string_equal(h[0].name, "NCCL_IB_GID_INDEX");
	/* INFO lines that name it implicate nothing */
	const char *info[] = { "h:1:2 [0] NCCL INFO NCCL_IB_GID_INDEX set by environment to 9" };
	assert_int_equal(uenv_implicated(vars, N(vars), info, 1, h, UENV_MAX), 0);
}

/* a value is shown as sys shows it: a credential redacted */
static void test_redacted(void **state)
{
	(void)state;
	const struct uenv_var vars[] = { { "NCCL_IB_SECRET_KEY", "hunter2" } };
	const char *lines[] = { "NCCL WARN NCCL_IB_SECRET_KEY is not accepted" };
	struct uenv_hit h[UENV_MAX];
	assert_int_equal(uenv_implicated(vars, N(vars), lines, 1, h, UENV_MAX), 1);
	assert_string_equal(h[0].value, "<redacted>");
}

static void test_cap(void **state)
{
	(void)state;
	const struct uenv_var vars[] = { { "NCCL_NET", "IB" }, { "NCCL_NET_PLUGIN", "foo" } };
	const char *lines[] = { "NCCL WARN Failed to initialize any NET plugin" };
	struct uenv_hit h[1];
	assert_int_equal(uenv_implicated(vars, N(vars), lines, 1, h, 1), 1);
	assert_string_equal(h[0].name, "NCCL_NET");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suspectable),    cmocka_unit_test(test_net_ib),
		cmocka_unit_test(test_not_set),        cmocka_unit_test(test_socket_ifname),
		cmocka_unit_test(test_xml_context),    cmocka_unit_test(test_warn_names_var),
		cmocka_unit_test(test_redacted),       cmocka_unit_test(test_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
