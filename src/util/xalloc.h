/* Allocation helpers that never return NULL: running out of memory is not a
 * condition nccl-doctor can report anything useful about, so it exits 3. */
#ifndef ND_UTIL_XALLOC_H
#define ND_UTIL_XALLOC_H
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* Returns a heap string the caller frees. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *arr (of *alloc elements of size elem) so that index need-1 fits;
 * new elements are zeroed. The cap: an array never grows past
 * XGROW_MAX_BYTES. Every caller bounds its count by a limit of its own
 * domain (processes, files, events, GPUs ...) far below that, so reaching
 * the cap is a bug, not an input condition: xgrow then exits 3 with the
 * message "nccl-doctor: internal limit: an array would grow past 1 GiB"
 * instead of returning an error that 36 call sites would have to handle. */
#define XGROW_MAX_BYTES ((size_t)1 << 30)
void xgrow(void **arr, size_t *alloc, size_t need, size_t elem);
#define XGROW(arr, alloc, need) xgrow((void **)&(arr), &(alloc), (need), sizeof(*(arr)))

#endif
