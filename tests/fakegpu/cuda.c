/* Fake libcuda.so.1: the driver API over host memory. "Device" pointers are
 * host allocations, every operation completes at once (streams are always
 * idle), and time is modelled: a per-process clock in milliseconds that
 * transfers advance by bytes / link bandwidth, read by cuEventRecord, so
 * cuEventElapsedTime gives deterministic speeds. Modules: cuModuleLoadData
 * recognises p2p's PTX kernels (src/gpu/ptx.h) by their entry names and
 * cuLaunchKernel performs their effect on the host memory (fill, verify,
 * copy), with peer access checked as the hardware would fault; likewise
 * bench's check kernels (src/gpu/bench_ptx.h: table fill, count of wrong
 * elements). Faults:
 * cuinit_error, cuinit_hang, p2p_hang and p2p_corrupt (peer copies over the
 * P2P path: cuMemcpyPeerAsync with peer access enabled, and copy kernels that
 * touch a peer), p2p_slow (that path at 1/20 of the link's bandwidth),
 * cuda_lost, module_error (cuModuleLoadData fails). The fake NCCL reaches
 * the clock and the current device through fakegpu_cuda_* below. */
#include "fake.h"
#include "gpu/bench_ptx.h"
#include "gpu/ptx.h"
#include "nvlib/cuda_api.h"

#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

struct CUctx_st {
	int dev;
};
struct CUstream_st {
	int dev;
	bool capturing;   /* between cuStreamBeginCapture and cuStreamEndCapture */
	double capture_ms; /* the clock when the capture began */
};
/* A graph is the modelled time of what was captured: the captured work
 * itself ran at once (the fake NCCL moves data when called), and every
 * launch advances the clock by that time again. */
struct CUgraph_st {
	double ms;
};
struct CUgraphExec_st {
	double ms;
};
struct CUevent_st {
	double t_ms;
	int recorded;
};

/* modelled rates (bytes/s): a device's own memory (copy engine or SMs,
 * bytes counted once), and a peer copy the driver stages through the host */
#define LOCAL_BW 1000e9
#define HOST_STAGED_BW 10e9

static struct CUctx_st ctxs[FG_MAX_GPUS];
static int inited;
static _Thread_local int cur_dev = -1;
static double clock_ms;
static size_t used[FG_MAX_GPUS];

/* for the fake NCCL */
FG_API double fakegpu_cuda_clock(void) { return clock_ms; }
FG_API void fakegpu_cuda_advance(double ms) { clock_ms += ms; }
FG_API int fakegpu_cuda_current_device(void) { return cur_dev; }

/* Slow streams (scenario fault nccl_slow_ms_per_mib): the work queued by
 * this thread's collectives ends at busy_until (monotonic seconds); until
 * then the stream and events query NOT_READY and a synchronize waits, as a
 * slow GPU's do. Work completes: slow, never stuck. */
static _Thread_local double busy_until;
static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}
FG_API void fakegpu_cuda_busy(double ms)
{
	double now = mono_s();
	busy_until = (busy_until > now ? busy_until : now) + ms / 1e3;
}
static bool stream_busy(void)
{
	if (busy_until <= 0 || mono_s() >= busy_until)
		return false;
	/* a poller of a busy stream waits a little here: the slow fake costs
	 * the machine no CPU while it "computes" */
	struct timespec ts = { 0, 200000 };
	nanosleep(&ts, NULL);
	return mono_s() < busy_until;
}
static void wait_idle(void)
{
	while (stream_busy()) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
}

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
	/* NVSwitch boards: CUDA is "not yet initialized" (802) until the fabric
	 * manager has registered every GPU (Fabric Manager User Guide) */
	for (int i = 0; s->nvswitch && i < s->ngpus; i++)
		if (s->gpus[i].fabric_state == 1 || s->gpus[i].fabric_state == 2)
			return CUDA_ERROR_SYSTEM_NOT_READY;
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
	*n = fg_scenario()->ncuda;
	return CUDA_SUCCESS;
}

