/* Words for the errors of the readers: the text of a negative errno as the
 * messages quote it. Apart from util/sysroot.h so that code that only
 * reports a reader's error (analyze/) does not include the reader. */
#ifndef ND_UTIL_ERRTEXT_H
#define ND_UTIL_ERRTEXT_H
#include <errno.h>

/* The sysroot's readers refuse a device node, FIFO or socket with this
 * (util/sysroot.h). */
#define SR_ESPECIAL EMEDIUMTYPE

/* "permission denied" style text for a negative errno (lower case). */
const char *sr_strerror(int neg_errno);
/* "needs root" for EACCES/EPERM, "missing" for ENOENT, else sr_strerror. */
const char *sr_reason(int neg_errno);

#endif
