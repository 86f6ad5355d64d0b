/* util/progress: the one progress line of every long command. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/progress.h"

static void test_format(void **state)
{
	(void)state;
	char b[256];
	/* unknown amount: no counter, no ETA */
	progress_format(b, sizeof(b), "check", 1.23, "sys ...", NULL, 0, 0, 0, 0);
	assert_string_equal(b, "nccl-doctor check [  1.2s] sys ...");
	/* known: the counter and the ETA at the rate so far (3 in 6 s: 9 left, 18 s) */
	progress_format(b, sizeof(b), "p2p", 12.34, "round 1/2: 0->3: HANG", "pairs", 3, 12, 6.0, 0);
	assert_string_equal(b, "nccl-doctor p2p [ 12.3s] round 1/2: 0->3: HANG, 3/12 pairs, ETA 18 s");
	/* nothing done yet: no ETA; all done: no ETA */
	progress_format(b, sizeof(b), "fix", 0.5, "fix: trying PIX", "trials", 0, 7, 0.5, 0);
	assert_string_equal(b, "nccl-doctor fix [  0.5s] fix: trying PIX, 0/7 trials");
	progress_format(b, sizeof(b), "fix", 9.0, "fix: done", "trials", 7, 7, 9.0, 0);
	assert_string_equal(b, "nccl-doctor fix [  9.0s] fix: done, 7/7 trials");
	/* rounded up, at least 1 s; minutes past 120 s */
	progress_format(b, sizeof(b), "bench", 1, "all_reduce 8 B", "sizes", 9, 10, 0.05, 0);
	assert_string_equal(b, "nccl-doctor bench [  1.0s] all_reduce 8 B, 9/10 sizes, ETA 1 s");
	progress_format(b, sizeof(b), "bench", 100, "x", "sizes", 1, 10, 100, 0);
	assert_string_equal(b, "nccl-doctor bench [100.0s] x, 1/10 sizes, ETA 15 min");
	/* the rate of what is done, less the time since the last one */
	progress_format(b, sizeof(b), "p2p", 20, "round 2/3", "pairs", 2, 6, 6.0, 4.0);
	assert_string_equal(b, "nccl-doctor p2p [ 20.0s] round 2/3, 2/6 pairs, ETA 8 s");
	progress_format(b, sizeof(b), "p2p", 40, "round 2/3", "pairs", 2, 6, 6.0, 30.0);
	assert_string_equal(b, "nccl-doctor p2p [ 40.0s] round 2/3, 2/6 pairs, ETA 1 s");
	/* bytes in MiB */
	progress_format(b, sizeof(b), "logs", 2, "reading big.log", "bytes", 3 << 20, 12 << 20, 2, 0);
	assert_string_equal(b, "nccl-doctor logs [  2.0s] reading big.log, 3.0/12.0 MiB, ETA 6 s");
	progress_format(b, sizeof(b), "logs", 2, "reading a.log", "bytes", 512, 2048, 2, 0);
	assert_string_equal(b, "nccl-doctor logs [  2.0s] reading a.log, 0.5/2.0 KiB, ETA 6 s");
	/* a small buffer is cut, never overrun; the length it would have */
	char small[16];
	int n = progress_format(small, sizeof(small), "check", 1, "sys ...", NULL, 0, 0, 0, 0);
	assert_int_equal(n, (int)strlen("nccl-doctor check [  1.0s] sys ..."));
	assert_int_equal(strlen(small), 15);
}

static void test_wanted(void **state)
{
	(void)state;
	assert_true(progress_wanted(false, false, true));   /* a terminal */
	assert_true(progress_wanted(false, true, false));   /* --progress */
	assert_false(progress_wanted(false, false, false)); /* a pipe, a file */
	assert_false(progress_wanted(true, true, true));    /* --quiet wins */
}

static void test_say(void **state)
{
	(void)state;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct progress p;
	progress_init(&p, "p2p", nd_now_s(), f);
	progress_say(&p, "GPU %d: kernels", 0);
	progress_count(&p, "pairs", 4, nd_now_s());
	progress_done(&p, 1);
	progress_say(&p, "nccl 0<->1: ok\nnext");
	progress_uncount(&p);
	progress_say(&p, "bandwidth");
	fclose(f);
	char l1[64], l2[128], l3[64];
	assert_int_equal(sscanf(buf, "%63[^\n]\n%127[^\n]\n%63[^\n]\n", l1, l2, l3), 3);
	assert_non_null(strstr(l1, "nccl-doctor p2p ["));
	assert_non_null(strstr(l1, "s] GPU 0: kernels"));
	/* a newline in a message stays one line; the counter follows */
	assert_non_null(strstr(l2, "nccl 0<->1: ok next, 1/4 pairs"));
	assert_null(strstr(l3, "pairs"));
	free(buf);
	/* silent: no stream */
	progress_init(&p, "check", nd_now_s(), NULL);
	progress_say(&p, "nothing");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_wanted),
		cmocka_unit_test(test_say),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
