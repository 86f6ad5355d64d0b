/* NCCL (and adjacent CUDA, PyTorch, vLLM) environment variables that change
 * transports or help diagnose a hang: values, default, effect, the version
 * that introduced them, and the source. Used by `explain` and by the checks
 * that read a rank's environment. */
#ifndef ND_KB_NCCL_ENV_H
#define ND_KB_NCCL_ENV_H
#include <stddef.h>

struct nccl_env_def {
	const char *name;    /* NCCL_P2P_LEVEL */
	const char *scope;   /* "nccl", "cuda", "pytorch", "vllm", "gloo" */
	const char *values;  /* accepted values */
	const char *dflt;    /* default, or "unset" */
	const char *effect;  /* what it changes and why it matters for a hang */
	const char *since;   /* first NCCL version with it ("" when not NCCL) */
	const char *source;  /* where this was checked */
};

/* The entry named name (exact, case-insensitive), or NULL. */
const struct nccl_env_def *kb_nccl_env(const char *name);
const struct nccl_env_def *kb_nccl_envs(size_t *n);

#endif
