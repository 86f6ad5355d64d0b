/* Worker task `p2p-procs`: who is using each GPU, from NVML, for the
 * busy-node check before GPU-heavy tests and the wedged-GPU check after a
 * hang. Per GPU: index, bus id, UUID, compute processes (pid, memory),
 * memory in use, GPU utilisation. A call NVML does not support leaves its
 * field out; a lost GPU is reported as such.
 *
 *   {"gpus":[{"index":0,"bdf":"0000:18:00.0","uuid":"GPU-…","memory_used":N,
 *             "utilization":P,"processes":[{"pid":123,"memory":N}],"lost":false}]} */
#include "gpu/tasks.h"
#include "gpu/wmsg.h"
#include "nvlib/nvlib.h"
#include "util/jsonx.h"

#include <errno.h>
#include <stdio.h>

#define MAX_PROCS 64

static void norm_bdf(const char *in, char *out, size_t outsz)
{
	unsigned dom, bus, dev, fn;
	if (sscanf(in, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4)
		snprintf(out, outsz, "%04x:%02x:%02x.%x", dom & 0xffff, bus & 0xff, dev & 0x1f, fn & 7);
	else
		snprintf(out, outsz, "%s", in);
}

static json_t *one_gpu(const struct nvml_api *nv, unsigned i)
{
	json_t *o = json_pack("{s:i}", "index", (int)i);
	nvmlDevice_t d;
	wmsg_stage("nvmlDeviceGetHandleByIndex %u", i);
	nvmlReturn_t r = nv->nvmlDeviceGetHandleByIndex(i, &d);
	if (r != NVML_SUCCESS) {
		json_object_set_new(o, "error", json_string(nvml_error_name(r)));
		json_object_set_new(o, "lost", json_boolean(r == NVML_ERROR_GPU_IS_LOST));
		return o;
	}
	char buf[128];
	nvmlPciInfo_t pci;
	wmsg_stage("GPU %u nvmlDeviceGetPciInfo", i);
	if ((r = nv->nvmlDeviceGetPciInfo(d, &pci)) == NVML_SUCCESS) {
		norm_bdf(pci.busId, buf, sizeof(buf));
		json_object_set_new(o, "bdf", json_string(buf));
	}
	bool lost = r == NVML_ERROR_GPU_IS_LOST;
	wmsg_stage("GPU %u nvmlDeviceGetUUID", i);
	if (!lost && (r = nv->nvmlDeviceGetUUID(d, buf, sizeof(buf))) == NVML_SUCCESS)
		json_object_set_new(o, "uuid", json_str_lossy(buf));
	lost |= r == NVML_ERROR_GPU_IS_LOST;
	nvmlMemory_t mem;
	wmsg_stage("GPU %u nvmlDeviceGetMemoryInfo", i);
	if (!lost && (r = nv->nvmlDeviceGetMemoryInfo(d, &mem)) == NVML_SUCCESS) {
		json_object_set_new(o, "memory_used", json_integer((json_int_t)mem.used));
		json_object_set_new(o, "memory_total", json_integer((json_int_t)mem.total));
	}
	lost |= r == NVML_ERROR_GPU_IS_LOST;
	if (!lost && nv->nvmlDeviceGetUtilizationRates) {
		nvmlUtilization_t u;
		wmsg_stage("GPU %u nvmlDeviceGetUtilizationRates", i);
		if ((r = nv->nvmlDeviceGetUtilizationRates(d, &u)) == NVML_SUCCESS)
			json_object_set_new(o, "utilization", json_integer(u.gpu));
		lost |= r == NVML_ERROR_GPU_IS_LOST;
	}
	if (!lost && nv->nvmlDeviceGetComputeRunningProcesses) {
		nvmlProcessInfo_t procs[MAX_PROCS];
		unsigned n = MAX_PROCS;
		wmsg_stage("GPU %u nvmlDeviceGetComputeRunningProcesses", i);
		r = nv->nvmlDeviceGetComputeRunningProcesses(d, &n, procs);
		if (r == NVML_SUCCESS || r == NVML_ERROR_INSUFFICIENT_SIZE) {
			json_t *arr = json_array();
			for (unsigned k = 0; r == NVML_SUCCESS && k < n && k < MAX_PROCS; k++)
				json_array_append_new(arr, json_pack("{s:i,s:I}", "pid", (int)procs[k].pid, "memory",
								     (json_int_t)procs[k].usedGpuMemory));
			json_object_set_new(o, "processes", arr);
			json_object_set_new(o, "process_count", json_integer(n));
		}
		lost |= r == NVML_ERROR_GPU_IS_LOST;
	}
	json_object_set_new(o, "lost", json_boolean(lost));
	return o;
}

int gpu_task_p2p_procs(int argc, char **argv, const char *nccl_path)
{
	(void)argc;
	(void)argv;
	(void)nccl_path;
	const struct nvml_api *nv;
	if (gpu_load_nvml(&nv, NULL))
		return 1;
	wmsg_stage("nvmlInit");
	nvmlReturn_t r = nv->nvmlInit();
	if (r != NVML_SUCCESS) {
		wmsg_error("nvml", r, nvml_error_name(r), "nvmlInit failed: %s", nv->nvmlErrorString(r));
		return 1;
	}
	unsigned n = 0;
	wmsg_stage("nvmlDeviceGetCount");
	if ((r = nv->nvmlDeviceGetCount(&n)) != NVML_SUCCESS) {
		wmsg_error("nvml", r, nvml_error_name(r), "nvmlDeviceGetCount failed: %s", nv->nvmlErrorString(r));
		nv->nvmlShutdown();
		return 1;
	}
	json_t *gpus = json_array();
	for (unsigned i = 0; i < n && i < 64; i++)
		json_array_append_new(gpus, one_gpu(nv, i));
	nv->nvmlShutdown();
	wmsg_result(json_pack("{s:o}", "gpus", gpus));
	return 0;
}
