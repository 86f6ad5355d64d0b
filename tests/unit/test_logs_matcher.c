/* Unit tests of the NCCL log signature matcher (analyze/logs/read/match.c):
 * its sampled multi-literal scan must find exactly what the plain search
 * (nl_matcher_find_all_ref: the line lowered, every row's literals
 * searched for in table order) finds, on every line of the log fixtures
 * as INFO, WARN and other text, on random mutations of the first line of
 * each shape (lines that differ only in numbers), and on lines built
 * around every literal of the table (any case, any offset, cut short by a
 * byte). Each line is tested in a buffer of its exact size, so
 * that the sanitizer build catches a read past its end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/logs/read/read.h"
#include "kb/nccl_signatures.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static unsigned rnd(unsigned n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned)(rng % n);
}

static long ncompared;

/* Both matchers on s[0..n) (copied into a buffer of exactly n bytes) as
 * each kind of line. */
static void same(const struct nl_matcher *m, const char *s, size_t n)
{
	static const unsigned kinds[3] = { NS_INFO, NS_WARN, NS_TEXT };
	char *buf = malloc(n ? n : 1);
	assert_non_null(buf);
	memcpy(buf, s, n);
	for (int k = 0; k < 3; k++) {
		int a[NL_MAX_LINE_SIGS], b[NL_MAX_LINE_SIGS];
		int na = nl_matcher_find_all(m, buf, n, kinds[k], a, NL_MAX_LINE_SIGS);
		int nb = nl_matcher_find_all_ref(m, buf, n, kinds[k], b, NL_MAX_LINE_SIGS);
		bool ok = na == nb;
		for (int i = 0; ok && i < na; i++)
			ok = a[i] == b[i];
		if (!ok) {
			for (int i = 0; i < na; i++)
				print_error("fast %s\n", nl_matcher_sig(m, a[i])->id);
			for (int i = 0; i < nb; i++)
				print_error("plain %s\n", nl_matcher_sig(m, b[i])->id);
		}
		if (!ok)
			fail_msg("kind %u: %d rows (first %s), the plain search %d (first %s) for '%.*s'", kinds[k], na,
				 na ? nl_matcher_sig(m, a[0])->id : "-", nb, nb ? nl_matcher_sig(m, b[0])->id : "-", (int)n, s);
		ncompared++;
	}
	free(buf);
}

/* s, then random mutations of it: a byte's case flipped, cut at a random
 * place, a byte replaced. */
static void same_mutated(const struct nl_matcher *m, const char *s, size_t n)
{
	same(m, s, n);
	if (n == 0)
		return;
	char *t = malloc(n);
	assert_non_null(t);
	for (int r = 0; r < 3; r++) {
		memcpy(t, s, n);
		for (unsigned j = 0; j < 1 + rnd(4); j++) {
			size_t i = rnd((unsigned)n);
			if (t[i] >= 'a' && t[i] <= 'z')
				t[i] = (char)(t[i] - 32);
			else if (t[i] >= 'A' && t[i] <= 'Z')
				t[i] = (char)(t[i] + 32);
			else
				t[i] = (char)(t[i] ^ 0x20);
		}
		same(m, t, n);
		size_t from = rnd((unsigned)n);
		same(m, s + from, rnd((unsigned)(n - from + 1)));
	}
	free(t);
}

static long nfixture_lines;

/* Lines of one shape (their digits and hex numbers aside) differ only in
 * numbers: the first of each shape is mutated, every line is tested as it
 * is. An open-addressed set of 64-bit hashes of shapes. */
#define SHAPES (1u << 16)
static uint64_t shapes[SHAPES];

static bool new_shape(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c >= '0' && c <= '9') {
			while (i + 1 < n && ((s[i + 1] >= '0' && s[i + 1] <= '9') || (s[i + 1] >= 'a' && s[i + 1] <= 'f') ||
					     s[i + 1] == 'x'))
				i++;
			c = '0';
		}
		h = (h ^ c) * 1099511628211ULL;
	}
	h |= 1; /* 0 marks an empty slot */
	for (size_t k = (size_t)(h % SHAPES), probes = 0; probes < SHAPES; k = (k + 1) % SHAPES, probes++) {
		if (shapes[k] == h)
			return false;
		if (shapes[k] == 0) {
			shapes[k] = h;
			return true;
		}
	}
	return false; /* full: every further line is tested as it is only */
}

