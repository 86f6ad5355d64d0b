/* The GPU kernels of `p2p`, written in PTX by this project and handed to the
 * driver as text (cuModuleLoadData: the driver JIT-compiles them, so the
 * build needs no CUDA toolkit). Three kernels, all grid-stride loops:
 *
 *   nd_fill(u32 *dst, u64 words, u32 seed)         dst[i] = nd_pattern(i, seed)
 *   nd_verify(u32 *src, u64 words, u32 seed, u64 *bad)
 *                                 *bad = min(*bad, i) for every i where
 *                                 src[i] != nd_pattern(i, seed)
 *   nd_copy(u128 *dst, u128 *src, u64 vecs)        dst[i] = src[i], 16-byte
 *                                 loads and stores by the SMs (dst or src may
 *                                 be a peer GPU's memory: NCCL's P2P path)
 *
 * nd_pattern() below is the C twin of the PTX arithmetic (the fake libcuda
 * and the unit tests use it). The launch helpers run in the calling thread's
 * current context; they return the driver's CUresult. Workers only. */
#ifndef ND_GPU_PTX_H
#define ND_GPU_PTX_H
#include <stddef.h>
#include <stdint.h>

#include "nvlib/cuda_api.h"

#define PTX_FILL "nd_fill"
#define PTX_VERIFY "nd_verify"
#define PTX_COPY "nd_copy"
#define PTX_BLOCK 512        /* threads per block */
#define PTX_NO_BAD UINT64_MAX /* nd_verify: every word matched */

/* The value of 32-bit word i of a buffer filled with seed. */
static inline uint32_t nd_pattern(uint64_t i, uint32_t seed)
{
	uint32_t p = (uint32_t)i * 0x9E3779B1u ^ (uint32_t)(i >> 32) * 0x85EBCA6Bu;
	p += seed;
	return p ^ p >> 15;
}

/* The PTX text (NUL-terminated). */
const char *ptx_source(void);

struct ptx_mod {
	CUmodule mod;
	CUfunction fill, verify, copy;
	unsigned grid;       /* blocks per launch */
};

/* Loads the module into the current context; sms: multiprocessors of the
 * device (sizes the grid), 0 when unknown. */
CUresult ptx_load(const struct cuda_api *cu, struct ptx_mod *m, int sms);
void ptx_unload(const struct cuda_api *cu, struct ptx_mod *m);
CUresult ptx_fill(const struct cuda_api *cu, const struct ptx_mod *m, CUdeviceptr dst, size_t words, uint32_t seed,
		  CUstream s);
/* Launches nd_verify with *bad reset first; bad: 8 bytes of device memory. */
CUresult ptx_verify(const struct cuda_api *cu, const struct ptx_mod *m, CUdeviceptr src, size_t words, uint32_t seed,
		    CUdeviceptr bad, CUstream s);
/* bytes: a multiple of 16; dst and src 16-byte aligned. */
CUresult ptx_copy(const struct cuda_api *cu, const struct ptx_mod *m, CUdeviceptr dst, CUdeviceptr src, size_t bytes,
		  CUstream s);
/* Verifies synchronously: nd_verify, stream sync, reads *bad back. Sets
 * *first_bad to the first wrong word's index or PTX_NO_BAD. */
CUresult ptx_check(const struct cuda_api *cu, const struct ptx_mod *m, CUdeviceptr src, size_t words, uint32_t seed,
		   CUdeviceptr bad, CUstream s, uint64_t *first_bad);

#endif
