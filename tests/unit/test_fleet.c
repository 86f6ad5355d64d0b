/* Unit tests of merge's pure pieces: the Slurm hostlist expander
 * (util/hostlist), the median/MAD outlier test and the one-line drain
 * reason (analyze/fleet). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/fleet.h"
#include "util/hostlist.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* expands text and compares with the names joined by ' ' */
static void expect_hosts(const char *text, const char *want)
{
	struct hostlist hl = { 0 };
	char err[256] = "";
	int r = hostlist_expand(text, &hl, err, sizeof(err));
	if (r < 0)
		fail_msg("'%s': %s", text, err);
	char got[4096] = "";
	for (size_t i = 0; i < hl.n; i++) {
		strcat(got, i ? " " : "");
		strcat(got, hl.names[i]);
	}
	assert_string_equal(got, want);
	hostlist_release(&hl);
}

static void expect_bad(const char *text, int code, const char *why)
{
	struct hostlist hl = { 0 };
	char err[256] = "";
	assert_int_equal(hostlist_expand(text, &hl, err, sizeof(err)), code);
	if (!strstr(err, why))
		fail_msg("'%s': '%s' lacks '%s'", text, err, why);
	assert_int_equal(hl.n, 0);
	assert_null(hl.names);
}

static void test_hostlist_forms(void **state)
{
	(void)state;
	expect_hosts("login1", "login1");
	expect_hosts("gpu[01-03,20],login1", "gpu01 gpu02 gpu03 gpu20 login1");
	/* the first number's width pads the range; without a leading zero none */
	expect_hosts("n[8-11]", "n8 n9 n10 n11");
	expect_hosts("n[08-11]", "n08 n09 n10 n11");
	expect_hosts("n[098-101]", "n098 n099 n100 n101");
	/* two groups: the last varies fastest, a suffix after the brackets */
	expect_hosts("r[1-2]n[1-2]-ib", "r1n1-ib r1n2-ib r2n1-ib r2n2-ib");
	/* a name given twice is kept once, in the first place */
	expect_hosts("a,b,a,c[1-2],c1", "a b c1 c2");
	expect_hosts("host.example.com,x_y", "host.example.com x_y");
	/* the largest list there may be, quickly (no pairwise comparison) */
	struct hostlist hl = { 0 };
	char err[256];
	assert_int_equal(hostlist_expand("a[000-255]b[000-255]", &hl, err, sizeof(err)), 0);
	assert_int_equal(hl.n, HOSTLIST_MAX);
	assert_string_equal(hl.names[HOSTLIST_MAX - 1], "a255b255");
	assert_true(hostlist_has(&hl, "a007b123"));
	hostlist_release(&hl);
}

static void test_hostlist_errors(void **state)
{
	(void)state;
	expect_bad("", -EINVAL, "empty host list");
	expect_bad("gpu[01-03", -EINVAL, "without its ']'");
	expect_bad("gpu01-03]", -EINVAL, "without its '['");
	expect_bad("gpu[]", -EINVAL, "empty '[]'");
	expect_bad("gpu[5-3]", -EINVAL, "runs backwards");
	expect_bad("gpu[a-c]", -EINVAL, "not a number");
	expect_bad("gpu[1-3,]", -EINVAL, "before ']'");
	expect_bad("gpu[1[2]]", -EINVAL, "inside brackets");
	expect_bad("a,,b", -EINVAL, "empty name");
	expect_bad("a,", -EINVAL, "ends with ','");
	expect_bad("a b", -EINVAL, "space or quote");
	expect_bad("n[0-99999999]", -E2BIG, "more than 65536");
	expect_bad("a[0-300]b[0-300]", -E2BIG, "more than 65536");
}

