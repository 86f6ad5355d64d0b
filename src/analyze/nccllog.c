/* NCCL log reader: line parsing, the signature matcher, and the per-process
 * model (see nccllog.h). Hot path: the "host:pid:tid [dev] NCCL INFO" header
 * of a line found with vector compares and its parse remembered (the header
 * cache), a first-character dispatch for INFO messages, and a multi-literal
 * scan for signatures that tests a line every few bytes (no regular
 * expressions, no library memmem). */
#include "analyze/nccllog.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

/* ------------------------------------------------------------------ */
/* small helpers                                                        */

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Characters of a host name, as a table (no locale lookups in the hot path). */
static const bool host_chars[256] = {
	['-'] = 1, ['_'] = 1, ['.'] = 1,
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
	['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,
	['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1, ['q'] = 1, ['r'] = 1,
	['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1, ['x'] = 1, ['y'] = 1, ['z'] = 1,
	['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1, ['H'] = 1, ['I'] = 1,
	['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1, ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1,
	['S'] = 1, ['T'] = 1, ['U'] = 1, ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1,
};

static bool is_host_char(char c)
{
	return host_chars[(unsigned char)c];
}

/* 16-byte vectors (GCC/Clang vector extensions: SSE2 on x86-64, NEON on
 * aarch64, plain code elsewhere). */
typedef unsigned char nd_v16 __attribute__((vector_size(16)));

static nd_v16 v16_load(const char *s)
{
	nd_v16 v;
	memcpy(&v, s, 16);
	return v;
}

static bool v16_any(nd_v16 v)
{
	uint64_t w[2];
	memcpy(w, &v, sizeof(w));
	return (w[0] | w[1]) != 0;
}

/* Index of the first byte of a 0x00/0xff word that is set (w != 0). */
static unsigned first_set_byte(uint64_t w)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return (unsigned)__builtin_clzll(w) / 8;
#else
	return (unsigned)__builtin_ctzll(w) / 8;
#endif
}

/* Index of the first set byte of a 0x00/0xff mask, 16 when none. */
static unsigned v16_first(nd_v16 m)
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
		return first_set_byte(w[0]);
	if (w[1])
		return 8 + first_set_byte(w[1]);
	return 16;
#endif
}

/* memchr for the short spans of a line (its first bytes, a message): no
 * library call, 16 bytes a step. */
static inline const char *find_byte(const char *s, int c, size_t n)
{
	const nd_v16 vc = (nd_v16){ 0 } + (unsigned char)c;
	size_t i = 0;
	for (; i + 16 <= n; i += 16) {
		unsigned j = v16_first((nd_v16)(v16_load(s + i) == vc));
		if (j < 16)
			return s + i + j;
	}
	for (; i < n; i++)
		if (s[i] == (char)c)
			return s + i;
	return NULL;
}

static bool same_bytes(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* memmem for the short literals of this file (glibc's memmem builds a shift
 * table on every call, which costs more than the search in a 100-byte
 * line): the first occurrence of nd[0..nn) in h[0..hn). 16 positions a step
 * are tested on two bytes of the literal (its first and last that are not
 * spaces: spaces are everywhere), then compared in full. */
static const char *find_lit(const char *h, size_t hn, const char *nd, size_t nn)
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
	const nd_v16 va = (nd_v16){ 0 } + (unsigned char)nd[a];
	const nd_v16 vb = (nd_v16){ 0 } + (unsigned char)nd[b];
	size_t i = 0;
	for (; i + (nn - 1) + 16 <= hn; i += 16) {
		nd_v16 eq = (nd_v16)((v16_load(h + i + a) == va) & (v16_load(h + i + b) == vb));
		uint64_t w[2];
		memcpy(w, &eq, sizeof(w));
		for (int k = 0; k < 2; k++) {
			while (w[k]) {
				unsigned j = first_set_byte(w[k]);
				const char *c = h + i + (size_t)k * 8 + j;
				if (same_bytes(c, nd, nn))
					return c;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
				w[k] &= ~(0xFF00000000000000ULL >> (8 * j));
#else
				w[k] &= ~(0xFFULL << (8 * j));
#endif
			}
		}
	}
	for (; i + nn <= hn; i++)
		if (h[i + a] == nd[a] && h[i + b] == nd[b] && same_bytes(h + i, nd, nn))
			return h + i;
	return NULL;
}

/* FIND(h, n, "literal") */
#define FIND(h, n, lit) find_lit((h), (n), (lit), sizeof(lit) - 1)

static bool mem_has(const char *s, size_t n, const char *lit)
{
	return find_lit(s, n, lit, strlen(lit)) != NULL;
}

static bool starts(const char *s, size_t n, const char *lit)
{
	size_t k = strlen(lit);
	return n >= k && memcmp(s, lit, k) == 0;
}

/* Parses digits at s (n bytes available); returns the count of digits. */
static size_t parse_num(const char *s, size_t n, long *out)
{
	size_t i = 0;
	long v = 0;
	while (i < n && is_digit(s[i]) && i < 18) {
		v = v * 10 + (s[i] - '0');
		i++;
	}
	if (i)
		*out = v;
	return i;
}

/* Copies the token at p (up to a space or end) into out; true when not empty. */
static bool token_at(const char *p, const char *end, char *out, size_t outsz)
{
	size_t k = 0;
	while (p < end && *p != ' ' && k + 1 < outsz)
		out[k++] = *p++;
	out[k] = '\0';
	return k > 0;
}

/* Copies the token after key (up to a space) into out; returns true if found. */
static bool token_after(const char *s, size_t n, const char *key, char *out, size_t outsz)
{
	size_t kl = strlen(key);
	const char *p = find_lit(s, n, key, kl);
	if (!p)
		return false;
	return token_at(p + kl, s + n, out, outsz);
}

/* strtol(tok, .., 10) as an int, false when it reads no digit; plain
 * digits (the usual case) without the library call. */
static bool tok_int(const char *tok, int *out)
{
	long v = 0;
	size_t i = 0;
	while (is_digit(tok[i]) && i < 18) {
		v = v * 10 + (tok[i] - '0');
		i++;
	}
	if (i == 0 || tok[i] != '\0') {
		char *end;
		v = strtol(tok, &end, 10);
		if (end == tok)
			return false;
	}
	*out = (int)v;
	return true;
}

static bool int_after(const char *s, size_t n, const char *key, int *out)
{
	char tok[24];
	if (!token_after(s, n, key, tok, sizeof(tok)))
		return false;
	return tok_int(tok, out);
}

/* Copies text for a report: control bytes and invalid UTF-8 become '?'. */
static void copy_clean(char *dst, size_t dstsz, const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	size_t k = 0;
	size_t i = 0;
	while (i < n && k + 1 < dstsz) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x80) {
			dst[k++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
			i++;
			continue;
		}
		size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c < 0xE0 ? 2 : 0;
		bool ok = len > 0 && i + len <= n && k + len < dstsz;
		for (size_t j = 1; ok && j < len; j++)
			if (((unsigned char)s[i + j] & 0xC0) != 0x80)
				ok = false;
		if (ok) {
			memcpy(dst + k, s + i, len);
			k += len;
			i += len;
		} else {
			if (len > 0 && i + len <= n && k + len >= dstsz)
				break;
			dst[k++] = '?';
			i++;
		}
	}
	dst[k] = '\0';
}

/* Hot-path copy: raw bytes, cut to fit; made clean at the end of the file. */
static void raw_copy(char *dst, size_t dstsz, const char *s, size_t n)
{
	if (n > dstsz - 1)
		n = dstsz - 1;
	memmove(dst, s, n); /* glibc's vector copy; an inlined memcpy becomes rep movs */
	dst[n] = '\0';
}

static void clean_in_place(char *s, size_t sz)
{
	char tmp[512];
	size_t n = strlen(s);
	if (sz > sizeof(tmp))
		sz = sizeof(tmp);
	copy_clean(tmp, sz, s, n);
	memcpy(s, tmp, strlen(tmp) + 1);
}

/* Days since 1970-01-01 of a civil date (Howard Hinnant's algorithm). */
static long long days_from_civil(long y, long m, long d)
{
	y -= m <= 2;
	long era = (y >= 0 ? y : y - 399) / 400;
	long yoe = y - era * 400;
	long doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return (long long)era * 146097 + doe - 719468;
}

/* "[YYYY-MM-DD HH:MM:SS]" ending just before end; returns epoch or 0. */
static long long parse_nccl_ts(const char *line, const char *end)
{
	/* end points at the host; the timestamp and one space precede it */
	if (end - line < 22)
		return 0;
	const char *t = end - 22;
	if (t[0] != '[' || t[20] != ']' || t[21] != ' ' || t[5] != '-' || t[8] != '-' || t[11] != ' ')
		return 0;
	int v[6];
	const int off[6] = { 1, 6, 9, 12, 15, 18 };
	const int w[6] = { 4, 2, 2, 2, 2, 2 };
	for (int i = 0; i < 6; i++) {
		v[i] = 0;
		for (int j = 0; j < w[i]; j++) {
			char c = t[off[i] + j];
			if (!is_digit(c))
				return 0;
			v[i] = v[i] * 10 + (c - '0');
		}
	}
	if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31)
		return 0;
	return days_from_civil(v[0], v[1], v[2]) * 86400LL + v[3] * 3600 + v[4] * 60 + v[5];
}

/* ------------------------------------------------------------------ */
/* line cleaning and parsing                                            */

/* Whether s[0..len) holds a NUL or an ESC byte: one pass, 32 bytes a step. */
static bool has_nul_or_esc(const char *s, size_t len)
{
	const nd_v16 esc = (nd_v16){ 0 } + 0x1b;
	size_t i = 0;
	if (len >= 16) {
		nd_v16 a, b;
		for (; i + 32 <= len; i += 32) {
			a = v16_load(s + i);
			b = v16_load(s + i + 16);
			if (v16_any((nd_v16)((a == 0) | (a == esc) | (b == 0) | (b == esc))))
				return true;
		}
		if (i + 16 <= len) {
			a = v16_load(s + i);
			if (v16_any((nd_v16)((a == 0) | (a == esc))))
				return true;
		}
		/* the last 16 bytes (overlapping what was checked) */
		a = v16_load(s + len - 16);
		return v16_any((nd_v16)((a == 0) | (a == esc)));
	}
	for (; i < len; i++)
		if (s[i] == '\0' || s[i] == 0x1b)
			return true;
	return false;
}

size_t nccllog_clean_line(char *s, size_t len, bool *had_nul, bool *had_ansi)
{
	*had_nul = false;
	*had_ansi = false;
	if (!has_nul_or_esc(s, len))
		return len; /* the common case: nothing to clean */
	if (strlen(s) != len) { /* a NUL inside (s is NUL-terminated at len) */
		*had_nul = true;
		for (size_t i = 0; i < len; i++)
			if (s[i] == '\0')
				s[i] = ' ';
	}
	if (!memchr(s, 0x1b, len))
		return len;
	*had_ansi = true;
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		if (s[i] != 0x1b) {
			s[o++] = s[i++];
			continue;
		}
		i++;
		if (i < len && s[i] == '[') {
			i++;
			while (i < len && !((unsigned char)s[i] >= 0x40 && (unsigned char)s[i] <= 0x7e))
				i++;
			if (i < len)
				i++;
		} else if (i < len && s[i] == ']') {
			/* OSC: up to BEL or ST */
			while (i < len && s[i] != 0x07 && s[i] != 0x1b)
				i++;
			if (i < len && s[i] == 0x07)
				i++;
		} else if (i < len) {
			i++;
		}
	}
	s[o] = '\0';
	return o;
}

