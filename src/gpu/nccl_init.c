/* Worker tasks `nccl-init` and `nccl-id`: one rank of an NCCL communicator.
 *
 *   nccl-init --nranks N --rank R --device D --id HEX|create [--nccl PATH]
 *             [--count ELEMS]
 *
 * With --id create the rank calls ncclGetUniqueId itself and reports the id
 * first ({"unique_id": HEX} as a result) so that the parent can start the
 * other ranks (real NCCL keeps the bootstrap root in the process that made
 * the id). Then: cuInit, the primary context of device D, ncclCommInitRank,
 * one float all-reduce (sum) whose result is checked, ncclCommDestroy, free.
 * Every step is a stage, so a rank that waits for a peer that never comes is
 * reported by the parent as a hang at "ncclCommInitRank". */
#include "gpu/tasks.h"
#include "gpu/wmsg.h"
#include "model/vendor_reason.h"
#include "util/jsonx.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "nvlib/nvlib.h"
#include "util/clock.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const struct cuda_api *cu;
static const struct nccl_api *nc;

static int cu_fail(const char *call, CUresult r)
{
	return gpu_cuda_error(cu, call, r);
}

static int nccl_fail(const char *call, ncclResult_t r, ncclComm_t comm)
{
	const char *last = nc->ncclGetLastError ? nc->ncclGetLastError(comm) : NULL;
	wmsg_error("nccl", r, nccl_error_name(r), "%s failed: %s%s%s", call, nc->ncclGetErrorString(r),
		   last && *last ? ": " : "", last ? last : "");
	return 1;
}

int gpu_task_nccl_id(int argc, char **argv, const char *nccl_path)
{
	(void)argc;
	(void)argv;
	if (gpu_load_nccl(nccl_path, &nc, NULL))
		return 1;
	ncclUniqueId id;
	return gpu_rank_unique_id(nc, "create", &id);
}

/* One float all-reduce (sum) on comm, timed by the host and by CUDA
 * events, its result checked, then the communicator destroyed. Reports the
 * rank's result; returns the task's exit status. */
static int allreduce_check(ncclComm_t comm, CUdevice dev, long long nranks, long long rank, long long device,
			   long long count, double t_init, const struct vendor_lib *nlib)
{
	CUresult e;
	ncclResult_t nr;
	double t0;
	size_t bytes = (size_t)count * sizeof(float);
	CUdeviceptr buf = 0;
	CUstream st = NULL;
	wmsg_stage("cuMemAlloc");
	if ((e = cu->cuMemAlloc(&buf, bytes)) != CUDA_SUCCESS) {
		nc->ncclCommAbort(comm);
		return cu_fail("cuMemAlloc", e);
	}
	float *host = xmalloc(bytes);
	for (long long i = 0; i < count; i++)
		host[i] = (float)(rank + 1) + (float)(i % 7);
	wmsg_stage("cuMemcpyHtoD");
	if ((e = cu->cuMemcpyHtoD(buf, host, bytes)) != CUDA_SUCCESS)
		goto cuda_error;
	wmsg_stage("cuStreamCreate");
	if ((e = cu->cuStreamCreate(&st, CU_STREAM_NON_BLOCKING)) != CUDA_SUCCESS)
		goto cuda_error;
	CUevent ev0 = NULL, ev1 = NULL;
	wmsg_stage("cuEventCreate");
	if ((e = cu->cuEventCreate(&ev0, CU_EVENT_DEFAULT)) != CUDA_SUCCESS ||
	    (e = cu->cuEventCreate(&ev1, CU_EVENT_DEFAULT)) != CUDA_SUCCESS)
		goto cuda_error;
	wmsg_stage("ncclAllReduce");
	t0 = nd_now_s();
	cu->cuEventRecord(ev0, st);
	nr = nc->ncclAllReduce((void *)(uintptr_t)buf, (void *)(uintptr_t)buf, (size_t)count, ncclFloat32, ncclSum, comm, st);
	if (nr != ncclSuccess) {
		nccl_fail("ncclAllReduce", nr, comm);
		nc->ncclCommAbort(comm);
		free(host);
		return 1;
	}
	/* polls like nccl-tests: an asynchronous NCCL error ends the wait */
	wmsg_stage("cuStreamQuery");
	for (;;) {
		e = cu->cuStreamQuery(st);
		if (e == CUDA_SUCCESS)
			break;
		if (e != CUDA_ERROR_NOT_READY)
			goto cuda_error;
		ncclResult_t ae = ncclSuccess;
		if (nc->ncclCommGetAsyncError(comm, &ae) == ncclSuccess && ae != ncclSuccess && ae != ncclInProgress) {
			nccl_fail("ncclAllReduce (asynchronous)", ae, comm);
			nc->ncclCommAbort(comm);
			free(host);
			return 1;
		}
		usleep(200);
	}
	double t_ar = nd_now_s() - t0;
	float ev_ms = -1;
	wmsg_stage("cuEventElapsedTime");
	if (cu->cuEventRecord(ev1, st) != CUDA_SUCCESS || cu->cuEventSynchronize(ev1) != CUDA_SUCCESS ||
	    cu->cuEventElapsedTime(&ev_ms, ev0, ev1) != CUDA_SUCCESS)
		ev_ms = -1;
	cu->cuEventDestroy(ev0);
	cu->cuEventDestroy(ev1);
	wmsg_stage("cuMemcpyDtoH");
	if ((e = cu->cuMemcpyDtoH(host, buf, bytes)) != CUDA_SUCCESS)
		goto cuda_error;
	long long wrong = 0;
	float base = (float)(nranks * (nranks + 1) / 2);
	for (long long i = 0; i < count; i++)
		if (host[i] != base + (float)(nranks * (i % 7)))
			wrong++;
	free(host);
	wmsg_stage("ncclCommDestroy");
	nr = nc->ncclCommDestroy(comm);
	cu->cuStreamDestroy(st);
	cu->cuMemFree(buf);
	cu->cuDevicePrimaryCtxRelease(dev);
	char vbuf[32];
	json_t *res = json_pack("{s:i,s:i,s:i,s:s,s:f,s:f,s:I,s:I,s:b}", "rank", (int)rank, "nranks", (int)nranks,
				"device", (int)device, "nccl_version", nccl_version_text(nlib->version, vbuf, sizeof(vbuf)),
				"init_s", t_init, "allreduce_s", t_ar, "count", (json_int_t)count, "wrong", (json_int_t)wrong,
				"destroyed", nr == ncclSuccess);
	/* the all-reduce as the GPU timed it (a first call: includes set-up) */
	if (ev_ms >= 0)
		json_object_set_new(res, "allreduce_event_ms", json_real(ev_ms));
	wmsg_result(res);
	if (wrong) {
		wmsg_error("nccl", 0, NULL, "the all-reduce gave %lld wrong values of %lld", wrong, count);
		return 1;
	}
	return 0;

cuda_error:
	free(host);
	nc->ncclCommAbort(comm);
	return cu_fail(wmsg_current_stage(), e);
}

