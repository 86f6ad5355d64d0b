/* Unit tests of the util helpers: strbuf (cap, -ENOSPC, addf), text (number
 * and size parsing, trimming, fmt_bytes, cpulist_count), linereader (long
 * lines, CRLF, NUL bytes, pipes written in small chunks, a 10 MB line) and
 * jsonx (invalid UTF-8 and NUL bytes become U+FFFD), gpusel (the --gpus list). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "util/gpusel.h"
#include "util/jsonx.h"
#include "util/linereader.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- strbuf ---- */

static void test_strbuf_basic(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	assert_string_equal(strbuf_str(&sb), "");
	assert_int_equal(strbuf_adds(&sb, "abc"), 0);
	assert_int_equal(strbuf_addch(&sb, '-'), 0);
	assert_int_equal(strbuf_add(&sb, "xyz", 2), 0);
	assert_int_equal(strbuf_add(&sb, NULL, 0), 0);
	assert_string_equal(strbuf_str(&sb), "abc-xy");
	assert_int_equal(sb.len, 6);
	assert_int_equal(strbuf_addf(&sb, " %d %s %05.1f", 42, "q", 3.14159), 0);
	assert_string_equal(strbuf_str(&sb), "abc-xy 42 q 003.1");
	assert_int_equal(sb.len, strlen("abc-xy 42 q 003.1"));
	strbuf_reset(&sb);
	assert_int_equal(sb.len, 0);
	assert_string_equal(strbuf_str(&sb), "");
	assert_int_equal(strbuf_addf(&sb, "%s", ""), 0);
	assert_string_equal(strbuf_str(&sb), "");
	strbuf_release(&sb);
	assert_null(sb.buf);
	assert_string_equal(strbuf_str(&sb), "");
}

static void test_strbuf_grow_many(void **state)
{
	(void)state;
	struct strbuf sb;
	strbuf_init(&sb, 0);
	for (int i = 0; i < 10000; i++)
		assert_int_equal(strbuf_addf(&sb, "%04d,", i % 10000), 0);
	assert_int_equal(sb.len, 50000);
	assert_true(sb.alloc > sb.len);
	assert_memory_equal(sb.buf, "0000,0001,", 10);
	assert_string_equal(sb.buf + 49995, "9999,");
	assert_int_equal(sb.buf[sb.len], '\0');
	strbuf_release(&sb);
}

static void test_strbuf_cap(void **state)
{
	(void)state;
	struct strbuf sb;
	strbuf_init(&sb, 8);
	assert_int_equal(strbuf_adds(&sb, "12345"), 0);
	assert_int_equal(strbuf_adds(&sb, "6789"), -ENOSPC);
	/* a failed append leaves the content untouched */
	assert_string_equal(strbuf_str(&sb), "12345");
	assert_int_equal(sb.len, 5);
	assert_int_equal(strbuf_addf(&sb, "%d", 1234), -ENOSPC);
	assert_string_equal(strbuf_str(&sb), "12345");
	assert_int_equal(strbuf_addf(&sb, "%d", 678), 0);
	assert_string_equal(strbuf_str(&sb), "12345678");
	/* exactly at the cap: nothing more fits, not even one byte */
	assert_int_equal(strbuf_addch(&sb, 'x'), -ENOSPC);
	assert_int_equal(strbuf_add(&sb, "", 0), 0);
	assert_int_equal(sb.len, 8);
	strbuf_reset(&sb);
	assert_int_equal(strbuf_adds(&sb, "abcdefgh"), 0);
	assert_int_equal(strbuf_adds(&sb, "abcdefghi"), -ENOSPC);
	strbuf_release(&sb);
}

static void test_strbuf_detach(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	char *empty = strbuf_detach(&sb);
	assert_non_null(empty);
	assert_string_equal(empty, "");
	free(empty);
	strbuf_adds(&sb, "hello");
	char *s = strbuf_detach(&sb);
	assert_string_equal(s, "hello");
	assert_null(sb.buf);
	assert_int_equal(sb.len, 0);
	assert_string_equal(strbuf_str(&sb), "");
	free(s);
	/* usable again after detach */
	assert_int_equal(strbuf_adds(&sb, "again"), 0);
	assert_string_equal(strbuf_str(&sb), "again");
	strbuf_release(&sb);
}

static void test_strbuf_binary(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	assert_int_equal(strbuf_add(&sb, "a\0b", 3), 0);
	assert_int_equal(sb.len, 3);
	assert_memory_equal(sb.buf, "a\0b\0", 4);
	strbuf_release(&sb);
}

/* ---- text ---- */

