/* The quick-reference rows (kb/symptoms.h). The five rows come from the field
 * guide users follow today (issue 5 of this project); the "better" column is
 * the project's own advice, drawn from the knowledge base. */
#include "kb/symptoms.h"

#include <strings.h>

static const struct symptom_def symptoms[] = {
	{ "HANG_AT_INIT", "hang at NCCL init: GPU memory allocated, the log stops after a few NCCL INFO lines, no error",
	  "PCIe P2P conflict (ACS redirect or a translated IOMMU breaks GPU-to-GPU traffic)",
	  "export NCCL_P2P_DISABLE=1",
	  "Find the broken path first: `nccl-doctor sys` (ACS on bridges, IOMMU mode), `nccl-doctor kernel` (DMAR/AMD-Vi faults between GPUs), `nccl-doctor p2p` (which pairs fail). Then fix the platform (iommu=pt, ACS redirect off) or keep P2P where it works with NCCL_P2P_LEVEL=NVL/PIX/PXB; `nccl-doctor check` ranks the configurations to try from the pairs that broke, fastest expected first.",
	  "NCCL_P2P_DISABLE=1 turns P2P off for every pair, including NVLink pairs that work, and moves traffic through host memory: it hides the hang at a large bandwidth cost. Also check bootstrap (NCCL_SOCKET_IFNAME) and /dev/shm, which hang init too.",
	  "P2P_IOMMU_FAULT, PCIE_ACS_VIOLATION, IOMMU_DEFAULT_TRANSLATED, NCCL_P2P_LEVEL, NCCL_P2P_DISABLE" },
	{ "MEMORY_USED_NO_RESPONSE", "GPU memory used but no response: the process holds GPU memory, uses no GPU, and does not answer",
	  "driver deadlock",
	  "upgrade the driver or restart",
	  "Look in the kernel log for the reason first (`nccl-doctor kernel`): hung tasks in the NVIDIA driver, Xid 79/119/109, a GPU fallen off the bus. Collect nvidia-bug-report.sh before restarting, then reset the GPU or reboot; upgrade the driver when the log points at a driver bug (GSP timeouts, a known version). A rank waiting for a dead peer looks the same: check the other ranks (`nccl-doctor logs`).",
	  NULL, "HUNG_TASK_NVIDIA, XID_79, XID_119, GPU_FALLEN_OFF_BUS" },
	{ "SOME_GPUS_NOT_WORKING", "some GPUs not working or much slower than others",
	  "NUMA binding: ranks run on CPUs far from their GPU",
	  "numactl --cpunodebind=N --membind=N for each rank",
	  "Check each GPU's NUMA node and local CPUs (/sys/bus/pci/devices/BDF/numa_node, local_cpulist; `nccl-doctor sys`) and bind each rank to its GPU's node; in Docker add --cap-add SYS_NICE. Also check the GPUs themselves: Xid errors, PCIe AER errors and a downtrained link (`nccl-doctor kernel`, `nccl-doctor sys`) make single GPUs fail or crawl.",
	  NULL, "NCCL_IGNORE_CPU_AFFINITY, PCIE_AER_CORRECTABLE" },
	{ "THROUGHPUT_FLUCTUATING", "throughput fluctuating between runs or during a run",
	  "network problems",
	  "check ibstatus or the cables",
	  "Between nodes: ibstatus/ibstat link state and rate, port error counters, cables and the NIC's PCIe link. Inside a node: corrected PCIe errors (AER) on a GPU slot, a downtrained link, ASPM, thermal or power throttling, and other jobs sharing the GPUs. `nccl-doctor bench` shows bus bandwidth per size to compare runs.",
	  NULL, "PCIE_AER_CORRECTABLE, NCCL_SOCKET_IFNAME, NCCL_IB_DISABLE" },
	{ "OCCASIONAL_CRASHES", "occasional crashes of training or inference processes",
	  "ECC memory errors",
	  "check the ECC counters (nvidia-smi -q -d ECC); the guide also runs `nvidia-smi -e 0`",
	  "Read the counters (nvidia-smi -q -d ECC, remapped rows: nvidia-smi -q -d ROW_REMAPPER) and the kernel log for Xid 48/63/64/94/95 (`nccl-doctor kernel`). Reset the GPU to activate pending row remaps; retire (RMA) a GPU whose remapping failed. Check host memory too (EDAC).",
	  "`nvidia-smi -e 0` DISABLES ECC: memory errors are then no longer detected or corrected, so the crashes become silent data corruption (wrong gradients, wrong tokens) instead of a clean failure. It hides the problem, it does not fix it; it also needs a reboot and frees little memory on HBM GPUs.",
	  "XID_48, XID_63, XID_64, XID_94, XID_95, EDAC_UE" },
};

const struct symptom_def *kb_symptoms(size_t *n)
{
	*n = sizeof(symptoms) / sizeof(symptoms[0]);
	return symptoms;
}

const struct symptom_def *kb_symptom(const char *id)
{
	for (size_t i = 0; i < sizeof(symptoms) / sizeof(symptoms[0]); i++)
		if (strcasecmp(symptoms[i].id, id) == 0)
			return &symptoms[i];
	return NULL;
}
