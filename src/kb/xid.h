/* The Xid catalog (kb/xid.def) as a table: code, mnemonic, meaning, class,
 * cause class, usual severity and NVIDIA's recommended actions, plus the
 * meaning of the catalog's action words (RESTART_APP, RESET_GPU, ...). */
#ifndef ND_KB_XID_H
#define ND_KB_XID_H
#include "model/severity.h"
#include <stdbool.h>
#include <stddef.h>

struct xid_def {
	int code;
	const char *name;        /* mnemonic, e.g. ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS */
	const char *meaning;
	const char *xclass;      /* APP, DRV, FW, HW, MEM, NVL, BUS, PWR, VIRT, CC, INFO (may be "DRV/HW") */
	const char *cause;       /* cause class (kb/causes.h) */
	enum severity severity;  /* usual severity of a finding */
	const char *action;      /* immediate action word(s) of the catalog */
	const char *investigate; /* investigation step of the catalog */
	const char *archs;       /* "A100/H100/B100/GB200" as Y/N, "-/-/-/-" for legacy-only codes */
};

/* The entry for code, or NULL when the code is not in the catalog. */
const struct xid_def *kb_xid(int code);
const struct xid_def *kb_xids(size_t *n);
/* True for codes used only by pre-Ampere GPUs. */
bool xid_is_legacy(const struct xid_def *x);
/* What a catalog action word means ("RESET_GPU" -> "reset the GPU ..."),
 * or NULL for a word the table does not know. Matches the word at the
 * start of the text (the action column may add words after it). */
const char *xid_action_text(const char *action);

#endif
