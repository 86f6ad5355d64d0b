/* The user's NCCL_* and CUDA_* variables as this process has them (the
 * rank processes of p2p and of fix's trials inherit them), and which of
 * them the output a worker left implicates (analyze/user_env.h). */
#ifndef ND_ENGINE_USER_ENV_RUN_H
#define ND_ENGINE_USER_ENV_RUN_H
#include "analyze/user_env.h"

#define UENV_RUN_MAX 16

struct uenv_run {
	char name[UENV_RUN_MAX][64];
	struct uenv_var v[UENV_RUN_MAX];  /* names point into name, values into environ */
	int n;
};

/* Fills e with this process's uenv_suspectable variables, in order. */
void uenv_run_load(struct uenv_run *e);
/* The hits of e's variables in text (lines; a worker's output tail). */
int uenv_run_hits(const struct uenv_run *e, const char *text, struct uenv_hit *out, int max);

#endif
