/* Cause classes (DESIGN.md): ids, the titles the text reports show, and the
 * former ids still accepted. */
#include "kb/causes.h"

#include <string.h>

static const struct cause_def causes[] = {
	{ "p2p_pcie_acs_iommu", "P2P over PCIe blocked (ACS / IOMMU)",
	  "P2P over PCIe broken or slowed by ACS redirect, a translated IOMMU, BIOS" },
	{ "p2p_virtualization", "P2P broken in a VM (vGPU / cloud instance)",
	  "P2P unsupported or broken inside a VM / vGPU / cloud instance" },
	{ "shm_too_small", "/dev/shm too small, full or cleared", "/dev/shm too small, full or cleared, no --ipc=host, RemoveIPC" },
	{ "bootstrap_network", "bootstrap network (interface / address / firewall)",
	  "wrong or virtual interface, unreachable address or port, firewall, hostnames" },
	{ "ib_rdma_config", "InfiniBand / RoCE / GPUDirect RDMA set-up", "InfiniBand / RoCE / GPUDirect RDMA set-up" },
	{ "version_mismatch", "NCCL / CUDA / driver version mismatch",
	  "different NCCL / CUDA / driver across ranks, or an unexpected libnccl loaded" },
	{ "nccl_config_error", "NCCL configuration error (variables / topology files)",
	  "NCCL variables or topology/graph files wrong, or different across ranks" },
	{ "duplicate_gpu_or_device_mapping", "GPU mapping mistake (which rank uses which GPU)",
	  "two ranks on one GPU, CUDA_VISIBLE_DEVICES / device order mistakes" },
	{ "gpu_hardware", "GPU hardware fault (Xid / ECC / off the bus)",
	  "a fault of the GPU itself: hardware and firmware Xid errors, ECC and row remapping, a GPU fallen off the bus or lost" },
	{ "nvlink_fabric", "NVLink / NVSwitch link fault",
	  "NVLink down, degraded or erroring, NVLink Xid errors, NVSwitch SXid errors" },
	{ "pcie_link", "PCIe link fault (AER / downtrained)",
	  "PCIe AER errors, a downtrained or slowed PCIe link, power-saving ASPM, PCIe bus Xid errors" },
	{ "host_memory", "host memory error (EDAC)", "errors of the host's DIMMs that the kernel's EDAC reports" },
	{ "app_gpu_fault", "application fault on the GPU (illegal address / exception)",
	  "a kernel of the application faulted on the GPU: Xid 13, 31 and their kin, an illegal memory access; "
	  "hardware only when it follows the GPU across applications" },
	{ "fabric_manager_nvswitch", "NVSwitch fabric manager down or mismatched",
	  "NVSwitch fabric manager not running, restarted, or mismatched" },
	{ "peer_died_or_oom", "another rank died or ran out of memory",
	  "another rank crashed or ran out of memory, the rest wait" },
	{ "custom_allreduce_or_cumem", "vLLM custom all-reduce / cuMem IPC",
	  "vLLM custom all-reduce, cuMem / CUDA IPC handle sharing" },
	{ "collective_mismatch_app_bug", "application bug (mismatched collectives)",
	  "ranks call different collectives or sizes; application bugs" },
	{ "driver_or_kernel_bug", "known driver / NCCL / kernel bug",
	  "a known bug of a driver, NCCL or kernel version, fixed by changing it" },
	{ "unknown", "no known cause", "nothing points anywhere" },
};

static const struct cause_alias aliases[] = {
	/* schema 3 split it: it held Xid 79, Xid 48, NVLink, host DIMM errors
	 * and PCIe AER under one name */
	{ "hardware_xid_nvlink", "gpu_hardware", "gpu_hardware, nvlink_fabric, pcie_link, host_memory", "schema 3" },
	{ NULL, NULL, NULL, NULL },
};

const struct cause_def *kb_causes(size_t *n)
{
	*n = sizeof(causes) / sizeof(causes[0]);
	return causes;
}

const struct cause_alias *kb_cause_aliases(size_t *n)
{
	*n = 0;
	while (aliases[*n].name)
		(*n)++;
	return aliases;
}

const struct cause_def *kb_cause_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(causes) / sizeof(causes[0]); i++)
		if (strcmp(causes[i].name, name) == 0)
			return &causes[i];
	return NULL;
}

const char *kb_cause_canonical(const char *name)
{
	for (size_t i = 0; name && aliases[i].name; i++)
		if (strcmp(aliases[i].name, name) == 0)
			return aliases[i].use;
	return name;
}

const struct cause_alias *kb_cause_alias(const char *name)
{
	for (size_t i = 0; name && aliases[i].name; i++)
		if (strcmp(aliases[i].name, name) == 0)
			return &aliases[i];
	return NULL;
}

bool kb_cause_valid(const char *name)
{
	if (kb_cause_find(name))
		return true;
	for (size_t i = 0; name && aliases[i].name; i++)
		if (strcmp(aliases[i].name, name) == 0)
			return true;
	return false;
}

const char *kb_cause_title(const char *name)
{
	const struct cause_def *d = kb_cause_find(name);
	return d ? d->title : NULL;
}

static bool word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

int kb_cause_word(const char *s, const char *p, size_t *len)
{
	const char *q = p;
	while (*q && word_char(*q))
		q++;
	*len = (size_t)(q - p);
	if (!*len || (p > s && strchr("/.-=[", p[-1])) || *q == '/' || *q == '-')
		return -1;
	size_t nc;
	const struct cause_def *cs = kb_causes(&nc);
	for (size_t i = 0; i < nc; i++)
		if (strcmp(cs[i].name, "unknown") != 0 && strlen(cs[i].name) == *len && memcmp(cs[i].name, p, *len) == 0)
			return (int)i;
	return -1;
}
