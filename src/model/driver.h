/* The NVIDIA kernel driver as the filesystem shows it, as data
 * (probe/driver.c reads it). */
#ifndef ND_MODEL_DRIVER_H
#define ND_MODEL_DRIVER_H
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

#endif
