/* A minimal tar writer (POSIX ustar, with GNU long-name records for paths
 * over 255 bytes), enough for `snapshot` to pack a sysroot: directories,
 * regular files from memory, symbolic links; and its reader (tar_read.c),
 * bounded, for `logs --snapshot`, which unpacks such an archive into a
 * private directory. */
#ifndef ND_UTIL_TAR_H
#define ND_UTIL_TAR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct tar_writer {
	FILE *out;
	time_t mtime;
	int err; /* first write error (negative errno), sticky */
	/* what was written: entries by type, and the file bytes */
	size_t files, dirs, links;
	unsigned long long file_bytes;
};

void tar_init(struct tar_writer *t, FILE *out, time_t mtime);
/* path is relative ("sys/bus/pci"); a leading '/' is dropped. */
int tar_add_dir(struct tar_writer *t, const char *path, unsigned mode);
int tar_add_file(struct tar_writer *t, const char *path, const void *data, size_t len, unsigned mode);
int tar_add_symlink(struct tar_writer *t, const char *path, const char *target);
/* Writes the end-of-archive blocks; returns 0 or the first error. */
int tar_finish(struct tar_writer *t);

/* The reader. An archive is untrusted input: it reads ustar and GNU
 * headers (the GNU long-name 'L' and long-link 'K' records too) and POSIX
 * pax extended headers (GNU tar --format=posix, bsdtar, Python's tarfile):
 * an 'x' header's path, linkpath and size apply to the next member, a 'g'
 * header's to every later one that has no 'x' value of its own (POSIX
 * pax), other keywords (times, owners, charset, comments) are read and
 * ignored. It refuses the archive, with a one-line reason, at the first
 * member that is not a regular file, directory or symbolic link (hard
 * links, device nodes, FIFOs, sparse files, pax GNU.sparse records
 * included), whose name (after pax) is absolute or has a ".." component,
 * whose checksum is wrong, at a pax header over TAR_PAX_MAX_BYTES or
 * TAR_PAX_MAX_RECORDS records or with a malformed record (a length that
 * does not match, no '=', a NUL in a name, a size that is not a number),
 * or at a member that passes one of the limits. It never seeks: the bytes
 * come from a read function (a decompressor's pipe). */
struct tar_limits {
	size_t members;           /* most members (directories and links count) */
	uint64_t member_bytes;    /* largest file */
	uint64_t total_bytes;     /* all files together */
};
#define TAR_LIMITS_DEFAULT { 200000, 64ull << 20, 512ull << 20 }
#define TAR_MAX_DEPTH 128         /* components of a member's name (sysfs needs ~20) */
#define TAR_PAX_MAX_BYTES (64u << 10) /* one pax header's records (a name is at most 4095 bytes) */
#define TAR_PAX_MAX_RECORDS 256       /* records of one pax header (GNU tar writes 3-10) */

enum tar_type { TAR_FILE, TAR_DIR, TAR_SYMLINK };

struct tar_member {
	char path[4096];          /* relative, no "." or empty component, no trailing '/' */
	char link[4096];          /* a symbolic link's target, as written */
	enum tar_type type;
	uint64_t size;            /* a file's bytes */
};

/* The values of pax headers the reader applies ("path", "linkpath",
 * "size"); the others are read and ignored. */
struct tar_pax {
	bool path_set, link_set, size_set;
	char path[4096];
	char link[4096];
	uint64_t size;
};

/* bytes (fewer than n only at the end), 0 at the end, or a negative errno */
typedef long (*tar_read_fn)(void *ctx, void *buf, size_t n);

struct tar_reader {
	tar_read_fn read;
	void *ctx;
	struct tar_limits lim;
	size_t members;
	uint64_t total;           /* file bytes so far */
	uint64_t offset;          /* bytes consumed */
	uint64_t left, pad;       /* of the current member's data */
	struct tar_pax global;    /* the values of the 'g' headers read so far */
	struct tar_pax local;     /* the 'x' header of the member being read */
	char why[4400];           /* the reason for the last error, one line */
};

void tar_reader_init(struct tar_reader *t, tar_read_fn fn, void *ctx, const struct tar_limits *lim);
/* The next member into *m (its data is read next with tar_read_data): 1,
 * 0 at the end of the archive, or a negative errno with t->why set
 * (-EBADMSG not a tar or a refused member, -EFBIG a limit, -EPIPE truncated). */
int tar_next(struct tar_reader *t, struct tar_member *m);
/* Up to n bytes of the current member's data: bytes, 0 at its end, or a
 * negative errno with t->why set. */
long tar_read_data(struct tar_reader *t, void *buf, size_t n);
/* Unpacks every member under the directory rootfd, never through a link:
 * each directory on a member's path is opened O_NOFOLLOW (a member beneath a
 * symbolic link or a file is refused), files are made O_EXCL (a name given
 * twice is refused). A link whose target leaves the root (a relative one
 * with too many "..") is refused; an absolute target is written relative to
 * the root, as --sysroot reads it. Members are made private (0700/0600).
 * The number of members, or a negative errno with t->why set. */
long tar_extract(struct tar_reader *t, int rootfd);

#endif