int gpu_task_nccl_init(int argc, char **argv, const char *nccl_path)
{
	struct rank_args ra = { .nranks = 0, .rank = -1, .device = 0, .count = 1 << 20 };
	wmsg_stage("arguments");
	if (gpu_rank_args(argc, argv, &ra, NULL) < 0)
		return 1;
	long long nranks = ra.nranks, rank = ra.rank, device = ra.device, count = ra.count;
	const char *idhex = ra.id;
	if (nranks < 1 || rank < 0 || rank >= nranks || !idhex || count < 1 || count > (1LL << 28)) {
		wmsg_error("worker", 0, NULL, "nccl-init needs --nranks N --rank R (0 <= R < N) --id HEX|create");
		return 1;
	}
	const struct vendor_lib *nlib;
	if (gpu_load_nccl(nccl_path, &nc, &nlib))
		return 1;
	ncclUniqueId id;
	if (gpu_rank_unique_id(nc, idhex, &id))
		return 1;

	if (gpu_load_cuda(&cu, NULL))
		return 1;
	CUresult e;
	wmsg_stage("cuInit");
	if ((e = cu->cuInit(0)) != CUDA_SUCCESS)
		return cu_fail("cuInit", e);
	CUdevice dev;
	wmsg_stage("cuDeviceGet");
	if ((e = cu->cuDeviceGet(&dev, (int)device)) != CUDA_SUCCESS)
		return cu_fail("cuDeviceGet", e);
	CUcontext ctx;
	wmsg_stage("cuDevicePrimaryCtxRetain");
	if ((e = cu->cuDevicePrimaryCtxRetain(&ctx, dev)) != CUDA_SUCCESS)
		return cu_fail("cuDevicePrimaryCtxRetain", e);
	wmsg_stage("cuCtxSetCurrent");
	if ((e = cu->cuCtxSetCurrent(ctx)) != CUDA_SUCCESS)
		return cu_fail("cuCtxSetCurrent", e);

	ncclComm_t comm = NULL;
	double t0 = nd_now_s();
	wmsg_stage("ncclCommInitRank");
	ncclResult_t nr = nc->ncclCommInitRank(&comm, (int)nranks, id, (int)rank);
	if (nr != ncclSuccess)
		return nccl_fail("ncclCommInitRank", nr, NULL);
	double t_init = nd_now_s() - t0;

	return allreduce_check(comm, dev, nranks, rank, device, count, t_init, nlib);
}
