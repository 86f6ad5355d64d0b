/* Worker task `libs`: loads libcuda, libnvidia-ml and libnccl and reports,
 * for each, the file loaded, its version, which symbol names resolved
 * (versioned or fallback) and the loading error if any. No device work:
 * only cuDriverGetVersion, nvmlSystemGetDriverVersion after nvmlInit, and
 * ncclGetVersion. */
#include "gpu/tasks.h"
#include "gpu/wmsg.h"
#include "model/vendor_reason.h"
#include "util/jsonx.h"
#include "nvlib/nvlib.h"

#include <errno.h>
#include <string.h>

static json_t *lib_json(const struct vendor_lib *lib, int r, const struct vendor_sym *syms, size_t n, const void *table)
{
	json_t *o = json_object();
	json_object_set_new(o, "soname", json_string(lib->soname ? lib->soname : ""));
	json_object_set_new(o, "loaded", json_boolean(r == 0));
	json_object_set_new(o, "path", json_str_lossy(lib->path));
	if (r != 0) {
		json_object_set_new(o, "error", json_str_lossy(lib->error));
		json_object_set_new(o, "reason", json_string(vendor_err_reason(r)));
		if (lib->missing[0])
			json_object_set_new(o, "missing_symbol", json_string(lib->missing));
		return o;
	}
	json_t *res = json_object(), *absent = json_array();
	for (size_t i = 0; i < n; i++) {
		const char *nm = vendor_resolved_name(syms, n, table, i);
		if (nm)
			json_object_set_new(res, syms[i].field, json_string(nm));
		else
			json_array_append_new(absent, json_string(syms[i].field));
	}
	json_object_set_new(o, "symbols", res);
	json_object_set_new(o, "unavailable", absent);
	return o;
}

int gpu_task_libs(int argc, char **argv, const char *nccl_path)
{
	(void)argc;
	(void)argv;
	json_t *out = json_object();
	size_t n;
	char buf[64];

	wmsg_stage("load libcuda.so.1");
	const struct cuda_api *cu = NULL;
	const struct vendor_lib *lib;
	int r = cuda_load(&cu, &lib);
	const struct vendor_sym *s = cuda_symbols(&n);
	json_t *j = lib_json(lib, r, s, n, cu);
	if (r == 0) {
		int v = 0;
		wmsg_stage("cuDriverGetVersion");
		if (cu->cuDriverGetVersion(&v) == CUDA_SUCCESS) {
			json_object_set_new(j, "version_code", json_integer(v));
			json_object_set_new(j, "version", json_string(cuda_version_text(v, buf, sizeof(buf))));
		}
	}
	json_object_set_new(out, "cuda", j);

	wmsg_stage("load libnvidia-ml.so.1");
	const struct nvml_api *nv = NULL;
	r = nvml_load(&nv, &lib);
	s = nvml_symbols(&n);
	j = lib_json(lib, r, s, n, nv);
	if (r == 0) {
		wmsg_stage("nvmlInit");
		nvmlReturn_t e = nv->nvmlInit();
		if (e == NVML_SUCCESS) {
			char dv[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
			wmsg_stage("nvmlSystemGetDriverVersion");
			if (nv->nvmlSystemGetDriverVersion(dv, sizeof(dv)) == NVML_SUCCESS)
				json_object_set_new(j, "driver_version", json_str_lossy(dv));
			nv->nvmlShutdown();
		} else {
			json_object_set_new(j, "init_error", json_string(nvml_error_name(e)));
		}
	}
	json_object_set_new(out, "nvml", j);

	wmsg_stage("load libnccl.so.2");
	const struct nccl_api *nc = NULL;
	r = nccl_load(nccl_path, &nc, &lib);
	s = nccl_symbols(&n);
	j = lib_json(lib, r, s, n, nc);
	if (r == 0) {
		json_object_set_new(j, "version_code", json_integer(lib->version));
		json_object_set_new(j, "version", json_string(nccl_version_text(lib->version, buf, sizeof(buf))));
	}
	json_object_set_new(out, "nccl", j);
	wmsg_result(out);
	return 0;
}
