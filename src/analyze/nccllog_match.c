/* NCCL log reader: the signature matcher. Finds the rows of
 * kb_nccl_signatures() whose literals a line contains, with a multi-literal
 * scan that tests the line every few bytes (see below). */
#include "analyze/nccllog_int.h"
#include "util/xalloc.h"

/* A line is tested every `step` bytes, where step = L - 3 and L is the
 * shortest literal (of 4 bytes or more) of its kind: an occurrence of a
 * literal at i covers the L - 3 positions i .. i + L - 4, one of which is a
 * multiple of step, where the line's 4 bytes are those of the literal at
 * offset d = x - i. So each literal is indexed by the hashes of its 4-byte
 * pieces at offsets 0 .. L - 4, and a hit at x is checked at i = x - d.
 * Literals of 2 or 3 bytes are searched for one by one. */

struct lit {
	const char *s;  /* lower case (ASCII), owned */
	size_t n;
	uint32_t head;  /* its first 4 bytes (n >= 4), compared before memcmp */
	int sig;
};

struct piece {
	int lit;
	int d;          /* offset of the piece in the literal */
	int next;       /* the next piece of the same hash, -1 */
};

/* One index per kind of line (INFO, WARN, other text), so that each line
 * is only checked against the rows that can match it. */
struct kindidx {
	uint8_t bits[65536 / 8]; /* hashes of the pieces */
	int *head;               /* 65536 chains of pieces */
	size_t step;             /* 0: no literal of 4 bytes or more */
	int *tiny;               /* literals of 2 or 3 bytes */
	int ntiny;
};

struct nl_matcher {
	struct kindidx kind[3];
	struct lit *lits;
	int nlits;
	struct piece *pieces;
	int npieces;
	size_t apieces;
	const struct nccl_signature *sigs;
	size_t nsigs;
	int w00;
	struct nl_warnidx *warns; /* NCCL's own messages, for the W00 fallback */
};

static inline char lower_ascii(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* dst[0..n) = src[0..n) with ASCII upper case lowered, 8 bytes at a time
 * (a byte is upper case when it is ASCII, >= 'A' and not > 'Z'; bit 5 is
 * then added). */
static void lower_copy(char *dst, const char *src, size_t n)
{
	const uint64_t ones = 0x0101010101010101ULL, high = 0x8080808080808080ULL;
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x;
		memcpy(&x, src + i, 8);
		uint64_t h = x & ~high;                /* the 7 low bits of each byte */
		uint64_t ge_a = h + ones * (0x80 - 'A'); /* high bit: >= 'A' */
		uint64_t gt_z = h + ones * (0x7f - 'Z'); /* high bit: > 'Z' */
		uint64_t up = ge_a & ~gt_z & ~x & high;
		x |= up >> 2;
		memcpy(dst + i, &x, 8);
	}
	for (; i < n; i++)
		dst[i] = lower_ascii(src[i]);
}

/* Whether the lower-cased line low[n] holds lit, compared in lower case. */
static bool low_has(const char *low, size_t n, const char *lit)
{
	char buf[128];
	size_t k = strlen(lit);
	if (k >= sizeof(buf))
		return mem_has(low, n, lit);
	for (size_t i = 0; i < k; i++)
		buf[i] = lower_ascii(lit[i]);
	return bscan_find_lit(low, n, buf, k) != NULL;
}

static int kind_index(unsigned where)
{
	return where == NS_INFO ? 0 : where == NS_WARN ? 1 : 2;
}

/* 16 bits of hash of the 4 bytes at s */
static unsigned quad_hash(const char *s)
{
	uint32_t w;
	memcpy(&w, s, 4);
	return (w * 0x9E3779B1u) >> 16;
}

