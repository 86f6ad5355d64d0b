/* What the ABI test compares between our declarations (src/nvlib/{cuda,nccl,nvml}_api.h)
 * and the real headers: C(constant), S(type) for sizeof, O(type, member)
 * for offsetof. Each list is expanded once in abi_ours.c and once in
 * abi_real.c; test_abi.c compares the two tables entry by entry. Limits that
 * grow between releases (NVML_NVLINK_MAX_LINKS: 18, then 36 in NVML 13) are
 * not ABI and are left out. */
#ifndef ND_ABI_LIST_H
#define ND_ABI_LIST_H
#include <stddef.h>

struct abi_entry {
	const char *what;
	long long value;
};

#define ND_ABI_CUDA(C, S, O) \
	C(CUDA_SUCCESS) C(CUDA_ERROR_INVALID_VALUE) C(CUDA_ERROR_OUT_OF_MEMORY) C(CUDA_ERROR_NOT_INITIALIZED) \
	C(CUDA_ERROR_DEINITIALIZED) C(CUDA_ERROR_DEVICE_UNAVAILABLE) C(CUDA_ERROR_NO_DEVICE) \
	C(CUDA_ERROR_INVALID_DEVICE) C(CUDA_ERROR_INVALID_CONTEXT) C(CUDA_ERROR_ECC_UNCORRECTABLE) \
	C(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED) C(CUDA_ERROR_INVALID_PTX) C(CUDA_ERROR_NOT_FOUND) C(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED) C(CUDA_ERROR_NVLINK_UNCORRECTABLE) C(CUDA_ERROR_OPERATING_SYSTEM) \
	C(CUDA_ERROR_NOT_READY) C(CUDA_ERROR_ILLEGAL_ADDRESS) C(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) \
	C(CUDA_ERROR_LAUNCH_FAILED) C(CUDA_ERROR_NOT_SUPPORTED) C(CUDA_ERROR_SYSTEM_NOT_READY) \
	C(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH) C(CUDA_ERROR_TIMEOUT) C(CUDA_ERROR_UNKNOWN) \
	C(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT) C(CU_DEVICE_ATTRIBUTE_ECC_ENABLED) C(CU_DEVICE_ATTRIBUTE_PCI_BUS_ID) \
	C(CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID) C(CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING) C(CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID) \
	C(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) C(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) \
	C(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED) C(CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED) C(CU_DEVICE_P2P_ATTRIBUTE_PERFORMANCE_RANK) \
	C(CU_DEVICE_P2P_ATTRIBUTE_ACCESS_SUPPORTED) C(CU_DEVICE_P2P_ATTRIBUTE_NATIVE_ATOMIC_SUPPORTED) \
	C(CU_STREAM_NON_BLOCKING) C(CU_EVENT_DEFAULT) C(CU_EVENT_BLOCKING_SYNC) C(CU_EVENT_DISABLE_TIMING) \
	S(CUresult) S(CUdevice) S(CUdeviceptr) S(CUcontext) S(CUstream) S(CUevent) S(CUdevice_attribute) S(CUmodule) S(CUfunction)

#define ND_ABI_NCCL(C, S, O) \
	C(ncclSuccess) C(ncclUnhandledCudaError) C(ncclSystemError) C(ncclInternalError) C(ncclInvalidArgument) \
	C(ncclInvalidUsage) C(ncclRemoteError) C(ncclInProgress) \
	C(ncclInt8) C(ncclUint8) C(ncclInt32) C(ncclUint32) C(ncclInt64) C(ncclUint64) C(ncclFloat16) \
	C(ncclFloat32) C(ncclFloat64) C(ncclBfloat16) C(ncclSum) C(ncclProd) C(ncclMax) C(ncclMin) C(ncclAvg) \
	C(NCCL_UNIQUE_ID_BYTES) C(NCCL_VERSION(2, 7, 8)) C(NCCL_VERSION(2, 28, 3)) C(NCCL_VERSION(3, 0, 0)) \
	S(ncclUniqueId) S(ncclResult_t) S(ncclDataType_t) S(ncclRedOp_t) S(ncclComm_t) S(cudaStream_t) \
	O(ncclConfig_t, size) O(ncclConfig_t, magic) O(ncclConfig_t, version) O(ncclConfig_t, blocking) \
	O(ncclConfig_t, netName) O(ncclConfig_t, splitShare) O(ncclConfig_t, commName) O(ncclConfig_t, CTAPolicy) \
	O(ncclConfig_t, nvlinkCentricSched)

