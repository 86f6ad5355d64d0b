/* Worker task `p2p-pair`: what really moves between two GPUs.
 *
 *   p2p-pair --a I --b J [--size BYTES] [--seed S] [--one-way]
 *            [--bw [--reps N] [--inner K]]
 *
 * Function tests, each direction x->y of the pair (a->b, then b->a; only
 * a->b with --one-way, so that each direction has its own deadline), each a
 * stage with its own budget so that a hang names its step:
 *   capability   cuDeviceCanAccessPeer both ways, the P2P attributes
 *   peer access  cuCtxEnablePeerAccess where supported
 *   ce           the source on x filled with a per-run pattern (nd_fill),
 *                the destination on y poisoned, cuMemcpyPeerAsync x->y
 *                (through the host where P2P is off), every word verified
 *                on y (nd_verify: first bad offset)
 *   sm           with peer access: a kernel on x stores into y's memory
 *                (nd_copy, NCCL's P2P write path), then a kernel on x loads
 *                from y's memory into its own; both verified
 * Each finished step is sent as a result {"step":...}; with --bw the
 * bandwidth and latency measurements follow (p2p_pair_bw.c). */
#include "gpu/p2p_pair.h"
#include "gpu/tasks.h"
#include "gpu/wmsg.h"
#include "util/text.h"
#include "util/clock.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define POISON 0xdeadbeefu

static int parse(int argc, char **argv, long long *a, long long *b, long long *size, long long *seed, long long *reps,
		 long long *inner, bool *bw, bool *one_way)
{
	const struct opt_spec specs[] = {
		OPT_INT("a", 0, a, 0, 1023, "CUDA ordinal of one GPU"),
		OPT_INT("b", 0, b, 0, 1023, "CUDA ordinal of the other"),
		OPT_INT("size", 0, size, 4096, 8LL << 30, "bytes, a multiple of 16"),
		OPT_INT0("seed", 0, seed, 0, 0xffffffffLL, "seed of the data"),
		OPT_INT("reps", 0, reps, 1, P2P_MAX_REPS, "repetitions"),
		OPT_INT("inner", 0, inner, 1, 100, "copies per timed repetition"),
		OPT_FLAG("bw", 0, bw, "measure bandwidth"),
		OPT_FLAG("one-way", 0, one_way, "one direction at a time"),
		OPT_END(),
	};
	if (gpu_task_options(argc, argv, specs) < 0)
		return -2; /* said */
	return *a < 0 || *b < 0 || *a == *b || *size % 16 ? -1 : 0;
}

static CUresult use(struct pair_ctx *p, int k)
{
	return p->cu->cuCtxSetCurrent(p->g[k].ctx);
}

