/* NCCL's known bugs by version (see kb/nccl_known_bugs.h), generated into
 * nccl_known_bugs_gen.def by tools/nccl-known-bugs/gen_c.py, and their
 * lookup by version and symptoms. */
#include "kb/nccl_known_bugs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define NKB(key, fixed, intro, tag, commit, line, kind, cause, eff, keys, wa, note) \
	{ key, fixed, intro, tag, commit, line, kind, cause, eff, keys, wa, note },
#define NKB_EFFECT(N, s, b, w)
#define NKB_KEY(N, s, b, f, w)
static const struct nccl_known_bug bugs[] = {
#include "kb/nccl_known_bugs_gen.def"
};
#undef NKB
#undef NKB_EFFECT
#undef NKB_KEY

#define NKB(...)
#define NKB_EFFECT(N, s, b, w) [b] = s,
#define NKB_KEY(N, s, b, f, w)
static const char *const effect_names[32] = {
#include "kb/nccl_known_bugs_gen.def"
};
#undef NKB_EFFECT
#undef NKB_KEY
#define NKB_EFFECT(N, s, b, w)
#define NKB_KEY(N, s, b, f, w) [b] = s,
static const char *const key_names[64] = {
#include "kb/nccl_known_bugs_gen.def"
};
#undef NKB_KEY
#define NKB_KEY(N, s, b, f, w) | ((f) ? NKB_K_##N : 0)
static const uint64_t feature_keys = 0
#include "kb/nccl_known_bugs_gen.def"
	;
#undef NKB
#undef NKB_EFFECT
#undef NKB_KEY

const struct nccl_known_bug *kb_nccl_known_bugs(size_t *n)
{
	*n = sizeof(bugs) / sizeof(bugs[0]);
	return bugs;
}

static int bit_of(uint64_t x)
{
	if (!x || (x & (x - 1)))
		return -1;
	int b = 0;
	while (!(x & 1)) {
		x >>= 1;
		b++;
	}
	return b;
}

const char *nkb_effect_name(unsigned e)
{
	int b = bit_of(e);
	return b < 0 || b >= 32 ? NULL : effect_names[b];
}

const char *nkb_key_name(uint64_t k)
{
	int b = bit_of(k);
	return b < 0 ? NULL : key_names[b];
}

uint64_t nkb_feature_keys(void)
{
	return feature_keys;
}

static int num(const char **p)
{
	if (**p < '0' || **p > '9')
		return -1;
	long v = 0;
	while (**p >= '0' && **p <= '9') {
		if (v < 100000)
			v = v * 10 + (**p - '0');
		(*p)++;
	}
	return v > 99999 ? -1 : (int)v;
}

int nkb_version_parse(const char *s, int v[3])
{
	if (!s)
		return -EINVAL;
	if (*s == 'v')
		s++;
	v[0] = num(&s);
	if (v[0] < 0 || *s != '.')
		return -EINVAL;
	s++;
	v[1] = num(&s);
	if (v[1] < 0)
		return -EINVAL;
	v[2] = 0;
	if (*s == '.') {
		s++;
		v[2] = num(&s);
		if (v[2] < 0)
			return -EINVAL;
	}
	return 0;
}

int nkb_version_cmp(const int a[3], const int b[3])
{
	for (int i = 0; i < 3; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

bool nkb_affects(const struct nccl_known_bug *b, const int v[3])
{
	int f[3], in[3];
	if (nkb_version_parse(b->fixed_in, f) < 0)
		return false;
	if (b->kind == NKB_KNOWN_ISSUE)
		return nkb_version_cmp(v, f) == 0;
	if (nkb_version_cmp(v, f) >= 0)
		return false;
	if (strcmp(b->introduced, "before") != 0 &&
	    (nkb_version_parse(b->introduced, in) < 0 || nkb_version_cmp(v, in) < 0))
		return false;
	return true;
}

static int popcount64(uint64_t x)
{
	int n = 0;
	for (; x; x &= x - 1)
		n++;
	return n;
}

/* The match of row b against s, strength 0 when none. */
static struct nkb_match match_row(const struct nccl_known_bug *b, const struct nkb_symptoms *s)
{
	struct nkb_match m = { b, 0, 0, 0 };
	if (strcmp(b->cause, "-") == 0 || (b->keys & feature_keys & ~(s->strong | s->weak)))
		return m;
	uint64_t strong = b->keys & s->strong, weak = b->keys & s->weak & ~s->strong;
	unsigned eff = b->effects & s->effects;
	int ns = popcount64(strong), nw = popcount64(weak);
	/* a row that names a hang, crash or wrong data needs one of them: a
	 * failed init alone does not show "crash when shared memory creation
	 * fails" */
	unsigned shown = NKB_E_HANG | NKB_E_CRASH | NKB_E_CORRUPTION;
	if ((b->effects & shown) && !(eff & shown))
		return m;
	if (b->effects && !eff)
		return m;
	if (b->effects & shown) {
		if (ns < 1 && nw < 2)
			return m;
	} else if (ns < 1 || ns + nw < 2) {
		/* an error, an init failure or no effect at all says little: "Fix
		 * the error path in case IB communication is not ready" does not
		 * come with every IB error; two keys, one where it failed */
		return m;
	}
	m.keys = strong | weak;
	m.effects = eff;
	m.strength = 2 * ns + nw + (eff ? 1 : 0);
	return m;
}

size_t nkb_lookup(const char *version, const struct nkb_symptoms *s, struct nkb_match *out, size_t max)
{
	int v[3];
	size_t n = 0;
	if (!s || nkb_version_parse(version, v) < 0)
		return 0;
	for (size_t i = 0; i < sizeof(bugs) / sizeof(bugs[0]); i++) {
		if (!nkb_affects(&bugs[i], v))
			continue;
		struct nkb_match m = match_row(&bugs[i], s);
		if (!m.strength)
			continue;
		/* insertion by strength, then the nearest fix (the table is in
		 * release order, so a stable insert keeps the earlier fix first) */
		size_t at = n < max ? n : max;
		while (at > 0 && out[at - 1].strength < m.strength)
			at--;
		if (at >= max)
			continue;
		size_t last = n < max ? n : max - 1;
		memmove(&out[at + 1], &out[at], (last - at) * sizeof(*out));
		out[at] = m;
		if (n < max)
			n++;
	}
	return n;
}

size_t nkb_generic_fixes(const char *version, size_t *total)
{
	int v[3];
	size_t n = 0, all = 0;
	bool ok = version && nkb_version_parse(version, v) == 0;
	for (size_t i = 0; i < sizeof(bugs) / sizeof(bugs[0]); i++) {
		const struct nccl_known_bug *b = &bugs[i];
		if (strcmp(b->cause, "driver_or_kernel_bug") != 0 || (b->keys & feature_keys) ||
		    !(b->effects & (NKB_E_ERROR | NKB_E_INIT | NKB_E_CRASH)))
			continue;
		all++;
		if (ok && nkb_affects(b, v))
			n++;
	}
	if (total)
		*total = all;
	return ok ? n : 0;
}