FG_API CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	NEED_INIT();
	if (ordinal < 0 || ordinal >= fg_scenario()->ncuda)
		return CUDA_ERROR_INVALID_DEVICE;
	*d = fg_scenario()->cuda_order[ordinal];
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
	case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: *v = fg_scenario()->gpus[d].multicast; break;
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

FG_API CUresult cuCtxSynchronize(void) { NEED_INIT(); wait_idle(); return CUDA_SUCCESS; }

/* peer access enabled from the first device's context to the second's */
static bool peer_on[FG_MAX_GPUS][FG_MAX_GPUS];
/* calls that touched the lost GPU (cuda_lost) */
static int lost_calls;

/* cuda_lost: after K calls touching GPU G, every call on it fails */
static CUresult touch(int dev)
{
	const struct fg_scenario *sc = fg_scenario();
	if (dev < 0 || dev != sc->cuda_lost_gpu)
		return CUDA_SUCCESS;
	if (++lost_calls > sc->cuda_lost_after) {
		if (lost_calls == sc->cuda_lost_after + 1)
			fprintf(stderr, "fakegpu: GPU %d has fallen off the bus (scenario fault)\n", dev);
		return CUDA_ERROR_DEVICE_UNAVAILABLE;
	}
	return CUDA_SUCCESS;
}
#define TOUCH(d) do { CUresult t_ = touch(d); if (t_) return t_; } while (0)

FG_API CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned flags)
{
	(void)flags;
	NEED_INIT();
	if (cur_dev < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!peer || peer->dev == cur_dev || fg_scenario()->p2p[cur_dev][peer->dev] != 0)
		return CUDA_ERROR_PEER_ACCESS_UNSUPPORTED;
	TOUCH(cur_dev);
	if (peer_on[cur_dev][peer->dev])
		return CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED;
	peer_on[cur_dev][peer->dev] = true;
	return CUDA_SUCCESS;
}

FG_API CUresult cuCtxDisablePeerAccess(CUcontext peer)
{
	NEED_INIT();
	if (cur_dev < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!peer || !peer_on[cur_dev][peer->dev])
		return CUDA_ERROR_PEER_ACCESS_NOT_ENABLED;
	peer_on[cur_dev][peer->dev] = false;
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
	void *block; /* what free() takes */
	int dev;
	int magic;
	char pad[40];
};
#define MAGIC 0x6fa4e

/* Live allocations by address range, so that a kernel given a pointer
 * inside one (bench's check kernels) finds its device. */
#define MAX_ALLOCS 4096
static struct { uintptr_t lo, hi; int dev; } allocs[MAX_ALLOCS];
static pthread_mutex_t allocs_mu = PTHREAD_MUTEX_INITIALIZER;

static void allocs_set(uintptr_t lo, uintptr_t hi, int dev)
{
	pthread_mutex_lock(&allocs_mu);
	for (int i = 0; i < MAX_ALLOCS; i++)
		if (dev >= 0 ? allocs[i].hi == 0 : allocs[i].lo == lo) {
			allocs[i].lo = dev >= 0 ? lo : 0;
			allocs[i].hi = dev >= 0 ? hi : 0;
			allocs[i].dev = dev;
			break;
		}
	pthread_mutex_unlock(&allocs_mu);
}

/* the device of the allocation holding [p, p + n), -1 if none */
static int range_dev(CUdeviceptr p, size_t n)
{
	int d = -1;
	pthread_mutex_lock(&allocs_mu);
	for (int i = 0; i < MAX_ALLOCS && d < 0; i++)
		if (allocs[i].hi && p >= allocs[i].lo && p + n <= allocs[i].hi)
			d = allocs[i].dev;
	pthread_mutex_unlock(&allocs_mu);
	return d;
}

