/* Capped growable strings: see strbuf.h. */
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void strbuf_init(struct strbuf *sb, size_t max)
{
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	sb->max = max;
}

void strbuf_release(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\0';
}

char *strbuf_detach(struct strbuf *sb)
{
	char *p = sb->buf ? sb->buf : xstrdup("");
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
	return p;
}

static int grow(struct strbuf *sb, size_t extra)
{
	if (sb->max && sb->len + extra > sb->max)
		return -ENOSPC;
	size_t need = sb->len + extra + 1;
	if (need > sb->alloc) {
		size_t n = sb->alloc ? sb->alloc : 64;
		while (n < need)
			n *= 2;
		sb->buf = xrealloc(sb->buf, n);
		sb->alloc = n;
	}
	return 0;
}

int strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	int r = grow(sb, len);
	if (r < 0)
		return r;
	if (len)
		memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
	return 0;
}

int strbuf_adds(struct strbuf *sb, const char *s)
{
	return strbuf_add(sb, s, strlen(s));
}

int strbuf_addch(struct strbuf *sb, char c)
{
	return strbuf_add(sb, &c, 1);
}

int strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	int r = grow(sb, (size_t)n);
	if (r < 0)
		return r;
	va_start(ap, fmt);
	vsnprintf(sb->buf + sb->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb->len += (size_t)n;
	return 0;
}

const char *strbuf_str(const struct strbuf *sb)
{
	return sb->buf ? sb->buf : "";
}
