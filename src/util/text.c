/* String and number helpers: see text.h. */
#include "util/text.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

bool str_startswith(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool str_endswith(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

void str_rtrim(char *s)
{
	size_t n = strlen(s);
	while (n > 0 && isspace((unsigned char)s[n - 1]))
		s[--n] = '\0';
}

char *str_trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	str_rtrim(s);
	return s;
}

static bool only_space(const char *p)
{
	while (*p) {
		if (!isspace((unsigned char)*p))
			return false;
		p++;
	}
	return true;
}

int parse_ll(const char *s, int base, long long *out)
{
	char *end;
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s)
		return -EINVAL;
	errno = 0;
	long long v = strtoll(s, &end, base);
	if (errno || end == s || !only_space(end))
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_ull(const char *s, int base, unsigned long long *out)
{
	char *end;
	if (!s)
		return -EINVAL;
	while (isspace((unsigned char)*s))
		s++;
	if (!*s || *s == '-')
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, base);
	if (errno || end == s || !only_space(end))
		return -EINVAL;
	*out = v;
	return 0;
}

size_t str_launcher_prefix_len(const char *s, size_t n)
{
	size_t i = 0;
	for (;;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= n || s[i] != '[')
			return i;
		const char *c = memchr(s + i, ']', n - i);
		if (!c || (size_t)(c - s) + 1 >= n || c[1] != ':')
			return i;
		i = (size_t)(c - s) + 2;
	}
}

int parse_double(const char *s, double *out)
{
	char *end;
	if (!s)
		return -EINVAL;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !only_space(end))
		return -EINVAL;
	*out = v;
	return 0;
}

int xsnprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf, n, fmt, ap);
	va_end(ap);
	if (k < 0) {
		if (n)
			buf[0] = '\0';
		return -EINVAL;
	}
	if ((size_t)k >= n) {
		if (n)
			buf[0] = '\0';
		return -ENAMETOOLONG;
	}
	return k;
}

__attribute__((format(printf, 4, 0))) static int vappendf(char *buf, size_t bufsz, size_t *len, const char *fmt, va_list ap)
{
	if (bufsz == 0 || *len >= bufsz)
		return -ENOSPC;
	int k = vsnprintf(buf + *len, bufsz - *len, fmt, ap);
	if (k >= 0 && (size_t)k < bufsz - *len) {
		*len += (size_t)k;
		return 0;
	}
	/* not whole: take the part back and mark the cut */
	static const char more[] = " ...";
	if (*len + sizeof(more) <= bufsz)
		memcpy(buf + *len, more, sizeof(more));
	else if (bufsz >= sizeof(more))
		memcpy(buf + bufsz - sizeof(more), more, sizeof(more));
	else
		buf[*len] = '\0';
	*len = bufsz;
	return -ENOSPC;
}

int str_appendf(char *buf, size_t bufsz, size_t *len, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = vappendf(buf, bufsz, len, fmt, ap);
	va_end(ap);
	return r;
}

int str_setf(char *buf, size_t bufsz, const char *fmt, ...)
{
	static const char more[] = " ...";
	if (bufsz == 0)
		return -ENOSPC;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf, bufsz, fmt, ap);
	va_end(ap);
	if (k < 0) {
		buf[0] = '\0';
		return -EINVAL;
	}
	if ((size_t)k < bufsz)
		return 0;
	/* keep what fits and say it was cut */
	if (bufsz >= sizeof(more))
		memcpy(buf + bufsz - sizeof(more), more, sizeof(more));
	return -ENOSPC;
}

size_t str_copy(char *dst, const char *src, size_t dstsz)
{
	size_t n = strlen(src);
	if (dstsz) {
		size_t c = n < dstsz - 1 ? n : dstsz - 1;
		memcpy(dst, src, c);
		dst[c] = '\0';
	}
	return n;
}

const char *str_casestr(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	if (!n)
		return hay;
	for (; *hay; hay++)
		if (strncasecmp(hay, needle, n) == 0)
			return hay;
	return NULL;
}

const char *fmt_bytes(uint64_t bytes, char *buf, size_t bufsz)
{
	static const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double v = (double)bytes;
	int u = 0;
	while (v >= 1024.0 && u < 5) {
		v /= 1024.0;
		u++;
	}
	if (u == 0)
		snprintf(buf, bufsz, "%llu B", (unsigned long long)bytes);
	else if (v >= 100 || v == (double)(long long)v)
		snprintf(buf, bufsz, "%.0f %s", v, units[u]);
	else
		snprintf(buf, bufsz, "%.1f %s", v, units[u]);
	return buf;
}

