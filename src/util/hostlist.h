/* Slurm's hostlist syntax, expanded: "gpu[01-16,20],login1" is gpu01 ...
 * gpu16, gpu20 and login1 (merge --expect-nodes). Commas inside brackets
 * separate ranges, commas outside separate names; a range keeps the width
 * of its first number ("[08-11]": gpu08 gpu09 gpu10 gpu11); a name may hold
 * several bracket groups ("r[1-2]n[1-2]": r1n1 r1n2 r2n1 r2n2, the last group
 * varying fastest, as `scontrol show hostnames` prints them). Names keep the
 * order written; a repeated name is kept once. Pure: nothing is read. */
#ifndef ND_UTIL_HOSTLIST_H
#define ND_UTIL_HOSTLIST_H
#include <stddef.h>

/* The most names one list expands to: a larger list is refused (-E2BIG)
 * rather than allocated ("n[0-99999999]" is a typo, not a cluster). */
#define HOSTLIST_MAX 65536

struct hostlist {
	char **names; /* heap, each heap */
	size_t n, a;
};

/* Expands text into hl (which the caller set to zero). Returns 0, or
 * -EINVAL (bad syntax) or -E2BIG with a one-line reason in err; on failure
 * hl is released. */
int hostlist_expand(const char *text, struct hostlist *hl, char *err, size_t errsz);
/* Whether name is in hl. */
int hostlist_has(const struct hostlist *hl, const char *name);
void hostlist_release(struct hostlist *hl);

#endif
