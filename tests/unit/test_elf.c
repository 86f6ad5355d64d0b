/* Unit tests of probe/elf: constructed ELF files (64/32-bit, little/big
 * endian, without sections or segments), truncated and garbage files, random
 * corruption, and real ones (this test's own executable, and the CUDA
 * toolkit's libnccl.so.2 where it exists). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "elfgen.h"
#include "probe/elf.h"
#include "probe/ncclib.h"
#include "util/sysroot.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_tmp[256];

static int setup(void **state)
{
	(void)state;
	sysroot_set(NULL);
	snprintf(g_tmp, sizeof(g_tmp), "%s/nd-elf.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static const char *tpath(const char *name)
{
	static char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", g_tmp, name);
	return p;
}

static const char RODATA[] = "\0\0some text\0NCCL version %s\0NCCL version 2.28.9+cuda13.0\0more";

static struct elfgen sample(bool is32, bool be)
{
	struct elfgen g;
	memset(&g, 0, sizeof(g));
	g.is32 = is32;
	g.be = be;
	g.soname = "libnccl.so.2";
	g.needed[0] = "libc.so.6";
	g.needed[1] = "libnccl.so.2";
	g.runpath = "$ORIGIN/../../nvidia/nccl/lib:$ORIGIN";
	g.rodata = RODATA;
	g.rodata_len = sizeof(RODATA);
	return g;
}

static void check_sample(const char *path, bool is32, bool be)
{
	struct elf_file e;
	assert_int_equal(elf_open(&e, path), 0);
	assert_int_equal(e.is64, !is32);
	assert_int_equal(e.big_endian, be);
	assert_int_equal(e.type, 3);
	assert_int_equal(e.nsecs, 5);
	assert_int_equal(e.nsegs, 2);
	const struct elf_section *ro = elf_section_by_name(&e, ".rodata");
	assert_non_null(ro);
	assert_int_equal(ro->size, sizeof(RODATA));
	assert_non_null(elf_section_by_name(&e, ".dynamic"));
	assert_non_null(elf_section_by_name(&e, ".shstrtab"));
	assert_null(elf_section_by_name(&e, ".text"));

	struct elf_dynamic d;
	assert_int_equal(elf_read_dynamic(&e, &d), 0);
	assert_int_equal(d.nneeded, 2);
	assert_string_equal(d.needed[0], "libc.so.6");
	assert_string_equal(d.needed[1], "libnccl.so.2");
	assert_string_equal(d.soname, "libnccl.so.2");
	assert_string_equal(d.runpath, "$ORIGIN/../../nvidia/nccl/lib:$ORIGIN");
	assert_null(d.rpath);
	elf_dynamic_release(&d);

	uint64_t at;
	const char *pat = "NCCL version 2";
	assert_int_equal(elf_scan(&e, ro->offset, ro->size, pat, strlen(pat), &at), 1);
	size_t expect = (size_t)((const char *)memmem(RODATA, sizeof(RODATA), pat, strlen(pat)) - RODATA);
	assert_int_equal(at, ro->offset + expect);
	/* not in the range before it */
	assert_int_equal(elf_scan(&e, ro->offset, expect, pat, strlen(pat), &at), 0);
	elf_close(&e);

	char *vs = NULL;
	struct nccl_version v;
	assert_int_equal(ncclib_read_version(path, &vs, &v), 0);
	assert_string_equal(vs, "NCCL version 2.28.9+cuda13.0");
	assert_int_equal(v.minor, 28);
	free(vs);
}

static void test_valid_variants(void **state)
{
	(void)state;
	for (int k = 0; k < 4; k++) {
		bool is32 = k & 1, be = k & 2;
		struct elfgen g = sample(is32, be);
		char name[32];
		snprintf(name, sizeof(name), "lib%d.so", k);
		assert_int_equal(elfgen_write(tpath(name), &g), 0);
		check_sample(tpath(name), is32, be);
	}
}

static void test_no_sections_uses_segment(void **state)
{
	(void)state;
	struct elfgen g = sample(false, false);
	g.no_sections = true;
	g.rpath = "/opt/old/lib";
	assert_int_equal(elfgen_write(tpath("nosec.so"), &g), 0);
	struct elf_file e;
	assert_int_equal(elf_open(&e, tpath("nosec.so")), 0);
	assert_int_equal(e.nsecs, 0);
	assert_null(elf_section_by_name(&e, ".rodata"));
	struct elf_dynamic d;
	assert_int_equal(elf_read_dynamic(&e, &d), 0);
	assert_int_equal(d.nneeded, 2);
	assert_string_equal(d.rpath, "/opt/old/lib");
	elf_dynamic_release(&d);
	elf_close(&e);
	/* without .rodata the version comes from the bounded scan of the file */
	char *vs = NULL;
	struct nccl_version v;
	assert_int_equal(ncclib_read_version(tpath("nosec.so"), &vs, &v), 0);
	assert_int_equal(v.patch, 9);
	free(vs);
}

