/* `sys`: the NVSwitch fabric's host side. NVSwitches on the PCI bus (vendor
 * 0x10de, class 0x0680) and their /dev/nvidia-nvswitchN nodes; the NVIDIA
 * Fabric Manager (installed, running, enabled, its version against the
 * driver's, the errors of its log since it last started); the IMEX daemon
 * and channels of multi-node NVLink. Without an NVSwitch the section says
 * "no NVSwitch fabric" and no fabric manager finding is made (a cloud image
 * with the package installed is not a fault). Inside a container the host's
 * services and processes cannot be seen: a note says so instead of a
 * finding, and `topo` (NVML's fabric state per GPU) is the judge there. */
#include "analyze/sys.h"
#include "kb/findings.h"
#include "util/errtext.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

static bool in_container(const struct host_facts *h)
{
	return h->dockerenv || h->containerenv || h->kubernetes || h->cgroup_hint[0];
}

/* "570" of "570.124.06" */
static void driver_branch(const char *v, char *out, size_t outsz)
{
	size_t n = strcspn(v, ".");
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, v, n);
	out[n] = '\0';
}

static void fix_install_matching(struct finding *f, const char *driver)
{
	char branch[16];
	driver_branch(driver, branch, sizeof(branch));
	finding_fix(f, "shell", "Debian/Ubuntu: the package of exactly the driver's version",
		    "sudo apt-get install nvidia-fabricmanager-%s=%s-1", branch, driver);
	finding_fix(f, "shell", "RHEL/Rocky: the same version", "sudo dnf install nvidia-fabricmanager-%s", driver);
}

/* The version the running (or installed) fabric manager has, and where it
 * was read: the log's last start line while it runs, else the package. */
static const char *fm_version(const struct fabric_facts *f, const char **src)
{
	if (f->fm_pid && f->fm_log_version[0]) {
		*src = f->fm_log;
		return f->fm_log_version;
	}
	if (f->fm_pkg_version[0]) {
		*src = "/var/lib/dpkg/status";
		return f->fm_pkg_version;
	}
	if (f->fm_log_version[0]) {
		*src = f->fm_log;
		return f->fm_log_version;
	}
	*src = NULL;
	return NULL;
}

static void facts(struct section *s, const struct fabric_facts *f, int nsw, int nodes)
{
	section_add(s, "nvswitches", "NVSwitches on the PCI bus", val_int(nsw));
	section_add(s, "nvswitch_nodes", "/dev/nvidia-nvswitch nodes", val_int(nodes));
	bool installed = f->fm_binary || f->fm_unit[0] || f->fm_pkg_version[0];
	struct kv *kv = section_add(s, "fabric_manager_installed", "fabric manager", val_str(installed ? "installed" : "not installed"));
	if (!installed && nsw == 0 && nodes == 0)
		kv->show = SHOW_JSON_ONLY; /* nothing to say on a machine without NVSwitch */
	if (!installed && !f->imex_binary && !f->imex_config)
		return;
	if (installed) {
		section_add(s, "fabric_manager_unit", "unit file", f->fm_unit[0] ? val_str(f->fm_unit) : val_unknown("missing"));
		section_add(s, "fabric_manager_enabled", "enabled at boot", val_bool(f->fm_enabled));
		char pidtext[48];
		snprintf(pidtext, sizeof(pidtext), "running (pid %d)", f->fm_pid);
		if (f->proc_err)
			section_add(s, "fabric_manager_pid", "process", val_unknown(sr_reason(f->proc_err)));
		else
			section_add(s, "fabric_manager_pid", "process",
				    f->fm_pid ? val_with_display(val_int(f->fm_pid), pidtext)
					      : val_with_display(val_unknown("not running"), "not running"));
		const char *src;
		const char *v = fm_version(f, &src);
		section_add(s, "fabric_manager_version", "version", v ? val_str(v) : val_unknown("unknown"));
		if (f->fm_pkg_name[0])
			section_add(s, "fabric_manager_package", "package", val_strf("%s %s", f->fm_pkg_name, f->fm_pkg_version));
		section_add(s, "fabric_manager_log", "log", f->fm_log_syslog ? val_str("syslog (LOG_FILE_NAME is empty)")
							: f->fm_log_err ? val_unknown(sr_reason(f->fm_log_err)) : val_str(f->fm_log));
		if (!f->fm_log_err)
			section_add(s, "fabric_manager_log_errors", "errors since its last start", val_int(f->fm_log_errors));
	}
	if (f->imex_binary || f->imex_config || f->imex_pid) {
		section_add(s, "imex_configured", "IMEX nodes_config.cfg", val_bool(f->imex_config));
		section_add(s, "imex_pid", "IMEX daemon",
			    f->imex_pid ? val_with_display(val_int(f->imex_pid), "running")
					: val_with_display(val_unknown("not running"), "not running"));
		section_add(s, "imex_channels", "IMEX channels", f->imex_channel_dir ? val_int(f->imex_channels) : val_unknown("missing"));
	}
}

