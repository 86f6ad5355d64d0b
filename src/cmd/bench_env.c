/* nccl-tests' environment variables that change what `bench` runs (see
 * bench.h): the split of the ranks into groups, and alltoallv's traffic
 * matrix file, read through util/input (a FIFO that never writes, a
 * device, a binary or compressed file, an endless stream end with one
 * line) and parsed by analyze/bench_env.h. */
#include "analyze/bench_env.h"
#include "cmd/bench.h"
#include "report/report.h"
#include "util/input.h"
#include "util/linereader.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define A2AV_LINE_MAX (1u << 20)   /* a row of 50000 values of 20 digits */
#define A2AV_FILE_MAX (64u << 20)  /* more is not a matrix anyone wrote by hand or script for 64 ranks */

int bench_env_split(struct bench_opts *o, int *smallest, int *largest)
{
	char err[160];
	int g = bench_split_colors(getenv("NCCL_TESTS_SPLIT_MASK"), getenv("NCCL_TESTS_SPLIT"), o->nranks, o->colors, err,
				   sizeof(err));
	if (g < 0)
		return cmd_usage_error("bench", "%s", err);
	o->ngroups = g;
	*smallest = o->nranks, *largest = 0;
	for (int i = 0; i < o->nranks; i++) {
		int grank, gsize;
		bench_split_place(o->colors, o->nranks, i, &grank, &gsize);
		if (i == 0)
			o->comm_ranks = gsize;
		*smallest = gsize < *smallest ? gsize : *smallest;
		*largest = gsize > *largest ? gsize : *largest;
		/* nccl-tests' hypercube skips a communicator of another size;
		 * here every group must be able to run it */
		if (o->op == BOP_HYPERCUBE && (gsize & (gsize - 1)))
			return cmd_usage_error("bench", "hypercube needs a power-of-two number of ranks, not %d%s", gsize,
					       g > 1 ? " (in a group of NCCL_TESTS_SPLIT)" : "");
	}
	if (o->root >= *smallest)
		return cmd_usage_error("bench", "-r %d: there are only %d ranks%s", o->root, *smallest,
				       g > 1 ? " in the smallest group of NCCL_TESTS_SPLIT" : "");
	return 0;
}

/* A number variable as nccl-tests reads it (strtod), strictly: unset
 * leaves *v, not a number is a usage error (64) */
static int env_number(const char *name, double *v)
{
	const char *e = getenv(name);
	if (!e)
		return 0;
	char *end;
	errno = 0;
	double x = strtod(e, &end);
	if (errno || end == e || *end || x != x)
		return cmd_usage_error("bench", "%s is not a number: '%.40s'", name, e);
	*v = x;
	return 0;
}

/* The input's bytes up to A2AV_FILE_MAX, then -EFBIG: the line reader
 * skips the rest of an over-long line by reading it, which a stream that
 * never sends a newline would make endless */
struct capped {
	struct input *in;
	uint64_t got;
};

static long capped_read(void *ctx, void *buf, size_t n)
{
	struct capped *c = ctx;
	if (c->got >= A2AV_FILE_MAX)
		return -EFBIG;
	long r = input_read(c->in, buf, n);
	c->got += r > 0 ? (uint64_t)r : 0;
	return r;
}

/* The file into p: 0, or -1 with the reason in why */
static int read_matrix(const char *path, struct bench_a2av_parse *p, char *why, size_t whysz)
{
	struct input in;
	int r = input_open(&in, path, "bench", INPUT_TIMEOUT_DEFAULT, 0);
	if (r < 0) {
		snprintf(why, whysz, "%s", input_error_text(&in, r));
		return -1;
	}
	struct linereader lr;
	struct capped cap = { &in, 0 };
	input_linereader(&in, &lr, A2AV_LINE_MAX);
	linereader_set_source(&lr, capped_read, &cap);
	char *line;
	size_t len;
	while (!why[0] && (r = linereader_next(&lr, &line, &len)) > 0) {
		if (lr.truncated)
			snprintf(why, whysz, "line %llu is longer than %u bytes", (unsigned long long)lr.lineno, A2AV_LINE_MAX);
		else if (bench_a2av_parse_line(p, line, len, lr.lineno) < 0)
			snprintf(why, whysz, "%s", p->err);
	}
	if (r == -EFBIG && !why[0])
		snprintf(why, whysz, "more than %u MiB: not a traffic matrix", A2AV_FILE_MAX >> 20);
	else if (r < 0 && !why[0])
		snprintf(why, whysz, "%s", input_error_text(&in, r));
	linereader_release(&lr);
	input_close(&in);
	if (!why[0] && bench_a2av_parse_end(p) < 0)
		snprintf(why, whysz, "%s", p->err);
	return why[0] ? -1 : 0;
}