struct nl_matcher *nl_matcher_new(void)
{
	struct nl_matcher *m = xcalloc(1, sizeof(*m));
	m->sigs = kb_nccl_signatures(&m->nsigs);
	if (m->nsigs > NL_MAX_SIGS)
		m->nsigs = NL_MAX_SIGS;
	size_t maxlits = m->nsigs * NS_MAX_ANY * 3;
	m->lits = xcalloc(maxlits ? maxlits : 1, sizeof(struct lit));
	int *litkind = xcalloc(maxlits ? maxlits : 1, sizeof(int));
	m->w00 = -1;
	static const unsigned kinds[3] = { NS_INFO, NS_WARN, NS_TEXT };
	size_t minlen[3] = { 0, 0, 0 };
	for (size_t ri = 0; ri < m->nsigs; ri++) {
		if (m->w00 < 0 && strcmp(m->sigs[ri].id, "W00") == 0)
			m->w00 = (int)ri;
		for (int kk = 0; kk < 3; kk++) {
			if (!(m->sigs[ri].where & kinds[kk]))
				continue;
			for (int k = 0; k < NS_MAX_ANY && m->sigs[ri].any[k]; k++) {
				const char *str = m->sigs[ri].any[k];
				size_t n = strlen(str);
				if (n < 2)
					continue;
				struct lit *l = &m->lits[m->nlits];
				char *low = xmalloc(n + 1);
				for (size_t c = 0; c <= n; c++)
					low[c] = lower_ascii(str[c]);
				l->s = low;
				l->n = n;
				if (n >= 4) {
					memcpy(&l->head, low, 4);
					if (!minlen[kk] || n < minlen[kk])
						minlen[kk] = n;
				}
				l->sig = (int)ri;
				litkind[m->nlits++] = kk;
			}
		}
	}
	for (int kk = 0; kk < 3; kk++) {
		struct kindidx *ki = &m->kind[kk];
		ki->head = xmalloc(65536 * sizeof(int));
		for (int i = 0; i < 65536; i++)
			ki->head[i] = -1;
		ki->tiny = xcalloc((size_t)m->nlits + 1, sizeof(int));
		ki->step = minlen[kk] ? minlen[kk] - 3 : 0;
		for (int li = 0; li < m->nlits; li++) {
			const struct lit *l = &m->lits[li];
			if (litkind[li] != kk)
				continue;
			if (l->n < 4) {
				ki->tiny[ki->ntiny++] = li;
				continue;
			}
			for (size_t d = 0; d + 4 <= minlen[kk]; d++) {
				unsigned h = quad_hash(l->s + d);
				XGROW(m->pieces, m->apieces, (size_t)m->npieces + 1);
				struct piece *pc = &m->pieces[m->npieces];
				pc->lit = li;
				pc->d = (int)d;
				pc->next = ki->head[h];
				ki->head[h] = m->npieces++;
				ki->bits[h >> 3] |= (uint8_t)(1u << (h & 7));
			}
		}
	}
	free(litkind);
	m->warns = nl_warnidx_new();
	return m;
}

void nl_matcher_free(struct nl_matcher *m)
{
	if (!m)
		return;
	for (int k = 0; k < 3; k++) {
		free(m->kind[k].head);
		free(m->kind[k].tiny);
	}
	free(m->pieces);
	for (int i = 0; i < m->nlits; i++)
		free((char *)m->lits[i].s);
	free(m->lits);
	nl_warnidx_free(m->warns);
	free(m);
}

/* Extra checks for rows whose literal alone is too loose. */
static bool sig_accept(const struct nccl_signature *g, const char *s, size_t n)
{
	if (strcmp(g->id, "X02") == 0) {
		/* the shell's job message: "Killed" alone, or "... 1234 Killed  cmd" */
		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		if (n < 120 && (starts(s, n, "Killed") || starts(s, n, "Terminated")))
			return true;
		return n < 200 && (mem_has(s, n, " Killed ") || mem_has(s, n, " Terminated ")) &&
		       mem_has(s, n, ": line ");
	}
	if (strcmp(g->id, "X03") == 0) {
		/* "KeyboardInterrupt" anywhere; "^C" only as the terminal echoes it */
		if (mem_has(s, n, "KeyboardInterrupt"))
			return true;
		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		return starts(s, n, "^C") && n < 40;
	}
	if (strcmp(g->id, "D01") == 0) {
		/* an NVLink edge is D01n's */
		return !mem_has(s, n, "path=NVL ");
	}
	if (strcmp(g->id, "X01") == 0) {
		/* a status line, not a number inside some other text */
		return n < 120;
	}
	return true;
}

/* Whether literal l found at s + i of the lower-cased line s makes its row
 * match the line (orig: the line as it was, for the extra checks). */
static bool match_lit(const struct nl_matcher *m, const struct lit *l, const char *s, const char *orig, size_t n, size_t i,
		      unsigned where)
{
	if (l->n > n - i)
		return false;
	/* most candidates differ in their first 4 bytes */
	uint32_t h;
	memcpy(&h, s + i, 4);
	if (h != l->head || memcmp(s + i + 4, l->s + 4, l->n - 4) != 0)
		return false;
	const struct nccl_signature *g = &m->sigs[l->sig];
	if (!(g->where & where))
		return false;
	if (g->also && !low_has(s, n, g->also))
		return false;
	return sig_accept(g, orig, n);
}

