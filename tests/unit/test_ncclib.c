/* Unit tests of probe/ncclib, probe/environ and analyze/sys_libraries: the
 * NCCL version string parser, and whole scans of sysroots the test builds in
 * a temporary directory (a system libnccl with its links, a venv with
 * PyTorch and nvidia-nccl-cu13, LD_LIBRARY_PATH, VLLM_NCCL_SO_PATH, a
 * statically linked PyTorch, the recorded libraries.json, the limits). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/sys_libraries.h"
#include "elfgen.h"
#include "probe/environ.h"
#include "probe/ncclib.h"
#include "util/sysroot.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_root[256];
static int g_n;

/* ---- building a sysroot ---- */

static const char *rp(const char *path)
{
	static char p[2][PATH_MAX];
	static int k;
	k ^= 1;
	snprintf(p[k], sizeof(p[k]), "%s%s", g_root, path);
	return p[k];
}

static void mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s", rp(path));
	for (char *s = tmp + strlen(g_root) + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(tmp, 0755);
			*s = '/';
		}
	}
	mkdir(tmp, 0755);
}

static void parent_dirs(const char *path)
{
	char d[PATH_MAX];
	snprintf(d, sizeof(d), "%s", path);
	char *sl = strrchr(d, '/');
	if (sl && sl != d) {
		*sl = '\0';
		mkdirs(d);
	}
}

static void put_file(const char *path, const char *data, size_t len)
{
	parent_dirs(path);
	assert_int_equal(eg_write_file(rp(path), data, len), 0);
}

static void put_text(const char *path, const char *text)
{
	put_file(path, text, strlen(text));
}

static void put_link(const char *path, const char *target)
{
	parent_dirs(path);
	unlink(rp(path));
	assert_int_equal(symlink(target, rp(path)), 0);
}

/* A libnccl with the given version string in .rodata. */
static void put_nccl(const char *path, const char *version)
{
	char ro[256];
	int n = snprintf(ro, sizeof(ro), "%cNCCL version %%s%cNCCL params%c%s%cNCCL version %s compiled", 0, 0, 0,
			 version, 0, "x");
	struct elfgen g;
	memset(&g, 0, sizeof(g));
	g.soname = "libnccl.so.2";
	g.needed[0] = "libc.so.6";
	g.rodata = ro;
	g.rodata_len = (size_t)n + 1;
	parent_dirs(path);
	assert_int_equal(elfgen_write(rp(path), &g), 0);
}

static void put_libtorch(const char *path, const char *needed, const char *runpath, const char *rodata,
			 size_t rodata_len)
{
	struct elfgen g;
	memset(&g, 0, sizeof(g));
	g.soname = "libtorch_cuda.so";
	g.needed[0] = "libc10_cuda.so";
	g.needed[1] = needed;
	g.runpath = runpath;
	g.rodata = rodata ? rodata : "\0nothing";
	g.rodata_len = rodata ? rodata_len : 9;
	parent_dirs(path);
	assert_int_equal(elfgen_write(rp(path), &g), 0);
}

static void put_environ(const char *const *vars)
{
	char buf[4096];
	size_t n = 0;
	for (size_t i = 0; vars[i]; i++) {
		size_t l = strlen(vars[i]) + 1;
		memcpy(buf + n, vars[i], l);
		n += l;
	}
	put_file("/proc/self/environ", buf, n);
	environ_reset();
}

#define SITE "/opt/torch/.venv/lib/python3.12/site-packages"

/* The machine of the task: system NCCL 2.28.3, PyTorch 2.11 in a venv with
 * its own 2.28.9 from nvidia-nccl-cu13, vLLM beside it. */
static void build_standard(void)
{
	put_nccl("/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3", "NCCL version 2.28.3+cuda12.9");
	put_link("/usr/lib/x86_64-linux-gnu/libnccl.so.2", "libnccl.so.2.28.3");
	put_link("/usr/lib/x86_64-linux-gnu/libnccl.so", "libnccl.so.2");
	put_text("/usr/lib/x86_64-linux-gnu/libnccl-net.so", "not a library we list");
	put_text("/etc/ld.so.conf", "# comment\ninclude /etc/ld.so.conf.d/*.conf\n\n");
	put_text("/etc/ld.so.conf.d/x86_64-linux-gnu.conf", "# Multiarch support\n/usr/local/lib/x86_64-linux-gnu\n/lib/x86_64-linux-gnu\n/usr/lib/x86_64-linux-gnu\n");
	put_text("/etc/ld.so.conf.d/self.conf", "include self.conf\n"); /* a loop */
	put_nccl(SITE "/nvidia/nccl/lib/libnccl.so.2", "NCCL version 2.28.9+cuda13.0");
	mkdirs(SITE "/nvidia_nccl_cu13-2.28.9.dist-info");
	put_libtorch(SITE "/torch/lib/libtorch_cuda.so", "libnccl.so.2",
		     "$ORIGIN/../../nvidia/cublas/lib:$ORIGIN/../../nvidia/nccl/lib:$ORIGIN", NULL, 0);
	put_text(SITE "/torch/version.py", "from typing import Optional\n\n__all__ = ['__version__']\n__version__ = '2.11.0+cu130'\ncuda: Optional[str] = '13.0'\n");
	put_text(SITE "/vllm/__init__.py", "");
	put_text(SITE "/vllm/_version.py", "__version__ = version = '0.11.0'\n__version_tuple__ = (0, 11, 0)\n");
	mkdirs("/usr/local/cuda-13.0/lib64");
	put_link("/usr/local/cuda", "/usr/local/cuda-13.0");
}

