/* bench's result check on the GPU: two kernels written in PTX by this
 * project (no CUDA toolkit at build time; the driver JIT-compiles the text
 * given to cuModuleLoadData, as for p2p's kernels in gpu/ptx.h):
 *
 *   nd_bench_fill(dst, n, tab, period, es)
 *       element i of dst (es bytes: 1, 2, 4 or 8) = tab[i % period]
 *   nd_bench_check(src, n, tab, period, es, fkind, tol, count)
 *       *count += the number of i where element i of src differs from
 *       tab[i % period]; with fkind != 0 (1 half, 2 bfloat16, 3 float,
 *       4 double) a difference within tol x max(|want|, 1) is not counted
 *       (avg of a floating type, which NCCL may round)
 *
 * The tables are the exact values of gpu/bench_data.h (bench_input_table,
 * bench_expect_table), so the GPU check and the host check (bench_check)
 * count the same elements; only the tables (at most 256 elements each) and
 * one 8-byte count cross PCIe. Workers only; the calls run in the current
 * context and return the driver's CUresult. */
#ifndef ND_GPU_BENCH_PTX_H
#define ND_GPU_BENCH_PTX_H
#include "gpu/bench_data.h"
#include "nvlib/cuda_api.h"

#define BENCH_PTX_FILL "nd_bench_fill"
#define BENCH_PTX_CHECK "nd_bench_check"

/* nd_bench_check's fkind */
enum { BENCH_FK_EXACT, BENCH_FK_HALF, BENCH_FK_BF16, BENCH_FK_FLOAT, BENCH_FK_DOUBLE };

struct bench_kern {
	const struct cuda_api *cu;
	CUmodule mod;
	CUfunction fill, check;
	unsigned grid;            /* blocks per launch */
	CUdeviceptr tables;       /* BENCH_MAX_BLOCKS + 1 tables of BENCH_PERIOD_MAX x 8 bytes */
	CUdeviceptr count;        /* 8 bytes */
	unsigned char *host;      /* pinned: the tables, then the count read back */
};

/* The PTX text (NUL-terminated). */
const char *bench_ptx_source(void);

/* Loads the module and allocates the tables in the current context; sms:
 * multiprocessors of the device, 0 when unknown. On failure nothing stays
 * allocated; *what names the call that failed. */
CUresult bench_kern_load(struct bench_kern *k, const struct cuda_api *cu, int sms, const char **what);
void bench_kern_unload(struct bench_kern *k);
/* Enqueues on st: d's input into send (g->send_count elements). */
CUresult bench_kern_fill(struct bench_kern *k, const struct bench_data *d, const struct bench_geom *g,
			 CUdeviceptr send, CUstream st);
/* Enqueues on st: the count of wrong elements of recv (the received
 * result, g->recv_count elements) and its copy back; read it with
 * bench_kern_count once the stream is done. */
CUresult bench_kern_check(struct bench_kern *k, const struct bench_data *d, const struct bench_geom *g,
			  CUdeviceptr recv, CUstream st);
long long bench_kern_count(const struct bench_kern *k);

#endif