static void test_parse_ll(void **state)
{
	(void)state;
	long long v = 7;
	assert_int_equal(parse_ll("42", 10, &v), 0);
	assert_int_equal(v, 42);
	assert_int_equal(parse_ll("  -17 \n", 10, &v), 0);
	assert_int_equal(v, -17);
	assert_int_equal(parse_ll("0x1f", 0, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(parse_ll("0x1F", 16, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(parse_ll("1f", 16, &v), 0);
	assert_int_equal(v, 31);
	assert_int_equal(parse_ll("9223372036854775807", 10, &v), 0);
	assert_true(v == LLONG_MAX);
	assert_int_equal(parse_ll("-9223372036854775808", 10, &v), 0);
	assert_true(v == LLONG_MIN);
	v = 5;
	assert_int_equal(parse_ll("9223372036854775808", 10, &v), -EINVAL);
	assert_int_equal(parse_ll("99999999999999999999999", 10, &v), -EINVAL);
	assert_int_equal(parse_ll("", 10, &v), -EINVAL);
	assert_int_equal(parse_ll("   ", 10, &v), -EINVAL);
	assert_int_equal(parse_ll("12abc", 10, &v), -EINVAL);
	assert_int_equal(parse_ll("abc", 10, &v), -EINVAL);
	assert_int_equal(parse_ll("1 2", 10, &v), -EINVAL);
	assert_int_equal(parse_ll("1f", 10, &v), -EINVAL);
	assert_int_equal(parse_ll(NULL, 10, &v), -EINVAL);
	assert_int_equal(v, 5); /* untouched on failure */
}

static void test_parse_ull(void **state)
{
	(void)state;
	unsigned long long v = 3;
	assert_int_equal(parse_ull("18446744073709551615", 10, &v), 0);
	assert_true(v == ULLONG_MAX);
	assert_int_equal(parse_ull(" 0x10 ", 0, &v), 0);
	assert_true(v == 16);
	v = 3;
	assert_int_equal(parse_ull("18446744073709551616", 10, &v), -EINVAL);
	/* strtoull would wrap "-1" to ULLONG_MAX */
	assert_int_equal(parse_ull("-1", 10, &v), -EINVAL);
	assert_int_equal(parse_ull("  -1", 10, &v), -EINVAL);
	assert_int_equal(parse_ull("", 10, &v), -EINVAL);
	assert_int_equal(parse_ull("1.5", 10, &v), -EINVAL);
	assert_int_equal(parse_ull(NULL, 10, &v), -EINVAL);
	assert_true(v == 3);
}

static void test_parse_double(void **state)
{
	(void)state;
	double d = 0;
	assert_int_equal(parse_double("2.5", &d), 0);
	assert_true(d == 2.5);
	assert_int_equal(parse_double(" -1e3 \n", &d), 0);
	assert_true(d == -1000.0);
	assert_int_equal(parse_double("16", &d), 0);
	assert_true(d == 16.0);
	d = 9;
	assert_int_equal(parse_double("", &d), -EINVAL);
	assert_int_equal(parse_double("x", &d), -EINVAL);
	assert_int_equal(parse_double("2.5 GT/s", &d), -EINVAL);
	assert_int_equal(parse_double("1e999999", &d), -EINVAL); /* ERANGE */
	assert_int_equal(parse_double(NULL, &d), -EINVAL);
	assert_true(d == 9);
}

static void test_str_trim(void **state)
{
	(void)state;
	char a[] = "  \t hello world \r\n ";
	assert_string_equal(str_trim(a), "hello world");
	char b[] = "";
	assert_string_equal(str_trim(b), "");
	char c[] = " \n\t ";
	assert_string_equal(str_trim(c), "");
	char d[] = "x";
	assert_string_equal(str_trim(d), "x");
	char e[] = "a b\n";
	str_rtrim(e);
	assert_string_equal(e, "a b");
	char f[] = "\xff\xfe value \xff";
	/* non-ASCII bytes are not whitespace */
	assert_string_equal(str_trim(f), "\xff\xfe value \xff");
}

static void test_str_misc(void **state)
{
	(void)state;
	assert_true(str_startswith("iommu.passthrough", "iommu"));
	assert_false(str_startswith("iom", "iommu"));
	assert_true(str_startswith("x", ""));
	assert_true(str_endswith("logind.conf", ".conf"));
	assert_false(str_endswith("conf", ".conf"));
	assert_true(str_endswith("", ""));
	char buf[4];
	assert_int_equal(str_copy(buf, "abcdef", sizeof(buf)), 6);
	assert_string_equal(buf, "abc");
	assert_int_equal(str_copy(buf, "ab", sizeof(buf)), 2);
	assert_string_equal(buf, "ab");
	buf[0] = 'Z';
	assert_int_equal(str_copy(buf, "abc", 0), 3);
	assert_int_equal(buf[0], 'Z');
	const char *hay = "VMware, Inc.";
	assert_ptr_equal(str_casestr(hay, "vmware"), hay);
	assert_ptr_equal(str_casestr(hay, "INC"), hay + 8);
	assert_null(str_casestr(hay, "qemu"));
	assert_ptr_equal(str_casestr(hay, ""), hay);
	assert_null(str_casestr("", "a"));
}

static void test_fmt_bytes(void **state)
{
	(void)state;
	char b[32];
	assert_string_equal(fmt_bytes(0, b, sizeof(b)), "0 B");
	assert_string_equal(fmt_bytes(1023, b, sizeof(b)), "1023 B");
	assert_string_equal(fmt_bytes(1024, b, sizeof(b)), "1 KiB");
	assert_string_equal(fmt_bytes(1536, b, sizeof(b)), "1.5 KiB");
	assert_string_equal(fmt_bytes(64ULL << 20, b, sizeof(b)), "64 MiB");
	assert_string_equal(fmt_bytes(67108864ULL + 512 * 1024, b, sizeof(b)), "64.5 MiB");
	assert_string_equal(fmt_bytes(150ULL << 30, b, sizeof(b)), "150 GiB");
	assert_string_equal(fmt_bytes((3ULL << 40) / 2, b, sizeof(b)), "1.5 TiB");
	assert_string_equal(fmt_bytes(2ULL << 50, b, sizeof(b)), "2 PiB");
	/* PiB is the last unit: no overflow of the unit table */
	assert_string_equal(fmt_bytes(UINT64_MAX, b, sizeof(b)), "16384 PiB");
	/* a tiny buffer is cut, not overrun */
	char t[4];
	memset(t, 'Z', sizeof(t));
	fmt_bytes(1536, t, sizeof(t));
	assert_string_equal(t, "1.5");
}

static void test_parse_size(void **state)
{
	(void)state;
	uint64_t v = 1;
	assert_int_equal(parse_size("4096", &v), 0);
	assert_true(v == 4096);
	assert_int_equal(parse_size("65536k", &v), 0);
	assert_true(v == 67108864ULL);
	assert_int_equal(parse_size("64K", &v), 0);
	assert_true(v == 65536);
	assert_int_equal(parse_size("64m", &v), 0);
	assert_true(v == 64ULL << 20);
	assert_int_equal(parse_size("1G", &v), 0);
	assert_true(v == 1ULL << 30);
	assert_int_equal(parse_size("1GiB", &v), 0);
	assert_true(v == 1ULL << 30);
	assert_int_equal(parse_size("1gb", &v), 0);
	assert_true(v == 1ULL << 30);
	assert_int_equal(parse_size("2T", &v), 0);
	assert_true(v == 2ULL << 40);
	assert_int_equal(parse_size("0", &v), 0);
	assert_true(v == 0);
	assert_int_equal(parse_size("8kB", &v), 0);
	assert_true(v == 8192);
	v = 77;
	assert_int_equal(parse_size("", &v), -EINVAL);
	assert_int_equal(parse_size("k", &v), -EINVAL);
	assert_int_equal(parse_size("-1", &v), -EINVAL);
	assert_int_equal(parse_size(" 64k", &v), -EINVAL);
	assert_int_equal(parse_size("1.5G", &v), -EINVAL);
	assert_int_equal(parse_size("50%", &v), -EINVAL);
	assert_int_equal(parse_size("1X", &v), -EINVAL);
	assert_int_equal(parse_size("1Gx", &v), -EINVAL);
	assert_int_equal(parse_size("1iB", &v), -EINVAL);
	assert_int_equal(parse_size("99999999999999999999", &v), -EINVAL);
	assert_int_equal(parse_size(NULL, &v), -EINVAL);
	/* huge values must not wrap around to a small size */
	assert_int_equal(parse_size("18446744073709551615k", &v), -EINVAL);
	assert_int_equal(parse_size("16777216T", &v), -EINVAL);
	assert_true(v == 77);
	assert_int_equal(parse_size("16777215T", &v), 0);
	assert_true(v == 16777215ULL << 40);
	assert_int_equal(parse_size("18446744073709551615", &v), 0);
	assert_true(v == UINT64_MAX);
}

static void test_text_next_line(void **state)
{
	(void)state;
	char buf[8];
	bool fits;
	const char *cur = "ab\n\nlonger than eight\nlast";
	assert_true(text_next_line(&cur, buf, sizeof(buf), &fits));
	assert_true(fits);
	assert_string_equal(buf, "ab");
	assert_true(text_next_line(&cur, buf, sizeof(buf), &fits));
	assert_true(fits);
	assert_string_equal(buf, "");
	assert_true(text_next_line(&cur, buf, sizeof(buf), &fits));
	assert_false(fits);
	assert_string_equal(buf, "");
	assert_true(text_next_line(&cur, buf, sizeof(buf), &fits));
	assert_true(fits);
	assert_string_equal(buf, "last");
	assert_false(text_next_line(&cur, buf, sizeof(buf), &fits));
	cur = "";
	assert_false(text_next_line(&cur, buf, sizeof(buf), &fits));
}

static void test_cpulist_count(void **state)
{
	(void)state;
	assert_int_equal(cpulist_count("0-15,32-47"), 32);
	assert_int_equal(cpulist_count("0"), 1);
	assert_int_equal(cpulist_count("0-0"), 1);
	assert_int_equal(cpulist_count("0,2,4-7\n"), 6);
	assert_int_equal(cpulist_count("  0-3 "), 4);
	assert_int_equal(cpulist_count(""), 0);
	assert_int_equal(cpulist_count("\n"), 0);
	assert_int_equal(cpulist_count("0-255"), 256);
	assert_int_equal(cpulist_count("3-1"), -EINVAL);
	assert_int_equal(cpulist_count("-1"), -EINVAL);
	assert_int_equal(cpulist_count("a"), -EINVAL);
	assert_int_equal(cpulist_count("0-"), -EINVAL);
	assert_int_equal(cpulist_count("0-x"), -EINVAL);
	assert_int_equal(cpulist_count("1,,2"), -EINVAL);
	assert_int_equal(cpulist_count(",1"), -EINVAL);
	assert_int_equal(cpulist_count("0;1"), -EINVAL);
	assert_int_equal(cpulist_count("0-3x"), -EINVAL);
	/* huge values: no signed overflow, no wrap into a small count */
	assert_int_equal(cpulist_count("0-9223372036854775807"), -EINVAL);
	assert_int_equal(cpulist_count("99999999999999999999999"), -EINVAL);
	assert_int_equal(cpulist_count("0-4294967295"), -EINVAL);
	assert_int_equal(cpulist_count("0-4095,8192-12287"), 8192);
}

/* ---- linereader ---- */

/* A pipe whose write end a child fills with data, chunk bytes at a time. */
static int pipe_from_child(const char *data, size_t len, size_t chunk, pid_t *pid)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	*pid = fork();
	assert_true(*pid >= 0);
	if (*pid == 0) {
		close(fds[0]);
		size_t off = 0;
		while (off < len) {
			size_t n = len - off < chunk ? len - off : chunk;
			ssize_t w = write(fds[1], data + off, n);
			if (w <= 0)
				_exit(1);
			off += (size_t)w;
			if (chunk < 64)
				usleep(200);
		}
		_exit(0);
	}
	close(fds[1]);
	return fds[0];
}

static int fd_from_string(const char *data, size_t len)
{
	char path[] = "/tmp/nd-lr.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static void wait_child(pid_t pid)
{
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

struct lr_line {
	const char *text;
	size_t len;
	bool truncated, no_newline;
};

static void expect_lines(int fd, size_t max, const struct lr_line *want, size_t n)
{
	struct linereader lr;
	linereader_init(&lr, fd, max);
	char *line;
	size_t len;
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(linereader_next(&lr, &line, &len), 1);
		assert_int_equal(len, want[i].len);
		assert_memory_equal(line, want[i].text, want[i].len);
		assert_int_equal(line[len], '\0');
		assert_int_equal(lr.truncated, want[i].truncated);
		assert_int_equal(lr.no_newline, want[i].no_newline);
		assert_int_equal(lr.lineno, i + 1);
	}
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	assert_int_equal(lr.err, 0);
	linereader_release(&lr);
}

static void test_lr_basic(void **state)
{
	(void)state;
	const char in[] = "first\r\nsecond\n\nlast";
	int fd = fd_from_string(in, sizeof(in) - 1);
	const struct lr_line want[] = {
		{ "first", 5, false, false },
		{ "second", 6, false, false },
		{ "", 0, false, false },
		{ "last", 4, false, true },
	};
	expect_lines(fd, 64, want, 4);
	close(fd);
}

static void test_lr_empty(void **state)
{
	(void)state;
	int fd = fd_from_string("", 0);
	expect_lines(fd, 64, NULL, 0);
	close(fd);
	fd = fd_from_string("\n", 1);
	const struct lr_line one[] = { { "", 0, false, false } };
	expect_lines(fd, 64, one, 1);
	close(fd);
	fd = fd_from_string("\r\n", 2);
	expect_lines(fd, 64, one, 1);
	close(fd);
}

static void test_lr_nul_bytes(void **state)
{
	(void)state;
	const char in[] = "a\0b\nc\0\0\n\0";
	int fd = fd_from_string(in, sizeof(in) - 1);
	const struct lr_line want[] = {
		{ "a\0b", 3, false, false },
		{ "c\0\0", 3, false, false },
		{ "\0", 1, false, true },
	};
	expect_lines(fd, 64, want, 3);
	close(fd);
}

static void test_lr_truncated(void **state)
{
	(void)state;
	/* max 8: exactly 8 is kept whole, 9 is cut and the rest skipped */
	const char in[] = "12345678\n123456789\nabcdefghijklmnopqrstuvwxyz\nok\n0123456789abc";
	int fd = fd_from_string(in, sizeof(in) - 1);
	struct linereader lr;
	linereader_init(&lr, fd, 8);
	char *line;
	size_t len;
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "12345678");
	assert_false(lr.truncated);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "12345678");
	assert_int_equal(len, 8);
	assert_true(lr.truncated);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "abcdefgh");
	assert_true(lr.truncated);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "ok");
	assert_false(lr.truncated);
	/* an over-long last line without newline */
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "01234567");
	assert_true(lr.truncated);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	assert_int_equal(lr.lineno, 5);
	assert_int_equal(lr.truncated_lines, 3);
	assert_int_equal(lr.bytes, sizeof(in) - 1);
	linereader_release(&lr);
	close(fd);
}