static int setup_each(void **state)
{
	(void)state;
	snprintf(g_root, sizeof(g_root), "%s/nd-ncclib-%d.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", g_n++);
	if (!mkdtemp(g_root))
		return -1;
	mkdirs("/proc/self");
	mkdirs("/etc");
	return 0;
}

static int teardown_each(void **state)
{
	(void)state;
	sysroot_set(NULL);
	environ_reset();
	char cmd[PATH_MAX];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_root);
	return system(cmd) == 0 ? 0 : -1;
}

static void scan(struct ncclib_scan *s)
{
	assert_int_equal(sysroot_set(g_root), 0);
	environ_reset();
	assert_int_equal(ncclib_scan(s), 0);
}

static int lib_by_path(const struct ncclib_scan *s, const char *path)
{
	for (size_t i = 0; i < s->nlibs; i++)
		if (strcmp(s->libs[i].path, path) == 0)
			return (int)i;
	return -1;
}

static bool has_str(char **v, size_t n, const char *x)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], x) == 0)
			return true;
	return false;
}

/* The text of a cell of a section table, "" for none. */
static const char *cell(struct result *r, const char *section, const char *table, size_t row, const char *col)
{
	static char buf[4096];
	for (size_t i = 0; i < r->nsections; i++) {
		struct section *sec = r->sections[i];
		if (strcmp(sec->key, section) != 0)
			continue;
		for (size_t t = 0; t < sec->ntables; t++) {
			struct table *tb = sec->tables[t];
			if (strcmp(tb->key, table) != 0 || row >= tb->nrows)
				continue;
			for (size_t c = 0; c < tb->ncols; c++)
				if (strcmp(tb->cols[c].key, col) == 0)
					return value_text(&tb->cells[row * tb->ncols + c], buf, sizeof(buf));
		}
	}
	return "";
}

/* ---- version strings ---- */

static void test_version_parse(void **state)
{
	(void)state;
	struct nccl_version v;
	char buf[64];
	assert_int_equal(nccl_version_parse("NCCL version 2.28.9+cuda13.0", &v), 0);
	assert_int_equal(v.major, 2);
	assert_int_equal(v.minor, 28);
	assert_int_equal(v.patch, 9);
	assert_string_equal(v.suffix, "");
	assert_int_equal(v.cuda_major, 13);
	assert_int_equal(v.cuda_minor, 0);
	assert_string_equal(nccl_version_str(&v, buf, sizeof(buf)), "2.28.9+cuda13.0");

	assert_int_equal(nccl_version_parse("NCCL version 2.19.3a1+cuda12.2", &v), 0);
	assert_string_equal(v.suffix, "a1");
	assert_string_equal(nccl_version_str(&v, buf, sizeof(buf)), "2.19.3a1+cuda12.2");
	assert_int_equal(nccl_version_parse("2.4.8", &v), 0);
	assert_int_equal(v.cuda_major, -1);
	assert_string_equal(nccl_version_str(&v, buf, sizeof(buf)), "2.4.8");
	/* the other string NCCL prints: accepted, without CUDA */
	assert_int_equal(nccl_version_parse("NCCL version 2.28.9 compiled with CUDA 13.0", &v), 0);
	assert_int_equal(v.cuda_major, -1);

	assert_int_equal(nccl_version_parse("NCCL version %s", &v), -EINVAL);
	assert_int_equal(nccl_version_parse("NCCL version %d.%d.%d", &v), -EINVAL);
	assert_int_equal(nccl_version_parse("NCCL version 2.28", &v), -EINVAL);
	assert_int_equal(nccl_version_parse("NCCL version 2..9", &v), -EINVAL);
	assert_int_equal(nccl_version_parse("", &v), -EINVAL);
	assert_int_equal(nccl_version_parse("NCCL version 2.28.9+cuda", &v), -EINVAL);
	assert_int_equal(nccl_version_parse("NCCL version 2.28.9+cuda13", &v), -EINVAL);
	assert_int_equal(nccl_version_parse("NCCL version 99999999999.1.1", &v), -EINVAL);
	assert_int_equal(nccl_version_parse("NCCL version 2.28.9abcdefghijklmnopqrstuvwxyz+cuda13.0", &v), -EINVAL);
}

static void test_version_cmp(void **state)
{
	(void)state;
	struct nccl_version a, b;
	nccl_version_parse("2.28.3+cuda12.9", &a);
	nccl_version_parse("2.28.9+cuda13.0", &b);
	assert_true(nccl_version_cmp(&a, &b) < 0);
	assert_true(nccl_version_cmp(&b, &a) > 0);
	nccl_version_parse("2.28.9+cuda12.9", &a);
	assert_true(nccl_version_cmp(&a, &b) < 0);
	nccl_version_parse("2.28.9+cuda13.0", &a);
	assert_int_equal(nccl_version_cmp(&a, &b), 0);
	nccl_version_parse("2.9.9+cuda13.0", &a);
	assert_true(nccl_version_cmp(&a, &b) < 0); /* numeric, not text */
}

/* ---- environ ---- */

