/* Unit tests of bench's pure parts: sizes (nccl-tests' binary suffixes and
 * size list), busbw factors and bandwidth formulas, time combination (-a),
 * nccl-tests' number formatting and the exact text of its header, rows and
 * footer (analyze/bench.h); op geometry, and bench_fill / bench_check
 * (gpu/bench_data.h) against a host simulation of every operation on 1, 2, 3
 * and 8 ranks, where a single flipped element must be counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/bench.h"
#include "gpu/bench_data.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void test_parse_size(void **state)
{
	(void)state;
	uint64_t v;
	assert_int_equal(bench_parse_size("8", &v), 0);
	assert_int_equal(v, 8);
	assert_int_equal(bench_parse_size("512M", &v), 0);
	assert_int_equal(v, 536870912ULL);
	assert_int_equal(bench_parse_size("1G", &v), 0);
	assert_int_equal(v, 1073741824ULL);
	assert_int_equal(bench_parse_size("1k", &v), 0);
	assert_int_equal(v, 1024);
	assert_int_equal(bench_parse_size("1.5K", &v), 0);
	assert_int_equal(v, 1536);
	assert_int_equal(bench_parse_size("32MB", &v), 0);
	assert_int_equal(v, 32ULL << 20);
	assert_true(bench_parse_size("abc", &v) < 0);
	assert_true(bench_parse_size("-1", &v) < 0);
	assert_true(bench_parse_size("8X", &v) < 0);
	assert_true(bench_parse_size("", &v) < 0);
	assert_true(bench_parse_size("1e30", &v) < 0);
}

static void test_sizes(void **state)
{
	(void)state;
	uint64_t s[BENCH_MAX_SIZES];
	int n = bench_sizes(8, 512ULL << 20, 1 << 20, 2, s, BENCH_MAX_SIZES);
	assert_int_equal(n, 27); /* 8 B .. 512 MiB doubling */
	assert_int_equal(s[0], 8);
	assert_int_equal(s[26], 512ULL << 20);
	n = bench_sizes(1 << 20, 4 << 20, 1 << 20, 1, s, BENCH_MAX_SIZES);
	assert_int_equal(n, 4);
	assert_int_equal(s[3], 4 << 20);
	n = bench_sizes(32 << 20, 32 << 20, 1 << 20, 1, s, BENCH_MAX_SIZES); /* nccl-tests' defaults: one row */
	assert_int_equal(n, 1);
	assert_true(bench_sizes(16, 8, 1, 2, s, BENCH_MAX_SIZES) < 0);
	assert_true(bench_sizes(1, 1 << 20, 1, 1, s, 16) < 0); /* too many rows */
	assert_int_equal(bench_sizes(0, 8, 0, 2, s, BENCH_MAX_SIZES), 1); /* 0 * 2 does not loop */
}

static void test_bw(void **state)
{
	(void)state;
	assert_float_equal(bench_bus_factor(BOP_ALL_REDUCE, 8), 1.75, 1e-12);
	assert_float_equal(bench_bus_factor(BOP_ALL_REDUCE, 1), 0.0, 1e-12);
	assert_float_equal(bench_bus_factor(BOP_ALL_GATHER, 8), 0.875, 1e-12);
	assert_float_equal(bench_bus_factor(BOP_REDUCE_SCATTER, 4), 0.75, 1e-12);
	assert_float_equal(bench_bus_factor(BOP_ALLTOALL, 2), 0.5, 1e-12);
	assert_float_equal(bench_bus_factor(BOP_BROADCAST, 8), 1.0, 1e-12);
	assert_float_equal(bench_bus_factor(BOP_REDUCE, 8), 1.0, 1e-12);
	assert_float_equal(bench_bus_factor(BOP_SENDRECV, 8), 1.0, 1e-12);
	double a, b;
	/* the H200 reference: 512 MiB all-reduce at 2094 GB/s takes 256.38 us */
	bench_bw(BOP_ALL_REDUCE, 134217728, 4, 536870912.0 / 2094e9, 1, &a, &b);
	assert_float_equal(a, 2094.0, 1e-6);
	assert_float_equal(b, 0.0, 1e-9);
	bench_bw(BOP_ALL_REDUCE, 1000, 4, 1e-6, 4, &a, &b);
	assert_float_equal(a, 4.0, 1e-9);
	assert_float_equal(b, 6.0, 1e-9);
	/* all_gather: count per rank times n */
	bench_bw(BOP_ALL_GATHER, 1000, 4, 1e-6, 4, &a, &b);
	assert_float_equal(a, 16.0, 1e-9);
	assert_float_equal(b, 12.0, 1e-9);
	bench_bw(BOP_SENDRECV, 1000, 8, 2e-6, 2, &a, &b);
	assert_float_equal(a, 4.0, 1e-9);
	assert_float_equal(b, 4.0, 1e-9);
	bench_bw(BOP_BROADCAST, 1000, 8, 0, 2, &a, &b);
	assert_float_equal(a, 0.0, 0);
}

