/* NCCL log reader: the fallback matcher over NCCL's own failure messages
 * (kb/nccl_warns.h, generated from NCCL's source). Used only for a WARN
 * line that no hand-written signature knows, so it is off the hot path;
 * still, each message is only compared with the patterns that begin with
 * its own first 4 bytes (hashed), plus the few that begin with a
 * conversion. A pattern matches the whole message (trailing blanks
 * aside), NW_WILD standing for any run of bytes, without regard to case.
 * The network plugins' rows follow NCCL's; aws-ofi-nccl begins every
 * message with "NET/OFI " (its logging macros add it), so its rows and
 * such a message are hashed by the 4 bytes after that prefix instead. */
#include "analyze/logs/read/read.h"
#include "kb/nccl_warns.h"
#include "util/xalloc.h"

#define NW_BUCKETS 4096

struct nl_warnidx {
	const struct nccl_warn *rows;
	size_t nrows;
	int head[NW_BUCKETS]; /* first row of each hash of the first 4 bytes, -1 */
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

#define OFI_PREFIX "net/ofi "
#define OFI_PLEN (sizeof(OFI_PREFIX) - 1)

/* Where the hashed 4 bytes of s[0..n) begin: after "NET/OFI " when 4
 * bytes with no wildcard follow it, else at 0. */
static size_t hash_off(const char *s, size_t n)
{
	if (n < OFI_PLEN + 4 || memchr(s + OFI_PLEN, NW_WILD, 4))
		return 0;
	for (size_t i = 0; i < OFI_PLEN; i++)
		if (low_byte(s[i]) != OFI_PREFIX[i])
			return 0;
	return OFI_PLEN;
}

struct nl_warnidx *nl_warnidx_new(void)
{
	struct nl_warnidx *w = xcalloc(1, sizeof(*w));
	w->rows = kb_nccl_warns(&w->nrows);
	w->next = xmalloc((w->nrows ? w->nrows : 1) * sizeof(int));
	w->loose = xmalloc((w->nrows ? w->nrows : 1) * sizeof(int));
	w->tail = xmalloc((w->nrows ? w->nrows : 1) * sizeof(size_t));
	w->taillen = xmalloc((w->nrows ? w->nrows : 1) * sizeof(size_t));
	for (size_t i = 0; i < w->nrows; i++) {
		const char *last = strrchr(w->rows[i].pattern, NW_WILD);
		w->tail[i] = last ? (size_t)(last + 1 - w->rows[i].pattern) : 0;
		w->taillen[i] = strlen(w->rows[i].pattern + w->tail[i]);
	}
	for (int b = 0; b < NW_BUCKETS; b++)
		w->head[b] = -1;
	/* backwards, so that each chain lists its rows in table order */
	for (size_t i = w->nrows; i-- > 0;) {
		const struct nccl_warn *r = &w->rows[i];
		w->next[i] = -1;
		if (r->kind != NW_WARN)
			continue;
		size_t off = hash_off(r->pattern, strnlen(r->pattern, OFI_PLEN + 4));
		if (!off && (strnlen(r->pattern, 4) < 4 || memchr(r->pattern, NW_WILD, 4))) {
			w->loose[w->nloose++] = (int)i;
			continue;
		}
		unsigned h = head_hash(r->pattern + off);
		w->next[i] = w->head[h];
		w->head[h] = (int)i;
	}
	return w;
}

void nl_warnidx_free(struct nl_warnidx *w)
{
	if (!w)
		return;
	free(w->next);
	free(w->loose);
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
	int f = src ? file_score(r->file, src, srclen) : 0;
	if (*best >= 0 && (*best_file > f || (*best_file == f && w->rows[*best].fixed >= r->fixed)))
		return;
	/* what follows the last wildcard ends the message (a quick no) */
	const char *t = r->pattern + w->tail[i];
	size_t tl = w->taillen[i];
	if (tl > n)
		return;
	for (size_t j = 0; j < tl; j++)
		if (low_byte(t[j]) != low_byte(s[n - tl + j]))
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
	unsigned h0 = n >= 4 ? head_hash(msg) : 0;
	if (n >= 4)
		for (int i = w->head[h0]; i >= 0; i = w->next[i])
			consider(w, i, msg, n, src, srclen, &best, &best_file);
	size_t off = hash_off(msg, n);
	if (off && head_hash(msg + off) != h0)
		for (int i = w->head[head_hash(msg + off)]; i >= 0; i = w->next[i])
			consider(w, i, msg, n, src, srclen, &best, &best_file);
	for (int k = 0; k < w->nloose; k++)
		consider(w, w->loose[k], msg, n, src, srclen, &best, &best_file);
	return best;
}

const struct nccl_warn *nl_warnidx_row(const struct nl_warnidx *w, int i)
{
	return i >= 0 && (size_t)i < w->nrows ? &w->rows[i] : NULL;
}