/* Launcher prefixes in the first bytes of a line. */
static void parse_prefixes(const char *s, size_t n, struct nl_line *out)
{
	if (n > 160)
		n = 160;
	const char *end = s + n;
	long v;
	/* (VllmWorkerProcess pid=N), (RayWorkerWrapper pid=N, ip=..), (VllmWorker rank=1 pid=N) */
	for (const char *o = s; (o = find_byte(o, '(', (size_t)(end - o))) != NULL; o++) {
		const char *c = find_byte(o, ')', (size_t)(end - o));
		if (!c)
			break;
		const char *p = FIND(o, (size_t)(c - o), "pid=");
		if (p && parse_num(p + 4, (size_t)(c - p - 4), &v)) {
			out->ppid = v;
			const char *r = FIND(o, (size_t)(c - o), "rank=");
			if (r && parse_num(r + 5, (size_t)(c - r - 5), &v))
				out->prank = (int)v;
			break;
		}
		o = c;
	}
	/* [rank3]: from torchrun; [1,3]<stdout>: from Open MPI --tag-output */
	int tries = 0;
	for (const char *q = s; tries < 4 && (q = find_byte(q, '[', (size_t)(end - q))) != NULL; q++, tries++) {
		if (end - q > 6 && memcmp(q, "[rank", 5) == 0) {
			size_t k = parse_num(q + 5, (size_t)(end - q - 5), &v);
			if (k && q + 5 + k < end && q[5 + k] == ']') {
				out->prank = (int)v;
				break;
			}
		}
		const char *comma = q + 1;
		while (comma < end && is_digit(*comma))
			comma++;
		if (comma > q + 1 && comma < end && *comma == ',') {
			size_t k = parse_num(comma + 1, (size_t)(end - comma - 1), &v);
			if (k && comma + 1 + k + 4 < end && memcmp(comma + 1 + k, "]<std", 5) == 0) {
				out->prank = (int)v;
				break;
			}
		}
	}
}

/* Parses "host:pid:tid" ending at end (exclusive); returns its start or NULL. */
static const char *parse_hpt(const char *line, const char *end, struct nl_line *out)
{
	const char *q = end;
	const char *d = q;
	while (d > line && is_digit(d[-1]))
		d--;
	if (d == q || d == line || d[-1] != ':')
		return NULL;
	long tid = 0, pid = 0;
	parse_num(d, (size_t)(q - d), &tid);
	q = d - 1;
	d = q;
	while (d > line && is_digit(d[-1]))
		d--;
	if (d == q || d == line || d[-1] != ':')
		return NULL;
	parse_num(d, (size_t)(q - d), &pid);
	q = d - 1;
	const char *h = q;
	while (h > line && is_host_char(h[-1]))
		h--;
	if (h == q)
		return NULL;
	out->host = h;
	out->hostlen = (size_t)(q - h);
	out->pid = pid;
	out->tid = tid;
	return h;
}

