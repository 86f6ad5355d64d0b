/* nvlib/: the all-or-nothing loader (on libc and on files made here), the
 * generated name tables, NCCL version codes, and loading the real libnccl
 * when one is installed on the build machine. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "nvlib/nvlib.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct libc_api {
	int (*puts)(const char *);
	size_t (*strlen)(const char *);
	int (*nothing)(void);
};

static const struct vendor_sym libc_syms[] = {
	{ "puts", true, 0, offsetof(struct libc_api, puts), { "nd_no_such_symbol_v2", "puts", NULL } },
	{ "strlen", true, 0, offsetof(struct libc_api, strlen), { "strlen", NULL } },
	{ "nothing", false, 0, offsetof(struct libc_api, nothing), { "nd_no_such_symbol", NULL } },
};

static const struct vendor_sym libc_syms_required_missing[] = {
	{ "puts", true, 0, offsetof(struct libc_api, puts), { "puts", NULL } },
	{ "nothing", true, 0, offsetof(struct libc_api, nothing), { "nd_missing_v3", "nd_missing", NULL } },
};

static void test_fallback_and_optional(void **state)
{
	(void)state;
	struct vendor_lib lib;
	struct libc_api api;
	memset(&api, 0xff, sizeof(api));
	unsetenv("NCCL_DOCTOR_LIBRARY_PATH");
	assert_int_equal(vendor_load(&lib, "libc.so.6", NULL, libc_syms, 3, &api, sizeof(api)), 0);
	assert_non_null(lib.handle);
	assert_non_null(api.puts);
	assert_int_equal(api.strlen("four"), 4);
	assert_null(api.nothing);
	assert_string_equal(vendor_resolved_name(libc_syms, 3, &api, 0), "puts");
	assert_null(vendor_resolved_name(libc_syms, 3, &api, 2));
	assert_non_null(strstr(lib.path, "libc"));
	assert_int_equal(lib.path[0], '/');
}

static void test_required_missing_publishes_nothing(void **state)
{
	(void)state;
	struct vendor_lib lib;
	struct libc_api api;
	memset(&api, 0, sizeof(api));
	int r = vendor_load(&lib, "libc.so.6", NULL, libc_syms_required_missing, 2, &api, sizeof(api));
	assert_int_equal(r, -ENOSYS);
	assert_null(lib.handle);
	assert_null(api.puts); /* the table was not touched */
	assert_string_equal(lib.missing, "nd_missing_v3");
	assert_non_null(strstr(lib.error, "lacks the symbol 'nd_missing_v3'"));
	assert_non_null(strstr(lib.error, "libc.so.6"));
}

static void test_not_installed_vs_cannot_load(void **state)
{
	(void)state;
	struct vendor_lib lib;
	struct libc_api api;
	int r = vendor_load(&lib, "libnd-none.so.1", NULL, libc_syms, 3, &api, sizeof(api));
	assert_int_equal(r, -ENOENT);
	assert_non_null(strstr(lib.error, "'libnd-none.so.1' is not installed"));

	r = vendor_load(&lib, "libnccl.so.2", "/nonexistent/libnccl.so.2", libc_syms, 3, &api, sizeof(api));
	assert_int_equal(r, -ENOENT);
	assert_non_null(strstr(lib.error, "/nonexistent/libnccl.so.2"));

	char tmpl[] = "/tmp/nd-vendor-XXXXXX";
	int fd = mkstemp(tmpl);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "not an ELF file\n", 16), 16);
	close(fd);
	r = vendor_load(&lib, "libnccl.so.2", tmpl, libc_syms, 3, &api, sizeof(api));
	assert_int_equal(r, -ELIBBAD);
	assert_non_null(strstr(lib.error, "cannot load"));
	unlink(tmpl);
}

