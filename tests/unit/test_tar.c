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

/* ---- pax extended headers, written by hand ---- */

/* A ustar header block of type type for name (size bytes follow). */
static void pax_hdr(FILE *f, const char *name, char type, size_t size, const char *link)
{
	unsigned char h[512] = { 0 };
	snprintf((char *)h, 100, "%s", name);
	snprintf((char *)h + 100, 8, "%07o", 0644);
	snprintf((char *)h + 108, 8, "%07o", 0);
	snprintf((char *)h + 116, 8, "%07o", 0);
	snprintf((char *)h + 124, 12, "%011zo", size);
	snprintf((char *)h + 136, 12, "%011o", 0);
	h[156] = (unsigned char)type;
	if (link)
		snprintf((char *)h + 157, 100, "%s", link);
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	unsigned sum = 0;
	for (size_t i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	h[155] = ' ';
	fwrite(h, 1, 512, f);
}

/* size bytes of data and their padding. */
static void pax_data(FILE *f, const void *d, size_t n)
{
	static const char zero[512];
	fwrite(d, 1, n, f);
	fwrite(zero, 1, (512 - n % 512) % 512, f);
}

/* One record "LEN key=value\n" appended to r (LEN counts itself). */
static void pax_rec(char *r, size_t rsz, const char *k, const char *v, size_t vlen)
{
	size_t body = 1 + strlen(k) + 1 + vlen + 1, n = body + 1;
	while ((size_t)snprintf(NULL, 0, "%zu", n) + body != n)
		n++;
	size_t off = strlen(r);
	assert_true(off + n < rsz);
	off += (size_t)snprintf(r + off, rsz - off, "%zu %s=", n, k);
	memcpy(r + off, v, vlen);
	r[off + vlen] = '\n';
	r[off + vlen + 1] = '\0';
}

/* An 'x' (or 'g') header with records r, then a file "sys/m" of body. */
static size_t pax_archive(char type, const char *r, size_t rlen, const char *body, char **buf)
{
	size_t len;
	FILE *f = open_memstream(buf, &len);
	pax_hdr(f, "PaxHeaders/m", type, rlen, NULL);
	pax_data(f, r, rlen);
	pax_hdr(f, "sys/m", '0', strlen(body), NULL);
	pax_data(f, body, strlen(body));
	static const char end[1024];
	fwrite(end, 1, sizeof(end), f);
	fclose(f);
	return len;
}

static void test_tar_read_pax(void **state)
{
	(void)state;
	char *lp = long_path(300, 40, 'p'), *lt = long_path(200, 30, 't');
	char r[8192] = "", why[4400];
	size_t len;
	char *buf;
	FILE *f = open_memstream(&buf, &len);
	/* a global header: a comment and times, nothing nccl-doctor applies */
	pax_rec(r, sizeof(r), "comment", "repacked", 8);
	pax_rec(r, sizeof(r), "mtime", "1700000000.25", 13);
	pax_hdr(f, "pax_global_header", 'g', strlen(r), NULL);
	pax_data(f, r, strlen(r));
	/* a long name and a size that replaces the header's 0 */
	r[0] = '\0';
	pax_rec(r, sizeof(r), "path", lp, strlen(lp));
	pax_rec(r, sizeof(r), "size", "5", 1);
	pax_rec(r, sizeof(r), "SCHILY.xattr.user.x", "a\0b", 3);
	pax_hdr(f, "PaxHeaders/1", 'x', strlen(r) + 3, NULL); /* the xattr value holds a NUL: "\0b\n" after strlen */
	pax_data(f, r, strlen(r) + 3);
	pax_hdr(f, "cut-name", '0', 0, NULL);
	pax_data(f, "12345", 5);
	/* a long link target */
	r[0] = '\0';
	pax_rec(r, sizeof(r), "linkpath", lt, strlen(lt));
	pax_hdr(f, "PaxHeaders/2", 'x', strlen(r), NULL);
	pax_data(f, r, strlen(r));
	pax_hdr(f, "sys/l", '2', 0, "cut-target");
	/* the next member has no 'x': its own header speaks */
	pax_hdr(f, "sys/plain", '0', 2, NULL);
	pax_data(f, "ok", 2);
	static const char end[1024];
	fwrite(end, 1, sizeof(end), f);
	fclose(f);
	struct mem m = { buf, len, 0 };
	struct tar_reader t;
	struct tar_member mb;
	tar_reader_init(&t, mem_read, &m, NULL);
	assert_int_equal(tar_next(&t, &mb), 1);
	assert_string_equal(mb.path, lp);
	assert_int_equal(mb.size, 5);
	char d[16];
	assert_int_equal(tar_read_data(&t, d, sizeof(d)), 5);
	assert_memory_equal(d, "12345", 5);
	assert_int_equal(tar_next(&t, &mb), 1);
	assert_string_equal(mb.path, "sys/l");
	assert_int_equal(mb.type, TAR_SYMLINK);
	assert_string_equal(mb.link, lt);
	assert_int_equal(tar_next(&t, &mb), 1);
	assert_string_equal(mb.path, "sys/plain");
	assert_int_equal(mb.size, 2);
	assert_int_equal(tar_next(&t, &mb), 0);
	assert_int_equal(read_all(buf, len, NULL, why, sizeof(why)), 3);
	free(buf);

	/* a global path applies to every later member (POSIX): the second
	 * is then a name given twice */
	r[0] = '\0';
	pax_rec(r, sizeof(r), "path", "g/p", 3);
	f = open_memstream(&buf, &len);
	pax_hdr(f, "pax_global_header", 'g', strlen(r), NULL);
	pax_data(f, r, strlen(r));
	pax_hdr(f, "a", '0', 1, NULL);
	pax_data(f, "1", 1);
	pax_hdr(f, "b", '0', 1, NULL);
	pax_data(f, "2", 1);
	fwrite(end, 1, sizeof(end), f);
	fclose(f);
	m = (struct mem){ buf, len, 0 };
	tar_reader_init(&t, mem_read, &m, NULL);
	assert_int_equal(tar_next(&t, &mb), 1);
	assert_string_equal(mb.path, "g/p");
	assert_int_equal(read_all(buf, len, NULL, why, sizeof(why)), -EBADMSG);
	assert_string_equal(why, "member 'g/p' is given twice");
	free(buf);

	/* hostile records */
	static const struct {
		const char *rec;
		size_t len;
		long rc;
		const char *why;
	} bad[] = {
		{ "99 path=sys/x\n", 14, -EBADMSG, "a malformed pax record" },     /* the length lies (long) */
		{ "5 path=sys/x\n", 13, -EBADMSG, "a malformed pax record" },      /* (short) */
		{ "14 path=sys/x.", 14, -EBADMSG, "a malformed pax record" },      /* no newline at its end */
		{ "13 pathsys/x\n", 13, -EBADMSG, "a malformed pax record" },      /* no '=' */
		{ "9 =sys/x\n", 9, -EBADMSG, "a malformed pax record" },           /* no keyword */
		{ "x path=a\n", 9, -EBADMSG, "a malformed pax record" },           /* no length */
		{ "13 path=../x\n", 13, -EBADMSG, "member '../x' has a '..' in its name" },
		{ "15 path=/etc/x\n", 15, -EBADMSG, "has an absolute name" },
		{ "14 path=a\0b/c\n", 14, -EBADMSG, "a pax 'path' record at byte" },
		{ "11 size=1x\n", 11, -EBADMSG, "is not a number" },
		{ "32 size=99999999999999999999999\n", 32, -EFBIG, "is over 64 bits" },
		{ "18 size=200000000\n", 18, -EFBIG, "member 'sys/m' is over 64 MiB" },
		{ "22 GNU.sparse.major=1\n", 22, -EBADMSG, "describes a sparse file" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		len = pax_archive('x', bad[i].rec, bad[i].len, "x", &buf);
		long rc = read_all(buf, len, NULL, why, sizeof(why));
		if (rc != bad[i].rc || !strstr(why, bad[i].why))
			fail_msg("pax record %zu: %ld '%s'", i, rc, why);
		free(buf);
	}
	/* too many records, too many bytes; an 'x' with no member after it */
	r[0] = '\0';
	for (int i = 0; i < TAR_PAX_MAX_RECORDS + 1; i++)
		pax_rec(r, sizeof(r), "a", "b", 1);
	len = pax_archive('x', r, strlen(r), "x", &buf);
	assert_int_equal(read_all(buf, len, NULL, why, sizeof(why)), -EFBIG);
	assert_non_null(strstr(why, "more than 256 records"));
	free(buf);
	f = open_memstream(&buf, &len);
	pax_hdr(f, "PaxHeaders/big", 'x', TAR_PAX_MAX_BYTES + 1, NULL);
	fclose(f);
	assert_int_equal(read_all(buf, len, NULL, why, sizeof(why)), -EFBIG);
	assert_non_null(strstr(why, "a pax header of 65537 bytes"));
	free(buf);
	r[0] = '\0';
	pax_rec(r, sizeof(r), "path", "a", 1);
	f = open_memstream(&buf, &len);
	pax_hdr(f, "PaxHeaders/m", 'x', strlen(r), NULL);
	pax_data(f, r, strlen(r));
	fwrite(end, 1, sizeof(end), f);
	fclose(f);
	assert_int_equal(read_all(buf, len, NULL, why, sizeof(why)), -EPIPE);
	free(buf);
	free(lp);
	free(lt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tar_roundtrip),
		cmocka_unit_test(test_tar_name_boundaries),
		cmocka_unit_test(test_tar_write_error),
		cmocka_unit_test(test_tar_read_roundtrip),
		cmocka_unit_test(test_tar_read_refused),
		cmocka_unit_test(test_tar_read_pax),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
