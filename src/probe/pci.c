/* PCI device probe over sysfs: see pci.h. */
#include "probe/pci.h"
#include "util/counters.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCI_ECAP_ACS 0x000D

int pci_find_ext_cap(const uint8_t *cfg, size_t len, uint16_t cap_id)
{
	size_t off = 0x100;
	int guard = 0;
	while (off >= 0x100 && off + 4 <= len && guard++ < 512) {
		uint32_t hdr = (uint32_t)cfg[off] | (uint32_t)cfg[off + 1] << 8 |
			       (uint32_t)cfg[off + 2] << 16 | (uint32_t)cfg[off + 3] << 24;
		if (hdr == 0 || hdr == 0xffffffffu)
			return 0;
		if ((hdr & 0xffff) == cap_id)
			return (int)off;
		size_t next = (hdr >> 20) & 0xffc;
		if (next <= off) /* the list must move forward; stops loops */
			return 0;
		off = next;
	}
	return 0;
}

int pci_parse_resource(const char *text, struct pci_bar *bars, int max)
{
	int n = 0;
	const char *p = text;
	while (*p && n < max) {
		unsigned long long s, e, f;
		/* one line at a time: sscanf alone would read across newlines */
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		char line[128];
		if (len >= sizeof(line))
			break;
		memcpy(line, p, len);
		line[len] = '\0';
		if (sscanf(line, "%llx %llx %llx", &s, &e, &f) != 3)
			break;
		bars[n].start = s;
		bars[n].end = e;
		bars[n].flags = f;
		n++;
		if (!nl)
			break;
		p = nl + 1;
	}
	return n;
}

double pci_parse_link_speed(const char *text)
{
	double v;
	char *end;
	v = strtod(text, &end);
	if (end == text || !isfinite(v) || v <= 0) /* strtod also takes "nan", "inf" */
		return 0;
	return v;
}

/* The number in dir/attr (base 16 or 10), or dflt when it cannot be read. */
static long long read_num(const char *dir, const char *attr, int base, long long dflt)
{
	char path[512];
	long long v;
	if (xsnprintf(path, sizeof(path), "%s/%s", dir, attr) < 0 || sr_read_ll(path, base, &v) < 0)
		return dflt;
	return v;
}

static unsigned read_hex(const char *dir, const char *attr, unsigned dflt)
{
	return (unsigned)read_num(dir, attr, 16, dflt);
}

static int read_int(const char *dir, const char *attr, int dflt)
{
	return (int)read_num(dir, attr, 10, dflt);
}

/* Parses the TOTAL_ERR_* line of an aer_dev_* file; -1 when absent. */
static long long read_aer_total(const char *dir, const char *attr)
{
	char path[512];
	char *data;
	size_t len;
	if (xsnprintf(path, sizeof(path), "%s/%s", dir, attr) < 0 || sr_read_file(path, &data, &len, 8192) < 0)
		return -1;
	long long total = -1;
	for (char *line = data; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (str_startswith(line, "TOTAL_ERR_")) {
			const char *sp = strchr(line, ' ');
			long long v;
			if (sp && parse_ll(sp, 10, &v) == 0)
				total = v;
		}
		line = nl ? nl + 1 : NULL;
	}
	free(data);
	return total;
}

static void read_link_base(const char *dir, const char *attr, char *out, size_t outsz)
{
	char path[512], target[512];
	out[0] = '\0';
	if (xsnprintf(path, sizeof(path), "%s/%s", dir, attr) < 0 || sr_readlink(path, target, sizeof(target)) < 0)
		return;
	const char *b = strrchr(target, '/');
	str_copy(out, b ? b + 1 : target, outsz);
}

static bool wants_config(const struct pci_dev *d)
{
	return d->is_bridge || d->vendor == PCI_VENDOR_NVIDIA || d->vendor == PCI_VENDOR_MELLANOX ||
	       pci_is_nic(d);
}

void pci_parse_config(struct pci_dev *d, const uint8_t *cfg, size_t len)
{
	d->config_len = len > INT_MAX ? INT_MAX : (int)len;
	d->acs_offset = 0;
	d->acs_cap = d->acs_ctrl = 0;
	if (len <= 64) {
		/* an unprivileged reader gets only the standard header */
		d->acs = len == 64 ? ACS_UNKNOWN_NEEDS_ROOT : ACS_UNREADABLE;
	} else if (len <= 256) {
		d->acs = ACS_ABSENT; /* conventional PCI: no extended capabilities */
	} else {
		int off = pci_find_ext_cap(cfg, len, PCI_ECAP_ACS);
		if (off && (size_t)off + 8 <= len) {
			const uint8_t *c = cfg + off;
			d->acs = ACS_PRESENT;
			d->acs_offset = off;
			d->acs_cap = (uint16_t)(c[4] | c[5] << 8);
			d->acs_ctrl = (uint16_t)(c[6] | c[7] << 8);
		} else {
			d->acs = ACS_ABSENT;
		}
	}
}

