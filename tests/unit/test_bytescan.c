/* Unit tests of util/bytescan.h: bscan_find_byte and bscan_find_lit find
 * the first occurrence exactly as memchr and memmem do, for every length
 * of span (the 16-byte steps, the overlapping last step, the bytes one by
 * one) and every position of the match; spans are tested in buffers of
 * their exact size, so that the sanitizer build catches a read past the
 * end. bscan_bits16 and bscan_first16 on every 16-byte mask.
 * test_bytescan_portable.c compiles this file again without SSE2 (the
 * code other targets get). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "util/bytescan.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x2545F4914F6CDD1DULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

/* n random bytes of a small alphabet (matches are frequent) */
static char *random_span(size_t n)
{
	static const char alpha[] = "ab :\n";
	char *s = malloc(n ? n : 1);
	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		s[i] = alpha[rnd(sizeof(alpha) - 1)];
	return s;
}

static void test_find_byte(void **state)
{
	(void)state;
	for (size_t n = 0; n < 100; n++) {
		for (int r = 0; r < 200; r++) {
			char *s = random_span(n);
			if (n && r % 2) /* at most one ':' at a chosen place */
				for (size_t i = 0; i < n; i++)
					if (s[i] == ':')
						s[i] = 'a';
			if (n && r % 4 == 1)
				s[rnd((unsigned)n)] = ':';
			const char *want = memchr(s, ':', n);
			assert_ptr_equal(bscan_find_byte(s, ':', n), want);
			free(s);
		}
	}
}

static void test_find_lit(void **state)
{
	(void)state;
	static const char *const lits[] = { "ab", "a b", ": ", "ba:", "abab", "b a :", "a:b:a:b", "ab ab ab ab ab ab ab" };
	for (size_t n = 0; n < 100; n++) {
		for (int r = 0; r < 100; r++) {
			char *s = random_span(n);
			const char *lit = lits[rnd(sizeof(lits) / sizeof(lits[0]))];
			size_t k = strlen(lit);
			if (k <= n && r % 3 == 0) /* plant it somewhere */
				memcpy(s + rnd((unsigned)(n - k + 1)), lit, k);
			const char *want = memmem(s, n, lit, k);
			assert_ptr_equal(bscan_find_lit(s, n, lit, k), want);
			free(s);
		}
	}
}

/* every 0x00/0xff mask of 16 bytes: bit i for byte i */
static void test_bits16(void **state)
{
	(void)state;
	for (unsigned x = 0; x < 65536; x++) {
		bscan_v16 m;
		for (int i = 0; i < 16; i++)
			m[i] = (x >> i & 1) ? 0xff : 0;
		assert_int_equal(bscan_bits16(m), x);
		assert_int_equal(bscan_first16(m), x ? (unsigned)__builtin_ctz(x) : 16);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bits16),
		cmocka_unit_test(test_find_byte),
		cmocka_unit_test(test_find_lit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
