/* Bounded line reader: see linereader.h. */
#include "util/linereader.h"
#include "util/bytescan.h"
#include "util/xalloc.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK 65536
#define WINDOW_DEFAULT (1u << 20)

static int map_next(struct linereader *lr, const char **line, size_t *len);
static void map_release(struct linereader *lr);

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
	if (lr->mapped)
		map_release(lr);
	free(lr->buf);
	free(lr->hold);
	lr->buf = lr->hold = NULL;
}

void linereader_restart(struct linereader *lr)
{
	lr->start = lr->end = 0;
	lr->eof = false;
	lr->err = 0;
	lr->truncated = lr->no_newline = lr->may_ctrl = lr->span = false;
	lr->lineno = lr->bytes = lr->truncated_lines = 0;
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
	if (lr->mapped) {
		const char *s;
		int r = map_next(lr, &s, len);
		if (r <= 0)
			return r;
		if (lr->span) { /* the caller wants a NUL-terminated line: a copy */
			memcpy(lr->hold, s, *len);
			lr->hold[*len] = '\0';
			s = lr->hold;
			lr->span = false;
		}
		*line = (char *)s;
		return 1;
	}
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

int linereader_next_span(struct linereader *lr, const char **line, size_t *len)
{
	if (lr->mapped)
		return map_next(lr, line, len);
	char *s;
	int r = linereader_next(lr, &s, len);
	*line = s;
	return r;
}

/* ---- mmap mode ------------------------------------------------------ */

/* The window being read, for the SIGBUS handler: pages of it past the end
 * of a file truncated meanwhile are replaced by zero pages (the reader
 * then drops them: map_clip). One mapping reader at a time. */
static const char *volatile bus_base;
static volatile size_t bus_len;
static volatile sig_atomic_t bus_hit;
static struct sigaction bus_old;
static bool bus_installed;

static size_t page_size(void)
{
	static size_t pg;
	if (!pg) {
		long v = sysconf(_SC_PAGESIZE);
		pg = v > 0 ? (size_t)v : 4096;
	}
	return pg;
}

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	const char *a = si->si_addr, *b = bus_base;
	if (b && a >= b && a < b + bus_len) {
		uintptr_t pg = (uintptr_t)a & ~(uintptr_t)(page_size() - 1);
		size_t rest = (size_t)(b + bus_len - (const char *)pg);
		if (mmap((void *)pg, rest, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
			bus_hit = 1;
			return;
		}
	}
	/* not ours: the action there was before, the fault comes back */
	sigaction(sig, &bus_old, NULL);
}

static void map_drop(struct linereader *lr)
{
	if (lr->map) {
		bus_base = NULL;
		bus_len = 0;
		munmap((void *)lr->map, lr->maplen);
	}
	lr->map = NULL;
	lr->maplen = lr->mapvalid = lr->cur = 0;
}

static void map_release(struct linereader *lr)
{
	map_drop(lr);
	lr->mapped = false;
	if (bus_installed) {
		sigaction(SIGBUS, &bus_old, NULL);
		bus_installed = false;
	}
}

/* Maps the window that holds file offset off. 0 or a negative errno. */
static int map_at(struct linereader *lr, uint64_t off)
{
	struct stat st;
	if (fstat(lr->fd, &st) < 0)
		return -errno;
	lr->fsize = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	uint64_t base = off & ~(uint64_t)(page_size() - 1);
	map_drop(lr);
	lr->mapoff = base;
	lr->cur = (size_t)(off - base);
	bus_hit = 0;
	if (base >= lr->fsize) {
		lr->cur = 0;
		lr->mapoff = off;
		return 0;
	}
	size_t len = lr->fsize - base < lr->window ? (size_t)(lr->fsize - base) : lr->window;
	void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, lr->fd, (off_t)base);
	if (p == MAP_FAILED)
		return -errno;
	madvise(p, len, MADV_SEQUENTIAL);
	lr->map = p;
	lr->maplen = lr->mapvalid = len;
	bus_len = len;
	bus_base = p;
	if (lr->cur > lr->mapvalid)
		lr->cur = lr->mapvalid;
	return 0;
}

int linereader_map(struct linereader *lr, uint64_t off, size_t window)
{
	struct stat st;
	if (lr->mapped || lr->lineno || lr->end)
		return -EINVAL;
	if (bus_installed)
		return -EBUSY;
	if (fstat(lr->fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -ENODEV;
	if (st.st_size == 0)
		return -ENODATA; /* empty, or a /proc file whose size says nothing: read() */
	size_t pg = page_size();
	size_t need = (lr->max + 1 + pg - 1) / pg * pg + pg;
	lr->window = window ? (window + pg - 1) / pg * pg : WINDOW_DEFAULT;
	if (lr->window < need)
		lr->window = need;
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &bus_old) < 0)
		return -errno;
	bus_installed = true;
	lr->offset0 = off;
	int r = map_at(lr, off);
	if (r < 0) {
		map_release(lr);
		return r;
	}
	lr->mapped = true;
	return 0;
}

/* After a SIGBUS in the window (the file was truncated): the file's new
 * size ends the window; what lies past it is not read. */