static void test_combine(void **state)
{
	(void)state;
	double t[] = { 3, 1, 2, 6 };
	assert_float_equal(bench_combine(t, 4, 0), 3, 0);
	assert_float_equal(bench_combine(t, 4, 1), 3, 1e-12);
	assert_float_equal(bench_combine(t, 4, 2), 1, 0);
	assert_float_equal(bench_combine(t, 4, 3), 6, 0);
	assert_float_equal(bench_combine(t, 0, 1), 0, 0);
}

static void test_float_str(void **state)
{
	(void)state;
	char s[16];
	bench_float_str(7.23, 7, s);
	assert_string_equal(s, "   7.23");
	bench_float_str(2094.123, 6, s);
	assert_string_equal(s, "2094.1");
	bench_float_str(12345.6, 6, s);
	assert_string_equal(s, " 12346");
	bench_float_str(1234567.0, 6, s);
	assert_string_equal(s, " 1e+06");
	bench_float_str(12345678.9, 7, s);
	assert_string_equal(s, "1.2e+07");
	bench_float_str(0.0, 6, s);
	assert_string_equal(s, "  0.00");
}

/* -I's summary as nccl-tests' computeIterStats: nearest-rank p95/p99, the
 * upper median, population stdev; the i_* columns; -M's memory line */
static void test_iter_stats(void **state)
{
	(void)state;
	double t[10] = { 10, 1, 9, 2, 8, 3, 7, 4, 6, 5 };
	struct bench_iter_stats st;
	bench_iter_stats(t, 10, &st);
	assert_true(st.min == 1 && st.max == 10 && st.avg == 5.5);
	assert_true(st.p50 == 6 && st.p95 == 10 && st.p99 == 10); /* sorted[5]; ceil(9.5)-1 = 9 */
	assert_true(fabs(st.stdev - sqrt(8.25)) < 1e-12 && fabs(st.cv_pct - sqrt(8.25) / 5.5 * 100) < 1e-9);
	double u[200];
	for (int i = 0; i < 200; i++)
		u[i] = i + 1;
	bench_iter_stats(u, 200, &st);
	assert_true(st.p95 == 190 && st.p99 == 198 && st.p50 == 101);
	bench_iter_stats(u, 0, &st);
	assert_true(st.max == 0 && st.cv_pct == 0);
	struct strbuf sb;
	strbuf_init(&sb, 0);
	st = (struct bench_iter_stats){ .min = 5.25e-6, .max = 1.5e-5, .p99 = 1.2e-5, .cv_pct = 12.345 };
	bench_text_iter(&sb, &st);
	assert_string_equal(strbuf_str(&sb), "     5.25    15.00    12.00    12.35");
	strbuf_reset(&sb);
	long long mem[3] = { 0, 3LL << 29, 12345 };
	bench_text_memory(&sb, mem);
	assert_string_equal(strbuf_str(&sb), "# GPU memory usage     : Initialization 0.00 B | User-Allocated 1.50 GB | "
					     "Collective 12.1 KB | Total  1.50 GB\n");
	strbuf_release(&sb);
}

