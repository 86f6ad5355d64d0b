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
 *
 *   p2p-gpu, p2p-pair, p2p-nccl, p2p-procs
 *                            the GPU work of `p2p` (gpu/p2p_*.c)
 *   bench --nranks N --rank R --id HEX --device D --op OP ...
 *                            one rank of `bench` (gpu/bench.c)
 *
 * --nccl is a global option: main.c parses it once and the worker hands it
 * to the task as nccl_path (NULL: the loader's own search). */
#ifndef ND_GPU_TASKS_H
#define ND_GPU_TASKS_H
#include "nvlib/nvlib.h"
#include "util/options.h"

struct gpu_task {
	const char *name;
	int (*run)(int argc, char **argv, const char *nccl_path); /* argv[0] is the task name */
	const char *summary;
};

const struct gpu_task *gpu_task_find(const char *name);
const struct gpu_task *gpu_tasks(int *n);

int gpu_task_libs(int argc, char **argv, const char *nccl_path);
int gpu_task_bench(int argc, char **argv, const char *nccl_path);
int gpu_task_nvml_topo(int argc, char **argv, const char *nccl_path);
int gpu_task_cuda_info(int argc, char **argv, const char *nccl_path);
int gpu_task_nccl_init(int argc, char **argv, const char *nccl_path);
int gpu_task_nccl_id(int argc, char **argv, const char *nccl_path);
int gpu_task_p2p_gpu(int argc, char **argv, const char *nccl_path);
int gpu_task_p2p_pair(int argc, char **argv, const char *nccl_path);
int gpu_task_p2p_nccl(int argc, char **argv, const char *nccl_path);
int gpu_task_p2p_procs(int argc, char **argv, const char *nccl_path);

/* Loading for a task: loads the library, reporting a failure as a "loader"
 * error (VENDOR_LOADER) whose name is vendor_err_reason() of model/vendor_reason.h.
 * 0, or 1 when it failed (reported).
 * *lib (when not NULL) gets the library's facts either way. */
int gpu_load_cuda(const struct cuda_api **cu, const struct vendor_lib **lib);
int gpu_load_nvml(const struct nvml_api **nv, const struct vendor_lib **lib);
int gpu_load_nccl(const char *path, const struct nccl_api **nc, const struct vendor_lib **lib);
/* The rank protocol's unique id (run/ranks.h): idhex "create" makes one
 * with ncclGetUniqueId and reports it first ({"unique_id": HEX}), anything
 * else is decoded. 0, or 1 after reporting the error. */
int gpu_rank_unique_id(const struct nccl_api *nc, const char *idhex, ncclUniqueId *id);
/* Reports a failed CUDA call ("cuInit failed: ... (CUDA_ERROR_X n)");
 * returns 1, the task's exit status. */
int gpu_cuda_error(const struct cuda_api *cu, const char *call, CUresult r);

/* The rank protocol's arguments (run/ranks.c, bench's launch): --nranks N
 * --rank R --device D --count C --id HEX|create. The caller sets the
 * defaults; --nccl PATH is main's global option (the task's nccl_path). */
struct rank_args {
	long long nranks, rank, device, count;
	const char *id;
};
/* The one parser of a rank task's arguments (nccl-init, p2p-nccl, bench):
 * the rank protocol's and the task's own options (extra, an opt_spec table
 * of util/options.h; NULL: none). 0, or -1 after reporting the usage error
 * as a "worker" error naming the task and the option. */
int gpu_rank_args(int argc, char **argv, struct rank_args *ra, const struct opt_spec *extra);
/* Parses a task's options (argv[0] its name) against specs: 0 when every
 * argument is an option, or -1 after reporting the usage error. */
int gpu_task_options(int argc, char **argv, const struct opt_spec *specs);

/* Hex of an ncclUniqueId (256 characters) and back; 0 or -EINVAL. */
int gpu_hex_encode(const void *data, unsigned len, char *out, unsigned outsz);
int gpu_hex_decode(const char *hex, void *data, unsigned len);

#endif
