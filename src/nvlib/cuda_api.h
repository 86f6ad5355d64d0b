/* Our own declarations of the CUDA driver API subset nccl-doctor uses (no
 * cuda.h at build time). Types and enum values follow cuda.h of CUDA 12/13;
 * tests/abi checks them against the real header where it is installed.
 *
 * ND_CUDA_SYMBOLS lists every entry point once:
 *   X(field, required, return type, (parameters), newest, "older name"... | NULL)
 * It generates the pointer table (struct cuda_api) and the name table the
 * loader walks; names are tried newest first (cuMemAlloc_v2 before cuMemAlloc,
 * as cuda.h's #define cuMemAlloc cuMemAlloc_v2 does since CUDA 3.2). The
 * newest name is an identifier so that tests/abi can check each signature
 * against the real prototype: there the real header provides the types and
 * ND_VENDOR_REAL_TYPES hides ours. */
#ifndef ND_NVLIB_CUDA_API_H
#define ND_NVLIB_CUDA_API_H
#include <stddef.h>

#ifndef ND_VENDOR_REAL_TYPES
typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef int CUdevice_attribute;
typedef int CUdevice_P2PAttribute;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef int CUstreamCaptureMode;

enum {
	CUDA_SUCCESS = 0,
	CUDA_ERROR_INVALID_VALUE = 1,
	CUDA_ERROR_OUT_OF_MEMORY = 2,
	CUDA_ERROR_NOT_INITIALIZED = 3,
	CUDA_ERROR_DEINITIALIZED = 4,
	CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
	CUDA_ERROR_NO_DEVICE = 100,
	CUDA_ERROR_INVALID_DEVICE = 101,
	CUDA_ERROR_INVALID_CONTEXT = 201,
	CUDA_ERROR_ECC_UNCORRECTABLE = 214,
	CUDA_ERROR_PEER_ACCESS_UNSUPPORTED = 217,
	CUDA_ERROR_INVALID_PTX = 218,
	CUDA_ERROR_NVLINK_UNCORRECTABLE = 220,
	CUDA_ERROR_OPERATING_SYSTEM = 304,
	CUDA_ERROR_NOT_FOUND = 500,
	CUDA_ERROR_NOT_READY = 600,
	CUDA_ERROR_ILLEGAL_ADDRESS = 700,
	CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704,
	CUDA_ERROR_PEER_ACCESS_NOT_ENABLED = 705,
	CUDA_ERROR_LAUNCH_FAILED = 719,
	CUDA_ERROR_NOT_SUPPORTED = 801,
	CUDA_ERROR_SYSTEM_NOT_READY = 802,
	CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
	CUDA_ERROR_TIMEOUT = 909,
	CUDA_ERROR_UNKNOWN = 999,
};

enum {
	CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
	CU_DEVICE_ATTRIBUTE_ECC_ENABLED = 32,
	CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
	CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
	CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING = 41,
	CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
	CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
	CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 102,
	CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED = 132, /* CUDA 12.1+: NVSwitch multicast (NVLS) */
};

enum {
	CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK = 1,
	CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED = 2,
	CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED = 3,
};

enum { CU_STREAM_NON_BLOCKING = 1 };
enum { CU_STREAM_CAPTURE_MODE_GLOBAL = 0, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL = 1, CU_STREAM_CAPTURE_MODE_RELAXED = 2 };
enum { CU_EVENT_DEFAULT = 0, CU_EVENT_BLOCKING_SYNC = 1, CU_EVENT_DISABLE_TIMING = 2 };
#endif /* ND_VENDOR_REAL_TYPES */

