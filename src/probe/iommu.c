/* IOMMU facts from sysfs: see iommu.h. */
#include "probe/iommu.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

int iommu_units(char ***names, size_t *n)
{
	return sr_list_dir("/sys/class/iommu", names, n);
}

int iommu_unit_count(void)
{
	char **units;
	size_t nu;
	int r = iommu_units(&units, &nu);
	if (r < 0)
		return r;
	int real = 0;
	for (size_t k = 0; k < nu; k++)
		real += units[k][0] != '.';
	sr_names_free(units, nu);
	return real;
}

int iommu_group_type(const char *group, char *type, size_t typesz)
{
	char path[PATH_MAX];
	if (!group[0] || strchr(group, '/'))
		return -EINVAL;
	int r = xsnprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type", group);
	if (r < 0)
		return r;
	return sr_read_str(path, type, typesz);
}
