/* Rules for NVSwitch SXid events (analyze/sxid_parse.h) that the kernel
 * analysis applies: is it fatal, which finding and severity, a one-line
 * description, and the GPUs behind the switch port when the NVLink map is
 * known. Pure functions over the SXid catalog (kb/sxid.h). */
#ifndef ND_ANALYZE_SXID_RULES_H
#define ND_ANALYZE_SXID_RULES_H
#include "analyze/sxid_parse.h"
#include "kb/findings.h"
#include "model/severity.h"
#include <stdbool.h>
#include <stddef.h>

/* Fatal: the driver said "Fatal" (or Severity 1); without a word, the
 * catalog's class (fatal to the port, always fatal). */
bool sxid_is_fatal(const struct sxid_event *ev);
/* FID_SXID_FATAL or FID_SXID_NONFATAL. */
enum finding_id sxid_finding_id(const struct sxid_event *ev);
/* Fatal: error. Otherwise the catalog's usual severity for a documented
 * code, info for a Correctable line, warning for the rest. */
enum severity sxid_severity(const struct sxid_event *ev);
/* The cause class: the catalog's, else nvlink_fabric. */
const char *sxid_cause(const struct sxid_event *ev);
/* "SXid 20034 NVSWITCH_ERR_HW_DLPL_LTSSM_FAULT_UP, fatal, switch 1 link 48"
 * into buf; returns buf. */
char *sxid_describe(const struct sxid_event *ev, char *buf, size_t bufsz);

/* One GPU NVLink as NVML reports it: the switch at its far end
 * (nvmlDeviceGetNvLinkRemotePciInfo) and, when known, the switch port
 * (the remote link number), -1 otherwise. */
struct sxid_link {
	char switch_bdf[16]; /* "dddd:bb:dd.f" */
	int port;            /* switch port, -1 when unknown */
	int gpu;             /* GPU index */
	int gpu_link;        /* link number on the GPU */
};

/* The GPUs behind port `port` of switch `bdf` (port -1: unknown) in map[n],
 * each index once, into gpus[max]; returns how many were found (may exceed
 * max). *exact is true when the map knows ports and they matched; false when
 * only the switch matched (every GPU wired to that switch is returned). */
size_t sxid_gpus_behind(const struct sxid_link *map, size_t n, const char *bdf, int port, int *gpus, size_t max,
			bool *exact);

#endif
