/* Host facts: see host.h. */
#include "probe/host.h"
#include "probe/live.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

static int parse_limit_value(const char *tok, uint64_t *out)
{
	if (strcmp(tok, "unlimited") == 0) {
		*out = LIMIT_UNLIMITED;
		return 0;
	}
	unsigned long long v;
	if (parse_ull(tok, 10, &v) < 0)
		return -EINVAL;
	*out = v;
	return 0;
}

int limits_parse(const char *text, const char *name, struct rlimit_pair *out)
{
	out->known = false;
	size_t nlen = strlen(name);
	for (const char *line = text; line && *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (len > nlen && strncmp(line, name, nlen) == 0 && line[nlen] == ' ') {
			char buf[256];
			str_copy(buf, line + nlen, len - nlen < sizeof(buf) ? len - nlen + 1 : sizeof(buf));
			char *save = NULL;
			char *soft = strtok_r(buf, " \t", &save);
			char *hard = strtok_r(NULL, " \t", &save);
			if (!soft || !hard || parse_limit_value(soft, &out->soft) < 0 ||
			    parse_limit_value(hard, &out->hard) < 0)
				return -EINVAL;
			out->known = true;
			return 0;
		}
		line = nl ? nl + 1 : NULL;
	}
	return -ENOENT;
}

int mountinfo_find(const char *text, const char *mountpoint, struct mount_entry *out)
{
	int ret = -ENOENT;
	char buf[2048];
	bool fits;
	for (const char *cur = text; text_next_line(&cur, buf, sizeof(buf), &fits);) {
		if (fits) {
			/* id parent maj:min root mountpoint options [optional...] - fstype source superopts */
			char *f[6] = { 0 };
			char *save = NULL;
			char *tok = strtok_r(buf, " ", &save);
			int i = 0;
			while (tok && i < 6) {
				f[i++] = tok;
				tok = strtok_r(NULL, " ", &save);
			}
			if (i == 6 && strcmp(f[4], mountpoint) == 0) {
				/* skip optional fields up to "-" */
				while (tok && strcmp(tok, "-") != 0)
					tok = strtok_r(NULL, " ", &save);
				char *fstype = tok ? strtok_r(NULL, " ", &save) : NULL;
				char *source = fstype ? strtok_r(NULL, " ", &save) : NULL;
				char *super = source ? strtok_r(NULL, " ", &save) : NULL;
				str_copy(out->mountpoint, f[4], sizeof(out->mountpoint));
				str_copy(out->fstype, fstype ? fstype : "", sizeof(out->fstype));
				snprintf(out->options, sizeof(out->options), "%s%s%s", f[5], super ? "," : "",
					 super ? super : "");
				ret = 0; /* keep going: the last mount on a point is the visible one */
			}
		}
	}
	return ret;
}

bool mount_option(const char *options, const char *name, char *val, size_t valsz)
{
	size_t nlen = strlen(name);
	const char *p = options;
	bool found = false;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len >= nlen && strncmp(p, name, nlen) == 0 && (len == nlen || p[nlen] == '=')) {
			found = true;
			size_t vl = len == nlen ? 0 : len - nlen - 1;
			if (valsz) {
				if (vl >= valsz)
					vl = valsz - 1;
				memcpy(val, p + nlen + (len == nlen ? 0 : 1), vl);
				val[vl] = '\0';
			}
		}
		if (!end)
			break;
		p = end + 1;
	}
	return found;
}

bool aspm_active_policy(const char *text, char *out, size_t outsz)
{
	const char *a = strchr(text, '[');
	const char *b = a ? strchr(a, ']') : NULL;
	if (!a || !b || b - a - 1 <= 0)
		return false;
	size_t n = (size_t)(b - a - 1);
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, a + 1, n);
	out[n] = '\0';
	return true;
}

void cpuinfo_parse(const char *text, struct cpuinfo *out)
{
	memset(out, 0, sizeof(*out));
	char buf[4096];
	bool fits;
	for (const char *cur = text; text_next_line(&cur, buf, sizeof(buf), &fits);) {
		if (fits) {
			char *colon = strchr(buf, ':');
			if (colon) {
				*colon = '\0';
				char *key = str_trim(buf);
				char *val = str_trim(colon + 1);
				if (strcmp(key, "processor") == 0)
					out->ncpus++;
				else if (strcmp(key, "vendor_id") == 0 && !out->vendor[0])
					str_copy(out->vendor, val, sizeof(out->vendor));
				else if ((strcmp(key, "model name") == 0 || strcmp(key, "Model") == 0) && !out->model[0])
					str_copy(out->model, val, sizeof(out->model));
				else if (strcmp(key, "flags") == 0 && !out->hypervisor) {
					/* whole-word match */
					char *save = NULL;
					for (char *t = strtok_r(val, " ", &save); t; t = strtok_r(NULL, " ", &save))
						if (strcmp(t, "hypervisor") == 0)
							out->hypervisor = true;
				}
			}
		}
	}
}

