/* The framework-error catalog (kb/framework_errors.h), generated into
 * framework_errors_gen.def by tools/framework-errors/gen_c.py, and its
 * matcher. */
#include "kb/framework_errors.h"
#include "util/xalloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FE(key, fw, name, repo, path, commit, line, cause, reason, next, lit, pat, fixed, also, code) \
	{ key, fw, name, repo, path, commit, line, cause, reason, next, lit, pat, fixed, also, code },
static const struct framework_error rows[] = {
#include "kb/framework_errors_gen.def"
};
#undef FE

#define NROWS (sizeof(rows) / sizeof(rows[0]))

const struct framework_error *kb_framework_errors(size_t *n)
{
	*n = NROWS;
	return rows;
}

bool framework_error_is_cause(const struct framework_error *r)
{
	return strcmp(r->cause, "info") != 0 && strcmp(r->cause, "hang") != 0 && strcmp(r->cause, "context") != 0;
}

const char *framework_error_origin(const struct framework_error *r, char *buf, size_t bufsz)
{
	char ln[24] = "";
	if (r->line > 0)
		snprintf(ln, sizeof(ln), ":%d", r->line);
	snprintf(buf, bufsz, "%s %s%s@%.12s", r->repo, r->path, ln, r->commit);
	return buf;
}

