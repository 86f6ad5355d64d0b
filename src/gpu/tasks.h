/* The tasks a worker process can run (`nccl-doctor __worker TASK ARGS`).
 * Each task loads the vendor libraries it needs, reports its stages and
 * results through gpu/wmsg.h, and returns the worker's exit status: 0 when
 * it did its job, 1 when it reported an error. They run ONLY in workers.
 *
 *   libs [--nccl PATH]       load the three libraries; paths, versions, symbols
 *   nvml-topo                NVML facts for `topo`: devices, matrix, P2P, NVLink
 *   cuda-info                cuInit, driver version, devices, cuDeviceCanAccessPeer
 *   nccl-init --nranks N --rank R --id HEX --device D [--nccl PATH]
 *                            one rank of a communicator: init, one all-reduce
 *                            check, destroy
 *   nccl-id [--nccl PATH]    prints a fresh ncclUniqueId as hex
 *   bench --nranks N --rank R --id HEX --device D --op OP ...
 *                            one rank of `bench` (gpu/bench.c) */
#ifndef ND_GPU_TASKS_H
#define ND_GPU_TASKS_H

struct gpu_task {
	const char *name;
	int (*run)(int argc, char **argv); /* argv[0] is the task name */
	const char *summary;
};

const struct gpu_task *gpu_task_find(const char *name);
const struct gpu_task *gpu_tasks(int *n);

int gpu_task_libs(int argc, char **argv);
int gpu_task_bench(int argc, char **argv);
int gpu_task_nvml_topo(int argc, char **argv);
int gpu_task_cuda_info(int argc, char **argv);
int gpu_task_nccl_init(int argc, char **argv);
int gpu_task_nccl_id(int argc, char **argv);

/* Hex of an ncclUniqueId (256 characters) and back; 0 or -EINVAL. */
int gpu_hex_encode(const void *data, unsigned len, char *out, unsigned outsz);
int gpu_hex_decode(const char *hex, void *data, unsigned len);

#endif