static void test_environ(void **state)
{
	(void)state;
	const char *vars[] = { "PATH=/usr/bin", "LD_LIBRARY_PATH=/a:/b", "EMPTY=", "LD_LIBRARY_PATH=/second",
			       "X=1=2", NULL };
	put_environ(vars);
	assert_int_equal(sysroot_set(g_root), 0);
	assert_string_equal(environ_get("LD_LIBRARY_PATH"), "/a:/b");
	assert_string_equal(environ_get("EMPTY"), "");
	assert_string_equal(environ_get("X"), "1=2");
	assert_null(environ_get("LD_LIBRARY"));
	assert_null(environ_get("NOPE"));
	assert_null(environ_get("X=1"));
	assert_null(environ_get(""));
	/* a changed sysroot reloads */
	char other[PATH_MAX];
	snprintf(other, sizeof(other), "%s/other", g_root);
	mkdir(other, 0755);
	assert_int_equal(sysroot_set(other), 0);
	assert_null(environ_get("PATH"));
	/* the live machine: ours (ctest sets ND_BIN) */
	sysroot_set(NULL);
	const char *bin = getenv("ND_BIN");
	if (bin)
		assert_string_equal(environ_get("ND_BIN"), bin);
}

/* ---- scans ---- */

static void test_scan_standard(void **state)
{
	(void)state;
	build_standard();
	put_link("/venv", "/opt/torch/.venv"); /* the same venv a second way */
	const char *vars[] = { "HOME=/root", "LD_LIBRARY_PATH=/usr/local/cuda/lib64:relative:$ORIGIN/x",
			       "VIRTUAL_ENV=/venv", NULL };
	put_environ(vars);
	struct ncclib_scan s;
	scan(&s);
	assert_false(s.from_record);
	assert_false(s.truncated);
	assert_int_equal(s.nlibs, 2);

	int sys = lib_by_path(&s, "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3");
	int venv = lib_by_path(&s, SITE "/nvidia/nccl/lib/libnccl.so.2");
	assert_true(sys >= 0 && venv >= 0);
	const struct ncclib *l = &s.libs[sys];
	assert_true(l->has_version);
	assert_string_equal(l->version_str, "NCCL version 2.28.3+cuda12.9");
	assert_int_equal(l->version.patch, 3);
	assert_string_equal(l->soname, "libnccl.so.2");
	/* one library, three names */
	assert_int_equal(l->nnames, 3);
	assert_string_equal(l->names[0], "/usr/lib/x86_64-linux-gnu/libnccl.so");
	assert_string_equal(l->names[1], "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
	assert_string_equal(l->names[2], "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3");
	assert_true(has_str(l->where, l->nwhere, "system"));
	assert_true(l->ld_default);
	assert_int_equal(s.ld_default, sys);

	l = &s.libs[venv];
	assert_string_equal(l->version_str, "NCCL version 2.28.9+cuda13.0");
	assert_true(has_str(l->where, l->nwhere, "python:nvidia-nccl-cu13"));
	assert_false(l->ld_default);

	assert_int_equal(s.ntorch, 1);
	const struct ncclib_torch *t = &s.torch[0];
	assert_string_equal(t->path, SITE "/torch");
	assert_string_equal(t->version, "2.11.0+cu130");
	assert_int_equal(t->how, TORCH_NCCL_SHARED);
	assert_string_equal(t->needed, "libnccl.so.2");
	assert_int_equal(t->lib, venv);
	assert_string_equal(t->nccl_path, SITE "/nvidia/nccl/lib/libnccl.so.2");
	assert_string_equal(t->via, "DT_RUNPATH ($ORIGIN/../../nvidia/nccl/lib)");

	assert_int_equal(s.nvllm, 1);
	assert_string_equal(s.vllm[0].version, "0.11.0");
	assert_int_equal(s.vllm[0].torch, 0);
	assert_null(s.vllm_so_path);

	/* the report */
	struct result *r = result_new("sys");
	sys_report_libraries(r, &s);
	struct finding *f = result_find(r, "NCCL_MULTIPLE_VERSIONS");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_INFO); /* a system package beside a wheel is normal */
	assert_non_null(strstr(f->title, "2.28.3, 2.28.9"));
	assert_int_equal(f->nev, 2);
	bool ldfix = false, pipfix = false;
	for (size_t i = 0; i < f->nfix; i++) {
		if (strstr(f->fixes[i].text, "LD_LIBRARY_PATH=" SITE "/nvidia/nccl/lib"))
			ldfix = true;
		if (strcmp(f->fixes[i].text, "pip install nvidia-nccl-cu13==2.28.9") == 0)
			pipfix = true;
	}
	assert_true(ldfix);
	assert_true(pipfix);
	assert_null(result_find(r, "NCCL_NOT_FOUND"));
	assert_null(result_find(r, "VLLM_NCCL_SO_PATH_INVALID"));
	assert_string_equal(cell(r, "nccl_libraries", "libraries", (size_t)sys, "loaded_by"), "ld.so default");
	assert_string_equal(cell(r, "nccl_libraries", "libraries", (size_t)venv, "loaded_by"),
			    "PyTorch 2.11.0+cu130, vLLM 0.11.0 (through PyTorch)");
	assert_string_equal(cell(r, "nccl_libraries", "libraries", (size_t)venv, "version"), "2.28.9+cuda13.0");
	assert_string_equal(cell(r, "nccl_libraries", "frameworks", 0, "nccl"),
			    "2.28.9+cuda13.0 " SITE "/nvidia/nccl/lib/libnccl.so.2");
	assert_int_equal(result_exit_code(r), 0); /* a note: nothing loads two copies in one process */
	result_free(r);
	ncclib_scan_release(&s);
}

/* LD_LIBRARY_PATH comes before DT_RUNPATH in ld.so's order: a libnccl.so.2
 * there wins over the wheel's, for PyTorch too. */