static void test_no_segments_uses_section(void **state)
{
	(void)state;
	struct elfgen g = sample(true, true);
	g.no_segments = true;
	assert_int_equal(elfgen_write(tpath("noseg.so"), &g), 0);
	struct elf_file e;
	assert_int_equal(elf_open(&e, tpath("noseg.so")), 0);
	assert_int_equal(e.nsegs, 0);
	struct elf_dynamic d;
	assert_int_equal(elf_read_dynamic(&e, &d), 0);
	assert_int_equal(d.nneeded, 2);
	assert_string_equal(d.needed[1], "libnccl.so.2");
	assert_string_equal(d.soname, "libnccl.so.2");
	elf_dynamic_release(&d);
	elf_close(&e);
}

static void test_no_dynamic(void **state)
{
	(void)state;
	struct elfgen g = sample(false, false);
	g.no_dynamic = true;
	assert_int_equal(elfgen_write(tpath("static"), &g), 0);
	struct elf_file e;
	assert_int_equal(elf_open(&e, tpath("static")), 0);
	struct elf_dynamic d;
	assert_int_equal(elf_read_dynamic(&e, &d), 0);
	assert_int_equal(d.nneeded, 0);
	assert_null(d.soname);
	elf_dynamic_release(&d);
	elf_close(&e);
}

static void test_bad_string_index(void **state)
{
	(void)state;
	struct elfgen g = sample(false, false);
	g.bad_needed_index = 0x7fffffff;
	assert_int_equal(elfgen_write(tpath("badidx.so"), &g), 0);
	struct elf_file e;
	assert_int_equal(elf_open(&e, tpath("badidx.so")), 0);
	struct elf_dynamic d;
	assert_int_equal(elf_read_dynamic(&e, &d), -EBADMSG);
	assert_int_equal(d.nneeded, 0); /* released on error */
	elf_close(&e);
}

/* DT_STRSZ cuts the last string (DT_RUNPATH) short of its NUL. */
static void test_unterminated_string(void **state)
{
	(void)state;
	struct elfgen g = sample(false, true);
	g.strsz_cut = 3;
	assert_int_equal(elfgen_write(tpath("unterm.so"), &g), 0);
	struct elf_file e;
	assert_int_equal(elf_open(&e, tpath("unterm.so")), 0);
	struct elf_dynamic d;
	assert_int_equal(elf_read_dynamic(&e, &d), -EBADMSG);
	elf_close(&e);
	/* cut by exactly its NUL: still unterminated */
	g.strsz_cut = 1;
	assert_int_equal(elfgen_write(tpath("unterm.so"), &g), 0);
	assert_int_equal(elf_open(&e, tpath("unterm.so")), 0);
	assert_int_equal(elf_read_dynamic(&e, &d), -EBADMSG);
	elf_close(&e);
}

/* libtorch_cuda.so of PyTorch 2.11 has a 4.3 MB .dynstr with DT_NEEDED
 * names past its first 4 MiB. */
static void test_big_dynstr(void **state)
{
	(void)state;
	struct elfgen g = sample(false, false);
	g.dynstr_pad = 5u << 20;
	assert_int_equal(elfgen_write(tpath("bigstr.so"), &g), 0);
	struct elf_file e;
	assert_int_equal(elf_open(&e, tpath("bigstr.so")), 0);
	struct elf_dynamic d;
	assert_int_equal(elf_read_dynamic(&e, &d), 0);
	assert_int_equal(d.nneeded, 2);
	assert_string_equal(d.needed[1], "libnccl.so.2");
	assert_string_equal(d.runpath, "$ORIGIN/../../nvidia/nccl/lib:$ORIGIN");
	elf_dynamic_release(&d);
	elf_close(&e);
}

