/* The kernel log engine (engine/kernel.c), run by `nccl-doctor kernel` and
 * by check's kernel stage. */
#ifndef ND_ENGINE_KERNEL_H
#define ND_ENGINE_KERNEL_H
#include "engine/engine.h"
#include "model/result.h"

/* The kernel log into r as `kernel` reads it (args: files, none for
 * /dev/kmsg of the machine or the sysroot), its events mapped to the GPUs
 * of mach (collect_kernel: read once per machine model); 0, or -1 with
 * r->error set. `check` calls it for its kernel stage. */
struct machine;
int kernel_collect(struct result *r, const struct run_opts *opt, int nargs, char **args, double since, double timeout,
		   struct machine *mach);

#endif
