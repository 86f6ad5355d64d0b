/* `sys`: the "NCCL libraries" section (every libnccl, its version, where it
 * was found and who loads it) and the findings about them. */
#ifndef ND_ANALYZE_SYS_LIBRARIES_H
#define ND_ANALYZE_SYS_LIBRARIES_H
#include "model/result.h"
#include "model/ncclib.h"

/* Adds the section and the findings NCCL_MULTIPLE_VERSIONS, NCCL_NOT_FOUND
 * and VLLM_NCCL_SO_PATH_INVALID to r. */
void sys_report_libraries(struct result *r, const struct ncclib_scan *s);

#endif
