/* Worker task `cuda-info`: the CUDA driver's view: cuInit, driver version,
 * each device (name, PCI bus id, memory, compute capability, NVSwitch
 * multicast support: CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, CUDA 12.1+) and
 * cuDeviceCanAccessPeer for every ordered pair. A failed call is reported
 * with its CUresult code and name. */
#include "gpu/tasks.h"
#include "gpu/wmsg.h"
#include "model/vendor_reason.h"
#include "util/jsonx.h"
#include "nvlib/nvlib.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct cuda_api *cu;

/* A failed CUDA call, reported (the task goes on with the next device). */
static void cu_error(const char *call, CUresult r)
{
	gpu_cuda_error(cu, call, r);
}

int gpu_task_cuda_info(int argc, char **argv, const char *nccl_path)
{
	(void)argc;
	(void)argv;
	(void)nccl_path;
	const struct vendor_lib *lib;
	if (gpu_load_cuda(&cu, &lib))
		return 1;
	json_t *out = json_object();
	json_object_set_new(out, "library", json_str_lossy(lib->path));
	int v = 0;
	char buf[256];
	wmsg_stage("cuDriverGetVersion");
	if (cu->cuDriverGetVersion(&v) == CUDA_SUCCESS) {
		json_object_set_new(out, "driver_version_code", json_integer(v));
		json_object_set_new(out, "driver_version", json_string(cuda_version_text(v, buf, sizeof(buf))));
	}
	wmsg_stage("cuInit");
	CUresult e = cu->cuInit(0);
	if (e != CUDA_SUCCESS) {
		cu_error("cuInit", e);
		json_decref(out);
		return 1;
	}
	int n = 0;
	wmsg_stage("cuDeviceGetCount");
	if ((e = cu->cuDeviceGetCount(&n)) != CUDA_SUCCESS) {
		cu_error("cuDeviceGetCount", e);
		json_decref(out);
		return 1;
	}
	if (n > 64)
		n = 64;
	json_t *devs = json_array();
	CUdevice d[64];
	for (int i = 0; i < n; i++) {
		json_t *o = json_pack("{s:i}", "ordinal", i);
		wmsg_stage("device %d cuDeviceGet", i);
		if ((e = cu->cuDeviceGet(&d[i], i)) != CUDA_SUCCESS) {
			json_object_set_new(o, "error", json_string(cuda_error_name(e)));
			json_array_append_new(devs, o);
			d[i] = -1;
			continue;
		}
		wmsg_stage("device %d cuDeviceGetName", i);
		if (cu->cuDeviceGetName(buf, sizeof(buf), d[i]) == CUDA_SUCCESS)
			json_object_set_new(o, "name", json_str_lossy(buf));
		wmsg_stage("device %d cuDeviceGetPCIBusId", i);
		if (cu->cuDeviceGetPCIBusId(buf, sizeof(buf), d[i]) == CUDA_SUCCESS) {
			for (char *p = buf; *p; p++)
				if (*p >= 'A' && *p <= 'F')
					*p = (char)(*p - 'A' + 'a');
			unsigned dom, bus, dev, fn;
			char bdf[32];
			if (sscanf(buf, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) == 4) {
				snprintf(bdf, sizeof(bdf), "%04x:%02x:%02x.%x", dom & 0xffff, bus & 0xff, dev & 0x1f, fn & 7);
				json_object_set_new(o, "bdf", json_string(bdf));
			}
		}
		size_t mem = 0;
		wmsg_stage("device %d cuDeviceTotalMem", i);
		if (cu->cuDeviceTotalMem(&mem, d[i]) == CUDA_SUCCESS)
			json_object_set_new(o, "memory_total", json_integer((json_int_t)mem));
		int maj = 0, min = 0;
		wmsg_stage("device %d cuDeviceGetAttribute", i);
		if (cu->cuDeviceGetAttribute(&maj, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d[i]) == CUDA_SUCCESS &&
		    cu->cuDeviceGetAttribute(&min, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d[i]) == CUDA_SUCCESS)
			json_object_set_new(o, "compute_capability", json_sprintf("%d.%d", maj, min));
		int mc = 0;
		wmsg_stage("device %d cuDeviceGetAttribute MULTICAST_SUPPORTED", i);
		if ((e = cu->cuDeviceGetAttribute(&mc, CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED, d[i])) == CUDA_SUCCESS)
			json_object_set_new(o, "multicast_supported", json_boolean(mc != 0));
		else /* a driver before 12.1 does not know the attribute: CUDA_ERROR_INVALID_VALUE */
			json_object_set_new(o, "multicast_error", json_string(cuda_error_name(e)));
		json_array_append_new(devs, o);
	}
	json_object_set_new(out, "devices", devs);
	json_t *peers = json_array();
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++) {
			if (a == b || d[a] < 0 || d[b] < 0)
				continue;
			int can = 0;
			wmsg_stage("device %d-%d cuDeviceCanAccessPeer", a, b);
			e = cu->cuDeviceCanAccessPeer(&can, d[a], d[b]);
			json_t *p = json_pack("{s:i,s:i}", "a", a, "b", b);
			if (e == CUDA_SUCCESS)
				json_object_set_new(p, "can_access_peer", json_boolean(can));
			else
				json_object_set_new(p, "error", json_string(cuda_error_name(e)));
			json_array_append_new(peers, p);
		}
	json_object_set_new(out, "peers", peers);
	wmsg_result(out);
	return 0;
}
