/* `sys`: the host (kernel, CPU, virtualisation, NUMA, ASPM), the container,
 * /dev/shm, resource limits and systemd-logind's RemoveIPC. */
#include "analyze/sys.h"
#include "kb/findings.h"
#include "util/errtext.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static struct value limit_value(const struct rlimit_pair *p, bool bytes)
{
	char buf[64];
	if (!p->known)
		return val_unknown("cannot read /proc/self/limits");
	if (p->soft == LIMIT_UNLIMITED)
		return val_with_display(val_str("unlimited"), "unlimited");
	if (bytes)
		return val_with_display(val_int((long long)p->soft), fmt_bytes(p->soft, buf, sizeof(buf)));
	return val_int((long long)p->soft);
}

static bool in_container(const struct host_facts *h)
{
	return h->dockerenv || h->containerenv || h->kubernetes || h->cgroup_hint[0];
}

void sys_report_host(struct result *r, struct sys_ctx *c)
{
	const struct host_facts *h = c->host;
	struct section *s = result_section(r, "host", "Host");
	section_add(s, "hostname", "hostname", h->hostname[0] ? val_str(h->hostname) : val_unknown("unknown"));
	section_add(s, "kernel", "kernel", h->kernel[0] ? val_str(h->kernel) : val_unknown("unknown"));
	section_add(s, "cpu_vendor", "CPU vendor", h->cpu.vendor[0] ? val_str(h->cpu.vendor) : val_unknown("unknown"));
	section_add(s, "cpu_model", "CPU model", h->cpu.model[0] ? val_str(h->cpu.model) : val_unknown("unknown"));
	section_add(s, "cpus", "CPUs", h->cpu.ncpus ? val_int(h->cpu.ncpus) : val_unknown("unknown"));
	section_add(s, "numa_nodes", "NUMA nodes", h->numa_nodes ? val_int(h->numa_nodes) : val_unknown("unknown"));
	char virt[512];
	if (h->is_vm)
		snprintf(virt, sizeof(virt), "virtual machine (%s%s%s%s%s)", h->cpu.hypervisor ? "hypervisor CPU flag" : "",
			 h->dmi_vendor[0] ? (h->cpu.hypervisor ? ", " : "") : "", h->dmi_vendor,
			 h->dmi_product[0] ? " " : "", h->dmi_product);
	else
		snprintf(virt, sizeof(virt), "bare metal");
	section_add(s, "virtualization", "virtualization", val_str(virt));
	section_add(s, "is_vm", "is VM", val_bool(h->is_vm))->show = SHOW_JSON_ONLY;
	if (h->dmi_vendor[0])
		section_add(s, "dmi_vendor", "DMI vendor", val_str(h->dmi_vendor))->show = SHOW_JSON_ONLY;
	if (h->dmi_product[0])
		section_add(s, "dmi_product", "DMI product", val_str(h->dmi_product))->show = SHOW_JSON_ONLY;
	section_add(s, "aspm_policy", "PCIe ASPM policy", h->aspm_policy[0] ? val_str(h->aspm_policy) : val_unknown("unknown"));
	section_add(s, "numa_balancing", "kernel.numa_balancing",
		    h->numa_balancing >= 0 ? val_int(h->numa_balancing) : val_unknown("unknown"));

	if (h->is_vm) {
		struct finding *f = finding_add(r, FID_VIRTUAL_MACHINE, SEV_INFO, "running in a virtual machine%s%s",
						       h->dmi_product[0] ? ": " : "", h->dmi_product);
		if (h->cpu.hypervisor)
			finding_evidence(f, "/proc/cpuinfo", 0, "flags: hypervisor");
		if (h->dmi_vendor[0])
			finding_evidence(f, "/sys/class/dmi/id/sys_vendor", 0, "%s", h->dmi_vendor);
		finding_fix(f, "shell", "P2P support per GPU pair as the hypervisor reports it", "nvidia-smi topo -p2p rw");
		finding_fix(f, "env", "if NCCL hangs at its first collective here", "NCCL_P2P_DISABLE=1");
	}
	if (str_casestr(h->cpu.vendor, "AuthenticAMD") && c->ngpus >= 2) {
		struct finding *f = finding_add(r, FID_AMD_CPU_P2P_DEFAULT, SEV_INFO,
			"AMD host with %d GPUs: NCCL may use P2P across the CPU here", c->ngpus);
		finding_evidence(f, "/proc/cpuinfo", 0, "vendor_id: %s", h->cpu.vendor);
		finding_fix(f, "env", "only if P2P across the CPU hangs or is slow", "NCCL_P2P_LEVEL=PXB");
	}
	if (h->aspm_policy[0] && (strcmp(h->aspm_policy, "powersave") == 0 || strcmp(h->aspm_policy, "powersupersave") == 0) &&
	    c->ngpus > 0) {
		struct finding *f = finding_add(r, FID_ASPM_POWERSAVE, SEV_INFO, "PCIe ASPM policy is '%s'", h->aspm_policy);
		finding_evidence(f, "/sys/module/pcie_aspm/parameters/policy", 0, "[%s]", h->aspm_policy);
		finding_fix(f, "kernel", "keeps PCIe links in L0; costs some idle power", "pcie_aspm=off");
	}

	/* container */
	struct section *cs = result_section(r, "container", "Container");
	const char *runtime = h->kubernetes ? "kubernetes pod" : h->dockerenv ? "docker" : h->containerenv ? "podman"
			      : h->cgroup_hint[0] ? h->cgroup_hint : "none";
	section_add(cs, "runtime", "container", val_str(runtime));
	section_add(cs, "dockerenv", "/.dockerenv", val_bool(h->dockerenv))->show = SHOW_JSON_ONLY;
	section_add(cs, "containerenv", "/run/.containerenv", val_bool(h->containerenv))->show = SHOW_JSON_ONLY;
	section_add(cs, "kubernetes", "kubernetes", val_bool(h->kubernetes))->show = SHOW_JSON_ONLY;
	section_add(cs, "cgroup", "cgroup of PID 1", h->cgroup_hint[0] ? val_str(h->cgroup_hint) : val_str("host"));
	char buf[64], b2[64];
	struct kv *kv;
	if (!h->shm_mounted && !h->shm_size_known && !h->mountinfo_err) {
		kv = section_add(cs, "shm_size", "/dev/shm size", val_unknown("not mounted"));
		kv->mark = MARK_BAD;
	} else if (h->shm_size_known) {
		kv = section_add(cs, "shm_size", "/dev/shm size",
				 val_with_display(val_int((long long)h->shm_size), fmt_bytes(h->shm_size, buf, sizeof(buf))));
		if (h->shm_size < (1ULL << 30))
			kv->mark = h->shm_size < (512ULL << 20) ? MARK_BAD : MARK_WARN;
	} else {
		section_add(cs, "shm_size", "/dev/shm size", val_unknown("unknown"));
	}
	section_add(cs, "shm_free", "/dev/shm free",
		    h->shm_free_known ? val_with_display(val_int((long long)h->shm_free), fmt_bytes(h->shm_free, b2, sizeof(b2)))
				      : val_unknown("unknown"));
	char mi[96];
	if (h->mountinfo_err == -ENOENT)
		str_copy(mi, "no /proc/self/mountinfo", sizeof(mi));
	else
		snprintf(mi, sizeof(mi), "mountinfo unreadable: %s%s", sr_strerror(h->mountinfo_err),
			 h->mountinfo_err == -EACCES || h->mountinfo_err == -EPERM ? ", needs root" : "");
	section_add(cs, "shm_fstype", "/dev/shm filesystem", h->shm_fstype[0] ? val_str(h->shm_fstype) :
		    val_unknown(h->mountinfo_err ? mi : "not in mountinfo"));
	section_add(cs, "shm_nccl_files", "NCCL segments in /dev/shm",
		    h->shm_nccl_files >= 0 ? val_int(h->shm_nccl_files) : val_unknown("cannot list /dev/shm"));

	bool docker = h->dockerenv || !strcmp(h->cgroup_hint, "docker");
	if (!h->shm_mounted && !h->shm_size_known && !h->mountinfo_err) {
		struct finding *f = finding_add(r, FID_SHM_NOT_MOUNTED, SEV_ERROR, "/dev/shm is not mounted");
		finding_evidence(f, "/proc/self/mountinfo", 0, "no mount at /dev/shm");
		finding_fix(f, "docker", NULL, "docker run --ipc=host ...");
		finding_fix(f, "shell", NULL, "sudo mount -t tmpfs -o size=16g tmpfs /dev/shm");
	} else if (h->shm_size_known && h->shm_size < (1ULL << 30)) {
		struct finding *f = finding_add(r, FID_SHM_TOO_SMALL, h->shm_size < (512ULL << 20) ? SEV_ERROR : SEV_WARNING,
			"/dev/shm is only %s%s", fmt_bytes(h->shm_size, buf, sizeof(buf)),
			h->shm_size == (64ULL << 20) && in_container(h) ? " (Docker's default)" : "");
		finding_evidence(f, "/dev/shm", 0, "size %s, free %s", buf, h->shm_free_known ? b2 : "unknown");
		finding_fix(f, "docker", "shares the host's IPC namespace and /dev/shm", "docker run --ipc=host ...");
		finding_fix(f, "docker", "a private /dev/shm of that size", "docker run --shm-size=16g ...");
		finding_fix(f, "k8s", "mount a memory-backed emptyDir over /dev/shm",
			    "volumes: [{name: dshm, emptyDir: {medium: Memory, sizeLimit: 16Gi}}]; volumeMounts: [{name: dshm, mountPath: /dev/shm}]");
		if (!docker && !h->kubernetes)
			finding_fix(f, "shell", "until reboot", "sudo mount -o remount,size=16g /dev/shm");
	} else if (h->shm_free_known && h->shm_size_known && h->shm_free < (256ULL << 20)) {
		struct finding *f = finding_add(r, FID_SHM_LOW_FREE, SEV_WARNING, "/dev/shm has only %s free of %s",
						       fmt_bytes(h->shm_free, b2, sizeof(b2)), fmt_bytes(h->shm_size, buf, sizeof(buf)));
		finding_evidence(f, "/dev/shm", 0, "free %s", b2);
		finding_fix(f, "shell", "see what fills it", "du -sh /dev/shm/* | sort -h | tail");
	}
	if (h->shm_nccl_files > 0) {
		struct finding *f = finding_add(r, FID_SHM_STALE_SEGMENTS, SEV_WARNING,
			"%d NCCL segment%s in /dev/shm (%s): leftovers unless an NCCL job runs now", h->shm_nccl_files,
			h->shm_nccl_files == 1 ? "" : "s", fmt_bytes(h->shm_nccl_bytes, buf, sizeof(buf)));
		finding_evidence(f, "/dev/shm", 0, "%d files named nccl-*", h->shm_nccl_files);
		finding_fix(f, "shell", "only when no NCCL job is running", "rm -f /dev/shm/nccl-*");
	}
}

