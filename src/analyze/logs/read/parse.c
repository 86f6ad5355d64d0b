/* NCCL log reader, line level: cleaning a raw line (NUL bytes, ANSI
 * escapes), parsing the "host:pid:tid [dev] NCCL LEVEL" header of every
 * NCCL format with launcher prefixes before it, and the header cache that
 * remembers the parse of a thread's header. Hot path: the header found with
 * vector compares (util/bytescan.h), no regular expressions. */
#include "analyze/logs/read/read.h"

#include <stdio.h>

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

size_t nccllog_clean_line(char *s, size_t len, bool *had_nul, bool *had_ansi)
{
	*had_nul = false;
	*had_ansi = false;
	if (!bscan_has_nul_or_esc(s, len))
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

/* Whether s[0..n) starts with pat: 'd' a digit, any other byte itself. */
static bool shape(const char *s, size_t n, const char *pat)
{
	size_t k = 0;
	for (; pat[k]; k++)
		if (k >= n || (pat[k] == 'd' ? !is_digit(s[k]) : s[k] != pat[k]))
			return false;
	return true;
}

/* What a paste or a log collector put before each line, not the program:
 * a mail or Markdown quote ("> ", repeated), a collector's RFC 3339 time
 * ("2024-05-01T10:00:00.123456789Z ", kubectl logs --timestamps, Loki), a
 * docker compose service ("vllm-1  | "), `cat -n`'s number and tab.
 * Returns the bytes to skip, 0 for none. Line numbers followed by blanks
 * (an editor's) are left alone: nccl-tests rows start the same way. */
size_t nl_paste_wrapper_len(const char *s, size_t n)
{
	size_t i = 0;
	for (int k = 0; k < 4 && i < n && s[i] == '>'; k++) { /* "> ", "> > ", ">> " */
		i++;
		while (i < n && s[i] == '>')
			i++;
		if (i < n && s[i] == ' ')
			i++;
	}
	if (i)
		return i;
	/* `cat -n`: blanks, the line's number, a tab */
	while (i < n && i < 8 && s[i] == ' ')
		i++;
	size_t d = i;
	while (i < n && i - d < 8 && is_digit(s[i]))
		i++;
	if (i > d && i < n && s[i] == '\t')
		return i + 1;
	i = 0;
	if (shape(s, n, "dddd-dd-ddTdd:dd:dd")) {
		i = 19;
		if (i < n && (s[i] == '.' || s[i] == ','))
			for (i++; i < n && is_digit(s[i]); i++)
				;
		if (i < n && s[i] == 'Z')
			i++;
		else if (i < n && (s[i] == '+' || s[i] == '-'))
			i += shape(s + i + 1, n - i - 1, "dd:dd") ? 6 : shape(s + i + 1, n - i - 1, "dddd") ? 5 : 0;
		return i < n && s[i] == ' ' ? i + 1 : 0;
	}
	/* "name  | " (docker compose): a service name, blanks, a bar, a blank */
	while (i < n && i < 64 && (is_host_char(s[i])))
		i++;
	if (i == 0 || i >= n || s[i] != ' ')
		return 0;
	while (i < n && s[i] == ' ')
		i++;
	return i + 1 < n && s[i] == '|' && s[i + 1] == ' ' ? i + 2 : 0;
}

/* Launcher prefixes in the first bytes of a line. */
static void parse_prefixes(const char *s, size_t n, struct nl_line *out)
{
	if (n > 160)
		n = 160;
	const char *end = s + n;
	long v;
	/* (VllmWorkerProcess pid=N), (RayWorkerWrapper pid=N, ip=..), (VllmWorker rank=1 pid=N) */
	for (const char *o = s; (o = bscan_find_byte(o, '(', (size_t)(end - o))) != NULL; o++) {
		const char *c = bscan_find_byte(o, ')', (size_t)(end - o));
		if (!c)
			break;
		const char *p = BSCAN_FIND(o, (size_t)(c - o), "pid=");
		if (p && parse_num(p + 4, (size_t)(c - p - 4), &v)) {
			out->ppid = v;
			const char *r = BSCAN_FIND(o, (size_t)(c - o), "rank=");
			if (r && parse_num(r + 5, (size_t)(c - r - 5), &v))
				out->prank = (int)v;
			break;
		}
		o = c;
	}
	/* [rank3]: from torchrun; [1,3]<stdout>: from Open MPI --tag-output */
	int tries = 0;
	for (const char *q = s; tries < 4 && (q = bscan_find_byte(q, '[', (size_t)(end - q))) != NULL; q++, tries++) {
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
	if (h == q) {
		/* ":16674:16674 [0] NCCL INFO" or "::16674:16674": the host name
		 * deleted (a redacted paste) or empty; at the start of the line or
		 * after a blank, the process of an unknown host */
		while (h > line && h[-1] == ':') /* "::pid:tid": a host of colons left */
			h--;
		if (h != line && h[-1] != ' ' && h[-1] != '\t')
			return NULL;
		out->host = NL_HEADERLESS_HOST;
		out->hostlen = sizeof(NL_HEADERLESS_HOST) - 1;
		out->pid = pid;
		out->tid = tid;
		return h;
	}
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
	else if (starts(kw, rest, "ATTN"))
		lv = NL_ATTN, kwlen = 4;
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
			if ((lv == NL_WARN || lv == NL_ATTN) && m < p) {
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
	for (int tries = 0; tries < 4 && (q = bscan_find_byte(q, ']', (size_t)(end - q))) != NULL; tries++, q++)
		if (end - q >= 7 && memcmp(q, "] NCCL ", 7) == 0)
			return q;
	return NULL;
}

/* The rest of nccllog_parse_line after the fast path failed; prefixes:
 * read the launcher prefixes of a line that is not NCCL's (nl_parse_cached
 * leaves that to its caller, who needs them for few lines). */
static int parse_slow(const char *s, size_t len, struct nl_line *out, bool prefixes)
{
	const char *end = s + len;
	const char *from = s;
	const char *p;
	while ((p = BSCAN_FIND(from, (size_t)(end - from), " NCCL ")) != NULL) {
		if (try_header(s, end, p, out))
			return 1;
		from = p + 1;
	}
	if (nl_parse_headerless(s, len, from != s, out))
		return 1;
	out->msg = s;
	out->msglen = len;
	if (prefixes)
		parse_prefixes(s, len, out);
	return 0;
}

void nl_line_prefixes(const char *s, size_t len, struct nl_line *out)
{
	parse_prefixes(s, len, out);
}

int nccllog_line_rank(const char *s, size_t len)
{
	struct nl_line l = { .ppid = -1, .prank = -1 };
	parse_prefixes(s, len, &l);
	return l.prank;
}

int nccllog_parse_line(const char *s, size_t len, struct nl_line *out)
{
	line_reset(out);
	const char *end = s + len;
	/* fast path: INFO lines have "] NCCL " right after the device */
	const char *q = fast_header(s, end);
	if (q && try_header(s, end, q + 1, out))
		return 1;
	return parse_slow(s, len, out, true);
}

/* ------------------------------------------------------------------ */
/* the header cache (struct nl_hcache, logs/read/read.h)                */

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
int nl_parse_cached(struct nl_hcache *hc, const char *s, size_t len, struct nl_line *out, int *slot)
{
	*slot = -1;
	const char *end = s + len;
	const char *q = fast_header(s, end);
	if (!q) {
		line_reset(out);
		return parse_slow(s, len, out, false);
	}
	const char *kw = q + 7;
	size_t rest = (size_t)(end - kw);
	size_t kwlen = 0;
	if (starts(kw, rest, "INFO") || starts(kw, rest, "WARN") || starts(kw, rest, "CALL") || starts(kw, rest, "ATTN"))
		kwlen = 4;
	else if (starts(kw, rest, "TRACE") || starts(kw, rest, "ABORT"))
		kwlen = 5;
	size_t hl = (size_t)(kw - s) + kwlen;
	if (!kwlen || hl > HC_MAX) {
		line_reset(out);
		if (try_header(s, end, q + 1, out))
			return 1;
		return parse_slow(s, len, out, false);
	}
	unsigned k = hc_set_of(s, hl, q);
	struct hc_set *set = &hc->set[k];
	for (int w = 0; w < 2; w++) {
		struct hc_entry *e = &set->way[w];
		if (e->len != hl || !eq_long(e->text, s, hl))
			continue;
		*out = e->line; /* every field: no line_reset() needed */
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
	line_reset(out);
	if (!try_header(s, end, q + 1, out))
		return parse_slow(s, len, out, false);
	if (out->host < s || out->host >= end)
		return 1; /* a host that is not in the line (NL_HEADERLESS_HOST): nothing to cache by offset */
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