FG_API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t bytes)
{
	NEED_INIT();
	if (cur_dev < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (bytes == 0 || used[cur_dev] + bytes > fg_scenario()->gpus[cur_dev].memory || bytes > (1ULL << 34))
		return bytes ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
	/* Buffers of 2 MiB and more start on a huge page boundary, the header
	 * in the page before, and are asked for huge pages where the kernel
	 * allows it: the 8-GPU benchmarks fault in gigabytes, and every p2p
	 * pair worker four 4 MiB buffers (faults cost most of a fake check's
	 * CPU in a VM); 512 times fewer faults. */
	const size_t huge = 2u << 20;
	size_t span = (bytes + huge - 1) & ~(huge - 1);
	void *block = bytes >= huge ? aligned_alloc(huge, huge + span) : malloc(sizeof(struct hdr) + bytes);
	if (!block)
		return CUDA_ERROR_OUT_OF_MEMORY;
	struct hdr *h = bytes >= huge ? (struct hdr *)((char *)block + huge) - 1 : block;
	if (bytes >= huge)
		(void)madvise(h + 1, span, MADV_HUGEPAGE);
	h->bytes = bytes;
	h->block = block;
	h->dev = cur_dev;
	h->magic = MAGIC;
	used[cur_dev] += bytes;
	*p = (CUdeviceptr)(uintptr_t)(h + 1);
	allocs_set((uintptr_t)*p, (uintptr_t)*p + bytes, cur_dev);
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
	allocs_set((uintptr_t)p, 0, -1);
	h->magic = 0;
	free(h->block);
	return CUDA_SUCCESS;
}

/* the device of an allocation (-1 when p is not ours) */
FG_API int fakegpu_cuda_ptr_device(const void *p)
{
	const struct hdr *h = (const struct hdr *)p - 1;
	return p && h->magic == MAGIC ? h->dev : -1;
}

/* host <-> device at 24 GB/s for a x16 link, less on a narrower one */
static double pcie_ms(const void *devptr, size_t bytes)
{
	int d = fakegpu_cuda_ptr_device(devptr);
	int w = d >= 0 ? fg_scenario()->gpus[d].cur_width : 16;
	double bw = 24e9 * (w > 0 && w < 16 ? w / 16.0 : 1.0);
	return bytes / bw * 1e3 + 0.005;
}

FG_API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
	NEED_INIT();
	memcpy((void *)(uintptr_t)dst, src, n);
	clock_ms += pcie_ms((const void *)(uintptr_t)dst, n);
	return CUDA_SUCCESS;
}

FG_API CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
	NEED_INIT();
	memcpy(dst, (const void *)(uintptr_t)src, n);
	clock_ms += pcie_ms((const void *)(uintptr_t)src, n);
	return CUDA_SUCCESS;
}

FG_API CUresult cuMemsetD8_v2(CUdeviceptr dst, unsigned char v, size_t n)
{
	NEED_INIT();
	memset((void *)(uintptr_t)dst, v, n);
	return CUDA_SUCCESS;
}

FG_API CUresult cuMemAllocHost_v2(void **pp, size_t bytes)
{
	NEED_INIT();
	if (bytes == 0 || bytes > (1ULL << 34))
		return bytes ? CUDA_ERROR_OUT_OF_MEMORY : CUDA_ERROR_INVALID_VALUE;
	*pp = malloc(bytes);
	return *pp ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

FG_API CUresult cuMemFreeHost(void *p)
{
	NEED_INIT();
	free(p);
	return CUDA_SUCCESS;
}

/* the device of a device pointer, -1 for host memory */
static int ptr_dev(CUdeviceptr p)
{
	return fakegpu_cuda_ptr_device((const void *)(uintptr_t)p);
}

FG_API CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	(void)s;
	NEED_INIT();
	TOUCH(ptr_dev(dst));
	return cuMemcpyHtoD_v2(dst, src, n);
}

FG_API CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	(void)s;
	NEED_INIT();
	TOUCH(ptr_dev(src));
	return cuMemcpyDtoH_v2(dst, src, n);
}

/* copies between two devices' memory take the path cuMemcpyPeer would */
static CUresult peer_copy(CUdeviceptr dst, CUdeviceptr src, size_t n, int a, int b, const char *what);