static void test_lr_crlf_at_max(void **state)
{
	(void)state;
	/* "abcd\r" is 5 bytes: with max 5 it fits and the CR is removed */
	const char in[] = "abcd\r\nxy\r\r\n";
	int fd = fd_from_string(in, sizeof(in) - 1);
	const struct lr_line want[] = {
		{ "abcd", 4, false, false },
		{ "xy\r", 3, false, false }, /* only one trailing CR is removed */
	};
	expect_lines(fd, 5, want, 2);
	close(fd);
}

static void test_lr_exact_max_at_eof(void **state)
{
	(void)state;
	/* a last line of exactly max bytes, no newline: whole, not truncated */
	const char in[] = "abc\n12345678";
	int fd = fd_from_string(in, sizeof(in) - 1);
	const struct lr_line want[] = {
		{ "abc", 3, false, false },
		{ "12345678", 8, false, true },
	};
	expect_lines(fd, 8, want, 2);
	close(fd);
	/* max 0 means the default of 64 KiB */
	struct linereader lr;
	linereader_init(&lr, -1, 0);
	assert_int_equal(lr.max, 65536);
	linereader_release(&lr);
	assert_null(lr.buf);
}

static void test_lr_pipe_small_chunks(void **state)
{
	(void)state;
	struct strbuf in = STRBUF_INIT;
	for (int i = 0; i < 300; i++)
		strbuf_addf(&in, "line %d %s\r\n", i, i % 7 ? "x" : "a longer line with some more text");
	strbuf_adds(&in, "tail");
	pid_t pid;
	int fd = pipe_from_child(in.buf, in.len, 3, &pid);
	struct linereader lr;
	linereader_init(&lr, fd, 128);
	char *line;
	size_t len;
	char want[128];
	for (int i = 0; i < 300; i++) {
		assert_int_equal(linereader_next(&lr, &line, &len), 1);
		snprintf(want, sizeof(want), "line %d %s", i, i % 7 ? "x" : "a longer line with some more text");
		assert_string_equal(line, want);
		assert_int_equal(len, strlen(want));
		assert_false(lr.truncated);
		assert_false(lr.no_newline);
	}
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "tail");
	assert_true(lr.no_newline);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	assert_int_equal(lr.bytes, in.len);
	linereader_release(&lr);
	close(fd);
	wait_child(pid);
	strbuf_release(&in);
}

