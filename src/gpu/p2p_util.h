/* Helpers the p2p worker tasks share (gpu/p2p_*.c): opening the driver with
 * every step reported as a stage, CUDA errors as worker error messages, and
 * timing with events (median of repetitions, GB = 1e9 bytes, each byte
 * counted once). Workers only. */
#ifndef ND_GPU_P2P_UTIL_H
#define ND_GPU_P2P_UTIL_H
#include <stddef.h>
#include <stdint.h>

#include "nvlib/nvlib.h"

#define P2P_MAX_REPS 1000

/* Loads libcuda and runs cuInit; reports loader or driver errors. 0 or 1. */
int p2p_cuda_open(const struct cuda_api **cu);
/* Reports a failed call as an error message of the current stage; returns 1. */
int p2p_cu_fail(const struct cuda_api *cu, const char *call, CUresult r);

/* The PCI address of a CUDA device, "0000:18:00.0" (lower case), or "". */
void p2p_device_bdf(const struct cuda_api *cu, CUdevice dev, char *out, size_t outsz);

/* The median of n values (sorts v in place); 0 when n is 0. */
double p2p_median(double *v, int n);

/* One timed operation: issues the work of one repetition on stream s. */
typedef CUresult (*p2p_op_fn)(void *arg, CUstream s);

/* Times reps repetitions of inner calls of op on stream s (after one
 * untimed warm-up call), each repetition between two events; writes the
 * repetition times in ms to ms[] (reps entries). */
CUresult p2p_time_op(const struct cuda_api *cu, CUstream s, p2p_op_fn op, void *arg, int reps, int inner, double *ms);
/* GB/s of bytes moved inner times in ms milliseconds (1 GB = 1e9 bytes). */
double p2p_gbs(size_t bytes, int inner, double ms);

#endif
