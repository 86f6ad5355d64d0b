/* The PTX text of p2p's kernels and the helpers that load and launch them
 * (see ptx.h). PTX ISA 7.0 for sm_70 and later: the driver JIT-compiles it
 * for the GPU at hand (Volta to Blackwell); checked with `ptxas -arch=sm_90`
 * and sm_75 when written. Register names follow nvcc's (%r, %rd, %p). */
#include "gpu/ptx.h"

#include <string.h>

static const char ptx_text[] =
	".version 7.0\n"
	".target sm_70\n"
	".address_size 64\n"
	"\n"
	".visible .entry nd_fill(.param .u64 p_dst, .param .u64 p_n, .param .u32 p_seed)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b32 %r<12>;\n"
	"\t.reg .b64 %rd<12>;\n"
	"\tld.param.u64 %rd1, [p_dst];\n"
	"\tld.param.u64 %rd2, [p_n];\n"
	"\tld.param.u32 %r1, [p_seed];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tmov.u32 %r2, %ctaid.x;\n"
	"\tmov.u32 %r3, %ntid.x;\n"
	"\tmov.u32 %r4, %tid.x;\n"
	"\tmul.wide.u32 %rd3, %r2, %r3;\n"
	"\tcvt.u64.u32 %rd4, %r4;\n"
	"\tadd.u64 %rd3, %rd3, %rd4;\n"
	"\tmov.u32 %r5, %nctaid.x;\n"
	"\tmul.wide.u32 %rd5, %r5, %r3;\n"
	"FILL_LOOP:\n"
	"\tsetp.ge.u64 %p1, %rd3, %rd2;\n"
	"\t@%p1 bra FILL_DONE;\n"
	"\tcvt.u32.u64 %r6, %rd3;\n"
	"\tshr.u64 %rd6, %rd3, 32;\n"
	"\tcvt.u32.u64 %r7, %rd6;\n"
	"\tmul.lo.u32 %r8, %r6, 0x9E3779B1;\n"
	"\tmul.lo.u32 %r9, %r7, 0x85EBCA6B;\n"
	"\txor.b32 %r8, %r8, %r9;\n"
	"\tadd.u32 %r8, %r8, %r1;\n"
	"\tshr.u32 %r9, %r8, 15;\n"
	"\txor.b32 %r8, %r8, %r9;\n"
	"\tshl.b64 %rd7, %rd3, 2;\n"
	"\tadd.u64 %rd8, %rd1, %rd7;\n"
	"\tst.global.u32 [%rd8], %r8;\n"
	"\tadd.u64 %rd3, %rd3, %rd5;\n"
	"\tbra FILL_LOOP;\n"
	"FILL_DONE:\n"
	"\tret;\n"
	"}\n"
	"\n"
	".visible .entry nd_verify(.param .u64 p_src, .param .u64 p_n, .param .u32 p_seed, .param .u64 p_bad)\n"
	"{\n"
	"\t.reg .pred %p<3>;\n"
	"\t.reg .b32 %r<12>;\n"
	"\t.reg .b64 %rd<12>;\n"
	"\tld.param.u64 %rd1, [p_src];\n"
	"\tld.param.u64 %rd2, [p_n];\n"
	"\tld.param.u32 %r1, [p_seed];\n"
	"\tld.param.u64 %rd9, [p_bad];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tcvta.to.global.u64 %rd9, %rd9;\n"
	"\tmov.u32 %r2, %ctaid.x;\n"
	"\tmov.u32 %r3, %ntid.x;\n"
	"\tmov.u32 %r4, %tid.x;\n"
	"\tmul.wide.u32 %rd3, %r2, %r3;\n"
	"\tcvt.u64.u32 %rd4, %r4;\n"
	"\tadd.u64 %rd3, %rd3, %rd4;\n"
	"\tmov.u32 %r5, %nctaid.x;\n"
	"\tmul.wide.u32 %rd5, %r5, %r3;\n"
	"VERIFY_LOOP:\n"
	"\tsetp.ge.u64 %p1, %rd3, %rd2;\n"
	"\t@%p1 bra VERIFY_DONE;\n"
	"\tcvt.u32.u64 %r6, %rd3;\n"
	"\tshr.u64 %rd6, %rd3, 32;\n"
	"\tcvt.u32.u64 %r7, %rd6;\n"
	"\tmul.lo.u32 %r8, %r6, 0x9E3779B1;\n"
	"\tmul.lo.u32 %r9, %r7, 0x85EBCA6B;\n"
	"\txor.b32 %r8, %r8, %r9;\n"
	"\tadd.u32 %r8, %r8, %r1;\n"
	"\tshr.u32 %r9, %r8, 15;\n"
	"\txor.b32 %r8, %r8, %r9;\n"
	"\tshl.b64 %rd7, %rd3, 2;\n"
	"\tadd.u64 %rd8, %rd1, %rd7;\n"
	"\tld.global.u32 %r10, [%rd8];\n"
	"\tsetp.eq.u32 %p2, %r10, %r8;\n"
	"\t@%p2 bra VERIFY_NEXT;\n"
	"\tatom.global.min.u64 %rd10, [%rd9], %rd3;\n"
	"VERIFY_NEXT:\n"
	"\tadd.u64 %rd3, %rd3, %rd5;\n"
	"\tbra VERIFY_LOOP;\n"
	"VERIFY_DONE:\n"
	"\tret;\n"
	"}\n"
	"\n"
	".visible .entry nd_copy(.param .u64 p_dst, .param .u64 p_src, .param .u64 p_n)\n"
	"{\n"
	"\t.reg .pred %p<2>;\n"
	"\t.reg .b32 %r<12>;\n"
	"\t.reg .b64 %rd<12>;\n"
	"\tld.param.u64 %rd1, [p_dst];\n"
	"\tld.param.u64 %rd2, [p_src];\n"
	"\tld.param.u64 %rd9, [p_n];\n"
	"\tcvta.to.global.u64 %rd1, %rd1;\n"
	"\tcvta.to.global.u64 %rd2, %rd2;\n"
	"\tmov.u32 %r2, %ctaid.x;\n"
	"\tmov.u32 %r3, %ntid.x;\n"
	"\tmov.u32 %r4, %tid.x;\n"
	"\tmul.wide.u32 %rd3, %r2, %r3;\n"
	"\tcvt.u64.u32 %rd4, %r4;\n"
	"\tadd.u64 %rd3, %rd3, %rd4;\n"
	"\tmov.u32 %r5, %nctaid.x;\n"
	"\tmul.wide.u32 %rd5, %r5, %r3;\n"
	"COPY_LOOP:\n"
	"\tsetp.ge.u64 %p1, %rd3, %rd9;\n"
	"\t@%p1 bra COPY_DONE;\n"
	"\tshl.b64 %rd7, %rd3, 4;\n"
	"\tadd.u64 %rd8, %rd2, %rd7;\n"
	"\tld.global.v4.u32 {%r6, %r7, %r8, %r9}, [%rd8];\n"
	"\tadd.u64 %rd10, %rd1, %rd7;\n"
	"\tst.global.v4.u32 [%rd10], {%r6, %r7, %r8, %r9};\n"
	"\tadd.u64 %rd3, %rd3, %rd5;\n"
	"\tbra COPY_LOOP;\n"
	"COPY_DONE:\n"
	"\tret;\n"
	"}\n";

