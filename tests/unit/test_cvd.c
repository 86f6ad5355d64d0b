/* Unit tests of model/visible: the one CUDA_VISIBLE_DEVICES builder of the
 * children the tool starts (p2p's workers, bench's ranks): GPU indices and
 * UUIDs to the value, the empty list, the bounds on the count and the
 * buffer, and ids that would make a child see other GPUs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "model/visible.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void test_indices(void **state)
{
	(void)state;
	char buf[128];
	const char *one[] = { "3" };
	assert_int_equal(cvd_format(buf, sizeof(buf), one, 1, NULL), 0);
	assert_string_equal(buf, "CUDA_VISIBLE_DEVICES=3");
	const char *ids[] = { "0", "2", "1", "7" };
	int bad = 5;
	assert_int_equal(cvd_format(buf, sizeof(buf), ids, 4, &bad), 0);
	assert_string_equal(buf, "CUDA_VISIBLE_DEVICES=0,2,1,7");
	assert_int_equal(bad, -1);
}

static void test_index_form(void **state)
{
	(void)state;
	char buf[256];
	const int idx[] = { 0, 1, 2, 3, 10, 31 };
	assert_int_equal(cvd_format_indices(buf, sizeof(buf), idx, 6, NULL), 0);
	assert_string_equal(buf, "CUDA_VISIBLE_DEVICES=0,1,2,3,10,31");
	const int neg[] = { 0, -1 };
	int bad = -1;
	assert_int_equal(cvd_format_indices(buf, sizeof(buf), neg, 2, &bad), -EINVAL);
	assert_int_equal(bad, 1);
	assert_string_equal(buf, "");
	assert_int_equal(cvd_format_indices(buf, sizeof(buf), NULL, 0, NULL), -ENODATA);
	assert_int_equal(cvd_format_indices(buf, sizeof(buf), NULL, 3, NULL), -EINVAL);
	assert_int_equal(cvd_format(buf, sizeof(buf), NULL, 3, NULL), -ENOENT);
	int many[CVD_MAX_GPUS + 1];
	for (int i = 0; i <= CVD_MAX_GPUS; i++)
		many[i] = i;
	assert_int_equal(cvd_format_indices(buf, sizeof(buf), many, CVD_MAX_GPUS, NULL), 0);
	assert_int_equal(cvd_format_indices(buf, sizeof(buf), many, CVD_MAX_GPUS + 1, NULL), -E2BIG);
	char small[sizeof("CUDA_VISIBLE_DEVICES=0,1,2,3,10")];
	assert_int_equal(cvd_format_indices(small, sizeof(small), idx, 5, NULL), 0);
	assert_int_equal(cvd_format_indices(small, sizeof(small), idx, 6, NULL), -ENOSPC);
}

static void test_uuids(void **state)
{
	(void)state;
	char buf[256];
	const char *ids[] = { "GPU-fa4e0000-0000-4000-8000-000000000001", "GPU-fa4e0000-0000-4000-8000-000000000000",
			      "MIG-GPU-fa4e0000-0000-4000-8000-000000000002/1/0" };
	assert_int_equal(cvd_format(buf, sizeof(buf), ids, 3, NULL), 0);
	assert_string_equal(buf, "CUDA_VISIBLE_DEVICES=GPU-fa4e0000-0000-4000-8000-000000000001,"
				 "GPU-fa4e0000-0000-4000-8000-000000000000,"
				 "MIG-GPU-fa4e0000-0000-4000-8000-000000000002/1/0");
}

static void test_empty_list(void **state)
{
	(void)state;
	char buf[64];
	strcpy(buf, "junk");
	/* an empty value would hide every GPU: nothing to set */
	assert_int_equal(cvd_format(buf, sizeof(buf), NULL, 0, NULL), -ENODATA);
	assert_string_equal(buf, "");
}

static void test_bounds(void **state)
{
	(void)state;
	const char *ids[CVD_MAX_GPUS + 1];
	for (size_t i = 0; i <= CVD_MAX_GPUS; i++)
		ids[i] = "GPU-0123456789abcdef";
	char big[CVD_MAX_GPUS * 24 + 64];
	assert_int_equal(cvd_format(big, sizeof(big), ids, CVD_MAX_GPUS, NULL), 0);
	assert_int_equal(strlen(big), strlen("CUDA_VISIBLE_DEVICES=") + CVD_MAX_GPUS * 21 - 1);
	assert_int_equal(cvd_format(big, sizeof(big), ids, CVD_MAX_GPUS + 1, NULL), -E2BIG);
	assert_string_equal(big, "");

	/* exactly fits, one byte short, no room even for the name */
	const char *two[] = { "0", "1" };
	char exact[sizeof("CUDA_VISIBLE_DEVICES=0,1")];
	assert_int_equal(cvd_format(exact, sizeof(exact), two, 2, NULL), 0);
	assert_string_equal(exact, "CUDA_VISIBLE_DEVICES=0,1");
	char shy[sizeof("CUDA_VISIBLE_DEVICES=0,1") - 1];
	memset(shy, 'x', sizeof(shy));
	assert_int_equal(cvd_format(shy, sizeof(shy), two, 2, NULL), -ENOSPC);
	assert_string_equal(shy, "");
	char tiny[8];
	assert_int_equal(cvd_format(tiny, sizeof(tiny), two, 2, NULL), -ENOSPC);
	assert_string_equal(tiny, "");
	assert_int_equal(cvd_format(NULL, 0, two, 2, NULL), -ENOSPC);
}

static void test_bad_ids(void **state)
{
	(void)state;
	char buf[128];
	int bad = -1;
	const char *missing[] = { "GPU-a", NULL, "GPU-c" };
	assert_int_equal(cvd_format(buf, sizeof(buf), missing, 3, &bad), -ENOENT);
	assert_int_equal(bad, 1);
	assert_string_equal(buf, "");
	/* a name from the driver that CUDA would split or misread */
	const char *words[] = { "", "GPU-a,1", "GPU-a 1", "GPU-a\n", "A=B", "GPU-\xc3\xa9", "GPU-a;1" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		const char *ids[] = { "0", words[i] };
		bad = -1;
		if (cvd_format(buf, sizeof(buf), ids, 2, &bad) != -EINVAL || bad != 1 || buf[0])
			fail_msg("id %zu was accepted", i);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_indices), cmocka_unit_test(test_index_form),   cmocka_unit_test(test_uuids), cmocka_unit_test(test_empty_list),
		cmocka_unit_test(test_bounds),    cmocka_unit_test(test_bad_ids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
