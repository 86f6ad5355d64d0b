/* Unit tests of the fast paths of the NCCL log reader: the line reader's
 * may_ctrl flag (set by its newline search, AVX2 or portable) against a
 * reference on random data, nccllog_feed_plain() against nccllog_feed() on
 * the fixtures, and the header cache (analyze/logs/read/parse.c) under eviction:
 * every line is attributed to the process nccllog_parse_line() names;
 * nccllog_reset(): a reused model analyses like a fresh one, also after
 * the other inputs (Inspector dumps, flight recorder) filled it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/nccllog.h"
#include "report/report.h"
#include "logsjson.h"
#include "util/linereader.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int tmp_fd(const char *data, size_t n)
{
	char path[] = "/tmp/nd-fast.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	unlink(path);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static bool has_ctrl(const char *s, size_t n)
{
	return memchr(s, '\0', n) || memchr(s, 0x1b, n);
}

/* Lines and may_ctrl on random text with newlines, NULs, ESCs, CRs, tabs. */
static void test_may_ctrl(void **state)
{
	(void)state;
	unsigned seed = 7;
	long nctrl = 0, nplain = 0;
	for (int iter = 0; iter < 400; iter++) {
		size_t n = (size_t)(rand_r(&seed) % 4000);
		char *d = malloc(n + 1);
		for (size_t i = 0; i < n; i++) {
			int r = rand_r(&seed) % 1000;
			d[i] = r < 30 ? '\n' : r < 32 ? '\0' : r < 34 ? 0x1b : r < 38 ? '\r' : r < 42 ? '\t' : (char)('a' + r % 26);
			if (iter % 3 == 1 && (d[i] == '\0' || d[i] == 0x1b))
				d[i] = 'x';
		}
		int fd = tmp_fd(d, n);
		size_t max = 16 + (size_t)(rand_r(&seed) % 300);
		struct linereader lr;
		linereader_init(&lr, fd, max);
		char *line;
		size_t len, pos = 0;
		while (linereader_next(&lr, &line, &len) > 0) {
			const char *nl = memchr(d + pos, '\n', n - pos);
			size_t full = nl ? (size_t)(nl - (d + pos)) : n - pos;
			size_t keep = full > max ? max : full;
			size_t want = keep && d[pos + keep - 1] == '\r' ? keep - 1 : keep;
			assert_int_equal(len, want);
			assert_memory_equal(line, d + pos, len);
			if (has_ctrl(d + pos, keep)) {
				assert_true(lr.may_ctrl);
				nctrl++;
			}
			if (!has_ctrl(d + pos, full)) {
				assert_false(lr.may_ctrl);
				nplain++;
			}
			pos += nl ? full + 1 : full;
		}
		assert_int_equal(pos, n);
		linereader_release(&lr);
		close(fd);
		free(d);
	}
	assert_true(nctrl > 100 && nplain > 1000);
}

static void read_model(struct nccllog *lg, const char *path, bool plain)
{
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	int f = nccllog_begin_file(lg, path);
	struct linereader lr;
	linereader_init(&lr, fd, 65536);
	char *line;
	size_t len;
	while (linereader_next(&lr, &line, &len) > 0) {
		if (plain && !lr.may_ctrl)
			nccllog_feed_plain(lg, f, line, len, lr.lineno);
		else
			nccllog_feed(lg, f, line, len, lr.lineno);
	}
	nccllog_end_file(lg, f, lr.lineno, lr.bytes, lr.truncated_lines, lr.no_newline);
	linereader_release(&lr);
	close(fd);
}

/* nccllog_feed_plain() on the lines without NUL/ESC builds the same model. */
static void test_feed_plain(void **state)
{
	(void)state;
	static const char *files[] = {
		"logs/real-h200/torch-1rank-subsys-all.log", "logs/real-h200/torch-missing-peer-timeout.log",
		"logs/constructed/vllm-tp2-pcie-hang-ctrl-c.log", "logs/constructed/ib-retry-exceeded-2node.log",
		"logs/constructed/xid-fallen-off-bus-2.26.log",
	};
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/%s", ND_FIXTURES, files[i]);
		struct nccllog a, b;
		nccllog_init(&a);
		nccllog_init(&b);
		read_model(&a, path, false);
		read_model(&b, path, true);
		assert_int_equal(a.nprocs, b.nprocs);
		assert_int_equal(a.nev, b.nev);
		assert_memory_equal(a.sigcount, b.sigcount, sizeof(a.sigcount));
		assert_int_equal(a.files[0].nccl_lines, b.files[0].nccl_lines);
		for (int p = 0; p < a.nprocs; p++) {
			assert_string_equal(a.procs[p].host, b.procs[p].host);
			assert_int_equal(a.procs[p].pid, b.procs[p].pid);
			assert_int_equal(a.procs[p].nlines, b.procs[p].nlines);
			assert_int_equal(nl_proc_stage(&a.procs[p]), nl_proc_stage(&b.procs[p]));
			assert_string_equal(a.procs[p].last_text, b.procs[p].last_text);
		}
		for (size_t e = 0; e < a.nev; e++)
			assert_string_equal(a.ev[e].text, b.ev[e].text);
		nccllog_release(&a);
		nccllog_release(&b);
	}
}

/* 400 headers (hosts x pids x tids, some after a launcher prefix or a
 * timestamp) in random order, more than the header cache holds: each
 * process gets exactly the lines whose header names it. */
