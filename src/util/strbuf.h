/* Growable strings with a cap (curl's dynbuf): appending past the cap fails
 * with -ENOSPC instead of growing without bound. The buffer is always
 * NUL-terminated. */
#ifndef ND_UTIL_STRBUF_H
#define ND_UTIL_STRBUF_H
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
	size_t max; /* 0: no cap */
};

#define STRBUF_INIT { NULL, 0, 0, 0 }

void strbuf_init(struct strbuf *sb, size_t max);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
/* Returns the heap string and leaves sb empty; the caller frees it. */
char *strbuf_detach(struct strbuf *sb);
int strbuf_add(struct strbuf *sb, const void *data, size_t len);
int strbuf_adds(struct strbuf *sb, const char *s);
int strbuf_addch(struct strbuf *sb, char c);
int strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The current text ("" when empty, never NULL). */
const char *strbuf_str(const struct strbuf *sb);

#endif