static void test_outliers(void **state)
{
	(void)state;
	bool low[8];
	double med, mad;
	/* one slow node among close peers: far outside 3 x 1.4826 x MAD and 10 % */
	double x[] = { 180.1, 181.0, 179.6, 180.4, 95.0, 180.8 };
	assert_int_equal(fleet_outliers_low(x, 6, low, &med, &mad), 1);
	assert_true(low[4]);
	assert_false(low[0] || low[1] || low[2] || low[3] || low[5]);
	assert_true(fabs(med - 180.25) < 1e-9);
	/* a faster node is no problem: only low ones are flagged */
	double fast[] = { 100, 101, 99, 100, 150 };
	assert_int_equal(fleet_outliers_low(fast, 5, low, &med, &mad), 0);
	/* identical peers (MAD 0): the 10 % floor decides, not the MAD */
	double same[] = { 100, 100, 100, 100, 95 };
	assert_int_equal(fleet_outliers_low(same, 5, low, &med, &mad), 0);
	assert_true(mad == 0);
	same[4] = 89;
	assert_int_equal(fleet_outliers_low(same, 5, low, &med, &mad), 1);
	assert_true(low[4]);
	/* widely spread values: 3 scaled MADs is wider than 10 %, no outlier */
	double spread[] = { 100, 60, 140, 80, 120, 50 };
	assert_int_equal(fleet_outliers_low(spread, 6, low, &med, &mad), 0);
	/* fewer than 3: no majority to compare with */
	double two[] = { 100, 10 };
	assert_int_equal(fleet_outliers_low(two, 2, low, &med, &mad), 0);
	assert_false(low[0] || low[1]);
	assert_true(isnan(med));
}

static void test_reason(void **state)
{
	(void)state;
	char b[FLEET_REASON_MAX + 40];
	fleet_reason(b, sizeof(b), "HEALTHY", NULL, NULL);
	assert_string_equal(b, "nccl-doctor: HEALTHY");
	fleet_reason(b, sizeof(b), "BROKEN", "SHM_TOO_SMALL", "/dev/shm is only 64 MiB");
	assert_string_equal(b, "nccl-doctor: BROKEN SHM_TOO_SMALL: /dev/shm is only 64 MiB");
	/* nothing a shell or scontrol's quoting takes apart */
	fleet_reason(b, sizeof(b), "BROKEN", "X", "a \"quoted\" $(rm -rf /) `x` \\ line\nbreak\ttab");
	assert_null(strpbrk(b, "\"`$\\\n\t"));
	assert_string_equal(b, "nccl-doctor: BROKEN X: a 'quoted' S(rm -rf /) 'x' ' line break tab");
	/* at most FLEET_REASON_MAX bytes with the NUL, whatever the title */
	char title[600];
	memset(title, 'y', sizeof(title) - 1);
	title[sizeof(title) - 1] = 0;
	fleet_reason(b, sizeof(b), "DEGRADED", "ID", title);
	assert_int_equal(strlen(b), FLEET_REASON_MAX - 1);
	char small[16];
	fleet_reason(small, sizeof(small), "BROKEN", "ID", "t");
	assert_string_equal(small, "nccl-doctor: BR");
}

static void test_doc_check(void **state)
{
	(void)state;
	const char *node = NULL;
	char why[256];
	json_t *d = json_loads("{\"schema_version\":4,\"command\":\"sys\",\"hostname\":\"gpu01\"}", 0, NULL);
	assert_int_equal(fleet_doc_check(d, 4, &node, why, sizeof(why)), 0);
	assert_string_equal(node, "gpu01");
	assert_int_equal(fleet_doc_check(d, 5, &node, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "schema_version 4"));
	json_object_set_new(d, "hostname", json_string("a;rm -rf"));
	assert_int_equal(fleet_doc_check(d, 4, &node, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "not a node name"));
	json_object_del(d, "hostname");
	assert_int_equal(fleet_doc_check(d, 4, &node, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no hostname"));
	json_decref(d);
	d = json_loads("[1]", 0, NULL);
	assert_int_equal(fleet_doc_check(d, 4, &node, why, sizeof(why)), -1);
	json_decref(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostlist_forms), cmocka_unit_test(test_hostlist_errors),
		cmocka_unit_test(test_outliers),       cmocka_unit_test(test_reason),
		cmocka_unit_test(test_doc_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