static inline unsigned char low(char c)
{
	return (unsigned char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

static inline bool word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* The first place at or after `from` where p[0..m) occurs in s[0..n)
 * without regard to case; n when none. */
static size_t ci_find(const char *s, size_t n, size_t from, const char *p, size_t m)
{
	if (m == 0)
		return from <= n ? from : n;
	unsigned char c0 = low(p[0]);
	for (size_t i = from; i + m <= n; i++) {
		if (low(s[i]) != c0)
			continue;
		size_t k = 1;
		while (k < m && low(s[i + k]) == low(p[k]))
			k++;
		if (k == m)
			return i;
	}
	return n;
}

/* Fragment k of pattern p (the bytes between wildcards), NULL past the last. */
static const char *fragment(const char *p, int k, size_t *len)
{
	const char *f = p;
	for (int i = 0; i < k; i++) {
		f = strchr(f, FE_WILD);
		if (!f)
			return NULL;
		f++;
	}
	const char *e = strchr(f, FE_WILD);
	*len = e ? (size_t)(e - f) : strlen(f);
	return f;
}

static int nfragments(const char *p)
{
	int n = 1;
	for (; *p; p++)
		n += *p == FE_WILD;
	return n;
}

/* Fragments k.. of r's pattern in s[pos..n): the first and the last
 * fragment try each place (their word boundaries may reject one), the
 * others take the first. */
static bool match_from(const char *pat, int k, int nf, bool lead, bool trail, const char *s, size_t n, size_t pos)
{
	if (k == nf)
		return true;
	size_t len;
	const char *f = fragment(pat, k, &len);
	bool first = k == 0, last = k == nf - 1;
	for (size_t q = ci_find(s, n, pos, f, len); q < n || (len == 0 && q == n); q = ci_find(s, n, q + 1, f, len)) {
		bool ok = !(first && lead && q > 0 && word(s[q - 1])) && !(last && trail && q + len < n && word(s[q + len]));
		if (ok && match_from(pat, k + 1, nf, lead, trail, s, n, q + len))
			return true;
		if (!first && !last)
			return false;
		if (len == 0 || q >= n)
			break;
	}
	return false;
}

bool framework_error_matches(const struct framework_error *r, const char *s, size_t n)
{
	const char *p = r->pattern;
	size_t pl = strlen(p);
	if (!pl || r->fixed <= 0)
		return false;
	if (r->also[0] && ci_find(s, n, 0, r->also, strlen(r->also)) >= n)
		return false;
	bool lead = word(p[0]), trail = word(p[pl - 1]);
	return match_from(p, 0, nfragments(p), lead, trail, s, n, 0);
}

/* ---- the index ------------------------------------------------------ */

#define FE_HASH_BITS 16
#define FE_HASH_SIZE (1u << FE_HASH_BITS)

struct fe_index {
	size_t n;
	int *order;           /* rows to try, best first */
	int *rank;            /* each row's place in order */
	uint32_t *anchor;     /* each row's anchor (word4 of 4 bytes), 0 none */
	int *loose;           /* ranks of the rows without an anchor: always tried */
	size_t nloose;
	/* the anchored rows by the hash of their anchor: bucket h is
	 * brows[bstart[h] .. bstart[h + 1]), so a line's 4 bytes meet only
	 * the rows that share their hash, however large the catalog grows */
	int *bstart;
	int *brows;
	uint64_t bits[FE_HASH_SIZE / 64];
	/* pastes cut short: the rows whose first fragment holds FE_CUT_MIN
	 * bytes or more, by the hash of their first 8 bytes (cstart/crows as
	 * bstart/brows) */
	int *cstart;
	int *crows;
	uint64_t cbits[FE_HASH_SIZE / 64];
};

/* The fewest bytes of a row's first fragment that a line cut short must
 * show (about eight words: enough to be one sentence of one source). */
#define FE_CUT_MIN 40

/* 4 bytes with bit 5 set in each: ASCII letters fold to lower case (and a
 * few other bytes onto others, harmless in a prefilter that the full
 * match then checks); one load a byte of the line. */
static inline uint32_t word4(const char *s)
{
	uint32_t w;
	memcpy(&w, s, 4);
	return w | 0x20202020u;
}

static inline uint32_t hash4(uint32_t w)
{
	return (w * 0x9E3779B1u) >> (32 - FE_HASH_BITS);
}

/* The hash of 8 bytes, folded as word4 does. */
static inline uint32_t hash8(const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	w |= 0x2020202020202020ULL;
	return (uint32_t)((w * 0x9E3779B97F4A7C15ULL) >> (64 - FE_HASH_BITS));
}

/* Whether row i may be matched by a line cut inside its first fragment. */
static bool cut_row(size_t i)
{
	size_t len;
	const char *f = fragment(rows[i].pattern, 0, &len);
	return f && len >= FE_CUT_MIN && !rows[i].also[0] && rows[i].fixed > 0;
}

static int better(const void *x, const void *y)
{
	const struct framework_error *a = &rows[*(const int *)x], *b = &rows[*(const int *)y];
	if (!a->also[0] != !b->also[0])
		return a->also[0] ? -1 : 1;
	if (a->fixed != b->fixed)
		return a->fixed > b->fixed ? -1 : 1;
	return *(const int *)x - *(const int *)y;
}

struct fe_index *fe_index_new(void)
{
	struct fe_index *x = xcalloc(1, sizeof(*x));
	x->n = NROWS;
	x->order = xmalloc(NROWS * sizeof(int));
	x->rank = xmalloc(NROWS * sizeof(int));
	x->anchor = xcalloc(NROWS, sizeof(uint32_t));
	x->loose = xmalloc(NROWS * sizeof(int));
	x->bstart = xcalloc(FE_HASH_SIZE + 1, sizeof(int));
	x->brows = xmalloc(NROWS * sizeof(int));
	for (size_t i = 0; i < NROWS; i++) {
		x->order[i] = (int)i;
		/* the anchor: the longest fragment's first 4 bytes */
		const char *best = NULL;
		size_t bestlen = 0, len;
		const char *f;
		for (int k = 0; (f = fragment(rows[i].pattern, k, &len)); k++)
			if (len > bestlen) {
				best = f;
				bestlen = len;
			}
		if (bestlen < 4)
			continue;
		x->anchor[i] = word4(best);
		uint32_t h = hash4(x->anchor[i]);
		x->bits[h / 64] |= 1ULL << (h % 64);
		x->bstart[h + 1]++;
	}
	qsort(x->order, NROWS, sizeof(int), better);
	for (size_t h = 0; h < FE_HASH_SIZE; h++)
		x->bstart[h + 1] += x->bstart[h];
	/* fill the buckets in rank order: each bucket is best first */
	int *fill = xmalloc(FE_HASH_SIZE * sizeof(int));
	memcpy(fill, x->bstart, FE_HASH_SIZE * sizeof(int));
	for (size_t k = 0; k < NROWS; k++) {
		int r = x->order[k];
		x->rank[r] = (int)k;
		if (x->anchor[r])
			x->brows[fill[hash4(x->anchor[r])]++] = r;
		else
			x->loose[x->nloose++] = (int)k;
	}
	free(fill);
	x->cstart = xcalloc(FE_HASH_SIZE + 1, sizeof(int));
	x->crows = xmalloc(NROWS * sizeof(int));
	for (size_t i = 0; i < NROWS; i++)
		if (cut_row(i)) {
			uint32_t h = hash8(rows[i].pattern);
			x->cbits[h / 64] |= 1ULL << (h % 64);
			x->cstart[h + 1]++;
		}
	for (size_t h = 0; h < FE_HASH_SIZE; h++)
		x->cstart[h + 1] += x->cstart[h];
	fill = xmalloc(FE_HASH_SIZE * sizeof(int));
	memcpy(fill, x->cstart, FE_HASH_SIZE * sizeof(int));
	for (size_t k = 0; k < NROWS; k++) {
		int r = x->order[k];
		if (cut_row((size_t)r))
			x->crows[fill[hash8(rows[r].pattern)]++] = r;
	}
	free(fill);
	return x;
}

void fe_index_free(struct fe_index *x)
{
	if (!x)
		return;
	free(x->order);
	free(x->rank);
	free(x->anchor);
	free(x->loose);
	free(x->bstart);
	free(x->brows);
	free(x->cstart);
	free(x->crows);
	free(x);
}

/* A line that ends inside a row's first fragment: an error message whose
 * paste was cut short (an issue title, a terminal's width, "..."), at
 * least FE_CUT_MIN bytes of it. The message may begin the line or follow
 * ": ", "] " or a quote (a Python exception's type, a logger's prefix). */
/* Whether s[i..e) is a placeholder's text (at most FE_CUT_FILL bytes) and
 * then fragments k.. of pat, the line ending inside one of them (a
 * non-empty proper prefix of it): a message wrapped or cut after its first
 * fragment, as "this nccl communicator is created to work on cuda:1,"
 * ends a line before ", but the input tensor is on cuda:0". The first
 * whole occurrence of a fragment is taken (a placeholder absorbs any
 * text), so the work is linear in the fragments, never a search over
 * every split of the line. */
#define FE_CUT_FILL 128
static bool prefix_ci(const char *s, const char *f, size_t m)
{
	size_t c = 0;
	while (c < m && low(s[c]) == low(f[c]))
		c++;
	return c == m;
}

static bool cut_tail(const char *pat, int k, int nf, const char *s, size_t i, size_t e)
{
	size_t len;
	const char *f = fragment(pat, k, &len);
	if (!f || len == 0 || i >= e)
		return false;
	/* the line ends inside fragment k */
	for (size_t j = e - i < len ? i : e - len + 1; j < e && j - i <= FE_CUT_FILL; j++)
		if (prefix_ci(s + j, f, e - j))
			return true;
	if (k + 1 >= nf)
		return false;
	/* or fragment k is whole and the line goes on into the next ones */
	for (size_t j = i; j + len < e && j - i <= FE_CUT_FILL; j++)
		if (prefix_ci(s + j, f, len))
			return cut_tail(pat, k + 1, nf, s, j + len, e);
	return false;
}

static const struct framework_error *fe_index_find_cut(const struct fe_index *x, const char *s, size_t n)
{
	size_t e = n;
	for (;;) {
		if (e && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r' || s[e - 1] == '.' || s[e - 1] == '"' ||
			  s[e - 1] == '\''))
			e--;
		else if (e >= 3 && (unsigned char)s[e - 3] == 0xe2 && (unsigned char)s[e - 2] == 0x80 &&
			 (unsigned char)s[e - 1] == 0xa6) /* U+2026 ... */
			e -= 3;
		else
			break;
	}
	if (e < FE_CUT_MIN)
		return NULL;
	size_t b = 0;
	while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '>' || s[b] == '#' || s[b] == '`'))
		b++;
	for (size_t p = b; p + FE_CUT_MIN <= e; p++) {
		if (p != b && !((p >= 2 && (s[p - 2] == ':' || s[p - 2] == ']') && s[p - 1] == ' ') ||
				(p >= 1 && (s[p - 1] == '"' || s[p - 1] == '\''))))
			continue;
		uint32_t h = hash8(s + p);
		if (!(x->cbits[h / 64] & 1ULL << (h % 64)))
			continue;
		for (int j = x->cstart[h]; j < x->cstart[h + 1]; j++) {
			const struct framework_error *r = &rows[x->crows[j]];
			size_t len;
			const char *f = fragment(r->pattern, 0, &len);
			size_t m = e - p;
			int nf = nfragments(r->pattern);
			if (m == len && nf == 1)
				continue; /* the whole message: not cut */
			if (!prefix_ci(s + p, f, m < len ? m : len))
				continue;
			if (m <= len || (nf > 1 && cut_tail(r->pattern, 1, nf, s, p + len, e)))
				return r; /* cut inside the first fragment, or after it inside a later one */
		}
	}
	return NULL;
}