/* one line, then the usage exit: the file's problem is not an option's */
static int matrix_error(const char *path, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int matrix_error(const char *path, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	report_say(stderr, "nccl-doctor bench: NCCL_TESTS_ALLTOALLV_MATRIX_FILE '%.300s': %s", path, msg);
	return EXIT_USAGE;
}

int bench_env_alltoallv(struct bench_opts *o, int largest)
{
	/* the ranks' copy: the top-left square the run uses, "v,v,..." */
	static char arg[BENCH_MAX_RANKS * BENCH_MAX_RANKS * 21 + 1];
	static struct bench_a2av_parse p;
	static size_t block[BENCH_MAX_RANKS * BENCH_MAX_RANKS];
	const char *path = getenv("NCCL_TESTS_ALLTOALLV_MATRIX_FILE");
	double spread = 1.0, scale = 1.0; /* nccl-tests' defaults; the ranks read SPREAD themselves */
	int rc;
	o->a2av_matrix = NULL;
	/* nccl-tests: atoi(value) != 0, read by alltoallv_perf only */
	const char *summary = getenv("NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY");
	o->a2av_summary = o->op == BOP_ALLTOALLV && summary && atoi(summary) != 0;
	if ((rc = env_number("NCCL_TESTS_ALLTOALLV_SPREAD", &spread)))
		return rc;
	bench_alltoallv_spread(spread); /* clamped to 0..1, as nccl-tests */
	if (o->op != BOP_ALLTOALLV || !path) /* nccl-tests reads the matrix in alltoallv_perf only */
		return 0;
	if ((rc = env_number("NCCL_TESTS_ALLTOALLV_MATRIX_SCALE", &scale)))
		return rc;
	scale = scale < 0 ? 0 : scale; /* as nccl-tests */
	char why[400] = "";
	bench_a2av_parse_init(&p, scale);
	if (read_matrix(path, &p, why, sizeof(why)) < 0)
		return matrix_error(path, "%s", why);
	int dim = (int)p.rows;
	if (largest > dim)
		return matrix_error(path, "%dx%d, smaller than the %d ranks of a communicator", dim, dim, largest);
	if (o->min_bytes != o->max_bytes) /* as nccl-tests: a sweep makes no sense, the matrix gives the bytes */
		return matrix_error(path, "-b and -e must be equal (e.g. -b 32M -e 32M): the matrix gives each rank's bytes");
	int k = dim < o->nranks ? dim : o->nranks;
	size_t off = 0;
	for (int i = 0; i < k; i++)
		for (int j = 0; j < k; j++) {
			/* one pair over -e fails the check below anyway; refused
			 * here, the sums of at most 64 values under -e (2^50)
			 * cannot wrap */
			if (p.m[i][j] > o->max_bytes)
				return matrix_error(path, "-e %llu is less than the %zu bytes rank %d sends rank %d",
						    (unsigned long long)o->max_bytes, p.m[i][j], i, j);
			block[i * k + j] = p.m[i][j];
			off += (size_t)snprintf(arg + off, sizeof(arg) - off, "%s%zu", off ? "," : "", p.m[i][j]);
		}
	bench_alltoallv_matrix(block, k);
	size_t send, recv;
	bench_alltoallv_max(largest, 0, 1, &send, &recv);
	size_t need = send > recv ? send : recv;
	if (o->max_bytes < need)
		return matrix_error(path, "-e %llu is less than the %zu bytes a rank sends or receives by it",
				    (unsigned long long)o->max_bytes, need);
	o->a2av_matrix = arg;
	o->a2av_file = path, o->a2av_file_dim = dim;
	o->a2av_scale = scale;
	return 0;
}
