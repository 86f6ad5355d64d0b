/* Unit tests of util/sysroot on a temporary tree: sysroot_set errors, path
 * prefixing, links resolved inside the sysroot (relative, absolute, "..",
 * loops), bounded file reads, sorted listings and globs, error texts, and
 * the recording that `snapshot` packs (canonical paths, each link once). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

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

static const char *tpath(const char *rel)
{
	static char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", g_tmp, rel);
	return p;
}

static void mkdirs(const char *rel)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", g_tmp, rel);
	for (char *s = p + strlen(g_tmp) + 1; *s; s++) {
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	}
	mkdir(p, 0755);
}

static void wr(const char *rel, const void *data, size_t len)
{
	FILE *f = fopen(tpath(rel), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static void wrs(const char *rel, const char *s)
{
	wr(rel, s, strlen(s));
}

static void ln(const char *target, const char *rel)
{
	assert_int_equal(symlink(target, tpath(rel)), 0);
}

#define PCIDEV "/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0"

static int setup(void **state)
{
	(void)state;
	snprintf(g_tmp, sizeof(g_tmp), "%s/nd-sysroot.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(g_tmp))
		return -1;
	mkdirs("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	mkdirs("sys/bus/pci/devices");
	mkdirs("sys/bus/pci/drivers/nvidia");
	mkdirs("etc");
	mkdirs("list/sub");
	mkdirs("proc/1234");
	wrs("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/vendor", "0x10de\n");
	wrs("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/class", "0x030200\n");
	wrs("sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/garbage", "zz9\n");
	wrs("sys/devices/pci0000:00/0000:00:01.0/vendor", "0x10b5\n");
	wrs("etc/hosts", "inside the sysroot\n");
	wrs("proc/1234/cmdline", "init");
	/* relative links as sysfs has them */
	ln("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0", "sys/bus/pci/devices/0000:01:00.0");
	ln("../../../devices/pci0000:00/0000:00:01.0", "sys/bus/pci/devices/0000:00:01.0");
	ln("../../../../bus/pci/drivers/nvidia", "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/driver");
	/* absolute links: must stay inside the sysroot */
	ln("/sys/devices/pci0000:00", "sys/abs");
	ln("/", "rootlink");
	ln("/etc", "sys/etclink");
	/* a relative link climbing above the root stays at the root */
	ln("../../../../../../../../etc", "sys/escape");
	ln("1234", "proc/self");
	/* loops */
	ln("loop2", "loop1");
	ln("loop1", "loop2");
	ln("selfloop", "selfloop");
	ln("grow/x", "grow");
	/* listing order */
	wrs("list/c", "c");
	wrs("list/a", "a");
	wrs("list/B", "B");
	wrs("list/b10", "b10");
	wrs("list/b2", "b2");
	ln("a", "list/link");
	/* a long chain of links: 30 resolves, 50 is too many */
	char name[32], target[32];
	for (int i = 0; i < 50; i++) {
		snprintf(name, sizeof(name), "chain%d", i);
		snprintf(target, sizeof(target), i == 49 ? "etc" : "chain%d", i + 1);
		ln(target, name);
	}
	ln("chain20", "chain_short");
	return sysroot_set(g_tmp);
}

