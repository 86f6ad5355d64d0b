/* Worker task `p2p-gpu`: one GPU's own numbers for `p2p`.
 *
 *   p2p-gpu --device D [--size BYTES] [--reps N] [--inner K] [--seed S]
 *
 * First checks that our PTX kernels work on this GPU (fill, verify, a copy
 * by the copy engine and by the SMs, host to device and back, every word
 * verified), then measures with events, median of N repetitions of K copies
 * each: local device copy by the copy engine (cuMemcpyDtoDAsync, as
 * nvbandwidth's device_local_copy) and by the SMs (nd_copy), and pinned
 * host-to-device and device-to-host copies (as host_to_device_memcpy_ce /
 * device_to_host_memcpy_ce). Bytes are counted once: a copy of S bytes in
 * t seconds is S / t. Every step is a stage with its own budget.
 * Results: one {"step":"verify",...} and one {"step":"bandwidth",...}. */
#include "gpu/p2p_util.h"
#include "gpu/ptx.h"
#include "gpu/tasks.h"
#include "gpu/wmsg.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cuda_api *cu;

struct gpu_args {
	long long device, size, reps, inner, seed;
};

static int parse(int argc, char **argv, struct gpu_args *a)
{
	*a = (struct gpu_args){ .device = -1, .size = 512LL << 20, .reps = 10, .inner = 4, .seed = 0x5eed };
	const struct opt_spec specs[] = {
		OPT_INT("device", 0, &a->device, 0, 1023, "CUDA ordinal"),
		OPT_INT("size", 0, &a->size, 4096, 16LL << 30, "bytes, a multiple of 16"),
		OPT_INT("reps", 0, &a->reps, 1, P2P_MAX_REPS, "repetitions"),
		OPT_INT("inner", 0, &a->inner, 1, 100, "copies per timed repetition"),
		OPT_INT0("seed", 0, &a->seed, 0, 0xffffffffLL, "seed of the data"),
		OPT_END(),
	};
	if (gpu_task_options(argc, argv, specs) < 0)
		return -2; /* said */
	return a->device < 0 || a->size % 16 ? -1 : 0;
}

struct copy_arg {
	const struct ptx_mod *m;
	CUdeviceptr dst, src;
	void *host;
	size_t bytes;
	int kind; /* 0 CE d2d, 1 SM d2d, 2 h2d, 3 d2h */
};

static CUresult copy_op(void *p, CUstream s)
{
	struct copy_arg *a = p;
	switch (a->kind) {
	case 0: return cu->cuMemcpyDtoDAsync(a->dst, a->src, a->bytes, s);
	case 1: return ptx_copy(cu, a->m, a->dst, a->src, a->bytes, s);
	case 2: return cu->cuMemcpyHtoDAsync(a->dst, a->host, a->bytes, s);
	default: return cu->cuMemcpyDtoHAsync(a->host, a->src, a->bytes, s);
	}
}

/* the functional checks; 0, 1 after an error message, 2 on a wrong word */
static int verify_all(const struct ptx_mod *m, CUdeviceptr a, CUdeviceptr b, CUdeviceptr bad, uint32_t *host,
		      size_t bytes, uint32_t seed, CUstream s, json_t *out)
{
	size_t words = bytes / 4;
	uint64_t first;
	CUresult e;
	static const char *names[] = { "fill", "ce_copy", "sm_copy", "h2d", "d2h" };
	for (int step = 0; step < 5; step++) {
		wmsg_stage_budget(10, "verify %s", names[step]);
		uint32_t sd = seed + (uint32_t)step;
		e = cu->cuMemsetD32Async(b, 0xdeadbeefu, words, s);
		switch (step) {
		case 0: if (!e) e = ptx_fill(cu, m, b, words, sd, s); break;
		case 1: if (!e) e = ptx_fill(cu, m, a, words, sd, s); if (!e) e = cu->cuMemcpyDtoDAsync(b, a, bytes, s); break;
		case 2: if (!e) e = ptx_fill(cu, m, a, words, sd, s); if (!e) e = ptx_copy(cu, m, b, a, bytes, s); break;
		case 3:
			for (size_t i = 0; i < words; i++)
				host[i] = nd_pattern(i, sd);
			if (!e) e = cu->cuMemcpyHtoDAsync(b, host, bytes, s);
			break;
		case 4:
			memset(host, 0xa5, bytes);
			if (!e) e = ptx_fill(cu, m, b, words, sd, s);
			if (!e) e = cu->cuMemcpyDtoHAsync(host, b, bytes, s);
			break;
		}
		if (e == CUDA_SUCCESS)
			e = cu->cuStreamSynchronize(s);
		if (e != CUDA_SUCCESS)
			return p2p_cu_fail(cu, wmsg_current_stage(), e);
		if (step == 4) {
			first = PTX_NO_BAD;
			for (size_t i = 0; i < words; i++)
				if (host[i] != nd_pattern(i, sd)) {
					first = i;
					break;
				}
		} else if ((e = ptx_check(cu, m, b, words, sd, bad, s, &first)) != CUDA_SUCCESS) {
			return p2p_cu_fail(cu, "verify kernel", e);
		}
		json_object_set_new(out, names[step], first == PTX_NO_BAD ? json_true() : json_false());
		if (first != PTX_NO_BAD) {
			json_object_set_new(out, "failed", json_string(names[step]));
			json_object_set_new(out, "first_bad_offset", json_integer((json_int_t)(first * 4)));
			return 2;
		}
	}
	return 0;
}

