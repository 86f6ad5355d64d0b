/* The ABI tables from the real CUDA, NCCL and NVML headers, where found at
 * configure time (ND_HAVE_REAL_*). Also a compile-time check of every entry
 * point's signature: our X-macro lists are expanded with the real types
 * (ND_VENDOR_REAL_TYPES) into static assertions on each real function's type,
 * checked with _Generic (never called, never linked): a parameter or return
 * type that disagrees with the real prototype breaks this build. */
#include "abi_list.h"

#ifdef ND_HAVE_REAL_CUDA
#include <cuda.h>
#endif
#ifdef ND_HAVE_REAL_NCCL
#include <nccl.h>
#endif
#ifdef ND_HAVE_REAL_NVML
#include <nvml.h>
#endif

#define ND_VENDOR_REAL_TYPES 1
#define CHECK3(f, req, ret, params, newest, ...) \
	_Static_assert(_Generic(&newest, ret(*) params: 1, default: 0), "our declaration of " #newest " differs from the header");
#define CHECK_NCCL(f, req, since, ret, params, newest, ...) CHECK3(f, req, ret, params, newest)

#ifdef ND_HAVE_REAL_CUDA
#include "nvlib/cuda_api.h"
ND_CUDA_SYMBOLS(CHECK3)
const struct abi_entry abi_real_cuda[] = { ND_ABI_CUDA(ABI_C, ABI_S, ABI_O) ABI_END };
#define WHERE_CUDA ND_HAVE_REAL_CUDA
#else
const struct abi_entry abi_real_cuda[] = { ABI_END };
#define WHERE_CUDA NULL
#endif

#ifdef ND_HAVE_REAL_NCCL
#include "nvlib/nccl_api.h"
ND_NCCL_SYMBOLS(CHECK_NCCL)
const struct abi_entry abi_real_nccl[] = { ND_ABI_NCCL(ABI_C, ABI_S, ABI_O) ABI_END };
#define WHERE_NCCL ND_HAVE_REAL_NCCL
#else
const struct abi_entry abi_real_nccl[] = { ABI_END };
#define WHERE_NCCL NULL
#endif

#ifdef ND_HAVE_REAL_NVML
#include "nvlib/nvml_api.h"
ND_NVML_SYMBOLS(CHECK3)
const struct abi_entry abi_real_nvml[] = { ND_ABI_NVML(ABI_C, ABI_S, ABI_O) ABI_END };
#define WHERE_NVML ND_HAVE_REAL_NVML
#else
const struct abi_entry abi_real_nvml[] = { ABI_END };
#define WHERE_NVML NULL
#endif

const char *const abi_real_where[3] = { WHERE_CUDA, WHERE_NCCL, WHERE_NVML };
