/* Library loading for the worker tasks, and the error reports every task
 * makes the same way: see tasks.h. */
#include "gpu/tasks.h"
#include "gpu/wmsg.h"

#include "model/vendor_reason.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int gpu_task_options(int argc, char **argv, const struct opt_spec *specs)
{
	char msg[512];
	int r = opt_parse(argc, argv, specs, 0, msg, sizeof(msg));
	if (r >= 0 && r < argc)
		snprintf(msg, sizeof(msg), "unexpected argument '%s'", argv[r]);
	else if (r >= 0)
		return 0;
	else if (r == OPT_RET_HELP)
		snprintf(msg, sizeof(msg), "no help here: see 'nccl-doctor __worker --help'");
	wmsg_error("worker", 0, NULL, "%s: %s", argc > 0 ? argv[0] : "task", msg);
	return -1;
}

int gpu_rank_args(int argc, char **argv, struct rank_args *ra, const struct opt_spec *extra)
{
	static const struct opt_spec none[] = { OPT_END() };
	const struct opt_spec specs[] = {
		OPT_INT("nranks", 0, &ra->nranks, 1, 1024, "ranks of the communicator"),
		OPT_INT("rank", 0, &ra->rank, 0, 1023, "this process's rank"),
		OPT_INT("device", 0, &ra->device, 0, 1023, "its CUDA ordinal"),
		OPT_INT("count", 0, &ra->count, 1, 1LL << 40, "elements of the test"),
		OPT_STRING("id", 0, &ra->id, "the unique id in hex, or 'create' (rank 0)"),
		OPT_INCLUDE(extra ? extra : none),
		OPT_END(),
	};
	return gpu_task_options(argc, argv, specs);
}

/* Reports a failed load as the "loader" error the parent maps to findings. */
static int load_failed(int r, const struct vendor_lib *lib)
{
	wmsg_error(VENDOR_LOADER, r, vendor_err_reason(r), "%s", lib->error);
	return 1;
}

int gpu_load_cuda(const struct cuda_api **cu, const struct vendor_lib **libp)
{
	const struct vendor_lib *lib;
	wmsg_stage("load libcuda.so.1");
	int r = cuda_load(cu, &lib);
	if (libp)
		*libp = lib;
	return r < 0 ? load_failed(r, lib) : 0;
}

int gpu_load_nvml(const struct nvml_api **nv, const struct vendor_lib **libp)
{
	const struct vendor_lib *lib;
	wmsg_stage("load libnvidia-ml.so.1");
	int r = nvml_load(nv, &lib);
	if (libp)
		*libp = lib;
	return r < 0 ? load_failed(r, lib) : 0;
}

int gpu_load_nccl(const char *path, const struct nccl_api **nc, const struct vendor_lib **libp)
{
	const struct vendor_lib *lib;
	wmsg_stage("load libnccl.so.2");
	int r = nccl_load(path, nc, &lib);
	if (libp)
		*libp = lib;
	return r < 0 ? load_failed(r, lib) : 0;
}

int gpu_cuda_error(const struct cuda_api *cu, const char *call, CUresult r)
{
	const char *s = NULL;
	if (cu->cuGetErrorString(r, &s) != CUDA_SUCCESS || !s)
		s = "unknown error";
	wmsg_error("cuda", r, cuda_error_name(r), "%s failed: %s (%s %d)", call, s, cuda_error_name(r), r);
	return 1;
}

int gpu_rank_unique_id(const struct nccl_api *nc, const char *idhex, ncclUniqueId *id)
{
	memset(id, 0, sizeof(*id));
	if (strcmp(idhex, "create") != 0) {
		if (gpu_hex_decode(idhex, id, sizeof(*id)) == 0)
			return 0;
		wmsg_error("worker", 0, NULL, "--id is not %d hex digits", 2 * NCCL_UNIQUE_ID_BYTES);
		return 1;
	}
	wmsg_stage("ncclGetUniqueId");
	ncclResult_t r = nc->ncclGetUniqueId(id);
	if (r != ncclSuccess) {
		wmsg_error("nccl", r, nccl_error_name(r), "ncclGetUniqueId failed: %s", nc->ncclGetErrorString(r));
		return 1;
	}
	char hex[2 * NCCL_UNIQUE_ID_BYTES + 1];
	gpu_hex_encode(id, sizeof(*id), hex, sizeof(hex));
	wmsg_result(json_pack("{s:s}", "unique_id", hex));
	return 0;
}
