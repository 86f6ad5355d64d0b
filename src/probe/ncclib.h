/* Every libnccl on the examined machine, its version, and which copy PyTorch
 * and vLLM load: found by reading files, never by loading them.
 *
 * The version comes from the string NCCL compiles into its read-only data
 * ("NCCL version 2.28.9+cuda13.0", VERSION_STRING in NVIDIA/nccl
 * src/init.cc), read from .rodata through the ELF section headers. Which
 * copy PyTorch loads comes from DT_NEEDED and DT_RUNPATH/DT_RPATH of
 * torch/lib/libtorch_cuda.so, resolved the way ld.so does.
 *
 * Everything is read through the sysroot. A recorded sysroot carries the
 * results in <sysroot>/.nccl-doctor/libraries.json instead of the libraries
 * themselves (see ncclib_scan_to_json); ncclib_scan uses that file when the
 * sysroot is not live and the file exists. */
#ifndef ND_PROBE_NCCLIB_H
#define ND_PROBE_NCCLIB_H
#include "model/ncclib.h"
#include "util/ncclver.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Finds the version string in an ELF file (path inside the sysroot): .rodata
 * first, else the first 64 MiB of the file. On success *vstr is a heap copy
 * of the whole string ("NCCL version 2.28.9+cuda13.0") and v its parse. 0,
 * -ENOENT for an ELF file without the string, or an elf.h error. */
int ncclib_read_version(const char *path, char **vstr, struct nccl_version *v);

/* Scans the examined machine. Returns 0 (missing directories are not
 * errors); a malformed record file gives -EBADMSG. s is always valid for
 * ncclib_scan_release afterwards. */
int ncclib_scan(struct ncclib_scan *s);

/* Serialises the facts (not the timings) for a snapshot; a new reference. */
json_t *ncclib_scan_to_json(const struct ncclib_scan *s);
/* The reverse; checks types and indexes. 0 or -EBADMSG (s then empty). */
int ncclib_scan_from_json(json_t *j, struct ncclib_scan *s);

/* Looks name up in the bytes of an /etc/ld.so.cache (glibc's
 * "glibc-ld.so.cache1.1" format, alone or after the old "ld.so-1.7.0" one)
 * for this machine's architecture. 1 and the path in out, 0 when absent,
 * -EBADMSG for a file that is not such a cache (or only the old format). */
int ncclib_ldcache_lookup(const char *data, size_t len, const char *name, char *out, size_t outsz);

#endif
