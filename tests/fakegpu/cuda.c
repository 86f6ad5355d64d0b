/* Fake libcuda.so.1: the driver API over host memory. "Device" pointers are
 * host allocations, every operation completes at once (streams are always
 * idle), and time is modelled: a per-process clock in milliseconds that
 * transfers advance by bytes / link bandwidth, read by cuEventRecord, so
 * cuEventElapsedTime gives deterministic speeds. Faults: cuinit_error,
 * cuinit_hang, p2p_hang and p2p_corrupt (cuMemcpyPeerAsync). The fake NCCL
 * reaches the clock and the current device through fakegpu_cuda_* below. */
#include "fake.h"
#include "nvlib/cuda_api.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CUctx_st {
	int dev;
};
struct CUstream_st {
	int dev;
};
struct CUevent_st {
	double t_ms;
	int recorded;
};

static struct CUctx_st ctxs[FG_MAX_GPUS];
static int inited;
static _Thread_local int cur_dev = -1;
static double clock_ms;
static size_t used[FG_MAX_GPUS];

/* for the fake NCCL */
FG_API double fakegpu_cuda_clock(void) { return clock_ms; }
FG_API void fakegpu_cuda_advance(double ms) { clock_ms += ms; }
FG_API int fakegpu_cuda_current_device(void) { return cur_dev; }

#define NEED_INIT() do { if (!inited) return CUDA_ERROR_NOT_INITIALIZED; } while (0)
#define DEV_OK(d) ((d) >= 0 && (d) < fg_scenario()->ngpus)

FG_API CUresult cuInit(unsigned flags)
{
	(void)flags;
	const struct fg_scenario *s = fg_scenario();
	if (s->cuinit_hang)
		fg_hang("cuInit");
	if (!s->loaded) {
		fprintf(stderr, "fakegpu: %s\n", s->error);
		return CUDA_ERROR_NO_DEVICE;
	}
	if (s->cuinit_error)
		return s->cuinit_error;
	if (s->ngpus == 0)
		return CUDA_ERROR_NO_DEVICE;
	for (int i = 0; i < FG_MAX_GPUS; i++)
		ctxs[i].dev = i;
	inited = 1;
	return CUDA_SUCCESS;
}

FG_API CUresult cuDriverGetVersion(int *v)
{
	*v = fg_scenario()->cuda_driver_version;
	return CUDA_SUCCESS;
}

FG_API CUresult cuGetErrorName(CUresult e, const char **s)
{
	switch (e) {
	case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; break;
	case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; break;
	case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; break;
	case CUDA_ERROR_NOT_INITIALIZED: *s = "CUDA_ERROR_NOT_INITIALIZED"; break;
	case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; break;
	case CUDA_ERROR_INVALID_DEVICE: *s = "CUDA_ERROR_INVALID_DEVICE"; break;
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: *s = "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH"; break;
	default: *s = "CUDA_ERROR_UNKNOWN"; break;
	}
	return CUDA_SUCCESS;
}

FG_API CUresult cuGetErrorString(CUresult e, const char **s)
{
	switch (e) {
	case CUDA_SUCCESS: *s = "no error"; break;
	case CUDA_ERROR_NO_DEVICE: *s = "no CUDA-capable device is detected"; break;
	case CUDA_ERROR_NOT_INITIALIZED: *s = "initialization error"; break;
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: *s = "system has unsupported display driver / cuda driver combination"; break;
	case CUDA_ERROR_OUT_OF_MEMORY: *s = "out of memory"; break;
	case CUDA_ERROR_INVALID_DEVICE: *s = "invalid device ordinal"; break;
	default: *s = "unknown error"; break;
	}
	return CUDA_SUCCESS;
}

FG_API CUresult cuDeviceGetCount(int *n)
{
	NEED_INIT();
	*n = fg_scenario()->ngpus;
	return CUDA_SUCCESS;
}

FG_API CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	NEED_INIT();
	if (!DEV_OK(ordinal))
		return CUDA_ERROR_INVALID_DEVICE;
	*d = ordinal;
	return CUDA_SUCCESS;
}

