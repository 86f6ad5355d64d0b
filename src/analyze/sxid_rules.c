/* SXid rules: see sxid_rules.h. The fatal / non-fatal split follows the
 * driver's own word per event (open-gpu-kernel-modules intr_nvswitch.h
 * NVSWITCH_REPORT_FATAL / _NONFATAL / _CORRECTABLE) and, without one, the
 * classes of NVIDIA's Fabric Manager guide kept in kb/sxid.def. */
#include "analyze/sxid_rules.h"
#include "kb/sxid.h"

#include <stdio.h>
#include <string.h>

bool sxid_is_fatal(const struct sxid_event *ev)
{
	if (ev->sev == SXID_SEV_FATAL)
		return true;
	if (ev->sev != SXID_SEV_UNKNOWN)
		return false;
	const struct sxid_def *d = kb_sxid(ev->sxid);
	return d && (d->sclass == SXID_CLASS_FATAL || d->sclass == SXID_CLASS_ALWAYS_FATAL);
}

enum finding_id sxid_finding_id(const struct sxid_event *ev)
{
	return sxid_is_fatal(ev) ? FID_SXID_FATAL : FID_SXID_NONFATAL;
}

enum severity sxid_severity(const struct sxid_event *ev)
{
	if (sxid_is_fatal(ev))
		return SEV_ERROR;
	if (ev->sev == SXID_SEV_CORRECTABLE)
		return SEV_INFO;
	const struct sxid_def *d = kb_sxid(ev->sxid);
	if (d && sxid_documented(d))
		return d->severity;
	return SEV_WARNING;
}

const char *sxid_cause(const struct sxid_event *ev)
{
	const struct sxid_def *d = kb_sxid(ev->sxid);
	return d ? d->cause : "nvlink_fabric";
}

char *sxid_describe(const struct sxid_event *ev, char *buf, size_t bufsz)
{
	const struct sxid_def *d = kb_sxid(ev->sxid);
	char sw[24] = "", link[24] = "";
	if (ev->instance >= 0)
		snprintf(sw, sizeof(sw), ", switch %d", ev->instance);
	if (ev->link >= 0)
		snprintf(link, sizeof(link), " link %d", ev->link);
	const char *sev = ev->sev == SXID_SEV_FATAL ? "fatal" : ev->sev == SXID_SEV_NONFATAL ? "non-fatal" :
			  ev->sev == SXID_SEV_CORRECTABLE ? "correctable" :
			  sxid_is_fatal(ev) ? "fatal by the catalog" : "severity not logged";
	snprintf(buf, bufsz, "SXid %d %s, %s%s%s%s", ev->sxid, d ? d->name : "(not in the catalog)", sev, sw,
		 !sw[0] && link[0] ? "," : "", link);
	return buf;
}

static bool link_matches(const struct sxid_link *l, const char *bdf, int port, bool ports_known)
{
	return strcmp(l->switch_bdf, bdf) == 0 && (!ports_known || l->port == port);
}

size_t sxid_gpus_behind(const struct sxid_link *map, size_t n, const char *bdf, int port, int *gpus, size_t max,
			bool *exact)
{
	size_t found = 0;
	bool ports_known = false;
	/* exact: the map has the port */
	if (port >= 0)
		for (size_t i = 0; i < n; i++)
			if (map[i].port == port && strcmp(map[i].switch_bdf, bdf) == 0) {
				ports_known = true;
				break;
			}
	for (size_t i = 0; i < n; i++) {
		if (!link_matches(&map[i], bdf, port, ports_known))
			continue;
		bool dup = false; /* counted at an earlier entry */
		for (size_t k = 0; k < i && !dup; k++)
			dup = map[k].gpu == map[i].gpu && link_matches(&map[k], bdf, port, ports_known);
		if (dup)
			continue;
		if (found < max)
			gpus[found] = map[i].gpu;
		found++;
	}
	if (exact)
		*exact = ports_known;
	return found;
}