static int open_side(struct pair_ctx *p, int k)
{
	const struct cuda_api *cu = p->cu;
	struct pair_side *g = &p->g[k];
	CUresult e;
	wmsg_stage("GPU %d: context", g->ordinal);
	if ((e = cu->cuDeviceGet(&g->dev, g->ordinal)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "cuDeviceGet", e);
	if ((e = cu->cuDevicePrimaryCtxRetain(&g->ctx, g->dev)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "cuDevicePrimaryCtxRetain", e);
	g->ctx_held = true;
	if ((e = use(p, k)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "cuCtxSetCurrent", e);
	cu->cuDeviceGetAttribute(&g->sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g->dev);
	wmsg_stage_budget(30, "GPU %d: load kernels (cuModuleLoadData)", g->ordinal);
	if ((e = ptx_load(cu, &g->m, g->sms)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "cuModuleLoadData of the p2p kernels", e);
	wmsg_stage("GPU %d: allocate", g->ordinal);
	if ((e = cu->cuMemAlloc(&g->src, p->bytes)) != CUDA_SUCCESS || (e = cu->cuMemAlloc(&g->dst, p->bytes)) != CUDA_SUCCESS ||
	    (e = cu->cuMemAlloc(&g->bad, 256)) != CUDA_SUCCESS ||
	    (e = cu->cuStreamCreate(&g->s, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "allocating the buffers", e);
	return 0;
}

static void close_side(struct pair_ctx *p, int k)
{
	const struct cuda_api *cu = p->cu;
	struct pair_side *g = &p->g[k];
	if (!g->ctx_held)
		return;
	use(p, k);
	if (g->s)
		cu->cuStreamDestroy(g->s);
	if (g->src)
		cu->cuMemFree(g->src);
	if (g->dst)
		cu->cuMemFree(g->dst);
	if (g->bad)
		cu->cuMemFree(g->bad);
	ptx_unload(cu, &g->m);
	cu->cuDevicePrimaryCtxRelease(g->dev);
}

static void capability(struct pair_ctx *p)
{
	const struct cuda_api *cu = p->cu;
	wmsg_stage("capability");
	char ba[32], bb[32];
	p2p_device_bdf(cu, p->g[0].dev, ba, sizeof(ba));
	p2p_device_bdf(cu, p->g[1].dev, bb, sizeof(bb));
	json_t *o = json_pack("{s:s,s:i,s:i,s:s,s:s}", "step", "capability", "a", p->g[0].ordinal, "b", p->g[1].ordinal,
			      "a_bdf", ba, "b_bdf", bb);
	for (int k = 0; k < 2; k++) {
		int can = 0, v;
		CUresult e = cu->cuDeviceCanAccessPeer(&can, p->g[k].dev, p->g[1 - k].dev);
		p->can[k] = e == CUDA_SUCCESS && can;
		json_t *d = json_pack("{s:i,s:i,s:b}", "src", p->g[k].ordinal, "dst", p->g[1 - k].ordinal, "can_access_peer",
				      p->can[k]);
		if (e != CUDA_SUCCESS)
			json_object_set_new(d, "error", json_string(cuda_error_name(e)));
		if (cu->cuDeviceGetP2PAttribute) {
			if (cu->cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED, p->g[k].dev,
							p->g[1 - k].dev) == CUDA_SUCCESS)
				json_object_set_new(d, "native_atomics", json_boolean(v));
			if (cu->cuDeviceGetP2PAttribute(&v, CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK, p->g[k].dev,
							p->g[1 - k].dev) == CUDA_SUCCESS)
				json_object_set_new(d, "performance_rank", json_integer(v));
		}
		json_object_set_new(o, k == 0 ? "a_to_b" : "b_to_a", d);
	}
	wmsg_result(o);
}

int pair_enable_peer(struct pair_ctx *p)
{
	for (int k = 0; k < 2; k++) {
		if (!p->can[k] || p->peer_on[k])
			continue;
		wmsg_stage("%d->%d cuCtxEnablePeerAccess", p->g[k].ordinal, p->g[1 - k].ordinal);
		CUresult e = use(p, k);
		if (e == CUDA_SUCCESS)
			e = p->cu->cuCtxEnablePeerAccess(p->g[1 - k].ctx, 0);
		if (e == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)
			e = CUDA_SUCCESS;
		if (e != CUDA_SUCCESS)
			return p2p_cu_fail(p->cu, "cuCtxEnablePeerAccess", e);
		p->peer_on[k] = true;
	}
	return 0;
}

/* verifies y's buffer d against seed; -1 after an error message */
static int check_on(struct pair_ctx *p, int y, CUdeviceptr d, uint32_t seed, uint64_t *first)
{
	CUresult e = use(p, y);
	if (e == CUDA_SUCCESS)
		e = ptx_check(p->cu, &p->g[y].m, d, p->bytes / 4, seed, p->g[y].bad, p->g[y].s, first);
	if (e != CUDA_SUCCESS) {
		p2p_cu_fail(p->cu, "verify kernel", e);
		return -1;
	}
	return 0;
}

/* fills side k's buffer d with seed and poisons side j's buffer q */
static CUresult prepare(struct pair_ctx *p, int k, CUdeviceptr d, uint32_t seed, int j, CUdeviceptr q)
{
	const struct cuda_api *cu = p->cu;
	CUresult e = use(p, k);
	if (e == CUDA_SUCCESS)
		e = ptx_fill(cu, &p->g[k].m, d, p->bytes / 4, seed, p->g[k].s);
	if (e == CUDA_SUCCESS)
		e = cu->cuStreamSynchronize(p->g[k].s);
	if (e == CUDA_SUCCESS)
		e = use(p, j);
	if (e == CUDA_SUCCESS)
		e = cu->cuMemsetD32Async(q, POISON, p->bytes / 4, p->g[j].s);
	if (e == CUDA_SUCCESS)
		e = cu->cuStreamSynchronize(p->g[j].s);
	return e;
}

static void step_result(struct pair_ctx *p, const char *step, int x, int y, const char *path, uint64_t first, double t)
{
	json_t *o = json_pack("{s:s,s:i,s:i,s:s,s:b,s:f}", "step", step, "src", p->g[x].ordinal, "dst", p->g[y].ordinal,
			      "path", path, "ok", first == PTX_NO_BAD, "seconds", t);
	json_object_set_new(o, "first_bad_offset", first == PTX_NO_BAD ? json_null() : json_integer((json_int_t)(first * 4)));
	wmsg_result(o);
}

/* one direction x -> y; 0, or 1 after an error message */
static int direction(struct pair_ctx *p, int x, int y, double budget)
{
	const struct cuda_api *cu = p->cu;
	int ox = p->g[x].ordinal, oy = p->g[y].ordinal;
	uint32_t seed = p->seed + (uint32_t)(2 * x);
	uint64_t first;
	CUresult e;
	bool direct = p->peer_on[x] || p->peer_on[y];

	wmsg_stage_budget(budget, "%d->%d ce copy", ox, oy);
	double t0 = nd_now_s();
	if ((e = prepare(p, x, p->g[x].src, seed, y, p->g[y].dst)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, wmsg_current_stage(), e);
	if ((e = use(p, x)) == CUDA_SUCCESS &&
	    (e = cu->cuMemcpyPeerAsync(p->g[y].dst, p->g[y].ctx, p->g[x].src, p->g[x].ctx, p->bytes, p->g[x].s)) == CUDA_SUCCESS)
		e = cu->cuStreamSynchronize(p->g[x].s);
	if (e != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "cuMemcpyPeerAsync", e);
	if (check_on(p, y, p->g[y].dst, seed, &first) < 0)
		return 1;
	step_result(p, "ce", x, y, direct ? "p2p" : "host", first, nd_now_s() - t0);
	if (!p->peer_on[x])
		return 0;

	/* x's SMs store into y's memory */
	wmsg_stage_budget(budget, "%d->%d sm write (kernel on %d stores into %d)", ox, oy, ox, oy);
	t0 = nd_now_s();
	if ((e = prepare(p, x, p->g[x].src, seed + 1, y, p->g[y].dst)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, wmsg_current_stage(), e);
	if ((e = use(p, x)) == CUDA_SUCCESS && (e = ptx_copy(cu, &p->g[x].m, p->g[y].dst, p->g[x].src, p->bytes, p->g[x].s)) == CUDA_SUCCESS)
		e = cu->cuStreamSynchronize(p->g[x].s);
	if (e != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "copy kernel (peer stores)", e);
	if (check_on(p, y, p->g[y].dst, seed + 1, &first) < 0)
		return 1;
	step_result(p, "sm_write", x, y, "p2p", first, nd_now_s() - t0);

	/* x's SMs load from y's memory */
	wmsg_stage_budget(budget, "%d->%d sm read (kernel on %d loads from %d)", ox, oy, ox, oy);
	t0 = nd_now_s();
	if ((e = prepare(p, y, p->g[y].src, seed + 7, x, p->g[x].dst)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, wmsg_current_stage(), e);
	if ((e = use(p, x)) == CUDA_SUCCESS && (e = ptx_copy(cu, &p->g[x].m, p->g[x].dst, p->g[y].src, p->bytes, p->g[x].s)) == CUDA_SUCCESS)
		e = cu->cuStreamSynchronize(p->g[x].s);
	if (e != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "copy kernel (peer loads)", e);
	if (check_on(p, x, p->g[x].dst, seed + 7, &first) < 0)
		return 1;
	step_result(p, "sm_read", x, y, "p2p", first, nd_now_s() - t0);
	return 0;
}

int gpu_task_p2p_pair(int argc, char **argv, const char *nccl_path)
{
	(void)nccl_path;
	long long a = -1, b = -1, size = 32LL << 20, seed = 0x5eed, reps = 5, inner = 4;
	bool bw = false, one_way = false;
	wmsg_stage("arguments");
	int pr = parse(argc, argv, &a, &b, &size, &seed, &reps, &inner, &bw, &one_way);
	if (pr == -2)
		return 1;
	if (pr < 0) {
		wmsg_error("worker", 0, NULL, "p2p-pair needs --a I --b J (different) and takes --size BYTES (4 KiB..8 GiB, "
			   "a multiple of 16) --seed S --one-way --bw --reps 1..%d --inner 1..100", P2P_MAX_REPS);
		return 1;
	}
	struct pair_ctx p;
	memset(&p, 0, sizeof(p));
	p.g[0].ordinal = (int)a;
	p.g[1].ordinal = (int)b;
	p.bytes = (size_t)size;
	p.seed = (uint32_t)seed;
	p.reps = (int)reps;
	p.inner = (int)inner;
	if (p2p_cuda_open(&p.cu))
		return 1;
	int rc = 1;
	if (open_side(&p, 0) || open_side(&p, 1))
		goto out;
	capability(&p);
	if (bw) {
		rc = pair_bandwidth(&p);
		goto out;
	}
	if (pair_enable_peer(&p))
		goto out;
	/* a copy of S bytes at 0.5 GB/s, three times over, plus set-up */
	double budget = 5 + 6.0 * (double)p.bytes / 1e9;
	if (direction(&p, 0, 1, budget) || (!one_way && direction(&p, 1, 0, budget)))
		goto out;
	wmsg_stage("done");
	wmsg_result(json_pack("{s:s}", "step", "done"));
	rc = 0;
out:
	close_side(&p, 0);
	close_side(&p, 1);
	return rc;
}