#define ND_CUDA_SYMBOLS(X) \
	X(cuInit, 1, CUresult, (unsigned int flags), cuInit, NULL) \
	X(cuDriverGetVersion, 1, CUresult, (int *version), cuDriverGetVersion, NULL) \
	X(cuGetErrorString, 1, CUresult, (CUresult err, const char **str), cuGetErrorString, NULL) \
	X(cuGetErrorName, 1, CUresult, (CUresult err, const char **str), cuGetErrorName, NULL) \
	X(cuDeviceGetCount, 1, CUresult, (int *count), cuDeviceGetCount, NULL) \
	X(cuDeviceGet, 1, CUresult, (CUdevice *dev, int ordinal), cuDeviceGet, NULL) \
	X(cuDeviceGetName, 1, CUresult, (char *name, int len, CUdevice dev), cuDeviceGetName, NULL) \
	X(cuDeviceGetAttribute, 1, CUresult, (int *pi, CUdevice_attribute attrib, CUdevice dev), cuDeviceGetAttribute, NULL) \
	X(cuDeviceGetPCIBusId, 1, CUresult, (char *busid, int len, CUdevice dev), cuDeviceGetPCIBusId, NULL) \
	X(cuDeviceTotalMem, 1, CUresult, (size_t *bytes, CUdevice dev), cuDeviceTotalMem_v2, "cuDeviceTotalMem") \
	X(cuDeviceCanAccessPeer, 1, CUresult, (int *can, CUdevice dev, CUdevice peer), cuDeviceCanAccessPeer, NULL) \
	X(cuDeviceGetP2PAttribute, 0, CUresult, (int *value, CUdevice_P2PAttribute attrib, CUdevice src, CUdevice dst), cuDeviceGetP2PAttribute, NULL) \
	X(cuDevicePrimaryCtxRetain, 1, CUresult, (CUcontext *ctx, CUdevice dev), cuDevicePrimaryCtxRetain, NULL) \
	X(cuDevicePrimaryCtxRelease, 1, CUresult, (CUdevice dev), cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease") \
	X(cuCtxSetCurrent, 1, CUresult, (CUcontext ctx), cuCtxSetCurrent, NULL) \
	X(cuCtxSynchronize, 1, CUresult, (void), cuCtxSynchronize, NULL) \
	X(cuCtxEnablePeerAccess, 1, CUresult, (CUcontext peer, unsigned int flags), cuCtxEnablePeerAccess, NULL) \
	X(cuMemGetInfo, 1, CUresult, (size_t *free_b, size_t *total), cuMemGetInfo_v2, "cuMemGetInfo") \
	X(cuMemAlloc, 1, CUresult, (CUdeviceptr *dptr, size_t bytes), cuMemAlloc_v2, "cuMemAlloc") \
	X(cuMemFree, 1, CUresult, (CUdeviceptr dptr), cuMemFree_v2, "cuMemFree") \
	X(cuMemcpyHtoD, 1, CUresult, (CUdeviceptr dst, const void *src, size_t bytes), cuMemcpyHtoD_v2, "cuMemcpyHtoD") \
	X(cuMemcpyDtoH, 1, CUresult, (void *dst, CUdeviceptr src, size_t bytes), cuMemcpyDtoH_v2, "cuMemcpyDtoH") \
	X(cuMemcpyPeerAsync, 1, CUresult, (CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx, size_t bytes, CUstream s), cuMemcpyPeerAsync, NULL) \
	X(cuMemsetD8, 1, CUresult, (CUdeviceptr dst, unsigned char v, size_t n), cuMemsetD8_v2, "cuMemsetD8") \
	X(cuStreamCreate, 1, CUresult, (CUstream *s, unsigned int flags), cuStreamCreate, NULL) \
	X(cuStreamQuery, 1, CUresult, (CUstream s), cuStreamQuery, NULL) \
	X(cuStreamSynchronize, 1, CUresult, (CUstream s), cuStreamSynchronize, NULL) \
	X(cuStreamWaitEvent, 1, CUresult, (CUstream s, CUevent e, unsigned int flags), cuStreamWaitEvent, NULL) \
	X(cuStreamDestroy, 1, CUresult, (CUstream s), cuStreamDestroy_v2, "cuStreamDestroy") \
	X(cuEventCreate, 1, CUresult, (CUevent *e, unsigned int flags), cuEventCreate, NULL) \
	X(cuEventRecord, 1, CUresult, (CUevent e, CUstream s), cuEventRecord, NULL) \
	X(cuEventQuery, 1, CUresult, (CUevent e), cuEventQuery, NULL) \
	X(cuEventSynchronize, 1, CUresult, (CUevent e), cuEventSynchronize, NULL) \
	X(cuEventElapsedTime, 1, CUresult, (float *ms, CUevent start, CUevent end), cuEventElapsedTime_v2, "cuEventElapsedTime") \
	X(cuEventDestroy, 1, CUresult, (CUevent e), cuEventDestroy_v2, "cuEventDestroy") \
	X(cuCtxDisablePeerAccess, 1, CUresult, (CUcontext peer), cuCtxDisablePeerAccess, NULL) \
	X(cuMemAllocHost, 1, CUresult, (void **pp, size_t bytes), cuMemAllocHost_v2, "cuMemAllocHost") \
	X(cuMemFreeHost, 1, CUresult, (void *p), cuMemFreeHost, NULL) \
	X(cuMemcpyHtoDAsync, 1, CUresult, (CUdeviceptr dst, const void *src, size_t bytes, CUstream s), cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync") \
	X(cuMemcpyDtoHAsync, 1, CUresult, (void *dst, CUdeviceptr src, size_t bytes, CUstream s), cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync") \
	X(cuMemcpyDtoDAsync, 1, CUresult, (CUdeviceptr dst, CUdeviceptr src, size_t bytes, CUstream s), cuMemcpyDtoDAsync_v2, "cuMemcpyDtoDAsync") \
	X(cuMemsetD32Async, 1, CUresult, (CUdeviceptr dst, unsigned int v, size_t n, CUstream s), cuMemsetD32Async, NULL) \
	X(cuModuleLoadData, 1, CUresult, (CUmodule *mod, const void *image), cuModuleLoadData, NULL) \
	X(cuModuleGetFunction, 1, CUresult, (CUfunction *f, CUmodule mod, const char *name), cuModuleGetFunction, NULL) \
	X(cuModuleUnload, 1, CUresult, (CUmodule mod), cuModuleUnload, NULL) \
	X(cuLaunchKernel, 1, CUresult, (CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void **params, void **extra), cuLaunchKernel, NULL) \
	X(cuStreamBeginCapture, 0, CUresult, (CUstream s, CUstreamCaptureMode mode), cuStreamBeginCapture_v2, NULL) \
	X(cuStreamEndCapture, 0, CUresult, (CUstream s, CUgraph *graph), cuStreamEndCapture, NULL) \
	X(cuGraphInstantiate, 0, CUresult, (CUgraphExec *exec, CUgraph graph, unsigned long long flags), cuGraphInstantiateWithFlags, NULL) \
	X(cuGraphLaunch, 0, CUresult, (CUgraphExec exec, CUstream s), cuGraphLaunch, NULL) \
	X(cuGraphExecDestroy, 0, CUresult, (CUgraphExec exec), cuGraphExecDestroy, NULL) \
	X(cuGraphDestroy, 0, CUresult, (CUgraph graph), cuGraphDestroy, NULL)

#define ND_X_FIELD(f, req, ret, params, ...) ret (*f) params;
struct cuda_api {
	ND_CUDA_SYMBOLS(ND_X_FIELD)
};
#undef ND_X_FIELD

#endif
