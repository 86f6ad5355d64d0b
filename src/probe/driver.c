/* NVIDIA driver facts from the filesystem: see driver.h. */
#include "probe/driver.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool driver_parse_version(const char *text, char *version, size_t versz, bool *open_module)
{
	const char *line = strstr(text, "NVRM version:");
	if (!line)
		return false;
	const char *eol = strchr(line, '\n');
	size_t len = eol ? (size_t)(eol - line) : strlen(line);
	char buf[512];
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, line, len);
	buf[len] = '\0';
	*open_module = strstr(buf, "Open Kernel Module") != NULL;
	/* the version is the first whitespace-separated token shaped N.N[.N] */
	char *save = NULL;
	for (char *t = strtok_r(buf + 13, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
		int dots = 0;
		bool ok = isdigit((unsigned char)t[0]);
		for (char *p = t; *p && ok; p++) {
			if (*p == '.')
				dots++;
			else if (!isdigit((unsigned char)*p))
				ok = false;
		}
		if (ok && dots >= 1) {
			str_copy(version, t, versz);
			return true;
		}
	}
	return false;
}

int driver_gpu_info(const char *bdf, char *model, size_t modelsz, char *uuid, size_t uuidsz)
{
	char path[128], *data = NULL;
	size_t len;
	if (strchr(bdf, '/'))
		return -EINVAL;
	int r = xsnprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", bdf);
	if (r < 0)
		return r;
	r = sr_read_file(path, &data, &len, 16384);
	if (r < 0)
		return r;
	char *save = NULL;
	for (char *line = strtok_r(data, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		char *key = str_trim(line), *val = str_trim(colon + 1);
		if (strcmp(key, "Model") == 0 && *val)
			str_copy(model, val, modelsz);
		else if (strcmp(key, "GPU UUID") == 0 && *val)
			str_copy(uuid, val, uuidsz);
	}
	free(data);
	return 0;
}

static bool module_loaded(const char *name)
{
	char path[128];
	return xsnprintf(path, sizeof(path), "/sys/module/%s", name) >= 0 && sr_exists(path);
}

void driver_probe(struct driver_facts *d)
{
	memset(d, 0, sizeof(*d));
	char *data;
	size_t len;
	if (sr_read_file("/proc/driver/nvidia/version", &data, &len, 8192) == 0) {
		d->proc_present = true;
		driver_parse_version(data, d->version, sizeof(d->version), &d->open_module);
		free(data);
	}
	if (sr_read_str("/sys/module/nvidia/version", d->module_version, sizeof(d->module_version)) < 0)
		d->module_version[0] = '\0';
	d->nvidia_loaded = module_loaded("nvidia");
	d->uvm_loaded = module_loaded("nvidia_uvm");
	d->peermem_loaded = module_loaded("nvidia_peermem");
	d->modeset_loaded = module_loaded("nvidia_modeset");
	d->drm_loaded = module_loaded("nvidia_drm");

	char **names;
	size_t n;
	if (sr_list_dir("/dev", &names, &n) >= 0) {
		size_t off = 0;
		for (size_t i = 0; i < n; i++) {
			const char *s = names[i];
			if (!str_startswith(s, "nvidia"))
				continue;
			if (isdigit((unsigned char)s[6]))
				d->dev_gpu_nodes++;
			else if (strcmp(s, "nvidiactl") == 0)
				d->dev_ctl = true;
			else if (strcmp(s, "nvidia-uvm") == 0)
				d->dev_uvm = true;
			else if (str_startswith(s, "nvidia-nvswitch") && isdigit((unsigned char)s[15]))
				d->dev_nvswitch_nodes++;
			str_appendf(d->dev_list, sizeof(d->dev_list), &off, "%s%s", off ? " " : "", s);
		}
		sr_names_free(names, n);
	}
}