FG_API CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	NEED_INIT();
	if (!DEV_OK(d))
		return CUDA_ERROR_INVALID_DEVICE;
	snprintf(name, (size_t)len, "%s", fg_scenario()->gpus[d].name);
	return CUDA_SUCCESS;
}

FG_API CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	NEED_INIT();
	if (!DEV_OK(d))
		return CUDA_ERROR_INVALID_DEVICE;
	unsigned dom = 0, bus = 0, dev = 0, fn = 0;
	sscanf(fg_scenario()->gpus[d].bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn);
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
	case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *v = (int)bus; break;
	case CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID: *v = (int)dev; break;
	case CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID: *v = (int)dom; break;
	case CU_DEVICE_ATTRIBUTE_ECC_ENABLED: *v = fg_scenario()->gpus[d].ecc; break;
	default: *v = 1; break;
	}
	return CUDA_SUCCESS;
}

FG_API CUresult cuDeviceGetPCIBusId(char *busid, int len, CUdevice d)
{
	NEED_INIT();
	if (!DEV_OK(d))
		return CUDA_ERROR_INVALID_DEVICE;
	unsigned dom = 0, bus = 0, dev = 0, fn = 0;
	sscanf(fg_scenario()->gpus[d].bdf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn);
	snprintf(busid, (size_t)len, "%04X:%02X:%02X.%X", dom, bus, dev, fn);
	return CUDA_SUCCESS;
}

FG_API CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d)
{
	NEED_INIT();
	if (!DEV_OK(d))
		return CUDA_ERROR_INVALID_DEVICE;
	*bytes = (size_t)fg_scenario()->gpus[d].memory;
	return CUDA_SUCCESS;
}

FG_API CUresult cuDeviceCanAccessPeer(int *can, CUdevice a, CUdevice b)
{
	NEED_INIT();
	if (!DEV_OK(a) || !DEV_OK(b))
		return CUDA_ERROR_INVALID_DEVICE;
	*can = a != b && fg_scenario()->p2p[a][b] == 0;
	return CUDA_SUCCESS;
}

FG_API CUresult cuDeviceGetP2PAttribute(int *v, int attr, CUdevice a, CUdevice b)
{
	int can;
	CUresult r = cuDeviceCanAccessPeer(&can, a, b);
	if (r)
		return r;
	*v = attr == CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK ? (fg_scenario()->nvl[a][b] ? 0 : 1) : can;
	return CUDA_SUCCESS;
}

FG_API CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d)
{
	NEED_INIT();
	if (!DEV_OK(d))
		return CUDA_ERROR_INVALID_DEVICE;
	*c = &ctxs[d];
	return CUDA_SUCCESS;
}

FG_API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	NEED_INIT();
	return DEV_OK(d) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

FG_API CUresult cuCtxSetCurrent(CUcontext c)
{
	NEED_INIT();
	cur_dev = c ? c->dev : -1;
	return CUDA_SUCCESS;
}

FG_API CUresult cuCtxSynchronize(void) { NEED_INIT(); return CUDA_SUCCESS; }

FG_API CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned flags)
{
	(void)flags;
	NEED_INIT();
	if (cur_dev < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!peer || fg_scenario()->p2p[cur_dev][peer->dev] != 0)
		return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
	return CUDA_SUCCESS;
}