/* Tries the " NCCL " at p as the keyword of a debug line header. */
static int try_header(const char *s, const char *end, const char *p, struct nl_line *out)
{
	const char *kw = p + 6;
	size_t rest = (size_t)(end - kw);
	enum nl_level lv = NL_NONE;
	size_t kwlen = 0;
	if (starts(kw, rest, "INFO"))
		lv = NL_INFO, kwlen = 4;
	else if (starts(kw, rest, "WARN"))
		lv = NL_WARN, kwlen = 4;
	else if (starts(kw, rest, "TRACE"))
		lv = NL_TRACE, kwlen = 5;
	else if (starts(kw, rest, "CALL"))
		lv = NL_CALL, kwlen = 4;
	else if (starts(kw, rest, "ABORT"))
		lv = NL_ABORT, kwlen = 5;
	if (lv == NL_NONE)
		return 0;
	const char *hstart = NULL;
	if (lv == NL_CALL) {
		hstart = parse_hpt(s, p, out);
	} else {
		/* the nearest "[dev] " before the keyword with host:pid:tid before it */
		for (const char *b = p; b > s && p - b < 400; b--) {
			if (b[-1] != '[')
				continue;
			const char *o = b - 1;
			long dev;
			size_t k = parse_num(b, (size_t)(p - b), &dev);
			if (!k || b + k >= p + 1 || b[k] != ']' || o == s || o[-1] != ' ')
				continue;
			hstart = parse_hpt(s, o - 1, out);
			if (!hstart)
				continue;
			out->dev = (int)dev;
			/* middle part: WARN "file:line (func)", TRACE "ms func:line" */
			const char *m = b + k + 1;
			while (m < p && *m == ' ')
				m++;
			if (lv == NL_WARN && m < p) {
				const char *mend = p;
				if (mend[-1] == ')') {
					const char *op = memrchr(m, '(', (size_t)(mend - m));
					if (op) {
						out->func = op + 1;
						out->funclen = (size_t)(mend - 1 - op - 1);
						mend = op;
						while (mend > m && mend[-1] == ' ')
							mend--;
					}
				}
				const char *colon = memrchr(m, ':', (size_t)(mend - m));
				if (colon) {
					out->src = m;
					out->srclen = (size_t)(colon - m);
					long ln = 0;
					parse_num(colon + 1, (size_t)(mend - colon - 1), &ln);
					out->srcline = ln;
				}
			}
			break;
		}
	}
	if (!hstart) {
		out->host = NULL;
		out->pid = out->tid = -1;
		out->dev = -1;
		out->src = out->func = NULL;
		return 0;
	}
	out->level = lv;
	out->msg = kw + kwlen;
	if (out->msg < end && *out->msg == ' ')
		out->msg++;
	out->msglen = (size_t)(end - out->msg);
	out->ts = parse_nccl_ts(s, hstart);
	if (hstart > s)
		parse_prefixes(s, (size_t)(hstart - s), out);
	return 1;
}

static void line_reset(struct nl_line *out)
{
	/* field by field: a memset here is a "rep stos", slow on every line */
	out->level = NL_NONE;
	out->host = out->src = out->func = NULL;
	out->hostlen = out->srclen = out->funclen = 0;
	out->srcline = 0;
	out->ts = 0;
	out->pid = out->tid = -1;
	out->dev = -1;
	out->ppid = -1;
	out->prank = -1;
}

/* The first "] NCCL " among the first four ']' of the line, or NULL. */
static const char *fast_header(const char *s, const char *end)
{
	const char *q = s;
	for (int tries = 0; tries < 4 && (q = find_byte(q, ']', (size_t)(end - q))) != NULL; tries++, q++)
		if (end - q >= 7 && memcmp(q, "] NCCL ", 7) == 0)
			return q;
	return NULL;
}

/* The rest of nccllog_parse_line after the fast path failed. */
static int parse_slow(const char *s, size_t len, struct nl_line *out)
{
	const char *end = s + len;
	const char *from = s;
	const char *p;
	while ((p = FIND(from, (size_t)(end - from), " NCCL ")) != NULL) {
		if (try_header(s, end, p, out))
			return 1;
		from = p + 1;
	}
	out->msg = s;
	out->msglen = len;
	parse_prefixes(s, len, out);
	return 0;
}

int nccllog_parse_line(const char *s, size_t len, struct nl_line *out)
{
	line_reset(out);
	const char *end = s + len;
	/* fast path: INFO lines have "] NCCL " right after the device */
	const char *q = fast_header(s, end);
	if (q && try_header(s, end, q + 1, out))
		return 1;
	return parse_slow(s, len, out);
}

/* ------------------------------------------------------------------ */
/* the signature matcher: literals found through their 4-byte pieces      */

/* A line is tested every `step` bytes, where step = L - 3 and L is the
 * shortest literal (of 4 bytes or more) of its kind: an occurrence of a
 * literal at i covers the L - 3 positions i .. i + L - 4, one of which is a
 * multiple of step, where the line's 4 bytes are those of the literal at
 * offset d = x - i. So each literal is indexed by the hashes of its 4-byte
 * pieces at offsets 0 .. L - 4, and a hit at x is checked at i = x - d.
 * Literals of 2 or 3 bytes are searched for one by one. */

