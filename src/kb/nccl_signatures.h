/* NCCL, PyTorch, vLLM and kernel log signatures: one row per known line,
 * with the literals that find it, the NCCL versions that print it, the init
 * stage it belongs to, the finding it raises (whose catalog entry gives the
 * cause class) and what it means. `logs` matches lines against this table;
 * `explain` lists it.
 *
 * Matching is by plain substrings, never regular expressions: a line matches
 * a row when it contains one of `any` and (when set) `also`, and the line's
 * kind is one of `where`. Literals are compared without regard to case.
 * Every row a line matches is recorded, specific rows (earlier in the table)
 * first; a generic row counts only when nothing specific matched. Sources are named per row (keys of
 * /work/shared/kb/README.md: N:<file> is NVIDIA/nccl src/<file>). */
#ifndef ND_KB_NCCL_SIGNATURES_H
#define ND_KB_NCCL_SIGNATURES_H
#include "kb/findings.h"
#include <stdbool.h>
#include <stddef.h>

/* The kinds of line a row applies to. */
enum {
	NS_INFO = 1,  /* "NCCL INFO" (and TRACE) lines */
	NS_WARN = 2,  /* "NCCL WARN" lines */
	NS_TEXT = 4,  /* any other line: PyTorch, vLLM, launcher, kernel */
	NS_NCCL = NS_INFO | NS_WARN,
	NS_ANY = NS_INFO | NS_WARN | NS_TEXT,
};

/* What a match says about the run. */
enum nccl_sig_role {
	NSR_ROOT,      /* a failure that is itself a cause */
	NSR_SECONDARY, /* usually the consequence of a failure elsewhere */
	NSR_HANG,      /* a symptom of a hang or a kill: the stage says where */
	NSR_CONTEXT,   /* a warning that can explain a failure */
	NSR_INFO,      /* a fact worth reporting; not a problem by itself */
};

#define NS_MAX_ANY 4

struct nccl_signature {
	const char *id;          /* stable: "S05", "PT03", "VL02", "K01" */
	const char *finding;     /* finding id (kb/findings/logs_*.def), as text */
	enum finding_id fid;     /* the same id as an enum */
	unsigned where;          /* NS_* mask */
	const char *any[NS_MAX_ANY]; /* the line contains one of these */
	const char *also;        /* and this, when not NULL */
	enum nccl_sig_role role;
	int stage;               /* stage timeline T0..T10, -1 any */
	double weight;           /* confidence it names the cause, 0..1 */
	const char *versions;    /* NCCL (or framework) versions that print it */
	const char *meaning;     /* what it means, causes */
	const char *fix;         /* what to do */
	const char *source;      /* where the literal comes from */
};

const struct nccl_signature *kb_nccl_signatures(size_t *n);
/* The row with this id, or NULL. */
const struct nccl_signature *kb_nccl_signature(const char *id);
const char *nccl_sig_role_name(enum nccl_sig_role r);
/* The cause class of a row: the one of its finding in the catalog. */
const char *nccl_signature_cause(const struct nccl_signature *s);
/* A row that only says "an error of this kind happened" (a CUDA failure, an
 * NCCL error surfaced by a framework, an unknown warning, no GPU visible):
 * when a line matches a specific row too, the specific one speaks for it. */
bool nccl_signature_generic(const struct nccl_signature *s);

/* Stage timeline (kb/nccl-log.md): name and what a hang there means. */
#define NCCL_STAGE_MAX 10
const char *nccl_stage_name(int stage);
const char *nccl_stage_hang_meaning(int stage);
/* The log lines that mark a stage; NULL out of range. */
const char *nccl_stage_lines(int stage);
/* What to collect next when a log stopped at stage (-1: no NCCL line) and
 * says nothing of why: the NCCL and PyTorch variables to set for the next
 * run and the files to attach, for the subsystems of that stage. */
const char *nccl_stage_collect(int stage);

#endif
