/* The Xid catalog table, built from kb/xid.def, and the action words of
 * NVIDIA's Xid catalog (docs.nvidia.com/deploy/xid-errors). */
#include "kb/xid.h"

#include <string.h>

static const struct xid_def xids[] = {
#define XID(code, name, meaning, xclass, cause, sev, action, inv, archs) \
	{ code, name, meaning, xclass, #cause, SEV_##sev, action, inv, archs },
#include "kb/xid.def"
#undef XID
};

const struct xid_def *kb_xids(size_t *n)
{
	*n = sizeof(xids) / sizeof(xids[0]);
	return xids;
}

const struct xid_def *kb_xid(int code)
{
	for (size_t i = 0; i < sizeof(xids) / sizeof(xids[0]); i++)
		if (xids[i].code == code)
			return &xids[i];
	return NULL;
}

bool xid_is_legacy(const struct xid_def *x)
{
	return strcmp(x->archs, "-/-/-/-") == 0;
}

static const struct {
	const char *word;
	const char *text;
} actions[] = {
	{ "RESTART_APP", "restart the application (the GPU itself needs nothing)" },
	{ "RESET_GPU", "reset the GPU (nvidia-smi -r -i N with no process on it) or reboot" },
	{ "RESTART_BM", "reboot the node (bare metal); the GPU cannot be recovered in place" },
	{ "RESTART_VM", "restart the virtual machine" },
	{ "RESTART_FM", "restart the NVIDIA fabric manager" },
	{ "CHECK_MECHANICALS", "check power cables, seating and cooling" },
	{ "UPDATE_SWFW", "update the driver, firmware or vGPU software" },
	{ "IGNORE", "no action needed for this event by itself" },
	{ "CONTACT_SUPPORT", "contact NVIDIA or the system vendor with an nvidia-bug-report.sh archive" },
	{ "CHECK_APP/CUDA", "check the application and its CUDA code (e.g. compute-sanitizer)" },
	{ "CHECK_UVM", "check the UVM driver (nvidia-uvm) and its messages" },
	{ "INVESTIGATE_SW", "investigate the software stack (driver, CUDA, application)" },
	{ "INVESTIGATE_SW_USER", "find which software or user took the link down" },
	{ "INVESTIGATE_LINK_SI", "investigate NVLink signal integrity (cabling, baseboard)" },
	{ "WORKFLOW_XID_13", "catalog workflow: run the application under compute-sanitizer; if it recurs on one GPU only, check that GPU" },
	{ "WORKFLOW_XID_31", "catalog workflow: check the application for illegal addresses; recurring faults on one GPU point at the GPU" },
	{ "WORKFLOW_XID_45", "catalog workflow: alone, restart the fabric manager if used; with other Xids, follow those" },
	{ "WORKFLOW_XID_48", "catalog workflow: reset the GPU or reboot; check remapped rows and retire the GPU (RMA) past the threshold" },
	{ "WORKFLOW_NVLINK_ERR", "catalog workflow: reset the GPU or reboot; if it recurs, check the NVLink / NVSwitch hardware" },
	{ "WORKFLOW_NVLINK5_ERR", "catalog workflow: reset or reboot; follow the NVLink5 procedure for the named sub-component" },
	{ "XID_137_FLOW", "catalog workflow: look for an application accessing a peer it did not map" },
	{ "SYMPATHETIC_REPORT_SOLO", "alone it needs investigation; with other Xids it is a consequence" },
};

const char *xid_action_text(const char *action)
{
	if (!action)
		return NULL;
	for (size_t i = 0; i < sizeof(actions) / sizeof(actions[0]); i++) {
		size_t n = strlen(actions[i].word);
		if (strncmp(action, actions[i].word, n) == 0 &&
		    (action[n] == '\0' || action[n] == ' ' || action[n] == ','))
			return actions[i].text;
	}
	return NULL;
}
