/* alltoallv's traffic: nccl-tests' pattern or its matrix (bench_op.h). */
#include "model/bench_op.h"

#include <string.h>

#define A2AV_DIM_MAX 64

static double a2av_spread = 1.0;
static size_t a2av_m[A2AV_DIM_MAX * A2AV_DIM_MAX];
static int a2av_dim; /* 0: no matrix */

void bench_alltoallv_spread(double spread)
{
	a2av_spread = spread < 0 ? 0 : spread > 1 ? 1 : spread;
}

void bench_alltoallv_matrix(const size_t *m, int dim)
{
	a2av_dim = m && dim > 0 && dim <= A2AV_DIM_MAX ? dim : 0;
	if (a2av_dim)
		memcpy(a2av_m, m, (size_t)dim * (size_t)dim * sizeof(*m));
}

double bench_alltoallv_spread_used(void)
{
	return a2av_spread;
}

int bench_alltoallv_matrix_dim(void)
{
	return a2av_dim;
}

size_t bench_alltoallv_bytes(int i, int j, int nranks, size_t total)
{
	if (a2av_dim) /* a rank or peer beyond the matrix sends nothing (the caller checked nranks <= dim) */
		return i >= 0 && j >= 0 && i < a2av_dim && j < a2av_dim ? a2av_m[i * a2av_dim + j] : 0;
	if (nranks <= 1)
		return total & ~(size_t)15;
	int dist = (j - i + nranks) % nranks;
	double sum = (double)nranks * (nranks - 1) / 2;
	double uniform = (double)total / nranks, by_dist = dist * (double)total / sum;
	return (size_t)((1.0 - a2av_spread) * uniform + a2av_spread * by_dist) & ~(size_t)15;
}

void bench_alltoallv_max(int nranks, size_t total, size_t es, size_t *send, size_t *recv)
{
	*send = *recv = 0;
	if (!es)
		return;
	int rows = a2av_dim ? nranks : 1; /* the pattern is balanced: rank 0 stands for all */
	for (int i = 0; i < rows; i++) {
		size_t s = 0, r = 0;
		for (int j = 0; j < nranks; j++) {
			s += bench_alltoallv_bytes(i, j, nranks, total) / es;
			r += bench_alltoallv_bytes(j, i, nranks, total) / es;
		}
		*send = s > *send ? s : *send;
		*recv = r > *recv ? r : *recv;
	}
}