static void test_scan_ld_library_path_wins(void **state)
{
	(void)state;
	build_standard();
	put_nccl("/usr/local/cuda-13.0/lib64/libnccl.so.2", "NCCL version 2.27.7+cuda13.0");
	const char *vars[] = { "LD_LIBRARY_PATH=/usr/local/cuda/lib64", NULL };
	put_environ(vars);
	struct ncclib_scan s;
	scan(&s);
	assert_int_equal(s.nlibs, 3);
	int cuda = lib_by_path(&s, "/usr/local/cuda-13.0/lib64/libnccl.so.2");
	assert_true(cuda >= 0);
	assert_true(has_str(s.libs[cuda].where, s.libs[cuda].nwhere, "LD_LIBRARY_PATH"));
	assert_int_equal(s.ld_default, cuda);
	assert_int_equal(s.torch[0].lib, cuda);
	assert_string_equal(s.torch[0].via, "LD_LIBRARY_PATH (/usr/local/cuda/lib64)");
	struct result *r = result_new("sys");
	sys_report_libraries(r, &s);
	struct finding *f = result_find(r, "NCCL_MULTIPLE_VERSIONS");
	assert_non_null(f);
	assert_non_null(strstr(f->title, "3 different NCCL versions"));
	result_free(r);
	ncclib_scan_release(&s);
}

/* DT_RPATH (no DT_RUNPATH) comes before LD_LIBRARY_PATH. */
static void test_scan_rpath_first(void **state)
{
	(void)state;
	build_standard();
	struct elfgen g;
	memset(&g, 0, sizeof(g));
	g.needed[0] = "libnccl.so.2";
	g.rpath = "${ORIGIN}/../../nvidia/nccl/lib";
	g.rodata = "\0x";
	g.rodata_len = 3;
	assert_int_equal(elfgen_write(rp(SITE "/torch/lib/libtorch_cuda.so"), &g), 0);
	put_nccl("/usr/local/cuda-13.0/lib64/libnccl.so.2", "NCCL version 2.27.7+cuda13.0");
	const char *vars[] = { "LD_LIBRARY_PATH=/usr/local/cuda/lib64", NULL };
	put_environ(vars);
	struct ncclib_scan s;
	scan(&s);
	assert_int_equal(s.torch[0].how, TORCH_NCCL_SHARED);
	assert_string_equal(s.torch[0].nccl_path, SITE "/nvidia/nccl/lib/libnccl.so.2");
	assert_string_equal(s.torch[0].via, "DT_RPATH (${ORIGIN}/../../nvidia/nccl/lib)");
	ncclib_scan_release(&s);
}

static void test_scan_static_torch(void **state)
{
	(void)state;
	static const char ro[] = "\x01junk\0NCCL version 2.14.3+cuda11.7";
	put_libtorch(SITE "/torch/lib/libtorch_cuda.so", NULL, "$ORIGIN", ro, sizeof(ro));
	put_text(SITE "/torch/version.py", "__version__ = \"1.13.1+cu117\"\n");
	const char *vars[] = { "PATH=/bin", NULL };
	put_environ(vars);
	struct ncclib_scan s;
	scan(&s);
	assert_int_equal(s.nlibs, 0);
	assert_int_equal(s.ld_default, -1);
	assert_int_equal(s.ntorch, 1);
	assert_int_equal(s.torch[0].how, TORCH_NCCL_STATIC);
	assert_string_equal(s.torch[0].static_version, "NCCL version 2.14.3+cuda11.7");
	struct result *r = result_new("sys");
	sys_report_libraries(r, &s);
	struct finding *f = result_find(r, "NCCL_NOT_FOUND");
	assert_non_null(f);
	assert_int_equal(f->sev, SEV_INFO);
	assert_non_null(strstr(f->title, "PyTorch 1.13.1+cu117 has NCCL linked in"));
	assert_null(result_find(r, "NCCL_MULTIPLE_VERSIONS"));
	assert_string_equal(cell(r, "nccl_libraries", "frameworks", 0, "nccl"), "bundled (static) 2.14.3+cuda11.7");
	assert_string_equal(cell(r, "nccl_libraries", "libraries", 0, "found_in"), "python:torch (static)");
	result_free(r);
	ncclib_scan_release(&s);

	/* with a system NCCL of another release: several versions */
	put_nccl("/usr/lib/libnccl.so.2", "NCCL version 2.21.5+cuda12.4");
	scan(&s);
	r = result_new("sys");
	sys_report_libraries(r, &s);
	f = result_find(r, "NCCL_MULTIPLE_VERSIONS");
	assert_non_null(f);
	assert_non_null(strstr(f->title, "2.14.3, 2.21.5"));
	assert_null(result_find(r, "NCCL_NOT_FOUND"));
	result_free(r);
	ncclib_scan_release(&s);
}

static void test_scan_torch_missing_and_cpu(void **state)
{
	(void)state;
	put_libtorch(SITE "/torch/lib/libtorch_cuda.so", "libnccl.so.2", "$ORIGIN/../../nvidia/nccl/lib", NULL, 0);
	mkdirs("/usr/lib/python3/dist-packages/torch/lib");
	put_text("/usr/lib/python3/dist-packages/torch/lib/libtorch_cpu.so", "x");
	const char *vars[] = { "A=b", NULL };
	put_environ(vars);
	struct ncclib_scan s;
	scan(&s);
	assert_int_equal(s.ntorch, 2);
	for (size_t i = 0; i < 2; i++) {
		if (strstr(s.torch[i].path, "dist-packages"))
			assert_int_equal(s.torch[i].how, TORCH_NCCL_NO_CUDA);
		else
			assert_int_equal(s.torch[i].how, TORCH_NCCL_MISSING);
	}
	struct result *r = result_new("sys");
	sys_report_libraries(r, &s);
	assert_non_null(result_find(r, "NCCL_NOT_FOUND"));
	result_free(r);
	ncclib_scan_release(&s);
}