FG_API CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
	(void)s;
	NEED_INIT();
	int a = ptr_dev(src), b = ptr_dev(dst);
	if (!src || !dst)
		return CUDA_ERROR_INVALID_VALUE;
	if (a < 0 || b < 0) { /* inside an allocation (only starts are known): a copy within one GPU */
		memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
		clock_ms += n / LOCAL_BW * 1e3 + 0.003;
		return CUDA_SUCCESS;
	}
	return peer_copy(dst, src, n, a, b, "cuMemcpyDtoDAsync");
}

FG_API CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s)
{
	(void)s;
	NEED_INIT();
	TOUCH(ptr_dev(dst));
	uint32_t *p = (uint32_t *)(uintptr_t)dst;
	for (size_t i = 0; i < n; i++)
		p[i] = v;
	clock_ms += n * 4 / LOCAL_BW * 1e3;
	return CUDA_SUCCESS;
}

/* Modules: the PTX text is searched for our entry names; a function is one
 * of the three kernels of src/gpu/ptx.h or the two of src/gpu/bench_ptx.h. */
enum kern { K_FILL = 1, K_VERIFY, K_COPY, K_BFILL, K_BCHECK };
#define NKERN 5
static const char *const kern_names[NKERN] = { PTX_FILL, PTX_VERIFY, PTX_COPY, BENCH_PTX_FILL, BENCH_PTX_CHECK };
struct CUfunc_st {
	enum kern k;
};
struct CUmod_st {
	int dev;
	struct CUfunc_st f[NKERN];
	bool has[NKERN];
};

FG_API CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	NEED_INIT();
	if (cur_dev < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	TOUCH(cur_dev);
	const char *t = image;
	if (!t || !strstr(t, ".version") || !strstr(t, ".target"))
		return CUDA_ERROR_INVALID_PTX;
	if (fg_scenario()->module_error)
		return (CUresult)fg_scenario()->module_error;
	*m = calloc(1, sizeof(**m));
	if (!*m)
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*m)->dev = cur_dev;
	for (int i = 0; i < NKERN; i++) {
		char entry[64];
		snprintf(entry, sizeof(entry), ".entry %s(", kern_names[i]);
		(*m)->has[i] = strstr(t, entry) != NULL;
		(*m)->f[i].k = (enum kern)(i + 1);
	}
	clock_ms += 2.0; /* a JIT compile */
	return CUDA_SUCCESS;
}

FG_API CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	NEED_INIT();
	if (!m || !name)
		return CUDA_ERROR_INVALID_VALUE;
	for (int i = 0; i < NKERN; i++)
		if (m->has[i] && strcmp(name, kern_names[i]) == 0) {
			*f = &m->f[i];
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_NOT_FOUND;
}

FG_API CUresult cuModuleUnload(CUmodule m)
{
	NEED_INIT();
	free(m);
	return CUDA_SUCCESS;
}

/* A kernel on cur_dev may touch memory of device d: its own, or a peer's
 * whose access it enabled (else the hardware faults: illegal address). */
static CUresult reach(int d)
{
	if (d < 0)
		return CUDA_ERROR_ILLEGAL_ADDRESS;
	if (d != cur_dev && !peer_on[cur_dev][d])
		return CUDA_ERROR_ILLEGAL_ADDRESS;
	return touch(d);
}

/* SM traffic between cur_dev and a peer over the P2P path: the faults */
static void sm_peer_faults(int peer, unsigned char *dst, size_t n)
{
	const struct fg_scenario *sc = fg_scenario();
	if (peer == cur_dev)
		return;
	if (sc->p2p_hang[cur_dev][peer])
		fg_hang("a copy kernel's peer loads and stores");
	if (sc->p2p_corrupt[cur_dev][peer])
		for (size_t i = 0; i < n; i += 4096)
			dst[i] ^= 0x5a;
}

