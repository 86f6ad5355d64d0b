/* jansson helpers. */
#ifndef ND_UTIL_JSONX_H
#define ND_UTIL_JSONX_H
#include <jansson.h>
#include <stddef.h>

/* A JSON string from bytes that may not be UTF-8: invalid sequences and NUL
 * bytes become U+FFFD. Never returns NULL. */
json_t *json_str_lossy(const char *s);
json_t *json_strn_lossy(const char *s, size_t len);
/* json_object_set_new that ignores a NULL value. */
void json_set(json_t *obj, const char *key, json_t *val);

/* The integer member k of object o, or def when o has none (or it is not an
 * integer). */
long long json_get_int(const json_t *o, const char *k, long long def);
/* The string member k of object o, or "" when o has none (or it is not a
 * string); the string belongs to o. */
const char *json_get_str(const json_t *o, const char *k);

#endif