struct lit {
	const char *s;
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

struct matcher {
	struct kindidx kind[3];
	struct lit *lits;
	int nlits;
	struct piece *pieces;
	int npieces;
	size_t apieces;
	const struct nccl_signature *sigs;
	size_t nsigs;
	int w00;
};

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

static struct matcher *matcher_new(void)
{
	struct matcher *m = xcalloc(1, sizeof(*m));
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
				l->s = str;
				l->n = n;
				if (n >= 4) {
					memcpy(&l->head, str, 4);
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
	return m;
}

static void matcher_free(struct matcher *m)
{
	if (!m)
		return;
	for (int k = 0; k < 3; k++) {
		free(m->kind[k].head);
		free(m->kind[k].tiny);
	}
	free(m->pieces);
	free(m->lits);
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
	if (strcmp(g->id, "X01") == 0) {
		/* a status line, not a number inside some other text */
		return n < 120;
	}
	return true;
}

/* Whether literal l found at s + i makes its row match the line; returns
 * the new best (smallest) matching row. */
static int match_lit(const struct matcher *m, const struct lit *l, const char *s, size_t n, size_t i,
		     unsigned where, int best)
{
	if (best >= 0 && l->sig >= best)
		return best;
	if (l->n > n - i)
		return best;
	/* most candidates differ in their first 4 bytes */
	uint32_t h;
	memcpy(&h, s + i, 4);
	if (h != l->head || memcmp(s + i + 4, l->s + 4, l->n - 4) != 0)
		return best;
	const struct nccl_signature *g = &m->sigs[l->sig];
	if (!(g->where & where))
		return best;
	if (g->also && !mem_has(s, n, g->also))
		return best;
	if (!sig_accept(g, s, n))
		return best;
	return l->sig;
}

/* Returns the index of the first row (table order) matching, or -1: the
 * smallest row one of whose literals the line contains (and that passes
 * its extra checks), whatever order the literals are found in. */
static int matcher_find(const struct matcher *m, const char *s, size_t n, unsigned where)
{
	int best = -1;
	if (n < 2)
		return -1;
	const struct kindidx *ki = &m->kind[kind_index(where)];
	size_t step = ki->step;
	if (step) {
		for (size_t x = 0; x + 4 <= n; x += step) {
			unsigned h = quad_hash(s + x);
			if (!(ki->bits[h >> 3] & (1u << (h & 7))))
				continue;
			for (int pi = ki->head[h]; pi >= 0; pi = m->pieces[pi].next) {
				const struct piece *pc = &m->pieces[pi];
				if ((size_t)pc->d > x)
					continue;
				best = match_lit(m, &m->lits[pc->lit], s, n, x - (size_t)pc->d, where, best);
			}
		}
	}
	for (int t = 0; t < ki->ntiny; t++) {
		const struct lit *l = &m->lits[ki->tiny[t]];
		if (best >= 0 && l->sig >= best)
			continue;
		if (!find_lit(s, n, l->s, l->n))
			continue;
		const struct nccl_signature *g = &m->sigs[l->sig];
		if (!(g->where & where))
			continue;
		if (g->also && !mem_has(s, n, g->also))
			continue;
		if (!sig_accept(g, s, n))
			continue;
		best = l->sig;
	}
	return best;
}

/* ------------------------------------------------------------------ */
/* the model                                                            */

#define PID_BUCKETS 1024

/* The header cache: a thread prints the same "host:pid:tid [dev] NCCL INFO"
 * on every line, so the parse of the bytes up to the level keyword, and the
 * process they name, are remembered by those bytes. try_header() reads
 * nothing after the keyword, so a line whose first bytes equal a remembered
 * header parses exactly as that header did; processes are never removed,
 * so the remembered index stays that of its (host, pid). */
#define HC_SETS 64           /* a power of two; two entries each */
#define HC_MAX 128           /* longest header remembered */

struct hc_entry {
	size_t len;              /* 0: empty */
	char text[HC_MAX];
	struct nl_line line;     /* its parse; host, src, func as offsets below */
	size_t host_off, src_off, func_off;
	bool has_src, has_func;
	int proc;                /* its process, -1 not known yet */
};

struct hc_set {
	struct hc_entry way[2];
	int victim;              /* the way used least recently */
};

struct procindex {
	int head[PID_BUCKETS];
	int *next;
	size_t anext;
	int last; /* cache: the process of the previous NCCL line */
	struct hc_set hc[HC_SETS];
};

static uint64_t load64(const char *s)
{
	uint64_t w;
	memcpy(&w, s, 8);
	return w;
}

/* The set of a header of n > 8 bytes whose "] NCCL " is at q. */
static unsigned hc_set_of(const char *s, size_t n, const char *q)
{
	/* the host's first bytes, the "tid [dev" before q, the keyword */
	uint64_t a = load64(s), b = load64(q - s >= 8 ? q - 8 : s + 1), c = load64(s + n - 8);
	uint64_t h = (a * 0x9E3779B97F4A7C15ULL) ^ (b * 0xC2B2AE3D27D4EB4FULL) ^ (c * 0x165667B19E3779F9ULL) ^ n;
	return (unsigned)(h >> 40) & (HC_SETS - 1);
}

/* a[0..n) == b[0..n) for n >= 8, in words */
static bool eq_long(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	for (; i + 8 < n; i += 8)
		if (load64(a + i) != load64(b + i))
			return false;
	return load64(a + n - 8) == load64(b + n - 8);
}

/* nccllog_parse_line with the header cache; *slot is the cache entry of
 * the header (its process goes there), -1 when none. */
static int parse_cached(struct procindex *px, const char *s, size_t len, struct nl_line *out, int *slot)
{
	line_reset(out);
	*slot = -1;
	const char *end = s + len;
	const char *q = fast_header(s, end);
	if (!q)
		return parse_slow(s, len, out);
	const char *kw = q + 7;
	size_t rest = (size_t)(end - kw);
	size_t kwlen = 0;
	if (starts(kw, rest, "INFO") || starts(kw, rest, "WARN") || starts(kw, rest, "CALL"))
		kwlen = 4;
	else if (starts(kw, rest, "TRACE") || starts(kw, rest, "ABORT"))
		kwlen = 5;
	size_t hl = (size_t)(kw - s) + kwlen;
	if (!kwlen || hl > HC_MAX) {
		if (try_header(s, end, q + 1, out))
			return 1;
		return parse_slow(s, len, out);
	}
	unsigned k = hc_set_of(s, hl, q);
	struct hc_set *set = &px->hc[k];
	for (int w = 0; w < 2; w++) {
		struct hc_entry *e = &set->way[w];
		if (e->len != hl || !eq_long(e->text, s, hl))
			continue;
		*out = e->line;
		out->host = s + e->host_off;
		out->src = e->has_src ? s + e->src_off : NULL;
		out->func = e->has_func ? s + e->func_off : NULL;
		const char *m = kw + kwlen;
		if (m < end && *m == ' ')
			m++;
		out->msg = m;
		out->msglen = (size_t)(end - m);
		set->victim = 1 - w;
		*slot = (int)k * 2 + w;
		return 1;
	}
	if (!try_header(s, end, q + 1, out))
		return parse_slow(s, len, out);
	int w = set->victim;
	set->victim = 1 - w;
	struct hc_entry *e = &set->way[w];
	e->len = hl;
	memcpy(e->text, s, hl);
	e->line = *out;
	e->host_off = (size_t)(out->host - s);
	e->has_src = out->src != NULL;
	e->src_off = e->has_src ? (size_t)(out->src - s) : 0;
	e->has_func = out->func != NULL;
	e->func_off = e->has_func ? (size_t)(out->func - s) : 0;
	e->line.host = e->line.src = e->line.func = e->line.msg = NULL;
	e->proc = -1;
	*slot = (int)k * 2 + w;
	return 1;
}

void nccllog_init(struct nccllog *lg)
{
	memset(lg, 0, sizeof(*lg));
	lg->matcher = matcher_new();
	struct procindex *pi = xcalloc(1, sizeof(*pi));
	for (int i = 0; i < PID_BUCKETS; i++)
		pi->head[i] = -1;
	pi->last = -1;
	lg->procindex = pi;
}

void nccllog_release(struct nccllog *lg)
{
	for (int i = 0; i < lg->nfiles; i++)
		free(lg->files[i].name);
	free(lg->files);
	free(lg->procs);
	free(lg->ev);
	matcher_free(lg->matcher);
	struct procindex *pi = lg->procindex;
	if (pi)
		free(pi->next);
	free(pi);
	memset(lg, 0, sizeof(*lg));
}

int nccllog_begin_file(struct nccllog *lg, const char *name)
{
	if (lg->nfiles >= NL_MAX_FILES)
		return -1;
	XGROW(lg->files, lg->afiles, lg->nfiles + 1);
	struct nl_file *f = &lg->files[lg->nfiles];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->only_proc = -1;
	return lg->nfiles++;
}

void nccllog_end_file(struct nccllog *lg, int file, uint64_t lines, uint64_t bytes,
		      uint64_t truncated, bool no_newline)
{
	if (file < 0 || file >= lg->nfiles)
		return;
	struct nl_file *f = &lg->files[file];
	clean_in_place(f->last_text, sizeof(f->last_text));
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].last_file == file)
			clean_in_place(lg->procs[i].last_text, sizeof(lg->procs[i].last_text));
	f->lines = lines;
	f->bytes = bytes;
	f->truncated = truncated;
	f->no_newline = no_newline;
}

static int proc_find(struct nccllog *lg, const char *host, size_t hostlen, long pid)
{
	struct procindex *pi = lg->procindex;
	size_t hl = hostlen < 63 ? hostlen : 63;
	if (pi->last >= 0) {
		struct nl_proc *p = &lg->procs[pi->last];
		if (p->pid == pid && p->host[hl] == '\0' && memcmp(p->host, host, hl) == 0)
			return pi->last;
	}
	for (int i = pi->head[(unsigned long)pid % PID_BUCKETS]; i >= 0; i = pi->next[i]) {
		struct nl_proc *p = &lg->procs[i];
		if (p->pid == pid && p->host[hl] == '\0' && memcmp(p->host, host, hl) == 0)
			return pi->last = i;
	}
	return -1;
}

static int proc_add(struct nccllog *lg, const char *host, size_t hostlen, long pid, int file)
{
	if (lg->nprocs >= NL_MAX_PROCS)
		return -1;
	struct procindex *pi = lg->procindex;
	XGROW(lg->procs, lg->aprocs, lg->nprocs + 1);
	XGROW(pi->next, pi->anext, lg->nprocs + 1);
	int i = lg->nprocs++;
	struct nl_proc *p = &lg->procs[i];
	memset(p, 0, sizeof(*p));
	size_t hl = hostlen < 63 ? hostlen : 63;
	memcpy(p->host, host, hl);
	p->host[hl] = '\0';
	p->pid = pid;
	p->file = file;
	p->dev = -1;
	p->stage0 = -1;
	p->last_warn_event = -1;
	p->prank = -1;
	unsigned b = (unsigned)((unsigned long)pid % PID_BUCKETS);
	pi->next[i] = pi->head[b];
	pi->head[b] = i;
	pi->last = i;
	struct nl_file *f = &lg->files[file];
	f->nprocs++;
	return i;
}

