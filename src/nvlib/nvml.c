/* libnvidia-ml.so.1: the NVML table, loaded once per worker process. */
#include "nvlib/nvlib.h"

static const struct vendor_sym syms[] = {
#define X(f, req, ret, params, newest, ...) { #f, req, 0, offsetof(struct nvml_api, f), { #newest, __VA_ARGS__, NULL } },
	ND_NVML_SYMBOLS(X)
#undef X
};

static struct nvml_api table;
static struct vendor_lib lib;
static int state = 1;

const struct vendor_sym *nvml_symbols(size_t *n)
{
	*n = sizeof(syms) / sizeof(syms[0]);
	return syms;
}

int nvml_load(const struct nvml_api **api, const struct vendor_lib **out)
{
	if (state == 1)
		state = vendor_load(&lib, "libnvidia-ml.so.1", NULL, syms, sizeof(syms) / sizeof(syms[0]), &table, sizeof(table));
	if (out)
		*out = &lib;
	if (state == 0 && api)
		*api = &table;
	return state;
}

const char *nvml_error_name(nvmlReturn_t r)
{
	switch (r) {
	case NVML_SUCCESS: return "NVML_SUCCESS";
	case NVML_ERROR_UNINITIALIZED: return "NVML_ERROR_UNINITIALIZED";
	case NVML_ERROR_INVALID_ARGUMENT: return "NVML_ERROR_INVALID_ARGUMENT";
	case NVML_ERROR_NOT_SUPPORTED: return "NVML_ERROR_NOT_SUPPORTED";
	case NVML_ERROR_NO_PERMISSION: return "NVML_ERROR_NO_PERMISSION";
	case NVML_ERROR_ALREADY_INITIALIZED: return "NVML_ERROR_ALREADY_INITIALIZED";
	case NVML_ERROR_NOT_FOUND: return "NVML_ERROR_NOT_FOUND";
	case NVML_ERROR_INSUFFICIENT_SIZE: return "NVML_ERROR_INSUFFICIENT_SIZE";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "NVML_ERROR_DRIVER_NOT_LOADED";
	case NVML_ERROR_TIMEOUT: return "NVML_ERROR_TIMEOUT";
	case NVML_ERROR_LIBRARY_NOT_FOUND: return "NVML_ERROR_LIBRARY_NOT_FOUND";
	case NVML_ERROR_FUNCTION_NOT_FOUND: return "NVML_ERROR_FUNCTION_NOT_FOUND";
	case NVML_ERROR_GPU_IS_LOST: return "NVML_ERROR_GPU_IS_LOST";
	case NVML_ERROR_RESET_REQUIRED: return "NVML_ERROR_RESET_REQUIRED";
	case NVML_ERROR_LIB_RM_VERSION_MISMATCH: return "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
	case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "NVML_ERROR_ARGUMENT_VERSION_MISMATCH";
	case NVML_ERROR_UNKNOWN: return "NVML_ERROR_UNKNOWN";
	default: return "NVML_ERROR";
	}
}
