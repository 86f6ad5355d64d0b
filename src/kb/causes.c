/* Cause classes (DESIGN.md). */
#include "kb/causes.h"

#include <string.h>

static const struct cause_def causes[] = {
	{ "p2p_pcie_acs_iommu", "P2P over PCIe broken or slowed by ACS redirect, a translated IOMMU, BIOS" },
	{ "p2p_virtualization", "P2P unsupported or broken inside a VM / vGPU / cloud instance" },
	{ "shm_too_small", "/dev/shm too small or full, no --ipc=host, RemoveIPC" },
	{ "bootstrap_network", "wrong or virtual interface, unreachable address or port, firewall, hostnames" },
	{ "ib_rdma_config", "InfiniBand / RoCE / GPUDirect RDMA set-up" },
	{ "version_mismatch", "different NCCL / CUDA / driver across ranks, or an unexpected libnccl loaded" },
	{ "nccl_config_error", "NCCL variables or topology/graph files wrong, or different across ranks" },
	{ "duplicate_gpu_or_device_mapping", "two ranks on one GPU, CUDA_VISIBLE_DEVICES / device order mistakes" },
	{ "hardware_xid_nvlink", "hardware: Xid errors, NVLink down, a downtrained PCIe link, GPU off the bus, ECC" },
	{ "fabric_manager_nvswitch", "NVSwitch fabric manager not running, restarted, or mismatched" },
	{ "peer_died_or_oom", "another rank crashed or ran out of memory, the rest wait" },
	{ "custom_allreduce_or_cumem", "vLLM custom all-reduce, cuMem / CUDA IPC handle sharing" },
	{ "collective_mismatch_app_bug", "ranks call different collectives or sizes; application bugs" },
	{ "driver_or_kernel_bug", "a known bug of a driver, NCCL or kernel version, fixed by changing it" },
	{ "unknown", "nothing points anywhere" },
};

const struct cause_def *kb_causes(size_t *n)
{
	*n = sizeof(causes) / sizeof(causes[0]);
	return causes;
}

bool kb_cause_valid(const char *name)
{
	for (size_t i = 0; i < sizeof(causes) / sizeof(causes[0]); i++)
		if (strcmp(causes[i].name, name) == 0)
			return true;
	return false;
}
