/* What of a process environment (NUL-separated NAME=VALUE, as in
 * /proc/PID/environ) may leave the machine in a snapshot.
 *
 * Kept by name, everything else dropped:
 *   NCCL_*, CUDA_*, TORCH_*NCCL*, TORCH_DISTRIBUTED*, VLLM_*;
 *   launcher rank and size: RANK, LOCAL_RANK, GROUP_RANK, WORLD_SIZE,
 *   LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT, OMPI_COMM_WORLD_*, PMI_*,
 *   PMIX_RANK, and the SLURM job, step, task, node and GPU ids and counts
 *   (SLURM_JOB_ID, SLURM_PROCID, SLURM_LOCALID, SLURM_NODEID, SLURM_NTASKS...:
 *   a fixed list in envfilter.c);
 *   library search: PATH, LD_LIBRARY_PATH, LD_PRELOAD, PYTHONPATH, PYTHONHOME,
 *   VIRTUAL_ENV, CONDA_PREFIX, HOME; and the two facts `sys` reads:
 *   SUDO_USER, KUBERNETES_SERVICE_HOST.
 *
 * Redacted even under a kept name (the value becomes "<redacted>"):
 *   - names with a word (between '_') TOKEN, SECRET, PASSWORD, PASSWD,
 *     PASS, KEY, APIKEY, CREDENTIAL(S), AUTH, COOKIE, SESSION, SIGNATURE or
 *     PRIVATE (NCCL_IB_PKEY is not one: PKEY is not KEY): the whole value;
 *   - URL user information ("scheme://user:pw@host"): the "user:pw" part;
 *   - a long high-entropy word: 24 or more characters of [A-Za-z0-9+=_]
 *     (so between '/', ':', ',', ';', '.', '@', '-', ' ') with letters and digits
 *     both present and a Shannon entropy of at least 3.5 bits per character
 *     (API keys, hex digests, base64 tokens; not paths or host names).
 *
 * Pure functions; nothing prints. */
#ifndef ND_UTIL_ENVFILTER_H
#define ND_UTIL_ENVFILTER_H
#include <stdbool.h>
#include <stddef.h>

#include "util/strbuf.h"

#define ENVFILTER_REDACTED "<redacted>"

/* Whether the variable name (namelen bytes) is one a snapshot keeps. */
bool envfilter_keep_name(const char *name, size_t namelen);
/* Whether the name itself says the value is a credential. */
bool envfilter_secret_name(const char *name, size_t namelen);
/* Appends value to out with credentials replaced (URL user information and
 * high-entropy words); returns how many parts were redacted. */
int envfilter_redact_value(const char *value, size_t len, struct strbuf *out);
/* Filters a whole environ block (NUL-separated, last NUL optional) into
 * out, NUL-separated. Returns the number of variables kept, or -ENOSPC when
 * out's cap was reached. */
int envfilter_apply(const char *data, size_t len, struct strbuf *out);
/* Whether a path names an environment block: any file named "environ"
 * (/proc/self/environ, /proc/PID/environ, /proc/PID/task/TID/environ, and
 * the same name anywhere else, to be safe). */
bool envfilter_is_environ_path(const char *path);

#endif
