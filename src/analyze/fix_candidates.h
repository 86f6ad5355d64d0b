/* The configurations `fix` tries, chosen from what the other stages found
 * and ordered by the speed they would keep (DESIGN.md, configuration search).
 *
 * Input: per ordered GPU pair the path class (model/link.h; it counts as
 * the NCCL_P2P_LEVEL that admits it: NVL for NVLink, PIX, PXB, PHB — NODE
 * counts as PHB, as in NCCL — and SYS) and what `p2p` saw on it (ok, broken, not tested); and host facts
 * (/dev/shm too small, a failed bootstrap with a known good interface, NVLS
 * or cuMem evidence); and the user's own NCCL_* and CUDA_* variables, with
 * those NCCL's output implicated (analyze/user_env.h). Output: candidates,
 * fastest expected first, each a set of NCCL variables (or of the user's to
 * remove) with why it is tried and the share of a healthy
 * machine's bandwidth it is expected to keep. Pure: no I/O. */
#ifndef ND_ANALYZE_FIX_CANDIDATES_H
#define ND_ANALYZE_FIX_CANDIDATES_H
#include <stdbool.h>

#include "model/link.h"

#define FIXC_MAX_GPUS 16
#define FIXC_MAX 12
#define FIXC_MAX_ENV 4
#define FIXC_MAX_USER 16 /* the user's variables a candidate can remove */

enum fixc_pair { FIXC_PAIR_UNTESTED = 0, FIXC_PAIR_OK, FIXC_PAIR_BROKEN };

struct fixc_input {
	int ngpus;
	enum link_class link[FIXC_MAX_GPUS][FIXC_MAX_GPUS]; /* LINK_UNKNOWN: none (the diagonal) */
	enum fixc_pair pair[FIXC_MAX_GPUS][FIXC_MAX_GPUS];
	bool shm_small;          /* SHM candidates will fail until /dev/shm grows */
	bool nvls_evidence;      /* NVLS / fabric manager failure seen */
	bool cumem_evidence;     /* cuMem / IPC handle failures seen */
	bool bootstrap_failed;   /* bootstrap or the network failed */
	bool multi_node;         /* ranks on several hosts: IB matters */
	const char *good_ifname; /* an interface that works for bootstrap, or NULL */
	/* the user's NCCL_* and CUDA_* variables (names; the caller owns them): each
	 * one NCCL's output implicated gives "unset NAME" (the environment as
	 * given without it) right after "as given"; all of them together give
	 * the clean environment, the last resort, once anything failed */
	const char *user_vars[FIXC_MAX_USER];
	int nuser_vars;
	const char *implicated[FIXC_MAX_USER];
	int nimplicated;
	bool failed;             /* a trial failed: the clean environment is worth a try */
};

struct fixc_env {
	const char *name;       /* a literal or one of fixc_input's names */
	char value[64];
};

struct fix_candidate {
	char name[64];          /* "as given", "NCCL_P2P_LEVEL=PIX", ... */
	struct fixc_env env[FIXC_MAX_ENV];
	int nenv;
	double expected;        /* share of healthy bandwidth it keeps, 0..1 */
	const char *why;        /* why it is tried */
	bool p2p_off;           /* disables GPU peer access (vLLM: no custom all-reduce) */
	bool needs_shm;         /* uses the SHM transport */
	bool avoids_p2p_faults; /* takes the GPU pairs that failed off P2P */
	const char *unset[FIXC_MAX_USER]; /* the user's variables it removes (fixc_input's names) */
	int nunset;
	bool last;              /* tried after every other one (the clean environment) */
};

/* The NCCL_P2P_LEVEL that keeps every broken pair off P2P: the widest link
 * level present among the pairs narrower than every broken one (PIX when
 * PHB pairs broke on a machine of PIX and PHB pairs), as link_nccl_level
 * gives it (LINK_NV ... LINK_SYS). LINK_UNKNOWN when no pair is broken, or
 * when a broken pair has the narrowest level present. */
enum link_class fixc_safe_level(const struct fixc_input *in);

/* Fills out (up to FIXC_MAX), fastest expected first; returns the count. */
int fixc_candidates(const struct fixc_input *in, struct fix_candidate *out);

#endif