static int teardown(void **state)
{
	(void)state;
	sysroot_set(NULL);
	sr_record_stop();
	sr_record_clear();
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_sysroot_set(void **state)
{
	(void)state;
	char real[PATH_MAX];
	assert_non_null(realpath(g_tmp, real));
	assert_string_equal(sysroot_get(), real);
	assert_false(sysroot_is_live());

	assert_int_equal(sysroot_set(NULL), 0);
	assert_string_equal(sysroot_get(), "");
	assert_true(sysroot_is_live());
	assert_int_equal(sysroot_set(""), 0);
	assert_true(sysroot_is_live());
	assert_int_equal(sysroot_set("/"), 0);
	assert_true(sysroot_is_live());

	/* a trailing slash and a path through a link give the same root */
	char with_slash[PATH_MAX];
	snprintf(with_slash, sizeof(with_slash), "%s/", g_tmp);
	assert_int_equal(sysroot_set(with_slash), 0);
	assert_string_equal(sysroot_get(), real);
	assert_int_equal(sysroot_set(tpath("list/sub/../..")), 0);
	assert_string_equal(sysroot_get(), real);

	assert_int_equal(sysroot_set(tpath("does-not-exist")), -ENOENT);
	/* a failed set leaves the previous root */
	assert_string_equal(sysroot_get(), real);
	assert_int_equal(sysroot_set(tpath("etc/hosts")), -ENOTDIR);
	assert_int_equal(sysroot_set(tpath("loop1")), -ELOOP);
	assert_string_equal(sysroot_get(), real);
	assert_int_equal(sysroot_set(g_tmp), 0);
}

static void test_sr_path(void **state)
{
	(void)state;
	char out[PATH_MAX];
	assert_int_equal(sr_path("/sys/bus", out, sizeof(out)), 0);
	char want[PATH_MAX];
	snprintf(want, sizeof(want), "%s/sys/bus", sysroot_get());
	assert_string_equal(out, want);
	assert_int_equal(sr_path("sys/bus", out, sizeof(out)), -EINVAL);
	assert_int_equal(sr_path("", out, sizeof(out)), -EINVAL);
	assert_int_equal(sr_path(NULL, out, sizeof(out)), -EINVAL);
	char small[8];
	assert_int_equal(sr_path("/sys/bus/pci", small, sizeof(small)), -ENAMETOOLONG);
	/* live: no prefix */
	sysroot_set(NULL);
	assert_int_equal(sr_path("/proc/cmdline", out, sizeof(out)), 0);
	assert_string_equal(out, "/proc/cmdline");
	sysroot_set(g_tmp);
	assert_int_equal(sr_open("relative", O_RDONLY), -EINVAL);
}

static void check_real(const char *in, const char *want)
{
	char out[PATH_MAX];
	int r = sr_realpath(in, out, sizeof(out));
	if (r != 0)
		fail_msg("sr_realpath('%s') = %d", in, r);
	assert_string_equal(out, want);
}

static void test_sr_realpath(void **state)
{
	(void)state;
	check_real("/", "/");
	check_real("/sys", "/sys");
	check_real("//sys//bus/./pci/", "/sys/bus/pci");
	check_real("/sys/bus/pci/devices/0000:01:00.0", PCIDEV);
	check_real("/sys/bus/pci/devices/0000:01:00.0/vendor", PCIDEV "/vendor");
	/* ".." applies to the resolved path, not to the link's name */
	check_real("/sys/bus/pci/devices/0000:01:00.0/..", "/sys/devices/pci0000:00/0000:00:01.0");
	check_real("/sys/bus/pci/devices/0000:01:00.0/../vendor", "/sys/devices/pci0000:00/0000:00:01.0/vendor");
	check_real("/sys/bus/pci/devices/0000:01:00.0/driver", "/sys/bus/pci/drivers/nvidia");
	/* absolute links resolve inside the sysroot */
	check_real("/sys/abs", "/sys/devices/pci0000:00");
	check_real("/sys/abs/0000:00:01.0/vendor", "/sys/devices/pci0000:00/0000:00:01.0/vendor");
	check_real("/rootlink", "/");
	check_real("/rootlink/rootlink/etc/hosts", "/etc/hosts");
	check_real("/sys/etclink/hosts", "/etc/hosts");
	/* climbing above the root stays at the root */
	check_real("/../../..", "/");
	check_real("/../sys/../../etc", "/etc");
	check_real("/sys/escape/hosts", "/etc/hosts");
	check_real("/proc/self/cmdline", "/proc/1234/cmdline");
	check_real("/chain_short/hosts", "/etc/hosts");

	char out[PATH_MAX];
	assert_int_equal(sr_realpath("/loop1", out, sizeof(out)), -ELOOP);
	assert_int_equal(sr_realpath("/loop2/x", out, sizeof(out)), -ELOOP);
	assert_int_equal(sr_realpath("/selfloop", out, sizeof(out)), -ELOOP);
	assert_int_equal(sr_realpath("/grow", out, sizeof(out)), -ELOOP);
	assert_int_equal(sr_realpath("/chain0", out, sizeof(out)), -ELOOP);
	assert_int_equal(sr_realpath("/missing/x", out, sizeof(out)), -ENOENT);
	assert_int_equal(sr_realpath("/etc/hosts/x", out, sizeof(out)), -ENOTDIR);
	assert_int_equal(sr_realpath("relative", out, sizeof(out)), -EINVAL);
	assert_int_equal(sr_realpath(NULL, out, sizeof(out)), -EINVAL);
	char small[8];
	assert_int_equal(sr_realpath("/sys/bus/pci", small, sizeof(small)), -ENAMETOOLONG);
	/* a path far longer than PATH_MAX fails cleanly */
	char *huge = malloc(3 * PATH_MAX);
	assert_non_null(huge);
	size_t n = 0;
	while (n + 5 < 3 * PATH_MAX) {
		memcpy(huge + n, "/sys", 4);
		n += 4;
	}
	huge[n] = '\0';
	int r = sr_realpath(huge, out, sizeof(out));
	assert_true(r == -ENOENT || r == -ENAMETOOLONG);
	free(huge);
}

static void test_sr_read_through_links(void **state)
{
	(void)state;
	char *data;
	size_t len;
	/* an absolute link in a recorded tree must not reach the host's files */
	assert_int_equal(sr_read_file("/sys/etclink/hosts", &data, &len, 4096), 0);
	assert_string_equal(data, "inside the sysroot\n");
	free(data);
	assert_int_equal(sr_read_file("/sys/escape/hosts", &data, &len, 4096), 0);
	assert_string_equal(data, "inside the sysroot\n");
	free(data);
	assert_int_equal(sr_read_file("/sys/abs/0000:00:01.0/vendor", &data, &len, 4096), 0);
	assert_string_equal(data, "0x10b5\n");
	free(data);
	struct stat st;
	assert_int_equal(sr_stat("/sys/etclink/hosts", &st), 0);
	assert_int_equal(st.st_size, strlen("inside the sysroot\n"));
	assert_true(sr_exists("/rootlink/etc/hosts"));
	assert_false(sr_exists("/loop1"));
	assert_int_equal(sr_read_file("/loop1", &data, &len, 10), -ELOOP);
	assert_null(data);
	char **names;
	size_t n;
	assert_int_equal(sr_list_dir("/sys/etclink", &names, &n), 1);
	assert_string_equal(names[0], "hosts");
	sr_names_free(names, n);
}

static void test_sr_read_file(void **state)
{
	(void)state;
	char big[10000];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 26);
	wr("bigfile", big, sizeof(big));
	char *data;
	size_t len;
	assert_int_equal(sr_read_file("/bigfile", &data, &len, 1 << 20), 0);
	assert_int_equal(len, sizeof(big));
	assert_memory_equal(data, big, sizeof(big));
	assert_int_equal(data[len], '\0');
	free(data);
	assert_int_equal(sr_read_file("/bigfile", &data, &len, 100), 0);
	assert_int_equal(len, 100);
	assert_memory_equal(data, big, 100);
	assert_int_equal(data[100], '\0');
	free(data);
	assert_int_equal(sr_read_file("/bigfile", &data, &len, 4096), 0);
	assert_int_equal(len, 4096);
	free(data);
	assert_int_equal(sr_read_file("/bigfile", &data, &len, 5000), 0);
	assert_int_equal(len, 5000);
	assert_memory_equal(data, big, 5000);
	free(data);
	assert_int_equal(sr_read_file("/bigfile", &data, &len, 0), 0);
	assert_int_equal(len, 0);
	assert_string_equal(data, "");
	free(data);
	/* NUL bytes inside a file are kept, the length says so */
	wr("nulfile", "a\0b\0", 4);
	assert_int_equal(sr_read_file("/nulfile", &data, &len, 100), 0);
	assert_int_equal(len, 4);
	assert_memory_equal(data, "a\0b\0", 5);
	free(data);
	wr("empty", "", 0);
	assert_int_equal(sr_read_file("/empty", &data, &len, 100), 0);
	assert_int_equal(len, 0);
	free(data);

	data = (char *)1;
	len = 99;
	assert_int_equal(sr_read_file("/nope", &data, &len, 100), -ENOENT);
	assert_null(data);
	assert_int_equal(len, 0);
	assert_int_equal(sr_read_file("/etc", &data, &len, 100), -EISDIR);
	assert_null(data);
	assert_int_equal(sr_read_file("/etc/hosts/x", &data, &len, 100), -ENOTDIR);

	/* a FIFO inside a sysroot is refused, never opened (it would block) */
	assert_int_equal(mkfifo(tpath("fifo"), 0644), 0);
	assert_int_equal(sr_read_file("/fifo", &data, &len, 100), -SR_ESPECIAL);
	assert_null(data);
	assert_int_equal(sr_open("/fifo", O_RDONLY), -SR_ESPECIAL);
	assert_string_equal(sr_strerror(-SR_ESPECIAL), "a device node, FIFO or socket, not a file: not read");

	if (geteuid() != 0) {
		wrs("secret", "x");
		chmod(tpath("secret"), 0);
		int r = sr_read_file("/secret", &data, &len, 100);
		assert_int_equal(r, -EACCES);
		assert_string_equal(sr_reason(r), "needs root");
	}
}

