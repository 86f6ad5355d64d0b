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
