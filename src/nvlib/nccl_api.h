/* Our own declarations of the NCCL API subset nccl-doctor uses (no nccl.h
 * at build time), from nccl.h of NCCL 2.x; tests/abi checks them against the
 * real header where one is installed.
 *
 * ND_NCCL_SYMBOLS: X(field, required, since, return, (params), newest,
 * "older"... | NULL) (see cuda_api.h for the form and ND_VENDOR_REAL_TYPES).
 * `since` is the NCCL_VERSION_CODE that introduced the call: a call newer
 * than the loaded library's ncclGetVersion is not resolved even when the
 * symbol is there (nccl_has() says whether it may be used), the way
 * nccl-tests gates on test_ncclVersion. */
#ifndef ND_NVLIB_NCCL_API_H
#define ND_NVLIB_NCCL_API_H
#include <stddef.h>

#ifndef ND_VENDOR_REAL_TYPES
typedef int ncclResult_t;
typedef struct ncclComm *ncclComm_t;
typedef struct ncclWindow_vidmem *ncclWindow_t; /* 2.27 */
typedef int ncclDataType_t;
typedef int ncclRedOp_t;
typedef void *cudaStream_t; /* the same handle as CUstream */

#define NCCL_UNIQUE_ID_BYTES 128
typedef struct {
	char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;

enum {
	ncclSuccess = 0,
	ncclUnhandledCudaError = 1,
	ncclSystemError = 2,
	ncclInternalError = 3,
	ncclInvalidArgument = 4,
	ncclInvalidUsage = 5,
	ncclRemoteError = 6,
	ncclInProgress = 7,
};

enum {
	ncclInt8 = 0, ncclUint8 = 1, ncclInt32 = 2, ncclUint32 = 3, ncclInt64 = 4,
	ncclUint64 = 5, ncclFloat16 = 6, ncclFloat32 = 7, ncclFloat64 = 8, ncclBfloat16 = 9,
};
enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 };

/* ncclConfig_t as of NCCL 2.28 (nccl.h: ncclConfig_v22800 prefix). Newer
 * releases only append members, and NCCL copies min(size, its sizeof) bytes
 * and ignores members newer than `version`, so this prefix is valid for every
 * release since 2.14 (ncclCommInitRankConfig). Initialise with
 * ND_NCCL_CONFIG_INIT (NCCL_CONFIG_INITIALIZER). */
typedef struct {
	size_t size;
	unsigned int magic;
	unsigned int version;
	int blocking;
	int cgaClusterSize;
	int minCTAs;
	int maxCTAs;
	const char *netName;
	int splitShare;
	int trafficClass;     /* 2.25 */
	const char *commName; /* 2.25 */
	int collnetEnable;    /* 2.27 */
	int CTAPolicy;
	int shrinkShare;
	int nvlsCTAs;
	int nChannelsPerNetPeer; /* 2.28 */
	int nvlinkCentricSched;
} ncclConfig_t;
#endif /* ND_VENDOR_REAL_TYPES */

#define ND_NCCL_API_MAGIC 0xcafebeefu
#define ND_NCCL_CONFIG_UNDEF_INT (-2147483647 - 1) /* INT_MIN */
/* NCCL_CONFIG_INITIALIZER for the 2.28 layout above */
#define ND_NCCL_CONFIG_INIT { sizeof(ncclConfig_t), ND_NCCL_API_MAGIC, ND_NCCL_VERSION(2, 28, 0), \
	ND_NCCL_CONFIG_UNDEF_INT, ND_NCCL_CONFIG_UNDEF_INT, ND_NCCL_CONFIG_UNDEF_INT, ND_NCCL_CONFIG_UNDEF_INT, NULL, \
	ND_NCCL_CONFIG_UNDEF_INT, ND_NCCL_CONFIG_UNDEF_INT, NULL, ND_NCCL_CONFIG_UNDEF_INT, ND_NCCL_CONFIG_UNDEF_INT, \
	ND_NCCL_CONFIG_UNDEF_INT, ND_NCCL_CONFIG_UNDEF_INT, ND_NCCL_CONFIG_UNDEF_INT, ND_NCCL_CONFIG_UNDEF_INT }

/* NCCL_VERSION(X,Y,Z) of nccl.h: X*1000+Y*100+Z before 2.9, X*10000+Y*100+Z since */
#define ND_NCCL_VERSION(x, y, z) ((x) <= 2 && (y) <= 8 ? (x) * 1000 + (y) * 100 + (z) : (x) * 10000 + (y) * 100 + (z))

