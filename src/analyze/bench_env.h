/* nccl-tests' environment variables that shape a `bench` run, parsed as
 * nccl-tests 2.19 reads them, strictly: NCCL_TESTS_SPLIT_MASK and
 * NCCL_TESTS_SPLIT (src/common.cu run(): the processes split into groups by
 * a color, each group its own communicator, all running at once), and the
 * text of NCCL_TESTS_ALLTOALLV_MATRIX_FILE (src/alltoallv.cu
 * AlltoAllvReadTrafficMatrix: a square matrix of bytes rank i sends rank
 * j). Pure: strings and lines in, values out; what nccl-tests takes
 * silently (garbage after a number, an unknown operator, MOD 0) is an
 * error with a one-line reason here. */
#ifndef ND_ANALYZE_BENCH_ENV_H
#define ND_ANALYZE_BENCH_ENV_H
#include <stddef.h>
#include <stdint.h>

/* The color of each of n ranks, rank i as nccl-tests' process i: MASK
 * (hexadecimal, "0x" optional) gives i & MASK and wins over SPLIT, which
 * is "AND N", "OR N", "MOD N", "DIV N" or "&N", "|N", "%N", "/N"
 * (case-insensitive, blanks allowed; N decimal, 0x hex, 0b binary, a
 * leading 0 octal, as nccl-tests' parseInt). Both NULL: every color 0.
 * Returns the number of groups (distinct colors), or -EINVAL with a
 * one-line reason in err. */
int bench_split_colors(const char *mask, const char *split, int n, int *colors, char *err, size_t errsz);
/* Rank i's rank in its group (ranks of one color in rank order, as
 * MPI_Comm_split with key i), and the group's size. */
void bench_split_place(const int *colors, int n, int i, int *grank, int *gsize);

/* The alltoallv traffic matrix, line by line: whitespace-separated
 * non-negative numbers (strtod's forms, finite), one row per line with
 * values, blank lines skipped; each value times scale
 * (NCCL_TESTS_ALLTOALLV_MATRIX_SCALE) and rounded down to a multiple of 16
 * bytes, as nccl-tests does. Every row needs as many values as the first,
 * and the matrix must be square. Only the top-left BENCH_A2AV_KEEP square
 * is kept (a run has at most that many ranks); the rest is checked. */
#define BENCH_A2AV_KEEP 64
struct bench_a2av_parse {
	double scale;
	size_t rows, cols;
	size_t m[BENCH_A2AV_KEEP][BENCH_A2AV_KEEP];
	char err[200];
};
void bench_a2av_parse_init(struct bench_a2av_parse *p, double scale);
/* One line (len bytes, NUL-terminated there; a NUL inside is an invalid
 * value) numbered lineno
 * from 1: 0, or -EINVAL with the reason in p->err. */
int bench_a2av_parse_line(struct bench_a2av_parse *p, const char *line, size_t len, uint64_t lineno);
/* After the last line: the dimension, or -EINVAL (empty, not square). */
int bench_a2av_parse_end(struct bench_a2av_parse *p);

#endif
