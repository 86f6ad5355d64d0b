/* bench's numbers and nccl-tests' text, as pure functions: sizes (binary
 * suffixes, the size list), algbw and busbw per operation (GB = 1e9 bytes),
 * the combination of the ranks' times (-a), and the exact text of nccl-tests'
 * header, rows and footer (src/util.cu of NVIDIA/nccl-tests 2.19), so that
 * scrapers written for nccl-tests (DCGM, aznhc, gcm) read bench's output.
 * Text is appended to a strbuf; nothing here prints. */
#ifndef ND_ANALYZE_BENCH_H
#define ND_ANALYZE_BENCH_H
#include "model/bench_op.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* nccl-tests' parsesize: a number with an optional K, M or G (binary, either
 * case). Returns 0 and the size, or -EINVAL (negative, junk, over 2^50). */
int bench_parse_size(const char *s, uint64_t *out);

#define BENCH_MAX_SIZES 4096

/* The sizes nccl-tests runs: min, then *factor (factor > 1) or +step, while
 * <= max. Returns how many (at most cap), or -EINVAL (min > max, no step,
 * more than cap). */
int bench_sizes(uint64_t min, uint64_t max, uint64_t step, uint64_t factor, uint64_t *out, int cap);

/* busbw / algbw for op on n ranks: 2(n-1)/n all_reduce; (n-1)/n all_gather,
 * reduce_scatter, alltoall; 1 broadcast, reduce, sendrecv. */
double bench_bus_factor(int op, int nranks);
/* algbw in GB/s of a call moving `count` elements (the count argument) of
 * elem_size bytes in sec seconds (all_gather, reduce_scatter, alltoall count
 * count * n, as nccl-tests' GetBw does); busbw = algbw * factor. sec <= 0
 * gives 0. */
void bench_bw(int op, size_t count, size_t elem_size, double sec, int nranks, double *algbw, double *busbw);

/* -a: 0 rank 0, 1 average, 2 minimum, 3 maximum of the ranks' times. */
double bench_combine(const double *t, int n, int mode);

/* nccl-tests' getFloatStr: v in width characters, 2, 1 or 0 decimals, else
 * exponent form. out has width + 1 bytes. */
void bench_float_str(double v, int width, char *out);

struct bench_header {
	const char *version;   /* our version, printed where nccl-tests prints its own */
	int nccl_version;      /* ncclGetVersion() */
	const char *program;   /* "all_reduce_perf" */
	int nthreads, ngpus;
	uint64_t min_bytes, max_bytes, step_bytes, step_factor;
	int warmup, iters, agg, check, graph;
	int unalign;           /* -u */
	int blocking;          /* -z 0..3 */
	int per_iter, per_iter_skip; /* -I, -K */
	bool parallel_init;    /* -p */
	bool cputime;
};
/* "# nccl-tests version ...", "# Collective test starting", "# nThread ...", "#" */
void bench_text_preamble(struct strbuf *sb, const struct bench_header *h);
/* One "#  Rank  0 Group  0 Pid ... on HOST device  0 [0000:18:00] NAME" line
 * (group: the color of NCCL_TESTS_SPLIT, 0 without). */
void bench_text_device(struct strbuf *sb, int rank, int group, int pid, const char *host, int device, const char *busid,
		       const char *name);
/* The "#" line and the three lines of column titles; per_iter (-I) adds
 * i_min, i_max, i_p99, i_cv%, timestamps (-S) a timestamp column. */
void bench_text_columns(struct strbuf *sb, bool cputime, bool per_iter, bool timestamps);
/* -S: the local time as nccl-tests prints it after a row ("%21s" of
 * "%Y-%m-%d %H:%M:%S"). */
void bench_text_timestamp(struct strbuf *sb);

/* -I: per-iteration times (seconds) summarised as nccl-tests'
 * computeIterStats: nearest-rank percentiles, p50 the upper median,
 * stdev of the population. */
struct bench_iter_stats {
	double min, max, avg, p50, p95, p99, stdev, cv_pct;
};
void bench_iter_stats(const double *t, int n, struct bench_iter_stats *st);
/* The four per-iteration columns of one cell: i_min i_max i_p99 (us), i_cv% */
void bench_text_iter(struct strbuf *sb, const struct bench_iter_stats *st);

struct bench_cell {
	bool present;          /* false: the call did not finish (hang, error) */
	double time_us, algbw, busbw;
	long long wrong;       /* -1: not checked (-c 0) */
	bool has_iter;         /* -I: iter holds the per-iteration summary */
	struct bench_iter_stats iter;
};
/* One row, with its newline: size, count, type, redop, root, then
 * out-of-place and in-place cells (each with -I's columns where the cell
 * has them), then with timestamp (-S) the time, after a complete row as
 * nccl-tests. A cell that is not present ends the row (nccl-tests prints
 * nothing further either). mid[0] and mid[1] (NULL: nothing) are printed
 * right before the out-of-place and the in-place cell, inside the row, where
 * nccl-tests' alltoallv prints its NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY lines. */
void bench_text_row(struct strbuf *sb, uint64_t bytes, uint64_t count, const char *type, const char *redop, int root,
		    const struct bench_cell *oop, const struct bench_cell *ip, bool timestamp, const char *const mid[2]);
/* "# Out of bounds values : N OK|FAILED", "# Avg bus bandwidth    : X[ OK|FAILED]",
 * "#", "# Collective test concluded: PROGRAM". min_bw < 0: no check
 * (NCCL_TESTS_MIN_BW unset). */
void bench_text_footer(struct strbuf *sb, int errors, double avg_busbw, double min_bw, const char *program);
/* -M: "# GPU memory usage     : Initialization X | User-Allocated Y |
 * Collective Z | Total  T" from the bytes of init, buffers, collectives,
 * amounts as nccl-tests' getMemString writes them. */
void bench_text_memory(struct strbuf *sb, const long long mem[3]);

/* NCCL's "AllReduce: 1048576 Bytes -> Algo RING proto SIMPLE ..." INFO line
 * (NCCL_DEBUG_SUBSYS=TUNING, enqueue.cc of 2.2x): the bytes of the call and
 * "RING/SIMPLE" in ap. Returns 0, or -1 for any other line. */
int bench_parse_algo(const char *line, unsigned long long *bytes, char *ap, size_t apsz);
/* NCCL's "Channel 00/0 : 0[0] -> 1[1] [send] via P2P/CUMEM/read" INFO line:
 * source and destination rank and the transport. Returns 0, or -1. */
int bench_parse_via(const char *line, int *src, int *dst, char *kind, size_t kindsz);

#endif
