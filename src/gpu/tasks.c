/* The worker task table and the helpers tasks share. */
#include "gpu/tasks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct gpu_task tasks[] = {
	{ "bench", gpu_task_bench, "one rank of `bench`: timed collectives, checked results" },
	{ "cuda-info", gpu_task_cuda_info, "cuInit, driver version, devices, peer access" },
	{ "libs", gpu_task_libs, "load libcuda, libnvidia-ml, libnccl: paths, versions, symbols" },
	{ "nccl-id", gpu_task_nccl_id, "a new ncclUniqueId as hex" },
	{ "nccl-init", gpu_task_nccl_init, "one rank of an NCCL communicator: init, all-reduce, destroy" },
	{ "nvml-topo", gpu_task_nvml_topo, "NVML devices, topology matrix, P2P status, NVLink" },
	{ "p2p-gpu", gpu_task_p2p_gpu, "one GPU: kernels checked, local copy and pinned host copy bandwidth" },
	{ "p2p-nccl", gpu_task_p2p_nccl, "one rank of a 2-rank communicator: ncclSend/ncclRecv both ways, verified" },
	{ "p2p-pair", gpu_task_p2p_pair, "one GPU pair: peer access, copy-engine and SM copies verified, bandwidth" },
	{ "p2p-procs", gpu_task_p2p_procs, "NVML compute processes, memory in use and utilisation per GPU" },
};

const struct gpu_task *gpu_tasks(int *n)
{
	*n = (int)(sizeof(tasks) / sizeof(tasks[0]));
	return tasks;
}

const struct gpu_task *gpu_task_find(const char *name)
{
	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++)
		if (strcmp(tasks[i].name, name) == 0)
			return &tasks[i];
	return NULL;
}

int gpu_hex_encode(const void *data, unsigned len, char *out, unsigned outsz)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = data;
	if (outsz < 2 * len + 1)
		return -ENOSPC;
	for (unsigned i = 0; i < len; i++) {
		out[2 * i] = hex[p[i] >> 4];
		out[2 * i + 1] = hex[p[i] & 15];
	}
	out[2 * len] = '\0';
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int gpu_hex_decode(const char *hex, void *data, unsigned len)
{
	unsigned char *p = data;
	if (strlen(hex) != 2 * (size_t)len)
		return -EINVAL;
	for (unsigned i = 0; i < len; i++) {
		int a = hexval(hex[2 * i]), b = hexval(hex[2 * i + 1]);
		if (a < 0 || b < 0)
			return -EINVAL;
		p[i] = (unsigned char)(a << 4 | b);
	}
	return 0;
}