static void test_lr_pipe_one_byte(void **state)
{
	(void)state;
	const char in[] = "a\nbc\r\n\n0123456789ABCDEF\nend";
	pid_t pid;
	int fd = pipe_from_child(in, sizeof(in) - 1, 1, &pid);
	const struct lr_line want[] = {
		{ "a", 1, false, false },
		{ "bc", 2, false, false },
		{ "", 0, false, false },
		{ "0123456789", 10, true, false },
		{ "end", 3, false, true },
	};
	expect_lines(fd, 10, want, 5);
	close(fd);
	wait_child(pid);
}

static void test_lr_10mb_line_pipe(void **state)
{
	(void)state;
	size_t big = 10u << 20;
	size_t total = big + 64;
	char *in = malloc(total);
	assert_non_null(in);
	memset(in, 'x', big);
	in[0] = 'S';
	size_t n = big;
	n += (size_t)snprintf(in + n, total - n, "\nnext line\nlast");
	pid_t pid;
	int fd = pipe_from_child(in, n, 65536, &pid);
	struct linereader lr;
	linereader_init(&lr, fd, 4096);
	size_t alloc = lr.alloc;
	char *line;
	size_t len;
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_int_equal(len, 4096);
	assert_int_equal(line[0], 'S');
	assert_int_equal(line[4095], 'x');
	assert_int_equal(line[4096], '\0');
	assert_true(lr.truncated);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "next line");
	assert_false(lr.truncated);
	assert_int_equal(linereader_next(&lr, &line, &len), 1);
	assert_string_equal(line, "last");
	assert_true(lr.no_newline);
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	/* bounded memory: the buffer never grew */
	assert_int_equal(lr.alloc, alloc);
	assert_true(lr.alloc < 256 * 1024);
	assert_true(lr.bytes == n);
	assert_int_equal(lr.truncated_lines, 1);
	linereader_release(&lr);
	close(fd);
	wait_child(pid);
	free(in);
}