static void test_sr_read_str_ll(void **state)
{
	(void)state;
	char buf[64];
	assert_int_equal(sr_read_str(PCIDEV "/vendor", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "0x10de");
	char small[4];
	assert_int_equal(sr_read_str(PCIDEV "/class", small, sizeof(small)), 0);
	assert_string_equal(small, "0x0");
	strcpy(buf, "junk");
	assert_int_equal(sr_read_str("/nope", buf, sizeof(buf)), -ENOENT);
	assert_string_equal(buf, "");
	long long v = 0;
	assert_int_equal(sr_read_ll(PCIDEV "/vendor", 16, &v), 0);
	assert_int_equal(v, 0x10de);
	assert_int_equal(sr_read_ll(PCIDEV "/vendor", 0, &v), 0);
	assert_int_equal(v, 0x10de);
	assert_int_equal(sr_read_ll("/sys/bus/pci/devices/0000:01:00.0/class", 16, &v), 0);
	assert_int_equal(v, 0x030200);
	assert_int_equal(sr_read_ll(PCIDEV "/garbage", 10, &v), -EINVAL);
	assert_int_equal(sr_read_ll("/nope", 10, &v), -ENOENT);
	assert_int_equal(sr_read_ll("/empty-does-not-exist", 10, &v), -ENOENT);
}

static void test_sr_readlink(void **state)
{
	(void)state;
	char buf[256];
	assert_int_equal(sr_readlink("/sys/bus/pci/devices/0000:01:00.0", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");
	assert_int_equal(sr_readlink("/sys/abs", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/sys/devices/pci0000:00");
	char small[5];
	assert_int_equal(sr_readlink("/sys/abs", small, sizeof(small)), 0);
	assert_string_equal(small, "/sys");
	assert_int_equal(sr_readlink("/etc/hosts", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(sr_readlink("/nope", buf, sizeof(buf)), -ENOENT);
	struct stat st;
	assert_int_equal(sr_lstat("/sys/abs", &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(sr_stat("/sys/bus/pci/devices/0000:01:00.0", &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(sr_stat("/nope", &st), -ENOENT);
	assert_int_equal(sr_lstat("/nope", &st), -ENOENT);
}

static void test_sr_list_dir(void **state)
{
	(void)state;
	char **names;
	size_t n;
	assert_int_equal(sr_list_dir("/list", &names, &n), 7);
	assert_int_equal(n, 7);
	/* strcmp order: upper case first, "b10" before "b2" */
	const char *want[] = { "B", "a", "b10", "b2", "c", "link", "sub" };
	for (size_t i = 0; i < 7; i++)
		assert_string_equal(names[i], want[i]);
	sr_names_free(names, n);
	assert_int_equal(sr_list_dir("/list/sub", &names, &n), 0);
	assert_int_equal(n, 0);
	assert_null(names);
	sr_names_free(names, n);
	names = (char **)1;
	assert_int_equal(sr_list_dir("/nope", &names, &n), -ENOENT);
	assert_null(names);
	assert_int_equal(n, 0);
	assert_int_equal(sr_list_dir("/etc/hosts", &names, &n), -ENOTDIR);
	/* through a relative link */
	assert_int_equal(sr_list_dir("/sys/bus/pci/devices/0000:01:00.0", &names, &n), 4);
	assert_string_equal(names[0], "class");
	assert_string_equal(names[1], "driver");
	assert_string_equal(names[2], "garbage");
	assert_string_equal(names[3], "vendor");
	sr_names_free(names, n);
}

static void test_sr_glob(void **state)
{
	(void)state;
	char **paths;
	size_t n;
	assert_int_equal(sr_glob("/sys/bus/pci/devices/*", &paths, &n), 2);
	assert_string_equal(paths[0], "/sys/bus/pci/devices/0000:00:01.0");
	assert_string_equal(paths[1], "/sys/bus/pci/devices/0000:01:00.0");
	sr_names_free(paths, n);
	assert_int_equal(sr_glob("/list/b*", &paths, &n), 2);
	assert_string_equal(paths[0], "/list/b10");
	assert_string_equal(paths[1], "/list/b2");
	sr_names_free(paths, n);
	assert_int_equal(sr_glob("/list/zz*", &paths, &n), 0);
	assert_null(paths);
	assert_int_equal(n, 0);
	assert_int_equal(sr_glob("relative/*", &paths, &n), -EINVAL);
}

static void test_sr_errors_text(void **state)
{
	(void)state;
	assert_string_equal(sr_strerror(-EACCES), "permission denied");
	assert_string_equal(sr_strerror(EACCES), "permission denied");
	assert_string_equal(sr_strerror(-ENOENT), "no such file or directory");
	assert_string_equal(sr_strerror(-EIO), "input/output error");
	assert_string_equal(sr_reason(-EACCES), "needs root");
	assert_string_equal(sr_reason(-EPERM), "needs root");
	assert_string_equal(sr_reason(-ENOENT), "missing");
	assert_string_equal(sr_reason(-ELOOP), "too many levels of symbolic links");
	assert_string_equal(sr_reason(-EISDIR), "is a directory");
}

static const struct sr_rec *rec_get(const char *path, size_t *count)
{
	size_t n;
	const struct sr_rec *r = sr_record_entries(&n);
	const struct sr_rec *found = NULL;
	*count = 0;
	for (size_t i = 0; i < n; i++)
		if (strcmp(r[i].path, path) == 0) {
			found = &r[i];
			(*count)++;
		}
	return found;
}

static void test_sr_record(void **state)
{
	(void)state;
	size_t n, cnt;
	sr_record_clear();
	sr_record_entries(&n);
	assert_int_equal(n, 0);

	/* nothing is recorded before start */
	char *data;
	size_t len;
	assert_int_equal(sr_read_file(PCIDEV "/vendor", &data, &len, 100), 0);
	free(data);
	sr_record_entries(&n);
	assert_int_equal(n, 0);

	sr_record_start();
	for (int i = 0; i < 3; i++) {
		assert_int_equal(sr_read_file("/sys/bus/pci/devices/0000:01:00.0/vendor", &data, &len, 100), 0);
		free(data);
	}
	assert_int_equal(sr_read_file("/sys/bus/pci/devices/0000:01:00.0/class", &data, &len, 100), 0);
	free(data);
	/* the file under its canonical path, once */
	const struct sr_rec *r = rec_get(PCIDEV "/vendor", &cnt);
	assert_int_equal(cnt, 1);
	assert_non_null(r);
	assert_int_equal(r->type, SR_REC_FILE);
	assert_int_equal(r->len, 7);
	assert_string_equal(r->data, "0x10de\n");
	assert_int_equal(r->mode, 0644);
	assert_null(rec_get("/sys/bus/pci/devices/0000:01:00.0/vendor", &cnt));
	assert_int_equal(cnt, 0);
	r = rec_get(PCIDEV "/class", &cnt);
	assert_int_equal(cnt, 1);
	assert_string_equal(r->data, "0x030200\n");
	/* the link on the way, once, with its target */
	r = rec_get("/sys/bus/pci/devices/0000:01:00.0", &cnt);
	assert_int_equal(cnt, 1);
	assert_int_equal(r->type, SR_REC_LINK);
	assert_string_equal(r->data, "../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0");

	/* a file read through an absolute link: the link, and the file at its real place */
	assert_int_equal(sr_read_file("/sys/abs/0000:00:01.0/vendor", &data, &len, 100), 0);
	free(data);
	r = rec_get("/sys/abs", &cnt);
	assert_int_equal(cnt, 1);
	assert_int_equal(r->type, SR_REC_LINK);
	assert_string_equal(r->data, "/sys/devices/pci0000:00");
	r = rec_get("/sys/devices/pci0000:00/0000:00:01.0/vendor", &cnt);
	assert_int_equal(cnt, 1);
	assert_string_equal(r->data, "0x10b5\n");

	/* a listing keeps each entry's type */
	char **names;
	size_t nn;
	assert_int_equal(sr_list_dir("/list", &names, &nn), 7);
	sr_names_free(names, nn);
	assert_int_equal(sr_list_dir("/list", &names, &nn), 7);
	sr_names_free(names, nn);
	r = rec_get("/list", &cnt);
	assert_int_equal(cnt, 1);
	assert_int_equal(r->type, SR_REC_DIR);
	/* entries are "X:NAME\0"; check a few, whatever the readdir order */
	int seen = 0;
	for (size_t off = 0; off < r->len; off += strlen(r->data + off) + 1) {
		const char *e = r->data + off;
		if (strcmp(e, "f:a") == 0 || strcmp(e, "l:link") == 0 || strcmp(e, "d:sub") == 0)
			seen++;
		assert_true(e[0] == 'f' || e[0] == 'l' || e[0] == 'd');
		assert_int_equal(e[1], ':');
	}
	assert_int_equal(seen, 3);

	/* sr_exists records a placeholder, which a later read replaces */
	assert_true(sr_exists("/etc/hosts"));
	r = rec_get("/etc/hosts", &cnt);
	assert_int_equal(cnt, 1);
	assert_int_equal(r->type, SR_REC_FILE);
	assert_int_equal(r->len, 0);
	assert_int_equal(sr_read_file("/etc/hosts", &data, &len, 100), 0);
	free(data);
	r = rec_get("/etc/hosts", &cnt);
	assert_int_equal(cnt, 1);
	assert_string_equal(r->data, "inside the sysroot\n");
	/* and an exists after a read does not blank it */
	assert_true(sr_exists("/etc/hosts"));
	r = rec_get("/etc/hosts", &cnt);
	assert_string_equal(r->data, "inside the sysroot\n");
	/* a directory tested with sr_exists does not replace a listing */
	assert_true(sr_exists("/list"));
	r = rec_get("/list", &cnt);
	assert_int_equal(cnt, 1);
	assert_non_null(r->data);
	assert_false(sr_exists("/missing"));
	assert_null(rec_get("/missing", &cnt));

	/* readlink records the link */
	char buf[128];
	assert_int_equal(sr_readlink("/sys/bus/pci/devices/0000:01:00.0/driver", buf, sizeof(buf)), 0);
	r = rec_get(PCIDEV "/driver", &cnt);
	assert_int_equal(cnt, 1);
	assert_int_equal(r->type, SR_REC_LINK);
	assert_string_equal(r->data, "../../../../bus/pci/drivers/nvidia");

	/* files added by hand replace earlier content */
	sr_record_add_file("/proc/extra", "one", 3);
	sr_record_add_file("/proc/extra", "two!", 4);
	r = rec_get("/proc/extra", &cnt);
	assert_int_equal(cnt, 1);
	assert_int_equal(r->len, 4);
	assert_string_equal(r->data, "two!");

	/* every recorded path is absolute and unique */
	const struct sr_rec *all = sr_record_entries(&n);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(all[i].path[0], '/');
		for (size_t j = i + 1; j < n; j++)
			assert_string_not_equal(all[i].path, all[j].path);
	}

	sr_record_stop();
	size_t before = n;
	assert_int_equal(sr_read_file("/proc/1234/cmdline", &data, &len, 100), 0);
	free(data);
	sr_record_entries(&n);
	assert_int_equal(n, before);
	sr_record_clear();
	assert_null(sr_record_entries(&n));
	assert_int_equal(n, 0);
	sr_record_clear(); /* twice is fine */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sysroot_set),
		cmocka_unit_test(test_sr_path),
		cmocka_unit_test(test_sr_realpath),
		cmocka_unit_test(test_sr_read_through_links),
		cmocka_unit_test(test_sr_read_file),
		cmocka_unit_test(test_sr_read_str_ll),
		cmocka_unit_test(test_sr_readlink),
		cmocka_unit_test(test_sr_list_dir),
		cmocka_unit_test(test_sr_glob),
		cmocka_unit_test(test_sr_errors_text),
		cmocka_unit_test(test_sr_record),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