#define ND_ABI_NVML(C, S, O) \
	C(NVML_SUCCESS) C(NVML_ERROR_UNINITIALIZED) C(NVML_ERROR_INVALID_ARGUMENT) C(NVML_ERROR_NOT_SUPPORTED) \
	C(NVML_ERROR_NO_PERMISSION) C(NVML_ERROR_ALREADY_INITIALIZED) C(NVML_ERROR_NOT_FOUND) \
	C(NVML_ERROR_INSUFFICIENT_SIZE) C(NVML_ERROR_DRIVER_NOT_LOADED) C(NVML_ERROR_TIMEOUT) \
	C(NVML_ERROR_LIBRARY_NOT_FOUND) C(NVML_ERROR_FUNCTION_NOT_FOUND) C(NVML_ERROR_GPU_IS_LOST) \
	C(NVML_ERROR_RESET_REQUIRED) C(NVML_ERROR_LIB_RM_VERSION_MISMATCH) C(NVML_ERROR_ARGUMENT_VERSION_MISMATCH) \
	C(NVML_ERROR_UNKNOWN) C(NVML_FEATURE_DISABLED) C(NVML_FEATURE_ENABLED) \
	C(NVML_TOPOLOGY_INTERNAL) C(NVML_TOPOLOGY_SINGLE) C(NVML_TOPOLOGY_MULTIPLE) C(NVML_TOPOLOGY_HOSTBRIDGE) \
	C(NVML_TOPOLOGY_NODE) C(NVML_TOPOLOGY_SYSTEM) C(NVML_P2P_CAPS_INDEX_READ) C(NVML_P2P_CAPS_INDEX_WRITE) \
	C(NVML_P2P_CAPS_INDEX_NVLINK) C(NVML_P2P_CAPS_INDEX_ATOMICS) C(NVML_P2P_STATUS_OK) \
	C(NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED) C(NVML_P2P_STATUS_GPU_NOT_SUPPORTED) \
	C(NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED) C(NVML_P2P_STATUS_DISABLED_BY_REGKEY) \
	C(NVML_P2P_STATUS_NOT_SUPPORTED) C(NVML_P2P_STATUS_UNKNOWN) C(NVML_NVLINK_DEVICE_TYPE_GPU) \
	C(NVML_NVLINK_DEVICE_TYPE_SWITCH) C(NVML_DEVICE_NAME_V2_BUFFER_SIZE) \
	C(NVML_DEVICE_UUID_V2_BUFFER_SIZE) C(NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE) C(nvmlMemory_v2) C(NVML_AFFINITY_SCOPE_NODE) S(nvmlAffinityScope_t) \
	S(nvmlReturn_t) S(nvmlDevice_t) S(nvmlEnableState_t) S(nvmlPciInfo_t) S(nvmlMemory_t) S(nvmlMemory_v2_t) \
	S(nvmlBAR1Memory_t) O(nvmlPciInfo_t, busIdLegacy) O(nvmlPciInfo_t, domain) O(nvmlPciInfo_t, bus) \
	O(nvmlPciInfo_t, pciDeviceId) O(nvmlPciInfo_t, busId) O(nvmlMemory_v2_t, total) O(nvmlMemory_v2_t, free) \
	O(nvmlMemory_v2_t, used) O(nvmlBAR1Memory_t, bar1Total) \
	S(nvmlProcessInfo_t) O(nvmlProcessInfo_t, usedGpuMemory) O(nvmlProcessInfo_t, computeInstanceId) S(nvmlUtilization_t) \
	C(NVML_GPU_FABRIC_UUID_LEN) C(NVML_GPU_FABRIC_STATE_NOT_SUPPORTED) C(NVML_GPU_FABRIC_STATE_NOT_STARTED) \
	C(NVML_GPU_FABRIC_STATE_IN_PROGRESS) C(NVML_GPU_FABRIC_STATE_COMPLETED) C(nvmlGpuFabricInfo_v2) \
	S(nvmlGpuFabricState_t) S(nvmlGpuFabricInfo_t) O(nvmlGpuFabricInfo_t, status) O(nvmlGpuFabricInfo_t, cliqueId) \
	O(nvmlGpuFabricInfo_t, state) S(nvmlGpuFabricInfo_v2_t) O(nvmlGpuFabricInfo_v2_t, clusterUuid) \
	O(nvmlGpuFabricInfo_v2_t, state) O(nvmlGpuFabricInfo_v2_t, healthMask) O(nvmlGpuFabricInfoV_t, healthMask) \
	C(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_DEGRADED_BW) C(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_RECOVERY) \
	C(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ROUTE_UNHEALTHY) C(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_ACCESS_TIMEOUT_RECOVERY) \
	C(NVML_GPU_FABRIC_HEALTH_MASK_SHIFT_INCORRECT_CONFIGURATION) C(NVML_GPU_FABRIC_HEALTH_MASK_WIDTH_INCORRECT_CONFIGURATION) \
	C(NVML_NVLINK_ERROR_DL_REPLAY) C(NVML_NVLINK_ERROR_DL_RECOVERY) C(NVML_NVLINK_ERROR_DL_CRC_FLIT) \
	C(NVML_NVLINK_ERROR_DL_CRC_DATA) C(NVML_VALUE_TYPE_UNSIGNED_INT) C(NVML_VALUE_TYPE_UNSIGNED_LONG_LONG) \
	S(nvmlValue_t) S(nvmlFieldValue_t) O(nvmlFieldValue_t, scopeId) O(nvmlFieldValue_t, valueType) \
	O(nvmlFieldValue_t, nvmlReturn) O(nvmlFieldValue_t, value) C(NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON) \
	C(NVML_FI_DEV_NVLINK_LINK_COUNT) C(NVML_FI_DEV_NVLINK_GET_SPEED)

#define ABI_C(x) { #x, (long long)(x) },
#define ABI_S(t) { "sizeof(" #t ")", (long long)sizeof(t) },
#define ABI_O(t, m) { "offsetof(" #t ", " #m ")", (long long)offsetof(t, m) },
#define ABI_END { NULL, 0 }

/* tables; a real one is { ABI_END } when its header was not found */
extern const struct abi_entry abi_ours_cuda[], abi_ours_nccl[], abi_ours_nvml[];
extern const struct abi_entry abi_real_cuda[], abi_real_nccl[], abi_real_nvml[];
extern const char *const abi_real_where[3]; /* header path or NULL: cuda, nccl, nvml */

#endif
