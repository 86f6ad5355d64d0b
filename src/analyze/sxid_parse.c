/* NVSwitch SXid line parser and grouping: see sxid_parse.h. The literals
 * come from the nvidia-nvswitch driver (open-gpu-kernel-modules 515 to 595):
 *  - NVSWITCH_PRINT_SXID: "nvidia-%s: SXid (PCI:%04x:%02x:%02x.%x): %05d, " fmt
 *    (the device name is "nvswitchN");
 *  - intr_nvswitch.h: "Correctable, Link %02d %s%s", "Non-fatal, Link %02d %s%s",
 *    "Fatal, Link %02d %s%s" (the second %s is " (First)" or ""), and
 *    "Non-fatal, %s, instance=%d, chiplet=%d" / "Fatal, %s, instance=%d, chiplet=%d";
 *  - error_nvswitch.c _nvswitch_dump_error_entry: "Severity %d Engine instance
 *    %02d Sub-engine instance %02d" (0 non-fatal, 1 fatal: enum
 *    NVSWITCH_ERROR_SEVERITY_TYPE) and "Data {0x%08x, ...}" with nine words,
 *    then eight more only when one of them is non-zero. */
#include "analyze/sxid_parse.h"
#include "util/text.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *sxid_sev_name(enum sxid_sev s)
{
	switch (s) {
	case SXID_SEV_CORRECTABLE: return "correctable";
	case SXID_SEV_NONFATAL: return "nonfatal";
	case SXID_SEV_FATAL: return "fatal";
	default: return "unknown";
	}
}

/* Decimal digits at s (at most 9) into *v; returns how many. */
static size_t digits(const char *s, int *v)
{
	size_t n = 0;
	int x = 0;
	while (n < 9 && isdigit((unsigned char)s[n]))
		x = x * 10 + (s[n++] - '0');
	*v = x;
	return n;
}

