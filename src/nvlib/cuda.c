/* libcuda.so.1: the CUDA driver API table, loaded once per worker process. */
#include "nvlib/nvlib.h"

#include <stdio.h>

static const struct vendor_sym syms[] = {
#define X(f, req, ret, params, newest, ...) { #f, req, 0, offsetof(struct cuda_api, f), { #newest, __VA_ARGS__, NULL } },
	ND_CUDA_SYMBOLS(X)
#undef X
};

static struct cuda_api table;
static struct vendor_lib lib;
static int state = 1; /* 1: not tried yet */

const struct vendor_sym *cuda_symbols(size_t *n)
{
	*n = sizeof(syms) / sizeof(syms[0]);
	return syms;
}

int cuda_load(const struct cuda_api **api, const struct vendor_lib **out)
{
	if (state == 1)
		state = vendor_load(&lib, "libcuda.so.1", NULL, syms, sizeof(syms) / sizeof(syms[0]), &table, sizeof(table));
	if (out)
		*out = &lib;
	if (state == 0 && api)
		*api = &table;
	return state;
}

const char *cuda_version_text(int v, char *buf, size_t bufsz)
{
	snprintf(buf, bufsz, "%d.%d", v / 1000, (v % 1000) / 10);
	return buf;
}

const char *cuda_error_name(CUresult r)
{
	switch (r) {
	case CUDA_SUCCESS: return "CUDA_SUCCESS";
	case CUDA_ERROR_INVALID_VALUE: return "CUDA_ERROR_INVALID_VALUE";
	case CUDA_ERROR_OUT_OF_MEMORY: return "CUDA_ERROR_OUT_OF_MEMORY";
	case CUDA_ERROR_NOT_INITIALIZED: return "CUDA_ERROR_NOT_INITIALIZED";
	case CUDA_ERROR_DEINITIALIZED: return "CUDA_ERROR_DEINITIALIZED";
	case CUDA_ERROR_DEVICE_UNAVAILABLE: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
	case CUDA_ERROR_NO_DEVICE: return "CUDA_ERROR_NO_DEVICE";
	case CUDA_ERROR_INVALID_DEVICE: return "CUDA_ERROR_INVALID_DEVICE";
	case CUDA_ERROR_INVALID_CONTEXT: return "CUDA_ERROR_INVALID_CONTEXT";
	case CUDA_ERROR_ECC_UNCORRECTABLE: return "CUDA_ERROR_ECC_UNCORRECTABLE";
	case CUDA_ERROR_PEER_ACCESS_UNSUPPORTED: return "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED";
	case CUDA_ERROR_INVALID_PTX: return "CUDA_ERROR_INVALID_PTX";
	case CUDA_ERROR_NVLINK_UNCORRECTABLE: return "CUDA_ERROR_NVLINK_UNCORRECTABLE";
	case CUDA_ERROR_NOT_FOUND: return "CUDA_ERROR_NOT_FOUND";
	case CUDA_ERROR_OPERATING_SYSTEM: return "CUDA_ERROR_OPERATING_SYSTEM";
	case CUDA_ERROR_NOT_READY: return "CUDA_ERROR_NOT_READY";
	case CUDA_ERROR_ILLEGAL_ADDRESS: return "CUDA_ERROR_ILLEGAL_ADDRESS";
	case CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED: return "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED";
	case CUDA_ERROR_PEER_ACCESS_NOT_ENABLED: return "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED";
	case CUDA_ERROR_LAUNCH_FAILED: return "CUDA_ERROR_LAUNCH_FAILED";
	case CUDA_ERROR_NOT_SUPPORTED: return "CUDA_ERROR_NOT_SUPPORTED";
	case CUDA_ERROR_SYSTEM_NOT_READY: return "CUDA_ERROR_SYSTEM_NOT_READY";
	case CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
	case CUDA_ERROR_TIMEOUT: return "CUDA_ERROR_TIMEOUT";
	case CUDA_ERROR_UNKNOWN: return "CUDA_ERROR_UNKNOWN";
	default: return "CUDA_ERROR";
	}
}
