/* The table of NCCL's failure messages (see kb/nccl_warns.h), generated
 * into nccl_warns_gen.def by tools/nccl-warns/gen_c.py. */
#include "kb/nccl_warns.h"

#define NW(k, key, file, vers, cause, fmt, pat, fixed) { k, key, file, vers, cause, fmt, pat, fixed },
static const struct nccl_warn warns[] = {
#include "kb/nccl_warns_gen.def"
};
#undef NW

const struct nccl_warn *kb_nccl_warns(size_t *n)
{
	*n = sizeof(warns) / sizeof(warns[0]);
	return warns;
}
