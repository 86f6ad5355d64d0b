/* nccl-tests' split and alltoallv matrix variables (see bench_env.h). */
#include "analyze/bench_env.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* nccl-tests' parseInt, whole: base 2 after "0b", else strtoul's base 0
 * (0x hex, a leading 0 octal); blanks around it */
static int split_number(const char *s, long long *out)
{
	while (isspace((unsigned char)*s))
		s++;
	if (strncasecmp(s, "0b", 2) == 0)
		return *s && parse_ll(s + 2, 2, out) == 0 && s[2] != '-' && s[2] != '+' ? 0 : -EINVAL;
	return parse_ll(s, 0, out) == 0 && *s != '-' ? 0 : -EINVAL;
}

int bench_split_colors(const char *mask, const char *split, int n, int *colors, char *err, size_t errsz)
{
	static const struct { const char *word, *sym; } ops[] = { { "AND", "&" }, { "OR", "|" }, { "MOD", "%" }, { "DIV", "/" } };
	long long v = 0;
	int op = -1; /* ops[] index; -1: every color 0 */
	if (mask) {
		unsigned long long m;
		if (parse_ull(mask, 16, &m) < 0 || m > INT32_MAX) {
			snprintf(err, errsz, "NCCL_TESTS_SPLIT_MASK is not a hexadecimal mask: '%.40s'", mask);
			return -EINVAL;
		}
		op = 0, v = (long long)m;
	} else if (split) {
		const char *s = split;
		while (isspace((unsigned char)*s))
			s++;
		for (int k = 0; k < 4 && op < 0; k++) {
			size_t wl = strlen(ops[k].word);
			if (strncasecmp(s, ops[k].word, wl) == 0 && split_number(s + wl, &v) == 0)
				op = k;
			else if (*s == ops[k].sym[0] && split_number(s + 1, &v) == 0)
				op = k;
		}
		if (op < 0 || v > INT32_MAX) {
			snprintf(err, errsz, "NCCL_TESTS_SPLIT is not AND|OR|MOD|DIV N (or &N, |N, %%N, /N): '%.40s'", split);
			return -EINVAL;
		}
		if ((op == 2 || op == 3) && v == 0) {
			snprintf(err, errsz, "NCCL_TESTS_SPLIT '%.40s' divides by 0", split);
			return -EINVAL;
		}
	}
	int groups = 0;
	for (int i = 0; i < n; i++) {
		switch (op) {
		case 0: colors[i] = (int)(i & v); break;
		case 1: colors[i] = (int)(i | v); break;
		case 2: colors[i] = (int)(i % v); break;
		case 3: colors[i] = (int)(i / v); break;
		default: colors[i] = 0; break;
		}
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = colors[j] == colors[i];
		groups += !seen;
	}
	return groups;
}

void bench_split_place(const int *colors, int n, int i, int *grank, int *gsize)
{
	*grank = *gsize = 0;
	for (int j = 0; j < n; j++) {
		if (colors[j] != colors[i])
			continue;
		*grank += j < i;
		(*gsize)++;
	}
}

void bench_a2av_parse_init(struct bench_a2av_parse *p, double scale)
{
	memset(p, 0, sizeof(*p));
	p->scale = scale;
}

int bench_a2av_parse_line(struct bench_a2av_parse *p, const char *line, size_t len, uint64_t lineno)
{
	const char *s = line, *e = line + len;
	size_t col = 0;
	while (s < e) {
		if (isspace((unsigned char)*s)) {
			s++;
			continue;
		}
		char *end;
		errno = 0;
		double v = strtod(s, &end);
		/* the value ends at a blank or the line's end: "12abc", "1,2" and a NUL are not values */
		if (end == s || errno == ERANGE || end > e || (end < e && !isspace((unsigned char)*end)) || !isfinite(v) ||
		    v < 0) {
			const char *t = s;
			while (t < e && *t && !isspace((unsigned char)*t))
				t++;
			snprintf(p->err, sizeof(p->err), "line %llu, value %zu: '%.*s' is not a non-negative number of bytes",
				 (unsigned long long)lineno, col + 1, (int)(t - s < 24 ? t - s : 24), s);
			return -EINVAL;
		}
		long double scaled = (long double)v * p->scale;
		if (scaled >= (long double)SIZE_MAX) {
			snprintf(p->err, sizeof(p->err), "line %llu, value %zu: %g bytes times the scale %g overflows",
				 (unsigned long long)lineno, col + 1, v, p->scale);
			return -EINVAL;
		}
		if (p->rows < BENCH_A2AV_KEEP && col < BENCH_A2AV_KEEP)
			p->m[p->rows][col] = (size_t)scaled & ~(size_t)15; /* 16-byte chunks, as nccl-tests */
		col++;
		s = end;
	}
	if (col == 0)
		return 0; /* a blank line */
	if (p->rows > 0 && col != p->cols) {
		snprintf(p->err, sizeof(p->err), "line %llu has %zu values, the first row %zu", (unsigned long long)lineno,
			 col, p->cols);
		return -EINVAL;
	}
	p->cols = col;
	p->rows++;
	return 0;
}

int bench_a2av_parse_end(struct bench_a2av_parse *p)
{
	if (p->rows == 0) {
		snprintf(p->err, sizeof(p->err), "no values (the matrix is empty)");
		return -EINVAL;
	}
	if (p->rows != p->cols || p->rows > INT32_MAX) {
		snprintf(p->err, sizeof(p->err), "the matrix must be square, not %zu rows of %zu", p->rows, p->cols);
		return -EINVAL;
	}
	return (int)p->rows;
}