static void test_scan_vllm_env(void **state)
{
	(void)state;
	build_standard();
	struct {
		const char *value;
		const char *error; /* NULL: valid */
	} cases[] = {
		{ "VLLM_NCCL_SO_PATH=/nonexistent/libnccl.so.2", "missing" },
		{ "VLLM_NCCL_SO_PATH=/etc/ld.so.conf", "not an ELF file" },
		{ "VLLM_NCCL_SO_PATH=/usr/lib/libfoo.so", "not an NCCL library (no NCCL version string)" },
		{ "VLLM_NCCL_SO_PATH=/etc", "not a regular file" },
		{ "VLLM_NCCL_SO_PATH=lib/libnccl.so.2", "a relative path: it depends on the working directory of vLLM" },
		{ "VLLM_NCCL_SO_PATH=libnccl.so.3", "not found by the dynamic loader" },
		{ "VLLM_NCCL_SO_PATH=/usr/lib/x86_64-linux-gnu/libnccl.so", NULL },
		{ "VLLM_NCCL_SO_PATH=libnccl.so.2", NULL },
	};
	struct elfgen g;
	memset(&g, 0, sizeof(g));
	g.soname = "libfoo.so";
	g.rodata = "\0foo";
	g.rodata_len = 5;
	parent_dirs("/usr/lib/libfoo.so");
	assert_int_equal(elfgen_write(rp("/usr/lib/libfoo.so"), &g), 0);
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const char *vars[] = { cases[k].value, NULL };
		put_environ(vars);
		struct ncclib_scan s;
		scan(&s);
		assert_non_null(s.vllm_so_path);
		struct result *r = result_new("sys");
		sys_report_libraries(r, &s);
		struct finding *f = result_find(r, "VLLM_NCCL_SO_PATH_INVALID");
		if (cases[k].error) {
			assert_non_null(s.vllm_so_error);
			assert_string_equal(s.vllm_so_error, cases[k].error);
			assert_int_equal(s.vllm_lib, -1);
			assert_non_null(f);
			assert_int_equal(f->sev, SEV_ERROR);
			assert_int_equal(result_exit_code(r), 2);
			assert_int_equal(s.nlibs, 2); /* the bad file is not listed as a libnccl */
		} else {
			assert_null(s.vllm_so_error);
			assert_null(f);
			int sys = lib_by_path(&s, "/usr/lib/x86_64-linux-gnu/libnccl.so.2.28.3");
			assert_int_equal(s.vllm_lib, sys);
			assert_true(has_str(s.libs[sys].where, s.libs[sys].nwhere, "VLLM_NCCL_SO_PATH"));
			assert_string_equal(cell(r, "nccl_libraries", "libraries", (size_t)sys, "loaded_by"),
					    "ld.so default, vLLM 0.11.0 (VLLM_NCCL_SO_PATH)");
			/* the fix points vLLM at PyTorch's copy */
			f = result_find(r, "NCCL_MULTIPLE_VERSIONS");
			assert_non_null(f);
			/* PyTorch's copy and vLLM's in one process: a warning */
			assert_int_equal(f->sev, SEV_WARNING);
			assert_non_null(strstr(f->title, "vLLM loads another one than PyTorch in the same process"));
			bool fix = false;
			for (size_t i = 0; i < f->nfix; i++)
				fix = fix || strcmp(f->fixes[i].text, "VLLM_NCCL_SO_PATH=" SITE "/nvidia/nccl/lib/libnccl.so.2") == 0;
			assert_true(fix);
		}
		result_free(r);
		ncclib_scan_release(&s);
	}
}

/* ld.so.conf: order, relative includes, "dir=TYPE", hwcap lines, comments. */
static void test_scan_ld_so_conf(void **state)
{
	(void)state;
	put_text("/etc/ld.so.conf", "/opt/x/lib=libc6\ninclude conf.d/*.conf\nhwcap 0 nosegneg\n");
	put_text("/etc/conf.d/a.conf", "  /opt/y/lib   # the y runtime\n#/opt/z/lib\n");
	put_nccl("/opt/x/lib/libnccl.so.2", "NCCL version 2.1.1+cuda9.0");
	put_nccl("/opt/y/lib/libnccl.so.2", "NCCL version 2.2.2+cuda9.0");
	put_nccl("/opt/z/lib/libnccl.so.2", "NCCL version 2.3.3+cuda9.0");
	struct ncclib_scan s;
	scan(&s);
	assert_int_equal(s.nlibs, 2); /* /opt/z is only in a comment */
	int x = lib_by_path(&s, "/opt/x/lib/libnccl.so.2"), y = lib_by_path(&s, "/opt/y/lib/libnccl.so.2");
	assert_true(x >= 0 && y >= 0);
	assert_int_equal(s.ld_default, x);
	assert_string_equal(s.libs[y].where[0], "system");
	ncclib_scan_release(&s);
	unlink(rp("/opt/x/lib/libnccl.so.2"));
	scan(&s);
	assert_int_equal(s.ld_default, lib_by_path(&s, "/opt/y/lib/libnccl.so.2"));
	ncclib_scan_release(&s);
}

