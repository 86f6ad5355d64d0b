/* The ABI tables from our own declarations (src/nvlib/{cuda,nccl,nvml}_api.h). */
#include "abi_list.h"
#include "nvlib/nvlib.h"

#define NCCL_VERSION(x, y, z) ND_NCCL_VERSION(x, y, z)

const struct abi_entry abi_ours_cuda[] = { ND_ABI_CUDA(ABI_C, ABI_S, ABI_O) ABI_END };
const struct abi_entry abi_ours_nccl[] = { ND_ABI_NCCL(ABI_C, ABI_S, ABI_O) ABI_END };
const struct abi_entry abi_ours_nvml[] = { ND_ABI_NVML(ABI_C, ABI_S, ABI_O) ABI_END };
