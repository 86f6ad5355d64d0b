/* Path classes between GPUs from the PCI tree in sysfs (see analyze/topo.h;
 * NVML's levels map to classes in model/link.c). */
#include "analyze/topo.h"

#include <stdio.h>
#include <string.h>

/* "pci0000:00" of a device's canonical sysfs path, or "" */
static void host_bridge(const struct pci_dev *d, char *out, size_t outsz)
{
	out[0] = '\0';
	const char *p = d->syspath ? strstr(d->syspath, "/devices/pci") : NULL;
	if (!p)
		return;
	p += strlen("/devices/");
	size_t n = strcspn(p, "/");
	snprintf(out, outsz, "%.*s", (int)n, p);
}

enum link_class topo_sysfs_class(const struct pci_list *l, const struct pci_dev *a, const struct pci_dev *b)
{
	if (a == b)
		return LINK_X;
	char ha[64], hb[64];
	host_bridge(a, ha, sizeof(ha));
	host_bridge(b, hb, sizeof(hb));
	if (!ha[0] || !hb[0])
		return LINK_UNKNOWN;
	if (strcmp(ha, hb) != 0)
		return a->numa_node == b->numa_node ? LINK_NODE : LINK_SYS;
	const struct pci_dev *pa[32], *pb[32];
	int na = pci_path_to_root(l, a, pa, 32), nb = pci_path_to_root(l, b, pb, 32);
	int k = 0; /* common bridges from the root down */
	while (k < na && k < nb && pa[na - 1 - k] == pb[nb - 1 - k])
		k++;
	if (k == 0)
		return LINK_PHB;
	return na - k <= 1 && nb - k <= 1 ? LINK_PIX : LINK_PXB;
}
