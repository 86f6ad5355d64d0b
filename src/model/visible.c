/* CUDA_VISIBLE_DEVICES: the one writer of its value (model/visible.h). */
#include "model/visible.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool id_ok(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
		if (!alnum && c != '-' && c != ':' && c != '/' && c != '.')
			return false;
	}
	return true;
}

static int fail(char *buf, size_t bufsz, int *bad, int at, int rc)
{
	if (bufsz)
		buf[0] = 0;
	if (bad)
		*bad = at;
	return rc;
}

/* One entry at a time: ids[i], or idx[i] written in num (ids NULL). */
static const char *entry(const char *const *ids, const int *idx, size_t i, char *num, size_t numsz)
{
	if (ids)
		return ids[i];
	snprintf(num, numsz, "%d", idx[i]);
	return num;
}

static int format(char *buf, size_t bufsz, const char *const *ids, const int *idx, size_t n, int *bad)
{
	char num[16];
	if (bad)
		*bad = -1;
	if (n == 0)
		return fail(buf, bufsz, bad, -1, -ENODATA);
	if (n > CVD_MAX_GPUS)
		return fail(buf, bufsz, bad, -1, -E2BIG);
	for (size_t i = 0; i < n; i++) {
		if (ids && !ids[i])
			return fail(buf, bufsz, bad, (int)i, -ENOENT);
		if ((ids && !id_ok(ids[i])) || (!ids && idx[i] < 0))
			return fail(buf, bufsz, bad, (int)i, -EINVAL);
	}
	size_t off = strlen(CVD_NAME "=");
	if (off >= bufsz)
		return fail(buf, bufsz, bad, -1, -ENOSPC);
	memcpy(buf, CVD_NAME "=", off);
	for (size_t i = 0; i < n; i++) {
		const char *s = entry(ids, idx, i, num, sizeof(num));
		size_t len = strlen(s);
		if (len + (i > 0) >= bufsz - off)
			return fail(buf, bufsz, bad, -1, -ENOSPC);
		if (i > 0)
			buf[off++] = ',';
		memcpy(buf + off, s, len);
		off += len;
	}
	buf[off] = 0;
	return 0;
}

int cvd_format(char *buf, size_t bufsz, const char *const *ids, size_t n, int *bad)
{
	static const char *const none[1]; /* ids NULL: its first entry is missing */
	return format(buf, bufsz, ids ? ids : none, NULL, n, bad);
}

int cvd_format_indices(char *buf, size_t bufsz, const int *idx, size_t n, int *bad)
{
	static const int none[1] = { -1 }; /* idx NULL: its first index is bad */
	return format(buf, bufsz, NULL, idx ? idx : none, n, bad);
}
