/* Unit tests of the line reader's mmap mode (util/linereader.h,
 * linereader_map): the same lines, flags, line numbers and byte counts as
 * the read() mode on random files (lines across window ends, CRLF, NUL and
 * ESC bytes, lines over the maximum, no final newline, a start offset); a
 * file truncated while mapped (no SIGBUS: what is there is read) and a
 * file that grows while read; and the NCCL log model fed spans: every
 * fixture line placed just before an unreadable page (a read past line[len]
 * would fault) analyses as the NUL-terminated lines do. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/nccllog.h"
#include "report/report.h"
#include "logsjson.h"
#include "util/linereader.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int tmp_file(char *path, const char *data, size_t n)
{
	strcpy(path, "/tmp/nd-lrmap.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

struct got {
	char *text;          /* lines, each followed by its flags */
	size_t n, alloc;
	uint64_t lines, bytes, cut;
};

static void got_add(struct got *g, const char *s, size_t n, const struct linereader *lr)
{
	if (g->n + n + 8 > g->alloc) {
		g->alloc = (g->n + n + 8) * 2;
		g->text = realloc(g->text, g->alloc);
		assert_non_null(g->text);
	}
	memcpy(g->text + g->n, s, n);
	g->n += n;
	g->text[g->n++] = '|';
	g->text[g->n++] = lr->truncated ? 'T' : '-';
	g->text[g->n++] = lr->no_newline ? 'E' : '-';
	g->text[g->n++] = '\n';
}

static void read_all(int fd, off_t off, size_t max, size_t window, struct got *g)
{
	memset(g, 0, sizeof(*g));
	assert_int_equal(lseek(fd, off, SEEK_SET), off);
	struct linereader lr;
	linereader_init(&lr, fd, max);
	if (window) {
		struct stat st;
		assert_int_equal(fstat(fd, &st), 0);
		/* an empty file stays on read() */
		assert_int_equal(linereader_map(&lr, (uint64_t)off, window), st.st_size ? 0 : -ENODATA);
	}
	const char *line;
	size_t len;
	int r;
	while ((r = linereader_next_span(&lr, &line, &len)) > 0) {
		if (lr.span) {
			/* a span: not a copy; its end is its newline or CR */
			assert_true(line[len] == '\n' || line[len] == '\r');
			assert_false(lr.may_ctrl);
		} else {
			assert_int_equal(line[len], '\0');
		}
		if (!lr.may_ctrl)
			assert_true(memchr(line, '\0', len) == NULL && memchr(line, 0x1b, len) == NULL);
		got_add(g, line, len, &lr);
	}
	assert_int_equal(r, 0);
	g->lines = lr.lineno;
	g->bytes = lr.bytes;
	g->cut = lr.truncated_lines;
	linereader_release(&lr);
}

/* The mmap mode reads what read() reads, whatever the windows cut. */
static void test_same_as_read(void **state)
{
	(void)state;
	unsigned seed = 11;
	for (int iter = 0; iter < 120; iter++) {
		size_t n = iter == 0 ? 0 : iter < 4 ? (size_t)iter : (size_t)(rand_r(&seed) % 60000);
		if (iter % 10 == 9)
			n = 8192 * (size_t)(1 + iter % 3) + (size_t)(iter % 4) - 1; /* around page ends */
		char *d = malloc(n + 1);
		int longish = rand_r(&seed) % 3;
		for (size_t i = 0; i < n; i++) {
			int r = rand_r(&seed) % (longish ? 4000 : 1000);
			d[i] = r < 25 ? '\n' : r < 26 ? '\0' : r < 27 ? 0x1b : r < 30 ? '\r' : (char)('a' + r % 26);
		}
		if (n && iter % 2)
			d[n - 1] = '\n';
		char path[64];
		int fd = tmp_file(path, d, n);
		size_t max = 256 + (size_t)(rand_r(&seed) % 3000);
		size_t window = iter % 4 == 0 ? 1 : 8192 + (size_t)(rand_r(&seed) % 20000);
		off_t off = iter % 5 == 3 && n > 10 ? 7 : 0;
		struct got a, b;
		read_all(fd, off, max, 0, &a);
		read_all(fd, off, max, window, &b);
		assert_int_equal(a.lines, b.lines);
		assert_int_equal(a.bytes, b.bytes);
		assert_int_equal(a.cut, b.cut);
		assert_int_equal(a.n, b.n);
		assert_memory_equal(a.text, b.text, a.n);
		free(a.text);
		free(b.text);
		close(fd);
		unlink(path);
		free(d);
	}
}

