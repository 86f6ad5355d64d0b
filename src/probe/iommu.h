/* The IOMMU as sysfs shows it: the units in /sys/class/iommu and the
 * domain type of an IOMMU group (/sys/kernel/iommu_groups/N/type). Read
 * through the sysroot; nothing is changed. */
#ifndef ND_PROBE_IOMMU_H
#define ND_PROBE_IOMMU_H
#include <stddef.h>

/* The names in /sys/class/iommu ("dmar0", "ivhd0"), as sr_list_dir returns
 * them (free with sr_names_free). 0 or -errno (-ENOENT: no IOMMU class). */
int iommu_units(char ***names, size_t *n);
/* The count of IOMMU units (entries not starting with '.'), or -errno. */
int iommu_unit_count(void);
/* The type of IOMMU group `group` ("DMA", "DMA-FQ", "identity") into type.
 * 0, -ENAMETOOLONG for a group name that makes no path, or -errno. */
int iommu_group_type(const char *group, char *type, size_t typesz);

#endif