static void map_clip(struct linereader *lr)
{
	bus_hit = 0;
	struct stat st;
	uint64_t size = fstat(lr->fd, &st) == 0 && st.st_size > 0 ? (uint64_t)st.st_size : 0;
	if (size < lr->fsize)
		lr->fsize = size;
	size_t valid = lr->fsize > lr->mapoff ? (size_t)(lr->fsize - lr->mapoff) : 0;
	if (valid < lr->mapvalid)
		lr->mapvalid = valid;
	if (lr->cur > lr->mapvalid)
		lr->cur = lr->mapvalid;
}

/* Whether the window reaches the end of the file; at its end the size is
 * asked again (a file that grows is read on). */
static bool map_at_end(struct linereader *lr)
{
	if (lr->mapoff + lr->mapvalid < lr->fsize)
		return false;
	struct stat st;
	if (!bus_hit && fstat(lr->fd, &st) == 0 && (uint64_t)st.st_size > lr->fsize)
		return false; /* it grew: a new window has the rest */
	return true;
}

/* Skips the rest of a cut line, up to and including its newline. */
static int map_skip(struct linereader *lr)
{
	for (;;) {
		const char *s = lr->map ? lr->map + lr->cur : NULL;
		const char *nl = s ? memchr(s, '\n', lr->mapvalid - lr->cur) : NULL;
		if (bus_hit) {
			map_clip(lr);
			continue;
		}
		if (nl) {
			lr->cur = (size_t)(nl - lr->map) + 1;
			return 0;
		}
		lr->cur = lr->mapvalid;
		if (map_at_end(lr))
			return 0;
		int r = map_at(lr, lr->mapoff + lr->mapvalid);
		if (r < 0)
			return r;
	}
}

/* map_next for the lines its fast path leaves: one that crosses the end
 * of the window, a cut line, a line with a NUL or an ESC byte, the end of
 * the file, a file truncated meanwhile (the line is searched again). */
static int map_next_slow(struct linereader *lr, const char **line, size_t *len)
{
	lr->truncated = false;
	lr->no_newline = false;
	lr->may_ctrl = false;
	lr->span = true;
	size_t scanned = 0;
	for (;;) {
		size_t avail = lr->mapvalid - lr->cur;
		const char *s = lr->map ? lr->map + lr->cur : NULL;
		const char *nl = NULL;
		if (avail > scanned)
			nl = bscan_find_newline((char *)s + scanned, (char *)s + avail, &lr->may_ctrl);
		if (bus_hit) { /* truncated under us: read again up to its new end */
			map_clip(lr);
			scanned = 0;
			lr->may_ctrl = false;
			continue;
		}
		size_t n;
		if (nl && (size_t)(nl - s) <= lr->max) {
			n = (size_t)(nl - s);
			lr->cur += n + 1;
		} else if (nl || avail > lr->max) {
			/* too long: keep max bytes, drop the rest of the line */
			n = lr->max;
			lr->truncated = true;
			lr->truncated_lines++;
			memcpy(lr->hold, s, n);
			lr->cur += n;
			s = lr->hold;
			lr->span = false;
			int r = map_skip(lr);
			if (r < 0)
				return r;
		} else if (map_at_end(lr)) {
			if (avail == 0) {
				lr->bytes = lr->mapoff + lr->cur - lr->offset0;
				return 0;
			}
			n = avail;
			memcpy(lr->hold, s, n);
			lr->cur += n;
			s = lr->hold;
			lr->span = false;
			lr->no_newline = true;
		} else {
			/* the window ends inside the line: a window from its page */
			int r = map_at(lr, lr->mapoff + lr->cur);
			if (r < 0) {
				lr->err = -r;
				return r;
			}
			scanned = avail;
			continue;
		}
		if (lr->may_ctrl && lr->span) { /* the caller cleans it in place */
			memcpy(lr->hold, s, n);
			s = lr->hold;
			lr->span = false;
		}
		if (n > 0 && s[n - 1] == '\r')
			n--;
		if (!lr->span)
			lr->hold[n] = '\0';
		*line = s;
		*len = n;
		lr->lineno++;
		lr->bytes = lr->mapoff + lr->cur - lr->offset0;
		return 1;
	}
}

/* Most lines: a plain span of the window (no NUL or ESC byte, not cut,
 * its newline inside the window), handed out with one newline search. */
static int map_next(struct linereader *lr, const char **line, size_t *len)
{
	if (!lr->map || lr->cur >= lr->mapvalid)
		return map_next_slow(lr, line, len);
	const char *s = lr->map + lr->cur;
	bool ctrl = false;
	const char *nl = bscan_find_newline((char *)s, (char *)lr->map + lr->mapvalid, &ctrl);
	size_t n = nl ? (size_t)(nl - s) : 0;
	if (!nl || ctrl || n > lr->max || bus_hit)
		return map_next_slow(lr, line, len);
	lr->cur += n + 1;
	lr->truncated = lr->no_newline = lr->may_ctrl = false;
	lr->span = true;
	if (n > 0 && s[n - 1] == '\r')
		n--;
	*line = s;
	*len = n;
	lr->lineno++;
	lr->bytes = lr->mapoff + lr->cur - lr->offset0;
	return 1;
}
