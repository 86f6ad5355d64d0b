/* Bounded line reading from a file descriptor: memory stays at the chosen
 * maximum line length whatever the input (a 10 GB log, a 10 MB line, no final
 * newline). A longer line is cut at the maximum, the rest of it is skipped,
 * and the line is flagged; a trailing CR is removed. NUL bytes are kept: the
 * caller gets a length.
 *
 * A regular file can be read without the copy of read() (linereader_map):
 * through a read-only mapping of one window at a time (1 MiB: the
 * window before is unmapped, so memory stays flat), lines handed out as
 * spans of it (linereader_next_span). A line that crosses the end of a
 * window is read from a window that starts at its page. A file truncated
 * while mapped does not kill the reader with SIGBUS: the pages past its
 * new end read as zeros, which the reader drops (it reads what is there);
 * a file that grows is read on while the reader has not reached its end. */
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
	bool span;        /* it is a span of the mapping: read-only, not NUL-terminated */
	/* mmap mode (linereader_map) */
	bool mapped;
	const char *map;  /* the window, NULL when none is mapped */
	size_t maplen;    /* bytes mapped */
	size_t mapvalid;  /* bytes of the window inside the file */
	size_t cur;       /* first unread byte of the window */
	size_t window;    /* bytes a window maps */
	uint64_t mapoff;  /* file offset of map[0] */
	uint64_t fsize;   /* file size as last seen */
	uint64_t offset0; /* file offset the reading started at */
	/* running totals */
	uint64_t lineno;
	uint64_t bytes;
	uint64_t truncated_lines;
};

/* max: the longest line returned whole (e.g. 64 KiB). */
void linereader_init(struct linereader *lr, int fd, size_t max);
void linereader_release(struct linereader *lr);
/* Forgets the bytes read and the totals (lineno, bytes, truncated_lines)
 * but keeps the buffers and the source: the reader starts again on the
 * next byte its source gives (read() mode only; logs/read/threads.c reads one
 * block of a file after another with it). */
void linereader_restart(struct linereader *lr);
/* Reads through fn instead of read(fd) (util/input.h uses it for deadlines
 * and binary detection); fn returns bytes, 0 at the end or a negative errno. */
void linereader_set_source(struct linereader *lr, long (*fn)(void *ctx, void *buf, size_t n), void *ctx);
/* Next line without its newline, NUL-terminated at *len. Returns 1 when a
 * line was read, 0 at end of input, a negative errno on a read error. The
 * pointer is valid until the next call. */
int linereader_next(struct linereader *lr, char **line, size_t *len);
/* Reads the regular file fd (the reader's own) from file offset off through
 * mappings of window bytes (0: the default, 1 MiB; at least the maximum
 * line plus a page, in pages) instead of read(). 0, or a negative errno
 * when it cannot (not a regular file, size 0 as /proc files say, a mapping
 * refused, another reader mapping already): the reader then stays on
 * read(). Call before the first line. */
int linereader_map(struct linereader *lr, uint64_t off, size_t window);
/* linereader_next without the copy in mmap mode: when lr->span is set the
 * line is a read-only span of the mapping whose byte line[len] is its
 * '\n' or '\r' (readable, not a NUL); otherwise (read() mode, and the few
 * lines that are copied in mmap mode: lines with a NUL or an ESC
 * (lr->may_ctrl), cut lines, a last line without a newline) it is
 * writable and NUL-terminated as with linereader_next. */
int linereader_next_span(struct linereader *lr, const char **line, size_t *len);

#endif
