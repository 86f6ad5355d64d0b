/* Cause classes (DESIGN.md): ids, the titles the text reports show, and the
 * former ids still accepted. */
#include "kb/causes.h"

#include <string.h>

static const struct cause_def causes[] = {
	{ "p2p_pcie_acs_iommu", "P2P over PCIe blocked (ACS / IOMMU)",
	  "P2P over PCIe broken or slowed by ACS redirect, a translated IOMMU, BIOS",
	  "Run `nccl-doctor check` on the machine (it reads ACS and the IOMMU) and `nccl-doctor p2p` (it tests P2P between every pair of GPUs); a run with NCCL_P2P_DISABLE=1 that works confirms the P2P path." },
	{ "p2p_virtualization", "P2P broken in a VM (vGPU / cloud instance)",
	  "P2P unsupported or broken inside a VM / vGPU / cloud instance",
	  "Check whether the job runs in a VM or on vGPU (`nccl-doctor sys`); P2P there needs the hypervisor's support: a run with NCCL_P2P_DISABLE=1 that works confirms it." },
	{ "shm_too_small", "/dev/shm too small, full or cleared", "/dev/shm too small, full or cleared, no --ipc=host, RemoveIPC",
	  "Check /dev/shm where the job runs (`df -h /dev/shm`); give the container more (docker run --shm-size=16g, or --ipc=host)." },
	{ "bootstrap_network", "bootstrap network (interface / address / firewall)",
	  "wrong or virtual interface, unreachable address or port, firewall, hostnames",
	  "Check the address and port every rank uses (MASTER_ADDR, MASTER_PORT, NCCL_SOCKET_IFNAME), that the name resolves and the port is open between the hosts; `nccl-doctor check` lists the interfaces." },
	{ "ib_rdma_config", "InfiniBand / RoCE / GPUDirect RDMA set-up", "InfiniBand / RoCE / GPUDirect RDMA set-up",
	  "Check the RDMA devices and their ports (ibv_devinfo, `nccl-doctor sys`), NCCL_IB_HCA and the container's access to /dev/infiniband." },
	{ "version_mismatch", "NCCL / CUDA / driver version mismatch",
	  "different NCCL / CUDA / driver across ranks, or an unexpected libnccl loaded",
	  "Compare the NCCL, CUDA and driver versions each rank loads (NCCL_DEBUG=INFO prints `NCCL version`; `nccl-doctor check` lists the libnccl copies installed) and make them one." },
	{ "nccl_config_error", "NCCL configuration error (variables / topology files)",
	  "NCCL variables or topology/graph files wrong, or different across ranks",
	  "List the NCCL_* variables every rank sets (`env | grep NCCL_`) and unset the ones you did not mean to set." },
	{ "duplicate_gpu_or_device_mapping", "GPU mapping mistake (which rank uses which GPU)",
	  "two ranks on one GPU, CUDA_VISIBLE_DEVICES / device order mistakes",
	  "Check which GPU each rank takes: torch.cuda.set_device(local_rank) before the process group, CUDA_VISIBLE_DEVICES, and ranks per node against the GPUs each node has." },
	{ "gpu_hardware", "GPU hardware fault (Xid / ECC / off the bus)",
	  "a fault of the GPU itself: hardware and firmware Xid errors, ECC and row remapping, a GPU fallen off the bus or lost",
	  "Read the kernel log's Xid errors (`nccl-doctor kernel`) and the GPU's state (nvidia-smi -q); a GPU that faults again goes out of service." },
	{ "nvlink_fabric", "NVLink / NVSwitch link fault",
	  "NVLink down, degraded or erroring, NVLink Xid errors, NVSwitch SXid errors",
	  "Read the NVLink state and error counters (nvidia-smi nvlink -s, nvidia-smi nvlink -e) and the kernel log (`nccl-doctor kernel`)." },
	{ "pcie_link", "PCIe link fault (AER / downtrained)",
	  "PCIe AER errors, a downtrained or slowed PCIe link, power-saving ASPM, PCIe bus Xid errors",
	  "Read the PCIe links and AER errors (`nccl-doctor topo`, `nccl-doctor kernel`)." },
	{ "host_memory", "host memory error (EDAC)", "errors of the host's DIMMs that the kernel's EDAC reports",
	  "Read the kernel log's EDAC errors (`nccl-doctor kernel`) and have the DIMM it names checked." },
	{ "app_gpu_fault", "application fault on the GPU (illegal address / exception)",
	  "a kernel of the application faulted on the GPU: Xid 13, 31 and their kin, an illegal memory access; "
	  "hardware only when it follows the GPU across applications",
	  "Rerun with CUDA_LAUNCH_BLOCKING=1 to find the kernel that faulted; Xid 13 or 31 in the kernel log names the process." },
	{ "fabric_manager_nvswitch", "NVSwitch fabric manager down or mismatched",
	  "NVSwitch fabric manager not running, restarted, or mismatched",
	  "Check the fabric manager (systemctl status nvidia-fabricmanager) and that its version is the driver's; a run with NCCL_NVLS_ENABLE=0 that works confirms NVLS." },
	{ "peer_died_or_oom", "another rank died or ran out of memory",
	  "another rank crashed or ran out of memory, the rest wait",
	  "Find the rank that failed first, the one whose own log shows out of memory, a crash or a kill (the OOM killer: dmesg), and fix that (less memory per GPU, a smaller batch); the other ranks only waited for it." },
	{ "custom_allreduce_or_cumem", "vLLM custom all-reduce / cuMem IPC",
	  "vLLM custom all-reduce, cuMem / CUDA IPC handle sharing",
	  "Run once with the custom all-reduce off (vLLM and SGLang: --disable-custom-all-reduce); if that works, CUDA IPC or P2P between the GPUs is what fails." },
	{ "collective_mismatch_app_bug", "application bug (mismatched collectives)",
	  "ranks call different collectives or sizes; application bugs",
	  "Compare what each rank called last (TORCH_DISTRIBUTED_DEBUG=DETAIL, the flight recorder: TORCH_NCCL_TRACE_BUFFER_SIZE=2000): a code path the ranks do not all take." },
	{ "driver_or_kernel_bug", "known driver / NCCL / kernel bug",
	  "a known bug of a driver, NCCL or kernel version, fixed by changing it",
	  "Note the NCCL, CUDA and driver versions and look the failure up in NCCL's release notes and issues; try the newest NCCL your framework supports." },
	{ "unknown", "no known cause", "nothing points anywhere",
	  "Rerun with NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=INIT,NET and keep every rank's log." },
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