static json_t *samples_json(const double *ms, int n, size_t bytes, int inner)
{
	json_t *a = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_real(p2p_gbs(bytes, inner, ms[i])));
	return a;
}

static int measure(const struct ptx_mod *m, CUdeviceptr a, CUdeviceptr b, void *host, const struct gpu_args *ga,
		   CUstream s, json_t *out)
{
	static const char *names[] = { "local_copy_ce", "local_copy_sm", "h2d", "d2h" };
	double ms[P2P_MAX_REPS], sorted[P2P_MAX_REPS];
	for (int k = 0; k < 4; k++) {
		/* a generous budget: K copies of S bytes at 1 GB/s, N + 1 times */
		double budget = 10 + (double)ga->size * (double)ga->inner * (double)(ga->reps + 1) / 1e9;
		wmsg_stage_budget(budget, "bandwidth %s", names[k]);
		struct copy_arg arg = { .m = m, .dst = b, .src = a, .host = host, .bytes = (size_t)ga->size, .kind = k };
		CUresult e = p2p_time_op(cu, s, copy_op, &arg, (int)ga->reps, (int)ga->inner, ms);
		if (e != CUDA_SUCCESS)
			return p2p_cu_fail(cu, wmsg_current_stage(), e);
		memcpy(sorted, ms, sizeof(double) * (size_t)ga->reps);
		double med = p2p_median(sorted, (int)ga->reps);
		char key[64];
		snprintf(key, sizeof(key), "%s_gbs", names[k]);
		json_object_set_new(out, key, json_real(p2p_gbs((size_t)ga->size, (int)ga->inner, med)));
		snprintf(key, sizeof(key), "%s_samples_gbs", names[k]);
		json_object_set_new(out, key, samples_json(ms, (int)ga->reps, (size_t)ga->size, (int)ga->inner));
	}
	return 0;
}

int gpu_task_p2p_gpu(int argc, char **argv, const char *nccl_path)
{
	(void)nccl_path;
	struct gpu_args ga;
	wmsg_stage("arguments");
	int pr = parse(argc, argv, &ga);
	if (pr == -2)
		return 1;
	if (pr < 0) {
		wmsg_error("worker", 0, NULL, "p2p-gpu needs --device D and takes --size BYTES (4 KiB..16 GiB, a multiple of 16) "
			   "--reps 1..%d --inner 1..100 --seed 0..2^32-1", P2P_MAX_REPS);
		return 1;
	}
	if (p2p_cuda_open(&cu))
		return 1;
	CUresult e;
	CUdevice dev;
	CUcontext ctx;
	int sms = 0;
	wmsg_stage("cuDeviceGet");
	if ((e = cu->cuDeviceGet(&dev, (int)ga.device)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "cuDeviceGet", e);
	wmsg_stage("cuDevicePrimaryCtxRetain");
	if ((e = cu->cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "cuDevicePrimaryCtxRetain", e);
	if ((e = cu->cuCtxSetCurrent(ctx)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "cuCtxSetCurrent", e);
	cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
	struct ptx_mod m;
	wmsg_stage_budget(30, "load kernels (cuModuleLoadData)");
	if ((e = ptx_load(cu, &m, sms)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "cuModuleLoadData of the p2p kernels", e);
	size_t bytes = (size_t)ga.size;
	CUdeviceptr a = 0, b = 0, bad = 0;
	void *host = NULL;
	CUstream s = NULL;
	wmsg_stage("allocate");
	if ((e = cu->cuMemAlloc(&a, bytes)) != CUDA_SUCCESS || (e = cu->cuMemAlloc(&b, bytes)) != CUDA_SUCCESS ||
	    (e = cu->cuMemAlloc(&bad, 256)) != CUDA_SUCCESS || (e = cu->cuMemAllocHost(&host, bytes)) != CUDA_SUCCESS ||
	    (e = cu->cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS) {
		p2p_cu_fail(cu, "allocating the buffers", e);
		goto out;
	}
	char bdf[32];
	p2p_device_bdf(cu, dev, bdf, sizeof(bdf));
	json_t *v = json_pack("{s:s,s:i,s:I,s:s}", "step", "verify", "device", (int)ga.device, "bytes", (json_int_t)bytes,
			      "bdf", bdf);
	int rc = verify_all(&m, a, b, bad, host, bytes, (uint32_t)ga.seed, s, v);
	if (rc == 1) {
		json_decref(v);
		goto out;
	}
	wmsg_result(v);
	if (rc == 2) {
		wmsg_error("worker", 0, "corrupt", "GPU %lld: a copy on the GPU itself gave wrong data", ga.device);
		e = CUDA_ERROR_UNKNOWN;
		goto out;
	}
	json_t *bw = json_pack("{s:s,s:i,s:I,s:i,s:i,s:i}", "step", "bandwidth", "device", (int)ga.device, "bytes",
			       (json_int_t)bytes, "reps", (int)ga.reps, "inner", (int)ga.inner, "sms", sms);
	if (measure(&m, a, b, host, &ga, s, bw)) {
		json_decref(bw);
		e = CUDA_ERROR_UNKNOWN;
		goto out;
	}
	wmsg_result(bw);
	e = CUDA_SUCCESS;
out:
	if (s)
		cu->cuStreamDestroy(s);
	if (host)
		cu->cuMemFreeHost(host);
	cu->cuMemFree(a);
	cu->cuMemFree(b);
	cu->cuMemFree(bad);
	ptx_unload(cu, &m);
	cu->cuDevicePrimaryCtxRelease(dev);
	return e == CUDA_SUCCESS ? 0 : 1;
}
