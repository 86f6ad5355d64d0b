/* jansson helpers: see jsonx.h. */
#include "util/jsonx.h"
#include "util/strbuf.h"

#include <stdbool.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s (n bytes available), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned min;
	unsigned cp;
	if (c < 0x80)
		return c ? 1 : 0;
	if ((c & 0xE0) == 0xC0) { len = 2; cp = c & 0x1F; min = 0x80; }
	else if ((c & 0xF0) == 0xE0) { len = 3; cp = c & 0x0F; min = 0x800; }
	else if ((c & 0xF8) == 0xF0) { len = 4; cp = c & 0x07; min = 0x10000; }
	else return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

json_t *json_strn_lossy(const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	bool clean = true;
	while (i < len) {
		size_t k = utf8_seq(p + i, len - i);
		if (!k) {
			clean = false;
			break;
		}
		i += k;
	}
	if (clean)
		return json_stringn(s, len);
	struct strbuf sb = STRBUF_INIT;
	i = 0;
	while (i < len) {
		size_t k = utf8_seq(p + i, len - i);
		if (k) {
			strbuf_add(&sb, p + i, k);
			i += k;
		} else {
			strbuf_adds(&sb, "\xEF\xBF\xBD");
			i++;
		}
	}
	json_t *j = json_stringn(strbuf_str(&sb), sb.len);
	strbuf_release(&sb);
	return j ? j : json_string("");
}

json_t *json_str_lossy(const char *s)
{
	return json_strn_lossy(s ? s : "", s ? strlen(s) : 0);
}

void json_set(json_t *obj, const char *key, json_t *val)
{
	if (val)
		json_object_set_new(obj, key, val);
}

long long json_get_int(const json_t *o, const char *k, long long def)
{
	json_t *v = json_object_get(o, k);
	return json_is_integer(v) ? (long long)json_integer_value(v) : def;
}

const char *json_get_str(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}
