/* Run-time loading of the NVIDIA libraries: libcuda.so.1 (driver API),
 * libnvidia-ml.so.1 (NVML) and libnccl.so.2, with our own declarations of the
 * subset used (cuda_api.h, nvml_api.h, nccl_api.h). Only worker processes
 * call these (DESIGN.md: the parent never touches the driver).
 *
 * Search order: for NCCL the path given with --nccl (and nothing else); then
 * each directory of NCCL_DOCTOR_LIBRARY_PATH (':'-separated) holding the
 * soname; then the normal loader (ld.so.cache, LD_LIBRARY_PATH). Setting
 * NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 skips the normal loader (tests use it to
 * model a machine without a driver on one that has libraries installed).
 *
 * A library is published only when every required symbol resolved; "not
 * installed" (-ENOENT), "cannot be loaded" (-ELIBBAD) and "symbol missing"
 * (-ENOSYS) are distinct errors whose message names the library, its path and
 * the symbol. Functions return 0 or a negative errno and print nothing. */
#ifndef ND_NVLIB_NVLIB_H
#define ND_NVLIB_NVLIB_H
#include <stdbool.h>
#include <stddef.h>

#include "nvlib/cuda_api.h"
#include "nvlib/nccl_api.h"
#include "nvlib/nvml_api.h"

#define VENDOR_MAX_NAMES 4

/* One entry of a library's name table (generated from the X-macro lists). */
struct vendor_sym {
	const char *field;       /* member of the pointer table */
	bool required;
	int since;               /* NCCL version code that introduced it, else 0 */
	size_t offset;           /* offsetof(pointer table, field) */
	const char *names[VENDOR_MAX_NAMES + 2]; /* newest first, NULL-terminated */
};

struct vendor_lib {
	const char *soname;      /* "libcuda.so.1" */
	void *handle;            /* NULL until published */
	int err;                 /* 0, -ENOENT, -ELIBBAD, -ENOSYS, -EINVAL */
	char path[1024];         /* the file loaded (or tried last) */
	char missing[64];        /* the required symbol that was missing */
	char error[2048];        /* one-line message when err != 0 */
	int version;             /* library version when known (NCCL code, CUDA driver) */
};

/* Generic loader, used by the three below: resolves syms into a private
 * table of table_size bytes and copies it to table only on success.
 * explicit_path: load exactly this file (--nccl), or NULL for the search. */
int vendor_load(struct vendor_lib *lib, const char *soname, const char *explicit_path,
		const struct vendor_sym *syms, size_t nsyms, void *table, size_t table_size);
/* Which name of entry i was resolved (after a successful load), or NULL. */
const char *vendor_resolved_name(const struct vendor_sym *syms, size_t nsyms, const void *table, size_t i);

/* The three libraries. Each call after the first returns the same outcome.
 * *api is set only on success. */
int cuda_load(const struct cuda_api **api, const struct vendor_lib **lib);
int nvml_load(const struct nvml_api **api, const struct vendor_lib **lib);
/* path: --nccl PATH or NULL. */
int nccl_load(const char *path, const struct nccl_api **api, const struct vendor_lib **lib);

/* The name tables (for tests and diagnostics). */
const struct vendor_sym *cuda_symbols(size_t *n);
const struct vendor_sym *nvml_symbols(size_t *n);
const struct vendor_sym *nccl_symbols(size_t *n);

/* "2.28.9" from an NCCL version code (both encodings). */
const char *nccl_version_text(int code, char *buf, size_t bufsz);
/* Whether the loaded NCCL has a call of this version (nccl-tests' gate). */
bool nccl_version_at_least(int code, int major, int minor, int patch);
/* "13.0" from a CUDA driver version (13000). */
const char *cuda_version_text(int v, char *buf, size_t bufsz);

/* Vendor error codes as names and text; never NULL. */
const char *cuda_error_name(CUresult r);
const char *nvml_error_name(nvmlReturn_t r);
const char *nccl_error_name(ncclResult_t r);

#endif
