/* The table of NCCL's failure messages (see kb/nccl_warns.h), generated
 * into nccl_warns_gen.def by tools/nccl-warns/gen_c.py, followed by those
 * of NCCL's network plugins (nccl_plugin_warns_gen.def,
 * tools/nccl-plugin-warns/gen_c.py): NCCL's rows come first, so that a
 * literal a plugin copied from NCCL is NCCL's where the line's file does
 * not decide. */
#include "kb/nccl_warns.h"

#define NW(k, key, file, vers, cause, fmt, pat, fixed) { k, key, file, vers, cause, fmt, pat, fixed, NULL },
#define NPW(plugin, k, key, file, vers, cause, fmt, pat, fixed) { k, key, file, vers, cause, fmt, pat, fixed, plugin },
static const struct nccl_warn warns[] = {
#include "kb/nccl_warns_gen.def"
#include "kb/nccl_plugin_warns_gen.def"
};
#undef NW
#undef NPW

const struct nccl_warn *kb_nccl_warns(size_t *n)
{
	*n = sizeof(warns) / sizeof(warns[0]);
	return warns;
}
