/* Our own declarations of the NVML subset nccl-doctor uses (no nvml.h at
 * build time), from the public NVML API reference (docs.nvidia.com/deploy/
 * nvml-api) and nvml.h as shipped with drivers 525-580. tests/abi checks them
 * against a real nvml.h where one is installed.
 *
 * ND_NVML_SYMBOLS: X(field, required, return, (params), newest, "older"... | NULL)
 * (see cuda_api.h for the form and ND_VENDOR_REAL_TYPES).
 * Versioned structs carry `version = sizeof(struct) | N << 24`
 * (NVML_STRUCT_VERSION in nvml.h), never plain N. */
#ifndef ND_NVLIB_NVML_API_H
#define ND_NVLIB_NVML_API_H

#ifndef ND_VENDOR_REAL_TYPES
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef int nvmlEnableState_t;
typedef int nvmlGpuTopologyLevel_t;
typedef int nvmlGpuP2PCapsIndex_t;
typedef int nvmlGpuP2PStatus_t;
typedef int nvmlIntNvLinkDeviceType_t;
typedef unsigned int nvmlAffinityScope_t;
#define NVML_AFFINITY_SCOPE_NODE 0 /* NUMA node scope of the affinity calls */

enum {
	NVML_SUCCESS = 0,
	NVML_ERROR_UNINITIALIZED = 1,
	NVML_ERROR_INVALID_ARGUMENT = 2,
	NVML_ERROR_NOT_SUPPORTED = 3,
	NVML_ERROR_NO_PERMISSION = 4,
	NVML_ERROR_ALREADY_INITIALIZED = 5,
	NVML_ERROR_NOT_FOUND = 6,
	NVML_ERROR_INSUFFICIENT_SIZE = 7,
	NVML_ERROR_DRIVER_NOT_LOADED = 9,
	NVML_ERROR_TIMEOUT = 10,
	NVML_ERROR_LIBRARY_NOT_FOUND = 12,
	NVML_ERROR_FUNCTION_NOT_FOUND = 13,
	NVML_ERROR_GPU_IS_LOST = 15,
	NVML_ERROR_RESET_REQUIRED = 16,
	NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,
	NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,
	NVML_ERROR_UNKNOWN = 999,
};

enum { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };

enum {
	NVML_TOPOLOGY_INTERNAL = 0,
	NVML_TOPOLOGY_SINGLE = 10,
	NVML_TOPOLOGY_MULTIPLE = 20,
	NVML_TOPOLOGY_HOSTBRIDGE = 30,
	NVML_TOPOLOGY_NODE = 40,
	NVML_TOPOLOGY_SYSTEM = 50,
};

enum {
	NVML_P2P_CAPS_INDEX_READ = 0,
	NVML_P2P_CAPS_INDEX_WRITE = 1,
	NVML_P2P_CAPS_INDEX_NVLINK = 2,
	NVML_P2P_CAPS_INDEX_ATOMICS = 3,
};

enum {
	NVML_P2P_STATUS_OK = 0,
	NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED = 1, /* sic, as in nvml.h */
	NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2,
	NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3,
	NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4,
	NVML_P2P_STATUS_NOT_SUPPORTED = 5,
	NVML_P2P_STATUS_UNKNOWN = 6,
};

enum {
	NVML_NVLINK_DEVICE_TYPE_GPU = 0,
	NVML_NVLINK_DEVICE_TYPE_IBMNPU = 1,
	NVML_NVLINK_DEVICE_TYPE_SWITCH = 2,
	NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xff,
};

/* links tried per GPU: nvml.h says 6, 12, 18 and (NVML 13) 36 over the years;
 * the loop stops at the first link NVML rejects, so the largest is safe */
#define NVML_NVLINK_MAX_LINKS 36
#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96
#define NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
#define NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE 80
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32
#define NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16

typedef struct nvmlPciInfo_st {
	char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];
	unsigned int domain;
	unsigned int bus;
	unsigned int device;
	unsigned int pciDeviceId;
	unsigned int pciSubSystemId;
	char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
} nvmlPciInfo_t;

