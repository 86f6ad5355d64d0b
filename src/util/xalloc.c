/* Allocation helpers: see xalloc.h. */
#include "util/xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void oom(void)
{
	static const char msg[] = "nccl-doctor: out of memory\n";
	ssize_t r = write(2, msg, sizeof(msg) - 1);
	(void)r;
	_exit(3);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom();
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return xstrdup("");
	char *p = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return p;
}

static void over_cap(void)
{
	static const char msg[] = "nccl-doctor: internal limit: an array would grow past 1 GiB\n";
	ssize_t r = write(2, msg, sizeof(msg) - 1);
	(void)r;
	_exit(3);
}

void xgrow(void **arr, size_t *alloc, size_t need, size_t elem)
{
	if (need <= *alloc)
		return;
	if (elem == 0 || need > XGROW_MAX_BYTES / elem)
		over_cap();
	size_t n = *alloc ? *alloc : 8;
	while (n < need)
		n *= 2;
	if (n > XGROW_MAX_BYTES / elem)
		n = XGROW_MAX_BYTES / elem; /* still >= need */
	*arr = xrealloc(*arr, n * elem);
	memset((char *)*arr + *alloc * elem, 0, (n - *alloc) * elem);
	*alloc = n;
}
