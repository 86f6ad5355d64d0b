/* Unit tests of nccl-tests' environment variables as bench parses them
 * (analyze/bench_env.h): NCCL_TESTS_SPLIT_MASK / NCCL_TESTS_SPLIT colors
 * and group places, and the alltoallv traffic matrix text, with the error
 * of each kind of bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/bench_env.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int colors_of(const char *mask, const char *split, int n, int *c)
{
	char err[160] = "";
	int g = bench_split_colors(mask, split, n, c, err, sizeof(err));
	if (g < 0)
		assert_true(err[0] != '\0');
	return g;
}

static void test_split_colors(void **state)
{
	(void)state;
	int c[8];
	/* nccl-tests' common.cu: MASK is hexadecimal, proc & MASK */
	assert_int_equal(colors_of("0x1", NULL, 8, c), 2);
	assert_int_equal(c[0], 0), assert_int_equal(c[1], 1), assert_int_equal(c[6], 0), assert_int_equal(c[7], 1);
	assert_int_equal(colors_of("6", "MOD 2", 8, c), 4); /* MASK wins over SPLIT; 0x6: 0,2,4,6 */
	assert_int_equal(c[5], 4), assert_int_equal(c[3], 2);
	assert_int_equal(colors_of(NULL, "AND 0x2", 4, c), 2);
	assert_int_equal(c[2], 2), assert_int_equal(c[1], 0);
	assert_int_equal(colors_of(NULL, "|4", 4, c), 4); /* 4,5,6,7 */
	assert_int_equal(c[3], 7);
	assert_int_equal(colors_of(NULL, "mod 3", 8, c), 3);
	assert_int_equal(c[7], 1);
	assert_int_equal(colors_of(NULL, "%0b11", 8, c), 3); /* binary, as nccl-tests' parseInt */
	assert_int_equal(colors_of(NULL, "DIV 4", 8, c), 2);
	assert_int_equal(c[3], 0), assert_int_equal(c[4], 1);
	assert_int_equal(colors_of(NULL, " / 2 ", 8, c), 4);
	assert_int_equal(colors_of(NULL, NULL, 4, c), 1);
	assert_int_equal(c[3], 0);
	/* what nccl-tests takes silently is refused here */
	assert_int_equal(colors_of(NULL, "XOR 1", 4, c), -EINVAL);
	assert_int_equal(colors_of(NULL, "MOD 0", 4, c), -EINVAL);
	assert_int_equal(colors_of(NULL, "/0", 4, c), -EINVAL);
	assert_int_equal(colors_of(NULL, "AND 2x", 4, c), -EINVAL);
	assert_int_equal(colors_of(NULL, "AND -1", 4, c), -EINVAL);
	assert_int_equal(colors_of(NULL, "", 4, c), -EINVAL);
	assert_int_equal(colors_of("zz", NULL, 4, c), -EINVAL);
	assert_int_equal(colors_of("", NULL, 4, c), -EINVAL);
	assert_int_equal(colors_of("-1", NULL, 4, c), -EINVAL);
	assert_int_equal(colors_of(NULL, "OR 99999999999", 4, c), -EINVAL);
}

static void test_split_place(void **state)
{
	(void)state;
	const int c[6] = { 0, 1, 2, 0, 1, 0 };
	int r, s;
	bench_split_place(c, 6, 5, &r, &s);
	assert_int_equal(r, 2), assert_int_equal(s, 3);
	bench_split_place(c, 6, 4, &r, &s);
	assert_int_equal(r, 1), assert_int_equal(s, 2);
	bench_split_place(c, 6, 2, &r, &s);
	assert_int_equal(r, 0), assert_int_equal(s, 1);
}

/* the text, line by line as the reader hands it: dimension or -EINVAL */
static int parse(struct bench_a2av_parse *p, const char *text, double scale)
{
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", text);
	bench_a2av_parse_init(p, scale);
	unsigned long long no = 0;
	for (char *save = NULL, *l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (bench_a2av_parse_line(p, l, strlen(l), ++no) < 0)
			return -EINVAL;
	return bench_a2av_parse_end(p);
}

static void test_matrix(void **state)
{
	(void)state;
	static struct bench_a2av_parse p;
	/* nccl-tests' own example, 16-byte chunks */
	assert_int_equal(parse(&p, "100  200  150\n50   100  75\n\n300  150  200\n", 1.0), 3);
	assert_int_equal(p.m[0][0], 96), assert_int_equal(p.m[0][1], 192), assert_int_equal(p.m[1][2], 64);
	assert_int_equal(p.m[2][0], 288);
	assert_int_equal(parse(&p, "1e3 0x20\t16\r\n 0 0 0\n1 2 3", 2.0), 3); /* strtod's forms, the scale */
	assert_int_equal(p.m[0][0], 2000), assert_int_equal(p.m[0][1], 64), assert_int_equal(p.m[2][2], 0);
	assert_int_equal(parse(&p, "5", 0.0), 1);
	/* bad input: each with its reason */
	static const struct { const char *text, *why; } bad[] = {
		{ "", "empty" },
		{ " \n\t\n", "empty" },
		{ "1 2\n3 4 5\n", "line 2 has 3 values" },
		{ "1 2 3\n4 5 6\n", "square, not 2 rows of 3" },
		{ "1 2\n3 abc\n", "line 2, value 2: 'abc'" },
		{ "1 -2\n3 4\n", "value 2: '-2'" },
		{ "12x 2\n3 4\n", "'12x'" },
		{ "nan 2\n3 4\n", "'nan'" },
		{ "inf 2\n3 4\n", "'inf'" },
		{ "1e999 2\n3 4\n", "'1e999'" },
		{ "1,2\n3,4\n", "'1,2'" },
		{ "1e19 1\n1 1\n", "overflows" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(&p, bad[i].text, i == sizeof(bad) / sizeof(bad[0]) - 1 ? 10.0 : 1.0) != -EINVAL)
			fail_msg("'%s' parsed", bad[i].text);
		if (!strstr(p.err, bad[i].why))
			fail_msg("'%s': '%s' does not say '%s'", bad[i].text, p.err, bad[i].why);
	}
	/* a NUL inside a line is not a value */
	bench_a2av_parse_init(&p, 1.0);
	assert_int_equal(bench_a2av_parse_line(&p, "16\0 32", 6, 1), -EINVAL);
	/* larger than the kept square: checked whole, its corner kept */
	bench_a2av_parse_init(&p, 1.0);
	char row[70 * 4];
	size_t off = 0;
	for (int j = 0; j < 70; j++)
		off += (size_t)snprintf(row + off, sizeof(row) - off, "%d ", j < 64 ? 32 : 48);
	for (int i = 0; i < 70; i++)
		assert_int_equal(bench_a2av_parse_line(&p, row, off, (unsigned long long)i + 1), 0);
	assert_int_equal(bench_a2av_parse_end(&p), 70);
	assert_int_equal(p.m[63][63], 32);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_colors),
		cmocka_unit_test(test_split_place),
		cmocka_unit_test(test_matrix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
