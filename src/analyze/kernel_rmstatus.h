/* KEV_RM_STATUS events of the kernel log parser (analyze/kernel_parse.h):
 * an NVRM line that names one of the GPU-fatal RM statuses of
 * kb/rm_status.def, with the GPU's PCI address when the line carries one. */
#ifndef ND_ANALYZE_KERNEL_RMSTATUS_H
#define ND_ANALYZE_KERNEL_RMSTATUS_H
#include "analyze/kernel_parse.h"
#include "kb/rm_status.h"

/* Fills a fresh KEV_RM_STATUS event from its line m: code (the status
 * code), type (its name), detail_text (the driver's text) and bdf from
 * "PCI:dddd:bb:dd", "GPU dddd:bb:dd.f" or "GPU at PCI:..." when present. */
void kevent_rm_status(struct kevent *e, const struct rm_status *rs, const char *m);

#endif
