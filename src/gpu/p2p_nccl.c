/* Worker task `p2p-nccl`: one rank of a 2-rank communicator that moves data
 * both ways with NCCL's own kernels and transports (what a TP job does).
 *
 *   p2p-nccl --nranks 2 --rank R --device D --id HEX|create [--nccl PATH]
 *            [--count WORDS] [--seed S]
 *
 * The rank protocol of run/ranks.h. The send buffer is filled with the
 * rank's pattern (nd_fill, seed + rank), the receive buffer poisoned; inside
 * one group each rank sends to and receives from the other (ncclSend /
 * ncclRecv), the stream is polled with ncclCommGetAsyncError as nccl-tests
 * does, and every received word is checked against the peer's pattern
 * (nd_verify: the first bad offset). Each call is a stage, so a transport
 * that never delivers shows as a hang at "ncclSend/ncclRecv". */
#include "gpu/p2p_util.h"
#include "gpu/ptx.h"
#include "gpu/tasks.h"
#include "model/vendor_reason.h"
#include "gpu/wmsg.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const struct nccl_api *nc;

static int nccl_fail(const char *call, ncclResult_t r, ncclComm_t comm)
{
	const char *last = nc->ncclGetLastError ? nc->ncclGetLastError(comm) : NULL;
	wmsg_error("nccl", r, nccl_error_name(r), "%s failed: %s%s%s", call, nc->ncclGetErrorString(r),
		   last && *last ? ": " : "", last ? last : "");
	return 1;
}

struct nargs {
	long long nranks, rank, device, count, seed;
	const char *id, *path;
};

static int parse(int argc, char **argv, struct nargs *a)
{
	struct rank_args ra = { .nranks = 0, .rank = -1, .device = -1, .count = 1 << 20 };
	*a = (struct nargs){ .seed = 0x5eed };
	const struct opt_spec own[] = {
		OPT_STRING("nccl", 0, &a->path, "the libnccl.so.2 to load"),
		OPT_INT0("seed", 0, &a->seed, 0, 0xffffffffLL, "seed of the data"),
		OPT_END(),
	};
	if (gpu_rank_args(argc, argv, &ra, own) < 0)
		return -2; /* said */
	a->nranks = ra.nranks, a->rank = ra.rank, a->device = ra.device, a->count = ra.count, a->id = ra.id;
	if (a->nranks != 2 || a->rank < 0 || a->rank > 1 || a->device < 0 || !a->id || a->count < 4 ||
	    a->count > (1LL << 30))
		return -1;
	return 0;
}