static void test_header_cache(void **state)
{
	(void)state;
	enum { NH = 400, NL = 20000 };
	static char hdr[NH][96];
	for (int i = 0; i < NH; i++)
		snprintf(hdr[i], sizeof(hdr[i]), "%snode%02d.example:%d:%d [%d] NCCL %s",
			 i % 7 == 0 ? "[rank3]: " : i % 11 == 0 ? "[2025-01-02 03:04:05] " : "", i % 10, 1000 + i % 40,
			 2000 + i / 40, i % 8, i % 13 == 0 ? "WARN" : "INFO");
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "mem");
	unsigned seed = 3;
	static long want[10][40];
	memset(want, 0, sizeof(want));
	for (int k = 0; k < NL; k++) {
		int i = (int)(rand_r(&seed) % NH);
		char line[256];
		size_t len = (size_t)snprintf(line, sizeof(line), "%s %s", hdr[i],
					      k % 3 ? "AllReduce: opCount 1 sendbuff 0x1 recvbuff 0x2 count 4"
						    : "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC");
		struct nl_line pl;
		assert_int_equal(nccllog_parse_line(line, len, &pl), 1);
		assert_int_equal(pl.pid, 1000 + i % 40);
		assert_int_equal(pl.tid, 2000 + i / 40);
		want[i % 10][i % 40]++;
		nccllog_feed_plain(&lg, f, line, len, (uint64_t)k + 1);
	}
	int seen = 0;
	for (int p = 0; p < lg.nprocs; p++) {
		int h = lg.procs[p].host[5] - '0', q = (int)lg.procs[p].pid - 1000;
		assert_true(h >= 0 && h < 10 && q >= 0 && q < 40);
		assert_int_equal(lg.procs[p].nlines, want[h][q]);
		seen++;
	}
	assert_int_equal(seen, 40); /* i % 10 is fixed by i % 40 */
	nccllog_release(&lg);
}

/* One model, reset between the fixtures (each read after all the others, so
 * that processes, events, the header cache and the watchdog table of the
 * previous ones were filled), analyses every fixture as a fresh model does. */
static void test_reset(void **state)
{
	(void)state;
	static const char *files[] = {
		"logs/real-h200/torch-1rank-subsys-all.log", "logs/constructed/ib-retry-exceeded-2node.log",
		"logs/real-h200/torch-missing-peer-timeout.log", "logs/constructed/vllm-tp2-pcie-hang-ctrl-c.log",
		"logs/constructed/xid-fallen-off-bus-2.26.log", "logs/real-h200/torch-1rank-subsys-all.log",
	};
	size_t n = sizeof(files) / sizeof(files[0]);
	struct nccllog reused;
	nccllog_init(&reused);
	for (size_t i = 0; i < n; i++) {
		char path[512], prev[512];
		snprintf(path, sizeof(path), "%s/%s", ND_FIXTURES, files[i]);
		snprintf(prev, sizeof(prev), "%s/%s", ND_FIXTURES, files[(i + n - 1) % n]);
		struct nccllog fresh;
		nccllog_init(&fresh);
		read_model(&fresh, prev, false);
		read_model(&fresh, path, false);
		char *want = analysis_json(&fresh);
		nccllog_release(&fresh);
		if (i > 0)
			nccllog_reset(&reused);
		read_model(&reused, prev, false);
		read_model(&reused, path, true);
		char *got = analysis_json(&reused);
		assert_true(reused.nprocs > 0 && reused.nfiles == 2);
		assert_string_equal(got, want);
		free(got);
		free(want);
	}
	nccllog_reset(&reused);
	assert_int_equal(reused.nprocs, 0);
	assert_int_equal(reused.nev, 0);
	assert_int_equal(reused.nfiles, 0);
	nccllog_release(&reused);
}

/* What the other inputs read goes at a reset too: a model that read an
 * Inspector dump (a rank missing) and an ncclras -f json report, then was
 * reset, analyses a plain log as a fresh model does (no inspector
 * findings of the inputs before). */
static void test_reset_inputs(void **state)
{
	(void)state;
	static const char *before[] = {
		"logs/inspector/missing-rank/node-b-pid4100.log",
		"logs/inspector/missing-rank/node-b-pid4101.log",
		"logs/inspector/ras/ncclras-2.30-json-behind.json",
	};
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", ND_FIXTURES, "logs/real-h200/torch-1rank-subsys-all.log");
	struct nccllog fresh, reused;
	nccllog_init(&fresh);
	read_model(&fresh, path, false);
	char *want = analysis_json(&fresh);
	nccllog_release(&fresh);
	nccllog_init(&reused);
	for (size_t i = 0; i < sizeof(before) / sizeof(before[0]); i++) {
		char p[512];
		snprintf(p, sizeof(p), "%s/%s", ND_FIXTURES, before[i]);
		read_model(&reused, p, false);
	}
	char *dirty = analysis_json(&reused);
	assert_non_null(strstr(dirty, "LOG_INSPECTOR")); /* the inputs were read */
	free(dirty);
	nccllog_reset(&reused);
	read_model(&reused, path, false);
	char *got = analysis_json(&reused);
	assert_string_equal(got, want);
	free(got);
	free(want);
	nccllog_release(&reused);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_may_ctrl),
		cmocka_unit_test(test_feed_plain),
		cmocka_unit_test(test_header_cache),
		cmocka_unit_test(test_reset),
		cmocka_unit_test(test_reset_inputs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
