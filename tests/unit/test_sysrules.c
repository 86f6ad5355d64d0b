/* Unit tests of the `sys` rule helpers: NCCL_SOCKET_IFNAME matching as
 * NCCL's socket code does it (prefixes, '^' excludes, '=' exact), the
 * NCCL_P2P_LEVEL values NCCL honours (graph/paths.cc ncclGetLevel), and
 * CUDA_VISIBLE_DEVICES checks (indices, range, UUIDs, MIG, duplicates, -1,
 * garbage). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/sys.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void test_ifname_prefix(void **state)
{
	(void)state;
	assert_true(ifname_matches("eth", "eth0"));
	assert_true(ifname_matches("eth", "eth"));
	assert_true(ifname_matches("eth0", "eth0"));
	assert_true(ifname_matches("eth0", "eth0.100")); /* a prefix, not a name */
	assert_false(ifname_matches("eth", "ens3"));
	assert_false(ifname_matches("eth0", "eth"));
	assert_false(ifname_matches("Eth", "eth0"));
	/* a list */
	assert_true(ifname_matches("eth,ib", "ib0"));
	assert_true(ifname_matches("eth,ib", "eth1"));
	assert_false(ifname_matches("eth,ib", "enp1s0"));
	assert_true(ifname_matches("ens,,ib", "ib1"));
	assert_false(ifname_matches("nosuchif0", "eth0"));
	/* an empty list matches nothing here (the caller reports empty values) */
	assert_false(ifname_matches("", "eth0"));
}

static void test_ifname_exclude(void **state)
{
	(void)state;
	assert_false(ifname_matches("^docker,lo", "docker0"));
	assert_false(ifname_matches("^docker,lo", "lo"));
	assert_true(ifname_matches("^docker,lo", "eth0"));
	assert_true(ifname_matches("^docker,lo", "ib0"));
	/* "lo" is a prefix: it excludes "lo2" too */
	assert_false(ifname_matches("^docker,lo", "lo2"));
	assert_true(ifname_matches("^docker", "dock"));
}

static void test_ifname_exact(void **state)
{
	(void)state;
	assert_true(ifname_matches("=eth0", "eth0"));
	assert_false(ifname_matches("=eth0", "eth0.100"));
	assert_false(ifname_matches("=eth0", "eth"));
	assert_true(ifname_matches("=eth0,ib0", "ib0"));
	assert_false(ifname_matches("=eth0,ib0", "ib1"));
	/* excluding exact names */
	assert_false(ifname_matches("^=eth0", "eth0"));
	assert_true(ifname_matches("^=eth0", "eth0.100"));
	assert_true(ifname_matches("^=eth0", "eth1"));
	assert_false(ifname_matches("^=docker0,lo", "lo"));
	assert_true(ifname_matches("^=docker0,lo", "docker1"));
	/* '=' before '^' is not the exclude form: "^eth0" is then a name */
	assert_false(ifname_matches("=^eth0", "eth0"));
	assert_true(ifname_matches("=^eth0", "^eth0"));
}

static void test_ifname_long(void **state)
{
	(void)state;
	/* a spec longer than the internal buffer is cut, no overrun */
	char spec[1000];
	memset(spec, 'a', sizeof(spec) - 1);
	spec[sizeof(spec) - 1] = '\0';
	spec[0] = '^';
	assert_true(ifname_matches(spec, "eth0"));
	char list[2000] = "";
	for (int i = 0; i < 150; i++)
		strcat(list, "x,");
	strcat(list, "eth");
	assert_true(ifname_matches(list, "xylophone"));
	assert_false(ifname_matches(list, "yak"));
}