static void test_lr_many_lines_across_chunks(void **state)
{
	(void)state;
	/* lines straddling the 64 KiB read chunk boundary of the reader */
	struct strbuf in = STRBUF_INIT;
	int count = 0;
	while (in.len < 300000) {
		strbuf_addf(&in, "%d:%.*s\n", count, count % 97, "................................................................................................................");
		count++;
	}
	int fd = fd_from_string(in.buf, in.len);
	struct linereader lr;
	linereader_init(&lr, fd, 200);
	char *line;
	size_t len;
	char want[256];
	for (int i = 0; i < count; i++) {
		assert_int_equal(linereader_next(&lr, &line, &len), 1);
		int w = snprintf(want, sizeof(want), "%d:%.*s", i, i % 97, "................................................................................................................");
		assert_int_equal(len, (size_t)w);
		assert_string_equal(line, want);
	}
	assert_int_equal(linereader_next(&lr, &line, &len), 0);
	assert_int_equal(lr.truncated_lines, 0);
	linereader_release(&lr);
	close(fd);
	strbuf_release(&in);
}

static void test_lr_read_error(void **state)
{
	(void)state;
	/* a write-only descriptor: read() fails with EBADF */
	int fd = open("/dev/null", O_WRONLY);
	assert_true(fd >= 0);
	struct linereader lr;
	linereader_init(&lr, fd, 16);
	char *line;
	size_t len;
	assert_int_equal(linereader_next(&lr, &line, &len), -EBADF);
	assert_int_equal(lr.err, EBADF);
	linereader_release(&lr);
	close(fd);
}

