/* alltoallv's traffic pattern (bench_op.h). */
#include "model/bench_op.h"

static double a2av_spread = 1.0;

void bench_alltoallv_spread(double spread)
{
	a2av_spread = spread < 0 ? 0 : spread > 1 ? 1 : spread;
}

size_t bench_alltoallv_bytes(int i, int j, int nranks, size_t total)
{
	if (nranks <= 1)
		return total & ~(size_t)15;
	int dist = (j - i + nranks) % nranks;
	double sum = (double)nranks * (nranks - 1) / 2;
	double uniform = (double)total / nranks, by_dist = dist * (double)total / sum;
	return (size_t)((1.0 - a2av_spread) * uniform + a2av_spread * by_dist) & ~(size_t)15;
}