static void test_text(void **state)
{
	(void)state;
	struct strbuf sb;
	strbuf_init(&sb, 0);
	struct bench_header h = { .version = "X", .nccl_version = 22803, .program = "all_reduce_perf", .nthreads = 1,
				  .ngpus = 8, .min_bytes = 8, .max_bytes = 536870912, .step_bytes = 1048576,
				  .step_factor = 2, .warmup = 1, .iters = 20, .agg = 1, .check = 1 };
	bench_text_preamble(&sb, &h);
	bench_text_device(&sb, 0, 0, 1234, "node1", 0, "0000:18:00.0", "NVIDIA H200");
	bench_text_columns(&sb, false, false, false);
	struct bench_cell oop = { true, 7.23, 0.0011, 0.0011, 0 }, ip = { true, 7.11, 0.0011, 0.0011, 0 };
	bench_text_row(&sb, 8, 2, "float", "sum", -1, &oop, &ip, false, NULL);
	struct bench_cell bad = { true, 256.38, 2094.0, 2094.0, 3 }, nochk = { true, 256.0, 2097.15, 2097.15, -1 };
	bench_text_row(&sb, 536870912, 134217728, "float", "sum", -1, &bad, &nochk, false, NULL);
	/* a row cut by a hang; the text for the missing in-place cell is not printed */
	bench_text_row(&sb, 16, 4, "float", "none", 0, &oop, NULL, false, (const char *const[2]){ "<A>\n", "<B>\n" });
	bench_text_footer(&sb, 0, 2094.5, -1, "all_reduce_perf");
	bench_text_footer(&sb, 2, 10, 100, "all_reduce_perf");
	const char *want =
		"# nccl-tests version X nccl-headers=22803 nccl-library=22803\n"
		"# Collective test starting: all_reduce_perf\n"
		"# nThread 1 nGpus 8 minBytes 8 maxBytes 536870912 step: 2(factor) warmup iters: 1 iters: 20 agg iters: 1 validation: 1 graph: 0 unalign: 0\n"
		"#\n"
		"# Using devices\n"
		"#  Rank  0 Group  0 Pid   1234 on      node1 device  0 [0000:18:00] NVIDIA H200\n"
		"#\n"
		"#                                                              out-of-place                       in-place          \n"
		"#       size         count      type   redop    root     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong \n"
		"#        (B)    (elements)                               (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)         \n"
		"           8             2     float     sum      -1     7.23    0.00    0.00       0     7.11    0.00    0.00       0\n"
		"   536870912     134217728     float     sum      -1   256.38  2094.0  2094.0       3   256.00  2097.2  2097.2    N/A\n"
		"          16             4     float    none       0<A>\n     7.23    0.00    0.00       0\n"
		"# Out of bounds values : 0 OK\n"
		"# Avg bus bandwidth    : 2094.5 \n"
		"#\n"
		"# Collective test concluded: all_reduce_perf\n"
		"# Out of bounds values : 2 FAILED\n"
		"# Avg bus bandwidth    : 10 FAILED\n"
		"#\n"
		"# Collective test concluded: all_reduce_perf\n";
	assert_string_equal(strbuf_str(&sb), want);
	strbuf_release(&sb);
}

static void test_parse_algo(void **state)
{
	(void)state;
	unsigned long long b;
	char ap[32];
	assert_int_equal(bench_parse_algo("h200:1234:1240 [0] NCCL INFO AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE "
					  "channel{Lo..Hi}={0..31}", &b, ap, sizeof(ap)), 0);
	assert_int_equal(b, 1048576);
	assert_string_equal(ap, "RING/SIMPLE");
	assert_int_equal(bench_parse_algo("h:1:2 [0] NCCL INFO AllGather: 8 Bytes -> Algo NVLS proto LL channel{Lo..Hi}={0..0}",
					  &b, ap, sizeof(ap)), 0);
	assert_string_equal(ap, "NVLS/LL");
	assert_int_equal(bench_parse_algo("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC", &b, ap, sizeof(ap)), -1);
	assert_int_equal(bench_parse_algo("AllReduce: 8 Bytes -> Algo RING proto LL", &b, ap, sizeof(ap)), -1);
}