int parse_size(const char *s, uint64_t *out)
{
	char *end;
	if (!s || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno)
		return -EINVAL;
	uint64_t mul = 1;
	switch (tolower((unsigned char)*end)) {
	case '\0': break;
	case 'k': mul = 1ULL << 10; end++; break;
	case 'm': mul = 1ULL << 20; end++; break;
	case 'g': mul = 1ULL << 30; end++; break;
	case 't': mul = 1ULL << 40; end++; break;
	default: return -EINVAL;
	}
	if (*end == 'i' || *end == 'I')
		end++;
	if (*end == 'b' || *end == 'B')
		end++;
	if (*end)
		return -EINVAL;
	if (v > UINT64_MAX / mul)
		return -EINVAL; /* would wrap around to a small size */
	*out = (uint64_t)v * mul;
	return 0;
}

/* Far above any kernel's NR_CPUS: larger numbers are garbage, and would
 * overflow the count. */
#define CPULIST_MAX (1L << 20)

bool text_next_line(const char **cursor, char *buf, size_t bufsz, bool *fits)
{
	const char *line = *cursor;
	if (!line || !*line)
		return false;
	const char *nl = strchr(line, '\n');
	size_t len = nl ? (size_t)(nl - line) : strlen(line);
	*fits = len < bufsz;
	if (*fits) {
		memcpy(buf, line, len);
		buf[len] = '\0';
	} else if (bufsz) {
		buf[0] = '\0';
	}
	*cursor = nl ? nl + 1 : line + len;
	return true;
}

int cpulist_count(const char *list)
{
	int count = 0;
	const char *p = list;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p)
		return 0;
	while (*p) {
		char *end;
		long a = strtol(p, &end, 10);
		if (end == p || a < 0 || a > CPULIST_MAX)
			return -EINVAL;
		long b = a;
		p = end;
		if (*p == '-') {
			p++;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > CPULIST_MAX)
				return -EINVAL;
			p = end;
		}
		if (count > INT_MAX - (int)(b - a + 1))
			return -EINVAL;
		count += (int)(b - a + 1);
		if (*p == ',')
			p++;
		else if (*p && !isspace((unsigned char)*p))
			return -EINVAL;
		while (isspace((unsigned char)*p))
			p++;
	}
	return count;
}

/* ---- text from outside, made visible ------------------------------------ */

/* The length of the valid UTF-8 sequence at s (2..4), 0 when s does not
 * start one (a lone or wrong continuation byte, an overlong form, a
 * surrogate, past U+10FFFF, or cut by the end of the string). */
static size_t utf8_seq(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n;
	unsigned char lo = 0x80, hi = 0xBF;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4;
	else
		return 0;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < n; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return n;
}

/* One step over s: *len bytes taken; the escape to write instead in esc
 * (returns true), or false when those bytes print as they are. */
static bool vis_step(const unsigned char *s, unsigned flags, size_t *len, char esc[8])
{
	unsigned char c = s[0];
	*len = 1;
	if (c < 0x80) {
		if ((c >= 0x20 && c != 0x7F) || c == '\t' || (c == '\n' && (flags & STR_VIS_NEWLINE)))
			return false;
		snprintf(esc, 8, "\\x%02x", c);
		return true;
	}
	size_t n = utf8_seq(s);
	if (n == 0) {
		snprintf(esc, 8, "\\x%02x", c);
		return true;
	}
	*len = n;
	if (c == 0xC2 && s[1] <= 0x9F) { /* U+0080..U+009F: the C1 controls */
		snprintf(esc, 8, "\\u%04x", s[1]);
		return true;
	}
	return false;
}

bool str_is_visible(const char *s, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	char esc[8];
	size_t len;
	for (; *p; p += len) {
		if (*p >= 0x20 && *p < 0x7F) {
			len = 1;
			continue;
		}
		if (vis_step(p, flags, &len, esc))
			return false;
	}
	return true;
}

size_t str_visible(char *dst, size_t dstsz, const char *src, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t out = 0;
	bool full = dstsz == 0;
	char esc[8];
	size_t len;
	for (; *p; p += len) {
		bool e = vis_step(p, flags, &len, esc);
		const char *piece = e ? esc : (const char *)p;
		size_t plen = e ? strlen(esc) : len;
		if (!full && out + plen < dstsz)
			memcpy(dst + out, piece, plen);
		else if (!full) {
			dst[out] = '\0';
			full = true;
		}
		out += plen;
	}
	if (!full)
		dst[out] = '\0';
	return out;
}

const char *str_shown(const char *src, char *buf, size_t bufsz, unsigned flags)
{
	if (str_is_visible(src, flags) || bufsz == 0)
		return src;
	if (str_visible(buf, bufsz, src, flags) >= bufsz && bufsz > 4) {
		/* cut between whole pieces, with room for the mark */
		str_visible(buf, bufsz - 3, src, flags);
		memcpy(buf + strlen(buf), "...", 4);
	}
	return buf;
}
