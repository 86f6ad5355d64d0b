/* The cause classes of DESIGN.md: the `cause` field of every finding and the
 * classes `logs` ranks for a failed run. */
#ifndef ND_KB_CAUSES_H
#define ND_KB_CAUSES_H
#include <stdbool.h>
#include <stddef.h>

struct cause_def {
	const char *name;
	const char *covers;
};

const struct cause_def *kb_causes(size_t *n);
bool kb_cause_valid(const char *name);

#endif