static void test_scan_empty_root(void **state)
{
	(void)state;
	struct ncclib_scan s;
	scan(&s); /* no environ, no ld.so.conf, nothing */
	assert_int_equal(s.nlibs, 0);
	assert_int_equal(s.ntorch, 0);
	assert_int_equal(s.ld_default, -1);
	struct result *r = result_new("sys");
	sys_report_libraries(r, &s);
	struct finding *f = result_find(r, "NCCL_NOT_FOUND");
	assert_non_null(f);
	assert_string_equal(f->title, "no libnccl found on this host");
	assert_int_equal(result_exit_code(r), 0);
	result_free(r);
	ncclib_scan_release(&s);
}

/* Broken and odd files where libnccl should be. */
static void test_scan_bad_files(void **state)
{
	(void)state;
	put_text("/usr/lib/libnccl.so", "/* GNU ld script */\nINPUT(libnccl.so.2)\n");
	put_file("/usr/lib/libnccl.so.2", "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0\0\0\0\0", 20); /* truncated */
	put_link("/usr/lib64/libnccl.so.2", "/usr/lib64/libnccl.so.2"); /* a loop */
	put_link("/usr/local/lib/libnccl.so.2", "/nowhere"); /* dangling */
	mkdirs("/lib/libnccl.so.9"); /* a directory */
	struct ncclib_scan s;
	scan(&s);
	assert_int_equal(s.nlibs, 2);
	int a = lib_by_path(&s, "/usr/lib/libnccl.so"), b = lib_by_path(&s, "/usr/lib/libnccl.so.2");
	assert_true(a >= 0 && b >= 0);
	assert_string_equal(s.libs[a].error, "not an ELF file");
	assert_string_equal(s.libs[b].error, "malformed or truncated ELF file");
	assert_false(s.libs[b].has_version);
	assert_int_equal(s.ld_default, b);
	struct result *r = result_new("sys");
	sys_report_libraries(r, &s);
	assert_string_equal(cell(r, "nccl_libraries", "libraries", (size_t)b, "version"),
			    "unknown (malformed or truncated ELF file)");
	assert_null(result_find(r, "NCCL_MULTIPLE_VERSIONS"));
	result_free(r);
	ncclib_scan_release(&s);
}

static void test_scan_limit(void **state)
{
	(void)state;
	for (int i = 0; i < NCCLIB_MAX_LIBS + 6; i++) {
		char p[128], v[64];
		snprintf(p, sizeof(p), "/usr/lib/libnccl.so.2.%d.0", i);
		snprintf(v, sizeof(v), "NCCL version 2.%d.0+cuda12.0", i);
		put_nccl(p, v);
	}
	struct ncclib_scan s;
	scan(&s);
	assert_int_equal(s.nlibs, NCCLIB_MAX_LIBS);
	assert_true(s.truncated);
	struct result *r = result_new("sys");
	sys_report_libraries(r, &s);
	struct finding *f = result_find(r, "NCCL_MULTIPLE_VERSIONS");
	assert_non_null(f);
	assert_non_null(strstr(f->title, "64 different"));
	result_free(r);
	ncclib_scan_release(&s);
}

/* ---- /etc/ld.so.cache ---- */

struct cache_ent {
	int32_t flags;
	const char *key, *value;
	uint64_t hwcap;
};

/* A cache in glibc's new format (after an old-format part when old > 0). */
static char *build_cache(const struct cache_ent *ents, size_t n, uint32_t old, size_t *len)
{
	size_t cap = 65536, off = 0;
	char *buf = calloc(1, cap);
	if (old) {
		memcpy(buf, "ld.so-1.7.0", 11);
		memcpy(buf + 12, &old, 4);
		off = (16 + old * 12 + 7) & ~(size_t)7;
	}
	char *h = buf + off;
	memcpy(h, "glibc-ld.so.cache1.1", 20);
	uint32_t nl = (uint32_t)n;
	memcpy(h + 20, &nl, 4);
	size_t str = 48 + n * 24;
	for (size_t i = 0; i < n; i++) {
		char *e = h + 48 + i * 24;
		uint32_t k = (uint32_t)str;
		memcpy(h + str, ents[i].key, strlen(ents[i].key) + 1);
		str += strlen(ents[i].key) + 1;
		uint32_t v = (uint32_t)str;
		memcpy(h + str, ents[i].value, strlen(ents[i].value) + 1);
		str += strlen(ents[i].value) + 1;
		memcpy(e, &ents[i].flags, 4);
		memcpy(e + 4, &k, 4);
		memcpy(e + 8, &v, 4);
		memcpy(e + 16, &ents[i].hwcap, 8);
	}
	*len = off + str;
	return buf;
}

#if defined(__x86_64__)
#define ARCH_ID 0x0303
#define OTHER_ID 0x0a03
#else
#define ARCH_ID 0x0a03
#define OTHER_ID 0x0303
#endif

