/* The state of the `p2p-pair` worker task shared by its function tests
 * (p2p_pair.c) and its bandwidth measurements (p2p_pair_bw.c). Index 0 is
 * GPU a, index 1 GPU b; each has its context, kernels, a stream, a source
 * and a destination buffer of `bytes`, and 8 bytes for nd_verify's answer. */
#ifndef ND_GPU_P2P_PAIR_H
#define ND_GPU_P2P_PAIR_H
#include <stdbool.h>

#include "gpu/p2p_util.h"
#include "gpu/ptx.h"

struct pair_side {
	int ordinal;
	CUdevice dev;
	CUcontext ctx;
	bool ctx_held;
	struct ptx_mod m;
	CUstream s;
	CUdeviceptr src, dst, bad;
	int sms;
};

struct pair_ctx {
	const struct cuda_api *cu;
	struct pair_side g[2];
	size_t bytes;
	uint32_t seed;
	int reps, inner;
	bool can[2];       /* can[0]: a can access b; can[1]: b can access a */
	bool peer_on[2];   /* peer access enabled that way */
};

/* Enables peer access both ways where the driver allows it. 0 or 1. */
int pair_enable_peer(struct pair_ctx *p);
/* The bandwidth measurements (--bw); 0 or 1 after an error message. */
int pair_bandwidth(struct pair_ctx *p);

#endif