static void test_p2p_level(void **state)
{
	(void)state;
	const char *valid[] = { "LOC", "NVL", "NVB", "C2C", "PIX", "PXB", "P2C", "PXN", "PHB", "SYS",
				"0", "1", "2", "3", "4", "5", "9", "42", "3abc", "0x2" };
	for (size_t i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
		if (!nccl_p2p_level_valid(valid[i]))
			fail_msg("'%s' should be valid", valid[i]);
	/* names are compared exactly; numbers must start with a digit */
	const char *invalid[] = { "pxb", "Pix", "PXB ", " PXB", "NET", "DIS", "NVLINK", "PCI", "", "-1", "+2", " 2",
				  "true", "yes", "P" };
	for (size_t i = 0; i < sizeof(invalid) / sizeof(invalid[0]); i++)
		if (nccl_p2p_level_valid(invalid[i]))
			fail_msg("'%s' should be invalid", invalid[i]);
}

static int cvd(const char *v, int ngpus, char *why)
{
	strcpy(why, "unset");
	return cuda_visible_devices_check(v, ngpus, why, 256);
}

static void test_cvd_valid(void **state)
{
	(void)state;
	char why[256];
	assert_int_equal(cvd("0", 8, why), 0);
	assert_string_equal(why, "unset"); /* untouched when fine */
	assert_int_equal(cvd("0,1,2,3", 8, why), 0);
	assert_int_equal(cvd("7,6,5,4,3,2,1,0", 8, why), 0);
	assert_int_equal(cvd(" 1 , 3 ", 4, why), 0);
	assert_int_equal(cvd("", 8, why), 0);
	/* ngpus unknown: any index */
	assert_int_equal(cvd("0,15,99", 0, why), 0);
	assert_int_equal(cvd("5", -1, why), 0);
	/* UUIDs and MIG instances */
	assert_int_equal(cvd("GPU-6d8d0b5e-3b4c-1f2a-9c3e-2a6f4d1e8b7a", 8, why), 0);
	assert_int_equal(cvd("GPU-6d8d0b5e,GPU-1f2a9c3e", 8, why), 0);
	assert_int_equal(cvd("MIG-GPU-6d8d0b5e-3b4c-1f2a-9c3e-2a6f4d1e8b7a/1/0", 8, why), 0);
	assert_int_equal(cvd("MIG-7c3c1f1c-8d4b-5b8a-9e7f-1d2c3b4a5f6e", 8, why), 0);
	assert_int_equal(cvd("0,GPU-6d8d0b5e", 2, why), 0);
	/* -1 hides the devices */
	assert_int_equal(cvd("-1", 8, why), 0);
	assert_int_equal(cvd("0,-1", 8, why), 0);
}

static void test_cvd_invalid(void **state)
{
	(void)state;
	char why[256];
	assert_int_equal(cvd("0,8", 8, why), -1);
	assert_string_equal(why, "entry 2 '8' is beyond the GPUs present; CUDA ignores it and every entry after it");
	assert_int_equal(cvd("4", 4, why), -1);
	assert_string_equal(why, "entry 1 '4' is beyond the GPUs present; CUDA ignores it and every entry after it");
	assert_int_equal(cvd("0,1,abc,2", 8, why), -1);
	assert_string_equal(why,
			    "entry 3 'abc' is not an index or a GPU-/MIG- UUID; CUDA ignores it and every entry after it");
	assert_int_equal(cvd("GPU-", 8, why), -1);
	assert_string_equal(why, "entry 1 'GPU-' is not an index or a GPU-/MIG- UUID; CUDA ignores it and every entry after it");
	assert_int_equal(cvd("MIG-", 8, why), -1);
	assert_int_equal(cvd("gpu-6d8d0b5e", 8, why), -1);
	/* numbers that are not indices are not "beyond the GPUs present" */
	assert_int_equal(cvd("0 1", 8, why), -1);
	assert_string_equal(why, "entry 1 '0 1' is not an index or a GPU-/MIG- UUID; CUDA ignores it and every entry after it");
	assert_int_equal(cvd("1.5", 8, why), -1);
	assert_string_equal(why, "entry 1 '1.5' is not an index or a GPU-/MIG- UUID; CUDA ignores it and every entry after it");
	assert_int_equal(cvd("0x1", 8, why), -1);
	assert_int_equal(cvd("all", 8, why), -1);
	assert_int_equal(cvd("\xff\xfe", 8, why), -1);
	assert_int_equal(cvd("99999999999999999999999", 0, why), -1);
	assert_int_equal(cvd("99999999999999999999999", 8, why), -1);
	assert_non_null(strstr(why, "not an index"));
}

static void test_cvd_duplicates(void **state)
{
	(void)state;
	char why[256];
	assert_int_equal(cvd("0,0", 8, why), -2);
	assert_string_equal(why, "'0' appears twice");
	assert_int_equal(cvd("0,1,2,1", 8, why), -2);
	assert_string_equal(why, "'1' appears twice");
	assert_int_equal(cvd("1, 1", 0, why), -2);
	assert_int_equal(cvd("GPU-abc,0,GPU-abc", 8, why), -2);
	assert_string_equal(why, "'GPU-abc' appears twice");
	/* an invalid entry is reported before a later duplicate */
	assert_int_equal(cvd("0,9,0", 8, why), -1);
	/* a small why buffer is cut visibly (" ..."), not overrun */
	char small[8];
	assert_int_equal(cuda_visible_devices_check("0,0", 8, small, sizeof(small)), -2);
	assert_string_equal(small, "'0' ...");
}

static void test_cvd_long(void **state)
{
	(void)state;
	char why[256];
	/* 100 distinct entries, 64 of them remembered: no overrun */
	char list[1024] = "";
	for (int i = 0; i < 100; i++) {
		char e[8];
		snprintf(e, sizeof(e), "%d,", i);
		strcat(list, e);
	}
	assert_int_equal(cvd(list, 0, why), 0);
	assert_int_equal(cvd(list, 50, why), -1);
	assert_string_equal(why, "entry 51 '50' is beyond the GPUs present; CUDA ignores it and every entry after it");
	/* a value longer than the internal buffer */
	char *huge = malloc(5000);
	memset(huge, '1', 4999);
	huge[4999] = '\0';
	int r = cvd(huge, 8, why);
	assert_int_equal(r, -1);
	free(huge);
}

static void test_device_names(void **state)
{
	(void)state;
	assert_string_equal(nvidia_device_name(0x2335), "H200");
	assert_string_equal(nvidia_device_name(0x2331), "H100 PCIe");
	assert_string_equal(nvidia_device_name(0x20b2), "A100 SXM4 80GB");
	assert_null(nvidia_device_name(0));
	assert_null(nvidia_device_name(0xffff));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ifname_prefix),
		cmocka_unit_test(test_ifname_exclude),
		cmocka_unit_test(test_ifname_exact),
		cmocka_unit_test(test_ifname_long),
		cmocka_unit_test(test_p2p_level),
		cmocka_unit_test(test_cvd_valid),
		cmocka_unit_test(test_cvd_invalid),
		cmocka_unit_test(test_cvd_duplicates),
		cmocka_unit_test(test_cvd_long),
		cmocka_unit_test(test_device_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
