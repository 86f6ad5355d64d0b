/* The NVIDIA kernel driver as the filesystem shows it: /proc/driver/nvidia,
 * /sys/module/nvidia*, /dev/nvidia* nodes. No driver call. */
#ifndef ND_PROBE_DRIVER_H
#define ND_PROBE_DRIVER_H
#include <stdbool.h>
#include <stddef.h>

struct driver_facts {
	bool proc_present;      /* /proc/driver/nvidia/version readable */
	char version[32];       /* "580.159.04" from /proc, "" when unknown */
	bool open_module;       /* "Open Kernel Module" */
	char module_version[32];/* /sys/module/nvidia/version */
	bool nvidia_loaded, uvm_loaded, peermem_loaded, modeset_loaded, drm_loaded;
	int dev_gpu_nodes;      /* /dev/nvidia0.. */
	bool dev_ctl, dev_uvm;  /* /dev/nvidiactl, /dev/nvidia-uvm */
	int dev_nvswitch_nodes; /* /dev/nvidia-nvswitch* */
	char dev_list[512];     /* names, space separated */
	bool fabricmanager_state_known;
};

/* Parses the first line of /proc/driver/nvidia/version. */
bool driver_parse_version(const char *text, char *version, size_t versz, bool *open_module);
void driver_probe(struct driver_facts *d);
/* Model and UUID of the GPU at bdf from /proc/driver/nvidia/gpus/BDF/information
 * ("Model: NVIDIA H200", "GPU UUID: GPU-..."); a field the file lacks is left
 * as it was. 0, or -errno (-ENAMETOOLONG for a bdf that makes no path). */
int driver_gpu_info(const char *bdf, char *model, size_t modelsz, char *uuid, size_t uuidsz);

#endif
