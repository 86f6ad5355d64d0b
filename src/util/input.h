/* One input layer for the commands that read logs (logs, kernel, the coming
 * watch): it expands arguments (files, directories, globs, '-') into a list
 * of inputs, opens each so that nothing can block or run away, and reads it
 * with a deadline and one binary detector.
 *
 * Opening (input_open):
 *   - a regular file: refused when sparse (1 MiB or more, and less than an
 *     eighth of it data by SEEK_DATA/SEEK_HOLE: `truncate -s 2G` files), then
 *     its first 64 KiB are checked before any line is handed on;
 *   - a FIFO, a pipe, a socket or a terminal on stdin: a stream, opened
 *     O_NONBLOCK (a FIFO without a writer does not block the open) and read
 *     only after poll(2) says there is data; no byte for `timeout` seconds
 *     ends it with "no data from 'X' in N s" (-ETIMEDOUT);
 *   - character devices are refused before they are opened (opening some has
 *     effects), except /dev/null (an empty input) and, where the caller asks
 *     (INPUT_ALLOW_KMSG), the kernel's /dev/kmsg (kind INPUT_KMSG: the caller
 *     reads its records); block devices and sockets on a path are refused;
 *   - a directory is -EISDIR (input_list expands it where the caller wants);
 *   - a compressed regular file (gzip, zstd, xz, bzip2) is read through the
 *     tool's own decompressor (`gzip -dc` ...) as a stream, under the same
 *     deadline and binary check; the tool missing or failing is an error.
 *     Compressed data on a stream gets the command to decompress it.
 *
 * Binary detection, the same rule for every input and every command, over
 * the first 64 KiB read (checked at 4 KiB, at 64 KiB and at the end):
 *   - gzip, zstd, xz or bzip2 magic in the first bytes of a stream (or of
 *     what a decompressor gives): -EPROTONOSUPPORT, with the command to
 *     decompress it;
 *   - otherwise binary (-EBADMSG) when more than 10 % of the bytes are NUL or
 *     more than 15 % are NUL, control characters (other than \t \n \r \f \v
 *     ESC) or bytes outside valid UTF-8. A run of NULs that reaches the end
 *     of what was read does not count (a log of a crashed node often ends in
 *     NUL blocks), unless nothing but NULs was read (/dev/zero). A stream
 *     that sends 64 MiB of NULs in a row later on (`cat log /dev/zero`) is
 *     binary too: it would never end.
 *
 * Functions return 0 (or a count) and a negative errno; they print nothing.
 * input_error_text gives the one-line reason for an error. */
#ifndef ND_UTIL_INPUT_H
#define ND_UTIL_INPUT_H
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util/linereader.h"
#include "util/options.h"

#define INPUT_TIMEOUT_DEFAULT 5.0  /* seconds without a byte on a stream */
#define INPUT_TIMEOUT_MAX 86400.0
#define INPUT_SNIFF (64 * 1024)    /* bytes the binary detector looks at */
#define INPUT_SPARSE_MIN (1u << 20)
#define INPUT_STREAM_NUL_MAX (64u << 20) /* NULs in a row that end a stream */

/* input_open flags */
#define INPUT_ALLOW_KMSG 1u   /* the character device /dev/kmsg is an input */
#define INPUT_BINARY 2u       /* binary data is the input (a tar archive): no binary
                               * verdict, no NUL-run limit; a compressed file is
                               * still read through its decompressor */

enum input_kind {
	INPUT_REGULAR,
	INPUT_STREAM,   /* FIFO, pipe, socket, terminal */
	INPUT_EMPTY,    /* /dev/null */
	INPUT_KMSG,     /* the kernel's /dev/kmsg: read its records yourself */
};

struct input {
	int fd;
	bool own_fd;
	enum input_kind kind;
	char name[PATH_MAX];    /* as given; "stdin" for '-' */
	const char *cmd;        /* command name for hints ("logs", "kernel") */
	double timeout;         /* seconds without a byte on a stream; 0: none */
	uint64_t bytes;         /* bytes handed on */
	/* the binary detector */
	uint64_t sniffed, nul, nul_run, odd;
	uint64_t stream_nul_run;  /* NULs in a row on a stream, after the window too */
	unsigned utf8_need;
	unsigned char head[8];
	size_t nhead;
	bool verdict_head, verdict_done;
	bool binary_ok;         /* INPUT_BINARY */
	const char *zname;      /* "gzip", "zstd", "xz", "bzip2" when compressed */
	int zpid;               /* the decompressor reading a compressed file, 0 none */
	int err;                /* sticky error of input_read */
	char why[PATH_MAX + 160]; /* the reason for the last error */
};