#define SET_BIT(b, i) ((b)[(i) / 64] |= 1ULL << ((i) % 64))
#define HAS_BIT(b, i) (((b)[(i) / 64] >> ((i) % 64)) & 1)

/* Sets in hit (NL_MAX_SIGS bits) every row one of whose literals the line
 * contains (and that passes its extra checks). */
static void match_all(const struct nl_matcher *m, const char *s, const char *orig, size_t n, unsigned where, uint64_t *hit)
{
	if (n < 2)
		return;
	const struct kindidx *ki = &m->kind[kind_index(where)];
	size_t step = ki->step;
	if (step) {
		for (size_t x = 0; x + 4 <= n; x += step) {
			unsigned h = quad_hash(s + x);
			if (!(ki->bits[h >> 3] & (1u << (h & 7))))
				continue;
			for (int pi = ki->head[h]; pi >= 0; pi = m->pieces[pi].next) {
				const struct piece *pc = &m->pieces[pi];
				const struct lit *l = &m->lits[pc->lit];
				if ((size_t)pc->d > x || HAS_BIT(hit, l->sig))
					continue;
				if (match_lit(m, l, s, orig, n, x - (size_t)pc->d, where))
					SET_BIT(hit, l->sig);
			}
		}
	}
	for (int t = 0; t < ki->ntiny; t++) {
		const struct lit *l = &m->lits[ki->tiny[t]];
		if (HAS_BIT(hit, l->sig) || !bscan_find_lit(s, n, l->s, l->n))
			continue;
		const struct nccl_signature *g = &m->sigs[l->sig];
		if (!(g->where & where))
			continue;
		if (g->also && !low_has(s, n, g->also))
			continue;
		if (!sig_accept(g, orig, n))
			continue;
		SET_BIT(hit, l->sig);
	}
}

/* Returns the index of the first row (table order) matching, or -1. */
int nl_matcher_find(const struct nl_matcher *m, const char *s, size_t n, unsigned where)
{
	int out;
	return nl_matcher_find_all(m, s, n, where, &out, 1) ? out : -1;
}

/* Whether row g counts after the k rows already kept in out (see
 * nl_matcher_find_all). */
static bool keep_match(const struct nl_matcher *m, const struct nccl_signature *g, const int *out, int k)
{
	if (k == 0)
		return true;
	if (nccl_signature_generic(g))
		return false;
	/* what else a line says only counts when it is a failure or a hang
	 * marker of its own (a reset connection inside a failure's text is
	 * part of that failure) */
	if (g->role != NSR_ROOT && g->role != NSR_HANG)
		return false;
	for (int j = 0; j < k; j++)
		if (strcmp(nccl_signature_cause(&m->sigs[out[j]]), nccl_signature_cause(g)) == 0)
			return false;
	return true;
}

/* Every row a line matches, in table order (specific rows first), into
 * out[max]; returns how many. A generic row (kb: nccl_signature_generic)
 * only counts when it is the first match, and a later row only when its
 * cause class differs from those of the rows already kept (a specific row
 * and its general form name one cause once) and it is a root failure or a
 * hang marker. */
int nl_matcher_find_all(const struct nl_matcher *m, const char *s, size_t n, unsigned where, int *out, int max)
{
	uint64_t hit[(NL_MAX_SIGS + 63) / 64] = { 0 };
	/* literals are compared without regard to (ASCII) case */
	char stackbuf[1024];
	char *low = n <= sizeof(stackbuf) ? stackbuf : xmalloc(n);
	lower_copy(low, s, n);
	match_all(m, low, s, n, where, hit);
	if (low != stackbuf)
		free(low);
	int k = 0;
	/* the set bits only, in table order (most lines match nothing) */
	for (size_t w = 0; w < (NL_MAX_SIGS + 63) / 64 && k < max; w++) {
		for (uint64_t b = hit[w]; b && k < max; b &= b - 1) {
			size_t i = w * 64 + (size_t)__builtin_ctzll(b);
			if (i >= m->nsigs)
				break;
			if (keep_match(m, &m->sigs[i], out, k))
				out[k++] = (int)i;
		}
	}
	return k;
}

int nl_matcher_fallback(const struct nl_matcher *m)
{
	return m->w00;
}

const struct nccl_signature *nl_matcher_sig(const struct nl_matcher *m, int i)
{
	return &m->sigs[i];
}

const struct nl_warnidx *nl_matcher_warns(const struct nl_matcher *m)
{
	return m->warns;
}
