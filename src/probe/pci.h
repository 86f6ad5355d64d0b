/* PCI devices from /sys/bus/pci/devices (through the sysroot): identity,
 * NUMA, link speed and width, BARs, AER counters, SR-IOV, the bridge path to
 * the root port, and the extended capabilities of config space (ACS). Pure
 * reads; nothing here needs a driver. */
#ifndef ND_PROBE_PCI_H
#define ND_PROBE_PCI_H
#include "model/pci.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Reads every device under /sys/bus/pci/devices. Returns the count, or a
 * negative errno when the directory cannot be read at all. */
int pci_scan(struct pci_list *out);

/* Pure parsers, tested on recorded and constructed bytes. */
/* Walks the extended capability list (from 0x100) for cap_id; returns its
 * offset or 0. len is the number of config bytes. */
int pci_find_ext_cap(const uint8_t *cfg, size_t len, uint16_t cap_id);
/* The config-space facts of d (config_len, acs, acs_cap/ctrl/offset) from
 * the len bytes of its config file: 64 bytes is an unprivileged read. */
void pci_parse_config(struct pci_dev *d, const uint8_t *cfg, size_t len);
/* Parses "0x0000000000004000 0x0000000000007fff 0x0000000000040200\n..." */
int pci_parse_resource(const char *text, struct pci_bar *bars, int max);
/* "32.0 GT/s PCIe" -> 32.0; "Unknown" -> 0 */
double pci_parse_link_speed(const char *text);

#endif
