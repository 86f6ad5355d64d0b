/* Shared helpers of the p2p worker tasks (see p2p_util.h). */
#include "gpu/tasks.h"
#include "gpu/p2p_util.h"
#include "gpu/wmsg.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int p2p_cu_fail(const struct cuda_api *cu, const char *call, CUresult r)
{
	const char *s = NULL;
	if (!cu || cu->cuGetErrorString(r, &s) != CUDA_SUCCESS || !s)
		s = "unknown error";
	wmsg_error("cuda", r, cuda_error_name(r), "%s failed: %s (%s %d)", call, s, cuda_error_name(r), r);
	return 1;
}

int p2p_cuda_open(const struct cuda_api **cu)
{
	if (gpu_load_cuda(cu, NULL))
		return 1;
	wmsg_stage("cuInit");
	CUresult e = (*cu)->cuInit(0);
	if (e != CUDA_SUCCESS)
		return p2p_cu_fail(*cu, "cuInit", e);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

double p2p_median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

CUresult p2p_time_op(const struct cuda_api *cu, CUstream s, p2p_op_fn op, void *arg, int reps, int inner, double *ms)
{
	CUevent e0 = NULL, e1 = NULL;
	CUresult e = cu->cuEventCreate(&e0, CU_EVENT_DEFAULT);
	if (e == CUDA_SUCCESS)
		e = cu->cuEventCreate(&e1, CU_EVENT_DEFAULT);
	if (e == CUDA_SUCCESS)
		e = op(arg, s); /* warm-up */
	if (e == CUDA_SUCCESS)
		e = cu->cuStreamSynchronize(s);
	for (int r = 0; e == CUDA_SUCCESS && r < reps; r++) {
		e = cu->cuEventRecord(e0, s);
		for (int k = 0; e == CUDA_SUCCESS && k < inner; k++)
			e = op(arg, s);
		if (e == CUDA_SUCCESS)
			e = cu->cuEventRecord(e1, s);
		if (e == CUDA_SUCCESS)
			e = cu->cuEventSynchronize(e1);
		float f = 0;
		if (e == CUDA_SUCCESS)
			e = cu->cuEventElapsedTime(&f, e0, e1);
		ms[r] = f;
	}
	if (e0)
		cu->cuEventDestroy(e0);
	if (e1)
		cu->cuEventDestroy(e1);
	return e;
}

double p2p_gbs(size_t bytes, int inner, double ms)
{
	return ms > 0 ? (double)bytes * inner / (ms * 1e-3) / 1e9 : 0;
}

void p2p_device_bdf(const struct cuda_api *cu, CUdevice dev, char *out, size_t outsz)
{
	char buf[64];
	unsigned dom, bus, d, fn;
	out[0] = '\0';
	if (cu->cuDeviceGetPCIBusId(buf, sizeof(buf), dev) == CUDA_SUCCESS &&
	    sscanf(buf, "%x:%x:%x.%x", &dom, &bus, &d, &fn) == 4)
		snprintf(out, outsz, "%04x:%02x:%02x.%x", dom & 0xffff, bus & 0xff, d & 0x1f, fn & 7);
}
