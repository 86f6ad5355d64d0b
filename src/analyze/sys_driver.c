/* `sys`: the NVIDIA kernel driver, its modules and device nodes. */
#include "analyze/sys.h"
#include "kb/findings.h"

#include <stdio.h>
#include <string.h>

void sys_report_driver(struct result *r, struct sys_ctx *c)
{
	const struct driver_facts *d = c->drv;
	struct section *s = result_section(r, "driver", "NVIDIA driver");
	if (d->proc_present && d->version[0])
		section_add(s, "version", "version", val_str(d->version));
	else
		section_add(s, "version", "version", val_unknown(d->proc_present ? "unparsed" : "not loaded"));
	section_add(s, "kernel_module", "kernel module",
		    d->proc_present ? val_str(d->open_module ? "open" : "proprietary") : val_unknown("not loaded"));
	section_add(s, "module_version", "/sys/module/nvidia/version",
		    d->module_version[0] ? val_str(d->module_version) : val_unknown("missing"))->show = SHOW_JSON_ONLY;
	char mods[128];
	snprintf(mods, sizeof(mods), "%s%s%s%s%s", d->nvidia_loaded ? " nvidia" : "", d->uvm_loaded ? " nvidia_uvm" : "",
		 d->modeset_loaded ? " nvidia_modeset" : "", d->drm_loaded ? " nvidia_drm" : "",
		 d->peermem_loaded ? " nvidia_peermem" : "");
	section_add(s, "modules", "modules", val_str(mods[0] ? mods + 1 : "none"));
	section_add(s, "nvidia_uvm", "nvidia_uvm", val_bool(d->uvm_loaded))->show = SHOW_JSON_ONLY;
	section_add(s, "nvidia_peermem", "nvidia_peermem", val_bool(d->peermem_loaded))->show = SHOW_JSON_ONLY;
	section_add(s, "dev_nodes", "/dev nodes", val_str(d->dev_list[0] ? d->dev_list : "none"));
	section_add(s, "dev_gpu_nodes", "GPU device nodes", val_int(d->dev_gpu_nodes))->show = SHOW_JSON_ONLY;
	if (d->dev_nvswitch_nodes)
		section_add(s, "nvswitch_nodes", "NVSwitch device nodes", val_int(d->dev_nvswitch_nodes));

	if (c->ngpus == 0)
		return;
	if (!d->proc_present) {
		struct finding *f = finding_add(r, FID_NVIDIA_DRIVER_NOT_LOADED, SEV_ERROR,
			"%d NVIDIA GPU%s on the PCI bus but the driver is not loaded", c->ngpus, c->ngpus == 1 ? "" : "s");
		finding_evidence(f, "/proc/driver/nvidia/version", 0, "missing");
		finding_fix(f, "shell", "and read why it failed", "sudo modprobe nvidia && dmesg | grep -i nvrm | tail");
		return;
	}
	if (d->version[0] && d->module_version[0] && strcmp(d->version, d->module_version) != 0) {
		struct finding *f = finding_add(r, FID_DRIVER_MODULE_MISMATCH, SEV_WARNING,
			"running driver %s but /sys/module/nvidia reports %s", d->version, d->module_version);
		finding_evidence(f, "/proc/driver/nvidia/version", 0, "%s", d->version);
		finding_evidence(f, "/sys/module/nvidia/version", 0, "%s", d->module_version);
		finding_fix(f, "shell", "or stop all GPU processes and reload the modules", "sudo reboot");
	}
	if (!d->uvm_loaded || !d->dev_uvm) {
		struct finding *f = finding_add(r, FID_NVIDIA_UVM_NOT_LOADED, SEV_WARNING, "%s",
			!d->uvm_loaded ? "the nvidia_uvm module is not loaded" : "/dev/nvidia-uvm is missing");
		finding_evidence(f, NULL, 0, "/sys/module/nvidia_uvm %s, /dev/nvidia-uvm %s", d->uvm_loaded ? "present" : "missing",
				 d->dev_uvm ? "present" : "missing");
		finding_fix(f, "shell", NULL, "sudo modprobe nvidia-uvm && sudo nvidia-modprobe -u -c=0");
		finding_fix(f, "docker", "the NVIDIA Container Toolkit passes it", "docker run --gpus all ...");
	}
	if (!d->dev_ctl || d->dev_gpu_nodes == 0) {
		struct finding *f = finding_add(r, FID_DEV_NODES_MISSING, SEV_WARNING, "%s",
			!d->dev_ctl ? "/dev/nvidiactl is missing" : "no /dev/nvidiaN device node");
		finding_evidence(f, "/dev", 0, "nvidia nodes: %s", d->dev_list[0] ? d->dev_list : "none");
		finding_fix(f, "docker", NULL, "docker run --gpus all ...");
		finding_fix(f, "shell", "creates the nodes on the host", "sudo nvidia-modprobe -c 0");
	}
	if (c->has_ib && !d->peermem_loaded && !d->open_module) {
		struct finding *f = finding_add(r, FID_PEERMEM_NOT_LOADED, SEV_INFO,
			"RDMA devices present but nvidia_peermem is not loaded");
		finding_evidence(f, NULL, 0, "/sys/module/nvidia_peermem missing");
		finding_fix(f, "shell", NULL, "sudo modprobe nvidia-peermem");
	}
}

bool sys_no_nvidia_here(const struct pci_list *pl, const struct driver_facts *d)
{
	if (!pl || !d)
		return false; /* an unreadable bus proves nothing */
	for (size_t i = 0; i < pl->n; i++)
		if (pci_is_nvidia_gpu(&pl->devs[i]) || pci_is_nvswitch(&pl->devs[i]) || pl->devs[i].ident_err)
			return false; /* a device that could not be identified may be a GPU */
	return !d->proc_present && !d->nvidia_loaded && d->dev_gpu_nodes == 0 && !d->dev_ctl;
}
