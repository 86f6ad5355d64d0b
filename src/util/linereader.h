/* Bounded line reading from a file descriptor: memory stays at the chosen
 * maximum line length whatever the input (a 10 GB log, a 10 MB line, no final
 * newline). A longer line is cut at the maximum, the rest of it is skipped,
 * and the line is flagged; a trailing CR is removed. NUL bytes are kept: the
 * caller gets a length. */
#ifndef ND_UTIL_LINEREADER_H
#define ND_UTIL_LINEREADER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct linereader {
	int fd;
	/* where bytes come from: read(fd) unless set (linereader_set_source) */
	long (*source)(void *ctx, void *buf, size_t n); /* bytes, 0 at end, -errno */
	void *source_ctx;
	char *buf;        /* holds up to max + chunk bytes */
	char *hold;       /* the kept part of an over-long line */
	size_t max;       /* longest line kept */
	size_t start;     /* first unread byte in buf */
	size_t end;       /* one past the last valid byte */
	size_t alloc;
	bool eof;
	int err;          /* errno of a failed read(), 0 otherwise */
	/* about the line returned last */
	bool truncated;   /* it was longer than max */
	bool no_newline;  /* it ended at end of file without '\n' */
	bool may_ctrl;    /* it may hold a NUL or an ESC byte; false: it holds none */
	/* running totals */
	uint64_t lineno;
	uint64_t bytes;
	uint64_t truncated_lines;
};

/* max: the longest line returned whole (e.g. 64 KiB). */
void linereader_init(struct linereader *lr, int fd, size_t max);
void linereader_release(struct linereader *lr);
/* Reads through fn instead of read(fd) (util/input.h uses it for deadlines
 * and binary detection); fn returns bytes, 0 at the end or a negative errno. */
void linereader_set_source(struct linereader *lr, long (*fn)(void *ctx, void *buf, size_t n), void *ctx);
/* Next line without its newline, NUL-terminated at *len. Returns 1 when a
 * line was read, 0 at end of input, a negative errno on a read error. The
 * pointer is valid until the next call. */
int linereader_next(struct linereader *lr, char **line, size_t *len);

#endif
