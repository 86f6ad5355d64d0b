/* The environment of the examined machine: on the live machine that is this
 * process's own start-up environment, under --sysroot the recorded
 * <sysroot>/proc/self/environ (NUL-separated NAME=VALUE). Both are read the
 * same way, through the sysroot, once; the copy is cached until the sysroot
 * changes. */
#ifndef ND_PROBE_ENVIRON_H
#define ND_PROBE_ENVIRON_H
#include <stdbool.h>
#include <stddef.h>

/* The value of name, or NULL when it is not set (or the file is unreadable).
 * The pointer stays valid until environ_reset or a change of sysroot. */
const char *environ_get(const char *name);
/* Drops the cached copy (tests; after sysroot_set it is dropped anyway). */
void environ_reset(void);
/* Calls fn for every variable whose name starts with prefix, in file order;
 * returns how many. name is not NUL-terminated at namelen. */
size_t environ_each(const char *prefix, void (*fn)(const char *name, size_t namelen, const char *value, void *arg),
		    void *arg);
/* Whether the environment could be read at all. */
bool environ_known(void);
/* Reads an nccl.conf (path inside the sysroot: NAME=value lines, '#'
 * comments, blanks trimmed) and calls fn for every setting in file order;
 * fn returns 1 when it took the setting. Returns the count taken, or -errno
 * when the file cannot be read. */
int ncclconf_read(const char *path, int (*fn)(const char *name, const char *value, void *arg), void *arg);

#endif
