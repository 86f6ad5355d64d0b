/* The search engine of `nccl-doctor explain` (cmd/explain.c: its
 * options): the knowledge base compiled into the binary. A topic
 * is an Xid code ("79", "XID_79"), an NVSwitch SXid code ("20034",
 * "SXID_20034"), a GPU-fatal RM status of the driver ("NV_ERR_RESET_REQUIRED",
 * "0x62"), a finding id ("P2P_HANG"), an NCCL or
 * adjacent environment variable ("NCCL_P2P_LEVEL"), a symptom of the quick
 * reference ("HANG_AT_INIT"), a cause class, an NCCL log signature ("S05"),
 * a stage of NCCL's start-up timeline ("T7", the stage column of `logs`
 * and `watch`),
 * or else words searched over every entry ("hang at init"). `--list` lists
 * everything. The tables live in kb/. */
#include "engine/explain.h"
#include "kb/causes.h"
#include "kb/findings.h"
#include "kb/nccl_env.h"
#include "kb/nccl_signatures.h"
#include "kb/nccl_frames.h"
#include "kb/rm_status.h"
#include "kb/sxid.h"
#include "kb/symptoms.h"
#include "kb/xid.h"
#include "util/jsonx.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_FIELDS 16
#define MAX_SHOWN_MATCHES 25

struct field {
	const char *key;
	const char *label;
	char *val;
};

struct entry {
	const char *kind; /* xid | sxid | rm_status | finding | variable | symptom | cause | signature | stage | frame */
	char *id;
	char *title;      /* one line */
	struct field f[MAX_FIELDS];
	int nf;
	int score;        /* word search */
};

struct entries {
	struct entry *e;
	size_t n, alloc;
};

