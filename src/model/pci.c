/* The PCI tree as data: see model/pci.h. */
#include "model/pci.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool pci_bdf_normalize(const char *in, char *out, size_t outsz)
{
	unsigned dom = 0, bus, dev, fn;
	char tail;
	/* sscanf's %x also takes signs, spaces and "0x": "00.0x7" is no BDF */
	if (in[strspn(in, "0123456789abcdefABCDEF:.")] != '\0')
		return false;
	if (sscanf(in, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) == 4) {
		/* domain:bus:dev.fn */
	} else if (sscanf(in, "%x:%x.%x%c", &bus, &dev, &fn, &tail) == 3) {
		dom = 0;
	} else {
		return false;
	}
	if (dom > 0xffff || bus > 0xff || dev > 0x1f || fn > 7)
		return false;
	snprintf(out, outsz, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return true;
}

bool pci_is_nic(const struct pci_dev *d)
{
	return (d->class_code >> 16) == 0x02;
}

bool pci_is_nvidia_gpu(const struct pci_dev *d)
{
	return d->vendor == PCI_VENDOR_NVIDIA && (d->class_code >> 16) == 0x03;
}

bool pci_is_nvswitch(const struct pci_dev *d)
{
	return d->vendor == PCI_VENDOR_NVIDIA && (d->class_code >> 8) == 0x0680;
}

const char *pci_acs_ctrl_text(uint16_t ctrl, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "SrcValid%c TransBlk%c ReqRedir%c CmpltRedir%c UpstreamFwd%c EgressCtrl%c DirectTrans%c",
		 ctrl & ACS_SV ? '+' : '-', ctrl & ACS_TB ? '+' : '-', ctrl & ACS_RR ? '+' : '-',
		 ctrl & ACS_CR ? '+' : '-', ctrl & ACS_UF ? '+' : '-', ctrl & ACS_EC ? '+' : '-',
		 ctrl & ACS_DT ? '+' : '-');
	return buf;
}

int pci_speed_gen(double gts)
{
	if (gts <= 0)
		return 0;
	if (gts < 4)
		return 1;
	if (gts < 6)
		return 2;
	if (gts < 12)
		return 3;
	if (gts < 24)
		return 4;
	if (gts < 48)
		return 5;
	return 6;
}

int pci_path_to_root(const struct pci_list *l, const struct pci_dev *d, const struct pci_dev **path, int max)
{
	int n = 0;
	const struct pci_dev *cur = d;
	while (cur && cur->parent[0] && n < max) {
		const struct pci_dev *p = pci_find(l, cur->parent);
		if (!p || p == d)
			break;
		path[n++] = p;
		cur = p;
	}
	return n;
}

struct pci_dev *pci_find(const struct pci_list *l, const char *bdf)
{
	char norm[PCI_BDF_LEN];
	if (!pci_bdf_normalize(bdf, norm, sizeof(norm)))
		return NULL;
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->devs[i].bdf, norm) == 0)
			return &l->devs[i];
	return NULL;
}

void pci_list_release(struct pci_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->devs[i].syspath);
	free(l->devs);
	memset(l, 0, sizeof(*l));
}
