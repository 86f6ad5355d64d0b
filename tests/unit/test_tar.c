/* Unit tests of util/tar: archives written to a temporary file are listed
 * with the system's `tar -tvf` and extracted with `tar -xf`, checking names
 * (short, ustar prefix-split over 100 bytes, GNU long names over 255),
 * symbolic links (long targets too), modes and file contents byte for byte;
 * and a write error is reported. The reader (tar_read.c) reads the same
 * archives back member by member and unpacks them (absolute link targets
 * made relative); its limits, damaged and truncated archives, and the link
 * targets that would leave the root are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "util/strbuf.h"
#include "util/tar.h"

#include <fcntl.h>

#include <errno.h>
#include <stdbool.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char g_tmp[256];

/* Paths under the temporary directory; four rotating buffers so that two
 * can be used in one call. */
static const char *tpath(const char *rel)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", g_tmp, rel);
	return p[k];
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_tmp, sizeof(g_tmp), "%s/nd-tar.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[PATH_MAX + 32];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* Runs cmd and returns its whole stdout (caller frees); *status its exit. */
static char *run(const char *cmd, int *status)
{
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	struct strbuf sb = STRBUF_INIT;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), p)) > 0)
		strbuf_add(&sb, buf, n);
	int st = pclose(p);
	*status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	return strbuf_detach(&sb);
}

static bool have_tar(void)
{
	int st;
	char *out = run("tar --version 2>/dev/null", &st);
	bool ok = st == 0 && strstr(out, "tar");
	free(out);
	return ok;
}

/* A path of exactly len bytes made of components of comp bytes. */
static char *long_path(size_t len, size_t comp, char fill)
{
	char *p = malloc(len + 1);
	assert_non_null(p);
	for (size_t i = 0; i < len; i++)
		p[i] = (i % (comp + 1) == comp) ? '/' : (char)(fill + (char)(i % 7));
	if (p[len - 1] == '/')
		p[len - 1] = fill;
	p[len] = '\0';
	return p;
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);
	for (const char *p = text; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		if (len == n && memcmp(p, line, n) == 0)
			return true;
		p = nl ? nl + 1 : NULL;
	}
	return false;
}

static size_t count_lines(const char *text)
{
	size_t n = 0;
	for (const char *p = text; *p; p++)
		if (*p == '\n')
			n++;
	return n;
}

static void read_back(const char *path, const void *want, size_t len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open extracted '%s'", path);
	char *buf = malloc(len + 16);
	assert_non_null(buf);
	size_t n = fread(buf, 1, len + 16, f);
	fclose(f);
	assert_int_equal(n, len);
	if (len)
		assert_memory_equal(buf, want, len);
	free(buf);
}

