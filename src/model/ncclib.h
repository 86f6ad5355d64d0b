/* Every libnccl on the examined machine, its version, and which copy
 * PyTorch and vLLM load, as data (probe/ncclib*.c find them). */
#ifndef ND_MODEL_NCCLIB_H
#define ND_MODEL_NCCLIB_H
#include "util/ncclver.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NCCLIB_MAX_LIBS 64                     /* libraries kept */
#define NCCLIB_MAX_FILE (4ull << 30)           /* larger files are skipped */
#define NCCLIB_RECORD_PATH "/.nccl-doctor/libraries.json"

/* One library file, after resolving links. */
struct ncclib {
	char *path;          /* canonical path */
	char **names;        /* every path it was found under (links included), sorted */
	size_t nnames;
	uint64_t size;
	char *version_str;   /* NULL when no version string was found */
	bool has_version;
	struct nccl_version version;
	char *soname;        /* DT_SONAME, NULL if none */
	char **where;        /* where it was found: "system", "cuda", "LD_LIBRARY_PATH",
	                      * "python:torch", "python:nvidia-nccl-cu13", "VLLM_NCCL_SO_PATH",
	                      * "conda", "/opt/nvidia" */
	size_t nwhere;
	bool ld_default;     /* what ld.so would pick for libnccl.so.2 */
	char *error;         /* why it could not be read ("not an ELF file"), else NULL */
};

enum torch_nccl {
	TORCH_NCCL_UNKNOWN,   /* libtorch_cuda.so unreadable */
	TORCH_NCCL_SHARED,    /* DT_NEEDED libnccl, resolved to nccl_path */
	TORCH_NCCL_MISSING,   /* DT_NEEDED libnccl that nothing resolves: import fails */
	TORCH_NCCL_STATIC,    /* no DT_NEEDED libnccl and no libnccl in torch/lib */
	TORCH_NCCL_NO_CUDA,   /* no libtorch_cuda.so: a CPU-only (or ROCm) build */
};

/* One PyTorch (torch/ in a site-packages directory). */
struct ncclib_torch {
	char *path;          /* .../site-packages/torch */
	char *version;       /* torch/version.py __version__, NULL if unknown */
	char *libtorch;      /* .../torch/lib/libtorch_cuda.so, NULL if absent */
	enum torch_nccl how;
	char *needed;        /* the DT_NEEDED name ("libnccl.so.2"), NULL if none */
	char *nccl_path;     /* canonical path of the library it loads (SHARED) */
	int lib;             /* index in scan->libs of nccl_path, -1 if none */
	char *via;           /* "DT_RUNPATH $ORIGIN/../../nvidia/nccl/lib", "LD_LIBRARY_PATH", ... */
	char *static_version; /* STATIC: the version string found in libtorch_cuda.so */
	char *error;         /* why libtorch_cuda.so could not be read */
};

/* One vLLM (vllm/ in a site-packages directory). It dlopens VLLM_NCCL_SO_PATH
 * when set, else "libnccl.so.2" after importing torch, which gives the copy
 * PyTorch loaded (vllm/utils find_nccl_library). */
struct ncclib_vllm {
	char *path;          /* .../site-packages/vllm */
	char *version;       /* vllm/_version.py, NULL if unknown */
	int torch;           /* index in scan->torch of the PyTorch beside it, -1 if none */
};

struct ncclib_scan {
	struct ncclib *libs;
	size_t nlibs, alibs;
	struct ncclib_torch *torch;
	size_t ntorch, atorch;
	struct ncclib_vllm *vllm;
	size_t nvllm, avllm;
	int ld_default;      /* index of the library ld.so picks for libnccl.so.2, -1 */
	char *ld_via;        /* how: "ld.so.cache", "LD_LIBRARY_PATH (/dir)", ... */
	bool sudo;           /* run through sudo (SUDO_USER set): the caller's
	                      * LD_LIBRARY_PATH and VIRTUAL_ENV are not seen */
	char *vllm_so_path;  /* VLLM_NCCL_SO_PATH as set, NULL if unset */
	int vllm_lib;        /* index of its library, -1 */
	char *vllm_so_error; /* VLLM_NCCL_SO_PATH: "missing", "not an NCCL library", ... */
	bool truncated;      /* more than NCCLIB_MAX_LIBS libraries */
	bool from_record;    /* read from NCCLIB_RECORD_PATH of a recorded sysroot */
	int record_err;      /* that file exists but is malformed: -EBADMSG (s is empty) */
	unsigned dirs_scanned;
	double scan_ms;      /* wall time of the whole scan */
	double read_ms;      /* of which reading .rodata for versions */
};

void ncclib_scan_release(struct ncclib_scan *s);
const char *torch_nccl_name(enum torch_nccl how); /* "shared", "static", ... */

#endif
