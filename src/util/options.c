/* Option parsing against one table per command (util/options.h): finds each
 * option, takes its value, checks it, and words every usage error. */
#include "util/options.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool takes_value(const struct opt_spec *o)
{
	return o->kind != OPT_KIND_FLAG && o->kind != OPT_KIND_SET && o->kind != OPT_KIND_HELP;
}

/* the spec with exactly this long name, in specs and the tables it includes */
static const struct opt_spec *find_exact(const struct opt_spec *specs, const char *name, size_t len)
{
	for (const struct opt_spec *o = specs; o->kind != OPT_KIND_END; o++) {
		if (o->kind == OPT_KIND_INCLUDE) {
			const struct opt_spec *f = find_exact(o->include, name, len);
			if (f)
				return f;
		} else if (o->name && strlen(o->name) == len && strncmp(o->name, name, len) == 0) {
			return o;
		}
	}
	return NULL;
}

/* the specs whose long name starts with name: the first in *hit, the count
 * returned, their names listed in names */
static int find_prefix(const struct opt_spec *specs, const char *name, size_t len, const struct opt_spec **hit,
		       char *names, size_t namesz, size_t *nlen)
{
	int n = 0;
	for (const struct opt_spec *o = specs; o->kind != OPT_KIND_END; o++) {
		if (o->kind == OPT_KIND_INCLUDE) {
			n += find_prefix(o->include, name, len, hit, names, namesz, nlen);
		} else if (o->name && strncmp(o->name, name, len) == 0) {
			if (!*hit)
				*hit = o;
			str_appendf(names, namesz, nlen, "%s--%s", n ? ", " : "", o->name);
			n++;
		}
	}
	return n;
}

static const struct opt_spec *find_short(const struct opt_spec *specs, char c)
{
	for (const struct opt_spec *o = specs; o->kind != OPT_KIND_END; o++) {
		if (o->kind == OPT_KIND_INCLUDE) {
			const struct opt_spec *f = find_short(o->include, c);
			if (f)
				return f;
		} else if (o->short_name && o->short_name == c) {
			return o;
		}
	}
	return NULL;
}

/* a bound as people write it: 86400, 0.1, 1024 */
static void fmt_num(char *buf, size_t sz, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, sz, "%.0f", v);
	else
		snprintf(buf, sz, "%g", v);
}

