/* The search engine of `nccl-doctor explain` (engine/explain.c) over the
 * knowledge base of kb/: Xid and SXid codes, finding ids, NCCL variables,
 * symptoms, cause classes, log signatures, else a word search. */
#ifndef ND_ENGINE_EXPLAIN_H
#define ND_ENGINE_EXPLAIN_H
#include "model/result.h"

/* The kinds of entries, in the order exact ids are looked up; NULL-ended. */
extern const char *const explain_kinds[];
/* Every entry of kind (NULL: all) as a table into r, "entries" in JSON. */
void explain_list(struct result *r, const char *kind);
/* The entry topic names (an Xid or SXid code, an exact id of any kind), else
 * the entries its words match best, into r ("query" and "entries" in JSON;
 * r->error for an Xid or SXid code not in the catalog). */
void explain_topic(struct result *r, const char *topic);

#endif
