/* A minimal tar writer (POSIX ustar, with GNU long-name records for paths
 * over 255 bytes), enough for `snapshot` to pack a sysroot: directories,
 * regular files from memory, symbolic links. */
#ifndef ND_UTIL_TAR_H
#define ND_UTIL_TAR_H
#include <stddef.h>
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

#endif