static void test_not_elf(void **state)
{
	(void)state;
	struct elf_file e;
	assert_int_equal(eg_write_file(tpath("empty"), "", 0), 0);
	assert_int_equal(elf_open(&e, tpath("empty")), -ENOEXEC);
	const char text[] = "INPUT ( /usr/lib/libnccl.so.2 )\n"; /* a linker script */
	assert_int_equal(eg_write_file(tpath("script.so"), text, sizeof(text) - 1), 0);
	assert_int_equal(elf_open(&e, tpath("script.so")), -ENOEXEC);
	assert_string_equal(elf_strerror(-ENOEXEC), "not an ELF file");
	assert_int_equal(elf_open(&e, tpath("missing.so")), -ENOENT);
	assert_int_equal(elf_open(&e, g_tmp), -EISDIR);
	/* ELF magic with a bad class */
	unsigned char bad[64] = { 0x7f, 'E', 'L', 'F', 9, 1, 1 };
	assert_int_equal(eg_write_file(tpath("badclass"), bad, sizeof(bad)), 0);
	assert_int_equal(elf_open(&e, tpath("badclass")), -EBADMSG);
	/* random bytes */
	unsigned char junk[4096];
	srand(7);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (unsigned char)rand();
	assert_int_equal(eg_write_file(tpath("junk"), junk, sizeof(junk)), 0);
	assert_int_equal(elf_open(&e, tpath("junk")), -ENOEXEC);
}

/* Every prefix of a valid file: the section table sits at the end, so every
 * shorter file is an error, never a crash; the full file works. */
static void test_truncated(void **state)
{
	(void)state;
	for (int k = 0; k < 2; k++) {
		struct elfgen g = sample(k == 1, false);
		size_t len;
		unsigned char *img = elfgen_build(&g, &len);
		for (size_t n = 0; n <= len; n++) {
			assert_int_equal(eg_write_file(tpath("trunc"), img, n), 0);
			struct elf_file e;
			int r = elf_open(&e, tpath("trunc"));
			if (n == len) {
				assert_int_equal(r, 0);
				elf_close(&e);
			} else {
				assert_true(r == -ENOEXEC || r == -EBADMSG);
			}
		}
		free(img);
	}
}

/* Random corruption of header bytes: every call returns 0 or an error and
 * stays inside the file (the sanitizer build checks the memory side). */
static void test_corrupted(void **state)
{
	(void)state;
	struct elfgen g = sample(false, false);
	size_t len;
	unsigned char *img = elfgen_build(&g, &len);
	unsigned char *bad = malloc(len);
	srand(12345);
	int opened = 0;
	for (int iter = 0; iter < 1500; iter++) {
		memcpy(bad, img, len);
		int flips = 1 + rand() % 6;
		for (int i = 0; i < flips; i++) {
			size_t at = (size_t)rand() % len;
			/* mostly the headers and tables, where offsets live */
			if (rand() % 2)
				at = (size_t)rand() % 128;
			bad[at] = (unsigned char)rand();
		}
		assert_int_equal(eg_write_file(tpath("fuzz"), bad, len), 0);
		struct elf_file e;
		int r = elf_open(&e, tpath("fuzz"));
		assert_true(r == 0 || r == -ENOEXEC || r == -EBADMSG);
		if (r < 0)
			continue;
		opened++;
		struct elf_dynamic d;
		r = elf_read_dynamic(&e, &d);
		assert_true(r == 0 || r == -EBADMSG);
		if (r == 0) {
			for (size_t i = 0; i < d.nneeded; i++)
				assert_true(strlen(d.needed[i]) < ELF_MAX_STRING);
			elf_dynamic_release(&d);
		}
		const struct elf_section *ro = elf_section_by_name(&e, ".rodata");
		uint64_t at;
		if (ro)
			assert_true(elf_scan(&e, ro->offset, ro->size, "NCCL", 4, &at) >= 0);
		elf_close(&e);
		char *vs = NULL;
		struct nccl_version v;
		r = ncclib_read_version(tpath("fuzz"), &vs, &v);
		assert_true(r == 0 || r == -ENOENT || r == -ENOEXEC || r == -EBADMSG);
		free(vs);
	}
	assert_true(opened > 100); /* the corruption did not only hit the magic */
	free(bad);
	free(img);
}