/* ---- jsonx ---- */

static char *dump_string(json_t *j)
{
	assert_non_null(j);
	assert_true(json_is_string(j));
	char *s = json_dumps(j, JSON_ENCODE_ANY);
	assert_non_null(s);
	return s;
}

static void check_lossy(const char *in, size_t len, const char *want, size_t wantlen)
{
	json_t *j = json_strn_lossy(in, len);
	assert_non_null(j);
	assert_int_equal(json_string_length(j), wantlen);
	assert_memory_equal(json_string_value(j), want, wantlen);
	json_decref(j);
}

#define FFFD "\xEF\xBF\xBD"

static void test_json_lossy(void **state)
{
	(void)state;
	check_lossy("plain", 5, "plain", 5);
	check_lossy("", 0, "", 0);
	/* valid multi-byte sequences are kept */
	check_lossy("h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", 12, "h\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", 12);
	/* a lone byte 0xff */
	check_lossy("a\xFF" "b", 3, "a" FFFD "b", 5);
	/* a truncated sequence at the end */
	check_lossy("ab\xE2\x82", 4, "ab" FFFD FFFD, 8);
	/* a stray continuation byte */
	check_lossy("\x80x", 2, FFFD "x", 4);
	/* overlong encoding of '/' */
	check_lossy("\xC0\xAF", 2, FFFD FFFD, 6);
	/* UTF-16 surrogate encoded in UTF-8 */
	check_lossy("\xED\xA0\x80", 3, FFFD FFFD FFFD, 9);
	/* beyond U+10FFFF */
	check_lossy("\xF4\x90\x80\x80", 4, FFFD FFFD FFFD FFFD, 12);
	/* NUL bytes become U+FFFD too */
	check_lossy("a\0b", 3, "a" FFFD "b", 5);
	check_lossy("\0", 1, FFFD, 3);
	/* latin-1 text */
	check_lossy("caf\xE9", 4, "caf" FFFD, 6);
}

static void test_json_lossy_dump_valid(void **state)
{
	(void)state;
	char garbage[256];
	for (int i = 0; i < 256; i++)
		garbage[i] = (char)(255 - i);
	json_t *j = json_strn_lossy(garbage, sizeof(garbage));
	char *s = dump_string(j);
	/* the dump parses back */
	json_error_t err;
	json_t *back = json_loads(s, JSON_DECODE_ANY, &err);
	assert_non_null(back);
	assert_true(json_equal(back, j));
	json_decref(back);
	free(s);
	json_decref(j);

	j = json_str_lossy(NULL);
	assert_string_equal(json_string_value(j), "");
	json_decref(j);
	j = json_str_lossy("x\xFFy");
	assert_string_equal(json_string_value(j), "x" FFFD "y");
	json_decref(j);
}

static void test_json_set(void **state)
{
	(void)state;
	json_t *o = json_object();
	json_set(o, "a", json_integer(1));
	json_set(o, "b", NULL);
	assert_int_equal(json_object_size(o), 1);
	assert_int_equal(json_integer_value(json_object_get(o, "a")), 1);
	assert_null(json_object_get(o, "b"));
	json_decref(o);
}

/* ---- gpusel: --gpus as CUDA_VISIBLE_DEVICES writes it ---- */