static struct entry *entry_new(struct entries *es, const char *kind, const char *id, const char *title)
{
	XGROW(es->e, es->alloc, es->n + 1);
	struct entry *e = &es->e[es->n++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->id = xstrdup(id);
	e->title = xstrdup(title ? title : "");
	return e;
}

static void field(struct entry *e, const char *key, const char *label, const char *val)
{
	if (!val || !*val || e->nf >= MAX_FIELDS)
		return;
	e->f[e->nf].key = key;
	e->f[e->nf].label = label;
	e->f[e->nf].val = xstrdup(val);
	e->nf++;
}

static void entries_free(struct entries *es)
{
	for (size_t i = 0; i < es->n; i++) {
		free(es->e[i].id);
		free(es->e[i].title);
		for (int k = 0; k < es->e[i].nf; k++)
			free(es->e[i].f[k].val);
	}
	free(es->e);
	memset(es, 0, sizeof(*es));
}

/* ---- building entries from the kb tables ---- */

static bool is_xid_finding(const char *id)
{
	if (strncmp(id, "XID_", 4) != 0 || !id[4])
		return false;
	for (const char *p = id + 4; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

static void add_xid(struct entries *es, const struct xid_def *x)
{
	char id[16], title[200], buf[512];
	snprintf(id, sizeof(id), "XID_%d", x->code);
	snprintf(title, sizeof(title), "Xid %d %s", x->code, x->name);
	struct entry *e = entry_new(es, "xid", id, title);
	snprintf(buf, sizeof(buf), "%d", x->code);
	field(e, "code", "code", buf);
	field(e, "name", "name", x->name);
	field(e, "meaning", "meaning", x->meaning);
	field(e, "class", "class", x->xclass);
	field(e, "cause", "cause class", x->cause);
	field(e, "severity", "severity", severity_name(x->severity));
	const char *at = xid_action_text(x->action);
	snprintf(buf, sizeof(buf), "%s%s%s%s", x->action, at ? " (" : "", at ? at : "", at ? ")" : "");
	field(e, "action", "immediate action", buf);
	const char *it = xid_action_text(x->investigate);
	snprintf(buf, sizeof(buf), "%s%s%s%s", x->investigate, it ? " (" : "", it ? it : "", it ? ")" : "");
	field(e, "investigation", "investigation", buf);
	field(e, "gpus", xid_is_legacy(x) ? "GPUs" : "A100/H100/B100/GB200",
	      xid_is_legacy(x) ? "pre-Ampere GPUs only (unused on Ampere and newer)" : x->archs);
	if (x->code == 43 || x->code == 45)
		field(e, "nccl", "with NCCL", "Right after a hung NCCL job was killed this Xid is expected and secondary; look at the Xids before it.");
	else if (x->severity == SEV_ERROR)
		field(e, "nccl", "with NCCL", "A fatal Xid leaves NCCL kernels and proxies on the other GPUs waiting until a watchdog fires; their logs then show timeouts, not this cause.");
	field(e, "finding", "finding id", id);
	field(e, "source", "source", "NVIDIA Xid catalog (docs.nvidia.com/deploy/xid-errors); open-gpu-kernel-modules nverror.h");
}

static void add_sxid(struct entries *es, const struct sxid_def *s)
{
	char id[24], title[200], buf[512];
	snprintf(id, sizeof(id), "SXID_%d", s->code);
	snprintf(title, sizeof(title), "SXid %d %s", s->code, s->name);
	struct entry *e = entry_new(es, "sxid", id, title);
	snprintf(buf, sizeof(buf), "%d", s->code);
	field(e, "code", "code", buf);
	field(e, "name", "name", s->name);
	field(e, "class", "class", sxid_class_name(s->sclass));
	field(e, "text", "logged as", s->text);
	field(e, "meaning", "meaning", s->meaning);
	field(e, "cause", "cause class", s->cause);
	field(e, "severity", "usual severity", severity_name(s->severity));
	const char *at = sxid_action_text(s->action);
	snprintf(buf, sizeof(buf), "%s%s%s%s", s->action, at ? " (" : "", at ? at : "", at ? ")" : "");
	field(e, "action", "action", buf);
	field(e, "log", "in the kernel log",
	      "nvidia-nvswitchN: SXid (PCI:<switch>): CODE, Fatal|Non-fatal|Correctable, Link NN <text>, then Severity and Data lines; "
	      "the Fatal or Non-fatal word of the line is the driver's verdict for that event");
	if (s->sclass == SXID_CLASS_FATAL || s->sclass == SXID_CLASS_ALWAYS_FATAL || s->severity == SEV_ERROR)
		field(e, "nccl", "with NCCL",
		      "NVLink traffic through the switch port stops: NCCL kernels on the GPUs behind it hang until a watchdog fires, "
		      "and those GPUs often log Xid 74, 45 or 79; the SXid is the cause, the timeouts are its consequence.");
	field(e, "source", "source",
	      sxid_documented(s) ? "NVIDIA Fabric Manager User Guide, appendix D (NVSwitch SXid errors); open-gpu-kernel-modules ctrl_dev_nvswitch.h"
				 : "open-gpu-kernel-modules ctrl_dev_nvswitch.h (not described in the Fabric Manager guide)");
}

static void add_rm_status(struct entries *es, const struct rm_status *s)
{
	char title[200], buf[64];
	snprintf(title, sizeof(title), "RM status 0x%02x %s: %s", s->code, s->name, s->text);
	struct entry *e = entry_new(es, "rm_status", s->name, title);
	snprintf(buf, sizeof(buf), "0x%08x", s->code);
	field(e, "code", "code", buf);
	field(e, "text", "driver's text", s->text);
	field(e, "meaning", "meaning", s->meaning);
	field(e, "cause", "cause class", s->cause);
	field(e, "severity", "usual severity", severity_name(s->severity));
	field(e, "log", "in the kernel log",
	      "NVRM: ... <text> [NAME] (0x<code>) returned from <call> (an assert or RPC failure of the resource manager); "
	      "`nccl-doctor kernel` lists them per GPU (GPU_RM_FATAL_STATUS), `logs` matches the names in a paste");
	field(e, "nccl", "with NCCL",
	      "the GPU is unusable until it is reset: NCCL on it fails or hangs, and the other ranks wait for it; drain the node, "
	      "reset the GPU (nvidia-smi -r) or reboot");
	field(e, "signature", "logs signature", s->signature);
	field(e, "source", "source", "open-gpu-kernel-modules src/common/sdk/nvidia/inc/nvstatuscodes.h (kb/rm_status.def)");
}

static void add_finding(struct entries *es, const struct finding_def *d)
{
	struct entry *e = entry_new(es, "finding", d->id, d->summary);
	field(e, "summary", "summary", d->summary);
	field(e, "severity", "usual severity", severity_name(d->severity));
	size_t nc;
	const struct cause_def *cs = kb_causes(&nc);
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", d->cause);
	for (size_t i = 0; i < nc; i++)
		if (strcmp(cs[i].name, d->cause) == 0)
			snprintf(buf, sizeof(buf), "%s (%s)", d->cause, cs[i].covers);
	field(e, "cause", "cause class", buf);
	field(e, "meaning", "what it means", d->meaning);
	field(e, "fix", "fix", d->fix);
}

static void add_env(struct entries *es, const struct nccl_env_def *v)
{
	char title[256];
	snprintf(title, sizeof(title), "%s (%s variable)", v->name, v->scope);
	struct entry *e = entry_new(es, "variable", v->name, title);
	field(e, "scope", "scope", v->scope);
	field(e, "values", "values", v->values);
	field(e, "default", "default", v->dflt);
	field(e, "effect", "effect", v->effect);
	field(e, "since", "since NCCL", v->since);
	field(e, "source", "source", v->source);
}

static void add_symptom(struct entries *es, const struct symptom_def *s)
{
	struct entry *e = entry_new(es, "symptom", s->id, s->symptom);
	field(e, "symptom", "symptom", s->symptom);
	field(e, "likely_cause", "likely cause (field guide)", s->cause);
	field(e, "guide_fix", "what the guide says", s->guide_fix);
	field(e, "caveat", "caveat", s->caveat);
	field(e, "better_fix", "check and better fix", s->better);
	field(e, "related", "related entries", s->related);
}

static void add_cause(struct entries *es, const struct cause_def *c)
{
	struct entry *e = entry_new(es, "cause", c->name, c->title);
	field(e, "covers", "covers", c->covers);
	field(e, "next", "first step", c->next);
	size_t nf;
	const struct finding_def *fs = kb_findings(&nf);
	struct strbuf sb;
	strbuf_init(&sb, 16384);
	int nxid = 0;
	for (size_t i = 0; i < nf; i++) {
		if (strcmp(fs[i].cause, c->name) != 0)
			continue;
		if (is_xid_finding(fs[i].id)) {
			nxid++;
			continue;
		}
		strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", fs[i].id);
	}
	if (nxid)
		strbuf_addf(&sb, "%s%d Xid codes", sb.len ? ", " : "", nxid);
	field(e, "findings", "findings", strbuf_str(&sb));
	strbuf_release(&sb);
}

/* A former class id: what it became, so that an old report or script
 * still finds its way. */
static void add_cause_alias(struct entries *es, const struct cause_alias *al)
{
	char title[256];
	snprintf(title, sizeof(title), "former cause class, split in %s (see 'split into')", al->since);
	struct entry *e = entry_new(es, "cause", al->name, title);
	field(e, "now", "split into", al->now);
	field(e, "use", "counted as", al->use);
	field(e, "note", "note",
	      "reports no longer write this id; JSON consumers and explain still accept it (docs/json.md, \"Versions\")");
}

static void add_signature(struct entries *es, const struct nccl_signature *s)
{
	char title[256];
	snprintf(title, sizeof(title), "log signature %s (%s)", s->id, s->finding ? s->finding : "-");
	struct entry *e = entry_new(es, "signature", s->id, title);
	struct strbuf sb;
	strbuf_init(&sb, 4096);
	for (int i = 0; i < NS_MAX_ANY && s->any[i]; i++)
		strbuf_addf(&sb, "%s\"%s\"", i ? " or " : "", s->any[i]);
	if (s->also)
		strbuf_addf(&sb, " and \"%s\"", s->also);
	field(e, "matches", "line contains", strbuf_str(&sb));
	strbuf_release(&sb);
	field(e, "finding", "finding", s->finding);
	field(e, "role", "role", nccl_sig_role_name(s->role));
	if (s->stage >= 0)
		field(e, "stage", "stage", nccl_stage_name(s->stage));
	field(e, "versions", "versions", s->versions);
	field(e, "meaning", "meaning", s->meaning);
	field(e, "fix", "fix", s->fix);
	field(e, "source", "source", s->source);
}

/* A stage of the timeline: what the log shows there and what a run that
 * stopped there means. */
static void add_stage(struct entries *es, int st)
{
	char id[8];
	snprintf(id, sizeof(id), "T%d", st);
	const char *name = nccl_stage_name(st);
	const char *words = strchr(name, ' ');
	char title[128];
	snprintf(title, sizeof(title), "NCCL start-up stage %s: %s", id, words ? words + 1 : name);
	struct entry *e = entry_new(es, "stage", id, title);
	field(e, "stage", "stage", words ? words + 1 : name);
	field(e, "lines", "NCCL log lines", nccl_stage_lines(st));
	field(e, "stopped", "a run that stops here", nccl_stage_hang_meaning(st));
	field(e, "where", "shown in",
	      "the stage and stopped-at columns of `logs` and `watch` (the last stage each rank's log reached)");
	field(e, "source", "source", "NCCL's init.cc and group.cc, as summarised in the project's nccl-log notes");
}

/* A function name a stack dump shows (kb/nccl_frames.h): the stage it
 * belongs to and what a process stopped there points to. */
static void add_frame(struct entries *es, const struct nccl_frame *f)
{
	char title[200], causes[200] = "";
	snprintf(title, sizeof(title), "stack frame %s: %s", f->name, nccl_frame_kind_name(f->kind));
	struct entry *e = entry_new(es, "frame", f->name, title);
	field(e, "stage", "stage", nccl_frame_kind_name(f->kind));
	field(e, "meaning", "a process stopped there", nccl_frame_kind_meaning(f->kind));
	size_t used = 0;
	for (const struct nccl_frame_cause *c = nccl_frame_causes(f->kind); c->cause && used < sizeof(causes); c++)
		used += (size_t)snprintf(causes + used, sizeof(causes) - used, "%s%s %.2f", used ? ", " : "", c->cause, c->w);
	field(e, "causes", "causes it weighs (no root failure)",
	      f->kind == NFK_BACKGROUND ? "none: a thread every run has, in the same call when all is well" : causes);
	field(e, "fix", "what to do", nccl_frame_kind_fix(f->kind));
	field(e, "where", "read from",
	      "gdb, py-spy, glibc back-traces, PyTorch's C++ stack, Python tracebacks and faulthandler in `logs` input "
	      "(finding LOG_STACK_STAGE)");
	field(e, "source", "source", f->source);
}

static void build_all(struct entries *es)
{
	size_t n;
	const struct xid_def *xs = kb_xids(&n);
	for (size_t i = 0; i < n; i++)
		add_xid(es, &xs[i]);
	const struct sxid_def *sx = kb_sxids(&n);
	for (size_t i = 0; i < n; i++)
		add_sxid(es, &sx[i]);
	const struct rm_status *rs = kb_rm_statuses(&n);
	for (size_t i = 0; i < n; i++)
		add_rm_status(es, &rs[i]);
	const struct finding_def *fs = kb_findings(&n);
	for (size_t i = 0; i < n; i++)
		if (!is_xid_finding(fs[i].id))
			add_finding(es, &fs[i]);
	const struct nccl_env_def *vs = kb_nccl_envs(&n);
	for (size_t i = 0; i < n; i++)
		add_env(es, &vs[i]);
	const struct symptom_def *ss = kb_symptoms(&n);
	for (size_t i = 0; i < n; i++)
		add_symptom(es, &ss[i]);
	const struct cause_def *cs = kb_causes(&n);
	for (size_t i = 0; i < n; i++)
		add_cause(es, &cs[i]);
	const struct cause_alias *al = kb_cause_aliases(&n);
	for (size_t i = 0; i < n; i++)
		add_cause_alias(es, &al[i]);
	const struct nccl_signature *sg = kb_nccl_signatures(&n);
	for (size_t i = 0; i < n; i++)
		add_signature(es, &sg[i]);
	const struct nccl_frame *fr = kb_nccl_frames(&n);
	for (size_t i = 0; i < n; i++)
		add_frame(es, &fr[i]);
	for (int st = 0; st <= NCCL_STAGE_MAX; st++)
		add_stage(es, st);
}

/* ---- rendering ---- */

static json_t *entry_json(const struct entry *e)
{
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(e->kind));
	json_object_set_new(o, "id", json_str_lossy(e->id));
	json_object_set_new(o, "title", json_str_lossy(e->title));
	for (int i = 0; i < e->nf; i++) {
		if (strcmp(e->f[i].key, "code") == 0)
			json_object_set_new(o, "code", json_integer(atoi(e->f[i].val)));
		else
			json_object_set_new(o, e->f[i].key, json_str_lossy(e->f[i].val));
	}
	return o;
}

static void show_entry(struct result *r, const struct entry *e, json_t *arr)
{
	char title[320];
	snprintf(title, sizeof(title), "%s: %s", e->id, e->title);
	struct section *s = result_section(r, "entry", title);
	s->kind = SECTION_TEXT_ONLY; /* JSON: the "entries" member */
	section_add(s, "kind", "kind", val_str(e->kind));
	for (int i = 0; i < e->nf; i++)
		section_add(s, e->f[i].key, e->f[i].label, val_str(e->f[i].val));
	json_array_append_new(arr, entry_json(e));
}

static void list_table(struct result *r, struct entries *es, size_t *idx, size_t n, const char *key,
		       const char *title)
{
	static const struct column cols[] = { { "kind", "kind", 0 }, { "id", "id", 0 }, { "title", "summary", 0 } };
	struct section *s = result_section(r, key, title);
	s->kind = SECTION_TEXT_ONLY; /* JSON: the "entries" / "matches" members */
	struct table *t = section_table(s, "entries", NULL, cols, 3);
	for (size_t i = 0; i < n; i++) {
		const struct entry *e = &es->e[idx ? idx[i] : i];
		size_t row = table_add_row(t);
		table_set(t, row, "kind", val_str(e->kind));
		table_set(t, row, "id", val_str(e->id));
		table_set(t, row, "title", val_str(e->title));
	}
}

/* ---- lookup ---- */

/* "79", "XID_79", "xid79", "Xid 79", "xid-79" -> 79; -1 otherwise. */
static int xid_code_of(const char *t)
{
	const char *p = t;
	if (strncasecmp(p, "xid", 3) == 0) {
		p += 3;
		if (*p == '_' || *p == ' ' || *p == '-')
			p++;
	}
	if (!*p)
		return -1;
	long long v;
	for (const char *q = p; *q; q++)
		if (!isdigit((unsigned char)*q))
			return -1;
	if (parse_ll(p, 10, &v) < 0 || v < 0 || v > 100000)
		return -1;
	return (int)v;
}

/* "SXID_20034", "sxid20034", "SXid 20034", "sxid-20034" -> 20034; -1 otherwise. */
static int sxid_code_of(const char *t)
{
	if (strncasecmp(t, "sxid", 4) != 0)
		return -1;
	return xid_code_of(t + 1); /* "xid..." */
}

static const char *const stopwords[] = { "a", "an", "the", "at", "in", "on", "of", "to", "is", "are",
					 "and", "or", "for", "with", "my", "it", "when", "why", "what", "how",
					 "does", "do", "i", "be", "by" };

static bool is_stopword(const char *w)
{
	for (size_t i = 0; i < sizeof(stopwords) / sizeof(stopwords[0]); i++)
		if (strcmp(w, stopwords[i]) == 0)
			return true;
	return false;
}

/* Splits the query into lower-case words without stop words. */
static size_t query_words(const char *q, char words[][48], size_t max)
{
	size_t n = 0;
	const char *p = q;
	while (*p && n < max) {
		while (*p && !isalnum((unsigned char)*p) && *p != '_')
			p++;
		size_t len = 0;
		char w[48];
		while (*p && (isalnum((unsigned char)*p) || *p == '_' || *p == '-')) {
			if (len + 1 < sizeof(w))
				w[len++] = (char)tolower((unsigned char)*p);
			p++;
		}
		w[len] = '\0';
		if (len && !is_stopword(w))
			str_copy(words[n++], w, sizeof(words[0]));
	}
	return n;
}

/* word occurs in text at the start of a word (so "init" finds "initialise" but "ecc" not "check") */
static bool has_word(const char *text, const char *word)
{
	size_t wl = strlen(word);
	for (const char *p = text; (p = str_casestr(p, word)) != NULL; p += wl)
		if (p == text || !isalnum((unsigned char)p[-1]))
			return true;
	return false;
}

static int score_entry(const struct entry *e, char words[][48], size_t nw, size_t *matched)
{
	int score = 0;
	*matched = 0;
	for (size_t i = 0; i < nw; i++) {
		int s = 0;
		if (has_word(e->id, words[i]) || has_word(e->title, words[i]))
			s = 3;
		else
			for (int k = 0; k < e->nf && !s; k++)
				if (has_word(e->f[k].val, words[i]))
					s = 1;
		if (s) {
			(*matched)++;
			score += s;
		}
	}
	if (*matched && strcmp(e->kind, "symptom") == 0)
		score += 4; /* the quick reference answers symptom questions first */
	return score;
}

static int cmp_score(const void *a, const void *b, void *ctx)
{
	const struct entries *es = ctx;
	const struct entry *x = &es->e[*(const size_t *)a], *y = &es->e[*(const size_t *)b];
	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static struct entry *find_exact(struct entries *es, const char *kind, const char *id)
{
	for (size_t i = 0; i < es->n; i++)
		if ((!kind || strcmp(es->e[i].kind, kind) == 0) && strcasecmp(es->e[i].id, id) == 0)
			return &es->e[i];
	return NULL;
}

/* No exact id: the entries whose text holds the most words of the topic,
 * best first. */
static void explain_search(struct result *r, struct entries *es, const char *topic, json_t *arr)
{
	char words[16][48];
	size_t nw = query_words(topic, words, 16);
	size_t *idx = xcalloc(es->n ? es->n : 1, sizeof(size_t));
	size_t n = 0, best_matched = 0;
	size_t *matched = xcalloc(es->n ? es->n : 1, sizeof(size_t));
	for (size_t i = 0; i < es->n; i++) {
		es->e[i].score = nw ? score_entry(&es->e[i], words, nw, &matched[i]) : 0;
		if (matched[i] > best_matched)
			best_matched = matched[i];
	}
	/* all words when some entry has them all; else the entries with the most */
	for (size_t i = 0; i < es->n; i++)
		if (best_matched && matched[i] == best_matched)
			idx[n++] = i;
	qsort_r(idx, n, sizeof(size_t), cmp_score, es);
	if (n == 0) {
		result_set_error(r, "nothing in the knowledge base matches '%s'; try 'nccl-doctor explain --list'", topic);
	} else {
		show_entry(r, &es->e[idx[0]], arr);
		size_t shown = n < MAX_SHOWN_MATCHES ? n : MAX_SHOWN_MATCHES;
		list_table(r, es, idx, shown, "matches", "Matches");
		json_t *ms = json_array();
		for (size_t i = 0; i < n; i++) {
			json_t *o = json_object();
			json_object_set_new(o, "kind", json_string(es->e[idx[i]].kind));
			json_object_set_new(o, "id", json_str_lossy(es->e[idx[i]].id));
			json_object_set_new(o, "title", json_str_lossy(es->e[idx[i]].title));
			json_object_set_new(o, "score", json_integer(es->e[idx[i]].score));
			json_array_append_new(ms, o);
		}
		json_object_set_new(r->extra, "matches", ms);
		result_set_headline(r, "%zu entr%s match%s '%s'%s; the best one first", n, n == 1 ? "y" : "ies",
				    n == 1 ? "es" : "", topic,
				    best_matched < nw ? " (not all words found)" : "");
		if (n > shown) {
			struct section *s = result_section(r, "matches", "Matches");
			section_note(s, "%zu more; 'nccl-doctor --json explain ...' lists them all", n - shown);
		}
	}
	free(idx);
	free(matched);
}

const char *const explain_kinds[] = { "xid", "sxid", "rm_status", "finding", "variable", "symptom", "cause", "signature", "stage", "frame", NULL };

void explain_list(struct result *r, const char *kind)
{
	struct entries es = { 0 };
	build_all(&es);
	json_t *arr = json_array();
	size_t *idx = xcalloc(es.n ? es.n : 1, sizeof(size_t));
	size_t n = 0;
	for (size_t i = 0; i < es.n; i++)
		if (!kind || strcmp(es.e[i].kind, kind) == 0)
			idx[n++] = i;
	list_table(r, &es, idx, n, "list", "Knowledge base");
	for (size_t i = 0; i < n; i++) {
		json_t *o = json_object();
		json_object_set_new(o, "kind", json_string(es.e[idx[i]].kind));
		json_object_set_new(o, "id", json_str_lossy(es.e[idx[i]].id));
		json_object_set_new(o, "title", json_str_lossy(es.e[idx[i]].title));
		json_array_append_new(arr, o);
	}
	result_set_headline(r, "%zu entries%s%s", n, kind ? " of kind " : "", kind ? kind : "");
	free(idx);
	json_object_set_new(r->extra, "entries", arr);
	entries_free(&es);
}

void explain_topic(struct result *r, const char *topic)
{
	const char *const *kinds = explain_kinds;
	struct entries es = { 0 };
	build_all(&es);
	json_t *arr = json_array();
	json_object_set_new(r->extra, "query", json_str_lossy(topic));

	struct entry *hit = NULL;
	int scode = sxid_code_of(topic);
	int code = scode >= 0 ? -1 : xid_code_of(topic);
	/* SXids start at 10000 (ctrl_dev_nvswitch.h), far above every Xid */
	if (code >= 10000 && !find_exact(&es, "xid", topic))
		scode = code, code = -1;
	if (scode >= 0 || code >= 0) {
		bool sx = scode >= 0;
		char id[32];
		snprintf(id, sizeof(id), "%s_%d", sx ? "SXID" : "XID", sx ? scode : code);
		hit = find_exact(&es, sx ? "sxid" : "xid", id);
		if (!hit) {
			if (sx)
				result_set_error(r, "SXid %d is not in the catalog (a newer NVSwitch driver); see NVIDIA's "
						 "Fabric Manager User Guide, appendix D", scode);
			else
				result_set_error(r, "Xid %d is not in the catalog (a code of older GPUs or a newer driver); "
						 "see docs.nvidia.com/deploy/xid-errors", code);
			json_object_set_new(r->extra, "entries", arr);
			entries_free(&es);
			return;
		}
	}
	/* "0x62", "0x00000062": an RM status code as the driver prints it */
	if (!hit && (topic[0] == '0') && (topic[1] == 'x' || topic[1] == 'X')) {
		char *end;
		unsigned long c = strtoul(topic + 2, &end, 16);
		size_t nr;
		const struct rm_status *rs = kb_rm_statuses(&nr);
		for (size_t i = 0; *end == '\0' && end != topic + 2 && i < nr && !hit; i++)
			if (rs[i].code == c)
				hit = find_exact(&es, "rm_status", rs[i].name);
	}
	/* exact ids, in this order of kinds */
	for (size_t k = 0; !hit && kinds[k]; k++)
		hit = find_exact(&es, kinds[k], topic);
	if (hit) {
		show_entry(r, hit, arr);
		result_set_headline(r, "%s %s", hit->kind, hit->id);
	} else {
		explain_search(r, &es, topic, arr);
	}
	json_object_set_new(r->extra, "entries", arr);
	entries_free(&es);
}
