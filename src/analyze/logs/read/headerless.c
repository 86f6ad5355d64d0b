/* NCCL log reader, the fallback for NCCL lines pasted without their
 * "host:pid:tid [dev]" header (a web page, an issue thread, a framework's
 * logger that keeps only the message). Called by parse.c only when
 * the header parse failed, so it costs nothing on NCCL's own lines; on other
 * text it looks at the first bytes only. Shapes read (issue 14, batch 5):
 *   graph/xml.h:77 NCCL WARN Attribute arch of node cpu not found
 *   create_nccl_ofi_component:496 NCCL WARN NET/OFI Couldn't enable ...
 *   [0] misc/ibvwrap.cc:284 NCCL WARN Call to ibv_modify_qp failed ...
 *   NCCL INFO graph/topo.cc:380 -> 3
 *   INFO NET/Socket : Using [0]bond0:192.168.1.161<0>
 * The source file of a WARN is NCCL's own (include/debug.h prints
 * "%s:%d NCCL WARN " with __FILE__ and __LINE__ after the header since 2.4).
 * Every such line belongs to one process of the host NL_HEADERLESS_HOST. */
#include "analyze/logs/read/read.h"

static bool src_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '/' || c == '_' || c == '-' ||
	       c == '.';
}

/* The level keyword at s[0..n) followed by a space or the end; its length. */
static size_t level_at(const char *s, size_t n, enum nl_level *lv)
{
	size_t k = 4;
	enum nl_level l;
	if (n < 4)
		return 0;
	switch (s[0]) { /* one compare for most text lines */
	case 'I':
		l = NL_INFO;
		if (memcmp(s, "INFO", 4) != 0)
			return 0;
		break;
	case 'W':
		l = NL_WARN;
		if (memcmp(s, "WARN", 4) != 0)
			return 0;
		break;
	case 'A':
		if (memcmp(s, "ATTN", 4) == 0) {
			l = NL_ATTN;
			break;
		}
		l = NL_ABORT;
		k = 5;
		if (!starts(s, n, "ABORT"))
			return 0;
		break;
	case 'T':
		l = NL_TRACE;
		k = 5;
		if (!starts(s, n, "TRACE"))
			return 0;
		break;
	default:
		return 0;
	}
	if (n != k && s[k] != ' ')
		return 0;
	*lv = l;
	return k;
}

/* "file.cc:123" at s: its length (the source path has a '.' and no space).
 * With fn, a C function's name in its place as well ("create_nccl_ofi_
 * component:496": aws-ofi-nccl's logger passes __func__ where NCCL's
 * passes __FILE__). */
static size_t src_at(const char *s, size_t n, size_t *pathlen, long *line, bool fn)
{
	size_t i = 0;
	bool dot = false, ident = n > 0 && !is_digit(s[0]);
	while (i < n && i < 64 && src_char(s[i])) {
		dot |= s[i] == '.';
		ident &= s[i] != '/' && s[i] != '-' && s[i] != '.';
		i++;
	}
	if (!(dot || (fn && ident)) || i == 0 || i >= n || s[i] != ':')
		return 0;
	size_t k = parse_num(s + i + 1, n - i - 1, line);
	if (!k)
		return 0;
	*pathlen = i;
	return i + 1 + k;
}

/* A bare "INFO " or "WARN " starts an NCCL message when the first word is
 * NCCL's: a subsystem with a slash ("NET/Socket", "NET/IB", "P2P/CUMEM"),
 * a source position ("init.cc:581 -> 3"), or one of the words NCCL's init
 * lines begin with. vLLM's "INFO 04-13 19:52:24 [...]" begins with a digit. */
static bool nccl_word_at(const char *s, size_t n)
{
	static const char *const words[] = { "Bootstrap", "Channel ", "Ring ", "Trees ", "NCCL version", "NCCL_",
					      "comm 0x", "cudaDriverVersion", "Connected ", "Using network", "NVLS " };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (starts(s, n, words[i]))
			return true;
	size_t w = 0;
	while (w < n && w < 24 && s[w] != ' ' && s[w] != ':')
		w++;
	if (w > 1 && s[0] >= 'A' && s[0] <= 'Z' && memchr(s, '/', w))
		return true;
	size_t pl;
	long ln;
	return src_at(s, n, &pl, &ln, false) > 0;
}

static int fill(struct nl_line *out, enum nl_level lv, const char *msg, const char *end)
{
	out->level = lv;
	out->host = NL_HEADERLESS_HOST;
	out->hostlen = sizeof(NL_HEADERLESS_HOST) - 1;
	out->pid = 0;
	out->tid = 0;
	out->dev = -1;
	while (msg < end && *msg == ' ')
		msg++;
	out->msg = msg;
	out->msglen = (size_t)(end - msg);
	return 1;
}

int nl_parse_headerless(const char *s, size_t len, bool has_nccl, struct nl_line *out)
{
	const char *p = s, *end = s + len;
	/* quoting a paste keeps: indentation, markdown backticks and quotes */
	while (p < end && (*p == ' ' || *p == '\t' || *p == '`' || *p == '>' || *p == '"' || *p == '\''))
		p++;
	while (end > p && (end[-1] == '`' || end[-1] == ' ' || end[-1] == '\r'))
		end--;
	/* a kept device field "[0] " (094's shape) */
	if (p < end && *p == '[') {
		long dev;
		size_t k = parse_num(p + 1, (size_t)(end - p - 1), &dev);
		if (k && p + 1 + k + 1 < end && p[1 + k] == ']' && p[2 + k] == ' ') {
			out->dev = (int)dev;
			p += k + 3;
		}
	}
	size_t n = (size_t)(end - p);
	enum nl_level lv = NL_NONE;
	size_t k;
	/* "NCCL INFO msg", "NCCL WARN msg" */
	if (starts(p, n, "NCCL ") && (k = level_at(p + 5, n - 5, &lv)) > 0) {
		int dev = out->dev;
		fill(out, lv, p + 5 + k, end);
		out->dev = dev;
		return 1;
	}
	/* "file.cc:123 NCCL WARN msg" */
	size_t pathlen;
	long srcline;
	if (has_nccl && (k = src_at(p, n, &pathlen, &srcline, true)) > 0) {
		const char *q = p + k;
		size_t m = (size_t)(end - q);
		size_t kl;
		if (starts(q, m, " NCCL ") && (kl = level_at(q + 6, m - 6, &lv)) > 0) {
			int dev = out->dev;
			fill(out, lv, q + 6 + kl, end);
			out->dev = dev;
			out->src = p;
			out->srclen = pathlen;
			out->srcline = srcline;
			return 1;
		}
		return 0;
	}
	/* "INFO NET/Socket : Using ..." */
	if ((k = level_at(p, n, &lv)) > 0 && (lv == NL_INFO || lv == NL_WARN) && k + 1 < n &&
	    nccl_word_at(p + k + 1, n - k - 1)) {
		int dev = out->dev;
		fill(out, lv, p + k + 1, end);
		out->dev = dev;
		return 1;
	}
	out->dev = -1;
	return 0;
}
