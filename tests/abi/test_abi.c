/* ABI test: our declarations of the CUDA driver, NCCL and NVML subsets
 * against the real headers found at configure time (CUDA 13 and NCCL 2.28 on
 * CI; nvml.h only where a driver development package is installed). A
 * library whose header is absent is skipped, and says so. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "abi_list.h"

#include <stdio.h>
#include <string.h>

static void compare(const struct abi_entry *ours, const struct abi_entry *real, const char *lib, const char *where)
{
	if (!where) {
		printf("# %s: no header found at configure time, skipped\n", lib);
		skip();
	}
	int n = 0, bad = 0;
	for (; ours[n].what; n++) {
		assert_non_null(real[n].what);
		assert_string_equal(ours[n].what, real[n].what);
		if (ours[n].value != real[n].value) {
			printf("# %s: %s is %lld here but %lld in %s\n", lib, ours[n].what, ours[n].value, real[n].value, where);
			bad++;
		}
	}
	assert_null(real[n].what);
	printf("# %s: %d values compared with %s\n", lib, n, where);
	assert_int_equal(bad, 0);
}

static void test_cuda(void **state) { (void)state; compare(abi_ours_cuda, abi_real_cuda, "cuda", abi_real_where[0]); }
static void test_nccl(void **state) { (void)state; compare(abi_ours_nccl, abi_real_nccl, "nccl", abi_real_where[1]); }
static void test_nvml(void **state) { (void)state; compare(abi_ours_nvml, abi_real_nvml, "nvml", abi_real_where[2]); }

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cuda),
		cmocka_unit_test(test_nccl),
		cmocka_unit_test(test_nvml),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
