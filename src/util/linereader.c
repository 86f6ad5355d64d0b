/* Bounded line reader: see linereader.h. */
#include "util/linereader.h"
#include "util/bytescan.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK 65536

void linereader_init(struct linereader *lr, int fd, size_t max)
{
	memset(lr, 0, sizeof(*lr));
	lr->fd = fd;
	lr->max = max ? max : 65536;
	lr->alloc = lr->max + CHUNK + 1;
	lr->buf = xmalloc(lr->alloc);
	lr->hold = xmalloc(lr->max + 1);
}

void linereader_set_source(struct linereader *lr, long (*fn)(void *ctx, void *buf, size_t n), void *ctx)
{
	lr->source = fn;
	lr->source_ctx = ctx;
}

void linereader_release(struct linereader *lr)
{
	free(lr->buf);
	free(lr->hold);
	lr->buf = lr->hold = NULL;
}

/* Reads more into buf after compacting; returns bytes read, 0 on EOF, <0 err. */
static ssize_t fill(struct linereader *lr)
{
	if (lr->start > 0) {
		memmove(lr->buf, lr->buf + lr->start, lr->end - lr->start);
		lr->end -= lr->start;
		lr->start = 0;
	}
	size_t room = lr->alloc - 1 - lr->end;
	if (room == 0)
		return -ENOBUFS;
	for (;;) {
		if (lr->source) {
			long k = lr->source(lr->source_ctx, lr->buf + lr->end, room);
			if (k < 0) {
				lr->err = (int)-k;
				return k;
			}
			if (k == 0)
				lr->eof = true;
			lr->end += (size_t)k;
			lr->bytes += (uint64_t)k;
			return k;
		}
		ssize_t n = read(lr->fd, lr->buf + lr->end, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			lr->err = errno;
			return -errno;
		}
		if (n == 0)
			lr->eof = true;
		lr->end += (size_t)n;
		lr->bytes += (uint64_t)n;
		return n;
	}
}

/* Discards input up to and including the next newline. */
static int skip_rest(struct linereader *lr)
{
	for (;;) {
		char *nl = memchr(lr->buf + lr->start, '\n', lr->end - lr->start);
		if (nl) {
			lr->start = (size_t)(nl - lr->buf) + 1;
			return 0;
		}
		lr->start = lr->end = 0;
		if (lr->eof)
			return 0;
		ssize_t n = fill(lr);
		if (n < 0)
			return (int)n;
	}
}

int linereader_next(struct linereader *lr, char **line, size_t *len)
{
	lr->truncated = false;
	lr->no_newline = false;
	lr->may_ctrl = false;
	size_t scanned = 0;
	for (;;) {
		size_t avail = lr->end - lr->start;
		char *nl = bscan_find_newline(lr->buf + lr->start + scanned, lr->buf + lr->end, &lr->may_ctrl);
		if (nl || avail > lr->max || (lr->eof && avail > 0)) {
			char *s = lr->buf + lr->start;
			size_t n;
			if (nl && (size_t)(nl - s) <= lr->max) {
				n = (size_t)(nl - s);
				lr->start += n + 1;
			} else if (!nl && lr->eof && avail <= lr->max) {
				n = avail;
				lr->start = lr->end;
				lr->no_newline = true;
			} else {
				/* too long: keep max bytes, drop the rest of the line */
				n = lr->max;
				lr->truncated = true;
				lr->truncated_lines++;
				memcpy(lr->hold, s, n);
				lr->start += n;
				int r = skip_rest(lr);
				if (r < 0)
					return r;
				s = lr->hold;
			}
			if (n > 0 && s[n - 1] == '\r')
				n--;
			s[n] = '\0';
			*line = s;
			*len = n;
			lr->lineno++;
			return 1;
		}
		if (lr->eof)
			return 0;
		scanned = avail;
		ssize_t r = fill(lr);
		if (r < 0)
			return (int)r;
		/* fill() compacted: scanned stays relative to start */
	}
}