int nl_proc_stage(const struct nl_proc *p)
{
	if (p->ncomms > 0)
		return p->comms[p->ncomms - 1].stage > p->stage0 ? p->comms[p->ncomms - 1].stage : p->stage0;
	return p->stage0;
}

const struct nl_comm *nl_proc_main_comm(const struct nl_proc *p)
{
	const struct nl_comm *best = NULL;
	for (int i = 0; i < p->ncomms; i++)
		if (p->comms[i].rank >= 0 && (!best || p->comms[i].nranks >= best->nranks))
			best = &p->comms[i];
	if (!best && p->ncomms)
		best = &p->comms[p->ncomms - 1];
	return best;
}

/* strcmp(a, b) == 0 without the library call (short strings) */
static bool str_eq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

/* snprintf(dst, dstsz, "%s", src) */
static void str_copy_cut(char *dst, size_t dstsz, const char *src)
{
	size_t k = strnlen(src, dstsz - 1);
	memcpy(dst, src, k);
	dst[k] = '\0';
}

static struct nl_comm *comm_new(struct nl_proc *p, const char *ptr)
{
	if (p->ncomms >= NL_MAX_COMMS) {
		/* keep the newest: drop the oldest */
		memmove(&p->comms[0], &p->comms[1], sizeof(p->comms[0]) * (NL_MAX_COMMS - 1));
		p->ncomms--;
		p->comms_dropped++;
	}
	struct nl_comm *c = &p->comms[p->ncomms++];
	memset(c, 0, sizeof(*c));
	str_copy_cut(c->ptr, sizeof(c->ptr), ptr ? ptr : "");
	c->rank = c->nranks = c->cudadev = c->nvmldev = -1;
	c->nnodes = c->localranks = -1;
	c->init_total = -1;
	c->stage = 3;
	return c;
}

/* The communicator a line belongs to: by pointer, else the current one. */
static struct nl_comm *comm_by_ptr(struct nl_proc *p, const char *ptr, bool create)
{
	for (int i = p->ncomms - 1; i >= 0; i--)
		if (ptr[0] && str_eq(p->comms[i].ptr, ptr) && !p->comms[i].destroyed)
			return &p->comms[i];
	/* an anonymous comm (versions without Init START) gets its pointer */
	if (p->ncomms && !p->comms[p->ncomms - 1].ptr[0] && !p->comms[p->ncomms - 1].complete) {
		str_copy_cut(p->comms[p->ncomms - 1].ptr, sizeof(p->comms[0].ptr), ptr);
		return &p->comms[p->ncomms - 1];
	}
	return create ? comm_new(p, ptr) : NULL;
}

/* The comm of a line that names none: the last one that is not finished,
 * or a new anonymous one for a stage past T2 (NCCL < 2.18.3 prints no Init
 * START). */
static struct nl_comm *comm_current(struct nl_proc *p, int stage)
{
	if (p->ncomms) {
		struct nl_comm *c = &p->comms[p->ncomms - 1];
		if (!c->destroyed && (!c->complete || stage >= 9))
			return c;
		if (c->complete && stage >= 9)
			return c;
	}
	if (stage < 3)
		return NULL;
	return comm_new(p, "");
}

static void set_stage(struct nl_proc *p, struct nl_comm *c, int stage, int file, uint64_t line)
{
	if (c) {
		if (stage > c->stage) {
			c->stage = stage;
			c->stage_line = line;
			c->file = file;
		}
	} else if (stage > p->stage0) {
		p->stage0 = stage;
	}
}

static void stage_current(struct nl_proc *p, int stage, int file, uint64_t line)
{
	if (stage <= 2) {
		set_stage(p, NULL, stage, file, line);
		return;
	}
	struct nl_comm *c = comm_current(p, stage);
	set_stage(p, c, stage, file, line);
}

/* The first " rank ", " nranks ", ... of a comm line, found in one pass over
 * its spaces (each key starts with one), as find_lit would find each. */
enum { CK_RANK, CK_NRANKS, CK_NRANKS2, CK_CUDADEV, CK_NVMLDEV, CK_BUSID, CK_COMMID, CK_N };
static const struct {
	const char *s;
	size_t n;
} comm_keys[CK_N] = {
	[CK_RANK] = { " rank ", 6 },       [CK_NRANKS] = { " nranks ", 8 }, [CK_NRANKS2] = { " nRanks ", 8 },
	[CK_CUDADEV] = { " cudaDev ", 9 }, [CK_NVMLDEV] = { " nvmlDev ", 9 }, [CK_BUSID] = { " busId ", 7 },
	[CK_COMMID] = { " commId ", 8 },
};

static void comm_keys_find(const char *m, size_t n, const char *at[CK_N])
{
	const char *end = m + n;
	for (int k = 0; k < CK_N; k++)
		at[k] = NULL;
	for (const char *sp = find_byte(m, ' ', n); sp; sp = find_byte(sp + 1, ' ', (size_t)(end - sp - 1))) {
		size_t rest = (size_t)(end - sp);
		if (rest < 6)
			break;
		int cand[3], nc = 0;
		switch (sp[1]) {
		case 'r':
			cand[nc++] = CK_RANK;
			break;
		case 'n':
			cand[nc++] = CK_NRANKS;
			cand[nc++] = CK_NRANKS2;
			cand[nc++] = CK_NVMLDEV;
			break;
		case 'c':
			cand[nc++] = CK_CUDADEV;
			cand[nc++] = CK_COMMID;
			break;
		case 'b':
			cand[nc++] = CK_BUSID;
			break;
		default:
			break;
		}
		for (int i = 0; i < nc; i++) {
			int k = cand[i];
			if (!at[k] && rest >= comm_keys[k].n && memcmp(sp, comm_keys[k].s, comm_keys[k].n) == 0)
				at[k] = sp;
		}
	}
}

/* int_after() for a key found at *at (NULL: not found) */
static bool int_at(const char *at, size_t keylen, const char *end, int *out)
{
	char tok[24];
	if (!at || !token_at(at + keylen, end, tok, sizeof(tok)))
		return false;
	return tok_int(tok, out);
}

static void comm_fields(struct nl_comm *c, const char *m, size_t n)
{
	const char *at[CK_N];
	const char *end = m + n;
	comm_keys_find(m, n, at);
	int v;
	if (int_at(at[CK_RANK], 6, end, &v))
		c->rank = v;
	if (int_at(at[CK_NRANKS], 8, end, &v) || int_at(at[CK_NRANKS2], 8, end, &v))
		c->nranks = v;
	if (int_at(at[CK_CUDADEV], 9, end, &v))
		c->cudadev = v;
	if (int_at(at[CK_NVMLDEV], 9, end, &v))
		c->nvmldev = v;
	if (at[CK_BUSID])
		token_at(at[CK_BUSID] + 7, end, c->busid, sizeof(c->busid));
	if (at[CK_COMMID])
		token_at(at[CK_COMMID] + 8, end, c->commid, sizeof(c->commid));
}

static void add_transport(struct nl_proc *p, int peer, const char *kind, size_t klen)
{
	if (klen > 31)
		klen = 31;
	for (int i = 0; i < p->ntr; i++)
		if (p->tr[i].peer == peer && strlen(p->tr[i].kind) == klen && memcmp(p->tr[i].kind, kind, klen) == 0) {
			p->tr[i].count++;
			return;
		}
	if (p->ntr >= NL_MAX_TRANSPORTS)
		return;
	struct nl_transport *t = &p->tr[p->ntr++];
	t->peer = peer;
	memcpy(t->kind, kind, klen);
	t->kind[klen] = '\0';
	t->count = 1;
}

