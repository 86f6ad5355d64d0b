/* NCCL log reader: the signature matcher. Finds the rows of
 * kb_nccl_signatures() whose literals a line contains, with a multi-literal
 * scan that tests the line every few bytes (see below), without regard to
 * ASCII case and without a lower-cased copy of the line. */
#include "analyze/logs/read/read.h"
#include "util/xalloc.h"

/* A line is tested every `step` bytes, where step = L - 3 and L is the
 * shortest literal (of SHORT_LIT bytes or more) of its kind: an occurrence
 * of a literal at i covers the L - 3 positions i .. i + L - 4, so any step
 * consecutive offsets d .. d + step - 1 of the literal hold one that puts a
 * multiple of step in the occurrence, where the line's 4 bytes are those of
 * the literal at offset d = x - i. So each literal is indexed by its 4-byte
 * pieces at step consecutive offsets (those least shared with the other
 * literals: fewer false candidates), and a hit at x is checked at
 * i = x - d. The bytes are compared folded (each byte | 0x20: a coarser
 * equality than ASCII case-insensitive, so a filter), then exactly.
 * Literals of 2 .. SHORT_LIT - 1 bytes are searched for one by one. */
#define SHORT_LIT 6
#define FOLD32 0x20202020u
#define FOLD64 0x2020202020202020ULL
#define BUCKET_BITS 12 /* buckets: the top bits of the 16-bit hash */

struct lit {
	char *s;        /* lower case (ASCII), owned */
	size_t n;
	uint64_t w0, w1; /* its first and last 8 bytes folded (n >= 8) */
	int sig0, nsig; /* its rows: litsig[sig0 .. sig0 + nsig), table order */
};

struct piece {
	uint32_t gram;  /* 4 bytes of the literal, folded */
	int lit;
	int d;          /* their offset in the literal */
};

/* One index per kind of line (INFO, WARN, other text), so that each line
 * is only checked against the rows that can match it. */
struct kindidx {
	uint32_t bits[65536 / 32];       /* hashes of the pieces, hash h at bit h % 32 of word h / 32 */
	int start[(1 << BUCKET_BITS) + 1]; /* pieces of each bucket: pieces[start[b] .. start[b + 1]) */
	struct piece *pieces;
	size_t step;                     /* 0: no literal of SHORT_LIT bytes or more */
	int *tiny;                       /* literals of 2 .. SHORT_LIT - 1 bytes */
	int ntiny;
};

struct nl_matcher {
	struct kindidx kind[3];
	struct lit *lits;
	int nlits;
	int *litsig;
	int nlitsig;
	char **also;    /* each row's `also` in lower case, NULL none */
	size_t *alsolen;
	const struct nccl_signature *sigs;
	size_t nsigs;
	int w00;
	struct nl_warnidx *warns; /* NCCL's own messages, for the W00 fallback */
};

