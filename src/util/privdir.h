/* Directories that hold files the tool's jobs write and the tool reads back
 * (watch's NCCL_DEBUG_FILE directory), safe when the tool runs as root:
 *
 *   - a directory the tool makes is fresh and private: mkdir/mkdtemp with
 *     mode 0700, then opened with O_DIRECTORY|O_NOFOLLOW and checked (a
 *     directory, ours, not a link put there in between: the path's lstat
 *     and the fd's fstat name the same inode);
 *   - a directory the user names that exists already must be a directory
 *     (not a symbolic link), owned by one of the trusted users (the tool's
 *     effective user, or the user the job runs as), and not writable by
 *     group or others; and each directory above it must belong to root or
 *     to a trusted user and be writable by group or others only when sticky
 *     (/tmp): else someone else could rename it and put a link in its place;
 *   - files in it are then opened through the fd (openat, O_NOFOLLOW), so
 *     what was checked is what is read;
 *   - removing one empties it through its fd (unlinkat: a link to another
 *     directory put at the path is never followed) and removes the path only
 *     while it still names the same inode.
 *
 * Functions return 0 or a negative errno and print nothing; the checks that
 * refuse a directory write a one-line reason into why. */
#ifndef ND_UTIL_PRIVDIR_H
#define ND_UTIL_PRIVDIR_H
#include <stddef.h>
#include <sys/types.h>

struct privdir {
	int fd;               /* O_DIRECTORY, -1 when none */
	char path[4096];
	dev_t dev;
	ino_t ino;
	uid_t owner;
};

/* Trusted owners: the effective user and, where it differs, another (the
 * job's user); (uid_t)-1 for none. */
struct privdir_trust {
	uid_t uid[2];
};

void privdir_init(struct privdir *d);
/* Makes a fresh private directory from tmpl ("DIR/name.XXXXXX", mkdtemp)
 * after checking DIR as an existing directory's ancestors are checked;
 * d->path gets the name made. */
int privdir_make_temp(struct privdir *d, const char *tmpl, const struct privdir_trust *t, char *why, size_t whysz);
/* path exactly: made (0700) when it does not exist, else checked as an
 * existing directory; *made tells which. */
int privdir_open(struct privdir *d, const char *path, const struct privdir_trust *t, int *made, char *why,
		 size_t whysz);
/* Empties the directory (its entries that are not directories) through fd
 * and removes path when it still names the directory fd is open on. Safe
 * in a child after fork (no state but its arguments). */
int privdir_remove(int fd, const char *path);
/* The same for a tree (an unpacked archive): directories below are emptied
 * and removed too, each opened O_NOFOLLOW through its parent's fd, down to
 * PRIVDIR_TREE_DEPTH levels. */
#define PRIVDIR_TREE_DEPTH 130
int privdir_remove_tree(int fd, const char *path);
void privdir_close(struct privdir *d);

#endif