static void read_small(const char *path, char *buf, size_t bufsz)
{
	if (sr_read_str(path, buf, bufsz) < 0)
		buf[0] = '\0';
}

static long long read_ll_or(const char *path, long long dflt)
{
	long long v;
	return sr_read_ll(path, 10, &v) == 0 ? v : dflt;
}

static void probe_removeipc(struct host_facts *h)
{
	h->logind_conf = sr_exists("/etc/systemd/logind.conf");
	/* later files override earlier ones: logind.conf, then logind.conf.d in order */
	const char *dirs[] = { "/etc/systemd/logind.conf", "/usr/lib/systemd/logind.conf.d",
			       "/etc/systemd/logind.conf.d" };
	for (size_t d = 0; d < 3; d++) {
		char **files = NULL;
		size_t nf = 0;
		char *single[1];
		if (d == 0) {
			single[0] = (char *)dirs[0];
			files = single;
			nf = 1;
		} else if (sr_list_dir(dirs[d], &files, &nf) < 0) {
			continue;
		}
		for (size_t i = 0; i < nf; i++) {
			char path[512];
			if (d == 0)
				str_copy(path, files[i], sizeof(path));
			else if (!str_endswith(files[i], ".conf") ||
				 xsnprintf(path, sizeof(path), "%s/%s", dirs[d], files[i]) < 0)
				continue;
			char *data;
			size_t len;
			if (sr_read_file(path, &data, &len, 65536) < 0)
				continue;
			for (char *line = data; line && *line;) {
				char *nl = strchr(line, '\n');
				if (nl)
					*nl = '\0';
				char *t = str_trim(line);
				if (str_startswith(t, "RemoveIPC")) {
					char *eq = strchr(t, '=');
					if (eq) {
						str_copy(h->removeipc, str_trim(eq + 1), sizeof(h->removeipc));
						str_copy(h->removeipc_source, path, sizeof(h->removeipc_source));
					}
				}
				line = nl ? nl + 1 : NULL;
			}
			free(data);
		}
		if (d != 0)
			sr_names_free(files, nf);
	}
}

static void probe_shm(struct host_facts *h)
{
	char *data;
	size_t len;
	int mr = sr_read_file("/proc/self/mountinfo", &data, &len, 1 << 20);
	h->mountinfo_err = mr < 0 ? mr : 0;
	if (mr == 0) {
		struct mount_entry m;
		if (mountinfo_find(data, "/dev/shm", &m) == 0) {
			char size[64];
			h->shm_mounted = true;
			str_copy(h->shm_fstype, m.fstype, sizeof(h->shm_fstype));
			uint64_t b;
			if (mount_option(m.options, "size", size, sizeof(size)) && parse_size(size, &b) == 0) {
				h->shm_size = b;
				h->shm_size_known = true;
			}
		}
		free(data);
	}
	/* statvfs gives the real size and the free space */
	if (sysroot_is_live()) {
		struct statvfs sv;
		if (statvfs("/dev/shm", &sv) == 0) {
			h->shm_size = (uint64_t)sv.f_blocks * sv.f_frsize;
			h->shm_free = (uint64_t)sv.f_bavail * sv.f_frsize;
			h->shm_size_known = h->shm_free_known = true;
			if (!h->shm_mounted && h->shm_size)
				h->shm_mounted = true; /* a directory on another filesystem still works */
		}
	} else {
		json_t *s = live_get("dev_shm");
		if (json_is_object(s)) {
			json_t *sz = json_object_get(s, "size"), *fr = json_object_get(s, "free");
			if (json_is_integer(sz)) {
				h->shm_size = (uint64_t)json_integer_value(sz);
				h->shm_size_known = true;
			}
			if (json_is_integer(fr)) {
				h->shm_free = (uint64_t)json_integer_value(fr);
				h->shm_free_known = true;
			}
		}
	}
	char **names;
	size_t n;
	json_t *recorded_bytes = sysroot_is_live() ? NULL : json_object_get(live_get("dev_shm"), "nccl_bytes");
	h->shm_nccl_files = -1;
	if (sr_list_dir("/dev/shm", &names, &n) >= 0) {
		h->shm_nccl_files = 0;
		for (size_t i = 0; i < n; i++) {
			if (!str_startswith(names[i], "nccl-"))
				continue;
			h->shm_nccl_files++;
			char path[512];
			struct stat st;
			if (xsnprintf(path, sizeof(path), "/dev/shm/%s", names[i]) >= 0 && sr_stat(path, &st) == 0)
				h->shm_nccl_bytes += (uint64_t)st.st_size;
		}
		sr_names_free(names, n);
		/* a snapshot stores segments as empty placeholders, their size here */
		if (json_is_integer(recorded_bytes))
			h->shm_nccl_bytes = (uint64_t)json_integer_value(recorded_bytes);
	}
}