static void test_parse_via(void **state)
{
	(void)state;
	int a, b;
	char k[64];
	assert_int_equal(bench_parse_via("h:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", &a, &b, k, sizeof(k)), 0);
	assert_int_equal(a, 0);
	assert_int_equal(b, 1);
	assert_string_equal(k, "P2P/CUMEM/read");
	assert_int_equal(bench_parse_via("h:1:2 [3] NCCL INFO Channel 01/1 : 3[18000] -> 8[18000] [send] via NET/IB/0/GDRDMA", &a, &b, k,
					 sizeof(k)), 0);
	assert_int_equal(a, 3);
	assert_int_equal(b, 8);
	assert_string_equal(k, "NET/IB/0/GDRDMA");
	assert_int_equal(bench_parse_via("h:1:2 [0] NCCL INFO Connected all rings", &a, &b, k, sizeof(k)), -1);
}

/* nccl-tests 2.19's alltoallv pattern: bytes by distance, 16-byte chunks */
static void test_alltoallv_pattern(void **state)
{
	(void)state;
	static const size_t want[4] = { 0, 160, 336, 512 }; /* d x 1024 / 6, rounded down to 16 */
	for (int d = 0; d < 4; d++)
		assert_int_equal(bench_alltoallv_bytes(1, (1 + d) % 4, 4, 1024), want[d]);
	assert_int_equal(bench_alltoallv_bytes(0, 0, 1, 1000), 992);
	bench_alltoallv_spread(0);
	assert_int_equal(bench_alltoallv_bytes(2, 3, 4, 1024), 256);
	bench_alltoallv_spread(7); /* clamped to 1 */
	assert_int_equal(bench_alltoallv_bytes(2, 3, 4, 1024), 160);
	struct bench_geom g;
	bench_geometry(BOP_ALLTOALLV, 256, 4, 4, &g); /* 1 KiB: 64 per peer, pattern total 1008 B */
	assert_int_equal(g.param_count, 64);
	assert_int_equal(g.send_count, 1008 / 4);
	assert_int_equal(g.recv_count, 1008 / 4);
	assert_false(bench_checks_inplace(BOP_ALLTOALLV));
	assert_true(bench_checks_inplace(BOP_GATHER));
	double algbw, busbw;
	bench_bw(BOP_ALLTOALLV, 64, 4, 1e-6, 4, &algbw, &busbw);
	assert_true(fabs(algbw - 1008 / 1e9 / 1e-6) < 1e-9 && fabs(busbw - algbw * 0.75) < 1e-9);
	bench_bw(BOP_HYPERCUBE, 64, 4, 1e-6, 4, &algbw, &busbw);
	assert_true(fabs(algbw - 64 * 4 * 3 / 1e9 / 1e-6) < 1e-9 && busbw == algbw);
	bench_bw(BOP_SCATTER, 64, 4, 1e-6, 4, &algbw, &busbw);
	assert_true(fabs(algbw - 64 * 4 * 4 / 1e9 / 1e-6) < 1e-9 && fabs(busbw - algbw * 0.75) < 1e-9);
}

static void test_names(void **state)
{
	(void)state;
	assert_int_equal(bench_op_parse("all_reduce"), BOP_ALL_REDUCE);
	assert_int_equal(bench_op_parse("all_reduce_perf"), BOP_ALL_REDUCE);
	assert_int_equal(bench_op_parse("allreduce"), BOP_ALL_REDUCE);
	assert_int_equal(bench_op_parse("sendrecv"), BOP_SENDRECV);
	assert_int_equal(bench_op_parse("alltoall_perf"), BOP_ALLTOALL);
	assert_int_equal(bench_op_parse("gather"), BOP_GATHER);
	assert_int_equal(bench_op_parse("hypercube_perf"), BOP_HYPERCUBE);
	assert_int_equal(bench_op_parse("alltoallv"), BOP_ALLTOALLV);
	assert_int_equal(bench_op_parse("all_to_all_v"), BOP_ALLTOALLV);
	assert_int_equal(bench_op_parse("alltoallw"), -1);
	assert_int_equal(bench_op_parse("broadcast_scatter"), -1);
	assert_int_equal(bench_type_parse("float"), BT_FLOAT);
	assert_int_equal(bench_type_parse("int"), BT_INT32);
	assert_int_equal(bench_type_parse("bfloat16"), BT_BFLOAT16);
	assert_int_equal(bench_type_parse("fp8"), -1);
	assert_int_equal(bench_redop_parse("avg"), BR_AVG);
	assert_int_equal(bench_redop_parse("mulsum"), -1);
}

