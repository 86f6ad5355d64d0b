/* The PTX text of bench's check kernels and the helpers that load and
 * launch them (see bench_ptx.h). PTX ISA 7.0 for sm_70 and later, as
 * gpu/ptx.c: the driver JIT-compiles it for the GPU at hand. Narrow loads go
 * into 16-bit registers as nvcc writes them; the loops are grid-stride.
 * Register names follow nvcc's (%rs, %r, %rd, %f, %fd, %p). */
#include "gpu/bench_ptx.h"

#include <stdint.h>
#include <string.h>

static const char ptx_text[] =
	".version 7.0\n"
	".target sm_70\n"
	".address_size 64\n"
	"\n"
	".visible .entry nd_bench_fill(.param .u64 p_dst, .param .u64 p_n, .param .u64 p_tab, .param .u32 p_period, .param .u32 p_es)\n"
	"{\n"
	"\t.reg .pred %p<4>;\n"
	"\t.reg .b16 %rs<4>;\n"
	"\t.reg .b32 %r<12>;\n"
	"\t.reg .b64 %rd<16>;\n"
	"\tld.param.u64 %rd1, [p_dst];\n"
	"\tld.param.u64 %rd2, [p_n];\n"
	"\tld.param.u64 %rd3, [p_tab];\n"
	"\tld.param.u32 %r1, [p_period];\n"
	"\tld.param.u32 %r2, [p_es];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tcvta.to.global.u64 %rd3, %rd3;\n"
	"\tcvt.u64.u32 %rd4, %r1;\n"
	"\tcvt.u64.u32 %rd5, %r2;\n"
	"\tmov.u32 %r3, %ctaid.x;\n"
	"\tmov.u32 %r4, %ntid.x;\n"
	"\tmov.u32 %r5, %tid.x;\n"
	"\tmul.wide.u32 %rd6, %r3, %r4;\n"
	"\tcvt.u64.u32 %rd7, %r5;\n"
	"\tadd.u64 %rd6, %rd6, %rd7;\n"
	"\tmov.u32 %r6, %nctaid.x;\n"
	"\tmul.wide.u32 %rd8, %r6, %r4;\n"
	"BF_LOOP:\n"
	"\tsetp.ge.u64 %p1, %rd6, %rd2;\n"
	"\t@%p1 bra BF_DONE;\n"
	"\trem.u64 %rd9, %rd6, %rd4;\n"
	"\tmul.lo.u64 %rd9, %rd9, %rd5;\n"
	"\tadd.u64 %rd9, %rd3, %rd9;\n"
	"\tmul.lo.u64 %rd10, %rd6, %rd5;\n"
	"\tadd.u64 %rd10, %rd1, %rd10;\n"
	"\tsetp.eq.u32 %p2, %r2, 8;\n"
	"\t@%p2 bra BF_8;\n"
	"\tsetp.eq.u32 %p2, %r2, 4;\n"
	"\t@%p2 bra BF_4;\n"
	"\tsetp.eq.u32 %p2, %r2, 2;\n"
	"\t@%p2 bra BF_2;\n"
	"\tld.global.u8 %rs1, [%rd9];\n"
	"\tst.global.u8 [%rd10], %rs1;\n"
	"\tbra BF_NEXT;\n"
	"BF_2:\n"
	"\tld.global.u16 %rs1, [%rd9];\n"
	"\tst.global.u16 [%rd10], %rs1;\n"
	"\tbra BF_NEXT;\n"
	"BF_4:\n"
	"\tld.global.u32 %r7, [%rd9];\n"
	"\tst.global.u32 [%rd10], %r7;\n"
	"\tbra BF_NEXT;\n"
	"BF_8:\n"
	"\tld.global.u64 %rd11, [%rd9];\n"
	"\tst.global.u64 [%rd10], %rd11;\n"
	"BF_NEXT:\n"
	"\tadd.u64 %rd6, %rd6, %rd8;\n"
	"\tbra BF_LOOP;\n"
	"BF_DONE:\n"
	"\tret;\n"
	"}\n"
	"\n"
	".visible .entry nd_bench_check(.param .u64 p_src, .param .u64 p_n, .param .u64 p_tab, .param .u32 p_period, .param .u32 p_es, .param .u32 p_fkind, .param .f64 p_tol, .param .u64 p_count)\n"
	"{\n"
	"\t.reg .pred %p<6>;\n"
	"\t.reg .b16 %rs<4>;\n"
	"\t.reg .b32 %r<12>;\n"
	"\t.reg .f32 %f<4>;\n"
	"\t.reg .b64 %rd<20>;\n"
	"\t.reg .f64 %fd<8>;\n"
	"\tld.param.u64 %rd1, [p_src];\n"
	"\tld.param.u64 %rd2, [p_n];\n"
	"\tld.param.u64 %rd3, [p_tab];\n"
	"\tld.param.u32 %r1, [p_period];\n"
	"\tld.param.u32 %r2, [p_es];\n"
	"\tld.param.u32 %r3, [p_fkind];\n"
	"\tld.param.f64 %fd1, [p_tol];\n"
	"\tld.param.u64 %rd12, [p_count];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tcvta.to.global.u64 %rd3, %rd3;\n"
	"\tcvta.to.global.u64 %rd12, %rd12;\n"
	"\tcvt.u64.u32 %rd4, %r1;\n"
	"\tcvt.u64.u32 %rd5, %r2;\n"
	"\tmov.u32 %r4, %ctaid.x;\n"
	"\tmov.u32 %r5, %ntid.x;\n"
	"\tmov.u32 %r6, %tid.x;\n"
	"\tmul.wide.u32 %rd6, %r4, %r5;\n"
	"\tcvt.u64.u32 %rd7, %r6;\n"
	"\tadd.u64 %rd6, %rd6, %rd7;\n"
	"\tmov.u32 %r7, %nctaid.x;\n"
	"\tmul.wide.u32 %rd8, %r7, %r5;\n"
	"\tmov.u64 %rd13, 0;\n"
	"BC_LOOP:\n"
	"\tsetp.ge.u64 %p1, %rd6, %rd2;\n"
	"\t@%p1 bra BC_END;\n"
	"\trem.u64 %rd9, %rd6, %rd4;\n"
	"\tmul.lo.u64 %rd9, %rd9, %rd5;\n"
	"\tadd.u64 %rd9, %rd3, %rd9;\n"
	"\tmul.lo.u64 %rd10, %rd6, %rd5;\n"
	"\tadd.u64 %rd10, %rd1, %rd10;\n"
	"\tsetp.eq.u32 %p2, %r2, 8;\n"
	"\t@%p2 bra BC_8;\n"
	"\tsetp.eq.u32 %p2, %r2, 4;\n"
	"\t@%p2 bra BC_4;\n"
	"\tsetp.eq.u32 %p2, %r2, 2;\n"
	"\t@%p2 bra BC_2;\n"
	"\tld.global.u8 %rs1, [%rd10];\n"
	"\tld.global.u8 %rs2, [%rd9];\n"
	"\tcvt.u64.u16 %rd14, %rs1;\n"
	"\tcvt.u64.u16 %rd15, %rs2;\n"
	"\tand.b64 %rd14, %rd14, 255;\n"
	"\tand.b64 %rd15, %rd15, 255;\n"
	"\tbra BC_CMP;\n"
	"BC_2:\n"
	"\tld.global.u16 %rs1, [%rd10];\n"
	"\tld.global.u16 %rs2, [%rd9];\n"
	"\tcvt.u64.u16 %rd14, %rs1;\n"
	"\tcvt.u64.u16 %rd15, %rs2;\n"
	"\tbra BC_CMP;\n"
	"BC_4:\n"
	"\tld.global.u32 %r8, [%rd10];\n"
	"\tld.global.u32 %r9, [%rd9];\n"
	"\tcvt.u64.u32 %rd14, %r8;\n"
	"\tcvt.u64.u32 %rd15, %r9;\n"
	"\tbra BC_CMP;\n"
	"BC_8:\n"
	"\tld.global.u64 %rd14, [%rd10];\n"
	"\tld.global.u64 %rd15, [%rd9];\n"
	"BC_CMP:\n"
	"\tsetp.eq.u64 %p3, %rd14, %rd15;\n"
	"\t@%p3 bra BC_NEXT;\n"
	"\tsetp.eq.u32 %p4, %r3, 0;\n"
	"\t@%p4 bra BC_BAD;\n"
	"\tsetp.eq.u32 %p4, %r3, 4;\n"
	"\t@%p4 bra BC_F64;\n"
	"\tsetp.eq.u32 %p4, %r3, 3;\n"
	"\t@%p4 bra BC_F32;\n"
	"\tsetp.eq.u32 %p4, %r3, 2;\n"
	"\t@%p4 bra BC_BF16;\n"
	"\tcvt.u16.u64 %rs1, %rd14;\n"
	"\tcvt.u16.u64 %rs2, %rd15;\n"
	"\tcvt.f32.f16 %f1, %rs1;\n"
	"\tcvt.f32.f16 %f2, %rs2;\n"
	"\tbra BC_WIDEN;\n"
	"BC_BF16:\n"
	"\tcvt.u32.u64 %r8, %rd14;\n"
	"\tcvt.u32.u64 %r9, %rd15;\n"
	"\tshl.b32 %r8, %r8, 16;\n"
	"\tshl.b32 %r9, %r9, 16;\n"
	"\tmov.b32 %f1, %r8;\n"
	"\tmov.b32 %f2, %r9;\n"
	"\tbra BC_WIDEN;\n"
	"BC_F32:\n"
	"\tcvt.u32.u64 %r8, %rd14;\n"
	"\tcvt.u32.u64 %r9, %rd15;\n"
	"\tmov.b32 %f1, %r8;\n"
	"\tmov.b32 %f2, %r9;\n"
	"BC_WIDEN:\n"
	"\tcvt.f64.f32 %fd2, %f1;\n"
	"\tcvt.f64.f32 %fd3, %f2;\n"
	"\tbra BC_TOL;\n"
	"BC_F64:\n"
	"\tmov.b64 %fd2, %rd14;\n"
	"\tmov.b64 %fd3, %rd15;\n"
	"BC_TOL:\n"
	"\tsub.f64 %fd4, %fd2, %fd3;\n"
	"\tabs.f64 %fd4, %fd4;\n"
	"\tabs.f64 %fd5, %fd3;\n"
	"\tmax.f64 %fd5, %fd5, 0d3FF0000000000000;\n"
	"\tmul.f64 %fd5, %fd5, %fd1;\n"
	"\tsetp.le.f64 %p5, %fd4, %fd5;\n"
	"\t@%p5 bra BC_NEXT;\n"
	"BC_BAD:\n"
	"\tadd.u64 %rd13, %rd13, 1;\n"
	"BC_NEXT:\n"
	"\tadd.u64 %rd6, %rd6, %rd8;\n"
	"\tbra BC_LOOP;\n"
	"BC_END:\n"
	"\tsetp.eq.u64 %p1, %rd13, 0;\n"
	"\t@%p1 bra BC_RET;\n"
	"\tatom.global.add.u64 %rd16, [%rd12], %rd13;\n"
	"BC_RET:\n"
	"\tret;\n"
	"}\n";