/* The named cases: a line across the end of a window, a file of exactly
 * two pages whose last line has no newline (its last byte is the last
 * byte mapped), a CRLF line whose CR ends a window, an over-long line
 * that spans three windows. */
static void test_window_edges(void **state)
{
	(void)state;
	enum { PG2 = 8192 };
	char *d = malloc(4 * PG2);
	struct {
		size_t size;
		size_t cut[4]; /* newline positions */
		size_t ncut;
	} cases[] = {
		{ 3 * PG2, { 100, PG2 - 50, PG2 + 300, 3 * PG2 - 1 }, 4 }, /* line 2 crosses the first window's end */
		{ PG2, { 10, 7500 }, 2 },                                  /* no newline at the end of a page-sized file */
		{ 2 * PG2, { PG2 - 1, 2 * PG2 - 1 }, 2 },                  /* CRLF: the CR at PG2 - 2 */
		{ 4 * PG2, { 5, 4 * PG2 - 2 }, 2 },                        /* one line over max across windows */
	};
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		size_t n = cases[c].size;
		for (size_t i = 0; i < n; i++)
			d[i] = (char)('a' + i % 26);
		for (size_t k = 0; k < cases[c].ncut; k++)
			d[cases[c].cut[k]] = '\n';
		if (c == 2)
			d[PG2 - 2] = '\r';
		char path[64];
		int fd = tmp_file(path, d, n);
		struct got a, b;
		read_all(fd, 0, 1000, 0, &a);
		read_all(fd, 0, 1000, PG2, &b);
		assert_int_equal(a.lines, b.lines);
		assert_int_equal(a.bytes, b.bytes);
		assert_int_equal(a.bytes, n);
		assert_int_equal(a.cut, b.cut);
		assert_int_equal(a.n, b.n);
		assert_memory_equal(a.text, b.text, a.n);
		if (c == 1)
			assert_int_equal(b.text[b.n - 2], 'E'); /* the last line: no newline */
		if (c == 3)
			assert_int_equal(b.cut, 1);
		free(a.text);
		free(b.text);
		close(fd);
		unlink(path);
	}
	free(d);
}

static char *numbered_lines(int from, int count, size_t *n)
{
	char *d = malloc((size_t)count * 64 + 1);
	size_t k = 0;
	for (int i = from; i < from + count; i++)
		k += (size_t)snprintf(d + k, 65, "line %08d of a log that is cut while it is being read .....\n", i);
	*n = k;
	return d;
}

/* Truncated while mapped: no SIGBUS, the lines that are left are read. */
static void test_truncated(void **state)
{
	(void)state;
	for (int round = 0; round < 2; round++) {
		size_t n;
		char *d = numbered_lines(0, 40000, &n); /* 64 bytes each, 2.5 MB */
		char path[64];
		int fd = tmp_file(path, d, n);
		struct linereader lr;
		linereader_init(&lr, fd, 4096);
		assert_int_equal(linereader_map(&lr, 0, 1 << 20), 0);
		const char *line;
		size_t len;
		int before = round == 0 ? 10 : 20000; /* in the first window, or in a later one */
		for (int i = 0; i < before; i++)
			assert_int_equal(linereader_next_span(&lr, &line, &len), 1);
		/* cut in the middle of line 15 (round 0), or before what was read */
		off_t cut = round == 0 ? 15 * 64 + 30 : 100 * 64;
		assert_int_equal(ftruncate(fd, cut), 0);
		int more = 0, r;
		bool last_no_nl = false;
		while ((r = linereader_next_span(&lr, &line, &len)) > 0) {
			assert_true(len == 63 || lr.no_newline);
			assert_memory_equal(line, "line ", 5);
			last_no_nl = lr.no_newline;
			more++;
		}
		assert_int_equal(r, 0);
		if (round == 0) {
			assert_int_equal(more, 6); /* lines 10 .. 14 and the 30 bytes of 15 */
			assert_true(last_no_nl);
		} else {
			assert_true(more <= 1);
		}
		linereader_release(&lr);
		close(fd);
		unlink(path);
		free(d);
	}
}