static void fm_findings(struct result *r, struct sys_ctx *c, const struct fabric_facts *f, int nsw, int nodes)
{
	const char *drv = c->drv->version[0] ? c->drv->version : NULL;
	bool installed = f->fm_binary || f->fm_unit[0] || f->fm_pkg_version[0];
	struct finding *x;
	if (!installed) {
		x = finding_add(r, FID_FABRIC_MANAGER_NOT_INSTALLED, SEV_ERROR,
				"%d NVSwitch%s here but no fabric manager is installed", nsw ? nsw : nodes, (nsw ? nsw : nodes) == 1 ? "" : "es");
		finding_evidence(x, NULL, 0, "%d NVSwitch PCI function%s (10de, class 0680), %d /dev/nvidia-nvswitch node%s", nsw,
				 nsw == 1 ? "" : "s", nodes, nodes == 1 ? "" : "s");
		finding_evidence(x, FM_BINARY, 0, "missing; no %s unit, no nvidia-fabricmanager package", FM_UNIT);
		if (drv)
			fix_install_matching(x, drv);
		finding_fix(x, "shell", "then start it now and at every boot", "sudo systemctl enable --now nvidia-fabricmanager");
		return;
	}
	if (!f->fm_pid && !f->proc_err) {
		x = finding_add(r, FID_FABRIC_MANAGER_NOT_RUNNING, SEV_ERROR, "the fabric manager is not running (%d NVSwitch%s)",
				nsw ? nsw : nodes, (nsw ? nsw : nodes) == 1 ? "" : "es");
		finding_evidence(x, "/proc", 0, "no nv-fabricmanager process");
		if (f->fm_unit[0])
			finding_evidence(x, f->fm_unit, 0, "installed%s", f->fm_enabled ? ", enabled" : ", not enabled");
		if (f->fm_nlast)
			finding_evidence(x, f->fm_log, 0, "last error: %s", f->fm_last_errors[f->fm_nlast - 1]);
		finding_fix(x, "shell", "why it is not running", "journalctl -u nvidia-fabricmanager -b --no-pager | tail -50");
		finding_fix(x, "shell", "when it never ran since boot", "sudo systemctl enable --now nvidia-fabricmanager");
		finding_fix(x, "shell", "when it ran and stopped: reset the GPUs and NVSwitches first (no GPU job may run)",
			    "sudo systemctl stop nvidia-fabricmanager; sudo nvidia-smi -r && sudo systemctl start nvidia-fabricmanager");
		finding_fix(x, "env", "avoids NVLS (multicast) failures meanwhile; CUDA error 802 needs the fabric manager",
			    "export NCCL_NVLS_ENABLE=0");
	} else if (f->fm_unit[0] && !f->fm_enabled) {
		x = finding_add(r, FID_FABRIC_MANAGER_NOT_ENABLED, SEV_WARNING, "the fabric manager runs but is not enabled at boot");
		finding_evidence(x, f->fm_unit, 0, "no /etc/systemd/system/*.wants/%s link", FM_UNIT);
		finding_fix(x, "shell", NULL, "sudo systemctl enable nvidia-fabricmanager");
	}
	const char *src;
	const char *v = fm_version(f, &src);
	if (v && drv && strcmp(v, drv) != 0) {
		x = finding_add(r, FID_FABRIC_MANAGER_VERSION_MISMATCH, SEV_ERROR, "fabric manager %s, driver %s: they must match exactly", v, drv);
		finding_evidence(x, src, 0, "fabric manager version %s", v);
		finding_evidence(x, "/proc/driver/nvidia/version", 0, "driver %s", drv);
		if (f->fm_pkg_version[0] && f->fm_log_version[0] && strcmp(f->fm_pkg_version, f->fm_log_version) != 0)
			finding_evidence(x, NULL, 0, "installed package %s, running %s: upgraded without a restart", f->fm_pkg_version,
					 f->fm_log_version);
		fix_install_matching(x, drv);
		finding_fix(x, "shell", "then restart it (a new driver: reboot instead)", "sudo systemctl restart nvidia-fabricmanager");
	}
	if (!f->fm_log_err && f->fm_log_errors > 0) {
		x = finding_add(r, FID_FABRIC_MANAGER_LOG_ERRORS, SEV_WARNING, "the fabric manager logged %d error%s since it last started",
				f->fm_log_errors, f->fm_log_errors == 1 ? "" : "s");
		for (int i = 0; i < f->fm_nlast; i++)
			finding_evidence(x, f->fm_log, 0, "%s", f->fm_last_errors[i]);
		finding_fix(x, "shell", "the whole story", "sudo tail -200 %s", f->fm_log);
	}
}