static double kernel_ms(int peer, size_t bytes)
{
	const struct fg_scenario *sc = fg_scenario();
	if (peer == cur_dev)
		return bytes / LOCAL_BW * 1e3 + 0.003;
	double bw = fg_link_bw(sc->link[cur_dev][peer], sc->nvl[cur_dev][peer]) / (sc->p2p_slow[cur_dev][peer] ? 20 : 1);
	return bytes / bw * 1e3 + 0.003;
}

/* bench's kernels (gpu/bench_ptx.h) on element size es */
static uint64_t elem(const unsigned char *p, unsigned es)
{
	uint64_t v = 0;
	memcpy(&v, p, es); /* little endian, as the GPU */
	return v;
}

static double elem_float(uint64_t v, unsigned fk)
{
	float f;
	double d;
	uint32_t x = (uint32_t)v;
	switch (fk) {
	case BENCH_FK_HALF: {
		int ex = (int)((v >> 10) & 0x1f);
		double m = (double)(v & 0x3ff);
		d = ex == 0 ? ldexp(m, -24) : ex == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, ex - 25);
		return v & 0x8000 ? -d : d;
	}
	case BENCH_FK_BF16: x <<= 16; /* fall through */
	case BENCH_FK_FLOAT: memcpy(&f, &x, 4); return f;
	default: memcpy(&d, &v, 8); return d;
	}
}

static CUresult bench_kernel(enum kern k, void **params)
{
	CUdeviceptr d = *(CUdeviceptr *)params[0], tab = *(CUdeviceptr *)params[2];
	unsigned long long n = *(unsigned long long *)params[1];
	unsigned period = *(unsigned *)params[3], es = *(unsigned *)params[4];
	CUresult e;
	if (period == 0 || (es != 1 && es != 2 && es != 4 && es != 8))
		return CUDA_ERROR_INVALID_VALUE;
	if ((e = reach(range_dev(d, n * es))) != CUDA_SUCCESS || (e = reach(range_dev(tab, (size_t)period * es))) != CUDA_SUCCESS)
		return e;
	unsigned char *p = (unsigned char *)(uintptr_t)d;
	const unsigned char *t = (const unsigned char *)(uintptr_t)tab;
	clock_ms += kernel_ms(cur_dev, n * es);
	/* The table repeats every period elements: one period is copied, then
	 * the filled prefix doubles (a multiple of the period, so it stays in
	 * phase); the check compares whole periods and looks at the elements of
	 * a period only when its bytes differ. The same results as an element
	 * at a time, fast enough for the 8-GPU fake checks on two CPU cores. */
	size_t pb = (size_t)period * es, total = (size_t)n * es;
	if (k == K_BFILL) {
		size_t done = total < pb ? total : pb;
		memcpy(p, t, done);
		while (done < total) {
			size_t c = total - done < done ? total - done : done;
			memcpy(p + done, p, c);
			done += c;
		}
		return CUDA_SUCCESS;
	}
	unsigned fk = *(unsigned *)params[5];
	double tol = *(double *)params[6];
	CUdeviceptr cnt = *(CUdeviceptr *)params[7];
	if ((e = reach(range_dev(cnt, 8))) != CUDA_SUCCESS)
		return e;
	unsigned long long wrong = 0;
	for (unsigned long long i = 0; i < n; i++) {
		if (i % period == 0) {
			size_t left = total - (size_t)i * es, c = left < pb ? left : pb;
			if (!memcmp(p + (size_t)i * es, t, c)) {
				i += c / es - 1;
				continue;
			}
		}
		uint64_t got = elem(p + i * es, es), want = elem(t + (i % period) * es, es);
		if (got == want)
			continue;
		if (fk != BENCH_FK_EXACT) {
			double g = elem_float(got, fk), w = elem_float(want, fk);
			if (fabs(g - w) <= fabs(w) * tol || fabs(g - w) <= tol) /* tol x max(|w|, 1) */
				continue;
		}
		wrong++;
	}
	*(unsigned long long *)(uintptr_t)cnt += wrong;
	return CUDA_SUCCESS;
}