const char *ptx_source(void)
{
	return ptx_text;
}

CUresult ptx_load(const struct cuda_api *cu, struct ptx_mod *m, int sms)
{
	memset(m, 0, sizeof(*m));
	CUresult e = cu->cuModuleLoadData(&m->mod, ptx_text);
	if (e != CUDA_SUCCESS)
		return e;
	if ((e = cu->cuModuleGetFunction(&m->fill, m->mod, PTX_FILL)) != CUDA_SUCCESS ||
	    (e = cu->cuModuleGetFunction(&m->verify, m->mod, PTX_VERIFY)) != CUDA_SUCCESS ||
	    (e = cu->cuModuleGetFunction(&m->copy, m->mod, PTX_COPY)) != CUDA_SUCCESS) {
		cu->cuModuleUnload(m->mod);
		m->mod = NULL;
		return e;
	}
	/* enough blocks to fill every SM several times over (nvbandwidth's
	 * copy kernels use the same order), bounded for the 1-D grid */
	m->grid = sms > 0 ? (unsigned)sms * 8 : 1024;
	if (m->grid > 65535)
		m->grid = 65535;
	return CUDA_SUCCESS;
}

void ptx_unload(const struct cuda_api *cu, struct ptx_mod *m)
{
	if (m->mod)
		cu->cuModuleUnload(m->mod);
	m->mod = NULL;
}

static unsigned grid_for(const struct ptx_mod *m, uint64_t items)
{
	uint64_t need = (items + PTX_BLOCK - 1) / PTX_BLOCK;
	if (need == 0)
		need = 1;
	return need < m->grid ? (unsigned)need : m->grid;
}

CUresult ptx_fill(const struct cuda_api *cu, const struct ptx_mod *m, CUdeviceptr dst, size_t words, uint32_t seed,
		  CUstream s)
{
	unsigned long long n = words;
	void *args[] = { &dst, &n, &seed };
	return cu->cuLaunchKernel(m->fill, grid_for(m, n), 1, 1, PTX_BLOCK, 1, 1, 0, s, args, NULL);
}

CUresult ptx_verify(const struct cuda_api *cu, const struct ptx_mod *m, CUdeviceptr src, size_t words, uint32_t seed,
		    CUdeviceptr bad, CUstream s)
{
	CUresult e = cu->cuMemsetD32Async(bad, 0xffffffffu, 2, s);
	if (e != CUDA_SUCCESS)
		return e;
	unsigned long long n = words;
	void *args[] = { &src, &n, &seed, &bad };
	return cu->cuLaunchKernel(m->verify, grid_for(m, n), 1, 1, PTX_BLOCK, 1, 1, 0, s, args, NULL);
}

CUresult ptx_copy(const struct cuda_api *cu, const struct ptx_mod *m, CUdeviceptr dst, CUdeviceptr src, size_t bytes,
		  CUstream s)
{
	unsigned long long n = bytes / 16;
	void *args[] = { &dst, &src, &n };
	return cu->cuLaunchKernel(m->copy, grid_for(m, n), 1, 1, PTX_BLOCK, 1, 1, 0, s, args, NULL);
}

CUresult ptx_check(const struct cuda_api *cu, const struct ptx_mod *m, CUdeviceptr src, size_t words, uint32_t seed,
		   CUdeviceptr bad, CUstream s, uint64_t *first_bad)
{
	*first_bad = PTX_NO_BAD;
	CUresult e = ptx_verify(cu, m, src, words, seed, bad, s);
	if (e == CUDA_SUCCESS)
		e = cu->cuStreamSynchronize(s);
	unsigned long long v = PTX_NO_BAD;
	if (e == CUDA_SUCCESS)
		e = cu->cuMemcpyDtoHAsync(&v, bad, sizeof(v), s);
	if (e == CUDA_SUCCESS)
		e = cu->cuStreamSynchronize(s);
	if (e == CUDA_SUCCESS)
		*first_bad = v;
	return e;
}
