/* Byte scanning with 16-byte vectors (GCC/Clang vector extensions: SSE2 on
 * x86-64, NEON on aarch64, plain code elsewhere), shared by the line reader
 * (newline search) and the NCCL log parser (short searches inside a line).
 * The short-span helpers are inline: they run several times on every line
 * of a multi-gigabyte log, where a call costs more than the search. */
#ifndef ND_UTIL_BYTESCAN_H
#define ND_UTIL_BYTESCAN_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef unsigned char bscan_v16 __attribute__((vector_size(16)));

static inline bscan_v16 bscan_load16(const char *s)
{
	bscan_v16 v;
	memcpy(&v, s, 16);
	return v;
}

/* Whether any byte of v is set. */
static inline bool bscan_any16(bscan_v16 v)
{
	uint64_t w[2];
	memcpy(w, &v, sizeof(w));
	return (w[0] | w[1]) != 0;
}

/* Index of the first byte of a 0x00/0xff word that is set (w != 0). */
static inline unsigned bscan_first_set_byte(uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (unsigned)__builtin_clzll(w) / 8;
#else
	return (unsigned)__builtin_ctzll(w) / 8;
#endif
}

/* Index of the first set byte of a 0x00/0xff mask, 16 when none. */
static inline unsigned bscan_first16(bscan_v16 m)
{
#if defined(__SSE2__)
	__m128i x;
	memcpy(&x, &m, 16);
	unsigned bits = (unsigned)_mm_movemask_epi8(x);
	return bits ? (unsigned)__builtin_ctz(bits) : 16;
#else
	uint64_t w[2];
	memcpy(w, &m, sizeof(w));
	if (w[0])
		return bscan_first_set_byte(w[0]);
	if (w[1])
		return 8 + bscan_first_set_byte(w[1]);
	return 16;
#endif
}

/* The set bytes of a 0x00/0xff mask as 16 bits, byte i in bit i. */
static inline unsigned bscan_bits16(bscan_v16 m)
{
#if defined(__SSE2__)
	__m128i x;
	memcpy(&x, &m, 16);
	return (unsigned)_mm_movemask_epi8(x);
#elif defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	/* each 8 bytes' top bits gathered by one multiply (no carries: each
	 * bit lands alone) */
	uint64_t w[2];
	memcpy(w, &m, sizeof(w));
	uint64_t lo = ((w[0] >> 7) & 0x0101010101010101ULL) * 0x0102040810204080ULL >> 56;
	uint64_t hi = ((w[1] >> 7) & 0x0101010101010101ULL) * 0x0102040810204080ULL >> 56;
	return (unsigned)(lo | hi << 8);
#else
	unsigned bits = 0;
	for (int i = 0; i < 16; i++)
		bits |= (m[i] ? 1u : 0u) << i;
	return bits;
#endif
}

/* memchr for short spans (the first bytes of a line, a message): no
 * library call, 16 bytes a step; the last bytes of a span of 16 or more
 * in one more (overlapping) step, not one by one. */
static inline const char *bscan_find_byte(const char *s, int c, size_t n)
{
	const bscan_v16 vc = (bscan_v16){ 0 } + (unsigned char)c;
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		unsigned j = bscan_first16((bscan_v16)(bscan_load16(s + i) == vc));
		if (j < 16)
			return s + i + j;
	}
	if (i < n && n >= 16) {
		size_t j0 = n - 16; /* its bytes before i are tested already */
		unsigned bits = bscan_bits16((bscan_v16)(bscan_load16(s + j0) == vc)) >> (i - j0);
		return bits ? s + i + __builtin_ctz(bits) : NULL;
	}
	for (; i < n; i++)
		if (s[i] == (char)c)
			return s + i;
	return NULL;
}

static inline bool bscan_same(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* memmem for short literals (glibc's memmem builds a shift table on every
 * call, which costs more than the search in a 100-byte line): the first
 * occurrence of nd[0..nn) in h[0..hn). 16 positions a step are tested on
 * two bytes of the literal (its first and last that are not spaces: spaces
 * are everywhere), then compared in full. */
static inline const char *bscan_find_lit(const char *h, size_t hn, const char *nd, size_t nn)
{
	if (nn == 0)
		return h;
	if (nn > hn)
		return NULL;
	if (nn == 1)
		return memchr(h, (unsigned char)nd[0], hn);
	size_t a = 0, b = nn - 1;
	while (a < b && nd[a] == ' ')
		a++;
	while (b > a && nd[b] == ' ')
		b--;
	if (a == b) /* one byte that is not a space (or none): any two */
		a = b > 0 ? b - 1 : 0, b = a + 1;
	const bscan_v16 va = (bscan_v16){ 0 } + (unsigned char)nd[a];
	const bscan_v16 vb = (bscan_v16){ 0 } + (unsigned char)nd[b];
	size_t i = 0;
	for (; i + (nn - 1) + 16 <= hn; i += 16) {
		bscan_v16 eq = (bscan_v16)((bscan_load16(h + i + a) == va) & (bscan_load16(h + i + b) == vb));
		/* one 16-bit mask a step (candidates are rare) */
		for (unsigned bits = bscan_bits16(eq); bits; bits &= bits - 1) {
			const char *c = h + i + __builtin_ctz(bits);
			if (bscan_same(c, nd, nn))
				return c;
		}
	}
	if (i + nn <= hn && hn >= (nn - 1) + 16) {
		/* the last start positions in one overlapping step */
		size_t j0 = hn - (nn - 1) - 16;
		bscan_v16 eq = (bscan_v16)((bscan_load16(h + j0 + a) == va) & (bscan_load16(h + j0 + b) == vb));
		for (unsigned bits = bscan_bits16(eq) >> (i - j0); bits; bits &= bits - 1) {
			const char *c = h + i + __builtin_ctz(bits);
			if (bscan_same(c, nd, nn))
				return c;
		}
		return NULL;
	}
	for (; i + nn <= hn; i++)
		if (h[i + a] == nd[a] && h[i + b] == nd[b] && bscan_same(h + i, nd, nn))
			return h + i;
	return NULL;
}

/* BSCAN_FIND(h, n, "literal") */
#define BSCAN_FIND(h, n, lit) bscan_find_lit((h), (n), (lit), sizeof(lit) - 1)

/* Whether s[0..len) holds a NUL or an ESC byte: one pass, 32 bytes a step. */
static inline bool bscan_has_nul_or_esc(const char *s, size_t len)
{
	const bscan_v16 esc = (bscan_v16){ 0 } + 0x1b;
	size_t i = 0;
	if (len >= 16) {
		bscan_v16 a, b;
		for (; i + 32 <= len; i += 32) {
			a = bscan_load16(s + i);
			b = bscan_load16(s + i + 16);
			if (bscan_any16((bscan_v16)((a == 0) | (a == esc) | (b == 0) | (b == esc))))
				return true;
		}
		if (i + 16 <= len) {
			a = bscan_load16(s + i);
			if (bscan_any16((bscan_v16)((a == 0) | (a == esc))))
				return true;
		}
		/* the last 16 bytes (overlapping what was checked) */
		a = bscan_load16(s + len - 16);
		return bscan_any16((bscan_v16)((a == 0) | (a == esc)));
	}
	for (; i < len; i++)
		if (s[i] == '\0' || s[i] == 0x1b)
			return true;
	return false;
}

/* The first '\n' in [p, end), or NULL; sets *ctrl when a NUL or an ESC
 * byte comes before it (or before end, when there is none). AVX2 (chosen
 * at run time) on x86-64, 16-byte vectors elsewhere. */
char *bscan_find_newline(char *p, char *end, bool *ctrl);

#endif
