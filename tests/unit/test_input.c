/* Unit tests of util/input: the one binary rule (text, UTF-8, ANSI colour,
 * NULs inside and at the end, random bytes, compressed magic), opening
 * (directories, character devices, /dev/null, sparse files) and the stream
 * deadline (a FIFO with no writer ends with -ETIMEDOUT in time). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "util/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void test_classify(void **state)
{
	(void)state;
	static const char text[] = "host:1:2 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n";
	assert_int_equal(input_classify(text, sizeof(text) - 1), 0);
	static const char utf8[] = "rank 0 — “done” ✓ \x1b[31mred\x1b[0m\tx\r\n";
	assert_int_equal(input_classify(utf8, sizeof(utf8) - 1), 0);
	assert_int_equal(input_classify("", 0), 0);
	assert_int_equal(input_classify("\x1f\x8b\x08\x00\x00\x00\x00\x00", 8), -EPROTONOSUPPORT);
	assert_int_equal(input_classify("\x28\xb5\x2f\xfd\x00\x00", 6), -EPROTONOSUPPORT);
	assert_int_equal(input_classify("BZh91AY&SY", 10), -EPROTONOSUPPORT);
	assert_int_equal(input_classify("BZh is not bzip2\n", 17), 0);

	char *buf = calloc(1, 65536);
	assert_int_equal(input_classify(buf, 65536), -EBADMSG); /* only NULs */
	assert_int_equal(input_classify(buf, 3), -EBADMSG);
	/* text then NULs to the end: a crashed node's log */
	memcpy(buf, text, sizeof(text) - 1);
	assert_int_equal(input_classify(buf, 65536), 0);
	/* NULs between text: counted */
	for (size_t i = 0; i < 65536; i++)
		buf[i] = i % 5 == 0 ? '\0' : 'a';
	assert_int_equal(input_classify(buf, 65536), -EBADMSG);
	/* a few odd bytes in a big text are fine, many are not */
	for (size_t i = 0; i < 65536; i++)
		buf[i] = i % 64 == 63 ? '\n' : i % 50 == 0 ? '\x01' : 'b';
	assert_int_equal(input_classify(buf, 65536), 0);
	for (size_t i = 0; i < 65536; i++)
		buf[i] = i % 4 == 0 ? '\xff' : 'c';
	assert_int_equal(input_classify(buf, 65536), -EBADMSG);
	srand(7);
	for (size_t i = 0; i < 65536; i++)
		buf[i] = (char)(rand() & 0xff);
	buf[0] = 'x';
	assert_int_equal(input_classify(buf, 65536), -EBADMSG);
	free(buf);
}

static void test_open_kinds(void **state)
{
	(void)state;
	struct input in;
	assert_int_equal(input_open(&in, "/", "logs", 1, 0), -EISDIR);
	assert_string_equal(input_error_text(&in, in.err), "cannot read '/': is a directory");
	assert_int_equal(input_open(&in, "/nonexistent/x", "logs", 1, 0), -ENOENT);
	assert_true(input_open(&in, "/dev/zero", "logs", 1, 0) < 0);
	assert_non_null(strstr(input_error_text(&in, in.err), "a character device (1:5), not a log"));
	assert_int_equal(input_open(&in, "/dev/null", "kernel", 1, 0), 0);
	assert_int_equal(in.kind, INPUT_EMPTY);
	char b[16];
	assert_int_equal(input_read(&in, b, sizeof(b)), 0);
	input_close(&in);

	char path[] = "/tmp/nd-input.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 64 << 20), 0); /* 64 MiB of hole */
	close(fd);
	assert_int_equal(input_open(&in, path, "kernel", 1, 0), -EBADMSG);
	assert_non_null(strstr(input_error_text(&in, in.err), "a sparse file (64 MiB long"));
	/* a small text file is read whole */
	FILE *f = fopen(path, "w");
	fputs("one\ntwo\n", f);
	fclose(f);
	assert_int_equal(input_open(&in, path, "logs", 1, 0), 0);
	assert_int_equal(in.kind, INPUT_REGULAR);
	struct linereader lr;
	input_linereader(&in, &lr, 1024);
	char *line;
	size_t len;
	int n = 0;
	while (linereader_next(&lr, &line, &len) > 0)
		n++;
	assert_int_equal(n, 2);
	linereader_release(&lr);
	input_close(&in);
	unlink(path);

	double v;
	assert_int_equal(input_parse_timeout("2.5", &v), 0);
	assert_true(v == 2.5);
	assert_int_equal(input_parse_timeout("0", &v), 0);
	assert_int_equal(input_parse_timeout("nan", &v), -EINVAL);
	assert_int_equal(input_parse_timeout("inf", &v), -EINVAL);
	assert_int_equal(input_parse_timeout("-1", &v), -EINVAL);
	assert_int_equal(input_parse_timeout("86401", &v), -EINVAL);
}

static void test_fifo_deadline(void **state)
{
	(void)state;
	char dir[] = "/tmp/nd-input-fifo.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char path[128];
	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct input in;
	assert_int_equal(input_open(&in, path, "logs", 0.3, 0), 0); /* the open does not block */
	assert_int_equal(in.kind, INPUT_STREAM);
	char b[64];
	assert_int_equal(input_read(&in, b, sizeof(b)), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	assert_true(took >= 0.25 && took < 2.0);
	char want[256];
	snprintf(want, sizeof(want), "no data from '%s' in 0.3 s", path);
	assert_non_null(strstr(input_error_text(&in, in.err), want));
	assert_int_equal(input_read(&in, b, sizeof(b)), -ETIMEDOUT); /* sticky */
	input_close(&in);
	unlink(path);
	rmdir(dir);
}

/* Random buffers of every length up to 8 KiB: a verdict and no crash;
 * printable ASCII is always text. */
static void test_classify_random(void **state)
{
	(void)state;
	srand(5);
	unsigned char buf[8192];
	for (int iter = 0; iter < 3000; iter++) {
		size_t n = (size_t)(rand() % (int)sizeof(buf));
		int mode = rand() % 3;
		for (size_t i = 0; i < n; i++)
			buf[i] = mode == 0 ? (unsigned char)(rand() & 0xff) : mode == 1 ? (unsigned char)(' ' + rand() % 95)
											 : (unsigned char)(rand() % 4 ? 'a' : 0);
		int v = input_classify(buf, n);
		assert_true(v == 0 || v == -EBADMSG || v == -EPROTONOSUPPORT);
		if (mode == 1 && n > 0)
			assert_int_equal(v, 0); /* printable ASCII is text */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_classify_random),
		cmocka_unit_test(test_open_kinds),
		cmocka_unit_test(test_fifo_deadline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
