/* The GPU-fatal RM status table (see kb/rm_status.h). */
#include "kb/rm_status.h"

#include <string.h>

static const struct rm_status statuses[] = {
#define RM_STATUS(name, code, text, meaning, sev, cause, sig) \
	{ #name, code, text, meaning, SEV_##sev, #cause, #sig },
#include "kb/rm_status.def"
#undef RM_STATUS
};

const struct rm_status *kb_rm_statuses(size_t *n)
{
	*n = sizeof(statuses) / sizeof(statuses[0]);
	return statuses;
}

const struct rm_status *kb_rm_status_in(const char *line)
{
	/* the driver prints a status it got back as "text [NAME] (0x...)";
	 * a bare name is one it compared against ("Assertion failed: (status
	 * == NV_OK) || (status == NV_ERR_GPU_IN_FULLCHIP_RESET)"), not one it met */
	for (const char *p = strstr(line, "[NV_ERR_"); p; p = strstr(p + 1, "[NV_ERR_")) {
		for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++) {
			size_t len = strlen(statuses[i].name);
			if (strncmp(p + 1, statuses[i].name, len) == 0 && p[1 + len] == ']')
				return &statuses[i];
		}
	}
	return NULL;
}