const char *opt_expects(const struct opt_spec *o, char *buf, size_t bufsz)
{
	char lo[32], hi[32];
	fmt_num(lo, sizeof(lo), o->lo);
	fmt_num(hi, sizeof(hi), o->hi);
	buf[0] = 0;
	switch (o->kind) {
	case OPT_KIND_INT:
		snprintf(buf, bufsz, "a number from %s to %s", lo, hi);
		break;
	case OPT_KIND_SECONDS:
		if (o->flags & OPT_ABOVE_LO)
			snprintf(buf, bufsz, "a number of seconds more than %s and at most %s", lo, hi);
		else
			snprintf(buf, bufsz, "a number of seconds from %s to %s", lo, hi);
		break;
	case OPT_KIND_ENUM: {
		size_t len = 0, n = 0;
		while (o->choices[n])
			n++;
		for (size_t i = 0; i < n; i++)
			str_appendf(buf, bufsz, &len, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", o->choices[i]);
		break;
	}
	default:
		snprintf(buf, bufsz, "%s", o->expects ? o->expects : "a value");
		break;
	}
	return buf;
}

/* Stores value into o's target; 0, or -1 with msg worded. typed: the
 * option as the user wrote it. */
static int take_value(const struct opt_spec *o, const char *typed, const char *value, char *msg, size_t msgsz)
{
	char why[256] = "";
	bool ok = true;
	switch (o->kind) {
	case OPT_KIND_INT: {
		long long v;
		ok = parse_ll(value, o->base, &v) == 0 && (double)v >= o->lo && (double)v <= o->hi;
		if (ok)
			*(long long *)o->target = v;
		break;
	}
	case OPT_KIND_SECONDS: {
		double v;
		ok = parse_double(value, &v) == 0 && isfinite(v) && v <= o->hi &&
		     ((o->flags & OPT_ABOVE_LO) ? v > o->lo : v >= o->lo);
		if (ok)
			*(double *)o->target = v;
		break;
	}
	case OPT_KIND_STRING:
		ok = !(o->flags & OPT_NONEMPTY) || *value;
		if (ok)
			*(const char **)o->target = value;
		break;
	case OPT_KIND_ENUM:
		ok = false;
		for (int i = 0; o->choices[i]; i++)
			if (strcmp(o->choices[i], value) == 0) {
				*(int *)o->target = i;
				ok = true;
				break;
			}
		break;
	case OPT_KIND_CALL:
		ok = o->fn(o->target, value, why, sizeof(why)) == 0;
		break;
	default:
		break;
	}
	if (ok)
		return 0;
	if (why[0]) {
		snprintf(msg, msgsz, "option '%s': %s", typed, why);
	} else {
		char what[256];
		snprintf(msg, msgsz, "option '%s' expects %s, not '%s'", typed, opt_expects(o, what, sizeof(what)), value);
	}
	return -1;
}

/* an option without a value */
static void take_flag(const struct opt_spec *o)
{
	if (o->kind == OPT_KIND_FLAG)
		*(bool *)o->target = true;
	else if (o->kind == OPT_KIND_SET)
		*(int *)o->target = o->ival;
}

struct parse {
	int argc;
	char **argv;
	const struct opt_spec *specs;
	unsigned flags;
	char *msg;
	size_t msgsz;
	char **opts, **args; /* the option tokens and the arguments, in order */
	int nopts, nargs;
};

enum { TOK_DONE = 0, TOK_KEEP = 1 }; /* or OPT_RET_HELP, OPT_RET_ERROR */

/* The value of the option typed at argv[*i] from the next argument (kept
 * among the options, *i moved past it); NULL with the message when none. */
static const char *next_value(struct parse *p, int *i, const char *typed)
{
	if (*i + 1 >= p->argc) {
		snprintf(p->msg, p->msgsz, "option '%s' requires a value", typed);
		return NULL;
	}
	p->opts[p->nopts++] = p->argv[*i];
	return p->argv[++*i];
}

/* --name[=value] at argv[*i]; TOK_DONE, TOK_KEEP (unknown, kept), OPT_RET_HELP or OPT_RET_ERROR */
static int long_option(struct parse *p, int *i)
{
	const char *a = p->argv[*i], *name = a + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	char typed[128];
	snprintf(typed, sizeof(typed), "--%.*s", (int)(len < 100 ? len : 100), name);
	const struct opt_spec *o = find_exact(p->specs, name, len);
	if (!o && !(p->flags & OPT_EXACT) && len > 0) {
		char names[200] = "";
		size_t nlen = 0;
		int n = find_prefix(p->specs, name, len, &o, names, sizeof(names), &nlen);
		if (n > 1) {
			snprintf(p->msg, p->msgsz, "option '%s' is ambiguous: %s", typed, names);
			return OPT_RET_ERROR;
		}
	}
	if (o && (p->flags & OPT_KEEP_UNKNOWN) && eq && !takes_value(o))
		o = NULL; /* main: `--json=FILE` is watch's own option */
	if (!o) {
		if (p->flags & OPT_KEEP_UNKNOWN)
			return TOK_KEEP;
		snprintf(p->msg, p->msgsz, "unknown option '%s'", typed);
		return OPT_RET_ERROR;
	}
	if (o->kind == OPT_KIND_HELP && !eq)
		return OPT_RET_HELP;
	if (!takes_value(o)) {
		if (eq) {
			snprintf(p->msg, p->msgsz, "option '%s' takes no value", typed);
			return OPT_RET_ERROR;
		}
		take_flag(o);
		return TOK_DONE;
	}
	const char *value = eq ? eq + 1 : next_value(p, i, typed);
	if (!value)
		return OPT_RET_ERROR;
	return take_value(o, typed, value, p->msg, p->msgsz) ? OPT_RET_ERROR : TOK_DONE;
}

/* -abc at argv[*i] (flags clustered, the last one may take the rest or the
 * next argument as its value) */
static int short_options(struct parse *p, int *i)
{
	const char *a = p->argv[*i];
	for (size_t j = 1; a[j]; j++) {
		char typed[3] = { '-', a[j], 0 };
		const struct opt_spec *o = find_short(p->specs, a[j]);
		if (!o) {
			if ((p->flags & OPT_KEEP_UNKNOWN) && j == 1)
				return TOK_KEEP;
			snprintf(p->msg, p->msgsz, "unknown option '%s'", typed);
			return OPT_RET_ERROR;
		}
		if (o->kind == OPT_KIND_HELP)
			return OPT_RET_HELP;
		if (!takes_value(o)) {
			take_flag(o);
			continue;
		}
		const char *value = a[j + 1] ? a + j + 1 : next_value(p, i, typed);
		if (!value)
			return OPT_RET_ERROR;
		return take_value(o, typed, value, p->msg, p->msgsz) ? OPT_RET_ERROR : TOK_DONE;
	}
	return TOK_DONE;
}

static int walk(struct parse *p)
{
	for (int i = 1; i < p->argc; i++) {
		char *a = p->argv[i];
		if (strcmp(a, "--") == 0) {
			if (p->flags & OPT_KEEP_UNKNOWN)
				p->args[p->nargs++] = a;
			else
				p->opts[p->nopts++] = a;
			while (++i < p->argc)
				p->args[p->nargs++] = p->argv[i];
			break;
		}
		if (a[0] != '-' || a[1] == 0) {
			if (!(p->flags & OPT_STOP_AT_ARG)) {
				p->args[p->nargs++] = a;
				continue;
			}
			while (i < p->argc)
				p->args[p->nargs++] = p->argv[i++];
			break;
		}
		int r = a[1] == '-' ? long_option(p, &i) : short_options(p, &i);
		if (r == OPT_RET_HELP || r == OPT_RET_ERROR)
			return r;
		if (r == TOK_KEEP)
			p->args[p->nargs++] = a;
		else
			p->opts[p->nopts++] = p->argv[i];
	}
	return 0;
}

int opt_parse(int argc, char **argv, const struct opt_spec *specs, unsigned flags, char *msg, size_t msgsz)
{
	struct parse p = { .argc = argc, .argv = argv, .specs = specs, .flags = flags, .msg = msg, .msgsz = msgsz };
	if (msgsz)
		msg[0] = 0;
	if (argc < 1)
		return 1;
	p.opts = xcalloc((size_t)argc, sizeof(char *));
	p.args = xcalloc((size_t)argc, sizeof(char *));
	int r = walk(&p);
	if (r == 0) {
		/* options first, then the arguments in their order */
		int k = 1;
		for (int i = 0; i < p.nopts; i++)
			argv[k++] = p.opts[i];
		r = k;
		for (int i = 0; i < p.nargs; i++)
			argv[k++] = p.args[i];
	}
	free(p.opts);
	free(p.args);
	return r;
}

static void list_into(const struct opt_spec *specs, char *buf, size_t bufsz, size_t *len, size_t *need)
{
	for (const struct opt_spec *o = specs; o->kind != OPT_KIND_END; o++) {
		if (o->kind == OPT_KIND_INCLUDE) {
			list_into(o->include, buf, bufsz, len, need);
			continue;
		}
		if (o->short_name) {
			str_appendf(buf, bufsz, len, "%s-%c", *need ? " " : "", o->short_name);
			*need += (*need ? 1 : 0) + 2;
		}
		if (o->name) {
			str_appendf(buf, bufsz, len, "%s--%s", *need ? " " : "", o->name);
			*need += (*need ? 1 : 0) + 2 + strlen(o->name);
		}
	}
}

size_t opt_list(const struct opt_spec *specs, char *buf, size_t bufsz)
{
	size_t len = 0, need = 0;
	if (bufsz)
		buf[0] = 0;
	list_into(specs, buf, bufsz, &len, &need);
	return need;
}