FG_API CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
			       unsigned shmem, CUstream s, void **params, void **extra)
{
	(void)gy; (void)gz; (void)by; (void)bz; (void)shmem; (void)s; (void)extra;
	NEED_INIT();
	if (cur_dev < 0)
		return CUDA_ERROR_INVALID_CONTEXT;
	if (!f || !params || gx == 0 || bx == 0 || bx > 1024)
		return CUDA_ERROR_INVALID_VALUE;
	TOUCH(cur_dev);
	CUresult e;
	switch (f->k) {
	case K_BFILL:
	case K_BCHECK:
		return bench_kernel(f->k, params);
	case K_FILL: {
		CUdeviceptr d = *(CUdeviceptr *)params[0];
		unsigned long long n = *(unsigned long long *)params[1];
		uint32_t seed = *(uint32_t *)params[2];
		if ((e = reach(ptr_dev(d))) != CUDA_SUCCESS)
			return e;
		uint32_t *p = (uint32_t *)(uintptr_t)d;
		for (unsigned long long i = 0; i < n; i++)
			p[i] = nd_pattern(i, seed);
		sm_peer_faults(ptr_dev(d), (unsigned char *)p, n * 4);
		clock_ms += kernel_ms(ptr_dev(d), n * 4);
		return CUDA_SUCCESS;
	}
	case K_VERIFY: {
		CUdeviceptr d = *(CUdeviceptr *)params[0];
		unsigned long long n = *(unsigned long long *)params[1];
		uint32_t seed = *(uint32_t *)params[2];
		CUdeviceptr bad = *(CUdeviceptr *)params[3];
		if ((e = reach(ptr_dev(d))) != CUDA_SUCCESS || (e = reach(ptr_dev(bad))) != CUDA_SUCCESS)
			return e;
		if (ptr_dev(d) != cur_dev && fg_scenario()->p2p_hang[cur_dev][ptr_dev(d)])
			fg_hang("a verify kernel's peer loads");
		const uint32_t *p = (const uint32_t *)(uintptr_t)d;
		unsigned long long *b = (unsigned long long *)(uintptr_t)bad;
		for (unsigned long long i = 0; i < n; i++)
			if (p[i] != nd_pattern(i, seed)) {
				if (i < *b)
					*b = i;
				break;
			}
		clock_ms += kernel_ms(ptr_dev(d), n * 4);
		return CUDA_SUCCESS;
	}
	case K_COPY: {
		CUdeviceptr d = *(CUdeviceptr *)params[0], sp = *(CUdeviceptr *)params[1];
		unsigned long long n = *(unsigned long long *)params[2];
		if ((e = reach(ptr_dev(d))) != CUDA_SUCCESS || (e = reach(ptr_dev(sp))) != CUDA_SUCCESS)
			return e;
		int peer = ptr_dev(d) != cur_dev ? ptr_dev(d) : ptr_dev(sp);
		if (peer != cur_dev && fg_scenario()->p2p_hang[cur_dev][peer])
			fg_hang("a copy kernel's peer loads and stores");
		memmove((void *)(uintptr_t)d, (const void *)(uintptr_t)sp, n * 16);
		sm_peer_faults(peer, (unsigned char *)(uintptr_t)d, n * 16);
		clock_ms += kernel_ms(peer, n * 16);
		return CUDA_SUCCESS;
	}
	}
	return CUDA_ERROR_INVALID_VALUE;
}

/* With peer access enabled between the two (either way) the copy takes the
 * P2P path, where the p2p faults live; otherwise the driver stages it
 * through host memory (HOST_STAGED_BW). */