/* the exchange and its check; 0, or 1 after an error message */
static int exchange(const struct cuda_api *cu, const struct ptx_mod *m, ncclComm_t comm, const struct nargs *a,
		    CUdeviceptr sbuf, CUdeviceptr rbuf, CUdeviceptr bad, CUstream st)
{
	int peer = (int)(1 - a->rank);
	size_t n = (size_t)a->count;
	CUevent e0 = NULL, e1 = NULL;
	CUresult e;
	wmsg_stage("fill and poison");
	if ((e = ptx_fill(cu, m, sbuf, n, (uint32_t)a->seed + (uint32_t)a->rank, st)) != CUDA_SUCCESS ||
	    (e = cu->cuMemsetD32Async(rbuf, 0xdeadbeefu, n, st)) != CUDA_SUCCESS ||
	    (e = cu->cuStreamSynchronize(st)) != CUDA_SUCCESS || (e = cu->cuEventCreate(&e0, 0)) != CUDA_SUCCESS ||
	    (e = cu->cuEventCreate(&e1, 0)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, wmsg_current_stage(), e);
	wmsg_stage("ncclSend/ncclRecv");
	cu->cuEventRecord(e0, st);
	ncclResult_t r = nc->ncclGroupStart();
	if (r == ncclSuccess)
		r = nc->ncclSend((const void *)(uintptr_t)sbuf, n, ncclUint32, peer, comm, (cudaStream_t)st);
	if (r == ncclSuccess)
		r = nc->ncclRecv((void *)(uintptr_t)rbuf, n, ncclUint32, peer, comm, (cudaStream_t)st);
	ncclResult_t r2 = nc->ncclGroupEnd();
	if (r == ncclSuccess)
		r = r2;
	if (r != ncclSuccess && r != ncclInProgress)
		return nccl_fail("ncclSend/ncclRecv", r, comm);
	for (;;) {
		e = cu->cuStreamQuery(st);
		if (e == CUDA_SUCCESS)
			break;
		if (e != CUDA_ERROR_NOT_READY)
			return p2p_cu_fail(cu, "cuStreamQuery after ncclSend/ncclRecv", e);
		ncclResult_t ae = ncclSuccess;
		if (nc->ncclCommGetAsyncError(comm, &ae) == ncclSuccess && ae != ncclSuccess && ae != ncclInProgress)
			return nccl_fail("ncclSend/ncclRecv (asynchronous)", ae, comm);
		usleep(200);
	}
	float ms = -1;
	if (cu->cuEventRecord(e1, st) != CUDA_SUCCESS || cu->cuEventSynchronize(e1) != CUDA_SUCCESS ||
	    cu->cuEventElapsedTime(&ms, e0, e1) != CUDA_SUCCESS)
		ms = -1;
	cu->cuEventDestroy(e0);
	cu->cuEventDestroy(e1);
	uint64_t first;
	wmsg_stage("verify");
	if ((e = ptx_check(cu, m, rbuf, n, (uint32_t)a->seed + (uint32_t)peer, bad, st, &first)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "verify kernel", e);
	json_t *o = json_pack("{s:s,s:i,s:i,s:i,s:I,s:b}", "step", "nccl", "rank", (int)a->rank, "device", (int)a->device,
			      "peer", peer, "bytes", (json_int_t)(n * 4), "ok", first == PTX_NO_BAD);
	json_object_set_new(o, "first_bad_offset", first == PTX_NO_BAD ? json_null() : json_integer((json_int_t)(first * 4)));
	if (ms >= 0)
		json_object_set_new(o, "event_ms", json_real(ms));
	wmsg_result(o);
	return 0;
}

int gpu_task_p2p_nccl(int argc, char **argv, const char *nccl_path)
{
	struct nargs a;
	wmsg_stage("arguments");
	int pr = parse(argc, argv, &a);
	if (pr == -2)
		return 1;
	if (pr < 0) {
		wmsg_error("worker", 0, NULL, "p2p-nccl needs --nranks 2 --rank 0|1 --device D --id HEX|create "
			   "and takes --count WORDS (4..2^30) --seed S --nccl PATH");
		return 1;
	}
	const struct vendor_lib *lib;
	if (gpu_load_nccl(a.path ? a.path : nccl_path, &nc, &lib))
		return 1;
	if (!nc->ncclSend || !nc->ncclRecv) {
		wmsg_error(VENDOR_LOADER, -ENOSYS, vendor_err_reason(-ENOSYS),
			   "%s has no ncclSend/ncclRecv (NCCL 2.7 or later needed)", lib->path);
		return 1;
	}
	ncclUniqueId id;
	if (gpu_rank_unique_id(nc, a.id, &id))
		return 1;
	const struct cuda_api *cu;
	if (p2p_cuda_open(&cu))
		return 1;
	CUresult e;
	CUdevice dev;
	CUcontext ctx;
	int sms = 0;
	wmsg_stage("cuDevicePrimaryCtxRetain");
	if ((e = cu->cuDeviceGet(&dev, (int)a.device)) != CUDA_SUCCESS ||
	    (e = cu->cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS || (e = cu->cuCtxSetCurrent(ctx)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, wmsg_current_stage(), e);
	cu->cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
	struct ptx_mod m;
	wmsg_stage_budget(30, "load kernels (cuModuleLoadData)");
	if ((e = ptx_load(cu, &m, sms)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "cuModuleLoadData of the p2p kernels", e);
	size_t bytes = (size_t)a.count * 4;
	CUdeviceptr sbuf = 0, rbuf = 0, bad = 0;
	CUstream st = NULL;
	wmsg_stage("allocate");
	if ((e = cu->cuMemAlloc(&sbuf, bytes)) != CUDA_SUCCESS || (e = cu->cuMemAlloc(&rbuf, bytes)) != CUDA_SUCCESS ||
	    (e = cu->cuMemAlloc(&bad, 256)) != CUDA_SUCCESS || (e = cu->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
		return p2p_cu_fail(cu, "allocating the buffers", e);
	ncclComm_t comm = NULL;
	wmsg_stage("ncclCommInitRank");
	ncclResult_t r = nc->ncclCommInitRank(&comm, 2, id, (int)a.rank);
	if (r != ncclSuccess)
		return nccl_fail("ncclCommInitRank", r, NULL);
	if (exchange(cu, &m, comm, &a, sbuf, rbuf, bad, st)) {
		nc->ncclCommAbort(comm);
		return 1;
	}
	wmsg_stage("ncclCommDestroy");
	nc->ncclCommDestroy(comm);
	cu->cuStreamDestroy(st);
	cu->cuMemFree(sbuf);
	cu->cuMemFree(rbuf);
	cu->cuMemFree(bad);
	ptx_unload(cu, &m);
	cu->cuDevicePrimaryCtxRelease(dev);
	return 0;
}