static void test_geometry(void **state)
{
	(void)state;
	struct bench_geom g;
	bench_geometry(BOP_ALL_GATHER, 1024, 4, 3, &g); /* 341 rounded down to 16 bytes: 340 */
	assert_int_equal(g.param_count, 340);
	assert_int_equal(g.send_count, 340);
	assert_int_equal(g.recv_count, 1020);
	assert_int_equal(g.send_inplace_off, 340);
	bench_geometry(BOP_REDUCE_SCATTER, 1024, 8, 3, &g);
	assert_int_equal(g.param_count, 340);
	assert_int_equal(g.send_count, 1020);
	assert_int_equal(g.recv_inplace_off, 340);
	bench_geometry(BOP_ALLTOALL, 2, 4, 8, &g); /* 8 bytes on 8 ranks: nothing each */
	assert_int_equal(g.param_count, 0);
	bench_geometry(BOP_ALL_REDUCE, 2, 4, 8, &g);
	assert_int_equal(g.param_count, 2);
	assert_int_equal(g.recv_count, 2);
}

/* ---- host simulation of the operations ----------------------------------- */

static double get(int t, const unsigned char *p)
{
	switch (t) {
	case BT_INT32: { int32_t v; memcpy(&v, p, 4); return v; }
	case BT_UINT8: return *p;
	case BT_FLOAT: { float v; memcpy(&v, p, 4); return v; }
	default: { double v; memcpy(&v, p, 8); return v; }
	}
}

static void put(int t, unsigned char *p, double v)
{
	switch (t) {
	case BT_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
	case BT_UINT8: *p = (unsigned char)(uint64_t)(int64_t)v; break;
	case BT_FLOAT: { float x = (float)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8);
	}
}

static double red(int op, double a, double b)
{
	switch (op) {
	case BR_PROD: return a * b;
	case BR_MAX: return a > b ? a : b;
	case BR_MIN: return a < b ? a : b;
	default: return a + b;
	}
}

/* what rank r receives, computed from every rank's input */
static void simulate(int op, int t, int redop, int root, int n, int r, const struct bench_geom *g,
		     unsigned char **in, unsigned char *out)
{
	size_t es = bench_type_size(t), pc = g->param_count;
	for (size_t j = 0; j < g->recv_count; j++) {
		const unsigned char *src;
		switch (op) {
		case BOP_ALL_REDUCE: case BOP_REDUCE: case BOP_REDUCE_SCATTER: {
			size_t idx = op == BOP_REDUCE_SCATTER ? (size_t)r * pc + j : j;
			double acc = get(t, in[0] + idx * es);
			for (int s = 1; s < n; s++)
				acc = red(redop, acc, get(t, in[s] + idx * es));
			if (redop == BR_AVG)
				acc = t == BT_FLOAT || t == BT_DOUBLE ? acc / n : floor(acc / n);
			put(t, out + j * es, t == BT_UINT8 ? fmod(acc, 256) : acc);
			continue;
		}
		case BOP_BROADCAST: src = in[root] + j * es; break;
		case BOP_SENDRECV: src = in[(r - 1 + n) % n] + j * es; break;
		case BOP_ALL_GATHER: case BOP_GATHER: case BOP_HYPERCUBE: src = in[j / pc] + (j % pc) * es; break;
		case BOP_SCATTER: src = in[root] + ((size_t)r * pc + j) * es; break;
		case BOP_ALLTOALLV: { /* from source s, after what s sent to ranks before r */
			size_t total = pc * (size_t)n * es, at = 0;
			int s = 0;
			for (; s < n; s++) {
				size_t len = bench_alltoallv_bytes(s, r, n, total) / es;
				if (j < at + len)
					break;
				at += len;
			}
			if (s == n) /* past what this rank receives (a matrix's rows differ) */
				continue;
			size_t before = 0;
			for (int k = 0; k < r; k++)
				before += bench_alltoallv_bytes(s, k, n, total) / es;
			src = in[s] + (before + j - at) * es;
			break;
		}
		default: src = in[j / pc] + ((size_t)r * pc + j % pc) * es; break; /* alltoall */
		}
		memcpy(out + j * es, src, es);
	}
}