static void test_tar_roundtrip(void **state)
{
	(void)state;
	if (!have_tar())
		skip();
	char *mid = long_path(150, 40, 'a');  /* > 100: ustar prefix split */
	char *huge = long_path(300, 50, 'k'); /* > 255: GNU long name */
	char *flat = long_path(120, 200, 'f'); /* > 100 without '/': long name */
	char *tgt = long_path(180, 30, 't');   /* a link target > 100 */
	char *lnk = long_path(270, 60, 'm');   /* a long link name */
	unsigned char bin[1000];
	for (size_t i = 0; i < sizeof(bin); i++)
		bin[i] = (unsigned char)(i * 7 + 3);
	char block[512];
	memset(block, 'B', sizeof(block));

	FILE *f = fopen(tpath("a.tar"), "wb");
	assert_non_null(f);
	struct tar_writer t;
	tar_init(&t, f, 1700000000);
	assert_int_equal(tar_add_dir(&t, "/sys", 0755), 0);
	assert_int_equal(tar_add_dir(&t, "sys/bus", 0700), 0);
	assert_int_equal(tar_add_file(&t, "/sys/bus/vendor", "0x10de\n", 7, 0644), 0);
	assert_int_equal(tar_add_file(&t, "sys/bin", bin, sizeof(bin), 0600), 0);
	assert_int_equal(tar_add_file(&t, "sys/block", block, sizeof(block), 0444), 0);
	assert_int_equal(tar_add_file(&t, "sys/empty", NULL, 0, 0644), 0);
	assert_int_equal(tar_add_file(&t, mid, "mid", 3, 0644), 0);
	assert_int_equal(tar_add_file(&t, huge, "huge", 4, 0644), 0);
	assert_int_equal(tar_add_file(&t, flat, "flat", 4, 0644), 0);
	assert_int_equal(tar_add_symlink(&t, "sys/link", "../sys/bus/vendor"), 0);
	assert_int_equal(tar_add_symlink(&t, "/sys/abslink", "/sys/bus"), 0);
	assert_int_equal(tar_add_symlink(&t, "sys/longtarget", tgt), 0);
	assert_int_equal(tar_add_symlink(&t, lnk, tgt), 0);
	assert_int_equal(tar_finish(&t), 0);
	assert_int_equal(fclose(f), 0);

	/* whole 512-byte blocks, ending with two zero blocks */
	struct stat st;
	assert_int_equal(stat(tpath("a.tar"), &st), 0);
	assert_int_equal(st.st_size % 512, 0);

	char cmd[2048];
	int status;
	snprintf(cmd, sizeof(cmd), "tar -tf '%s'", tpath("a.tar"));
	char *names = run(cmd, &status);
	assert_int_equal(status, 0);
	assert_int_equal(count_lines(names), 13);
	assert_true(has_line(names, "sys/"));
	assert_true(has_line(names, "sys/bus/"));
	assert_true(has_line(names, "sys/bus/vendor"));
	assert_true(has_line(names, "sys/bin"));
	assert_true(has_line(names, "sys/block"));
	assert_true(has_line(names, "sys/empty"));
	assert_true(has_line(names, mid));
	assert_true(has_line(names, huge));
	assert_true(has_line(names, flat));
	assert_true(has_line(names, "sys/link"));
	assert_true(has_line(names, "sys/abslink"));
	assert_true(has_line(names, "sys/longtarget"));
	assert_true(has_line(names, lnk));
	free(names);

	snprintf(cmd, sizeof(cmd), "tar -tvf '%s' 2>&1", tpath("a.tar"));
	char *verbose = run(cmd, &status);
	assert_int_equal(status, 0);
	assert_non_null(strstr(verbose, "drwx------ root/root"));
	assert_non_null(strstr(verbose, "-rw------- root/root"));
	assert_non_null(strstr(verbose, "-r--r--r-- root/root"));
	assert_non_null(strstr(verbose, "sys/link -> ../sys/bus/vendor"));
	assert_non_null(strstr(verbose, "sys/abslink -> /sys/bus"));
	char want[1024];
	snprintf(want, sizeof(want), "sys/longtarget -> %s\n", tgt);
	assert_non_null(strstr(verbose, want));
	snprintf(want, sizeof(want), "%s -> %s\n", lnk, tgt);
	assert_non_null(strstr(verbose, want));
	/* no warnings from tar about the headers */
	assert_null(strstr(verbose, "tar:"));
	free(verbose);

	/* extract and compare */
	assert_int_equal(mkdir(tpath("out"), 0755), 0);
	snprintf(cmd, sizeof(cmd), "tar -xf '%s' -C '%s' --no-same-owner 2>&1", tpath("a.tar"), tpath("out"));
	char *msgs = run(cmd, &status);
	assert_string_equal(msgs, "");
	assert_int_equal(status, 0);
	free(msgs);
	read_back(tpath("out/sys/bus/vendor"), "0x10de\n", 7);
	read_back(tpath("out/sys/bin"), bin, sizeof(bin));
	read_back(tpath("out/sys/block"), block, sizeof(block));
	read_back(tpath("out/sys/empty"), "", 0);
	char p[1024];
	snprintf(p, sizeof(p), "%s/out/%s", g_tmp, mid);
	read_back(p, "mid", 3);
	snprintf(p, sizeof(p), "%s/out/%s", g_tmp, huge);
	read_back(p, "huge", 4);
	snprintf(p, sizeof(p), "%s/out/%s", g_tmp, flat);
	read_back(p, "flat", 4);
	assert_int_equal(stat(tpath("out/sys/bin"), &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(st.st_mtime, 1700000000);
	assert_int_equal(stat(tpath("out/sys/bus"), &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	char buf[PATH_MAX];
	ssize_t n = readlink(tpath("out/sys/link"), buf, sizeof(buf) - 1);
	assert_int_equal(n, strlen("../sys/bus/vendor"));
	buf[n] = '\0';
	assert_string_equal(buf, "../sys/bus/vendor");
	n = readlink(tpath("out/sys/longtarget"), buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, tgt);
	snprintf(p, sizeof(p), "%s/out/%s", g_tmp, lnk);
	n = readlink(p, buf, sizeof(buf) - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, tgt);

	free(mid);
	free(huge);
	free(flat);
	free(tgt);
	free(lnk);
}

static void test_tar_name_boundaries(void **state)
{
	(void)state;
	if (!have_tar())
		skip();
	/* exactly 100, 101, 255, 256 bytes, and a name whose only '/' is too early */
	size_t lens[] = { 99, 100, 101, 155, 156, 254, 255, 256, 257, 1000 };
	char *paths[12];
	size_t np = 0;
	FILE *f = fopen(tpath("b.tar"), "wb");
	assert_non_null(f);
	struct tar_writer t;
	tar_init(&t, f, 0);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char *pth = long_path(lens[i], 20 + i, (char)('a' + i));
		assert_int_equal(strlen(pth), lens[i]);
		paths[np++] = pth;
		assert_int_equal(tar_add_file(&t, pth, pth, strlen(pth), 0644), 0);
	}
	char *early = long_path(140, 200, 'q');
	early[2] = '/';
	paths[np++] = early;
	assert_int_equal(tar_add_file(&t, early, "e", 1, 0644), 0);
	/* a directory whose name with its '/' goes over 100 */
	char *dir = long_path(100, 30, 'd');
	paths[np++] = dir;
	assert_int_equal(tar_add_dir(&t, dir, 0755), 0);
	assert_int_equal(tar_finish(&t), 0);
	fclose(f);

	char cmd[2048];
	int status;
	snprintf(cmd, sizeof(cmd), "tar -tf '%s' 2>&1", tpath("b.tar"));
	char *names = run(cmd, &status);
	assert_int_equal(status, 0);
	assert_int_equal(count_lines(names), np);
	for (size_t i = 0; i + 1 < np; i++)
		if (!has_line(names, paths[i]))
			fail_msg("tar -tf does not list '%s' (%zu bytes):\n%s", paths[i], strlen(paths[i]), names);
	char dslash[PATH_MAX];
	snprintf(dslash, sizeof(dslash), "%s/", dir);
	assert_true(has_line(names, dslash));
	free(names);

	/* contents follow the right header */
	assert_int_equal(mkdir(tpath("outb"), 0755), 0);
	snprintf(cmd, sizeof(cmd), "tar -xf '%s' -C '%s' --no-same-owner 2>&1", tpath("b.tar"), tpath("outb"));
	char *msgs = run(cmd, &status);
	assert_string_equal(msgs, "");
	assert_int_equal(status, 0);
	free(msgs);
	for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		char p[2048];
		snprintf(p, sizeof(p), "%s/outb/%s", g_tmp, paths[i]);
		read_back(p, paths[i], strlen(paths[i]));
	}
	for (size_t i = 0; i < np; i++)
		free(paths[i]);
}

static void test_tar_write_error(void **state)
{
	(void)state;
	FILE *f = fopen("/dev/full", "wb");
	if (!f)
		skip();
	struct tar_writer t;
	tar_init(&t, f, 0);
	char big[20000];
	memset(big, 'x', sizeof(big));
	int r = tar_add_file(&t, "a", big, sizeof(big), 0644);
	/* the error shows up at once or, buffered, at tar_finish, with write(2)'s
	 * own errno (ENOSPC on /dev/full); then stays */
	assert_true(r == 0 || r == -ENOSPC);
	assert_int_equal(tar_finish(&t), -ENOSPC);
	assert_int_equal(tar_add_dir(&t, "d", 0755), -ENOSPC);
	assert_int_equal(tar_finish(&t), -ENOSPC);
	fclose(f);
}

/* ---- the reader ---- */

struct mem {
	const char *p;
	size_t n, off;
};

static long mem_read(void *ctx, void *buf, size_t n)
{
	struct mem *m = ctx;
	if (n > m->n - m->off)
		n = m->n - m->off;
	memcpy(buf, m->p + m->off, n);
	m->off += n;
	return (long)n;
}

/* An archive in memory (caller frees *buf): the entries of the roundtrip. */
struct entry {
	char type; /* 'f', 'd', 'l' */
	const char *path, *data; /* data: content or link target */
};

static size_t make_archive(const struct entry *e, size_t n, char **buf)
{
	size_t len;
	FILE *f = open_memstream(buf, &len);
	assert_non_null(f);
	struct tar_writer t;
	tar_init(&t, f, 0);
	for (size_t i = 0; i < n; i++) {
		if (e[i].type == 'd')
			assert_int_equal(tar_add_dir(&t, e[i].path, 0755), 0);
		else if (e[i].type == 'l')
			assert_int_equal(tar_add_symlink(&t, e[i].path, e[i].data), 0);
		else
			assert_int_equal(tar_add_file(&t, e[i].path, e[i].data, strlen(e[i].data), 0644), 0);
	}
	assert_int_equal(tar_finish(&t), 0);
	fclose(f);
	return len;
}

static void test_tar_read_roundtrip(void **state)
{
	(void)state;
	char *mid = long_path(150, 40, 'a'), *huge = long_path(300, 50, 'k'), *tgt = long_path(180, 30, 't');
	char *lnk = long_path(270, 60, 'm');
	const struct entry e[] = {
		{ 'd', "sys", NULL },
		{ 'f', "/sys/short", "hello\n" },
		{ 'f', mid, "mid" },
		{ 'f', huge, "" },
		{ 'l', lnk, tgt },
		{ 'l', "sys/abs", "/proc/self/fd" },
	};
	char *buf;
	size_t len = make_archive(e, 6, &buf);
	struct mem m = { buf, len, 0 };
	struct tar_reader t;
	tar_reader_init(&t, mem_read, &m, NULL);
	struct tar_member mb;
	for (size_t i = 0; i < 6; i++) {
		assert_int_equal(tar_next(&t, &mb), 1);
		const char *want = e[i].path[0] == '/' ? e[i].path + 1 : e[i].path;
		assert_string_equal(mb.path, want);
		assert_int_equal(mb.type, e[i].type == 'd' ? TAR_DIR : e[i].type == 'l' ? TAR_SYMLINK : TAR_FILE);
		if (e[i].type == 'l') {
			assert_string_equal(mb.link, e[i].data);
		} else if (e[i].type == 'f') {
			char data[64];
			assert_int_equal(mb.size, strlen(e[i].data));
			long k = tar_read_data(&t, data, sizeof(data));
			assert_int_equal(k, (long)strlen(e[i].data));
			assert_memory_equal(data, e[i].data, (size_t)k);
			assert_int_equal(tar_read_data(&t, data, sizeof(data)), 0);
		}
	}
	assert_int_equal(tar_next(&t, &mb), 0);

	/* unpacked: the files, the long link as written, the absolute one
	 * relative to the root */
	char root[600];
	snprintf(root, sizeof(root), "%s/un", g_tmp);
	assert_int_equal(mkdir(root, 0700), 0);
	int fd = open(root, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	m.off = 0;
	tar_reader_init(&t, mem_read, &m, NULL);
	assert_int_equal(tar_extract(&t, fd), 6);
	close(fd);
	read_back(tpath("un/sys/short"), "hello\n", 6);
	read_back(tpath("un/sys/../sys/short"), "hello\n", 6);
	char p[1200], l[600];
	snprintf(p, sizeof(p), "%s/%s", root, mid);
	read_back(p, "mid", 3);
	snprintf(p, sizeof(p), "%s/%s", root, lnk);
	ssize_t n = readlink(p, l, sizeof(l) - 1);
	assert_true(n > 0);
	l[n] = '\0';
	assert_string_equal(l, tgt);
	n = readlink(tpath("un/sys/abs"), l, sizeof(l) - 1);
	assert_true(n > 0);
	l[n] = '\0';
	assert_string_equal(l, "../proc/self/fd");
	free(buf);
	free(mid);
	free(huge);
	free(tgt);
	free(lnk);
}

/* The first error reading the whole archive with lim (NULL: the default),
 * unpacked under a fresh directory; why gets the reason. */
static long read_all(const char *buf, size_t len, const struct tar_limits *lim, char *why, size_t whysz)
{
	static int k;
	char root[600];
	snprintf(root, sizeof(root), "%s/r%d", g_tmp, k++);
	assert_int_equal(mkdir(root, 0700), 0);
	int fd = open(root, O_RDONLY | O_DIRECTORY);
	assert_true(fd >= 0);
	struct mem m = { buf, len, 0 };
	struct tar_reader t;
	tar_reader_init(&t, mem_read, &m, lim);
	long r = tar_extract(&t, fd);
	close(fd);
	snprintf(why, whysz, "%s", r < 0 ? t.why : "");
	return r;
}

static void test_tar_read_refused(void **state)
{
	(void)state;
	char why[4400];
	const struct entry e[] = { { 'f', "a/one", "0123456789" }, { 'f', "a/two", "0123456789" }, { 'd', "b", NULL } };
	char *buf;
	size_t len = make_archive(e, 3, &buf);
	assert_int_equal(read_all(buf, len, NULL, why, sizeof(why)), 3);
	assert_int_equal(read_all(buf, len, &(struct tar_limits){ 2, 100, 100 }, why, sizeof(why)), -EFBIG);
	assert_string_equal(why, "more than 2 members");
	assert_int_equal(read_all(buf, len, &(struct tar_limits){ 10, 9, 100 }, why, sizeof(why)), -EFBIG);
	assert_string_equal(why, "member 'a/one' is over 0 MiB");
	assert_int_equal(read_all(buf, len, &(struct tar_limits){ 10, 10, 15 }, why, sizeof(why)), -EFBIG);
	assert_non_null(strstr(why, "at member 'a/two'"));
	/* every cut: truncated (nothing at all: not a tar) */
	for (size_t cut = 0; cut < len - 1024; cut += 100) {
		long r = read_all(buf, cut, NULL, why, sizeof(why));
		assert_int_equal(r, cut ? -EPIPE : -EBADMSG);
	}
	/* a byte of the second header changed: its checksum */
	buf[512 * 2 + 3] ^= 1;
	assert_int_equal(read_all(buf, len, NULL, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "a damaged header at byte 1024 (its checksum is wrong)");
	free(buf);

	/* links: leading ".." up to the link's depth only, none after a name */
	static const struct {
		const char *path, *target;
		bool ok;
	} links[] = {
		{ "a/b/l", "../../x", true },   { "a/b/l", "../../../x", false }, { "l", "..", false },
		{ "a/l", "b/../..", false },     { "a/l", "./b/./c", true },       { "a/l", "/../x", false },
	};
	for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
		const struct entry le[] = { { 'l', links[i].path, links[i].target } };
		len = make_archive(le, 1, &buf);
		long r = read_all(buf, len, NULL, why, sizeof(why));
		if (links[i].ok)
			assert_int_equal(r, 1);
		else
			assert_non_null(strstr(why, "points outside the snapshot"));
		free(buf);
	}
	/* a name given twice; a member beneath a link */
	const struct entry twice[] = { { 'f', "x", "1" }, { 'f', "x", "2" } };
	len = make_archive(twice, 2, &buf);
	assert_int_equal(read_all(buf, len, NULL, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "member 'x' is given twice");
	free(buf);
	const struct entry under[] = { { 'd', "d", NULL }, { 'l', "l", "d" }, { 'f', "l/f", "1" } };
	len = make_archive(under, 3, &buf);
	assert_int_equal(read_all(buf, len, NULL, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "member 'l/f' lies beneath 'l', which is a symbolic link");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tar_roundtrip),
		cmocka_unit_test(test_tar_name_boundaries),
		cmocka_unit_test(test_tar_write_error),
		cmocka_unit_test(test_tar_read_roundtrip),
		cmocka_unit_test(test_tar_read_refused),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
