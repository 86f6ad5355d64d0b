/* CUDA_VISIBLE_DEVICES: the one place that writes its value. A GPU worker
 * or a rank process that must see some GPUs in a given order (p2p's workers
 * in NVML order, bench's ranks for --gpus by UUID or bus id) gets
 * "CUDA_VISIBLE_DEVICES=ID,ID,..." in its worker_spec/ranks_spec env, where
 * ID is what NVML names the GPU ("GPU-5f1c...", "MIG-..."); a fix the
 * analysis proposes lists CUDA indices ("0,1,2,3").
 *
 * Pure: nothing here reads the machine or the environment. */
#ifndef ND_MODEL_VISIBLE_H
#define ND_MODEL_VISIBLE_H
#include <stddef.h>

#define CVD_NAME "CUDA_VISIBLE_DEVICES"
#define CVD_MAX_GPUS 64 /* entries in one value */

/* Writes "CUDA_VISIBLE_DEVICES=" and the n ids, comma separated, into buf
 * (bufsz bytes). Each id must be a word CUDA reads as one entry: letters,
 * digits, '-', ':', '/' and '.', nothing else (a comma or a space in a
 * name from the driver would make the child see other GPUs). Returns 0, or
 * with buf "" (when bufsz > 0):
 *   -ENODATA  n is 0 (an empty value hides every GPU: there is nothing to set)
 *   -E2BIG    n is over CVD_MAX_GPUS
 *   -ENOENT   an id is NULL (the driver did not name that GPU)
 *   -EINVAL   an id is empty or holds another character
 *   -ENOSPC   the value does not fit in buf
 * *bad (may be NULL) is the index in ids of the id at fault for -ENOENT and
 * -EINVAL, else -1. */
int cvd_format(char *buf, size_t bufsz, const char *const *ids, size_t n, int *bad);

/* The same for n CUDA device indices ("CUDA_VISIBLE_DEVICES=0,2"); a
 * negative index is -EINVAL (*bad its position). */
int cvd_format_indices(char *buf, size_t bufsz, const int *idx, size_t n, int *bad);

#endif
