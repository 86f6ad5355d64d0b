/* The NVSwitch SXid catalog table, built from kb/sxid.def, and its action
 * words (summarising the recoveries of NVIDIA's Fabric Manager User Guide,
 * appendix D, for bare-metal hosts as well as the guide's guest VMs). */
#include "kb/sxid.h"

#include <string.h>

static const struct sxid_def sxids[] = {
#define SXID(code, name, cls, text, meaning, cause, sev, action) \
	{ code, name, SXID_CLASS_##cls, text, meaning, #cause, SEV_##sev, action },
#include "kb/sxid.def"
#undef SXID
};

const struct sxid_def *kb_sxids(size_t *n)
{
	*n = sizeof(sxids) / sizeof(sxids[0]);
	return sxids;
}

const struct sxid_def *kb_sxid(int code)
{
	/* the table is sorted by code */
	size_t lo = 0, hi = sizeof(sxids) / sizeof(sxids[0]);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sxids[mid].code == code)
			return &sxids[mid];
		if (sxids[mid].code < code)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *sxid_class_name(enum sxid_class c)
{
	switch (c) {
	case SXID_CLASS_NONFATAL: return "non-fatal";
	case SXID_CLASS_FATAL: return "fatal to the port";
	case SXID_CLASS_ALWAYS_FATAL: return "always fatal";
	case SXID_CLASS_NOTABLE: return "notable";
	default: return "undocumented";
	}
}

bool sxid_documented(const struct sxid_def *s)
{
	return s->sclass != SXID_CLASS_UNDOC;
}

static const struct {
	const char *word;
	const char *text;
} actions[] = {
	{ "IGNORE", "no action needed; the switch handled it" },
	{ "WATCH", "nothing by itself; watch for repeats, fatal SXids that follow, or lower NVLink throughput" },
	{ "RESTART_APP", "restart the jobs on the GPUs behind that link (in a VM: restart the guest VM)" },
	{ "RESET_FABRIC", "stop the jobs on the GPUs behind that port, then reset those GPUs and the NVSwitches (or reboot the node; in a VM: restart the guest VM); if it recurs, check the NVLink hardware" },
	{ "RESTART_BM", "reboot the node: the whole NVSwitch fabric must be reset" },
	{ "CHECK_PARTITION", "check the fabric manager partition and routing configuration (NVSwitch audit tool), then restart the jobs" },
	{ "CHECK_MECHANICALS", "unless a peer was shut down without coordination, check the link's mechanical connections" },
	{ "CHECK_COOLING", "check the system cooling" },
	{ "LINE_SEVERITY", "not in NVIDIA's guide: a Fatal line stops the traffic of its port (treat as RESET_FABRIC); a Non-fatal or Correctable line needs watching only" },
};

const char *sxid_action_text(const char *action)
{
	if (!action)
		return NULL;
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++)
		if (strcmp(action, actions[i].word) == 0)
			return actions[i].text;
	return NULL;
}