typedef struct nvmlMemory_st {
	unsigned long long total;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_t;

/* nvmlDeviceGetMemoryInfo_v2 (driver 510+): reserved is split out of used */
typedef struct nvmlMemory_v2_st {
	unsigned int version;
	unsigned long long total;
	unsigned long long reserved;
	unsigned long long free;
	unsigned long long used;
} nvmlMemory_v2_t;
#define ND_NVML_STRUCT_VERSION(type, n) ((unsigned int)(sizeof(type) | ((n) << 24U)))
#define nvmlMemory_v2 ND_NVML_STRUCT_VERSION(nvmlMemory_v2_t, 2)

typedef struct nvmlBAR1Memory_st {
	unsigned long long bar1Total;
	unsigned long long bar1Free;
	unsigned long long bar1Used;
} nvmlBAR1Memory_t;

/* nvmlDeviceGetComputeRunningProcesses_v3's entry (nvml.h of driver 510+:
 * nvmlProcessInfo_v2_t, which nvmlProcessInfo_t names) */
typedef struct nvmlProcessInfo_st {
	unsigned int pid;
	unsigned long long usedGpuMemory;
	unsigned int gpuInstanceId;
	unsigned int computeInstanceId;
} nvmlProcessInfo_t;

typedef struct nvmlUtilization_st {
	unsigned int gpu;
	unsigned int memory;
} nvmlUtilization_t;
/* NVLink fabric (nvml.h, driver 525+; the V call and its health mask 535+,
 * v3 with healthSummary 570+). The state is an unsigned char; status is an
 * nvmlReturn_t and means something only in state COMPLETED. */
#define NVML_GPU_FABRIC_UUID_LEN 16
#define NVML_GPU_FABRIC_STATE_NOT_SUPPORTED 0
#define NVML_GPU_FABRIC_STATE_NOT_STARTED 1
#define NVML_GPU_FABRIC_STATE_IN_PROGRESS 2
#define NVML_GPU_FABRIC_STATE_COMPLETED 3
typedef unsigned char nvmlGpuFabricState_t;
typedef struct {
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status;
	unsigned int cliqueId;
	nvmlGpuFabricState_t state;
} nvmlGpuFabricInfo_t;
typedef struct {
	unsigned int version;
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status;
	unsigned int cliqueId;
	nvmlGpuFabricState_t state;
	unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;
typedef struct {
	unsigned int version;
	unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];
	nvmlReturn_t status;
	unsigned int cliqueId;
	nvmlGpuFabricState_t state;
	unsigned int healthMask;
	unsigned char healthSummary;
} nvmlGpuFabricInfo_v3_t;
typedef nvmlGpuFabricInfo_v3_t nvmlGpuFabricInfoV_t;
#define nvmlGpuFabricInfo_v2 ND_NVML_STRUCT_VERSION(nvmlGpuFabricInfo_v2_t, 2)
#define nvmlGpuFabricInfo_v3 ND_NVML_STRUCT_VERSION(nvmlGpuFabricInfo_v3_t, 3)
/* health mask fields: (mask >> SHIFT) & WIDTH; 1 means the bad case
 * (degraded, recovering, unhealthy) except INCORRECT_CONFIGURATION, where
 * 0 is "not supported", 1 "none" and 2..8 name the fault */
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW 0
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY 2
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY 4
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY 6
#define NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION 8
#define NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_INCORRECT_CONFIGURATION 0xf

typedef int nvmlNvLinkErrorCounter_t;
enum {
	NVML_NVLINK_ERROR_DL_REPLAY = 0,
	NVML_NVLINK_ERROR_DL_RECOVERY = 1,
	NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
	NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
};

/* nvmlDeviceGetFieldValues: scopeId is the link for the per-link fields */
typedef int nvmlValueType_t;
enum { NVML_VALUE_TYPE_DOUBLE = 0, NVML_VALUE_TYPE_UNSIGNED_INT = 1, NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
       NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3, NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4, NVML_VALUE_TYPE_SIGNED_INT = 5 };
typedef union nvmlValue_st {
	double dVal;
	int siVal;
	unsigned int uiVal;
	unsigned long ulVal;
	unsigned long long ullVal;
	signed long long sllVal;
	unsigned short usVal;
} nvmlValue_t;
typedef struct nvmlFieldValue_st {
	unsigned int fieldId;
	unsigned int scopeId;
	long long timestamp;
	long long latencyUsec;
	nvmlValueType_t valueType;
	nvmlReturn_t nvmlReturn;
	nvmlValue_t value;
} nvmlFieldValue_t;
#define NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON 90 /* common speed of the active links */
#define NVML_FI_DEV_NVLINK_LINK_COUNT 91        /* links the device has */
#define NVML_FI_DEV_NVLINK_GET_SPEED 164        /* per link (scopeId), driver 525+ */
#endif /* ND_VENDOR_REAL_TYPES */

#define ND_NVML_SYMBOLS(X) \
	X(nvmlInit, 1, nvmlReturn_t, (void), nvmlInit_v2, "nvmlInit") \
	X(nvmlShutdown, 1, nvmlReturn_t, (void), nvmlShutdown, NULL) \
	X(nvmlErrorString, 1, const char *, (nvmlReturn_t r), nvmlErrorString, NULL) \
	X(nvmlSystemGetDriverVersion, 1, nvmlReturn_t, (char *v, unsigned int len), nvmlSystemGetDriverVersion, NULL) \
	X(nvmlSystemGetCudaDriverVersion, 0, nvmlReturn_t, (int *v), nvmlSystemGetCudaDriverVersion_v2, "nvmlSystemGetCudaDriverVersion") \
	X(nvmlDeviceGetCount, 1, nvmlReturn_t, (unsigned int *n), nvmlDeviceGetCount_v2, "nvmlDeviceGetCount") \
	X(nvmlDeviceGetHandleByIndex, 1, nvmlReturn_t, (unsigned int i, nvmlDevice_t *d), nvmlDeviceGetHandleByIndex_v2, "nvmlDeviceGetHandleByIndex") \
	X(nvmlDeviceGetName, 1, nvmlReturn_t, (nvmlDevice_t d, char *name, unsigned int len), nvmlDeviceGetName, NULL) \
	X(nvmlDeviceGetUUID, 1, nvmlReturn_t, (nvmlDevice_t d, char *uuid, unsigned int len), nvmlDeviceGetUUID, NULL) \
	X(nvmlDeviceGetPciInfo, 1, nvmlReturn_t, (nvmlDevice_t d, nvmlPciInfo_t *pci), nvmlDeviceGetPciInfo_v3, "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo") \
	X(nvmlDeviceGetMemoryInfo, 1, nvmlReturn_t, (nvmlDevice_t d, nvmlMemory_t *m), nvmlDeviceGetMemoryInfo, NULL) \
	X(nvmlDeviceGetMemoryInfo_v2, 0, nvmlReturn_t, (nvmlDevice_t d, nvmlMemory_v2_t *m), nvmlDeviceGetMemoryInfo_v2, NULL) \
	X(nvmlDeviceGetBAR1MemoryInfo, 0, nvmlReturn_t, (nvmlDevice_t d, nvmlBAR1Memory_t *m), nvmlDeviceGetBAR1MemoryInfo, NULL) \
	X(nvmlDeviceGetCurrPcieLinkGeneration, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int *v), nvmlDeviceGetCurrPcieLinkGeneration, NULL) \
	X(nvmlDeviceGetMaxPcieLinkGeneration, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int *v), nvmlDeviceGetMaxPcieLinkGeneration, NULL) \
	X(nvmlDeviceGetCurrPcieLinkWidth, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int *v), nvmlDeviceGetCurrPcieLinkWidth, NULL) \
	X(nvmlDeviceGetMaxPcieLinkWidth, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int *v), nvmlDeviceGetMaxPcieLinkWidth, NULL) \
	X(nvmlDeviceGetPersistenceMode, 0, nvmlReturn_t, (nvmlDevice_t d, nvmlEnableState_t *m), nvmlDeviceGetPersistenceMode, NULL) \
	X(nvmlDeviceGetMigMode, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int *cur, unsigned int *pending), nvmlDeviceGetMigMode, NULL) \
	X(nvmlDeviceGetEccMode, 0, nvmlReturn_t, (nvmlDevice_t d, nvmlEnableState_t *cur, nvmlEnableState_t *pending), nvmlDeviceGetEccMode, NULL) \
	X(nvmlDeviceGetRemappedRows, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int *corr, unsigned int *unc, unsigned int *pending, unsigned int *failed), nvmlDeviceGetRemappedRows, NULL) \
	X(nvmlDeviceGetMemoryAffinity, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int n, unsigned long *set, nvmlAffinityScope_t scope), nvmlDeviceGetMemoryAffinity, NULL) \
	X(nvmlDeviceGetNumaNodeId, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int *node), nvmlDeviceGetNumaNodeId, NULL) \
	X(nvmlDeviceGetCpuAffinity, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int n, unsigned long *set), nvmlDeviceGetCpuAffinity, NULL) \
	X(nvmlDeviceGetTopologyCommonAncestor, 1, nvmlReturn_t, (nvmlDevice_t a, nvmlDevice_t b, nvmlGpuTopologyLevel_t *l), nvmlDeviceGetTopologyCommonAncestor, NULL) \
	X(nvmlDeviceGetP2PStatus, 1, nvmlReturn_t, (nvmlDevice_t a, nvmlDevice_t b, nvmlGpuP2PCapsIndex_t i, nvmlGpuP2PStatus_t *s), nvmlDeviceGetP2PStatus, NULL) \
	X(nvmlDeviceGetNvLinkState, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int link, nvmlEnableState_t *a), nvmlDeviceGetNvLinkState, NULL) \
	X(nvmlDeviceGetNvLinkRemotePciInfo, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *pci), nvmlDeviceGetNvLinkRemotePciInfo_v2, "nvmlDeviceGetNvLinkRemotePciInfo") \
	X(nvmlDeviceGetNvLinkRemoteDeviceType, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int link, nvmlIntNvLinkDeviceType_t *t), nvmlDeviceGetNvLinkRemoteDeviceType, NULL) \
	X(nvmlDeviceGetComputeRunningProcesses, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int *count, nvmlProcessInfo_t *infos), nvmlDeviceGetComputeRunningProcesses_v3, NULL) \
	X(nvmlDeviceGetUtilizationRates, 0, nvmlReturn_t, (nvmlDevice_t d, nvmlUtilization_t *u), nvmlDeviceGetUtilizationRates, NULL) \
	X(nvmlDeviceGetGpuFabricInfoV, 0, nvmlReturn_t, (nvmlDevice_t d, nvmlGpuFabricInfoV_t *f), nvmlDeviceGetGpuFabricInfoV, NULL) \
	X(nvmlDeviceGetGpuFabricInfo, 0, nvmlReturn_t, (nvmlDevice_t d, nvmlGpuFabricInfo_t *f), nvmlDeviceGetGpuFabricInfo, NULL) \
	X(nvmlDeviceGetNvLinkVersion, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int link, unsigned int *v), nvmlDeviceGetNvLinkVersion, NULL) \
	X(nvmlDeviceGetNvLinkErrorCounter, 0, nvmlReturn_t, (nvmlDevice_t d, unsigned int link, nvmlNvLinkErrorCounter_t c, unsigned long long *v), nvmlDeviceGetNvLinkErrorCounter, NULL) \
	X(nvmlDeviceGetFieldValues, 0, nvmlReturn_t, (nvmlDevice_t d, int n, nvmlFieldValue_t *v), nvmlDeviceGetFieldValues, NULL)

#define ND_X_FIELD(f, req, ret, params, ...) ret (*f) params;
struct nvml_api {
	ND_NVML_SYMBOLS(ND_X_FIELD)
};
#undef ND_X_FIELD

#endif