/* "Channel 00/0 : 0[0] -> 1[1] [send] via P2P/CUMEM/read" */
static void parse_via(struct nl_proc *p, const char *m, size_t n, int file, uint64_t line)
{
	if (!p->via_line) {
		copy_clean(p->via_text, sizeof(p->via_text), m, n);
		p->via_file = file;
		p->via_line = line;
	}
	const char *via = FIND(m, n, " via ");
	const char *colon = FIND(m, n, " : ");
	if (!via || !colon || colon > via)
		return;
	long a = -1, b = -1;
	const char *s = colon + 3;
	while (s < via && *s == ' ')
		s++;
	parse_num(s, (size_t)(via - s), &a);
	const char *arrow = FIND(s, (size_t)(via - s), "-> ");
	if (arrow)
		parse_num(arrow + 3, (size_t)(via - arrow - 3), &b);
	const char *k = via + 5;
	const char *kend = k;
	while (kend < m + n && *kend != ' ')
		kend++;
	struct nl_comm *c = p->ncomms ? &p->comms[p->ncomms - 1] : NULL;
	int self = c ? c->rank : -1;
	/* rank unknown yet (NCCL < 2.18.3 names it only at Init COMPLETE):
	 * a rank prints its send side "a -> b" and its "[receive]" side */
	int peer = self >= 0 ? (int)(a == self ? b : a) : FIND(m, n, "[receive]") ? (int)a : (int)b;
	add_transport(p, peer, k, (size_t)(kend - k));
}

static void add_env(struct nl_proc *p, const char *m, size_t n, const char *at, size_t atlen, int file, uint64_t line)
{
	const char *name = m;
	while (name < at && !(name[0] == 'N' && starts(name, (size_t)(at - name), "NCCL_")))
		name++;
	if (name >= at)
		return;
	size_t nl = (size_t)(at - name);
	const char *v = at + atlen;
	size_t vl = (size_t)(m + n - v);
	while (vl && (v[vl - 1] == '.' || v[vl - 1] == ' '))
		vl--;
	if (nl > 47)
		nl = 47;
	if (vl > 47)
		vl = 47;
	for (int i = 0; i < p->nenv; i++)
		if (strlen(p->env[i].name) == nl && memcmp(p->env[i].name, name, nl) == 0)
			return;
	if (p->nenv >= NL_MAX_ENV)
		return;
	struct nl_env *e = &p->env[p->nenv++];
	memcpy(e->name, name, nl);
	e->name[nl] = '\0';
	memcpy(e->value, v, vl);
	e->value[vl] = '\0';
	e->file = file;
	e->line = line;
}

/* "init.cc:126 -> 5", "transport/p2p.cc:352 (p2pMap) -> 1", "group.cc:76 -> 5 [Async thread]" */
static bool is_chain(const char *m, size_t n, int *code, size_t *framelen)
{
	const char *colon = find_byte(m, ':', n < 120 ? n : 120);
	if (!colon || colon - m < 3)
		return false;
	size_t fl = (size_t)(colon - m);
	if (!((fl > 3 && (memcmp(colon - 3, ".cc", 3) == 0 || memcmp(colon - 3, ".cu", 3) == 0)) ||
	      memcmp(colon - 2, ".h", 2) == 0 || memcmp(colon - 2, ".c", 2) == 0))
		return false;
	for (const char *q = m; q < colon; q++)
		if (!(isalnum((unsigned char)*q) || *q == '_' || *q == '/' || *q == '.' || *q == '-'))
			return false;
	const char *q = colon + 1, *end = m + n;
	if (q >= end || !is_digit(*q))
		return false;
	while (q < end && is_digit(*q))
		q++;
	if (end - q > 2 && q[0] == ' ' && q[1] == '(') { /* 2.30: " (function)" */
		const char *cl = memchr(q, ')', (size_t)(end - q));
		if (!cl)
			return false;
		q = cl + 1;
	}
	if (end - q < 5 || memcmp(q, " -> ", 4) != 0)
		return false;
	long v = 0;
	size_t k = parse_num(q + 4, (size_t)(end - q - 4), &v);
	if (!k)
		return false;
	*code = (int)v;
	*framelen = (size_t)(q + 4 + k - m);
	return true;
}

