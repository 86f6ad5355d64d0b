/* Symptom entries: the quick-reference rows of the field guide people follow
 * today (symptom -> likely cause -> what they try), each with what nccl-doctor
 * checks and the better, measured fix. Shown by `explain` and found by its
 * word search ("hang at init"). */
#ifndef ND_KB_SYMPTOMS_H
#define ND_KB_SYMPTOMS_H
#include <stddef.h>

struct symptom_def {
	const char *id;       /* HANG_AT_INIT */
	const char *symptom;  /* what the user sees */
	const char *cause;    /* the guide's likely cause */
	const char *guide_fix;/* what the guide says to do */
	const char *better;   /* what to check and the better fix */
	const char *caveat;   /* why the guide's fix can mislead; may be NULL */
	const char *related;  /* finding ids / commands, comma separated */
};

const struct symptom_def *kb_symptom(const char *id);
const struct symptom_def *kb_symptoms(size_t *n);

#endif
