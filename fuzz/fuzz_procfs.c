/* Fuzz harness: the /proc and /sys text parsers of the host probe
 * (probe/host.h), whose input comes from a snapshot: /proc/PID/limits,
 * /proc/cmdline, /proc/self/mountinfo with its mount options, the ASPM
 * policy list, /proc/cpuinfo. */
#include "fuzz.h"

#include "probe/host.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = fz_strdup(data, size);
	struct rlimit_pair rp;
	(void)limits_parse(s, "Max locked memory", &rp);
	(void)limits_parse(s, "Max open files", &rp);
	char val[64];
	(void)cmdline_get(s, "iommu", val, sizeof(val));
	(void)cmdline_get(s, "pci", val, 4);
	struct mount_entry me;
	if (mountinfo_find(s, "/dev/shm", &me) == 0)
		(void)mount_option(me.options, "size", val, sizeof(val));
	(void)mount_option(s, "size", val, sizeof(val));
	(void)aspm_active_policy(s, val, sizeof(val));
	struct cpuinfo ci;
	cpuinfo_parse(s, &ci);
	free(s);
	return 0;
}
