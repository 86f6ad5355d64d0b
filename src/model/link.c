/* The path class between two GPUs (model/link.h). */
#include "model/link.h"
#include "model/pci.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const class_names[] = {
	[LINK_UNKNOWN] = "?", [LINK_X] = "X", [LINK_NV] = "NV", [LINK_PIX] = "PIX",
	[LINK_PXB] = "PXB", [LINK_PHB] = "PHB", [LINK_NODE] = "NODE", [LINK_SYS] = "SYS",
};

const char *link_class_name(enum link_class c)
{
	if ((unsigned)c >= sizeof(class_names) / sizeof(class_names[0]))
		c = LINK_UNKNOWN;
	return class_names[c];
}

const char *link_cell_text(struct link l, char *buf, size_t bufsz)
{
	if (l.nvlinks > 0)
		snprintf(buf, bufsz, "NV%d", l.nvlinks);
	else
		snprintf(buf, bufsz, "%s", link_class_name(l.cls));
	return buf;
}

bool link_cell_known(struct link l)
{
	return l.cls != LINK_UNKNOWN || l.nvlinks > 0;
}

bool link_cell_parse(const char *t, struct link *l)
{
	l->cls = LINK_UNKNOWN;
	l->nvlinks = 0;
	if (!t)
		return false;
	long long n;
	if (strncmp(t, "NV", 2) == 0 && parse_ll(t + 2, 10, &n) == 0 && n > 0 && n < 1000) {
		l->cls = LINK_NV;
		l->nvlinks = (int)n;
		return true;
	}
	for (int c = LINK_PIX; c <= LINK_SYS; c++)
		if (strcmp(t, class_names[c]) == 0) {
			l->cls = (enum link_class)c;
			return true;
		}
	return false;
}

enum link_class link_of_nvml_level(long long lvl)
{
	switch (lvl) {
	case 0: case 10: return LINK_PIX;
	case 20: return LINK_PXB;
	case 30: return LINK_PHB;
	case 40: return LINK_NODE;
	case 50: return LINK_SYS;
	default: return LINK_UNKNOWN;
	}
}

enum link_class link_nccl_level(enum link_class c)
{
	switch (c) {
	case LINK_NV: case LINK_PIX: case LINK_PXB: case LINK_PHB: case LINK_SYS: return c;
	case LINK_NODE: return LINK_PHB;
	default: return LINK_UNKNOWN;
	}
}

const char *link_nccl_level_name(enum link_class c)
{
	switch (c = link_nccl_level(c)) {
	case LINK_NV: return "NVL";
	case LINK_PIX: case LINK_PXB: case LINK_PHB: case LINK_SYS: return class_names[c];
	default: return "none";
	}
}

void link_nv_matrix(json_t *gpus, int n, int *nv)
{
	if (n <= 0)
		return;
	memset(nv, 0, sizeof(*nv) * (size_t)n * (size_t)n);
	/* the GPUs' addresses as the callers keep them (a bounded copy, "" unknown) */
	char (*bdf)[PCI_BDF_LEN + 16] = xcalloc((size_t)n, sizeof(*bdf));
	int *sw = xcalloc((size_t)n, sizeof(*sw));
	for (int a = 0; a < n; a++) {
		const char *b = json_string_value(json_object_get(json_array_get(gpus, (size_t)a), "bdf"));
		str_copy(bdf[a], b ? b : "", sizeof(bdf[a]));
	}
	for (int a = 0; a < n; a++) {
		json_t *lk;
		size_t i;
		json_array_foreach(json_object_get(json_array_get(gpus, (size_t)a), "nvlinks"), i, lk) {
			if (!json_is_true(json_object_get(lk, "active")))
				continue;
			const char *rb = json_string_value(json_object_get(lk, "remote_bdf"));
			const char *rt = json_string_value(json_object_get(lk, "remote_type"));
			int peer = -1;
			for (int b = 0; rb && b < n; b++)
				if (b != a && strcmp(bdf[b], rb) == 0)
					peer = b;
			if (peer >= 0)
				nv[a * n + peer]++;
			else if (!rt || strcmp(rt, "switch") == 0)
				sw[a]++;
		}
	}
	for (int a = 0; a < n; a++)
		for (int b = 0; b < n; b++)
			if (a != b && sw[a] && sw[b])
				nv[a * n + b] += sw[a] < sw[b] ? sw[a] : sw[b];
	free(bdf);
	free(sw);
}