static inline char lower_ascii(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static inline uint32_t load32(const char *s)
{
	uint32_t w;
	memcpy(&w, s, 4);
	return w;
}

static inline uint64_t load64(const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	return w;
}

/* 16 bits of hash of 4 folded bytes */
static inline unsigned gram_hash(uint32_t g)
{
	return (g * 0x9E3779B1u) >> 16;
}

/* Whether s[0..k) equals the lower-case lit[0..k) without regard to ASCII case. */
static inline bool same_fold(const char *s, const char *lit, size_t k)
{
	for (size_t j = 0; j < k; j++)
		if (lower_ascii(s[j]) != lit[j])
			return false;
	return true;
}

/* The first occurrence of the lower-case lit[0..k) (k >= 2) in s[0..n)
 * without regard to ASCII case, or NULL: 16 positions a step are tested on
 * its first and last bytes (folded when letters), then compared exactly. */
static const char *find_fold(const char *s, size_t n, const char *lit, size_t k)
{
	if (k > n)
		return NULL;
	/* a letter is compared | 0x20, any other byte exactly (only itself
	 * folds to it: "^c" does not stop at every '^' of a "^^^^" line) */
	const unsigned char a = (unsigned char)lit[0], b = (unsigned char)lit[k - 1];
	const unsigned char fa = a >= 'a' && a <= 'z' ? 0x20 : 0, fb = b >= 'a' && b <= 'z' ? 0x20 : 0;
	const bscan_v16 va = (bscan_v16){ 0 } + a, vb = (bscan_v16){ 0 } + b;
	const bscan_v16 f = (bscan_v16){ 0 } + fa, g = (bscan_v16){ 0 } + fb;
	size_t i = 0;
	for (; i + (k - 1) + 16 <= n; i += 16) {
		bscan_v16 eq = (bscan_v16)(((bscan_load16(s + i) | f) == va) & ((bscan_load16(s + i + k - 1) | g) == vb));
		/* one mask of 16 bits a step (candidates are rare) */
		for (unsigned bits = bscan_bits16(eq); bits; bits &= bits - 1) {
			const char *c = s + i + __builtin_ctz(bits);
			if (same_fold(c, lit, k))
				return c;
		}
	}
	if (i + k <= n && n >= (k - 1) + 16) {
		/* the last start positions in one overlapping step */
		size_t j0 = n - (k - 1) - 16;
		bscan_v16 eq = (bscan_v16)(((bscan_load16(s + j0) | f) == va) & ((bscan_load16(s + j0 + k - 1) | g) == vb));
		for (unsigned bits = bscan_bits16(eq) >> (i - j0); bits; bits &= bits - 1) {
			const char *c = s + i + __builtin_ctz(bits);
			if (same_fold(c, lit, k))
				return c;
		}
		return NULL;
	}
	for (; i + k <= n; i++)
		if (((unsigned char)s[i] | fa) == a && same_fold(s + i, lit, k))
			return s + i;
	return NULL;
}

static int kind_index(unsigned where)
{
	return where == NS_INFO ? 0 : where == NS_WARN ? 1 : 2;
}

/* The literal s (lower case) of kind kk in m->lits, added when new. */
static int lit_of(struct nl_matcher *m, const int *litkind, const char *s, int kk)
{
	for (int i = 0; i < m->nlits; i++)
		if (litkind[i] == kk && strcmp(m->lits[i].s, s) == 0)
			return i;
	return -1;
}

/* Fills the index of kind kk from the literals of that kind. */
static void kind_build(struct nl_matcher *m, const int *litkind, int kk)
{
	struct kindidx *ki = &m->kind[kk];
	size_t minlen = 0;
	int nl = 0;
	ki->tiny = xcalloc((size_t)m->nlits + 1, sizeof(int));
	for (int li = 0; li < m->nlits; li++) {
		if (litkind[li] != kk)
			continue;
		if (m->lits[li].n < SHORT_LIT)
			ki->tiny[ki->ntiny++] = li;
		else if (!minlen || m->lits[li].n < minlen)
			minlen = m->lits[li].n;
		nl++;
	}
	ki->step = minlen ? minlen - 3 : 0;
	/* how many pieces of the literals of this kind share each hash: the
	 * pieces of a literal are chosen where this is least */
	uint16_t *shared = xcalloc(65536, sizeof(uint16_t));
	for (int li = 0; li < m->nlits; li++)
		for (size_t d = 0; litkind[li] == kk && d + 4 <= m->lits[li].n; d++)
			shared[gram_hash(load32(m->lits[li].s + d) | FOLD32)]++;
	size_t np = 0;
	struct piece *tmp = xcalloc((size_t)nl * (ki->step ? ki->step : 1) + 1, sizeof(*tmp));
	for (int li = 0; ki->step && li < m->nlits; li++) {
		const struct lit *l = &m->lits[li];
		if (litkind[li] != kk || l->n < SHORT_LIT)
			continue;
		/* the window of step offsets whose pieces are least shared */
		size_t best = 0;
		long bestcost = -1;
		for (size_t a = 0; a + ki->step + 3 <= l->n; a++) {
			long cost = 0;
			for (size_t d = a; d < a + ki->step; d++) {
				uint32_t g = load32(l->s + d) | FOLD32;
				cost += shared[gram_hash(g)] * 4 + (memchr(l->s + d, ' ', 4) ? 1 : 0);
			}
			if (bestcost < 0 || cost < bestcost)
				bestcost = cost, best = a;
		}
		for (size_t d = best; d < best + ki->step; d++) {
			uint32_t g = load32(l->s + d) | FOLD32;
			tmp[np++] = (struct piece){ .gram = g, .lit = li, .d = (int)d };
			unsigned h = gram_hash(g);
			ki->bits[h >> 5] |= 1u << (h & 31);
		}
	}
	free(shared);
	/* the pieces by bucket (counting sort, stable: literals in order) */
	int *count = xcalloc((1u << BUCKET_BITS) + 1, sizeof(int));
	for (size_t i = 0; i < np; i++)
		count[gram_hash(tmp[i].gram) >> (16 - BUCKET_BITS)]++;
	ki->start[0] = 0;
	for (unsigned b = 0; b < (1u << BUCKET_BITS); b++)
		ki->start[b + 1] = ki->start[b] + count[b];
	ki->pieces = xcalloc(np + 1, sizeof(*ki->pieces));
	for (unsigned b = 0; b < (1u << BUCKET_BITS); b++)
		count[b] = ki->start[b];
	for (size_t i = 0; i < np; i++)
		ki->pieces[count[gram_hash(tmp[i].gram) >> (16 - BUCKET_BITS)]++] = tmp[i];
	free(count);
	free(tmp);
}

struct nl_matcher *nl_matcher_new(void)
{
	struct nl_matcher *m = xcalloc(1, sizeof(*m));
	m->sigs = kb_nccl_signatures(&m->nsigs);
	if (m->nsigs > NL_MAX_SIGS)
		m->nsigs = NL_MAX_SIGS;
	size_t maxlits = m->nsigs * NS_MAX_ANY * 3;
	m->lits = xcalloc(maxlits ? maxlits : 1, sizeof(struct lit));
	m->litsig = xcalloc(maxlits ? maxlits : 1, sizeof(int));
	m->also = xcalloc(m->nsigs ? m->nsigs : 1, sizeof(char *));
	m->alsolen = xcalloc(m->nsigs ? m->nsigs : 1, sizeof(size_t));
	int *litkind = xcalloc(maxlits ? maxlits : 1, sizeof(int));
	m->w00 = -1;
	static const unsigned kinds[3] = { NS_INFO, NS_WARN, NS_TEXT };
	for (size_t ri = 0; ri < m->nsigs; ri++) {
		if (m->w00 < 0 && strcmp(m->sigs[ri].id, "W00") == 0)
			m->w00 = (int)ri;
		if (m->sigs[ri].also) {
			m->also[ri] = xstrdup(m->sigs[ri].also);
			for (char *c = m->also[ri]; *c; c++)
				*c = lower_ascii(*c);
			m->alsolen[ri] = strlen(m->also[ri]);
		}
	}
	/* each literal of each kind once, with its rows in table order */
	for (int kk = 0; kk < 3; kk++) {
		for (size_t ri = 0; ri < m->nsigs; ri++) {
			if (!(m->sigs[ri].where & kinds[kk]))
				continue;
			for (int k = 0; k < NS_MAX_ANY && m->sigs[ri].any[k]; k++) {
				const char *str = m->sigs[ri].any[k];
				size_t n = strlen(str);
				if (n < 2)
					continue;
				char *low = xmalloc(n + 1);
				for (size_t c = 0; c <= n; c++)
					low[c] = lower_ascii(str[c]);
				if (lit_of(m, litkind, low, kk) >= 0) {
					free(low);
					continue;
				}
				struct lit *l = &m->lits[m->nlits];
				l->s = low;
				l->n = n;
				if (n >= 8) {
					l->w0 = load64(low) | FOLD64;
					l->w1 = load64(low + n - 8) | FOLD64;
				}
				litkind[m->nlits++] = kk;
			}
		}
	}
	/* the rows of each literal */
	for (int li = 0; li < m->nlits; li++) {
		struct lit *l = &m->lits[li];
		l->sig0 = m->nlitsig;
		for (size_t ri = 0; ri < m->nsigs; ri++) {
			if (!(m->sigs[ri].where & kinds[litkind[li]]))
				continue;
			for (int k = 0; k < NS_MAX_ANY && m->sigs[ri].any[k]; k++)
				if (strlen(m->sigs[ri].any[k]) == l->n && same_fold(m->sigs[ri].any[k], l->s, l->n)) {
					m->litsig[m->nlitsig++] = (int)ri;
					break;
				}
		}
		l->nsig = m->nlitsig - l->sig0;
	}
	for (int kk = 0; kk < 3; kk++)
		kind_build(m, litkind, kk);
	free(litkind);
	m->warns = nl_warnidx_new();
	return m;
}

void nl_matcher_free(struct nl_matcher *m)
{
	if (!m)
		return;
	for (int k = 0; k < 3; k++) {
		free(m->kind[k].pieces);
		free(m->kind[k].tiny);
	}
	for (int i = 0; i < m->nlits; i++)
		free(m->lits[i].s);
	free(m->lits);
	free(m->litsig);
	for (size_t i = 0; i < m->nsigs; i++)
		free(m->also[i]);
	free(m->also);
	free(m->alsolen);
	nl_warnidx_free(m->warns);
	free(m);
}

/* Extra checks for rows whose literal alone is too loose. */
static bool sig_accept(const struct nccl_signature *g, const char *s, size_t n)
{
	if (g->id[0] != 'X' && g->id[0] != 'D')
		return true; /* none of those below: no compares */
	if (strcmp(g->id, "X02") == 0) /* the shell's job message (logs/text.c) */
		return nl_shell_kill_notice(s, n) != 0;
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

#define SET_BIT(b, i) ((b)[(i) / 64] |= 1ULL << ((i) % 64))
#define HAS_BIT(b, i) (((b)[(i) / 64] >> ((i) % 64)) & 1)

/* Sets in hit the rows of literal l, found in the line s[0..n), that
 * pass their other checks. */
static void lit_rows(const struct nl_matcher *m, const struct lit *l, const char *s, size_t n, unsigned where, uint64_t *hit)
{
	for (int k = 0; k < l->nsig; k++) {
		int ri = m->litsig[l->sig0 + k];
		const struct nccl_signature *g = &m->sigs[ri];
		if (HAS_BIT(hit, ri) || !(g->where & where))
			continue;
		if (m->also[ri] && !find_fold(s, n, m->also[ri], m->alsolen[ri]))
			continue;
		if (sig_accept(g, s, n))
			SET_BIT(hit, ri);
	}
}

/* Whether literal l is at s + i (the line has n bytes). */
static inline bool lit_at(const struct lit *l, const char *s, size_t n, size_t i)
{
	if (l->n > n - i)
		return false;
	const char *p = s + i;
	if (l->n >= 8 && ((load64(p) | FOLD64) != l->w0 || (load64(p + l->n - 8) | FOLD64) != l->w1))
		return false;
	return same_fold(p, l->s, l->n);
}

/* Sets in hit (NL_MAX_SIGS bits) every row one of whose literals the line
 * contains (and that passes its extra checks). */
static void match_all(const struct nl_matcher *m, const char *s, size_t n, unsigned where, uint64_t *hit)
{
	if (n < 2)
		return;
	const struct kindidx *ki = &m->kind[kind_index(where)];
	size_t step = ki->step;
	if (step && n >= 4) {
		/* a pointer, not an offset and a count (fewer instructions a probe) */
		for (const char *p = s, *plast = s + n - 4; p <= plast; p += step) {
			uint32_t g = load32(p) | FOLD32;
			unsigned h = gram_hash(g);
			if (!((ki->bits[h >> 5] >> (h & 31)) & 1))
				continue;
			size_t x = (size_t)(p - s);
			unsigned b = h >> (16 - BUCKET_BITS);
			for (int e = ki->start[b]; e < ki->start[b + 1]; e++) {
				const struct piece *pc = &ki->pieces[e];
				if (pc->gram != g || (size_t)pc->d > x)
					continue;
				const struct lit *l = &m->lits[pc->lit];
				if (lit_at(l, s, n, x - (size_t)pc->d))
					lit_rows(m, l, s, n, where, hit);
			}
		}
	}
	for (int t = 0; t < ki->ntiny; t++) {
		const struct lit *l = &m->lits[ki->tiny[t]];
		if (find_fold(s, n, l->s, l->n))
			lit_rows(m, l, s, n, where, hit);
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
	match_all(m, s, n, where, hit);
	uint64_t any = 0;
	for (size_t w = 0; w < (NL_MAX_SIGS + 63) / 64; w++)
		any |= hit[w];
	if (!any)
		return 0; /* most lines */
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

/* nl_matcher_find_all the plain way, for the tests: the line lowered,
 * each row's literals searched for in table order. */
int nl_matcher_find_all_ref(const struct nl_matcher *m, const char *s, size_t n, unsigned where, int *out, int max)
{
	char *low = xmalloc(n + 1);
	for (size_t i = 0; i < n; i++)
		low[i] = lower_ascii(s[i]);
	int k = 0;
	char small[256];
	for (size_t ri = 0; ri < m->nsigs && k < max; ri++) {
		const struct nccl_signature *g = &m->sigs[ri];
		if (!(g->where & where))
			continue;
		bool found = false;
		for (int a = 0; a < NS_MAX_ANY && g->any[a] && !found; a++) {
			size_t ln = strlen(g->any[a]);
			if (ln < 2 || ln > n)
				continue;
			char *lit = ln < sizeof(small) ? small : xmalloc(ln);
			for (size_t i = 0; i < ln; i++)
				lit[i] = lower_ascii(g->any[a][i]);
			found = memmem(low, n, lit, ln) != NULL;
			if (lit != small)
				free(lit);
		}
		if (!found)
			continue;
		if (m->also[ri] && !memmem(low, n, m->also[ri], strlen(m->also[ri])))
			continue;
		if (sig_accept(g, s, n) && keep_match(m, g, out, k))
			out[k++] = (int)ri;
	}
	free(low);
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