/* Opens path ('-' is stdin) as described above. cmd names the command in
 * hints; timeout as struct input. 0 or a negative errno (see
 * input_error_text); on error nothing stays open. */
int input_open(struct input *in, const char *path, const char *cmd, double timeout, unsigned flags);
/* Wraps an fd opened elsewhere (a recorded /dev/kmsg) the same way; the fd
 * is closed by input_close when own_fd. */
int input_from_fd(struct input *in, int fd, const char *name, const char *cmd, double timeout, bool own_fd);
/* Reads up to n bytes: bytes, 0 at the end, or a negative errno (-ETIMEDOUT,
 * -EBADMSG, -EPROTONOSUPPORT, a read error); errors are sticky. */
long input_read(struct input *in, void *buf, size_t n);
/* Parses an --input-timeout value: finite seconds from 0 (no limit) to
 * INPUT_TIMEOUT_MAX. 0 or -EINVAL. */
int input_parse_timeout(const char *s, double *out);
/* --input-timeout SEC of every command that reads inputs (logs, kernel),
 * declared once: an opt_spec row (util/options.h) into a double. */
int input_timeout_opt(void *target, const char *value, char *why, size_t whysz);
#define INPUT_TIMEOUT_OPTION(t)                                                                                        \
	OPT_CALL("input-timeout", 0, (t), input_timeout_opt, "a number of seconds from 0 (no limit) to 86400",         \
		 "the longest wait for an input that gives nothing")
/* A line reader over the input (bounded lines, util/linereader.h). */
void input_linereader(struct input *in, struct linereader *lr, size_t max_line);
/* What a reader hands on: one line (or /dev/kmsg record) of len bytes,
 * modifiable and NUL-terminated, its number from 1, and whether it was cut
 * at the reader's maximum. */
typedef void (*input_line_fn)(void *ctx, char *line, size_t len, uint64_t no, bool truncated);
/* Reads the input to its end as lines of at most max_line bytes, each
 * handed to fn. 0, or a negative errno as input_read's. */
int input_read_lines(struct input *in, size_t max_line, input_line_fn fn, void *ctx);
/* Reads a live /dev/kmsg (opened O_RDONLY|O_NONBLOCK) record by record
 * until EAGAIN, handing fn each record's first line (its dictionary lines
 * are dropped) numbered from 1; records overwritten under the reader
 * (EPIPE) are counted in *overruns and the reading goes on. 0, or a
 * negative errno (-EACCES/-EPERM when reading is refused). */
int input_read_kmsg(int fd, input_line_fn fn, void *ctx, uint64_t *overruns);
/* pread(2) of the fd *fdp (an int), EINTR retried: bytes, 0 at the end,
 * or a negative errno. */
long input_pread(void *fdp, void *buf, size_t n, uint64_t at);
/* The reason for err, one line, lower case ("no data from 'x' in 5 s"). */
const char *input_error_text(const struct input *in, int err);
void input_close(struct input *in);

/* Pure: the detector's verdict over a whole buffer, as if it were an input
 * of exactly these bytes: 0, -EBADMSG or -EPROTONOSUPPORT. */
int input_classify(const void *buf, size_t n);

/* Arguments to inputs. */
struct input_list {
	char **paths;
	bool *from_dir;         /* found by a directory walk (callers may skip binary ones quietly) */
	size_t n, alloc, afrom;
	struct input_file_id { dev_t dev; ino_t ino; } *ids; /* the files listed, each once */
	size_t nids, aids;
	char **errors;          /* one-line messages for arguments that gave nothing */
	size_t nerr, aerr;
	size_t max;             /* most inputs kept */
	int max_depth;          /* directory levels read; 0: a directory is an input (input_open says -EISDIR) */
};

void input_list_init(struct input_list *l, size_t max, int max_depth);
/* Adds one argument: '-', a file, a directory (walked to max_depth, regular
 * files only, names starting with '.' skipped, sorted; a symbolic link to a
 * directory is not followed, so a link loop is read once) or a glob. A file
 * already listed (the same device and inode: a link to it, a hard link,
 * the same file named twice) is not listed again. */
void input_list_add(struct input_list *l, const char *arg);
void input_list_release(struct input_list *l);

#endif