static void imex_findings(struct result *r, const struct fabric_facts *f)
{
	struct finding *x;
	if (f->imex_config && !f->imex_pid && !f->proc_err) {
		x = finding_add(r, FID_IMEX_NOT_RUNNING, SEV_WARNING, "IMEX is configured but nvidia-imex is not running");
		finding_evidence(x, IMEX_CONFIG_DIR "/nodes_config.cfg", 0, "present");
		finding_evidence(x, "/proc", 0, "no nvidia-imex process");
		finding_fix(x, "shell", NULL, "sudo systemctl enable --now nvidia-imex");
	} else if (f->imex_pid && f->imex_channels == 0) {
		x = finding_add(r, FID_IMEX_NO_CHANNELS, SEV_WARNING, "nvidia-imex runs but there is no IMEX channel device");
		finding_evidence(x, IMEX_CHANNEL_DIR, 0, "%s", f->imex_channel_dir ? "no channelN node" : "missing");
		finding_fix(x, "shell", "creates channel 0 when the driver loads",
			    "echo 'options nvidia NVreg_CreateImexChannel0=1' | sudo tee /etc/modprobe.d/nvidia-imex.conf");
	}
}

void sys_report_fabric(struct result *r, struct sys_ctx *c)
{
	int nsw = 0, nodes = c->drv->dev_nvswitch_nodes;
	for (size_t i = 0; i < c->pci->n; i++)
		nsw += pci_is_nvswitch(&c->pci->devs[i]);
	const struct fabric_facts *f = &c->m->fabric;
	struct section *s = result_section(r, "fabric", "NVSwitch fabric");
	section_add(s, "nvswitch_fabric", "NVSwitch fabric", val_bool(nsw > 0 || nodes > 0))->show = SHOW_JSON_ONLY;
	facts(s, f, nsw, nodes);
	if (nsw == 0 && nodes == 0) {
		section_note(s, "no NVSwitch fabric: no NVSwitch on the PCI bus and no /dev/nvidia-nvswitch node%s",
			     c->pci_err ? " (the PCI bus could not be read)" : "");
		return;
	}
	if (in_container(c->host) && !f->fm_pid && !f->fm_binary) {
		section_note(s, "inside a container: the host's fabric manager cannot be seen from here; check it on the host "
				"(systemctl status nvidia-fabricmanager), `nccl-doctor topo` shows each GPU's fabric state");
		imex_findings(r, f);
		return;
	}
	if (f->proc_err)
		section_note(s, "cannot list /proc (%s): whether the fabric manager runs is unknown", sr_strerror(f->proc_err));
	fm_findings(r, c, f, nsw, nodes);
	imex_findings(r, f);
}
