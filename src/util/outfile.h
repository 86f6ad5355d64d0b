/* Writing a file the user named, safely, also as root in a directory other
 * users can write (`watch --json=FILE`, `fix --write-env FILE`, `snapshot
 * -o FILE`).
 *
 * The target's directory is opened once; every later step is relative to
 * that descriptor, so a directory swapped under the path meanwhile is not
 * followed. The target itself is never opened: the data goes to a private
 * temporary beside it (".NAME.XXXXXX", created with O_CREAT|O_EXCL|
 * O_NOFOLLOW, mode 0600 while it is written), which is renamed onto the
 * target only when every byte was written and flushed to disk. So:
 *   - a symbolic link, FIFO, device or directory planted at the target's
 *     name is refused, never written through or opened (no hang on a FIFO);
 *   - a target owned by another user is refused (not replaced);
 *   - when a write fails (ENOSPC, EIO) the previous file is intact and the
 *     temporary is removed;
 *   - the file gets its final mode (0644, or 0600 for private data) only
 *     after it is complete.
 *
 * Functions return 0 or a negative errno and write one line saying what
 * failed into the caller's err buffer (git style: "cannot write 'x':
 * ..."); they print nothing. */
#ifndef ND_UTIL_OUTFILE_H
#define ND_UTIL_OUTFILE_H
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct outfile {
	int dirfd;          /* the target's directory, -1 when closed */
	int fd;             /* the temporary, open for writing; -1 when closed */
	char *path;         /* the target as the user named it (heap) */
	char *base;         /* its last component (heap) */
	char tmp[300];      /* the temporary's name in dirfd */
	mode_t mode;        /* the target's final mode */
	bool failed;        /* a write failed: commit refuses */
	int err;            /* that write's -errno */
};

/* Checks that path can be written by outfile_open later: its directory
 * exists and can be opened, and the target is absent or a regular file
 * owned by the effective user. Nothing is created. 0 or -errno. */
int outfile_check(const char *path, char *err, size_t errsz);

/* Opens the directory, checks the target as outfile_check does and creates
 * the temporary. mode: the final mode (0644 or 0600), applied on commit.
 * On failure nothing is left behind. */
int outfile_open(struct outfile *of, const char *path, mode_t mode, char *err, size_t errsz);

/* outfile_open with flags: OUTFILE_TMP_PID names the temporary "NAME.tmp.PID"
 * (node_exporter's textfile convention: its collector reads only *.prom, so
 * a half-written file is never seen, and a temporary left by a killed run
 * names the process), with a random suffix after it when that name exists. */
enum { OUTFILE_TMP_PID = 1 };
int outfile_open_flags(struct outfile *of, const char *path, mode_t mode, unsigned flags, char *err, size_t errsz);

/* Writes all of data to the temporary (short writes and EINTR retried).
 * A failure is remembered: outfile_commit then refuses. */
int outfile_write(struct outfile *of, const void *data, size_t len);

/* Flushes the temporary to disk, gives it its mode and renames it onto the
 * target (after checking the target once more). On any failure the
 * temporary is removed and the target left as it was. Closes everything. */
int outfile_commit(struct outfile *of, char *err, size_t errsz);

/* Removes the temporary and closes; the target is untouched. Safe to call
 * after commit or on a closed outfile. */
void outfile_abort(struct outfile *of);

/* The whole file in one call: open, write, commit. */
int outfile_write_all(const char *path, mode_t mode, const void *data, size_t len, char *err, size_t errsz);
/* The same with outfile_open_flags' flags. */
int outfile_write_all_flags(const char *path, mode_t mode, unsigned flags, const void *data, size_t len, char *err,
			    size_t errsz);

#endif