static void test_ldcache_parse(void **state)
{
	(void)state;
	const struct cache_ent ents[] = {
		{ ARCH_ID, "libc.so.6", "/lib/x86_64-linux-gnu/libc.so.6", 0 },
		{ OTHER_ID, "libnccl.so.2", "/wrong/arch/libnccl.so.2", 0 },
		{ ARCH_ID, "libnccl.so.2", "/usr/lib/x86_64-linux-gnu/glibc-hwcaps/x86-64-v3/libnccl.so.2", 1ull << 62 },
		{ ARCH_ID, "libnccl.so.2", "/usr/lib/x86_64-linux-gnu/libnccl.so.2", 0 },
		{ 0x0003, "libfoo.so.1", "/usr/lib/libfoo.so.1", 0 },
	};
	char out[PATH_MAX];
	for (uint32_t old = 0; old < 3; old += 2) {
		size_t len;
		char *c = build_cache(ents, 5, old, &len);
		assert_int_equal(ncclib_ldcache_lookup(c, len, "libnccl.so.2", out, sizeof(out)), 1);
		assert_string_equal(out, "/usr/lib/x86_64-linux-gnu/libnccl.so.2");
		assert_int_equal(ncclib_ldcache_lookup(c, len, "libfoo.so.1", out, sizeof(out)), 1);
		assert_string_equal(out, "/usr/lib/libfoo.so.1");
		assert_int_equal(ncclib_ldcache_lookup(c, len, "libnccl.so.3", out, sizeof(out)), 0);
		/* every truncation: an error or a clean answer */
		for (size_t n = 0; n < len; n++) {
			int r = ncclib_ldcache_lookup(c, n, "libnccl.so.2", out, sizeof(out));
			assert_true(r == 1 || r == 0 || r == -EBADMSG);
		}
		free(c);
	}
	/* only hwcaps copies: the first is taken */
	size_t len;
	char *c = build_cache(ents + 2, 1, 0, &len);
	assert_int_equal(ncclib_ldcache_lookup(c, len, "libnccl.so.2", out, sizeof(out)), 1);
	assert_non_null(strstr(out, "glibc-hwcaps"));
	/* a value offset outside the file */
	uint32_t bad = 0xfffffff0u;
	memcpy(c + 48 + 8, &bad, 4);
	assert_int_equal(ncclib_ldcache_lookup(c, len, "libnccl.so.2", out, sizeof(out)), -EBADMSG);
	/* an entry count beyond the file */
	uint32_t many = 1000000;
	memcpy(c + 20, &many, 4);
	assert_int_equal(ncclib_ldcache_lookup(c, len, "libnccl.so.2", out, sizeof(out)), -EBADMSG);
	free(c);
	assert_int_equal(ncclib_ldcache_lookup("not a cache at all, no", 22, "x", out, sizeof(out)), -EBADMSG);
	assert_int_equal(ncclib_ldcache_lookup("ld.so-1.7.0\0\0\0\0\0", 16, "x", out, sizeof(out)), -EBADMSG);
}

/* This machine's own cache, made by its ldconfig. */
static void test_ldcache_real(void **state)
{
	(void)state;
	FILE *f = fopen("/etc/ld.so.cache", "rb");
	if (!f)
		skip();
	static char buf[16 << 20];
	size_t len = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	char out[PATH_MAX];
	int r = ncclib_ldcache_lookup(buf, len, "libc.so.6", out, sizeof(out));
	if (r == -EBADMSG && memcmp(buf, "ld.so-1.7.0", 11) == 0)
		skip(); /* an old-format-only cache */
	assert_int_equal(r, 1);
	struct stat st;
	assert_int_equal(stat(out, &st), 0);
	print_message("libc.so.6 => %s\n", out);
	if (ncclib_ldcache_lookup(buf, len, "libnccl.so.2", out, sizeof(out)) == 1)
		print_message("libnccl.so.2 => %s\n", out);
}

/* With a cache, ld.so goes by it, not by the ld.so.conf directories. */
static void test_scan_uses_ldcache(void **state)
{
	(void)state;
	put_text("/etc/ld.so.conf", "/opt/x/lib\n/opt/y/lib\n");
	put_nccl("/opt/x/lib/libnccl.so.2", "NCCL version 2.1.1+cuda9.0");
	put_nccl("/opt/y/lib/libnccl.so.2", "NCCL version 2.2.2+cuda9.0");
	const struct cache_ent ents[] = {
		{ ARCH_ID, "libnccl.so.2", "/opt/y/lib/libnccl.so.2", 0 },
	};
	size_t len;
	char *c = build_cache(ents, 1, 0, &len);
	put_file("/etc/ld.so.cache", c, len);
	free(c);
	const char *vars[] = { "SUDO_USER=alice", NULL };
	put_environ(vars);
	struct ncclib_scan s;
	scan(&s);
	assert_int_equal(s.nlibs, 2);
	assert_int_equal(s.ld_default, lib_by_path(&s, "/opt/y/lib/libnccl.so.2"));
	assert_string_equal(s.ld_via, "ld.so.cache");
	assert_true(s.sudo);
	struct result *r = result_new("sys");
	sys_report_libraries(r, &s);
	assert_int_equal(r->sections[0]->nnotes, 1); /* the sudo note */
	result_free(r);
	ncclib_scan_release(&s);
	/* a cache without the name: the default directories, not ld.so.conf */
	const struct cache_ent other[] = {
		{ ARCH_ID, "libc.so.6", "/lib/libc.so.6", 0 },
	};
	c = build_cache(other, 1, 0, &len);
	put_file("/etc/ld.so.cache", c, len);
	free(c);
	scan(&s);
	assert_int_equal(s.ld_default, -1);
	ncclib_scan_release(&s);
	/* a broken cache: ld.so.conf stands in */
	put_text("/etc/ld.so.cache", "garbage");
	scan(&s);
	assert_int_equal(s.ld_default, lib_by_path(&s, "/opt/x/lib/libnccl.so.2"));
	assert_string_equal(s.ld_via, "ld.so.conf (/opt/x/lib)");
	ncclib_scan_release(&s);
}

/* ---- JSON and the recorded file ---- */