void host_probe(struct host_facts *h)
{
	memset(h, 0, sizeof(*h));
	h->numa_balancing = h->rmem_max = h->wmem_max = h->file_max = -1;
	read_small("/proc/sys/kernel/hostname", h->hostname, sizeof(h->hostname));
	read_small("/proc/sys/kernel/osrelease", h->kernel, sizeof(h->kernel));
	h->cmdline_known = sr_read_str("/proc/cmdline", h->cmdline, sizeof(h->cmdline)) == 0;

	char *data;
	size_t len;
	if (sr_read_file("/proc/cpuinfo", &data, &len, 4 << 20) == 0) {
		cpuinfo_parse(data, &h->cpu);
		free(data);
	}
	read_small("/sys/class/dmi/id/sys_vendor", h->dmi_vendor, sizeof(h->dmi_vendor));
	read_small("/sys/class/dmi/id/product_name", h->dmi_product, sizeof(h->dmi_product));
	read_small("/sys/hypervisor/type", h->hypervisor_type, sizeof(h->hypervisor_type));
	static const char *vm_vendors[] = { "QEMU", "KVM", "VMware", "Microsoft Corporation", "Xen",
					    "Amazon EC2", "Google", "innotek", "Red Hat", "OpenStack",
					    "Firecracker", "Nutanix", "Parallels" };
	bool dmi_vm = false;
	for (size_t i = 0; i < sizeof(vm_vendors) / sizeof(vm_vendors[0]); i++)
		if ((h->dmi_vendor[0] && str_casestr(h->dmi_vendor, vm_vendors[i])) ||
		    (h->dmi_product[0] && str_casestr(h->dmi_product, vm_vendors[i])))
			dmi_vm = true;
	h->is_vm = h->cpu.hypervisor || dmi_vm || h->hypervisor_type[0];

	char **names;
	size_t n;
	if (sr_list_dir("/sys/devices/system/node", &names, &n) >= 0) {
		for (size_t i = 0; i < n; i++)
			if (str_startswith(names[i], "node") && isdigit((unsigned char)names[i][4]))
				h->numa_nodes++;
		sr_names_free(names, n);
	}
	char buf[256];
	if (sr_read_str("/sys/module/pcie_aspm/parameters/policy", buf, sizeof(buf)) == 0)
		aspm_active_policy(buf, h->aspm_policy, sizeof(h->aspm_policy));
	h->numa_balancing = read_ll_or("/proc/sys/kernel/numa_balancing", -1);

	h->dockerenv = sr_exists("/.dockerenv");
	h->containerenv = sr_exists("/run/.containerenv");
	if (sr_read_file("/proc/1/cgroup", &data, &len, 65536) == 0) {
		static const char *hints[] = { "kubepods", "docker", "containerd", "libpod", "lxc", "crio" };
		for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
			if (strstr(data, hints[i])) {
				str_copy(h->cgroup_hint, hints[i], sizeof(h->cgroup_hint));
				break;
			}
		free(data);
	}

	if (sr_read_file("/proc/self/limits", &data, &len, 65536) == 0) {
		limits_parse(data, "Max locked memory", &h->memlock);
		limits_parse(data, "Max stack size", &h->stack);
		limits_parse(data, "Max open files", &h->nofile);
		free(data);
	}
	probe_shm(h);
	probe_removeipc(h);

	h->rmem_max = read_ll_or("/proc/sys/net/core/rmem_max", -1);
	h->wmem_max = read_ll_or("/proc/sys/net/core/wmem_max", -1);
	read_small("/proc/sys/net/ipv4/tcp_rmem", h->tcp_rmem, sizeof(h->tcp_rmem));
	read_small("/proc/sys/net/ipv4/tcp_wmem", h->tcp_wmem, sizeof(h->tcp_wmem));
	read_small("/proc/sys/net/ipv4/ip_local_port_range", h->port_range, sizeof(h->port_range));
	h->file_max = read_ll_or("/proc/sys/fs/file-max", -1);
	/* whitespace inside these is tabs; make it one space for display */
	for (char *p = h->tcp_rmem; *p; p++)
		if (*p == '\t')
			*p = ' ';
	for (char *p = h->tcp_wmem; *p; p++)
		if (*p == '\t')
			*p = ' ';
	for (char *p = h->port_range; *p; p++)
		if (*p == '\t')
			*p = ' ';
}

int host_uptime(double *secs)
{
	char up[64];
	int r = sr_read_str("/proc/uptime", up, sizeof(up));
	if (r < 0)
		return r;
	char *sp = strchr(up, ' ');
	if (sp)
		*sp = '\0';
	return parse_double(up, secs) == 0 ? 0 : -EINVAL;
}
