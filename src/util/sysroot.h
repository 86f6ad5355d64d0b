/* Every read of /sys, /proc, /dev, /etc (and of the libraries we scan) goes
 * through here, so that each probe runs the same on the live machine and on
 * a recorded tree (--sysroot DIR, like hwloc's HWLOC_FSROOT).
 *
 * Paths given to these functions are absolute paths as seen on the machine
 * being examined ("/sys/bus/pci/devices"); they are prefixed with the sysroot.
 * Symbolic links are resolved inside the sysroot, so an absolute link target
 * stays inside it.
 *
 * Functions return 0 (or a count) on success and a negative errno on failure;
 * they print nothing. While recording is on, everything read is remembered so
 * that `snapshot` can pack exactly what the probes looked at. */
#ifndef ND_UTIL_SYSROOT_H
#define ND_UTIL_SYSROOT_H
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

#include "util/errtext.h"

/* dir NULL, "" or "/" means the live machine. Fails with -ENOENT/-ENOTDIR. */
int sysroot_set(const char *dir);
/* "" for the live machine, else the sysroot directory without trailing '/'. */
const char *sysroot_get(void);
bool sysroot_is_live(void);

/* Host path of path inside the sysroot; -ENAMETOOLONG if it does not fit. */
int sr_path(const char *path, char *out, size_t outsz);
int sr_open(const char *path, int flags);
int sr_stat(const char *path, struct stat *st);
int sr_lstat(const char *path, struct stat *st);
bool sr_exists(const char *path);
/* sr_open and the readers refuse anything but regular files and directories
 * with -SR_ESPECIAL (a device node, FIFO or socket inside a sysroot is
 * untrusted input that could block or never end); the one exception is the
 * character device /dev/kmsg on the live machine. */
/* SR_ESPECIAL: util/errtext.h */
/* How many opens were refused that way since the start, and the first path
 * (for a note in the report). */
size_t sr_special_refused(const char **first);
/* Reads at most max bytes of a file; *data is a heap NUL-terminated copy the
 * caller frees. Regular files and sysfs/proc pseudo files alike. */
int sr_read_file(const char *path, char **data, size_t *len, size_t max);
/* Reads a small file into buf, trailing whitespace removed. */
int sr_read_str(const char *path, char *buf, size_t bufsz);
int sr_read_ll(const char *path, int base, long long *out);
int sr_readlink(const char *path, char *buf, size_t bufsz);
/* Canonical path (inside the sysroot) with every link resolved. */
int sr_realpath(const char *path, char *out, size_t outsz);
/* Directory listing: the sorted entry names except "." and "..". *names is a
 * heap array of heap strings; free with sr_names_free. */
int sr_list_dir(const char *path, char ***names, size_t *n);
void sr_names_free(char **names, size_t n);
/* Paths matching a glob(3) pattern, sysroot prefix removed; sorted. */
int sr_glob(const char *pattern, char ***paths, size_t *n);

/* sr_strerror, sr_reason: util/errtext.h */

/* Recording, for snapshot. */
enum sr_rec_type { SR_REC_FILE, SR_REC_LINK, SR_REC_DIR };
struct sr_rec {
	char *path;          /* absolute, inside the machine */
	enum sr_rec_type type;
	char *data;          /* file content, link target, or a directory's listing:
	                      * NUL-terminated "d:NAME", "l:NAME", "f:NAME" entries */
	size_t len;
	unsigned mode;
};
void sr_record_start(void);
void sr_record_stop(void);
/* Adds (or replaces) a file the probes did not read through sr_* calls. */
void sr_record_add_file(const char *path, const void *data, size_t len);
const struct sr_rec *sr_record_entries(size_t *n);
void sr_record_clear(void);

#endif
