/* The NVSwitch SXid catalog (kb/sxid.def) as a table: code, driver mnemonic,
 * class in NVIDIA's Fabric Manager guide (non-fatal, fatal to the port,
 * always fatal to the fabric, other notable, undocumented), meaning, cause
 * class, usual severity and action word, plus the meaning of the action words. */
#ifndef ND_KB_SXID_H
#define ND_KB_SXID_H
#include "model/severity.h"
#include <stdbool.h>
#include <stddef.h>

enum sxid_class {
	SXID_CLASS_NONFATAL,     /* guide D.4 */
	SXID_CLASS_FATAL,        /* guide D.5: fatal to the port */
	SXID_CLASS_ALWAYS_FATAL, /* guide D.6: fatal to the whole fabric */
	SXID_CLASS_NOTABLE,      /* guide D.7 */
	SXID_CLASS_UNDOC,        /* in the driver's enum only */
};

struct sxid_def {
	int code;
	const char *name;        /* driver mnemonic, e.g. NVSWITCH_ERR_HW_DLPL_LTSSM_FAULT_UP */
	enum sxid_class sclass;
	const char *text;        /* what the driver logs with it ("LTSSM Fault Up"), "" when unknown */
	const char *meaning;
	const char *cause;       /* cause class (kb/causes.h) */
	enum severity severity;  /* usual severity of a finding */
	const char *action;      /* action word, see sxid_action_text() */
};

/* The entry for code, or NULL when the code is not in the catalog. */
const struct sxid_def *kb_sxid(int code);
const struct sxid_def *kb_sxids(size_t *n);
/* "non-fatal", "fatal to the port", "always fatal", "notable", "undocumented" */
const char *sxid_class_name(enum sxid_class c);
/* True when the guide documents the code (any class but UNDOC). */
bool sxid_documented(const struct sxid_def *s);
/* What an action word means ("RESET_FABRIC" -> "..."), NULL when unknown. */
const char *sxid_action_text(const char *action);

#endif
