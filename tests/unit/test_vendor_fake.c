/* nvlib/ against the fake GPU stack (tests/fakegpu), loaded into this test
 * process as a worker would: the versioned NVML struct, the P2P copy faults
 * (corruption measured, a hang observed in a child), modelled time through
 * CUDA events, the all-or-nothing publication per library, and p2p's PTX
 * kernels as the fake runs them (fill, verify with the first bad word, copy
 * across peers: illegal without peer access, corrupted on a faulty pair). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "gpu/ptx.h"
#include "nvlib/nvlib.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static char scenario[256];
static const struct cuda_api *cu;
static const struct nvml_api *nv;

static int setup(void **state)
{
	(void)state;
	snprintf(scenario, sizeof(scenario), "/tmp/nd-fake-scenario-%d.json", (int)getpid());
	FILE *f = fopen(scenario, "w");
	if (!f)
		return -1;
	fputs("{\"gpus\":[{\"bdf\":\"0000:03:00.0\"},{\"bdf\":\"0000:04:00.0\"},{\"bdf\":\"0000:13:00.0\"}],"
	      "\"matrix\":[[\"X\",\"PIX\",\"PHB\"],[\"PIX\",\"X\",\"PHB\"],[\"PHB\",\"PHB\",\"X\"]],"
	      "\"faults\":{\"p2p_corrupt\":[[0,1]],\"p2p_hang\":[[0,2]]}}\n", f);
	fclose(f);
	setenv("NCCL_DOCTOR_FAKEGPU_SCENARIO", scenario, 1);
	setenv("NCCL_DOCTOR_LIBRARY_PATH", ND_BINARY_DIR "/tests/fakegpu/lib", 1);
	setenv("NCCL_DOCTOR_LIBRARY_PATH_ONLY", "1", 1);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(scenario);
	return 0;
}

static void test_load_fakes(void **state)
{
	(void)state;
	const struct vendor_lib *lib;
	assert_int_equal(cuda_load(&cu, &lib), 0);
	assert_non_null(strstr(lib->path, "tests/fakegpu/lib/libcuda.so.1"));
	assert_int_equal(nvml_load(&nv, &lib), 0);
	/* a second call gives the same outcome without loading again */
	const struct nvml_api *again = NULL;
	assert_int_equal(nvml_load(&again, NULL), 0);
	assert_ptr_equal(again, nv);
	const struct nccl_api *nc;
	assert_int_equal(nccl_load(NULL, &nc, &lib), 0);
	assert_int_equal(lib->version, 22803);
	assert_non_null(nc->ncclCommFinalize); /* 2.14 call in a 2.28 library */
}