static void test_gpusel_forms(void **state)
{
	(void)state;
	struct gpusel s;
	char err[128];
	const char *uuid = "GPU-5f1c2a3b-0000-1111-2222-333344445555";
	/* the same GPU by index range, UUID (prefix, any case) and bus id in three spellings */
	const char *forms[] = { "0-2", "1", "gpu-5F1C2A3B", uuid, "0000:18:00.0", "18:00.0", "00000000:18:00.0", "18:00" };
	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		assert_int_equal(gpusel_parse(forms[i], &s, err, sizeof(err)), 0);
		assert_false(gpusel_all(&s));
		assert_true(gpusel_match(&s, 1, uuid, "0000:18:00.0"));
		assert_true(gpusel_match(&s, 1, uuid, "00000000:18:00.0"));
	}
	assert_int_equal(gpusel_parse("0-2,5", &s, err, sizeof(err)), 0);
	assert_int_equal(s.n, 2);
	assert_true(gpusel_match(&s, 0, NULL, NULL));
	assert_true(gpusel_match(&s, 2, NULL, NULL));
	assert_false(gpusel_match(&s, 3, NULL, NULL));
	assert_true(gpusel_match(&s, 5, NULL, NULL));
	assert_int_equal(gpusel_parse("0000:3b:00.0", &s, err, sizeof(err)), 0);
	assert_false(gpusel_match(&s, 0, NULL, "0000:18:00.0"));
	assert_false(gpusel_match(&s, 0, uuid, NULL));
	assert_true(gpusel_match(&s, 7, NULL, "0000:3B:00.0"));
	assert_int_equal(gpusel_parse("GPU-0000", &s, err, sizeof(err)), 0);
	assert_false(gpusel_match(&s, 1, uuid, NULL));
	/* no --gpus: everything */
	assert_int_equal(gpusel_parse(NULL, &s, err, sizeof(err)), 0);
	assert_true(gpusel_all(&s));
	assert_true(gpusel_match(&s, 9, NULL, NULL));
}

static void test_gpusel_bad(void **state)
{
	(void)state;
	struct gpusel s;
	char err[128];
	const char *bad[] = { "abc", "", ",", "0,", ",0", "3-1", "-1", "1-", "0,,1", "GPU-", "GPU-xyz!",
			      "0000:zz:00.0", "18:00.9", "18:40.0", "1.5", "99999", "0 1" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(gpusel_parse(bad[i], &s, err, sizeof(err)), -EINVAL);
		assert_true(err[0] != '\0');
	}
	assert_int_equal(gpusel_parse("3-1", &s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "backwards"));
}

static void test_xsnprintf(void **state)
{
	(void)state;
	char b[8];
	assert_int_equal(xsnprintf(b, sizeof(b), "%s/%d", "ab", 12), 5);
	assert_string_equal(b, "ab/12");
	assert_int_equal(xsnprintf(b, sizeof(b), "%s", "1234567"), 7);
	assert_string_equal(b, "1234567");
	/* one byte too long: an error and an empty buffer, never a cut path */
	assert_int_equal(xsnprintf(b, sizeof(b), "%s", "12345678"), -ENAMETOOLONG);
	assert_string_equal(b, "");
	assert_int_equal(xsnprintf(b, 0, "%s", "x"), -ENAMETOOLONG);
}

/* xgrow's cap: growth past XGROW_MAX_BYTES exits 3 with a message, in a
 * child; growth up to it works. */
static void test_str_appendf(void **state)
{
	(void)state;
	char b[16] = "";
	size_t len = 0;
	assert_int_equal(str_appendf(b, sizeof(b), &len, "%s", "dmar0"), 0);
	assert_int_equal(str_appendf(b, sizeof(b), &len, " %s", "dmar1"), 0);
	assert_string_equal(b, "dmar0 dmar1");
	assert_int_equal(len, 11);
	/* "dmar0 dmar1 dmar2" does not fit in 15 bytes: marked, not cut */
	assert_int_equal(str_appendf(b, sizeof(b), &len, " %s", "dmar2"), -ENOSPC);
	assert_string_equal(b, "dmar0 dmar1 ...");
	/* a later item that would fit is not added after the mark */
	assert_int_equal(str_appendf(b, sizeof(b), &len, "%s", "x"), -ENOSPC);
	assert_string_equal(b, "dmar0 dmar1 ...");
	/* no room for the mark after the text: it replaces the end */
	char c[8] = "";
	len = 0;
	assert_int_equal(str_appendf(c, sizeof(c), &len, "%s", "abcdef"), 0);
	assert_int_equal(str_appendf(c, sizeof(c), &len, "%s", "gh"), -ENOSPC);
	assert_string_equal(c, "abc ...");
	/* a whole message, or a visibly cut one */
	char m[12];
	assert_int_equal(str_setf(m, sizeof(m), "cannot %s", "load"), 0);
	assert_string_equal(m, "cannot load");
	assert_int_equal(str_setf(m, sizeof(m), "cannot load '%s'", "/x/libnccl.so.2"), -ENOSPC);
	assert_string_equal(m, "cannot  ...");
}

