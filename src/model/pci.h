/* The PCI tree as data: the devices of /sys/bus/pci/devices with their
 * identity, NUMA node, link, BARs, AER counters, SR-IOV, IOMMU group,
 * parent bridge and ACS state, and the pure functions over them. probe/pci.c
 * fills it (pci_scan); analyze/ reads it and never the files behind it. */
#ifndef ND_MODEL_PCI_H
#define ND_MODEL_PCI_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_VENDOR_MELLANOX 0x15b3
#define PCI_BDF_LEN 16 /* "0000:3a:00.0" + NUL, with room */

/* ACS control bits (PCIe spec; lspci's ACSCtl). */
#define ACS_SV 0x0001 /* source validation */
#define ACS_TB 0x0002 /* translation blocking */
#define ACS_RR 0x0004 /* P2P request redirect */
#define ACS_CR 0x0008 /* P2P completion redirect */
#define ACS_UF 0x0010 /* upstream forwarding */
#define ACS_EC 0x0020 /* P2P egress control */
#define ACS_DT 0x0040 /* direct translated P2P */
#define ACS_REDIRECT_BITS (ACS_RR | ACS_CR | ACS_EC)

enum acs_state {
	ACS_UNKNOWN_NEEDS_ROOT, /* config space cut at 64 bytes: unprivileged read */
	ACS_UNREADABLE,         /* config missing or unreadable */
	ACS_ABSENT,             /* device has no ACS capability */
	ACS_PRESENT,            /* ctrl/cap valid */
};

struct pci_bar {
	uint64_t start, end, flags; /* from `resource`; size = end - start + 1 when start */
};

struct pci_dev {
	char bdf[PCI_BDF_LEN];      /* domain:bus:dev.fn, lower case */
	char *syspath;              /* canonical /sys/devices/... path */
	unsigned vendor, device, subsys_vendor, subsys_device;
	unsigned class_code;        /* 24-bit class, e.g. 0x030200 */
	int ident_err;              /* 0, or -errno when vendor/class could not be read (an unreadable
	                             * sysfs directory): the device is of unknown kind, maybe a GPU */
	int numa_node;              /* -1 when none or unknown */
	char local_cpulist[256];    /* "" when unknown */
	/* PCIe link; speed in GT/s (2.5, 5, 8, 16, 32, 64), 0 when unknown */
	double cur_speed, max_speed;
	int cur_width, max_width;   /* 0 when unknown */
	struct pci_bar bars[6];
	int nbars;                  /* BAR entries read */
	/* AER totals: -1 when the files are absent */
	long long aer_correctable, aer_nonfatal, aer_fatal;
	int sriov_totalvfs, sriov_numvfs; /* -1 when not an SR-IOV PF */
	char iommu_group[32];       /* "" when none */
	char driver[64];            /* bound driver name, "" when none */
	bool is_bridge;             /* class 0x0604 */
	/* config space */
	int config_len;             /* bytes readable; 64 means unprivileged; -errno when unreadable */
	enum acs_state acs;
	uint16_t acs_cap, acs_ctrl;
	int acs_offset;             /* offset of the ACS extended capability, 0 if none */
	/* parent bridge BDF, "" at a root port / host bridge */
	char parent[PCI_BDF_LEN];
};

struct pci_list {
	struct pci_dev *devs;
	size_t n, alloc;
};

void pci_list_release(struct pci_list *l);
struct pci_dev *pci_find(const struct pci_list *l, const char *bdf);
bool pci_is_nvidia_gpu(const struct pci_dev *d); /* vendor 10de, class 03xx */
bool pci_is_nvswitch(const struct pci_dev *d);   /* vendor 10de, class 0680 */
bool pci_is_nic(const struct pci_dev *d);        /* class 02xx */

/* Bridges from d up to the root port, nearest first; fills up to max BDFs.
 * Returns the count. */
int pci_path_to_root(const struct pci_list *l, const struct pci_dev *d, const struct pci_dev **path, int max);
/* PCIe generation for a speed in GT/s (2.5->1 ... 64->6), 0 if unknown. */
int pci_speed_gen(double gts);
/* Text of ACS control bits: "SrcValid+ TransBlk- ReqRedir+ ..." */
const char *pci_acs_ctrl_text(uint16_t ctrl, char *buf, size_t bufsz);
/* Normalises a BDF: "3a:00.0" -> "0000:3a:00.0"; false if not a BDF. */
bool pci_bdf_normalize(const char *in, char *out, size_t outsz);

#endif