#define BLOCK 512
#define TABLE_BYTES ((size_t)BENCH_PERIOD_MAX * 8)
#define NTABLES (BENCH_MAX_BLOCKS + 1) /* the last one: the input */
#define HOST_BYTES (TABLE_BYTES * NTABLES + 8)

const char *bench_ptx_source(void)
{
	return ptx_text;
}

void bench_kern_unload(struct bench_kern *k)
{
	if (!k->cu)
		return;
	if (k->tables)
		k->cu->cuMemFree(k->tables);
	if (k->count)
		k->cu->cuMemFree(k->count);
	if (k->host)
		k->cu->cuMemFreeHost(k->host);
	if (k->mod)
		k->cu->cuModuleUnload(k->mod);
	memset(k, 0, sizeof(*k));
}

CUresult bench_kern_load(struct bench_kern *k, const struct cuda_api *cu, int sms, const char **what)
{
	memset(k, 0, sizeof(*k));
	k->cu = cu;
	void *host = NULL;
	CUresult e;
	if ((e = cu->cuModuleLoadData(&k->mod, ptx_text)) != CUDA_SUCCESS) {
		k->mod = NULL;
		*what = "cuModuleLoadData";
	} else if ((e = cu->cuModuleGetFunction(&k->fill, k->mod, BENCH_PTX_FILL)) != CUDA_SUCCESS ||
		   (e = cu->cuModuleGetFunction(&k->check, k->mod, BENCH_PTX_CHECK)) != CUDA_SUCCESS) {
		*what = "cuModuleGetFunction";
	} else if ((e = cu->cuMemAlloc(&k->tables, TABLE_BYTES * NTABLES)) != CUDA_SUCCESS ||
		   (e = cu->cuMemAlloc(&k->count, 8)) != CUDA_SUCCESS) {
		*what = "cuMemAlloc";
	} else if ((e = cu->cuMemAllocHost(&host, HOST_BYTES)) != CUDA_SUCCESS) {
		*what = "cuMemAllocHost";
	}
	k->host = host;
	if (e != CUDA_SUCCESS) {
		bench_kern_unload(k);
		return e;
	}
	/* as gpu/ptx.c: several blocks per SM, bounded for the 1-D grid */
	k->grid = sms > 0 ? (unsigned)sms * 8 : 1024;
	if (k->grid > 65535)
		k->grid = 65535;
	return CUDA_SUCCESS;
}

