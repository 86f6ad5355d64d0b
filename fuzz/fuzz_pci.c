/* Fuzz harness: PCI config space and its ACS extended capability, as the
 * PCI probe reads them from a sysroot (probe/pci.c: pci_parse_config, the
 * capability walk, the ACS control text), and the same bytes as the sysfs
 * text files beside it (resource, current_link_speed, a BDF). */
#include "fuzz.h"

#include "probe/pci.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* config is read with a 4096-byte cap: larger inputs are cut the same way */
	size_t len = size > 4096 ? 4096 : size;
	uint8_t *cfg = malloc(len ? len : 1);
	if (len)
		memcpy(cfg, data, len);
	struct pci_dev d;
	memset(&d, 0, sizeof(d));
	pci_parse_config(&d, cfg, len);
	if (d.acs == ACS_PRESENT && (d.acs_offset < 0x100 || (size_t)d.acs_offset + 8 > len))
		abort(); /* the registers must lie inside what was read */
	char buf[160];
	pci_acs_ctrl_text(d.acs_ctrl, buf, sizeof(buf));
	pci_acs_ctrl_text(d.acs_ctrl, buf, 7); /* a short buffer is cut, never overrun */
	for (uint16_t id = 0; id < 0x30; id += 0xd)
		(void)pci_find_ext_cap(cfg, len, id);
	free(cfg);

	char *text = fz_strdup(data, size);
	struct pci_bar bars[6];
	int n = pci_parse_resource(text, bars, 6);
	if (n < 0 || n > 6)
		abort();
	(void)pci_speed_gen(pci_parse_link_speed(text));
	char bdf[PCI_BDF_LEN];
	(void)pci_bdf_normalize(text, bdf, sizeof(bdf));
	free(text);
	return 0;
}
