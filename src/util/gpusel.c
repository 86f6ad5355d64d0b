/* The --gpus selection (util/gpusel.h). */
#include "util/gpusel.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPUSEL_MAX_INDEX 1023

static int hexfield(const char *s, size_t len, unsigned max, unsigned *out)
{
	if (len == 0 || len > 8)
		return -EINVAL;
	unsigned v = 0;
	for (size_t i = 0; i < len; i++) {
		int c = tolower((unsigned char)s[i]);
		if (!isxdigit(c))
			return -EINVAL;
		v = v * 16 + (unsigned)(isdigit(c) ? c - '0' : c - 'a' + 10);
	}
	if (v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int gpusel_parse_busid(const char *s, unsigned *domain, unsigned *bus, unsigned *dev, unsigned *fn, bool *any_fn)
{
	/* [domain:]bus:dev[.fn] */
	const char *c1 = strchr(s, ':');
	if (!c1)
		return -EINVAL;
	const char *c2 = strchr(c1 + 1, ':');
	const char *b = s;
	*domain = 0;
	if (c2) {
		if (hexfield(s, (size_t)(c1 - s), 0xffffffffu, domain) < 0)
			return -EINVAL;
		b = c1 + 1;
		c1 = c2;
	}
	if (hexfield(b, (size_t)(c1 - b), 0xff, bus) < 0)
		return -EINVAL;
	const char *d = c1 + 1, *dot = strchr(d, '.');
	size_t dlen = dot ? (size_t)(dot - d) : strlen(d);
	if (hexfield(d, dlen, 0x1f, dev) < 0)
		return -EINVAL;
	*any_fn = dot == NULL;
	*fn = 0;
	if (dot && hexfield(dot + 1, strlen(dot + 1), 7, fn) < 0)
		return -EINVAL;
	return 0;
}

static int parse_item(const char *tok, struct gpusel_item *it, char *err, size_t errsz)
{
	memset(it, 0, sizeof(*it));
	if (strncasecmp(tok, "GPU-", 4) == 0 || strncasecmp(tok, "MIG-", 4) == 0) {
		size_t n = strlen(tok);
		if (n < 5 || n >= sizeof(it->uuid)) {
			snprintf(err, errsz, "'%s' is not a GPU UUID", tok);
			return -EINVAL;
		}
		for (size_t i = 4; i < n; i++)
			if (!isxdigit((unsigned char)tok[i]) && tok[i] != '-') {
				snprintf(err, errsz, "'%s' is not a GPU UUID", tok);
				return -EINVAL;
			}
		it->kind = GPUSEL_UUID;
		for (size_t i = 0; i <= n; i++)
			it->uuid[i] = (char)tolower((unsigned char)tok[i]);
		return 0;
	}
	if (strchr(tok, ':')) {
		it->kind = GPUSEL_BUSID;
		if (gpusel_parse_busid(tok, &it->domain, &it->bus, &it->dev, &it->fn, &it->any_fn) < 0) {
			snprintf(err, errsz, "'%s' is not a PCI bus id (like 0000:18:00.0)", tok);
			return -EINVAL;
		}
		return 0;
	}
	it->kind = GPUSEL_RANGE;
	const char *dash = strchr(tok, '-');
	char a[32], b[32];
	long long lo, hi;
	if (dash) {
		size_t la = (size_t)(dash - tok);
		if (la == 0 || la >= sizeof(a) || strlen(dash + 1) >= sizeof(b))
			goto bad;
		memcpy(a, tok, la);
		a[la] = '\0';
		strcpy(b, dash + 1);
	} else {
		if (strlen(tok) >= sizeof(a))
			goto bad;
		strcpy(a, tok);
		strcpy(b, tok);
	}
	for (const char *p = a; *p; p++)
		if (!isdigit((unsigned char)*p))
			goto bad;
	for (const char *p = b; *p; p++)
		if (!isdigit((unsigned char)*p))
			goto bad;
	if (parse_ll(a, 10, &lo) < 0 || parse_ll(b, 10, &hi) < 0 || lo > GPUSEL_MAX_INDEX || hi > GPUSEL_MAX_INDEX)
		goto bad;
	if (hi < lo) {
		snprintf(err, errsz, "the range '%s' runs backwards", tok);
		return -EINVAL;
	}
	it->lo = (int)lo;
	it->hi = (int)hi;
	return 0;
bad:
	snprintf(err, errsz, "'%s' is not a GPU index, range, UUID or PCI bus id", tok);
	return -EINVAL;
}

int gpusel_parse(const char *text, struct gpusel *s, char *err, size_t errsz)
{
	memset(s, 0, sizeof(*s));
	if (err && errsz)
		err[0] = '\0';
	char dummy[8];
	if (!err || !errsz) {
		err = dummy;
		errsz = sizeof(dummy);
	}
	if (!text)
		return 0;
	const char *p = text;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char tok[128];
		if (len >= sizeof(tok)) {
			snprintf(err, errsz, "an item of the list is too long");
			return -EINVAL;
		}
		memcpy(tok, p, len);
		tok[len] = '\0';
		char *t = str_trim(tok);
		if (!*t) {
			snprintf(err, errsz, "an empty item in the list");
			return -EINVAL;
		}
		if (s->n >= GPUSEL_MAX_ITEMS) {
			snprintf(err, errsz, "more than %d items", GPUSEL_MAX_ITEMS);
			return -EINVAL;
		}
		if (parse_item(t, &s->items[s->n], err, errsz) < 0)
			return -EINVAL;
		s->n++;
		if (!end)
			break;
		p = end + 1;
		if (!*p) {
			snprintf(err, errsz, "the list ends with a comma");
			return -EINVAL;
		}
	}
	if (s->n == 0) {
		snprintf(err, errsz, "an empty list");
		return -EINVAL;
	}
	s->text = text;
	return 0;
}

bool gpusel_all(const struct gpusel *s)
{
	return !s || s->n == 0;
}

bool gpusel_match(const struct gpusel *s, int index, const char *uuid, const char *busid)
{
	if (gpusel_all(s))
		return true;
	unsigned dom = 0, bus = 0, dev = 0, fn = 0;
	bool anyfn = false, have_bus = busid && gpusel_parse_busid(busid, &dom, &bus, &dev, &fn, &anyfn) == 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct gpusel_item *it = &s->items[i];
		switch (it->kind) {
		case GPUSEL_RANGE:
			if (index >= it->lo && index <= it->hi)
				return true;
			break;
		case GPUSEL_UUID:
			/* a unique prefix is enough, as CUDA_VISIBLE_DEVICES allows */
			if (uuid && strncasecmp(uuid, it->uuid, strlen(it->uuid)) == 0)
				return true;
			break;
		case GPUSEL_BUSID:
			if (have_bus && dom == it->domain && bus == it->bus && dev == it->dev && (it->any_fn || fn == it->fn))
				return true;
			break;
		}
	}
	return false;
}