static void test_library_path_first(void **state)
{
	(void)state;
	char dir[] = "/tmp/nd-vendor-dir-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char link[256];
	snprintf(link, sizeof(link), "%s/libndfake.so.1", dir);
	/* any shared object does: libc's real file, found through /proc/self/maps */
	FILE *m = fopen("/proc/self/maps", "r");
	assert_non_null(m);
	char line[1024], libc[512] = "";
	while (fgets(line, sizeof(line), m)) {
		char *p = strchr(line, '/');
		if (p && strstr(p, "libc.so.6")) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(libc, sizeof(libc), "%s", p);
			break;
		}
	}
	fclose(m);
	assert_true(libc[0] == '/');
	assert_int_equal(symlink(libc, link), 0);
	char env[600];
	snprintf(env, sizeof(env), "/nonexistent:%s", dir);
	setenv("NCCL_DOCTOR_LIBRARY_PATH", env, 1);
	struct vendor_lib lib;
	struct libc_api api;
	assert_int_equal(vendor_load(&lib, "libndfake.so.1", NULL, libc_syms, 3, &api, sizeof(api)), 0);
	/* ...and with the normal loader excluded, a soname that is nowhere in the list is not installed */
	setenv("NCCL_DOCTOR_LIBRARY_PATH_ONLY", "1", 1);
	assert_int_equal(vendor_load(&lib, "libc.so.6", NULL, libc_syms, 3, &api, sizeof(api)), -ENOENT);
	assert_non_null(strstr(lib.error, "not in NCCL_DOCTOR_LIBRARY_PATH"));
	unsetenv("NCCL_DOCTOR_LIBRARY_PATH_ONLY");
	unsetenv("NCCL_DOCTOR_LIBRARY_PATH");
	unlink(link);
	rmdir(dir);
}

static void check_table(const struct vendor_sym *s, size_t n)
{
	assert_true(n > 5);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(s[i].names[0]);
		/* the field is the unversioned name; every name starts with it */
		for (int k = 0; s[i].names[k]; k++)
			assert_true(strncmp(s[i].names[k], s[i].field, strlen(s[i].field)) == 0);
		for (size_t j = 0; j < i; j++)
			assert_true(s[j].offset != s[i].offset);
	}
}

static void test_name_tables(void **state)
{
	(void)state;
	size_t n;
	const struct vendor_sym *s = cuda_symbols(&n);
	check_table(s, n);
	s = nccl_symbols(&n);
	check_table(s, n);
	s = nvml_symbols(&n);
	check_table(s, n);
	/* newest first */
	bool seen = false;
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].field, "nvmlInit") == 0) {
			assert_string_equal(s[i].names[0], "nvmlInit_v2");
			assert_string_equal(s[i].names[1], "nvmlInit");
			seen = true;
		}
	assert_true(seen);
	assert_int_equal(nvmlMemory_v2, (unsigned)(sizeof(nvmlMemory_v2_t) | 2u << 24));
	assert_int_equal(sizeof(nvmlMemory_v2_t), 40);
}

static void test_nccl_versions(void **state)
{
	(void)state;
	char buf[32];
	assert_string_equal(nccl_version_text(22809, buf, sizeof(buf)), "2.28.9");
	assert_string_equal(nccl_version_text(2708, buf, sizeof(buf)), "2.7.8");
	assert_int_equal(ND_NCCL_VERSION(2, 28, 3), 22803);
	assert_int_equal(ND_NCCL_VERSION(2, 7, 8), 2708);
	assert_true(nccl_version_at_least(22809, 2, 14, 0));
	assert_false(nccl_version_at_least(2708, 2, 13, 0));
	assert_true(nccl_version_at_least(2708, 2, 7, 0));
	assert_string_equal(cuda_version_text(13000, buf, sizeof(buf)), "13.0");
	assert_string_equal(cuda_version_text(12080, buf, sizeof(buf)), "12.8");
}

/* The real libnccl where the build machine has one (NCCL 2.28 on CI). */
static void test_real_nccl(void **state)
{
	(void)state;
	static const char *cands[] = { "/usr/local/cuda/lib/libnccl.so.2", "/usr/local/cuda-13.0/lib/libnccl.so.2",
				       "/usr/lib/x86_64-linux-gnu/libnccl.so.2", NULL };
	const char *path = NULL;
	for (int i = 0; cands[i]; i++)
		if (access(cands[i], R_OK) == 0) {
			path = cands[i];
			break;
		}
	if (!path)
		skip();
	const struct nccl_api *api = NULL;
	const struct vendor_lib *lib;
	assert_int_equal(nccl_load(path, &api, &lib), 0);
	assert_non_null(api);
	assert_true(lib->version >= ND_NCCL_VERSION(2, 7, 0));
	assert_non_null(api->ncclGetErrorString);
	if (nccl_version_at_least(lib->version, 2, 14, 0))
		assert_non_null(api->ncclCommFinalize);
	assert_string_equal(api->ncclGetErrorString(ncclInvalidArgument) ? "set" : "", "set");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fallback_and_optional),
		cmocka_unit_test(test_required_missing_publishes_nothing),
		cmocka_unit_test(test_not_installed_vs_cannot_load),
		cmocka_unit_test(test_library_path_first),
		cmocka_unit_test(test_name_tables),
		cmocka_unit_test(test_nccl_versions),
		cmocka_unit_test(test_real_nccl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