static void test_nvml_struct_version(void **state)
{
	(void)state;
	nvmlDevice_t d;
	assert_int_equal(nv->nvmlInit(), NVML_SUCCESS);
	assert_int_equal(nv->nvmlDeviceGetHandleByIndex(0, &d), NVML_SUCCESS);
	nvmlMemory_v2_t m;
	memset(&m, 0, sizeof(m));
	m.version = 2; /* the mistake nvtop shows: N instead of sizeof | N << 24 */
	assert_int_equal(nv->nvmlDeviceGetMemoryInfo_v2(d, &m), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
	m.version = nvmlMemory_v2;
	assert_int_equal(nv->nvmlDeviceGetMemoryInfo_v2(d, &m), NVML_SUCCESS);
	assert_true(m.total > m.free);
	nvmlPciInfo_t p;
	assert_int_equal(nv->nvmlDeviceGetPciInfo(d, &p), NVML_SUCCESS);
	assert_string_equal(p.busId, "00000000:03:00.0");
	assert_int_equal(nv->nvmlShutdown(), NVML_SUCCESS);
}

static CUcontext ctx[3];

static CUdeviceptr alloc_on(int dev, size_t n)
{
	CUdeviceptr p;
	assert_int_equal(cu->cuCtxSetCurrent(ctx[dev]), CUDA_SUCCESS);
	assert_int_equal(cu->cuMemAlloc(&p, n), CUDA_SUCCESS);
	return p;
}

static void test_p2p_faults_and_time(void **state)
{
	(void)state;
	assert_int_equal(cu->cuInit(0), CUDA_SUCCESS);
	for (int i = 0; i < 3; i++)
		assert_int_equal(cu->cuDevicePrimaryCtxRetain(&ctx[i], i), CUDA_SUCCESS);
	enum { N = 1 << 20 };
	unsigned char *host = malloc(N), *back = malloc(N);
	for (int i = 0; i < N; i++)
		host[i] = (unsigned char)(i * 7);
	CUdeviceptr a = alloc_on(0, N), b = alloc_on(1, N), c = alloc_on(2, N);
	CUevent e0, e1;
	assert_int_equal(cu->cuEventCreate(&e0, 0), CUDA_SUCCESS);
	assert_int_equal(cu->cuEventCreate(&e1, 0), CUDA_SUCCESS);
	assert_int_equal(cu->cuEventRecord(e0, NULL), CUDA_SUCCESS);
	assert_int_equal(cu->cuMemcpyHtoD(a, host, N), CUDA_SUCCESS);
	assert_int_equal(cu->cuEventRecord(e1, NULL), CUDA_SUCCESS);
	float ms = 0;
	assert_int_equal(cu->cuEventElapsedTime(&ms, e0, e1), CUDA_SUCCESS);
	assert_true(ms > 0.0486 && ms < 0.0488); /* 1 MiB at 24 GB/s (0.0437 ms) + 5 us */

	/* the faults live on the P2P path: peer access on for 0 -> 1 and 0 -> 2 */
	assert_int_equal(cu->cuCtxSetCurrent(ctx[0]), CUDA_SUCCESS);
	assert_int_equal(cu->cuCtxEnablePeerAccess(ctx[1], 0), CUDA_SUCCESS);
	assert_int_equal(cu->cuCtxEnablePeerAccess(ctx[2], 0), CUDA_SUCCESS);
	assert_int_equal(cu->cuCtxEnablePeerAccess(ctx[1], 0), CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED);
	/* 0 -> 1 corrupts one byte in every 4 KiB */
	assert_int_equal(cu->cuMemcpyPeerAsync(b, ctx[1], a, ctx[0], N, NULL), CUDA_SUCCESS);
	assert_int_equal(cu->cuMemcpyDtoH(back, b, N), CUDA_SUCCESS);
	int wrong = 0;
	for (int i = 0; i < N; i++)
		wrong += back[i] != host[i];
	assert_int_equal(wrong, N / 4096);
	/* 1 -> 2 is clean */
	assert_int_equal(cu->cuMemcpyPeerAsync(c, ctx[2], b, ctx[1], N, NULL), CUDA_SUCCESS);
	size_t fr, total;
	assert_int_equal(cu->cuMemGetInfo(&fr, &total), CUDA_SUCCESS);
	assert_int_equal(total - fr, N);

	/* 0 -> 2 hangs: in a child, which is still blocked 300 ms later */
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int fd = open("/dev/null", 1);
		dup2(fd, 2);
		cu->cuMemcpyPeerAsync(c, ctx[2], a, ctx[0], N, NULL);
		_exit(0);
	}
	usleep(300000);
	int st;
	assert_int_equal(waitpid(pid, &st, WNOHANG), 0);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFSIGNALED(st));

	int can = -1;
	assert_int_equal(cu->cuDeviceCanAccessPeer(&can, 0, 1), CUDA_SUCCESS);
	assert_int_equal(can, 1);
	cu->cuMemFree(a);
	cu->cuMemFree(b);
	cu->cuMemFree(c);
	cu->cuEventDestroy(e0);
	cu->cuEventDestroy(e1);
	free(host);
	free(back);
}

