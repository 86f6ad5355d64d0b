/* NCCL version strings ("NCCL version 2.28.9+cuda13.0"), parsed in one
 * place for the library probe (the string in libnccl's .rodata) and the log
 * reader (the line NCCL prints at init): see ncclver.h. */
#include "util/ncclver.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* NVIDIA/nccl src/init.cc: #define VERSION_STRING "NCCL version " STR(NCCL_MAJOR)
 * "." STR(NCCL_MINOR) "." STR(NCCL_PATCH) NCCL_SUFFIX "+cuda" STR(CUDA_MAJOR) "."
 * STR(CUDA_MINOR) -- the same form since 2.3 (checked v2.3.5 .. v2.28). */
static const char VERSION_PREFIX[] = NCCL_VERSION_PREFIX;

static int parse_uint(const char **p, int *out)
{
	const char *s = *p;
	long v = 0;
	int n = 0;
	while (isdigit((unsigned char)*s) && n < 6) {
		v = v * 10 + (*s - '0');
		s++;
		n++;
	}
	if (n == 0 || isdigit((unsigned char)*s))
		return -EINVAL;
	*out = (int)v;
	*p = s;
	return 0;
}

int nccl_version_parse(const char *s, struct nccl_version *v)
{
	memset(v, 0, sizeof(*v));
	v->cuda_major = v->cuda_minor = -1;
	if (str_startswith(s, VERSION_PREFIX))
		s += sizeof(VERSION_PREFIX) - 1;
	const char *p = s;
	if (parse_uint(&p, &v->major) < 0 || *p++ != '.' || parse_uint(&p, &v->minor) < 0 ||
	    *p++ != '.' || parse_uint(&p, &v->patch) < 0)
		return -EINVAL;
	/* NCCL_SUFFIX: empty in releases, "a0"-like in previews */
	size_t n = 0;
	while (isalnum((unsigned char)p[n]) || p[n] == '_' || p[n] == '~' || p[n] == '-') {
		if (n + 1 >= sizeof(v->suffix))
			return -EINVAL;
		v->suffix[n] = p[n];
		n++;
	}
	v->suffix[n] = '\0';
	p += n;
	if (str_startswith(p, "+cuda")) {
		p += 5;
		if (parse_uint(&p, &v->cuda_major) < 0 || *p++ != '.' || parse_uint(&p, &v->cuda_minor) < 0) {
			v->cuda_major = v->cuda_minor = -1;
			return -EINVAL;
		}
	}
	if (v->major > 99 || v->minor > 999 || v->patch > 999)
		return -EINVAL;
	return 0;
}

const char *nccl_version_str(const struct nccl_version *v, char *buf, size_t bufsz)
{
	if (v->cuda_major >= 0)
		snprintf(buf, bufsz, "%d.%d.%d%s+cuda%d.%d", v->major, v->minor, v->patch, v->suffix,
			 v->cuda_major, v->cuda_minor);
	else
		snprintf(buf, bufsz, "%d.%d.%d%s", v->major, v->minor, v->patch, v->suffix);
	return buf;
}

int nccl_version_cmp(const struct nccl_version *a, const struct nccl_version *b)
{
	if (a->major != b->major)
		return a->major < b->major ? -1 : 1;
	if (a->minor != b->minor)
		return a->minor < b->minor ? -1 : 1;
	if (a->patch != b->patch)
		return a->patch < b->patch ? -1 : 1;
	int c = strcmp(a->suffix, b->suffix);
	if (c)
		return c < 0 ? -1 : 1;
	if (a->cuda_major != b->cuda_major)
		return a->cuda_major < b->cuda_major ? -1 : 1;
	if (a->cuda_minor != b->cuda_minor)
		return a->cuda_minor < b->cuda_minor ? -1 : 1;
	return 0;
}

int nccl_version_code(const char *s)
{
	struct nccl_version v;
	if (!s || nccl_version_parse(s, &v) < 0)
		return 0;
	return v.major * 10000 + v.minor * 100 + v.patch;
}

size_t nccl_version_token(const char *s, size_t n, char *out, size_t outsz)
{
	size_t k = 0;
	if (outsz == 0)
		return 0;
	while (k < n && s[k] != ' ' && k < outsz - 1)
		k++;
	memcpy(out, s, k);
	out[k] = '\0';
	return k;
}
