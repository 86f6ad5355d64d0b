/* NCCL's known bugs by version, from its release notes (tools/nccl-known-bugs):
 * every "Fix ..." / "Work around ..." line and known issue of the release
 * commits 2.4..2.28 (2.29+ publish their notes only on GitHub's release
 * pages), with the release that fixed it, where it began when the note says
 * so, the symptom keys a log can show and the cause class. The rows live in
 * the generated nccl_known_bugs_gen.def; `logs` looks them up with the NCCL
 * version a log prints and the symptoms it shows (analyze/logs/rules/known_bugs.c). */
#ifndef ND_KB_NCCL_KNOWN_BUGS_H
#define ND_KB_NCCL_KNOWN_BUGS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The symptom keys of keys.tsv, as mask bits: NKB_E_HANG, NKB_K_SHM, ... */
#define NKB(...)
#define NKB_EFFECT(N, s, b, w) NKB_E_##N = 1u << (b),
#define NKB_KEY(N, s, b, f, w)
enum nkb_effect {
#include "kb/nccl_known_bugs_gen.def"
};
#undef NKB_EFFECT
#undef NKB_KEY
#define NKB_EFFECT(N, s, b, w)
#define NKB_KEY(N, s, b, f, w) NKB_K_##N = UINT64_C(1) << (b),
enum nkb_key_bits {
#include "kb/nccl_known_bugs_gen.def"
};
#undef NKB
#undef NKB_EFFECT
#undef NKB_KEY

enum nkb_kind { NKB_FIX = 1, NKB_WORKAROUND, NKB_KNOWN_ISSUE };

struct nccl_known_bug {
	const char *key;        /* stable id (tools/nccl-known-bugs/README.md) */
	const char *fixed_in;   /* "2.18.3": the release whose notes carry the line */
	const char *introduced; /* "2.28.3", "2.26" or "before" (any earlier release) */
	const char *tag;        /* "v2.18.3-1", "-" when the release has no tag */
	const char *commit;     /* the release commit, 40 hex digits */
	int line;               /* the note's line in the commit message (1: subject) */
	enum nkb_kind kind;
	const char *cause;      /* a cause class (kb/causes.h), "-": no log shows it */
	unsigned effects;       /* NKB_E_* */
	uint64_t keys;          /* NKB_K_* */
	const char *workaround; /* "NCCL_X=v" the note tells to set, "" none */
	const char *note;       /* the release note's text */
};

const struct nccl_known_bug *kb_nccl_known_bugs(size_t *n);
/* The name of effect bit e / key bit k ("hang", "shm"), NULL when none. */
const char *nkb_effect_name(unsigned e);
const char *nkb_key_name(uint64_t k);
/* The feature keys (keys.tsv group "feature": CollNet, MNNVL, a large
 * job, ...): conditions of a bug, each of which a log must show. */
uint64_t nkb_feature_keys(void);

/* "2.18.1+cuda12.1", "2.18.1", "v2.18.3-1" or "2.26" (patch 0) into v[3];
 * 0, or -EINVAL when s does not start with a version. */
int nkb_version_parse(const char *s, int v[3]);
/* <0, 0, >0 as a is before, the same as, after b. */
int nkb_version_cmp(const int a[3], const int b[3]);
/* Whether release v has bug b: v is before b->fixed_in and not before
 * b->introduced (a known issue: v is the release that names it). */
bool nkb_affects(const struct nccl_known_bug *b, const int v[3]);

/* What a log shows: effects (NKB_E_*), strong keys (where the failure is:
 * the file or text of a warning, the operation of a stuck collective) and
 * weak keys (what the run used: transports, a signature's class, an
 * algorithm or protocol forced by a variable). */
struct nkb_symptoms {
	unsigned effects;
	uint64_t strong, weak;
};

struct nkb_match {
	const struct nccl_known_bug *bug;
	uint64_t keys;      /* the row's keys the log shows */
	unsigned effects;   /* the row's effects the log shows */
	int strength;       /* 2 per strong key, 1 per weak one, 1 for the effect */
};

/* The rows that version (as nkb_version_parse reads it) has and whose
 * symptoms the log shows, strongest first (then the nearest fix), at most
 * max into out; returns how many. Strict: a row no log shows (cause "-")
 * never matches; every feature key of a row must be shown; the effects a row
 * names must be shown (a hang, crash or corruption when it names one: an
 * init failure alone is not a crash); a row with a hang, crash or corruption
 * needs a strong key or two weak ones, any other row (an error, an init
 * failure, no effect) a strong key and another key. A generic "Fix crash"
 * with no key never matches. */
size_t nkb_lookup(const char *version, const struct nkb_symptoms *s, struct nkb_match *out, size_t max);
/* How many of the fixes any run can hit (class driver_or_kernel_bug, an
 * error, crash or init failure, no feature key) release version lacks;
 * *total: how many such rows the table has. 0 when version does not parse. */
size_t nkb_generic_fixes(const char *version, size_t *total);

#endif
