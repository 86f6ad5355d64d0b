/* The cause classes of DESIGN.md: the `cause` field of every finding and the
 * classes `logs` ranks for a failed run. Each class has a stable id (JSON,
 * scripts), a human title (what the text reports show) and what it covers.
 * Ids that were split or renamed stay accepted as aliases (docs/json.md,
 * "Versions"). */
#ifndef ND_KB_CAUSES_H
#define ND_KB_CAUSES_H
#include <stdbool.h>
#include <stddef.h>

struct cause_def {
	const char *name;   /* the id, snake case */
	const char *title;  /* a few words people know, for text output */
	const char *covers;
	/* the first step when a line names this class and nothing more
	 * specific is known (a message of NCCL's or a framework's table) */
	const char *next;
};

/* A former id, still accepted as input (explain, --json consumers). */
struct cause_alias {
	const char *name;     /* the old id */
	const char *use;      /* the class code still naming it counts for */
	const char *now;      /* the classes it became, comma separated */
	const char *since;    /* "schema 3" */
};

const struct cause_def *kb_causes(size_t *n);
const struct cause_alias *kb_cause_aliases(size_t *n);
/* The class of an id, NULL when it is not a current id. */
const struct cause_def *kb_cause_find(const char *name);
/* The current id of name: an alias's `use`, else name itself. */
const char *kb_cause_canonical(const char *name);
/* The alias row of name, NULL when it is none. */
const struct cause_alias *kb_cause_alias(const char *name);
/* A current id or an alias. */
bool kb_cause_valid(const char *name);
/* The text title of a class id; NULL when name is not a current id. */
const char *kb_cause_title(const char *name);
/* Free text's words, for a renderer that shows class ids in words: the
 * length of the word (letters, digits, '_') at p inside s in *len (0: p is
 * no word character), and the index in kb_causes() of the current class
 * whose id it is, standing alone: not "unknown" (an ordinary word), not
 * after '/', '.', '-', '=' or '[' and not before '/' or '-' (a path, a
 * variable's value, "[id]" already worded); -1 otherwise. */
int kb_cause_word(const char *s, const char *p, size_t *len);

#endif
