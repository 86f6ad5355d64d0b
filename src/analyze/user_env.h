/* The user's own NCCL_* and CUDA_* variables as suspects: which of those
 * set in the environment NCCL's own output implicates when a run fails
 * ("Failed to initialize any NET plugin" with NCCL_NET set, "Bootstrap : no
 * socket interface found" with NCCL_SOCKET_IFNAME set, an XML parse error
 * after "Loading topology file" with NCCL_TOPO_FILE set, ...), with the
 * cause class and NCCL's line as the evidence. `check` and `fix` try the
 * environment as given minus each implicated variable, and name the one
 * whose removal works. Pure: the variables and the lines come in. */
#ifndef ND_ANALYZE_USER_ENV_H
#define ND_ANALYZE_USER_ENV_H
#include <stdbool.h>
#include <stddef.h>

#define UENV_MAX 8           /* implicated variables kept */
#define UENV_LINE_MAX 240    /* bytes kept of NCCL's line */

/* One variable of the environment (NAME, value). */
struct uenv_var {
	const char *name;
	const char *value;
};

struct uenv_hit {
	char name[48];           /* "NCCL_NET" */
	char value[96];          /* as the user set it (cut to fit; credentials redacted as sys shows them) */
	const char *cause;       /* cause class: "nccl_config_error", "bootstrap_network" */
	const char *why;         /* what NCCL's line says of it */
	char line[UENV_LINE_MAX]; /* NCCL's line (its message, from "NCCL WARN "/"NCCL INFO " on) */
	bool fatal;              /* the line is one NCCL fails with (not a skipped file) */
	bool secondary;          /* implicated only along with another failure (NCCL_IB_HCA when the network failed) */
};

/* Whether name is a variable of the user that can be suspected: NCCL_* or
 * CUDA_*, not nccl-doctor's own (NCCL_DOCTOR_*) and not one that only
 * steers NCCL's logging (NCCL_DEBUG, NCCL_DEBUG_SUBSYS, NCCL_DEBUG_FILE)
 * or picks the GPUs (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER: a trial runs
 * on the GPUs the user chose). */
bool uenv_suspectable(const char *name);

/* The variables of vars (nvars; those not uenv_suspectable are ignored)
 * that NCCL's lines (nlines, in output order, any text) implicate, each
 * once, in the order of the first line that implicates it (the secondary
 * suspects after the others); fills out (up
 * to max) and returns the count. */
int uenv_implicated(const struct uenv_var *vars, size_t nvars, const char *const *lines, size_t nlines,
		    struct uenv_hit *out, int max);

#endif