/* Structural parse of an INFO message: stages, comms, transports, env. */
static bool model_info(struct nccllog *lg, struct nl_proc *p, int file, uint64_t line, const char *m, size_t n)
{
	if (n == 0)
		return true;
	/* a collective call (COLL subsystem), the bulk of big logs:
	 * "AllReduce: opCount 0 sendbuff ..." */
	if (m[0] >= 'A' && m[0] <= 'Z') {
		const char *colon = find_byte(m, ':', n < 24 ? n : 24);
		if (colon && starts(colon, (size_t)(m + n - colon), ": opCount ")) {
			if (p->ncomms && p->comms[p->ncomms - 1].complete)
				set_stage(p, &p->comms[p->ncomms - 1], 10, file, line);
			return true;
		}
	}
	switch (m[0]) {
	case 'C':
		if (starts(m, n, "Channel ")) {
			/* ring lines ("Channel 00/64 : 0 1") have no "[dev]" */
			if (find_byte(m, '[', n) && FIND(m, n, " via ")) {
				parse_via(p, m, n, file, line);
				struct nl_comm *c = p->ncomms ? &p->comms[p->ncomms - 1] : NULL;
				if (!c || !c->complete) {
					stage_current(p, 7, file, line);
					if (p->ncomms)
						p->comms[p->ncomms - 1].conn_in_init = true;
				} else {
					stage_current(p, 10, file, line);
				}
			} else {
				stage_current(p, 6, file, line);
			}
			return true;
		}
		if (starts(m, n, "Connected all ") || starts(m, n, "Connected NVLS") || starts(m, n, "Connected Collnet")) {
			struct nl_comm *c = p->ncomms ? &p->comms[p->ncomms - 1] : NULL;
			stage_current(p, c && c->complete ? 10 : 7, file, line);
			return true;
		}
		if (starts(m, n, "CC Off") || starts(m, n, "CC On")) {
			stage_current(p, 8, file, line);
			return true;
		}
		if (starts(m, n, "Check P2P Type")) {
			stage_current(p, 6, file, line);
			return true;
		}
		break;
	case 'R':
		/* 2.4-2.6: "Ring 00 : 0[0] -> 1[1] via P2P/IPC"; "Ring 00 :    0   1" */
		if (starts(m, n, "Ring ") && n > 7 && is_digit(m[5])) {
			if (FIND(m, n, " via ")) {
				parse_via(p, m, n, file, line);
				stage_current(p, 7, file, line);
				if (p->ncomms && !p->comms[p->ncomms - 1].complete)
					p->comms[p->ncomms - 1].conn_in_init = true;
			} else {
				stage_current(p, 6, file, line);
			}
			return true;
		}
		break;
	case 'T':
		if (starts(m, n, "Trees")) {
			stage_current(p, 6, file, line);
			return true;
		}
		break;
	case 'P':
		if (starts(m, n, "P2P Chunksize set to ")) {
			struct nl_comm *c = comm_current(p, 6);
			long v = 0;
			parse_num(m + 21, n - 21, &v);
			if (c)
				c->chunksize = (int)v;
			set_stage(p, c, 6, file, line);
			return true;
		}
		break;
	case 'N':
		if (starts(m, n, "NCCL version ")) {
			size_t k = 0;
			const char *v = m + 13;
			while (k < n - 13 && v[k] != ' ' && k < sizeof(p->version) - 1)
				k++;
			memcpy(p->version, v, k);
			p->version[k] = '\0';
			p->version_file = file;
			p->version_line = line;
			set_stage(p, NULL, 0, file, line);
			return true;
		}
		if (starts(m, n, "NET/") || starts(m, n, "NET : ")) {
			set_stage(p, NULL, 2, file, line);
			return false; /* some are signatures (S05, S16, S21) */
		}
		if (starts(m, n, "NVLS multicast support")) {
			stage_current(p, 4, file, line);
			return true;
		}
		break;
	case 'c':
		if (starts(m, n, "cudaDriverVersion ")) {
			long v = 0;
			parse_num(m + 18, n - 18, &v);
			p->cuda_driver = (int)v;
			set_stage(p, NULL, 0, file, line);
			return true;
		}
		break;
	case 'B':
		if (starts(m, n, "Bootstrap : Using") || starts(m, n, "Bootstrap: Using")) {
			const char *u = FIND(m, n, "Using") + 5;
			while (u < m + n && (*u == ' ' || *u == '['))
				u++;
			if (u < m + n && is_digit(*u)) { /* 2.7 "[0]eth0:..." */
				while (u < m + n && *u != ']')
					u++;
				if (u < m + n)
					u++;
			}
			size_t k = 0;
			while (u + k < m + n && u[k] != ' ' && k < sizeof(p->bootstrap_if) - 1)
				k++;
			memcpy(p->bootstrap_if, u, k);
			p->bootstrap_if[k] = '\0';
			set_stage(p, NULL, 1, file, line);
			return true;
		}
		if (starts(m, n, "Bootstrap timings")) {
			stage_current(p, 4, file, line);
			return true;
		}
		break;
	case 'U':
		if (starts(m, n, "Using network ")) {
			size_t k = n - 14 < sizeof(p->net) - 1 ? n - 14 : sizeof(p->net) - 1;
			memcpy(p->net, m + 14, k);
			p->net[k] = '\0';
			set_stage(p, NULL, 2, file, line);
			return true;
		}
		break;
	case 'I':
		if (starts(m, n, "Init timings")) {
			struct nl_comm *c = comm_current(p, 9);
			const char *t = FIND(m, n, " total ");
			if (c && t)
				c->init_total = strtod(t + 7, NULL);
			set_stage(p, c, 9, file, line);
			return true;
		}
		break;
	case 'S':
		if (starts(m, n, "Setting affinity")) {
			stage_current(p, 4, file, line);
			return true;
		}
		break;
	default:
		if (is_digit(m[0]) && FIND(m, n, " coll channels")) {
			stage_current(p, 8, file, line);
			return true;
		}
		break;
	}
	/* lines that name their communicator: "comm 0x..", "ncclCommInitRank comm
	 * 0x..", "[Rank 0] ncclCommInitRankConfig comm 0x.." */
	if (m[0] == 'n' || m[0] == 'c' || m[0] == '[') {
		const char *cp = NULL, *t = m, *end = m + n;
		for (int tok = 0; tok < 4 && t < end; tok++) {
			if (starts(t, (size_t)(end - t), "comm 0x")) {
				cp = t;
				break;
			}
			const char *sp = find_byte(t, ' ', (size_t)(end - t));
			if (!sp)
				break;
			t = sp + 1;
		}
		if (cp) {
			char ptr[24];
			token_after(cp, (size_t)(m + n - cp), "comm ", ptr, sizeof(ptr));
			if (FIND(m, n, "Init START")) {
				struct nl_comm *c = NULL;
				/* a comm of this pointer still initializing is the same */
				for (int i = p->ncomms - 1; i >= 0 && !c; i--)
					if (str_eq(p->comms[i].ptr, ptr) && !p->comms[i].complete && !p->comms[i].destroyed)
						c = &p->comms[i];
				if (!c)
					c = comm_new(p, ptr);
				comm_fields(c, m, n);
				c->file = file;
				c->stage_line = line;
				return true;
			}
			if (FIND(m, n, "Init COMPLETE")) {
				struct nl_comm *c = comm_by_ptr(p, ptr, true);
				comm_fields(c, m, n);
				c->complete = true;
				set_stage(p, c, 9, file, line);
				return true;
			}
			if (FIND(m, n, " nNodes ")) {
				struct nl_comm *c = comm_by_ptr(p, ptr, true);
				int v;
				if (int_after(m, n, " rank ", &v))
					c->rank = v;
				if (int_after(m, n, " nRanks ", &v))
					c->nranks = v;
				if (int_after(m, n, " nNodes ", &v))
					c->nnodes = v;
				if (int_after(m, n, " localRanks ", &v))
					c->localranks = v;
				set_stage(p, c, 5, file, line);
				return true;
			}
			if (FIND(m, n, "Destroy COMPLETE") || FIND(m, n, "Destroy START")) {
				struct nl_comm *c = comm_by_ptr(p, ptr, false);
				if (c)
					c->destroyed = true;
				return true;
			}
			if (FIND(m, n, "Abort")) {
				struct nl_comm *c = comm_by_ptr(p, ptr, false);
				if (c)
					c->aborted = true;
				return false;
			}
		}
	}
	/* NCCL_X set by environment to V */
	if (m[0] == 'N') {
		const char *env = FIND(m, n, " set by environment to ");
		if (env) {
			add_env(p, m, n, env, 23, file, line);
			return true;
		}
	}
	if (m[0] == 't' && starts(m, n, "threadThresholds")) {
		stage_current(p, 8, file, line);
		return true;
	}
	if ((m[0] == 'n' || m[0] == 'A') && FIND(m, n, "Affinity for GPU")) {
		stage_current(p, 4, file, line);
		return false; /* "is empty, ignoring" is a signature (S24) */
	}
	(void)lg;
	return false;
}

/* Lines that are frequent and never match a signature: the matcher is
 * skipped for them (speed). */
static bool info_is_bulk(const char *m, size_t n)
{
	if (n == 0)
		return true;
	/* ALLOC subsystem: "channel.cc:42 Cuda Alloc Size 608 pointer 0x..." */
	const char *cc = n > 40 ? find_byte(m, ':', 24) : NULL;
	if (cc && cc - m > 3 && memcmp(cc - 3, ".cc", 3) == 0) {
		const char *sp = find_byte(cc, ' ', (size_t)(m + n - cc));
		if (sp && (starts(sp, (size_t)(m + n - sp), " Cuda ") || starts(sp, (size_t)(m + n - sp), " Mem ")))
			return true;
	}
	switch (m[0]) {
	case 'C':
		return starts(m, n, "Channel ") || starts(m, n, "Connected all ");
	case 'T':
		return starts(m, n, "Trees");
	case ' ':
		return true; /* graph dumps " 0 : GPU/0-60" */
	default:
		return false;
	}
}

static void store_event(struct nccllog *lg, int sig, int proc, int prank, int file, uint64_t line, long long ts,
			const char *text, size_t textlen)
{
	if (sig < 0 || sig >= NL_MAX_SIGS)
		return;
	lg->sigcount[sig]++;
	if (proc >= 0)
		lg->procs[proc].sighits[sig / 64] |= 1ULL << (sig % 64);
	if (lg->sigstored[sig] >= NL_MAX_EVIDENCE)
		return;
	lg->sigstored[sig]++;
	XGROW(lg->ev, lg->aev, lg->nev + 1);
	struct nl_event *e = &lg->ev[lg->nev++];
	memset(e, 0, sizeof(*e));
	e->sig = sig;
	e->proc = proc;
	e->prank = prank;
	e->file = file;
	e->line = line;
	e->seq = lg->seq;
	e->ts = ts;
	copy_clean(e->text, sizeof(e->text), text, textlen);
}

/* "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1,
 * OpType=ALLREDUCE, ..., Timeout(ms)=600000) ran for ..." (PyTorch 1.13+) */
static void note_watchdog(struct nccllog *lg, int file, uint64_t lineno, const char *s, size_t n, int prank)
{
	if (lg->nwd >= NL_MAX_WATCHDOG)
		return;
	struct nl_watchdog *w = &lg->wd[lg->nwd];
	memset(w, 0, sizeof(*w));
	w->rank = prank;
	int v;
	if (int_after(s, n, "[Rank ", &v))
		w->rank = v;
	char tok[32];
	w->seq = -1;
	if (token_after(s, n, "SeqNum=", tok, sizeof(tok)))
		w->seq = strtoll(tok, NULL, 10);
	if (token_after(s, n, "OpType=", tok, sizeof(tok))) {
		size_t k = strcspn(tok, ",)");
		tok[k] = '\0';
		str_copy(w->optype, tok, sizeof(w->optype));
	}
	if (token_after(s, n, "Timeout(ms)=", tok, sizeof(tok)))
		w->timeout_ms = strtoll(tok, NULL, 10);
	w->file = file;
	w->line = lineno;
	lg->nwd++;
}

