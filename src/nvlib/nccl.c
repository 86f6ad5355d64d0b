/* libnccl.so.2: the NCCL table. After loading, ncclGetVersion decides which
 * calls may be used: entries newer than the library are cleared (and a
 * required one that is newer is an error), like nccl-tests' version gates. */
#include "nvlib/nvlib.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct vendor_sym syms[] = {
#define X(f, req, since, ret, params, newest, ...) { #f, req, since, offsetof(struct nccl_api, f), { #newest, __VA_ARGS__, NULL } },
	ND_NCCL_SYMBOLS(X)
#undef X
};

static struct nccl_api table;
static struct vendor_lib lib;
static int state = 1;

const struct vendor_sym *nccl_symbols(size_t *n)
{
	*n = sizeof(syms) / sizeof(syms[0]);
	return syms;
}

/* Major, minor, patch of a version code in either encoding. */
static void split(int code, int *x, int *y, int *z)
{
	if (code >= 10000) {
		*x = code / 10000;
		*y = (code % 10000) / 100;
		*z = code % 100;
	} else {
		*x = code / 1000;
		*y = (code % 1000) / 100;
		*z = code % 100;
	}
}

const char *nccl_version_text(int code, char *buf, size_t bufsz)
{
	int x, y, z;
	split(code, &x, &y, &z);
	snprintf(buf, bufsz, "%d.%d.%d", x, y, z);
	return buf;
}

bool nccl_version_at_least(int code, int major, int minor, int patch)
{
	int x, y, z;
	split(code, &x, &y, &z);
	return x != major ? x > major : y != minor ? y > minor : z >= patch;
}

int nccl_load(const char *path, const struct nccl_api **api, const struct vendor_lib **out)
{
	if (state == 1) {
		state = vendor_load(&lib, "libnccl.so.2", path, syms, sizeof(syms) / sizeof(syms[0]), &table, sizeof(table));
		if (state == 0) {
			int v = 0;
			if (table.ncclGetVersion(&v) != ncclSuccess || v <= 0) {
				str_setf(lib.error, sizeof(lib.error), "'%s' (%s): ncclGetVersion failed", lib.soname, lib.path);
				lib.err = state = -EINVAL;
			} else {
				lib.version = v;
				for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
					int x, y, z;
					if (!syms[i].since)
						continue;
					split(syms[i].since, &x, &y, &z);
					if (nccl_version_at_least(v, x, y, z))
						continue;
					memset((char *)&table + syms[i].offset, 0, sizeof(void *));
				}
			}
		}
	}
	if (out)
		*out = &lib;
	if (state == 0 && api)
		*api = &table;
	return state;
}

const char *nccl_error_name(ncclResult_t r)
{
	switch (r) {
	case ncclSuccess: return "ncclSuccess";
	case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
	case ncclSystemError: return "ncclSystemError";
	case ncclInternalError: return "ncclInternalError";
	case ncclInvalidArgument: return "ncclInvalidArgument";
	case ncclInvalidUsage: return "ncclInvalidUsage";
	case ncclRemoteError: return "ncclRemoteError";
	case ncclInProgress: return "ncclInProgress";
	default: return "ncclError";
	}
}
