/* Host facts as data: see model/host.h. */
#include "model/host.h"

#include <ctype.h>
#include <string.h>

bool cmdline_get(const char *cmdline, const char *key, char *val, size_t valsz)
{
	bool found = false;
	size_t klen = strlen(key);
	const char *p = cmdline;
	if (valsz)
		val[0] = '\0';
	while (*p) {
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		const char *start = p;
		bool quoted = false;
		while (*p && (quoted || !isspace((unsigned char)*p))) {
			if (*p == '"')
				quoted = !quoted;
			p++;
		}
		size_t len = (size_t)(p - start);
		/* the kernel drops the quotes of "key=a b" and key="a b"
		 * (lib/cmdline.c, next_arg) */
		if (len > 0 && start[0] == '"') {
			start++;
			len--;
			if (len > 0 && start[len - 1] == '"')
				len--;
		}
		if (len >= klen && strncmp(start, key, klen) == 0 && (len == klen || start[klen] == '=')) {
			found = true;
			if (valsz) {
				const char *v = len == klen ? "" : start + klen + 1;
				size_t vl = len == klen ? 0 : len - klen - 1;
				if (vl > 0 && v[0] == '"') {
					v++;
					vl--;
					if (vl > 0 && v[vl - 1] == '"')
						vl--;
				}
				if (vl >= valsz)
					vl = valsz - 1;
				memcpy(val, v, vl);
				val[vl] = '\0';
			}
		}
	}
	return found;
}