void sys_report_limits(struct result *r, struct sys_ctx *c)
{
	const struct host_facts *h = c->host;
	struct section *s = result_section(r, "limits", "Limits");
	struct kv *ml = section_add(s, "memlock", "max locked memory (ulimit -l)", limit_value(&h->memlock, true));
	struct kv *st = section_add(s, "stack", "stack size (ulimit -s)", limit_value(&h->stack, true));
	struct kv *nf = section_add(s, "nofile", "open files (ulimit -n)", limit_value(&h->nofile, false));
	section_add(s, "removeipc", "logind RemoveIPC",
		    h->removeipc[0] ? val_str(h->removeipc) : val_with_display(val_str("yes"), "yes (default)"));
	section_add(s, "file_max", "fs.file-max", h->file_max >= 0 ? val_int(h->file_max) : val_unknown("unknown"));
	char buf[64];
	if (h->memlock.known && h->memlock.soft != LIMIT_UNLIMITED) {
		ml->mark = c->has_ib ? MARK_BAD : MARK_WARN;
		struct finding *f = finding_add(r, FID_MEMLOCK_LIMITED, c->has_ib ? SEV_WARNING : SEV_INFO,
			"locked memory is limited to %s%s", fmt_bytes(h->memlock.soft, buf, sizeof(buf)),
			c->has_ib ? " with RDMA devices present" : " (matters for RDMA only)");
		finding_evidence(f, "/proc/self/limits", 0, "Max locked memory %llu", (unsigned long long)h->memlock.soft);
		finding_fix(f, "docker", NULL, "docker run --ulimit memlock=-1 ...");
		finding_fix(f, "shell", "for login sessions", "echo '* - memlock unlimited' | sudo tee /etc/security/limits.d/99-memlock.conf");
		finding_fix(f, "note", NULL, "systemd services: LimitMEMLOCK=infinity");
	}
	if (h->stack.known && h->stack.soft == LIMIT_UNLIMITED) {
		st->mark = MARK_WARN;
		struct finding *f = finding_add(r, FID_STACK_UNLIMITED, SEV_WARNING, "stack size limit is unlimited");
		finding_evidence(f, "/proc/self/limits", 0, "Max stack size unlimited");
		finding_fix(f, "shell", "before starting the job", "ulimit -s 8192");
	}
	if (h->nofile.known && h->nofile.soft != LIMIT_UNLIMITED && h->nofile.soft < 65536) {
		nf->mark = h->nofile.soft < 4096 ? MARK_BAD : MARK_WARN;
		struct finding *f = finding_add(r, FID_NOFILE_LOW, h->nofile.soft < 4096 ? SEV_WARNING : SEV_INFO,
						       "open-files limit is %llu", (unsigned long long)h->nofile.soft);
		finding_evidence(f, "/proc/self/limits", 0, "Max open files %llu %llu", (unsigned long long)h->nofile.soft,
				 (unsigned long long)h->nofile.hard);
		/* without root the soft limit goes up to the hard limit, no further */
		bool unl = h->nofile.hard == LIMIT_UNLIMITED;
		unsigned long long hard = (unsigned long long)h->nofile.hard;
		if (unl || hard >= 65536) {
			unsigned long long to = unl || hard > 1048576 ? 1048576ULL : hard;
			finding_fix(f, "shell", "raises the soft limit within the hard limit: no root needed", "ulimit -n %llu", to);
		} else {
			if (hard > h->nofile.soft)
				finding_fix(f, "shell", "the most possible without root: the hard limit", "ulimit -n %llu", hard);
			finding_fix(f, "shell", "the hard limit itself: needs root, applies from the next login",
				    "echo '* - nofile 1048576' | sudo tee /etc/security/limits.d/99-nofile.conf");
			finding_fix(f, "note", NULL, "systemd services: LimitNOFILE=1048576");
		}
		finding_fix(f, "docker", NULL, "docker run --ulimit nofile=1048576:1048576 ...");
	}
	bool removeipc_on = !h->removeipc[0] || !strcasecmp(h->removeipc, "yes") || !strcmp(h->removeipc, "1") ||
			    !strcasecmp(h->removeipc, "true");
	bool has_logind = h->removeipc_source[0] || h->logind_conf;
	if (removeipc_on && has_logind && c->ngpus > 0 && !in_container(h)) {
		struct finding *f = finding_add(r, FID_REMOVEIPC_ENABLED, SEV_INFO,
			"systemd-logind RemoveIPC is %s: /dev/shm files of users vanish at logout",
			h->removeipc[0] ? h->removeipc : "yes (default)");
		finding_evidence(f, h->removeipc_source[0] ? h->removeipc_source : "/etc/systemd/logind.conf", 0,
				 "RemoveIPC=%s", h->removeipc[0] ? h->removeipc : "(unset, default yes)");
		finding_fix(f, "shell", "then `sudo systemctl restart systemd-logind`",
			    "echo -e '[Login]\\nRemoveIPC=no' | sudo tee /etc/systemd/logind.conf.d/99-nccl.conf");
	}
}
