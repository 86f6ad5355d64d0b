/* NCCL's own failure messages, from its source (tools/nccl-warns): every
 * WARN and failure-INFO literal of every release with its source file, the
 * NCCL versions that print it and the cause class it points to. `logs`
 * falls back to this table for an NCCL warning that no hand-written
 * signature (kb/nccl_signatures.h) knows. The rows live in the generated
 * nccl_warns_gen.def; after them come the rows of NCCL's network plugins
 * (tools/nccl-plugin-warns: aws-ofi-nccl, nccl-rdma-sharp-plugins), which
 * log through NCCL's logger, in nccl_plugin_warns_gen.def: those carry the
 * plugin's name, and their versions are the plugin's releases. */
#ifndef ND_KB_NCCL_WARNS_H
#define ND_KB_NCCL_WARNS_H
#include <stddef.h>

enum { NW_WARN = 1, NW_INFO = 2 };

/* The wildcard byte of a pattern: any run of bytes (a printf conversion). */
#define NW_WILD '\001'

struct nccl_warn {
	int kind;             /* NW_WARN or NW_INFO */
	const char *key;      /* stable id (tools/nccl-warns/README.md) */
	const char *file;     /* under NCCL's src/, as __FILE__ prints it; of a plugin
			       * row, the path in the plugin's repository */
	const char *versions; /* NCCL minors that print it: "2.8-2.19,2.22-2.30";
			       * of a plugin row, the plugin's releases ("1.7-1.21") */
	const char *cause;    /* a cause class (kb/causes.h) or "context" */
	const char *format;   /* the literal as NCCL's source writes it */
	const char *pattern;  /* the message as logged, NW_WILD for each conversion */
	int fixed;            /* bytes of pattern that are not NW_WILD */
	const char *plugin;   /* NULL: NCCL's own; else the network plugin ("aws-ofi-nccl") */
};

const struct nccl_warn *kb_nccl_warns(size_t *n);

/* Who prints the row's message: "NCCL", or the plugin's name. */
static inline const char *nccl_warn_origin(const struct nccl_warn *w)
{
	return w->plugin ? w->plugin : "NCCL";
}

/* " own" for NCCL's rows, "" for a plugin's: "%s's%s message" of origin
 * and this reads "NCCL's own message", "aws-ofi-nccl's message". */
static inline const char *nccl_warn_own(const struct nccl_warn *w)
{
	return w->plugin ? "" : " own";
}

#endif
