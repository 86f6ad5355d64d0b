/* The NVIDIA driver's GPU-fatal RM status codes (kb/rm_status.def): the
 * name an NVRM line prints, its code, the driver's text, what it means,
 * the severity and cause class of a finding, and the `logs` signature whose
 * literals it is. `kernel` turns each NVRM line naming one into an event;
 * `logs` matches the same names through signatures K03 and K04. */
#ifndef ND_KB_RM_STATUS_H
#define ND_KB_RM_STATUS_H
#include "model/severity.h"
#include <stddef.h>

struct rm_status {
	const char *name;      /* "NV_ERR_RESET_REQUIRED" */
	unsigned code;         /* 0x62 */
	const char *text;      /* the driver's text: "Reset required" */
	const char *meaning;
	enum severity severity;
	const char *cause;     /* cause class (kb/causes.h) */
	const char *signature; /* the logs signature that matches it: "K03" */
};

const struct rm_status *kb_rm_statuses(size_t *n);
/* The first status of the table that line says the driver got back: the
 * name in brackets, as the driver prints it ("Reset required
 * [NV_ERR_RESET_REQUIRED] (0x00000062)"); NULL when none. */
const struct rm_status *kb_rm_status_in(const char *line);

#endif
