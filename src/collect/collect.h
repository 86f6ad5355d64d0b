/* collect: gathers the facts of the examined machine into one machine model
 * (model/machine.h), each fact once per run, whatever number of stages asks
 * for it. It is the only layer between the readers (probe/ for files
 * through the sysroot, run/ for the GPU workers) and the analyses: cmd/
 * collects, analyze/ reads the model.
 *
 * Every collect_* fills its part the first time it is called and returns at
 * once afterwards; missing data is data (the parts keep their error codes),
 * so these functions return nothing and print nothing. */
#ifndef ND_COLLECT_COLLECT_H
#define ND_COLLECT_COLLECT_H
#include "model/machine.h"

#include <stdbool.h>

/* The PCI tree (/sys/bus/pci/devices): read once. */
void collect_pci(struct machine *m);
/* Host facts (limits, cmdline, /dev/shm, container, CPU, sysctls). */
void collect_host(struct machine *m);
/* Seconds since boot (/proc/uptime). */
void collect_uptime(struct machine *m);
/* The driver's files (/proc/driver/nvidia, modules, device nodes). */
void collect_driver(struct machine *m);
/* Each GPU's model and UUID from /proc/driver/nvidia/gpus (after the PCI tree). */
void collect_gpu_info(struct machine *m);
void collect_net(struct machine *m);
/* Every libnccl, and which copy PyTorch and vLLM load. */
void collect_libs(struct machine *m);
/* Fabric manager and IMEX. */
void collect_fabric(struct machine *m);
/* IOMMU units and the domain type of each PCI device's group. */
void collect_iommu(struct machine *m);
/* The NCCL_*, CUDA_*, TORCH_NCCL_*, VLLM_* environment, HOME, and the
 * nccl.conf files NCCL reads (NCCL_CONF_FILE or ~/.nccl.conf, /etc/nccl.conf). */
void collect_env(struct machine *m);
/* What the kernel log analysis maps events with: the PCI tree, the GPUs'
 * names and UUIDs, the IOMMU units, and the uptime (read now: call it after
 * the log was read, so that --since counts back from the same moment). */
void collect_kernel(struct machine *m);
/* Everything `sys` reports on. */
void collect_sys(struct machine *m);
/* The driver's answers: the nvml-topo and cuda-info workers, at once, each
 * under deadline seconds; run once per machine model (a later call with
 * another deadline keeps the first answers). */
void collect_gpus(struct machine *m, double deadline);
/* Only the nvml-topo worker (no CUDA context on the GPUs: watch asks it
 * while the job runs); collect_gpus keeps this answer. */
void collect_nvml(struct machine *m, double deadline);

#endif