static void walk(const struct nl_matcher *m, const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		char path[4096];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		struct stat st;
		if (stat(path, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			walk(m, path);
			continue;
		}
		if (!S_ISREG(st.st_mode) || st.st_size > (1 << 20))
			continue;
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		char *line = NULL;
		size_t cap = 0;
		ssize_t k;
		while ((k = getline(&line, &cap, f)) > 0) {
			size_t n = (size_t)k;
			if (line[n - 1] == '\n')
				n--;
			if (new_shape(line, n))
				same_mutated(m, line, n);
			else
				same(m, line, n);
			/* the message alone, as the reader passes it for INFO */
			const char *msg = strstr(line, " NCCL INFO ");
			if (msg)
				same(m, msg + 11, (size_t)(line + n - msg - 11));
			nfixture_lines++;
		}
		free(line);
		fclose(f);
	}
	closedir(d);
}

static void test_fixture_lines(void **state)
{
	(void)state;
	struct nl_matcher *m = nl_matcher_new();
	const char *fx = getenv("ND_FIXTURES") ? getenv("ND_FIXTURES") : ND_FIXTURES;
	char dir[4096];
	snprintf(dir, sizeof(dir), "%s/logs", fx);
	walk(m, dir);
	assert_true(nfixture_lines > 1000);
	nl_matcher_free(m);
}

/* text[0..k) in random case */
static void random_case(char *dst, const char *src, size_t k)
{
	for (size_t i = 0; i < k; i++) {
		char c = src[i];
		if (rnd(2) && c >= 'a' && c <= 'z')
			c = (char)(c - 32);
		else if (rnd(2) && c >= 'A' && c <= 'Z')
			c = (char)(c + 32);
		dst[i] = c;
	}
}

static const char *const fillers[] = {
	"", " ", "x", "ab", "node1:4242:4242 [0] NCCL INFO ", "[rank3]: ", "transport/p2p.cc:189 ",
	"Could not find: libnccl-net.so ", "NET/IB : No device found. ", "cuda ", "rc=1", "Kill",
};

/* Every literal (and `also`) of the table inside other text: at every
 * offset modulo the scan's step, in random case, whole and cut by a byte,
 * two of them on one line. */
static void test_literals_everywhere(void **state)
{
	(void)state;
	struct nl_matcher *m = nl_matcher_new();
	size_t ns;
	const struct nccl_signature *sigs = kb_nccl_signatures(&ns);
	const char *lits[NL_MAX_SIGS * (NS_MAX_ANY + 1)];
	size_t nl = 0;
	for (size_t i = 0; i < ns && i < NL_MAX_SIGS; i++) {
		for (int k = 0; k < NS_MAX_ANY && sigs[i].any[k]; k++)
			lits[nl++] = sigs[i].any[k];
		if (sigs[i].also)
			lits[nl++] = sigs[i].also;
	}
	char line[1024];
	for (size_t a = 0; a < nl; a++) {
		/* one filler, then the literal at 12 consecutive offsets after it:
		 * every offset modulo the scan's step (the shortest literal of 6
		 * bytes or more, less 3) */
		const char *f1 = fillers[rnd(sizeof(fillers) / sizeof(fillers[0]))];
		for (int r = 0; r < 12; r++) {
			size_t n = 0;
			size_t pad = (size_t)r;
			memcpy(line + n, f1, strlen(f1));
			n += strlen(f1);
			for (size_t p = 0; p < pad; p++)
				line[n++] = (char)('a' + rnd(26));
			size_t k = strlen(lits[a]);
			if (r % 3 == 2 && k > 1)
				k--; /* cut short: must not match by this literal */
			random_case(line + n, lits[a], k);
			n += k;
			if (r % 4 == 1) { /* a second literal */
				const char *b = lits[rnd((unsigned)nl)];
				line[n++] = ' ';
				random_case(line + n, b, strlen(b));
				n += strlen(b);
			}
			const char *f2 = fillers[rnd(sizeof(fillers) / sizeof(fillers[0]))];
			memcpy(line + n, f2, strlen(f2));
			n += strlen(f2);
			same(m, line, n);
			if (r == 0)
				same(m, lits[a], strlen(lits[a])); /* the literal alone */
		}
	}
	nl_matcher_free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixture_lines),
		cmocka_unit_test(test_literals_everywhere),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	fprintf(stderr, "%ld comparisons\n", ncompared);
	return rc;
}