/* What the check kernels (gpu/bench_ptx.h) compute from the tables:
 * nd_bench_fill writes table[i % period]; nd_bench_check counts elements
 * that differ from table[i % period] beyond the tolerance (float and
 * double here). Both must agree with bench_fill and bench_check. */
static long long kernel_count(const struct bench_data *d, const struct bench_geom *g, const unsigned char *out)
{
	struct bench_block b[BENCH_MAX_BLOCKS];
	unsigned char tab[BENCH_PERIOD_MAX * 8];
	size_t es = bench_type_size(d->type);
	long long wrong = 0;
	int nb = bench_check_blocks(d, g, b, BENCH_MAX_BLOCKS);
	for (int k = 0; k < nb; k++) {
		size_t p = bench_expect_table(d, &b[k], tab);
		double tol = bench_check_tolerance(d, &b[k]);
		for (size_t i = 0; i < b[k].len; i++) {
			const unsigned char *got = out + (b[k].start + i) * es, *want = tab + (i % p) * es;
			if (memcmp(got, want, es) == 0)
				continue;
			if (tol > 0) {
				double x = get(d->type, got), w = get(d->type, want);
				if (fabs(x - w) <= tol * (fabs(w) > 1 ? fabs(w) : 1))
					continue;
			}
			wrong++;
		}
	}
	return wrong;
}

static void kernel_fill_same(const struct bench_data *d, const struct bench_geom *g, const unsigned char *host)
{
	unsigned char tab[BENCH_PERIOD_MAX * 8];
	size_t es = bench_type_size(d->type), p = bench_input_table(d, tab);
	for (size_t i = 0; i < g->send_count; i++)
		if (memcmp(host + i * es, tab + (i % p) * es, es) != 0)
			fail_msg("%s type %s: the fill table differs from bench_fill at %zu", bench_op_info(d->op)->name,
				 bench_type_name(d->type), i);
}

static void check_case(int op, int t, int redop, int n, size_t count)
{
	struct bench_geom g;
	size_t es = bench_type_size(t);
	bench_geometry(op, count, es, n, &g);
	unsigned char *in[8], *out = calloc(g.recv_count + 1, es);
	int root = n - 1;
	for (int s = 0; s < n; s++) {
		struct bench_data d = { op, t, redop, root, s, n, 5 };
		in[s] = calloc(g.send_count + 1, es);
		bench_fill(&d, &g, in[s]);
		kernel_fill_same(&d, &g, in[s]);
	}
	for (int r = 0; r < n; r++) {
		struct bench_data d = { op, t, redop, root, r, n, 5 };
		simulate(op, t, redop, root, n, r, &g, in, out);
		if (bench_check(&d, &g, out) != 0 || kernel_count(&d, &g, out) != 0)
			fail_msg("%s type %s redop %s n %d rank %d: wrong elements in a right result",
				 bench_op_info(op)->name, bench_type_name(t), bench_redop_name(redop), n, r);
		if (g.recv_count && ((op != BOP_REDUCE && op != BOP_GATHER) || r == root)) {
			out[(g.recv_count / 2) * es] ^= 0x40; /* one element wrong */
			if (bench_check(&d, &g, out) != 1 || kernel_count(&d, &g, out) != 1)
				fail_msg("%s type %s redop %s n %d rank %d: a flipped element not counted once",
					 bench_op_info(op)->name, bench_type_name(t), bench_redop_name(redop), n, r);
			/* a stale result (another repetition's inputs) does not pass */
			struct bench_data d2 = d;
			d2.rep = 6;
			out[(g.recv_count / 2) * es] ^= 0x40;
			if (bench_check(&d2, &g, out) == 0 || kernel_count(&d2, &g, out) != bench_check(&d2, &g, out))
				fail_msg("%s type %s redop %s n %d rank %d: a stale result passes",
					 bench_op_info(op)->name, bench_type_name(t), bench_redop_name(redop), n, r);
		}
	}
	for (int s = 0; s < n; s++)
		free(in[s]);
	free(out);
}

