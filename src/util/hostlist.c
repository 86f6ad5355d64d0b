/* Slurm hostlist expansion (util/hostlist.h). */
#include "util/hostlist.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest name (HOST_NAME_MAX is 64; Slurm node names are shorter). */
#define NAME_MAX_LEN 255

int hostlist_has(const struct hostlist *hl, const char *name)
{
	for (size_t i = 0; i < hl->n; i++)
		if (strcmp(hl->names[i], name) == 0)
			return 1;
	return 0;
}

void hostlist_release(struct hostlist *hl)
{
	for (size_t i = 0; i < hl->n; i++)
		free(hl->names[i]);
	free(hl->names);
	hl->names = NULL;
	hl->n = hl->a = 0;
}

/* "'ITEM': what" into err; returns code */
static int fail(char *err, size_t errsz, int code, const char *what, const char *item)
{
	snprintf(err, errsz, "'%s': %s", item, what);
	return code;
}

static int add_name(struct hostlist *hl, const char *name)
{
	if (hl->n >= HOSTLIST_MAX)
		return -E2BIG;
	XGROW(hl->names, hl->a, hl->n + 1);
	hl->names[hl->n++] = xstrdup(name);
	return 0;
}

/* Reads one unsigned number of at most 9 digits at *p; its digit count in
 * *width. -1 when there is none. */
static long read_num(const char **p, int *width)
{
	const char *s = *p;
	long v = 0;
	int w = 0;
	while (*s >= '0' && *s <= '9' && w < 9)
		v = v * 10 + (*s++ - '0'), w++;
	if (w == 0 || (*s >= '0' && *s <= '9'))
		return -1;
	*p = s, *width = w;
	return v;
}

/* Expands item (one name, its brackets still in it) from position at, with
 * what is expanded so far in pre (len bytes), into hl. */
static int expand_item(const char *item, const char *at, char *pre, size_t len, struct hostlist *hl, char *err,
		       size_t errsz)
{
	const char *open = strchr(at, '[');
	if (!open) {
		size_t rest = strlen(at);
		if (len + rest > NAME_MAX_LEN)
			return fail(err, errsz, -EINVAL, "a name longer than 255 characters", item);
		memcpy(pre + len, at, rest + 1);
		if (!pre[0])
			return fail(err, errsz, -EINVAL, "an empty name", item);
		int r = add_name(hl, pre);
		return r == -E2BIG ? fail(err, errsz, r, "more than 65536 names", item) : r;
	}
	size_t lit = (size_t)(open - at);
	if (len + lit > NAME_MAX_LEN)
		return fail(err, errsz, -EINVAL, "a name longer than 255 characters", item);
	memcpy(pre + len, at, lit);
	len += lit;
	const char *close = strchr(open, ']');
	if (!close)
		return fail(err, errsz, -EINVAL, "a '[' without its ']'", item);
	const char *p = open + 1;
	if (p == close)
		return fail(err, errsz, -EINVAL, "an empty '[]'", item);
	while (p < close) {
		int wlo, whi;
		long lo = read_num(&p, &wlo), hi = lo;
		if (lo < 0)
			return fail(err, errsz, -EINVAL, "a range is not a number or N-M", item);
		if (*p == '-') {
			p++;
			hi = read_num(&p, &whi);
			if (hi < 0)
				return fail(err, errsz, -EINVAL, "a range is not a number or N-M", item);
			if (hi < lo)
				return fail(err, errsz, -EINVAL, "a range that runs backwards", item);
		}
		if (p != close && *p != ',')
			return fail(err, errsz, -EINVAL, "a range is not a number or N-M", item);
		if (*p == ',' && p + 1 == close)
			return fail(err, errsz, -EINVAL, "a ',' before ']'", item);
		if (*p == ',')
			p++;
		if (hi - lo >= HOSTLIST_MAX)
			return fail(err, errsz, -E2BIG, "more than 65536 names", item);
		/* the first number's digits set the width: "[08-11]" pads, "[8-11]" not */
		int width = wlo;
		for (long v = lo; v <= hi; v++) {
			char num[16];
			int n = snprintf(num, sizeof(num), "%0*ld", width, v);
			if (len + (size_t)n > NAME_MAX_LEN)
				return fail(err, errsz, -EINVAL, "a name longer than 255 characters", item);
			memcpy(pre + len, num, (size_t)n + 1);
			int r = expand_item(item, close + 1, pre, len + (size_t)n, hl, err, errsz);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static const struct hostlist *sorting; /* for by_name: qsort has no context argument */

static int by_name(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(sorting->names[x], sorting->names[y]);
	return c ? c : (x > y) - (x < y);
}

/* Drops the second and later copies of a name, keeping the order written:
 * sorted once (n log n), not compared pairwise ("a[0-255]b[0-255]" is 65536
 * names). */
static void drop_repeats(struct hostlist *hl)
{
	if (hl->n < 2)
		return;
	size_t *idx = xmalloc(hl->n * sizeof(*idx));
	bool *dup = xcalloc(hl->n, sizeof(*dup));
	for (size_t i = 0; i < hl->n; i++)
		idx[i] = i;
	sorting = hl;
	qsort(idx, hl->n, sizeof(*idx), by_name);
	sorting = NULL;
	for (size_t i = 1; i < hl->n; i++)
		if (strcmp(hl->names[idx[i]], hl->names[idx[i - 1]]) == 0)
			dup[idx[i]] = true;
	size_t k = 0;
	for (size_t i = 0; i < hl->n; i++) {
		if (dup[i])
			free(hl->names[i]);
		else
			hl->names[k++] = hl->names[i];
	}
	hl->n = k;
	free(idx);
	free(dup);
}

int hostlist_expand(const char *text, struct hostlist *hl, char *err, size_t errsz)
{
	if (!text || !*text) {
		snprintf(err, errsz, "an empty host list");
		return -EINVAL;
	}
	const char *s = text;
	while (*s) {
		/* one item: up to a ',' outside brackets */
		const char *e = s;
		int depth = 0;
		for (; *e && (*e != ',' || depth); e++) {
			if (*e == '[' && ++depth > 1)
				break;
			if (*e == ']' && --depth < 0)
				break;
		}
		size_t n = (size_t)(e - s);
		char *item = xmalloc(n + 1);
		memcpy(item, s, n);
		item[n] = 0;
		int r;
		if (depth > 1)
			r = fail(err, errsz, -EINVAL, "brackets inside brackets", item);
		else if (depth < 0)
			r = fail(err, errsz, -EINVAL, "a ']' without its '['", item);
		else if (strpbrk(item, " \t\n\r\"'"))
			r = fail(err, errsz, -EINVAL, "a space or quote in a host name", item);
		else {
			char pre[NAME_MAX_LEN + 16];
			pre[0] = 0;
			r = expand_item(item, item, pre, 0, hl, err, errsz);
		}
		free(item);
		if (r < 0) {
			hostlist_release(hl);
			return r;
		}
		if (!*e)
			break;
		s = e + 1;
		if (!*s) {
			hostlist_release(hl);
			snprintf(err, errsz, "a host list that ends with ','");
			return -EINVAL;
		}
	}
	drop_repeats(hl);
	return 0;
}