static void test_json_roundtrip_and_record(void **state)
{
	(void)state;
	build_standard();
	const char *vars[] = { "VLLM_NCCL_SO_PATH=/nonexistent", NULL };
	put_environ(vars);
	struct ncclib_scan s;
	scan(&s);
	json_t *j = ncclib_scan_to_json(&s);
	struct ncclib_scan back;
	assert_int_equal(ncclib_scan_from_json(j, &back), 0);
	json_t *j2 = ncclib_scan_to_json(&back);
	assert_true(json_equal(j, j2));
	assert_int_equal(back.torch[0].how, TORCH_NCCL_SHARED);
	assert_true(back.libs[back.torch[0].lib].has_version);
	json_decref(j2);
	ncclib_scan_release(&back);

	/* a recorded sysroot: only the JSON file, no libraries */
	char *text = json_dumps(j, 0);
	char rec[256];
	assert_true(strlen(g_root) + 5 < sizeof(rec));
	memcpy(rec, g_root, strlen(g_root));
	memcpy(rec + strlen(g_root), "/rec", 5);
	char saved[256];
	snprintf(saved, sizeof(saved), "%s", g_root);
	snprintf(g_root, sizeof(g_root), "%s", rec);
	assert_int_equal(mkdir(g_root, 0755), 0);
	mkdirs("/.nccl-doctor");
	put_text(NCCLIB_RECORD_PATH, text);
	free(text);
	struct ncclib_scan r1;
	scan(&r1);
	assert_true(r1.from_record);
	assert_int_equal(r1.nlibs, s.nlibs);
	j2 = ncclib_scan_to_json(&r1);
	assert_true(json_equal(j, j2));
	json_decref(j2);
	struct result *r = result_new("sys");
	sys_report_libraries(r, &r1);
	assert_non_null(result_find(r, "NCCL_MULTIPLE_VERSIONS"));
	assert_non_null(result_find(r, "VLLM_NCCL_SO_PATH_INVALID"));
	result_free(r);
	ncclib_scan_release(&r1);

	/* garbage and inconsistent records are errors, not crashes */
	const char *bad[] = {
		"not json",
		"[]",
		"{}",
		"{\"libraries\": 5}",
		"{\"libraries\": [{\"names\": []}]}",
		"{\"libraries\": [{\"path\": 7}]}",
		"{\"libraries\": [], \"ld_default\": 0}",
		"{\"libraries\": [{\"path\": \"/x\"}], \"torch\": [{\"path\": \"/t\", \"library\": 1}]}",
		"{\"libraries\": [{\"path\": \"/x\"}], \"vllm\": [{\"path\": \"/v\", \"torch\": 0}]}",
	};
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		put_text(NCCLIB_RECORD_PATH, bad[k]);
		struct ncclib_scan b;
		assert_int_equal(sysroot_set(g_root), 0);
		assert_int_equal(ncclib_scan(&b), -EBADMSG);
		assert_int_equal(b.nlibs, 0);
		assert_int_equal(b.record_err, -EBADMSG);
		struct result *br = result_new("sys");
		sys_report_libraries(br, &b);
		assert_int_equal(br->nfindings, 0); /* no NCCL_NOT_FOUND from a broken record */
		result_free(br);
		ncclib_scan_release(&b);
	}
	/* sparse but valid: every optional member missing; the report copes */
	put_text(NCCLIB_RECORD_PATH, "{\"libraries\": [{\"path\": \"/x\"}], \"torch\": [{\"path\": \"/t\", "
				     "\"nccl\": \"shared\"}, {\"path\": \"/u\", \"nccl\": \"missing\"}, {\"path\": \"/s\", "
				     "\"nccl\": \"static\"}], \"vllm\": [{\"path\": \"/v\", \"torch\": 0}], "
				     "\"vllm_nccl_so_path\": \"/x\", \"vllm_library\": 0}");
	struct ncclib_scan sp;
	scan(&sp);
	assert_int_equal(sp.ntorch, 3);
	assert_int_equal(sp.torch[0].how, TORCH_NCCL_SHARED);
	assert_int_equal(sp.torch[0].lib, -1);
	r = result_new("sys");
	sys_report_libraries(r, &sp);
	assert_string_equal(cell(r, "nccl_libraries", "frameworks", 0, "nccl"), "version unknown path unknown");
	assert_string_equal(cell(r, "nccl_libraries", "frameworks", 2, "nccl"), "bundled (static)");
	result_free(r);
	ncclib_scan_release(&sp);
	/* and a minimal valid one */
	put_text(NCCLIB_RECORD_PATH, "{\"libraries\": [{\"path\": \"/x\", \"version_string\": \"NCCL version 2.1.2\"}]}");
	struct ncclib_scan m;
	scan(&m);
	assert_int_equal(m.nlibs, 1);
	assert_true(m.libs[0].has_version);
	assert_int_equal(m.libs[0].version.minor, 1);
	ncclib_scan_release(&m);

	snprintf(g_root, sizeof(g_root), "%s", saved);
	json_decref(j);
	ncclib_scan_release(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_parse),
		cmocka_unit_test(test_version_cmp),
		cmocka_unit_test_setup_teardown(test_environ, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_scan_standard, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_scan_ld_library_path_wins, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_scan_rpath_first, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_scan_static_torch, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_scan_torch_missing_and_cpu, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_scan_vllm_env, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_scan_ld_so_conf, setup_each, teardown_each),
		cmocka_unit_test(test_ldcache_parse),
		cmocka_unit_test(test_ldcache_real),
		cmocka_unit_test_setup_teardown(test_scan_uses_ldcache, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_scan_empty_root, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_scan_bad_files, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_scan_limit, setup_each, teardown_each),
		cmocka_unit_test_setup_teardown(test_json_roundtrip_and_record, setup_each, teardown_each),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