static void test_str_visible(void **state)
{
	(void)state;
	char b[64];
	/* plain text, TAB and UTF-8 print as they are */
	assert_true(str_is_visible("GPU 0: H200 \xC3\x9C\xE2\x80\xA6\xF0\x9F\x98\x80\tx", 0));
	assert_string_equal(str_shown("plain", b, sizeof(b), 0), "plain");
	/* C0 controls, DEL, the C1 controls as UTF-8, stray bytes: shown */
	assert_int_equal(str_visible(b, sizeof(b), "a\x1b[31mred\x07\x7f", 0), strlen("a\\x1b[31mred\\x07\\x7f"));
	assert_string_equal(b, "a\\x1b[31mred\\x07\\x7f");
	str_visible(b, sizeof(b), "\xC2\x9B" "2J\xC2\x85|\xC2\xA0", 0); /* CSI, NEL, then NBSP (printable) */
	assert_string_equal(b, "\\u009b2J\\u0085|\xC2\xA0");
	str_visible(b, sizeof(b), "\x9b" "1m\xff\xC3(\xED\xA0\x80\xE2\x82", 0); /* raw C1, bad bytes, surrogate, cut */
	assert_string_equal(b, "\\x9b1m\\xff\\xc3(\\xed\\xa0\\x80\\xe2\\x82");
	assert_false(str_is_visible("\x9b", 0));
	assert_false(str_is_visible("\xC0\x80", 0)); /* overlong NUL */
	/* newlines: shown, or kept on request; CR always shown */
	str_visible(b, sizeof(b), "l1\nl2\r", 0);
	assert_string_equal(b, "l1\\x0al2\\x0d");
	assert_true(str_is_visible("l1\nl2", STR_VIS_NEWLINE));
	str_visible(b, sizeof(b), "l1\nl2\r", STR_VIS_NEWLINE);
	assert_string_equal(b, "l1\nl2\\x0d");
	/* cut between whole pieces, never inside an escape or a character */
	char s[8];
	assert_int_equal(str_visible(s, sizeof(s), "ab\x1b\x1b", 0), 10);
	assert_string_equal(s, "ab\\x1b");
	assert_int_equal(str_visible(s, 4, "a\xC3\x9C\xC3\x9C", 0), 5);
	assert_string_equal(s, "a\xC3\x9C");
	assert_string_equal(str_shown("\x1b\x1b\x1b", s, sizeof(s), 0), "\\x1b...");
	assert_string_equal(str_shown("x\x1by", s, sizeof(s), 0), "x\\x1by");
	assert_int_equal(str_visible(NULL, 0, "\x01", 0), 4);
}

static void test_xgrow_cap(void **state)
{
	(void)state;
	int *v = NULL;
	size_t alloc = 0;
	XGROW(v, alloc, 1000);
	assert_true(alloc >= 1000);
	assert_int_equal(v[999], 0);
	free(v);
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 2);
		char *big = NULL;
		size_t a2 = 0;
		xgrow((void **)&big, &a2, XGROW_MAX_BYTES + 1, 1);
		_exit(0);
	}
	close(fds[1]);
	char msg[200] = "";
	ssize_t n = read(fds[0], msg, sizeof(msg) - 1);
	close(fds[0]);
	int status;
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 3);
	assert_true(n > 0);
	assert_non_null(strstr(msg, "internal limit"));
}

static void test_launcher_prefix(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		size_t skip;
	} cases[] = {
		{ "[rank0]: Failed to CUDA calloc async 136 bytes", 9 },
		{ "  [default3]:[rank3]: Traceback (most recent call last):", 22 },
		{ "Failed to CUDA calloc", 0 },
		{ "   text", 3 },
		{ "[../gloo/unbound_buffer.cc:78] Timed out", 0 }, /* a bracket without ':' after it */
		{ "[rank0]", 0 },
		{ "", 0 },
	};
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
		assert_int_equal(str_launcher_prefix_len(cases[k].line, strlen(cases[k].line)), cases[k].skip);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xsnprintf),
		cmocka_unit_test(test_str_visible),
		cmocka_unit_test(test_xgrow_cap),
		cmocka_unit_test(test_str_appendf),
		cmocka_unit_test(test_strbuf_basic),
		cmocka_unit_test(test_strbuf_grow_many),
		cmocka_unit_test(test_strbuf_cap),
		cmocka_unit_test(test_strbuf_detach),
		cmocka_unit_test(test_strbuf_binary),
		cmocka_unit_test(test_parse_ll),
		cmocka_unit_test(test_parse_ull),
		cmocka_unit_test(test_parse_double),
		cmocka_unit_test(test_str_trim),
		cmocka_unit_test(test_str_misc),
		cmocka_unit_test(test_fmt_bytes),
		cmocka_unit_test(test_parse_size),
		cmocka_unit_test(test_cpulist_count),
		cmocka_unit_test(test_text_next_line),
		cmocka_unit_test(test_lr_basic),
		cmocka_unit_test(test_lr_empty),
		cmocka_unit_test(test_lr_nul_bytes),
		cmocka_unit_test(test_lr_truncated),
		cmocka_unit_test(test_lr_crlf_at_max),
		cmocka_unit_test(test_lr_exact_max_at_eof),
		cmocka_unit_test(test_lr_pipe_small_chunks),
		cmocka_unit_test(test_lr_pipe_one_byte),
		cmocka_unit_test(test_lr_10mb_line_pipe),
		cmocka_unit_test(test_lr_many_lines_across_chunks),
		cmocka_unit_test(test_lr_read_error),
		cmocka_unit_test(test_json_lossy),
		cmocka_unit_test(test_json_lossy_dump_valid),
		cmocka_unit_test(test_json_set),
		cmocka_unit_test(test_gpusel_forms),
		cmocka_unit_test(test_gpusel_bad),
		cmocka_unit_test(test_launcher_prefix),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