static unsigned grid_for(const struct bench_kern *k, size_t items)
{
	size_t need = (items + BLOCK - 1) / BLOCK;
	return need == 0 ? 1 : need < k->grid ? (unsigned)need : k->grid;
}

/* Copies table t (host, pinned) to the device on st; its device address. */
static CUresult upload(struct bench_kern *k, int t, size_t bytes, CUstream st, CUdeviceptr *dev)
{
	*dev = k->tables + (CUdeviceptr)t * TABLE_BYTES;
	return k->cu->cuMemcpyHtoDAsync(*dev, k->host + (size_t)t * TABLE_BYTES, bytes, st);
}

CUresult bench_kern_fill(struct bench_kern *k, const struct bench_data *d, const struct bench_geom *g,
			 CUdeviceptr send, CUstream st)
{
	if (g->send_count == 0)
		return CUDA_SUCCESS;
	unsigned es = (unsigned)bench_type_size(d->type);
	unsigned period = (unsigned)bench_input_table(d, k->host + BENCH_MAX_BLOCKS * TABLE_BYTES);
	CUdeviceptr tab;
	CUresult e = upload(k, BENCH_MAX_BLOCKS, (size_t)period * es, st, &tab);
	if (e != CUDA_SUCCESS)
		return e;
	unsigned long long n = g->send_count;
	void *args[] = { &send, &n, &tab, &period, &es };
	return k->cu->cuLaunchKernel(k->fill, grid_for(k, n), 1, 1, BLOCK, 1, 1, 0, st, args, NULL);
}