/* Hex digits at s (at most 8) into *v; returns how many. */
static size_t hexdigits(const char *s, unsigned *v)
{
	size_t n = 0;
	unsigned x = 0;
	while (n < 8 && isxdigit((unsigned char)s[n])) {
		int c = tolower((unsigned char)s[n++]);
		x = x * 16 + (unsigned)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	*v = x;
	return n;
}

/* "dddd:bb:dd.f" (or without ".f": function 0) at s into out; returns the
 * characters used, 0 when s is no address. */
static size_t switch_bdf(const char *s, char *out, size_t outsz)
{
	unsigned dom, bus, dev, fn = 0;
	size_t n, used = 0;
	if ((n = hexdigits(s, &dom)) == 0 || n > 4 || s[n] != ':')
		return 0;
	used = n + 1;
	if ((n = hexdigits(s + used, &bus)) == 0 || n > 2 || s[used + n] != ':')
		return 0;
	used += n + 1;
	if ((n = hexdigits(s + used, &dev)) == 0 || n > 2 || dev > 0x1f)
		return 0;
	used += n;
	if (s[used] == '.' && s[used + 1] >= '0' && s[used + 1] <= '7') {
		fn = (unsigned)(s[used + 1] - '0');
		used += 2;
	}
	snprintf(out, outsz, "%04x:%02x:%02x.%x", dom, bus, dev, fn);
	return used;
}

static void parse_data(const char *p, struct sxid_line *o)
{
	/* "{0x000001c0, 0x00bd5c8a, ...}" */
	while (*p && *p != '}') {
		while (*p == ' ' || *p == ',')
			p++;
		if (p[0] != '0' || (p[1] != 'x' && p[1] != 'X'))
			break;
		unsigned v;
		size_t n = hexdigits(p + 2, &v);
		if (n == 0)
			break;
		if (o->ndata < SXID_DATA_WORDS)
			o->data[o->ndata] = v;
		o->ndata++;
		p += 2 + n;
	}
	if (o->ndata > SXID_DATA_WORDS)
		o->ndata = SXID_DATA_WORDS + 1; /* "more than kept" is all callers need */
}

static void parse_header(const char *p, struct sxid_line *o)
{
	static const struct {
		const char *word;
		enum sxid_sev sev;
	} words[] = {
		{ "Fatal, ", SXID_SEV_FATAL },
		{ "Non-fatal, ", SXID_SEV_NONFATAL },
		{ "Nonfatal, ", SXID_SEV_NONFATAL },
		{ "Correctable, ", SXID_SEV_CORRECTABLE },
	};
	o->kind = SXID_LINE_HEADER;
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (str_startswith(p, words[i].word)) {
			o->sev = words[i].sev;
			p += strlen(words[i].word);
			break;
		}
	int link;
	size_t n;
	if (str_startswith(p, "Link ") && (n = digits(p + 5, &link)) > 0 && (p[5 + n] == ' ' || p[5 + n] == '\0')) {
		o->link = link;
		p += 5 + n;
		while (*p == ' ')
			p++;
	}
	size_t len = strlen(p);
	while (len > 0 && isspace((unsigned char)p[len - 1]))
		len--;
	if (len >= 7 && memcmp(p + len - 7, "(First)", 7) == 0) {
		o->first = true;
		len -= 7;
		while (len > 0 && p[len - 1] == ' ')
			len--;
	}
	o->text = p;
	o->text_len = len;
}

bool sxid_parse_line(const char *msg, struct sxid_line *o)
{
	const char *p = strstr(msg, "SXid (");
	if (!p)
		return false;
	memset(o, 0, sizeof(*o));
	o->instance = -1;
	o->link = -1;
	o->engine = o->subengine = -1;
	o->sev = SXID_SEV_UNKNOWN;
	o->text = "";

	/* "nvidia-nvswitchN: " before the tag names the switch */
	const char *ns = strstr(msg, "nvswitch");
	if (ns && ns < p) {
		int v;
		size_t n = digits(ns + 8, &v);
		if (n > 0 && ns[8 + n] == ':')
			o->instance = v;
	}
	p += strlen("SXid (");
	if (str_startswith(p, "PCI:"))
		p += 4;
	size_t n = switch_bdf(p, o->bdf, sizeof(o->bdf));
	if (n == 0 || strncmp(p + n, "): ", 3) != 0)
		return false;
	p += n + 3;
	if ((n = digits(p, &o->sxid)) == 0)
		return false;
	p += n;
	if (*p == ',')
		p++;
	while (*p == ' ')
		p++;

	if (str_startswith(p, "Severity ")) {
		int s = -1, e = -1, se = -1;
		if (sscanf(p, "Severity %d Engine instance %d Sub-engine instance %d", &s, &e, &se) < 1)
			return false;
		o->kind = SXID_LINE_SEVERITY;
		o->sev = s == 1 ? SXID_SEV_FATAL : s == 0 ? SXID_SEV_NONFATAL : SXID_SEV_UNKNOWN;
		o->engine = e;
		o->subengine = se;
		return true;
	}
	if (str_startswith(p, "Data {")) {
		o->kind = SXID_LINE_DATA;
		parse_data(p + 6, o);
		return true;
	}
	parse_header(p, o);
	return true;
}

void sxid_event_start(struct sxid_event *ev, const struct sxid_line *l)
{
	memset(ev, 0, sizeof(*ev));
	ev->instance = l->instance;
	str_copy(ev->bdf, l->bdf, sizeof(ev->bdf));
	ev->sxid = l->sxid;
	ev->sev = SXID_SEV_UNKNOWN;
	ev->link = -1;
	ev->engine = ev->subengine = -1;
	if (l->kind == SXID_LINE_HEADER) {
		ev->header = true;
		ev->sev = l->sev;
		ev->link = l->link;
		ev->first = l->first;
	} else {
		sxid_event_merge(ev, l);
	}
}

bool sxid_event_continues(const struct sxid_event *ev, const struct sxid_line *l)
{
	if (l->kind == SXID_LINE_HEADER || ev->sxid != l->sxid || strcmp(ev->bdf, l->bdf) != 0)
		return false;
	if (l->kind == SXID_LINE_SEVERITY)
		return !ev->severity_line && ev->data_lines == 0;
	/* the first Data line has nine words, the optional second one eight */
	if (ev->data_lines == 0)
		return l->ndata >= SXID_DATA_WORDS;
	return ev->data_lines == 1 && l->ndata == SXID_DATA_WORDS - 1;
}

void sxid_event_merge(struct sxid_event *ev, const struct sxid_line *l)
{
	if (l->kind == SXID_LINE_SEVERITY) {
		ev->severity_line = true;
		ev->engine = l->engine;
		ev->subengine = l->subengine;
		if (ev->sev == SXID_SEV_UNKNOWN)
			ev->sev = l->sev;
		/* link errors log the link as the engine instance */
		if (!ev->header && ev->link < 0)
			ev->link = l->engine;
	} else if (l->kind == SXID_LINE_DATA) {
		if (ev->data_lines++ == 0) {
			ev->ndata = l->ndata < SXID_DATA_WORDS ? l->ndata : SXID_DATA_WORDS;
			memcpy(ev->data, l->data, ev->ndata * sizeof(ev->data[0]));
		}
	}
}
