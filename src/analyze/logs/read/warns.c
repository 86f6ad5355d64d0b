/* NCCL log reader: the fallback matcher over NCCL's own failure messages
 * (kb/nccl_warns.h, generated from NCCL's source). Used only for a WARN
 * line that no hand-written signature knows, so it is off the hot path;
 * still, each message is only compared with the patterns that begin with
 * its own first 4 bytes (hashed), plus the few that begin with a
 * conversion. A pattern matches the whole message (trailing blanks
 * aside), NW_WILD standing for any run of bytes, without regard to case.
 * The network plugins' rows follow NCCL's. aws-ofi-nccl begins every
 * message with "NET/OFI " (its logging macros add it) and most with the
 * same few words ("Failed to", "Unable to": 300 rows would share a chain),
 * so its rows have an index of their own, which only a message with that
 * prefix reads (and only it: NCCL never prints "NET/OFI "): a row whose
 * pattern ends in 4 literal bytes is hashed by the 4 bytes after the
 * prefix and those last 4 (a match ends the same), the others by the 4
 * bytes after the prefix alone, the few with a conversion there are tried
 * on every such message. */
#include "analyze/logs/read/read.h"
#include "kb/nccl_warns.h"
#include "util/xalloc.h"

#define NW_BUCKETS 4096

struct nl_warnidx {
	const struct nccl_warn *rows;
	size_t nrows;
	int head[NW_BUCKETS]; /* first row of each hash of the first 4 bytes, -1 */
	int ofi[NW_BUCKETS];  /* "NET/OFI " rows: by the 4 bytes after it and the last 4 */
	int ofih[NW_BUCKETS]; /* "NET/OFI " rows ending in fewer literal bytes: the 4 after it */
	int *ofiloose;        /* "NET/OFI " rows with a conversion in the 4 bytes after it */
	int nofiloose;
	int *next;            /* the next row of the same bucket, -1 */
	int *loose;           /* WARN rows whose first 4 bytes hold a wildcard */
	int nloose;
	size_t *tail;         /* each row's pattern after its last wildcard: its offset, */
	size_t *taillen;      /* and its length */
};