static unsigned fkind(int type)
{
	switch (type) {
	case BT_HALF: return BENCH_FK_HALF;
	case BT_BFLOAT16: return BENCH_FK_BF16;
	case BT_FLOAT: return BENCH_FK_FLOAT;
	case BT_DOUBLE: return BENCH_FK_DOUBLE;
	default: return BENCH_FK_EXACT;
	}
}

CUresult bench_kern_check(struct bench_kern *k, const struct bench_data *d, const struct bench_geom *g,
			  CUdeviceptr recv, CUstream st)
{
	struct bench_block b[BENCH_MAX_BLOCKS];
	int nb = bench_check_blocks(d, g, b, BENCH_MAX_BLOCKS);
	unsigned es = (unsigned)bench_type_size(d->type);
	CUresult e = k->cu->cuMemsetD32Async(k->count, 0, 2, st);
	for (int i = 0; i < nb && e == CUDA_SUCCESS; i++) {
		if (b[i].len == 0)
			continue;
		unsigned period = (unsigned)bench_expect_table(d, &b[i], k->host + (size_t)i * TABLE_BYTES);
		double tol = bench_check_tolerance(d, &b[i]);
		unsigned fk = tol > 0 ? fkind(d->type) : BENCH_FK_EXACT;
		CUdeviceptr tab, src = recv + (CUdeviceptr)(b[i].start * es);
		unsigned long long n = b[i].len;
		if ((e = upload(k, i, (size_t)period * es, st, &tab)) != CUDA_SUCCESS)
			break;
		void *args[] = { &src, &n, &tab, &period, &es, &fk, &tol, &k->count };
		e = k->cu->cuLaunchKernel(k->check, grid_for(k, n), 1, 1, BLOCK, 1, 1, 0, st, args, NULL);
	}
	if (e == CUDA_SUCCESS)
		e = k->cu->cuMemcpyDtoHAsync(k->host + TABLE_BYTES * NTABLES, k->count, 8, st);
	return e;
}

long long bench_kern_count(const struct bench_kern *k)
{
	uint64_t v;
	memcpy(&v, k->host + TABLE_BYTES * NTABLES, 8);
	return (long long)v;
}