static int proc_for_text(struct nccllog *lg, int file, const struct nl_line *pl)
{
	if (pl->ppid > 0) {
		struct procindex *pi = lg->procindex;
		for (int i = pi->head[(unsigned long)pl->ppid % PID_BUCKETS]; i >= 0; i = pi->next[i])
			if (lg->procs[i].pid == pl->ppid)
				return i;
	}
	if (pl->prank >= 0) {
		for (int i = 0; i < lg->nprocs; i++) {
			struct nl_proc *p = &lg->procs[i];
			if (p->file != file && p->last_file != file)
				continue;
			if (p->prank == pl->prank)
				return i;
			const struct nl_comm *c = nl_proc_main_comm(p);
			if (c && c->rank == pl->prank)
				return i;
		}
	}
	if (file >= 0 && file < lg->nfiles && lg->files[file].only_proc >= 0)
		return lg->files[file].only_proc;
	return -1;
}

static void feed_line(struct nccllog *lg, int file, char *line, size_t len, uint64_t lineno, bool clean)
{
	struct matcher *mt = lg->matcher;
	struct nl_file *f = &lg->files[file];
	if (clean) {
		bool had_nul, had_ansi;
		len = nccllog_clean_line(line, len, &had_nul, &had_ansi);
		if (had_nul)
			f->nul_lines++;
		if (had_ansi)
			f->ansi_lines++;
	}
	lg->seq++;
	struct nl_line pl;
	struct procindex *px = lg->procindex;
	int slot;
	if (parse_cached(px, line, len, &pl, &slot)) {
		f->nccl_lines++;
		f->last_nccl_line = lineno;
		int pi = slot >= 0 ? px->hc[slot / 2].way[slot % 2].proc : -1;
		if (pi >= 0) {
			px->last = pi; /* as proc_find() would */
		} else {
			pi = proc_find(lg, pl.host, pl.hostlen, pl.pid);
			if (pi < 0)
				pi = proc_add(lg, pl.host, pl.hostlen, pl.pid, file);
			if (pi < 0) {
				lg->procs_dropped++;
				return;
			}
			if (slot >= 0)
				px->hc[slot / 2].way[slot % 2].proc = pi;
		}
		if (f->only_proc == -1)
			f->only_proc = pi;
		else if (f->only_proc != pi)
			f->only_proc = -2;
		struct nl_proc *p = &lg->procs[pi];
		p->nlines++;
		if (p->dev < 0)
			p->dev = pl.dev;
		if (pl.prank >= 0)
			p->prank = pl.prank;
		p->last_file = file;
		p->last_line = lineno;
		if (pl.level == NL_INFO || pl.level == NL_TRACE) {
			int code;
			size_t fl;
			if (pl.msglen && is_chain(pl.msg, pl.msglen, &code, &fl)) {
				if (p->last_warn_event >= 0 && p->last_warn_file == file && lineno - p->last_warn_line < 64) {
					struct nl_event *e = &lg->ev[p->last_warn_event];
					size_t cl = strlen(e->chain);
					if (!e->code)
						e->code = code;
					if (cl + fl + 3 < sizeof(e->chain)) {
						if (cl)
							memcpy(e->chain + cl, ", ", 2), cl += 2;
						copy_clean(e->chain + cl, sizeof(e->chain) - cl, pl.msg, fl);
					}
					p->last_warn_line = lineno;
				} else {
					lg->orphan_chain++;
				}
				return;
			}
			raw_copy(p->last_text, sizeof(p->last_text), pl.msg, pl.msglen);
			int before = nl_proc_stage(p);
			int nc = p->ncomms;
			bool known = model_info(lg, p, file, lineno, pl.msg, pl.msglen);
			if (nl_proc_stage(p) != before || p->ncomms != nc) {
				copy_clean(p->stage_text, sizeof(p->stage_text), pl.msg, pl.msglen);
				p->stage_file = file;
				p->stage_line = lineno;
			}
			if (!known && !info_is_bulk(pl.msg, pl.msglen)) {
				int sig = matcher_find(mt, pl.msg, pl.msglen, NS_INFO);
				if (sig >= 0)
					store_event(lg, sig, pi, pl.prank, file, lineno, pl.ts, pl.msg, pl.msglen);
			}
		} else if (pl.level == NL_WARN) {
			p->nwarn++;
			raw_copy(p->last_text, sizeof(p->last_text), pl.msg, pl.msglen);
			/* from the source file on, so a row can ask for "nvls.cc" */
			const char *ws = pl.src ? pl.src : pl.msg;
			int sig = matcher_find(mt, ws, (size_t)(line + len - ws), NS_WARN);
			if (sig < 0)
				sig = mt->w00;
			size_t before = lg->nev;
			store_event(lg, sig, pi, pl.prank, file, lineno, pl.ts, pl.msg, pl.msglen);
			p->last_warn_event = lg->nev > before ? (int)lg->nev - 1 : -1;
			p->last_warn_line = lineno;
			p->last_warn_file = file;
			/* a WARN may still carry model facts (version mismatch, dup GPU) */
		}
		return;
	}
	/* any other text: PyTorch, vLLM, launchers, kernel */
	if (len == 0)
		return;
	int sig = matcher_find(mt, line, len, NS_TEXT);
	int pi = -2;
	if (sig >= 0) {
		pi = proc_for_text(lg, file, &pl);
		if (pi >= 0 && pl.prank >= 0 && lg->procs[pi].prank < 0)
			lg->procs[pi].prank = pl.prank; /* "[rank0]: ..." of its only process */
		store_event(lg, sig, pi, pl.prank, file, lineno, 0, line, len);
		if (strcmp(mt->sigs[sig].id, "PT01") == 0)
			note_watchdog(lg, file, lineno, line, len, pl.prank);
	}
	/* bare version line of old NCCL at NCCL_DEBUG=VERSION/WARN */
	const char *v = len < 100 ? FIND(line, len, "NCCL version ") : NULL;
	if (v && (v == line || !isalnum((unsigned char)v[-1])) && FIND(v, (size_t)(line + len - v), "+cuda")) {
		if (pi == -2)
			pi = proc_for_text(lg, file, &pl);
		/* NCCL prints it between its own lines: the process of the line before */
		if (pi < 0 && px->last >= 0 && lg->procs[px->last].last_file == file)
			pi = px->last;
		if (pi >= 0 && !lg->procs[pi].version[0]) {
			size_t k = 0;
			const char *s = v + 13;
			while (s + k < line + len && s[k] != ' ' && k < sizeof(lg->procs[0].version) - 1)
				k++;
			memcpy(lg->procs[pi].version, s, k);
			lg->procs[pi].version[k] = '\0';
			lg->procs[pi].version_file = file;
			lg->procs[pi].version_line = lineno;
		}
	}
	size_t lead = 0;
	while (lead < len && (line[lead] == ' ' || line[lead] == '\t'))
		lead++;
	if (lead < len) {
		raw_copy(f->last_text, sizeof(f->last_text), line, len);
		f->last_line_no = lineno;
	}
}

void nccllog_feed(struct nccllog *lg, int file, char *line, size_t len, uint64_t lineno)
{
	feed_line(lg, file, line, len, lineno, true);
}

void nccllog_feed_plain(struct nccllog *lg, int file, char *line, size_t len, uint64_t lineno)
{
	feed_line(lg, file, line, len, lineno, false);
}