static CUresult peer_copy(CUdeviceptr dst, CUdeviceptr src, size_t n, int a, int b, const char *what)
{
	const struct fg_scenario *sc = fg_scenario();
	TOUCH(a);
	TOUCH(b);
	bool direct = a != b && (peer_on[a][b] || peer_on[b][a]);
	if (direct && sc->p2p_hang[a][b])
		fg_hang(what);
	memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n);
	if (direct && sc->p2p_corrupt[a][b])
		for (size_t i = 0; i < n; i += 4096)
			((unsigned char *)(uintptr_t)dst)[i] ^= 0x5a;
	if (a == b)
		clock_ms += n / LOCAL_BW * 1e3 + 0.003;
	else if (direct)
		clock_ms += n / (fg_link_bw(sc->link[a][b], sc->nvl[a][b]) / (sc->p2p_slow[a][b] ? 20 : 1)) * 1e3 + 0.008;
	else
		clock_ms += n / HOST_STAGED_BW * 1e3 + 0.012;
	return CUDA_SUCCESS;
}

FG_API CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t n, CUstream s)
{
	(void)s;
	NEED_INIT();
	if (!dctx || !sctx)
		return CUDA_ERROR_INVALID_CONTEXT;
	return peer_copy(dst, src, n, sctx->dev, dctx->dev, "cuMemcpyPeerAsync");
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
FG_API CUresult cuStreamQuery(CUstream s) { (void)s; NEED_INIT(); return stream_busy() ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
FG_API CUresult cuStreamSynchronize(CUstream s) { (void)s; NEED_INIT(); wait_idle(); return CUDA_SUCCESS; }
FG_API CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) { (void)s; (void)e; (void)flags; NEED_INIT(); return CUDA_SUCCESS; }
FG_API CUresult cuStreamDestroy_v2(CUstream s) { NEED_INIT(); free(s); return CUDA_SUCCESS; }

FG_API CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode)
{
	NEED_INIT();
	if (!s || s->capturing || mode < 0 || mode > 2)
		return CUDA_ERROR_INVALID_VALUE; /* the legacy stream cannot be captured */
	s->capturing = true;
	s->capture_ms = clock_ms;
	return CUDA_SUCCESS;
}

FG_API CUresult cuStreamEndCapture(CUstream s, CUgraph *g)
{
	NEED_INIT();
	if (!s || !s->capturing || !g)
		return CUDA_ERROR_INVALID_VALUE;
	s->capturing = false;
	*g = calloc(1, sizeof(**g));
	if (!*g)
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*g)->ms = clock_ms - s->capture_ms;
	clock_ms = s->capture_ms; /* nothing ran during the capture */
	return CUDA_SUCCESS;
}

FG_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *e, CUgraph g, unsigned long long flags)
{
	(void)flags;
	NEED_INIT();
	if (!e || !g)
		return CUDA_ERROR_INVALID_VALUE;
	*e = calloc(1, sizeof(**e));
	if (!*e)
		return CUDA_ERROR_OUT_OF_MEMORY;
	(*e)->ms = g->ms;
	return CUDA_SUCCESS;
}

FG_API CUresult cuGraphLaunch(CUgraphExec e, CUstream s)
{
	NEED_INIT();
	if (!e || (s && s->capturing))
		return CUDA_ERROR_INVALID_VALUE;
	clock_ms += e->ms + 0.002; /* the launch itself: 2 us */
	return CUDA_SUCCESS;
}

FG_API CUresult cuGraphExecDestroy(CUgraphExec e) { NEED_INIT(); free(e); return CUDA_SUCCESS; }
FG_API CUresult cuGraphDestroy(CUgraph g) { NEED_INIT(); free(g); return CUDA_SUCCESS; }

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
FG_API CUresult cuEventQuery(CUevent e) { (void)e; NEED_INIT(); return stream_busy() ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
FG_API CUresult cuEventSynchronize(CUevent e) { (void)e; NEED_INIT(); wait_idle(); return CUDA_SUCCESS; }
FG_API CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b)
{
	NEED_INIT();
	if (!a->recorded || !b->recorded)
		return CUDA_ERROR_INVALID_VALUE;
	*ms = (float)(b->t_ms - a->t_ms);
	return CUDA_SUCCESS;
}
FG_API CUresult cuEventDestroy_v2(CUevent e) { NEED_INIT(); free(e); return CUDA_SUCCESS; }