/* A file that grows while it is read is read on. */
static void test_grows(void **state)
{
	(void)state;
	size_t n, n2;
	char *d = numbered_lines(0, 100, &n), *more = numbered_lines(100, 20000, &n2);
	char path[64];
	int fd = tmp_file(path, d, n);
	struct linereader lr;
	linereader_init(&lr, fd, 4096);
	assert_int_equal(linereader_map(&lr, 0, 1 << 16), 0);
	const char *line;
	size_t len;
	for (int i = 0; i < 50; i++)
		assert_int_equal(linereader_next_span(&lr, &line, &len), 1);
	assert_int_equal(pwrite(fd, more, n2, (off_t)n), (ssize_t)n2);
	int count = 50;
	while (linereader_next_span(&lr, &line, &len) > 0) {
		char want[16];
		snprintf(want, sizeof(want), "line %08d", count);
		assert_memory_equal(line, want, 13);
		count++;
	}
	assert_int_equal(count, 20100);
	assert_int_equal(lr.bytes, n + n2);
	linereader_release(&lr);
	/* an empty file (or a /proc file, size 0) stays on read() */
	int z = open("/proc/self/status", O_RDONLY);
	assert_true(z >= 0);
	linereader_init(&lr, z, 4096);
	assert_true(linereader_map(&lr, 0, 0) < 0);
	int nz = 0;
	while (linereader_next_span(&lr, &line, &len) > 0)
		nz++;
	assert_true(nz > 5); /* read() reads what its size does not tell */
	linereader_release(&lr);
	close(z);
	/* and a pipe is not mapped */
	int p[2];
	assert_int_equal(pipe(p), 0);
	linereader_init(&lr, p[0], 4096);
	assert_true(linereader_map(&lr, 0, 0) < 0);
	linereader_release(&lr);
	close(p[0]);
	close(p[1]);
	close(fd);
	unlink(path);
	free(d);
	free(more);
}

/* ---- the model fed spans ---- */

/* Two pages: a line is copied to the end of the first, its newline last,
 * the second cannot be read. */
static char *guard;
static size_t guard_pg;

static const char *at_guard(const char *s, size_t n, char end)
{
	char *p = guard + guard_pg - n - 1;
	memcpy(p, s, n);
	p[n] = end;
	return p;
}

/* mode 0: NUL-terminated lines (read()); 1: spans of the mapping; 2: the
 * spans moved before the unreadable page */
static void read_model(struct nccllog *lg, const char *path, int mode)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	int f = nccllog_begin_file(lg, path);
	struct linereader lr;
	linereader_init(&lr, fd, 65536);
	if (mode)
		assert_int_equal(linereader_map(&lr, 0, 8192), 0);
	const char *line;
	size_t len;
	while (linereader_next_span(&lr, &line, &len) > 0) {
		if (lr.may_ctrl) {
			nccllog_feed(lg, f, (char *)line, len, lr.lineno);
			continue;
		}
		if (mode == 2 && len + 1 < guard_pg)
			line = at_guard(line, len, lr.span ? line[len] : '\n');
		nccllog_feed_plain(lg, f, line, len, lr.lineno);
	}
	nccllog_end_file(lg, f, lr.lineno, lr.bytes, lr.truncated_lines, lr.no_newline);
	linereader_release(&lr);
	close(fd);
}

static int nfiles;

static void check_file(const char *path)
{
	struct nccllog a, b, c;
	nccllog_init(&a);
	nccllog_init(&b);
	nccllog_init(&c);
	read_model(&a, path, 0);
	read_model(&b, path, 1);
	read_model(&c, path, 2);
	char *ja = analysis_json(&a), *jb = analysis_json(&b), *jc = analysis_json(&c);
	assert_string_equal(jb, ja);
	assert_string_equal(jc, ja);
	free(ja);
	free(jb);
	free(jc);
	nccllog_release(&a);
	nccllog_release(&b);
	nccllog_release(&c);
	nfiles++;
}

static void walk(const char *dir)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[1024];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct stat st;
		assert_int_equal(stat(path, &st), 0);
		if (S_ISDIR(st.st_mode))
			walk(path);
		else if (S_ISREG(st.st_mode) && st.st_size > 0)
			check_file(path);
	}
	closedir(d);
}

static void test_model_spans(void **state)
{
	(void)state;
	guard_pg = (size_t)sysconf(_SC_PAGESIZE) * 16;
	guard = mmap(NULL, guard_pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(guard != MAP_FAILED);
	assert_int_equal(mprotect(guard + guard_pg, guard_pg, PROT_NONE), 0);
	walk(ND_FIXTURES "/logs");
	assert_true(nfiles > 100);
	munmap(guard, guard_pg * 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_as_read),
		cmocka_unit_test(test_window_edges),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_grows),
		cmocka_unit_test(test_model_spans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