/* A match that straddles the scan's 256 KiB chunks. */
static void test_scan_chunk_boundary(void **state)
{
	(void)state;
	size_t n = 600 * 1024;
	char *ro = calloc(1, n);
	const char *s = "NCCL version 2.19.3+cuda12.2";
	memcpy(ro + 256 * 1024 - 5, s, strlen(s)); /* relative to .rodata, which is not chunk aligned */
	memcpy(ro + 512 * 1024 - 7, s, strlen(s));
	struct elfgen g = sample(false, false);
	g.rodata = ro;
	g.rodata_len = n;
	assert_int_equal(elfgen_write(tpath("big.so"), &g), 0);
	struct elf_file e;
	assert_int_equal(elf_open(&e, tpath("big.so")), 0);
	const struct elf_section *sec = elf_section_by_name(&e, ".rodata");
	assert_non_null(sec);
	/* scans starting at every offset near a chunk edge find the first copy */
	for (uint64_t start = 0; start < 16; start++) {
		uint64_t at;
		assert_int_equal(elf_scan(&e, sec->offset + start, sec->size - start, s, strlen(s), &at), 1);
		assert_int_equal(at, sec->offset + 256 * 1024 - 5);
	}
	uint64_t at;
	uint64_t second = sec->offset + 512 * 1024 - 7;
	assert_int_equal(elf_scan(&e, sec->offset + 256 * 1024, sec->size - 256 * 1024, s, strlen(s), &at), 1);
	assert_int_equal(at, second);
	/* a range that ends one byte short of the match: none */
	assert_int_equal(elf_scan(&e, sec->offset + 256 * 1024, second + strlen(s) - 1 - (sec->offset + 256 * 1024),
				  s, strlen(s), &at),
			 0);
	/* out of range: clipped, no error */
	assert_int_equal(elf_scan(&e, e.size + 10, 100, s, strlen(s), &at), 0);
	assert_int_equal(elf_scan(&e, 0, UINT64_MAX, s, strlen(s), &at), 1);
	assert_int_equal(elf_scan(&e, 0, 10, "", 0, &at), -EINVAL);
	elf_close(&e);
	free(ro);
}

/* The test executable itself: a real ELF made by the system linker. */
static void test_real_self(void **state)
{
	(void)state;
	char self[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	struct elf_file e;
	assert_int_equal(elf_open(&e, self), 0);
	assert_true(e.nsecs > 10);
	assert_non_null(elf_section_by_name(&e, ".text"));
	assert_non_null(elf_section_by_name(&e, ".rodata"));
	struct elf_dynamic d;
	assert_int_equal(elf_read_dynamic(&e, &d), 0);
	bool libc = false;
	for (size_t i = 0; i < d.nneeded; i++)
		libc = libc || strncmp(d.needed[i], "libc.so", 7) == 0;
	assert_true(libc);
	elf_dynamic_release(&d);
	/* cmocka_unit_test() puts the test names into our own .rodata */
	const struct elf_section *ro = elf_section_by_name(&e, ".rodata");
	uint64_t at;
	assert_int_equal(elf_scan(&e, ro->offset, ro->size, "test_real_self", 14, &at), 1);
	elf_close(&e);
}

/* The real NCCL of the CUDA toolkit, where it is installed. */
static void test_real_libnccl(void **state)
{
	(void)state;
	const char *paths[] = { "/usr/local/cuda-13.0/lib/libnccl.so.2", "/usr/lib/x86_64-linux-gnu/libnccl.so.2" };
	int tested = 0;
	for (size_t k = 0; k < 2; k++) {
		struct stat st;
		if (stat(paths[k], &st) < 0)
			continue;
		struct elf_file e;
		assert_int_equal(elf_open(&e, paths[k]), 0);
		assert_true(e.is64);
		const struct elf_section *ro = elf_section_by_name(&e, ".rodata");
		assert_non_null(ro);
		assert_true(ro->size < e.size / 10); /* .rodata is a small part of the file */
		struct elf_dynamic d;
		assert_int_equal(elf_read_dynamic(&e, &d), 0);
		assert_non_null(d.soname);
		assert_string_equal(d.soname, "libnccl.so.2");
		elf_dynamic_release(&d);
		elf_close(&e);
		char *vs = NULL;
		struct nccl_version v;
		assert_int_equal(ncclib_read_version(paths[k], &vs, &v), 0);
		assert_true(strncmp(vs, "NCCL version 2.", 15) == 0);
		assert_int_equal(v.major, 2);
		assert_true(v.cuda_major >= 11);
		print_message("%s: %s\n", paths[k], vs);
		free(vs);
		tested++;
	}
	if (!tested)
		skip();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid_variants),
		cmocka_unit_test(test_no_sections_uses_segment),
		cmocka_unit_test(test_no_segments_uses_section),
		cmocka_unit_test(test_no_dynamic),
		cmocka_unit_test(test_bad_string_index),
		cmocka_unit_test(test_unterminated_string),
		cmocka_unit_test(test_big_dynstr),
		cmocka_unit_test(test_not_elf),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupted),
		cmocka_unit_test(test_scan_chunk_boundary),
		cmocka_unit_test(test_real_self),
		cmocka_unit_test(test_real_libnccl),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