static void read_config(struct pci_dev *d, const char *dir)
{
	char path[512];
	char *data;
	size_t len;
	int r = xsnprintf(path, sizeof(path), "%s/config", dir);
	if (r >= 0)
		r = sr_read_file(path, &data, &len, 4096);
	if (r < 0) {
		d->config_len = r;
		d->acs = ACS_UNREADABLE;
		return;
	}
	pci_parse_config(d, (const uint8_t *)data, len);
	free(data);
}

static void read_dev(struct pci_dev *d, const char *bdf)
{
	char dir[256], path[512], buf[256];
	str_copy(d->bdf, bdf, sizeof(d->bdf));
	/* bdf passed pci_bdf_normalize: short, but a cut path is never read */
	if (xsnprintf(dir, sizeof(dir), "/sys/bus/pci/devices/%s", bdf) < 0) {
		d->syspath = xstrdup(bdf);
		return;
	}
	if (sr_realpath(dir, path, sizeof(path)) == 0) {
		d->syspath = xstrdup(path);
		/* the parent directory is the upstream bridge when it is a BDF */
		char *slash = strrchr(path, '/');
		if (slash) {
			*slash = '\0';
			const char *pb = strrchr(path, '/');
			char norm[PCI_BDF_LEN];
			if (pb && pci_bdf_normalize(pb + 1, norm, sizeof(norm)) && strchr(pb + 1, ':') &&
			    strlen(pb + 1) >= 12)
				str_copy(d->parent, norm, sizeof(d->parent));
		}
	} else {
		d->syspath = xstrdup(dir);
	}
	long long vendor;
	if (xsnprintf(path, sizeof(path), "%s/vendor", dir) >= 0) {
		int vr = sr_read_ll(path, 16, &vendor);
		d->ident_err = vr < 0 && vr != -ENOENT ? vr : 0;
	}
	d->vendor = read_hex(dir, "vendor", 0);
	d->device = read_hex(dir, "device", 0);
	d->class_code = read_hex(dir, "class", 0);
	d->is_bridge = (d->class_code >> 8) == 0x0604;
	bool interesting = wants_config(d);
	d->numa_node = -1;
	d->aer_correctable = d->aer_nonfatal = d->aer_fatal = -1;
	d->sriov_totalvfs = d->sriov_numvfs = -1;
	if (!interesting)
		return;
	d->subsys_vendor = read_hex(dir, "subsystem_vendor", 0);
	d->subsys_device = read_hex(dir, "subsystem_device", 0);
	d->numa_node = read_int(dir, "numa_node", -1);
	if (xsnprintf(path, sizeof(path), "%s/local_cpulist", dir) >= 0)
		sr_read_str(path, d->local_cpulist, sizeof(d->local_cpulist));
	if (xsnprintf(path, sizeof(path), "%s/current_link_speed", dir) >= 0 && sr_read_str(path, buf, sizeof(buf)) == 0)
		d->cur_speed = pci_parse_link_speed(buf);
	if (xsnprintf(path, sizeof(path), "%s/max_link_speed", dir) >= 0 && sr_read_str(path, buf, sizeof(buf)) == 0)
		d->max_speed = pci_parse_link_speed(buf);
	d->cur_width = read_int(dir, "current_link_width", 0);
	d->max_width = read_int(dir, "max_link_width", 0);
	/* x255 and similar mean "unknown" in some kernels */
	if (d->cur_width > 32 || d->cur_width < 0)
		d->cur_width = 0;
	if (d->max_width > 32 || d->max_width < 0)
		d->max_width = 0;
	char *res;
	size_t len;
	if (xsnprintf(path, sizeof(path), "%s/resource", dir) >= 0 && sr_read_file(path, &res, &len, 4096) == 0) {
		d->nbars = pci_parse_resource(res, d->bars, 6);
		free(res);
	}
	d->aer_correctable = read_aer_total(dir, "aer_dev_correctable");
	d->aer_nonfatal = read_aer_total(dir, "aer_dev_nonfatal");
	d->aer_fatal = read_aer_total(dir, "aer_dev_fatal");
	d->sriov_totalvfs = read_int(dir, "sriov_totalvfs", -1);
	d->sriov_numvfs = read_int(dir, "sriov_numvfs", -1);
	read_link_base(dir, "iommu_group", d->iommu_group, sizeof(d->iommu_group));
	read_link_base(dir, "driver", d->driver, sizeof(d->driver));
	read_config(d, dir);
}

int pci_scan(struct pci_list *out)
{
	memset(out, 0, sizeof(*out));
	nd_count(ND_COUNT_PCI_SCAN);
	char **names;
	size_t n;
	int r = sr_list_dir("/sys/bus/pci/devices", &names, &n);
	if (r < 0)
		return r;
	for (size_t i = 0; i < n; i++) {
		char norm[PCI_BDF_LEN];
		if (!pci_bdf_normalize(names[i], norm, sizeof(norm)))
			continue;
		XGROW(out->devs, out->alloc, out->n + 1);
		struct pci_dev *d = &out->devs[out->n++];
		memset(d, 0, sizeof(*d));
		read_dev(d, names[i]);
	}
	sr_names_free(names, n);
	return (int)out->n;
}