#define ND_NCCL_SYMBOLS(X) \
	X(ncclGetVersion, 1, 0, ncclResult_t, (int *version), ncclGetVersion, NULL) \
	X(ncclGetErrorString, 1, 0, const char *, (ncclResult_t r), ncclGetErrorString, NULL) \
	X(ncclGetLastError, 0, ND_NCCL_VERSION(2, 13, 0), const char *, (ncclComm_t comm), ncclGetLastError, NULL) \
	X(ncclGetUniqueId, 1, 0, ncclResult_t, (ncclUniqueId *id), ncclGetUniqueId, NULL) \
	X(ncclCommInitRank, 1, 0, ncclResult_t, (ncclComm_t *comm, int nranks, ncclUniqueId id, int rank), ncclCommInitRank, NULL) \
	X(ncclCommDestroy, 1, 0, ncclResult_t, (ncclComm_t comm), ncclCommDestroy, NULL) \
	X(ncclCommAbort, 1, 0, ncclResult_t, (ncclComm_t comm), ncclCommAbort, NULL) \
	X(ncclCommFinalize, 0, ND_NCCL_VERSION(2, 14, 0), ncclResult_t, (ncclComm_t comm), ncclCommFinalize, NULL) \
	X(ncclCommGetAsyncError, 1, 0, ncclResult_t, (ncclComm_t comm, ncclResult_t *err), ncclCommGetAsyncError, NULL) \
	X(ncclCommCount, 1, 0, ncclResult_t, (const ncclComm_t comm, int *count), ncclCommCount, NULL) \
	X(ncclCommCuDevice, 1, 0, ncclResult_t, (const ncclComm_t comm, int *dev), ncclCommCuDevice, NULL) \
	X(ncclCommUserRank, 1, 0, ncclResult_t, (const ncclComm_t comm, int *rank), ncclCommUserRank, NULL) \
	X(ncclAllReduce, 1, 0, ncclResult_t, (const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, cudaStream_t st), ncclAllReduce, NULL) \
	X(ncclBroadcast, 1, 0, ncclResult_t, (const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st), ncclBroadcast, NULL) \
	X(ncclReduce, 1, 0, ncclResult_t, (const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op, int root, ncclComm_t c, cudaStream_t st), ncclReduce, NULL) \
	X(ncclAllGather, 1, 0, ncclResult_t, (const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st), ncclAllGather, NULL) \
	X(ncclReduceScatter, 1, 0, ncclResult_t, (const void *s, void *r, size_t n, ncclDataType_t t, ncclRedOp_t op, ncclComm_t c, cudaStream_t st), ncclReduceScatter, NULL) \
	X(ncclSend, 0, ND_NCCL_VERSION(2, 7, 0), ncclResult_t, (const void *s, size_t n, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st), ncclSend, NULL) \
	X(ncclRecv, 0, ND_NCCL_VERSION(2, 7, 0), ncclResult_t, (void *r, size_t n, ncclDataType_t t, int peer, ncclComm_t c, cudaStream_t st), ncclRecv, NULL) \
	X(ncclAlltoAll, 0, ND_NCCL_VERSION(2, 28, 0), ncclResult_t, (const void *s, void *r, size_t n, ncclDataType_t t, ncclComm_t c, cudaStream_t st), ncclAlltoAll, NULL) \
	X(ncclGather, 0, ND_NCCL_VERSION(2, 28, 0), ncclResult_t, (const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st), ncclGather, NULL) \
	X(ncclScatter, 0, ND_NCCL_VERSION(2, 28, 0), ncclResult_t, (const void *s, void *r, size_t n, ncclDataType_t t, int root, ncclComm_t c, cudaStream_t st), ncclScatter, NULL) \
	X(ncclGroupStart, 1, 0, ncclResult_t, (void), ncclGroupStart, NULL) \
	X(ncclGroupEnd, 1, 0, ncclResult_t, (void), ncclGroupEnd, NULL) \
	X(ncclCommInitRankConfig, 0, ND_NCCL_VERSION(2, 14, 0), ncclResult_t, (ncclComm_t *comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t *config), ncclCommInitRankConfig, NULL) \
	X(ncclCommSplit, 0, ND_NCCL_VERSION(2, 18, 0), ncclResult_t, (ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config), ncclCommSplit, NULL) \
	X(ncclMemAlloc, 0, ND_NCCL_VERSION(2, 19, 0), ncclResult_t, (void **ptr, size_t size), ncclMemAlloc, NULL) \
	X(ncclMemFree, 0, ND_NCCL_VERSION(2, 19, 0), ncclResult_t, (void *ptr), ncclMemFree, NULL) \
	X(ncclCommRegister, 0, ND_NCCL_VERSION(2, 19, 0), ncclResult_t, (const ncclComm_t comm, void *buff, size_t size, void **handle), ncclCommRegister, NULL) \
	X(ncclCommDeregister, 0, ND_NCCL_VERSION(2, 19, 0), ncclResult_t, (const ncclComm_t comm, void *handle), ncclCommDeregister, NULL) \
	X(ncclCommWindowRegister, 0, ND_NCCL_VERSION(2, 27, 0), ncclResult_t, (ncclComm_t comm, void *buff, size_t size, ncclWindow_t *win, int winFlags), ncclCommWindowRegister, NULL) \
	X(ncclCommWindowDeregister, 0, ND_NCCL_VERSION(2, 27, 0), ncclResult_t, (ncclComm_t comm, ncclWindow_t win), ncclCommWindowDeregister, NULL)

#define ND_NCCL_WIN_COLL_SYMMETRIC 0x01 /* NCCL_WIN_COLL_SYMMETRIC of nccl.h 2.27 */

#define ND_X_FIELD(f, req, since, ret, params, ...) ret (*f) params;
struct nccl_api {
	ND_NCCL_SYMBOLS(ND_X_FIELD)
};
#undef ND_X_FIELD

#endif