static void test_kernels(void **state)
{
	(void)state;
	enum { N = 1 << 16 };
	struct ptx_mod m;
	CUmodule junk;
	CUfunction fn;
	assert_int_equal(cu->cuCtxSetCurrent(ctx[1]), CUDA_SUCCESS);
	assert_int_equal(cu->cuModuleLoadData(&junk, "not ptx"), CUDA_ERROR_INVALID_PTX);
	assert_int_equal(ptx_load(cu, &m, 132), CUDA_SUCCESS);
	assert_int_equal(cu->cuModuleGetFunction(&fn, m.mod, "nd_nothing"), CUDA_ERROR_NOT_FOUND);
	CUdeviceptr b = alloc_on(1, N), c = alloc_on(2, N), a = alloc_on(0, N), bad = alloc_on(1, 256);
	CUstream s;
	assert_int_equal(cu->cuStreamCreate(&s, 0), CUDA_SUCCESS);
	uint64_t first = 0;
	assert_int_equal(ptx_fill(cu, &m, b, N / 4, 9, s), CUDA_SUCCESS);
	assert_int_equal(ptx_check(cu, &m, b, N / 4, 9, bad, s, &first), CUDA_SUCCESS);
	assert_true(first == PTX_NO_BAD);
	assert_int_equal(ptx_check(cu, &m, b, N / 4, 10, bad, s, &first), CUDA_SUCCESS);
	assert_true(first == 0); /* another seed differs at once */
	assert_int_equal(cu->cuMemsetD32Async(b + 4000, 0, 1, s), CUDA_SUCCESS);
	assert_int_equal(ptx_check(cu, &m, b, N / 4, 9, bad, s, &first), CUDA_SUCCESS);
	assert_true(first == 1000);
	/* a kernel on 1 storing into 2 faults until peer access is on */
	assert_int_equal(ptx_copy(cu, &m, c, b, N, s), CUDA_ERROR_ILLEGAL_ADDRESS);
	assert_int_equal(cu->cuCtxEnablePeerAccess(ctx[2], 0), CUDA_SUCCESS);
	assert_int_equal(ptx_fill(cu, &m, b, N / 4, 11, s), CUDA_SUCCESS);
	assert_int_equal(ptx_copy(cu, &m, c, b, N, s), CUDA_SUCCESS);
	assert_int_equal(ptx_check(cu, &m, c, N / 4, 11, bad, s, &first), CUDA_SUCCESS);
	assert_true(first == PTX_NO_BAD);
	/* 0 -> 1 corrupts on the SM path too (peer access 0 -> 1 is on) */
	assert_int_equal(cu->cuCtxSetCurrent(ctx[0]), CUDA_SUCCESS);
	assert_int_equal(ptx_fill(cu, &m, a, N / 4, 12, s), CUDA_SUCCESS);
	assert_int_equal(ptx_copy(cu, &m, b, a, N, s), CUDA_SUCCESS);
	assert_int_equal(cu->cuCtxSetCurrent(ctx[1]), CUDA_SUCCESS);
	assert_int_equal(ptx_check(cu, &m, b, N / 4, 12, bad, s, &first), CUDA_SUCCESS);
	assert_true(first == 0);
	assert_int_equal(cu->cuCtxDisablePeerAccess(ctx[2]), CUDA_SUCCESS);
	assert_int_equal(cu->cuCtxDisablePeerAccess(ctx[2]), CUDA_ERROR_PEER_ACCESS_NOT_ENABLED);
	cu->cuStreamDestroy(s);
	cu->cuMemFree(a);
	cu->cuMemFree(b);
	cu->cuMemFree(c);
	cu->cuMemFree(bad);
	ptx_unload(cu, &m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_load_fakes),
		cmocka_unit_test(test_nvml_struct_version),
		cmocka_unit_test(test_p2p_faults_and_time),
		cmocka_unit_test(test_kernels),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