const struct framework_error *fe_index_find(const struct fe_index *x, const char *s, size_t n)
{
	bool seen[NROWS + 1];
	int cands[NROWS + 1]; /* the ranks of the rows to try */
	size_t ncands = 0;
	memset(seen, 0, sizeof(seen));
	for (size_t i = 0; i + 4 <= n; i++) {
		uint32_t w = word4(s + i), h = hash4(w);
		if (!(x->bits[h / 64] & 1ULL << (h % 64)))
			continue;
		for (int j = x->bstart[h]; j < x->bstart[h + 1]; j++) {
			int r = x->brows[j];
			if (x->anchor[r] == w && !seen[r]) {
				seen[r] = true;
				cands[ncands++] = x->rank[r];
			}
		}
	}
	for (size_t k = 0; k < x->nloose; k++)
		cands[ncands++] = x->loose[k];
	/* best first, as the order says: few candidates, an insertion sort */
	for (size_t a = 1; a < ncands; a++)
		for (size_t b = a; b > 0 && cands[b - 1] > cands[b]; b--) {
			int t = cands[b];
			cands[b] = cands[b - 1];
			cands[b - 1] = t;
		}
	for (size_t k = 0; k < ncands; k++) {
		int r = x->order[cands[k]];
		if (framework_error_matches(&rows[r], s, n))
			return &rows[r];
	}
	return fe_index_find_cut(x, s, n);
}
