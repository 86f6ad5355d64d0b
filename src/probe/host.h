/* Host facts read from /proc, /sys and /etc through the sysroot: resource
 * limits, the kernel command line, mounts, /dev/shm, container and VM hints,
 * CPU vendor, NUMA nodes, ASPM, sysctls. The parsers are pure functions; the
 * facts themselves are model/host.h. */
#ifndef ND_PROBE_HOST_H
#define ND_PROBE_HOST_H
#include "model/host.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Parses the /proc/PID/limits row whose name starts with `name` ("Max locked
 * memory"). 0 on success, -ENOENT when the row is absent, -EINVAL if garbled. */
int limits_parse(const char *text, const char *name, struct rlimit_pair *out);

/* Finds the last mount of mountpoint in /proc/self/mountinfo text. */
int mountinfo_find(const char *text, const char *mountpoint, struct mount_entry *out);
/* Value of an option ("size") in a comma list, true if present. */
bool mount_option(const char *options, const char *name, char *val, size_t valsz);

/* The active policy of "[default] performance powersave" -> "default". */
bool aspm_active_policy(const char *text, char *out, size_t outsz);

void cpuinfo_parse(const char *text, struct cpuinfo *out);

/* Reads everything; missing files leave fields unknown. */
void host_probe(struct host_facts *h);
/* Seconds since boot, the first field of /proc/uptime. 0 or -errno
 * (-EINVAL when the file does not start with a number). */
int host_uptime(double *secs);

#endif
