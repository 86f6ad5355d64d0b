/* Fuzz harness: nccl-tests' variables as `bench` parses them
 * (analyze/bench_env.h). The input's first line is tried as
 * NCCL_TESTS_SPLIT and as NCCL_TESTS_SPLIT_MASK for 1 to 64 ranks; the
 * rest is an NCCL_TESTS_ALLTOALLV_MATRIX_FILE read through the line reader
 * (chunked, 256-byte lines, so rows get cut) with a scale from the input. */
#include "fuzz.h"

#include "analyze/bench_env.h"
#include "util/linereader.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);
	size_t first = nl ? (size_t)(nl - data) : size;
	char *spec = fz_strdup(data, first);
	int colors[64];
	char err[160];
	unsigned sum = 0;
	for (int n = 1; n <= 64; n += 21) {
		int g = bench_split_colors(NULL, spec, n, colors, err, sizeof(err));
		int m = bench_split_colors(spec, NULL, n, colors, err, sizeof(err));
		if (g > n || m > n || (g < 0 && !err[0]))
			abort(); /* never more groups than ranks; an error has its reason */
		for (int i = 0; g > 0 && i < n; i++) {
			int r, s;
			bench_split_place(colors, n, i, &r, &s);
			if (r < 0 || r >= s || s > n)
				abort();
		}
		sum += (unsigned)(g + m);
	}
	free(spec);
	static struct bench_a2av_parse p;
	bench_a2av_parse_init(&p, size ? (double)(data[0] % 7) / 2 : 1.0);
	struct fz_mem mem;
	fz_mem_init(&mem, data + first, size - first);
	struct linereader lr;
	linereader_init(&lr, -1, 256);
	linereader_set_source(&lr, fz_mem_read, &mem);
	char *line;
	size_t len;
	while (linereader_next(&lr, &line, &len) > 0)
		if (bench_a2av_parse_line(&p, line, len, lr.lineno) < 0) {
			if (!p.err[0] || !memchr(p.err, '\0', sizeof(p.err)))
				abort();
			break;
		}
	int dim = bench_a2av_parse_end(&p);
	for (int i = 0; dim > 0 && i < dim && i < BENCH_A2AV_KEEP; i++)
		for (int j = 0; j < dim && j < BENCH_A2AV_KEEP; j++)
			if (p.m[i][j] % 16)
				abort(); /* every kept value is whole 16-byte chunks */
	linereader_release(&lr);
	return sum == 0xdeadbeef; /* keeps sum alive */
}