FG_API CUresult cuMemGetInfo_v2(size_t *fr, size_t *total)
{
	NEED_INIT();
	if (cur_dev < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	*total = (size_t)fg_scenario()->gpus[cur_dev].memory;
	*fr = *total - used[cur_dev];
	return CUDA_SUCCESS;
}

/* allocations carry a header with their size and device */
struct hdr {
	size_t bytes;
	int dev;
	int magic;
	char pad[48];
};
#define MAGIC 0x6fa4e

FG_API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
	NEED_INIT();
	if (cur_dev < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (bytes == 0 || used[cur_dev] + bytes > fg_scenario()->gpus[cur_dev].memory || bytes > (1ULL << 34))
		return bytes ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
	struct hdr *h = malloc(sizeof(*h) + bytes);
	if (!h)
		return CUDA_ERROR_OUT_OF_MEMORY;
	h->bytes = bytes;
	h->dev = cur_dev;
	h->magic = MAGIC;
	used[cur_dev] += bytes;
	*p = (CUdeviceptr)(uintptr_t)(h + 1);
	return CUDA_SUCCESS;
}

FG_API CUresult cuMemFree_v2(CUdeviceptr p)
{
	NEED_INIT();
	if (!p)
		return CUDA_SUCCESS;
	struct hdr *h = (struct hdr *)(uintptr_t)p - 1;
	if (h->magic != MAGIC)
		return CUDA_ERROR_INVALID_VALUE;
	used[h->dev] -= h->bytes;
	h->magic = 0;
	free(h);
	return CUDA_SUCCESS;
}

/* the device of an allocation (-1 when p is not ours) */
FG_API int fakegpu_cuda_ptr_device(const void *p)
{
	const struct hdr *h = (const struct hdr *)p - 1;
	return p && h->magic == MAGIC ? h->dev : -1;
}

static double pcie_ms(size_t bytes)
{
	return bytes / 24e9 * 1e3 + 0.005;
}

FG_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	NEED_INIT();
	memcpy((void *)(uintptr_t)dst, src, n);
	clock_ms += pcie_ms(n);
	return CUDA_SUCCESS;
}

FG_API CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	NEED_INIT();
	memcpy(dst, (const void *)(uintptr_t)src, n);
	clock_ms += pcie_ms(n);
	return CUDA_SUCCESS;
}

FG_API CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n)
{
	NEED_INIT();
	memset((void *)(uintptr_t)dst, v, n);
	return CUDA_SUCCESS;
}

FG_API CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n, CUstream s)
{
	(void)s;
	NEED_INIT();
	if (!dctx || !sctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	const struct fg_scenario *sc = fg_scenario();
	int a = sctx->dev, b = dctx->dev;
	if (a != b && sc->p2p_hang[a][b])
		fg_hang("cuMemcpyPeerAsync");
	memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	if (a != b && sc->p2p_corrupt[a][b])
		for (size_t i = 0; i < n; i += 4096)
			((unsigned char *)(uintptr_t)dst)[i] ^= 0x5a;
	clock_ms += a == b ? n / 1000e9 * 1e3 : n / fg_link_bw(sc->link[a][b], sc->nvl[a][b]) * 1e3 + 0.008;
	return CUDA_SUCCESS;
}

FG_API CUresult cuStreamCreate(CUstream *s, unsigned flags)
{
	(void)flags;
	NEED_INIT();
	*s = calloc(1, sizeof(**s));
	if (!*s)
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*s)->dev = cur_dev;
	return CUDA_SUCCESS;
}
FG_API CUresult cuStreamQuery(CUstream s) { (void)s; NEED_INIT(); return CUDA_SUCCESS; }
FG_API CUresult cuStreamSynchronize(CUstream s) { (void)s; NEED_INIT(); return CUDA_SUCCESS; }
FG_API CUresult cuStreamDestroy_v2(CUstream s) { NEED_INIT(); free(s); return CUDA_SUCCESS; }

FG_API CUresult cuEventCreate(CUevent *e, unsigned flags)
{
	(void)flags;
	NEED_INIT();
	*e = calloc(1, sizeof(**e));
	return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
FG_API CUresult cuEventRecord(CUevent e, CUstream s)
{
	(void)s;
	NEED_INIT();
	e->t_ms = clock_ms;
	e->recorded = 1;
	return CUDA_SUCCESS;
}
FG_API CUresult cuEventQuery(CUevent e) { (void)e; NEED_INIT(); return CUDA_SUCCESS; }
FG_API CUresult cuEventSynchronize(CUevent e) { (void)e; NEED_INIT(); return CUDA_SUCCESS; }
FG_API CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
	NEED_INIT();
	if (!a->recorded || !b->recorded)
		return CUDA_ERROR_INVALID_VALUE;
	*ms = (float)(b->t_ms - a->t_ms);
	return CUDA_SUCCESS;
}
FG_API CUresult cuEventDestroy_v2(CUevent e) { NEED_INIT(); free(e); return CUDA_SUCCESS; }