static void test_fill_check(void **state)
{
	(void)state;
	static const int ns[] = { 1, 2, 3, 8 };
	static const int ts[] = { BT_INT32, BT_UINT8, BT_FLOAT, BT_DOUBLE };
	for (int op = 0; op < BOP_COUNT; op++)
		for (size_t ni = 0; ni < 4; ni++)
			for (size_t ti = 0; ti < 4; ti++) {
				int redops = bench_op_info(op)->redop && op != BOP_SENDRECV ? BR_COUNT : 1;
				for (int ro = 0; ro < redops; ro++)
					check_case(op, ts[ti], ro, ns[ni], 1000);
			}
}

/* NCCL_TESTS_ALLTOALLV_MATRIX_FILE's mode: the matrix's bytes whatever the
 * size, count 0, buffers and bandwidth from the largest row or column sum
 * (nccl-tests' AlltoAllvComputeMaxCounts, AlltoAllvGetBw); every rank's
 * result checked against a simulation, a flipped element counted */
static void test_alltoallv_matrix(void **state)
{
	(void)state;
	static const size_t m[9] = { 16, 48, 128, 80, 16, 32, 96, 128, 32 }; /* rows 192 128 256, columns 192 each */
	bench_alltoallv_matrix(m, 3);
	assert_int_equal(bench_alltoallv_matrix_dim(), 3);
	assert_int_equal(bench_alltoallv_bytes(2, 1, 3, 1 << 20), 128);
	struct bench_geom g;
	bench_geometry(BOP_ALLTOALLV, 1000, 4, 3, &g);
	assert_int_equal(g.param_count, 0);
	assert_int_equal(g.send_count, 256 / 4);
	assert_int_equal(g.recv_count, 192 / 4);
	double alg, bus;
	bench_bw(BOP_ALLTOALLV, 0, 4, 1e-6, 3, &alg, &bus); /* 256 B in 1 us */
	assert_true(fabs(alg - 0.256) < 1e-9 && fabs(bus - 0.256 * 2 / 3) < 1e-9);
	static const int ts[] = { BT_UINT8, BT_INT32, BT_DOUBLE };
	for (size_t ti = 0; ti < 3; ti++)
		check_case(BOP_ALLTOALLV, ts[ti], BR_SUM, 3, 1000);
	check_case(BOP_ALLTOALLV, BT_FLOAT, BR_SUM, 2, 1000); /* two ranks of a larger matrix: its corner */
	bench_alltoallv_matrix(NULL, 0); /* the pattern again */
	assert_int_equal(bench_alltoallv_matrix_dim(), 0);
	bench_geometry(BOP_ALLTOALLV, 256, 4, 4, &g);
	assert_int_equal(g.param_count, 64);
}

static void test_half_avg(void **state)
{
	(void)state;
	/* half and bfloat16 hold the small integers exactly: a right half result */
	struct bench_geom g;
	bench_geometry(BOP_BROADCAST, 256, 2, 2, &g);
	struct bench_data d = { BOP_BROADCAST, BT_HALF, BR_SUM, 0, 0, 2, 1 };
	uint16_t buf[256];
	bench_fill(&d, &g, buf);
	d.rank = 1;
	assert_int_equal(bench_check(&d, &g, buf), 0);
	buf[7] ^= 1;
	assert_int_equal(bench_check(&d, &g, buf), 1);
	struct bench_data b = { BOP_SENDRECV, BT_BFLOAT16, BR_SUM, 0, 0, 2, 1 };
	bench_geometry(BOP_SENDRECV, 256, 2, 2, &g);
	bench_fill(&b, &g, buf);
	b.rank = 1;
	assert_int_equal(bench_check(&b, &g, buf), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_size), cmocka_unit_test(test_sizes),      cmocka_unit_test(test_bw),
		cmocka_unit_test(test_combine),    cmocka_unit_test(test_float_str),  cmocka_unit_test(test_text),
		cmocka_unit_test(test_names),      cmocka_unit_test(test_iter_stats),
		cmocka_unit_test(test_alltoallv_pattern),      cmocka_unit_test(test_geometry),   cmocka_unit_test(test_fill_check),
		cmocka_unit_test(test_alltoallv_matrix),
		cmocka_unit_test(test_half_avg),   cmocka_unit_test(test_parse_algo), cmocka_unit_test(test_parse_via),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
