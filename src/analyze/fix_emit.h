/* The recommended configuration, written in the forms people paste: shell
 * exports, `docker run` flags, a Kubernetes container block, vLLM flags and
 * environment, a torchrun prefix, and an environment file (`--write-env`).
 *
 * `fix` and `check` fill a struct fix_plan from what worked (the winning
 * candidate's NCCL variables) and from host findings (/dev/shm too small, a
 * container without --ipc=host, memlock); fix_emit() renders one form. Pure:
 * nothing here reads the machine or prints. Values are checked, not trusted:
 * a name that is not an environment variable name, or a value an environment
 * file cannot carry, is refused with -EINVAL rather than written out broken. */
#ifndef ND_ANALYZE_FIX_EMIT_H
#define ND_ANALYZE_FIX_EMIT_H
#include "util/strbuf.h"

#include <stdbool.h>
#include <stdint.h>

#define FIX_PLAN_MAX_ENV 24

struct fix_env {
	char name[64];
	char value[256];
};

struct fix_plan {
	struct fix_env env[FIX_PLAN_MAX_ENV]; /* variables to set, in order */
	int nenv;
	char unset[8][64];     /* variables to remove (a trap in the user's environment) */
	int nunset;
	uint64_t shm_bytes;    /* /dev/shm size the job needs; 0: leave as is */
	bool ipc_host;         /* containers: share the host IPC namespace */
	bool memlock_unlimited;
	bool p2p_broken;       /* GPU peer access does not work: vLLM's custom all-reduce must be off */
	bool shm_in_containers; /* the plan moves traffic onto the SHM transport: a container's default
				 * 64 MB /dev/shm would kill NCCL with SIGBUS (docker/kubernetes forms size it) */
	int ngpus;             /* GPUs the plan was tested on (vLLM's --tensor-parallel-size); 0 unknown */
	const char *cuda_visible_devices; /* the GPUs the plan was tested on (vLLM's P2P cache key); may be NULL */
};

enum fix_form {
	FIX_FORM_SHELL,    /* export NAME='value' lines */
	FIX_FORM_DOCKER,   /* docker run flags */
	FIX_FORM_K8S,      /* a container's env: block, /dev/shm emptyDir */
	FIX_FORM_VLLM,     /* env + vllm serve flags + the P2P cache file to remove */
	FIX_FORM_TORCHRUN, /* NAME=value ... torchrun prefix */
	FIX_FORM_ENVFILE,  /* NAME=value lines: docker --env-file, systemd EnvironmentFile, `set -a; . FILE` */
	FIX_FORM_COUNT
};

/* "shell", "docker", "kubernetes", "vllm", "torchrun", "env-file". */
const char *fix_form_name(enum fix_form f);
/* Parses a form name (the above, plus "k8s"); -EINVAL when unknown. */
int fix_form_parse(const char *name, enum fix_form *f);

/* Adds (or replaces) NAME=value in the plan; -EINVAL for a bad name, a value
 * with a newline or NUL, or a full plan. */
int fix_plan_setenv(struct fix_plan *p, const char *name, const char *value);
/* Records a variable to unset; -EINVAL as above. */
int fix_plan_unsetenv(struct fix_plan *p, const char *name);

/* Appends the plan in form f to out; 0, -EINVAL (a value the form cannot
 * carry), -ENOSPC (out's cap), or -ENODATA: the shell, docker,
 * Kubernetes and torchrun forms of a plan that changes no environment and no container
 * setting (only P2P is broken: the vLLM form carries that) would be empty,
 * and are not to be printed. An empty plan gives a comment that nothing
 * needs to change. */
int fix_emit(const struct fix_plan *p, enum fix_form f, struct strbuf *out);

/* Appends s to out quoted for a POSIX shell (single quotes; bare when only
 * safe characters). */
int fix_shell_quote(struct strbuf *out, const char *s);

#endif
