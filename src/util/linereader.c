/* Bounded line reader: see linereader.h. */
#include "util/linereader.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#endif

#define CHUNK 65536

/* The newline search also notes NUL and ESC bytes, so that a caller that
 * cleans lines of them (nccllog) can skip lines that have none without a
 * second pass: 16 bytes a step with GCC/Clang vector extensions (SSE2 on
 * x86-64, NEON on aarch64). */
typedef unsigned char lr_v16 __attribute__((vector_size(16)));

/* Index of the first set byte of a 16-byte 0x00/0xff mask, 16 when none. */
static unsigned lr_first(lr_v16 m)
{
	uint64_t w[2];
	memcpy(w, &m, sizeof(w));
	for (unsigned k = 0; k < 2; k++) {
		if (!w[k])
			continue;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
		return k * 8 + (unsigned)__builtin_clzll(w[k]) / 8;
#else
		return k * 8 + (unsigned)__builtin_ctzll(w[k]) / 8;
#endif
	}
	return 16;
}

/* The first '\n' in [p, end), or NULL; sets lr->may_ctrl when a NUL or an
 * ESC comes before it (or before end). Portable part: 16 bytes a step. */
static char *find_newline_v16(struct linereader *lr, char *p, char *end)
{
	const lr_v16 nl16 = (lr_v16){ 0 } + '\n', esc16 = (lr_v16){ 0 } + 0x1b;
	while (end - p >= 16) {
		lr_v16 v;
		memcpy(&v, p, 16);
		unsigned j = lr_first((lr_v16)((v == nl16) | (v == 0) | (v == esc16)));
		if (j < 16) {
			if (p[j] == '\n')
				return p + j;
			lr->may_ctrl = true;
			return memchr(p + j, '\n', (size_t)(end - p - j));
		}
		p += 16;
	}
	for (; p < end; p++) {
		if (*p == '\n')
			return p;
		if (*p == '\0' || *p == 0x1b) {
			lr->may_ctrl = true;
			return memchr(p, '\n', (size_t)(end - p));
		}
	}
	return NULL;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* x86-64 with AVX2 (chosen at run time): 32 bytes a step. A first test
 * finds the bytes <= 0x1b (a newline, a NUL, an ESC, but also a tab or a
 * CR), the exact one only runs on the 32 bytes where one is. */
__attribute__((target("avx2"))) static char *find_newline_avx2(struct linereader *lr, char *p, char *end)
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
				lr->may_ctrl = true;
				return memchr(p + j, '\n', (size_t)(end - p - j));
			}
		}
		p += 32;
	}
	return find_newline_v16(lr, p, end);
}

static int have_avx2 = -1;
#endif

static char *find_newline(struct linereader *lr, char *p, char *end)
{
#if defined(__x86_64__) && defined(__GNUC__)
	if (have_avx2 < 0) {
		__builtin_cpu_init();
		have_avx2 = __builtin_cpu_supports("avx2") ? 1 : 0;
	}
	if (have_avx2)
		return find_newline_avx2(lr, p, end);
#endif
	return find_newline_v16(lr, p, end);
}

void linereader_init(struct linereader *lr, int fd, size_t max)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = fd;
	lr->max = max ? max : 65536;
	lr->alloc = lr->max + CHUNK + 1;
	lr->buf = xmalloc(lr->alloc);
	lr->hold = xmalloc(lr->max + 1);
}

void linereader_set_source(struct linereader *lr, long (*fn)(void *ctx, void *buf, size_t n), void *ctx)
{
	lr->source = fn;
	lr->source_ctx = ctx;
}

void linereader_release(struct linereader *lr)
{
	free(lr->buf);
	free(lr->hold);
	lr->buf = lr->hold = NULL;
}

/* Reads more into buf after compacting; returns bytes read, 0 on EOF, <0 err. */
static ssize_t fill(struct linereader *lr)
{
	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	size_t room = lr->alloc - 1 - lr->end;
	if (room == 0)
		return -ENOBUFS;
	for (;;) {
		if (lr->source) {
			long k = lr->source(lr->source_ctx, lr->buf + lr->end, room);
			if (k < 0) {
				lr->err = (int)-k;
				return k;
			}
			if (k == 0)
				lr->eof = true;
			lr->end += (size_t)k;
			lr->bytes += (uint64_t)k;
			return k;
		}
		ssize_t n = read(lr->fd, lr->buf + lr->end, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			lr->err = errno;
			return -errno;
		}
		if (n == 0)
			lr->eof = true;
		lr->end += (size_t)n;
		lr->bytes += (uint64_t)n;
		return n;
	}
}

/* Discards input up to and including the next newline. */
static int skip_rest(struct linereader *lr)
{
	for (;;) {
		char *nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
		if (nl) {
			lr->start = (size_t)(nl - lr->buf) + 1;
			return 0;
		}
		lr->start = lr->end = 0;
		if (lr->eof)
			return 0;
		ssize_t n = fill(lr);
		if (n < 0)
			return (int)n;
	}
}

int linereader_next(struct linereader *lr, char **line, size_t *len)
{
	lr->truncated = false;
	lr->no_newline = false;
	lr->may_ctrl = false;
	size_t scanned = 0;
	for (;;) {
		size_t avail = lr->end - lr->start;
		char *nl = find_newline(lr, lr->buf + lr->start + scanned, lr->buf + lr->end);
		if (nl || avail > lr->max || (lr->eof && avail > 0)) {
			char *s = lr->buf + lr->start;
			size_t n;
			if (nl && (size_t)(nl - s) <= lr->max) {
				n = (size_t)(nl - s);
				lr->start += n + 1;
			} else if (!nl && lr->eof && avail <= lr->max) {
				n = avail;
				lr->start = lr->end;
				lr->no_newline = true;
			} else {
				/* too long: keep max bytes, drop the rest of the line */
				n = lr->max;
				lr->truncated = true;
				lr->truncated_lines++;
				memcpy(lr->hold, s, n);
				lr->start += n;
				int r = skip_rest(lr);
				if (r < 0)
					return r;
				s = lr->hold;
			}
			if (n > 0 && s[n - 1] == '\r')
				n--;
			s[n] = '\0';
			*line = s;
			*len = n;
			lr->lineno++;
			return 1;
		}
		if (lr->eof)
			return 0;
		scanned = avail;
		ssize_t r = fill(lr);
		if (r < 0)
			return (int)r;
		/* fill() compacted: scanned stays relative to start */
	}
}
