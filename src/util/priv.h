/* What the tool trusts when it runs with privileges (as root through sudo,
 * or set-uid/set-gid): the test overrides of the environment
 * (NCCL_DOCTOR_LIBRARY_PATH and NCCL_DOCTOR_LIBRARY_PATH_ONLY: where the
 * vendor libraries are loaded from; ND_WORKER_EXE: the worker binary) name
 * code that would run with those privileges, so a privileged process uses
 * them only where the path they name is root-owned and safe; helper programs
 * (gzip, xz, zstd, bzip2) are run by absolute path from a fixed list of
 * directories, never found through PATH.
 *
 * "Root-owned and safe" (priv_path_trusted): the path resolved (every
 * symbolic link followed), and every directory from / down to it, is owned
 * by uid 0 and not writable by its group or others (an ACL that grants
 * write shows in the group bits too). One exception: a directory that
 * others may write but that is sticky (/tmp) may hold a root-owned
 * *directory* (mktemp -d as root): the sticky bit keeps others from
 * renaming or removing it, and a directory cannot be hard-linked. A file
 * directly in such a directory is refused (another user may have
 * hard-linked it there), and the last component itself is never writable
 * by others, sticky or not. A path that does not exist is safe when its
 * deepest existing ancestor is (nobody but root can create the rest).
 *
 * Functions return 0 or a negative errno and print nothing; main prints the
 * notes of what was ignored (priv_notes), once, and cmd_finish adds them to
 * the JSON document. */
#ifndef ND_UTIL_PRIV_H
#define ND_UTIL_PRIV_H
#include <stdbool.h>
#include <stddef.h>

/* euid 0, or euid != ruid, or egid != rgid. */
bool priv_is_elevated(void);

/* 0 when path is root-owned and safe (see above), with resolved set to the
 * canonical path to use instead of path (symbolic links resolved: a link in
 * a directory someone else can write may change after the check); -EPERM
 * when it is not, with why ("'/home/u/lib' belongs to uid 1000, not root");
 * another negative errno when it cannot be checked, with why. resolved and
 * why may be NULL. */
int priv_path_trusted(const char *path, char *resolved, size_t rsz, char *why, size_t whysz);

/* The directories helpers are run from, in this order: sudo's secure_path
 * without the sbin directories (no decompressor lives there), so that the
 * tool runs the gzip root would run by its name under sudo. */
extern const char *const PRIV_HELPER_DIRS[];
extern const size_t PRIV_HELPER_NDIRS;
/* The absolute path of helper program name (no '/') in the first of dirs
 * that has an executable file of that name; when trusted_only, a copy that
 * is not root-owned and safe is passed over. 0, or -ENOENT with why ("not
 * in /usr/local/bin, /usr/bin or /bin"). */
int priv_helper_find_in(const char *name, const char *const *dirs, size_t ndirs, bool trusted_only, char *out,
			size_t outsz, char *why, size_t whysz);
/* The same over PRIV_HELPER_DIRS, trusted_only when the process is elevated. */
int priv_helper_find(const char *name, char *out, size_t outsz, char *why, size_t whysz);

/* As root, directories of NCCL_DOCTOR_LIBRARY_PATH past this many are
 * ignored (each is checked component by component). */
#define PRIV_LIBRARY_DIRS_MAX 64
/* NCCL_DOCTOR_LIBRARY_PATH's directories this process may use, as a heap
 * ':'-separated list the caller frees (resolved when elevated, as given
 * otherwise); *ignored: how many were dropped (elevated, not safe). */
char *priv_library_dirs(const char *list, size_t *ignored);

/* What an elevated process ignored, for the messages and the JSON. */
struct priv_note {
	const char *variable;
	char value[512];
	char why[512];
};
/* Called once by main: when elevated, checks the overrides and removes from
 * the environment what may not be used (each untrusted directory of
 * NCCL_DOCTOR_LIBRARY_PATH, and NCCL_DOCTOR_LIBRARY_PATH_ONLY with the last
 * one; ND_WORKER_EXE), so that the workers never see them; records a note
 * for each. Returns the number of notes. Not elevated: does nothing. */
size_t priv_sanitize_env(void);
const struct priv_note *priv_notes(size_t *n);

#endif
