/* Newline search for the line reader: see bytescan.h. The search also notes
 * NUL and ESC bytes, so that a caller that cleans lines of them (nccllog)
 * can skip lines that have none without a second pass. */
#include "util/bytescan.h"

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

/* Portable part: 16 bytes a step. */
static char *find_newline_v16(char *p, char *end, bool *ctrl)
{
	const bscan_v16 nl16 = (bscan_v16){ 0 } + '\n', esc16 = (bscan_v16){ 0 } + 0x1b;
	while (end - p >= 16) {
		bscan_v16 v = bscan_load16(p);
		unsigned j = bscan_first16((bscan_v16)((v == nl16) | (v == 0) | (v == esc16)));
		if (j < 16) {
			if (p[j] == '\n')
				return p + j;
			*ctrl = true;
			return memchr(p + j, '\n', (size_t)(end - p - j));
		}
		p += 16;
	}
	for (; p < end; p++) {
		if (*p == '\n')
			return p;
		if (*p == '\0' || *p == 0x1b) {
			*ctrl = true;
			return memchr(p, '\n', (size_t)(end - p));
		}
	}
	return NULL;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* x86-64 with AVX2: 32 bytes a step. A first test finds the bytes <= 0x1b
 * (a newline, a NUL, an ESC, but also a tab or a CR), the exact one only
 * runs on the 32 bytes where one is. */
__attribute__((target("avx2"))) static char *find_newline_avx2(char *p, char *end, bool *ctrl)
{
	const __m256i lim = _mm256_set1_epi8(0x1b), nl = _mm256_set1_epi8('\n'), zero = _mm256_setzero_si256();
	while (end - p >= 32) {
		__m256i v = _mm256_loadu_si256((const __m256i *)(const void *)p);
		if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_min_epu8(v, lim), v))) {
			__m256i hit = _mm256_or_si256(_mm256_or_si256(_mm256_cmpeq_epi8(v, nl), _mm256_cmpeq_epi8(v, lim)),
						      _mm256_cmpeq_epi8(v, zero));
			unsigned m = (unsigned)_mm256_movemask_epi8(hit);
			if (m) {
				unsigned j = (unsigned)__builtin_ctz(m);
				if (p[j] == '\n')
					return p + j;
				*ctrl = true;
				return memchr(p + j, '\n', (size_t)(end - p - j));
			}
		}
		p += 32;
	}
	return find_newline_v16(p, end, ctrl);
}

static int have_avx2 = -1; /* read and set atomically: worker threads of logs/read/threads.c search too */
#endif

char *bscan_find_newline(char *p, char *end, bool *ctrl)
{
#if defined(__x86_64__) && defined(__GNUC__)
	int avx2 = __atomic_load_n(&have_avx2, __ATOMIC_RELAXED);
	if (avx2 < 0) {
		__builtin_cpu_init();
		avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
		__atomic_store_n(&have_avx2, avx2, __ATOMIC_RELAXED);
	}
	if (avx2)
		return find_newline_avx2(p, end, ctrl);
#endif
	return find_newline_v16(p, end, ctrl);
}
