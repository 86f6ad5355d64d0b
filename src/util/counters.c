/* Run counters: see counters.h. */
#include "util/counters.h"

static long counts[ND_COUNT_N];

void nd_count(enum nd_counter c)
{
	if ((unsigned)c < ND_COUNT_N)
		counts[c]++;
}

long nd_count_get(enum nd_counter c)
{
	return (unsigned)c < ND_COUNT_N ? counts[c] : 0;
}