static inline unsigned char low_byte(char c)
{
	return (unsigned char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

static unsigned head_hash(const char *s)
{
	uint32_t w = 0;
	for (int i = 0; i < 4; i++)
		w = w << 8 | low_byte(s[i]);
	return (w * 0x9E3779B1u) >> 20; /* 12 bits: NW_BUCKETS */
}

/* The 4 bytes at s and the 4 at t, 12 bits (NW_BUCKETS). */
static unsigned pair_hash(const char *s, const char *t)
{
	uint32_t a = 0, b = 0;
	for (int i = 0; i < 4; i++) {
		a = a << 8 | low_byte(s[i]);
		b = b << 8 | low_byte(t[i]);
	}
	return (a * 0x9E3779B1u ^ b * 0x85EBCA77u) >> 20;
}

#define OFI_PREFIX "net/ofi "
#define OFI_PLEN (sizeof(OFI_PREFIX) - 1)

/* Whether s begins with "NET/OFI " (any case); s holds a NUL or n bytes. */
static bool ofi_prefixed_n(const char *s, size_t n)
{
	if (n < OFI_PLEN)
		return false;
	for (size_t i = 0; i < OFI_PLEN; i++)
		if (low_byte(s[i]) != OFI_PREFIX[i])
			return false;
	return true;
}

static bool ofi_prefixed(const char *pattern)
{
	return ofi_prefixed_n(pattern, strnlen(pattern, OFI_PLEN));
}

struct nl_warnidx *nl_warnidx_new(void)
{
	struct nl_warnidx *w = xcalloc(1, sizeof(*w));
	w->rows = kb_nccl_warns(&w->nrows);
	w->next = xmalloc((w->nrows ? w->nrows : 1) * sizeof(int));
	w->loose = xmalloc((w->nrows ? w->nrows : 1) * sizeof(int));
	w->ofiloose = xmalloc((w->nrows ? w->nrows : 1) * sizeof(int));
	w->tail = xmalloc((w->nrows ? w->nrows : 1) * sizeof(size_t));
	w->taillen = xmalloc((w->nrows ? w->nrows : 1) * sizeof(size_t));
	for (size_t i = 0; i < w->nrows; i++) {
		const char *last = strrchr(w->rows[i].pattern, NW_WILD);
		w->tail[i] = last ? (size_t)(last + 1 - w->rows[i].pattern) : 0;
		w->taillen[i] = strlen(w->rows[i].pattern + w->tail[i]);
	}
	for (int b = 0; b < NW_BUCKETS; b++)
		w->head[b] = w->ofi[b] = w->ofih[b] = -1;
	/* backwards, so that each chain lists its rows in table order */
	for (size_t i = w->nrows; i-- > 0;) {
		const struct nccl_warn *r = &w->rows[i];
		w->next[i] = -1;
		if (r->kind != NW_WARN)
			continue;
		int *bucket;
		if (ofi_prefixed(r->pattern)) {
			if (strnlen(r->pattern, OFI_PLEN + 4) < OFI_PLEN + 4 || memchr(r->pattern + OFI_PLEN, NW_WILD, 4)) {
				w->ofiloose[w->nofiloose++] = (int)i;
				continue;
			}
			const char *end = r->pattern + w->tail[i] + w->taillen[i];
			bucket = w->taillen[i] >= 4 ? &w->ofi[pair_hash(r->pattern + OFI_PLEN, end - 4)]
						    : &w->ofih[head_hash(r->pattern + OFI_PLEN)];
		} else if (strnlen(r->pattern, 4) < 4 || memchr(r->pattern, NW_WILD, 4)) {
			w->loose[w->nloose++] = (int)i;
			continue;
		} else {
			bucket = &w->head[head_hash(r->pattern)];
		}
		w->next[i] = *bucket;
		*bucket = (int)i;
	}
	return w;
}

void nl_warnidx_free(struct nl_warnidx *w)
{
	if (!w)
		return;
	free(w->next);
	free(w->loose);
	free(w->ofiloose);
	free(w->tail);
	free(w->taillen);
	free(w);
}

/* Whether the whole of s[0..n) matches pattern p (NW_WILD: any run of
 * bytes), without regard to ASCII case. The usual glob walk: on a
 * mismatch, the last wildcard takes one more byte. */
static bool glob_match(const char *p, const char *s, size_t n)
{
	const char *star = NULL;
	size_t i = 0, mark = 0;
	while (i < n) {
		if (*p == NW_WILD) {
			star = ++p;
			mark = i;
		} else if (*p && low_byte(*p) == low_byte(s[i])) {
			p++;
			i++;
		} else if (star) {
			p = star;
			i = ++mark;
		} else {
			return false;
		}
	}
	while (*p == NW_WILD)
		p++;
	return *p == '\0';
}

/* How well the row's file names the source file a WARN line gives
 * (src[0..k)): 2 the same, 1 a path ending in the other (NCCL moved a file
 * between directories), 0 another file. */
static int file_score(const char *file, const char *src, size_t k)
{
	size_t fl = strlen(file);
	if (!k)
		return 0;
	if (k == fl)
		return memcmp(file, src, k) == 0 ? 2 : 0;
	if (k > fl)
		return src[k - fl - 1] == '/' && memcmp(src + k - fl, file, fl) == 0;
	return file[fl - k - 1] == '/' && memcmp(file + fl - k, src, k) == 0;
}

/* Ranks candidate row i against the best so far: one of the line's own
 * source file first, then the one with more literal bytes. src[0..srclen)
 * is the file name alone (up to ':' or a blank). */
static void consider(const struct nl_warnidx *w, int i, const char *s, size_t n, const char *src, size_t srclen,
		     int *best, int *best_file)
{
	const struct nccl_warn *r = &w->rows[i];
	/* what follows the last wildcard ends the message (a quick no, first:
	 * most rows of a chain fail it) */
	const char *t = r->pattern + w->tail[i];
	size_t tl = w->taillen[i];
	if (tl > n)
		return;
	for (size_t j = 0; j < tl; j++)
		if (low_byte(t[j]) != low_byte(s[n - tl + j]))
			return;
	int f = src ? file_score(r->file, src, srclen) : 0;
	if (*best >= 0 && (*best_file > f || (*best_file == f && w->rows[*best].fixed >= r->fixed)))
		return;
	if (!glob_match(r->pattern, s, n))
		return;
	*best = i;
	*best_file = f;
}

int nl_warnidx_find(const struct nl_warnidx *w, const char *msg, size_t n, const char *src, size_t srclen)
{
	while (n && (msg[n - 1] == ' ' || msg[n - 1] == '\t' || msg[n - 1] == '\r' || msg[n - 1] == '\n'))
		n--;
	int best = -1, best_file = 0;
	size_t fk = 0; /* the file name of src, once */
	while (src && fk < srclen && src[fk] != ':' && src[fk] != ' ')
		fk++;
	srclen = fk;
	if (ofi_prefixed_n(msg, n)) {
		if (n >= OFI_PLEN + 4) {
			for (int i = w->ofi[pair_hash(msg + OFI_PLEN, msg + n - 4)]; i >= 0; i = w->next[i])
				consider(w, i, msg, n, src, srclen, &best, &best_file);
			for (int i = w->ofih[head_hash(msg + OFI_PLEN)]; i >= 0; i = w->next[i])
				consider(w, i, msg, n, src, srclen, &best, &best_file);
		}
		for (int k = 0; k < w->nofiloose; k++)
			consider(w, w->ofiloose[k], msg, n, src, srclen, &best, &best_file);
		return best;
	}
	if (n >= 4)
		for (int i = w->head[head_hash(msg)]; i >= 0; i = w->next[i])
			consider(w, i, msg, n, src, srclen, &best, &best_file);
	for (int k = 0; k < w->nloose; k++)
		consider(w, w->loose[k], msg, n, src, srclen, &best, &best_file);
	return best;
}

const struct nccl_warn *nl_warnidx_row(const struct nl_warnidx *w, int i)
{
	return i >= 0 && (size_t)i < w->nrows ? &w->rows[i] : NULL;
}
