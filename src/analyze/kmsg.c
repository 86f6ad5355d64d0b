/* Kernel log readers: see kmsg.h. Formats: the /dev/kmsg ABI
 * (Documentation/ABI/testing/dev-kmsg), util-linux dmesg output (plain,
 * -T, -r, -x, --time-format iso), journalctl -k output modes and rsyslog's
 * traditional and RFC 3339 file formats. */
#include "analyze/kmsg.h"
#include "util/text.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


static const char *fmt_names[KFMT_N] = { "plain", "dmesg", "dmesg -T", "syslog", "iso", "journal monotonic", "kmsg" };

const char *kfmt_name(enum kfmt f)
{
	return f < KFMT_N ? fmt_names[f] : "unknown";
}

void kreader_init(struct kreader *kr, kline_fn fn, void *ctx)
{
	memset(kr, 0, sizeof(*kr));
	kr->fn = fn;
	kr->ctx = ctx;
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	kr->year = tm.tm_year + 1900;
}

/* ---- time stamps ---- */

static int month_num(const char *p)
{
	static const char *m[] = { "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec" };
	for (int i = 0; i < 12; i++)
		if (strncmp(p, m[i], 3) == 0)
			return i;
	return -1;
}

static size_t digits(const char *p, int maxn, int *v)
{
	int n = 0, x = 0;
	while (n < maxn && isdigit((unsigned char)p[n])) {
		x = x * 10 + (p[n] - '0');
		n++;
	}
	*v = x;
	return (size_t)n;
}

/* "HH:MM:SS" */
static size_t parse_hms(const char *p, struct tm *tm)
{
	int h, m, s;
	size_t a, b, c;
	if ((a = digits(p, 2, &h)) == 0 || p[a] != ':')
		return 0;
	if ((b = digits(p + a + 1, 2, &m)) != 2 || p[a + 1 + b] != ':')
		return 0;
	if ((c = digits(p + a + 2 + b, 2, &s)) != 2)
		return 0;
	if (h > 23 || m > 59 || s > 60)
		return 0;
	tm->tm_hour = h;
	tm->tm_min = m;
	tm->tm_sec = s;
	return a + b + c + 2;
}

/* "Mon DD HH:MM:SS" (day space-padded); returns characters used. */
static size_t parse_mdt(const char *p, struct tm *tm)
{
	const char *s = p;
	int mon = month_num(p);
	if (mon < 0 || p[3] != ' ')
		return 0;
	p += 4;
	while (*p == ' ')
		p++;
	int day;
	size_t n = digits(p, 2, &day);
	if (!n || day < 1 || day > 31 || p[n] != ' ')
		return 0;
	p += n + 1;
	if ((n = parse_hms(p, tm)) == 0)
		return 0;
	tm->tm_mon = mon;
	tm->tm_mday = day;
	return (size_t)(p + n - s);
}

/* ".123456" or ",123456" fraction; returns characters used. */
static size_t parse_frac(const char *p, double *frac)
{
	*frac = 0;
	if (*p != '.' && *p != ',')
		return 0;
	size_t n = 1;
	double scale = 0.1;
	while (isdigit((unsigned char)p[n]) && n < 12) {
		*frac += (p[n] - '0') * scale;
		scale /= 10;
		n++;
	}
	return n > 1 ? n : 0;
}

/* "[   12.345678]" -> seconds; returns characters used including ']' */
static size_t parse_boot_stamp(const char *p, double *ts)
{
	if (*p != '[')
		return 0;
	size_t i = 1;
	while (p[i] == ' ')
		i++;
	if (!isdigit((unsigned char)p[i]))
		return 0;
	char *end;
	double v = strtod(p + i, &end);
	if (*end != ']' || end == p + i)
		return 0;
	*ts = v;
	return (size_t)(end - p) + 1;
}

static char *skip_space1(char *p)
{
	return *p == ' ' ? p + 1 : p;
}

/* After a syslog/ISO stamp: "host tag: [ 12.3] msg" -> msg. */
static char *strip_host_tag(char *p)
{
	char *sp = strchr(p, ' ');
	if (!sp || sp == p)
		return p;
	char *tag = sp + 1;
	char *sp2 = strchr(tag, ' ');
	if (!sp2 || sp2 == tag || sp2[-1] != ':')
		return p;
	char *m = sp2 + 1;
	double ts;
	size_t n = parse_boot_stamp(m, &ts);
	if (n)
		m = skip_space1(m + n);
	return m;
}

enum kfmt klog_split(char *line, char **msg, enum ts_kind *tk, double *ts, int year)
{
	char *p = line;
	*tk = TS_NONE;
	*ts = 0;
	/* dmesg -r: "<4>" */
	if (p[0] == '<' && isdigit((unsigned char)p[1])) {
		char *q = p + 1;
		while (isdigit((unsigned char)*q))
			q++;
		if (*q == '>')
			p = q + 1;
	}
	/* dmesg -x: "kern  :err   : " */
	if (isalpha((unsigned char)p[0])) {
		char *q = p;
		while (isalpha((unsigned char)*q))
			q++;
		while (*q == ' ')
			q++;
		if (*q == ':' && q - p <= 8) {
			char *r = q + 1;
			while (isalpha((unsigned char)*r))
				r++;
			while (*r == ' ')
				r++;
			if (*r == ':' && r > q + 1 && r[1] == ' ')
				p = r + 2;
		}
	}
	double v;
	size_t n;
	if ((n = parse_boot_stamp(p, &v)) > 0) {
		char *m = skip_space1(p + n);
		/* CONFIG_PRINTK_CALLER: "[  T123] " or "[   C5] " after the stamp */
		if (m[0] == '[') {
			char *q = m + 1;
			while (*q == ' ')
				q++;
			if ((*q == 'T' || *q == 'C') && isdigit((unsigned char)q[1])) {
				q++;
				while (isdigit((unsigned char)*q))
					q++;
				if (*q == ']')
					m = skip_space1(q + 1);
			}
		}
		*tk = TS_BOOT;
		*ts = v;
		/* journalctl -o short-monotonic: "[  12.3] host kernel: msg" */
		char *h = strip_host_tag(m);
		if (h != m && strstr(m, "kernel") && strstr(m, "kernel") < h) {
			*msg = h;
			return KFMT_MONO;
		}
		*msg = m;
		return KFMT_DMESG;
	}
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	/* dmesg -T: "[Tue Dec  1 10:00:00 2026] " */
	if (p[0] == '[' && isalpha((unsigned char)p[1]) && p[4] == ' ') {
		size_t k = parse_mdt(p + 5, &tm);
		int y;
		size_t yn;
		if (k && p[5 + k] == ' ' && (yn = digits(p + 6 + k, 4, &y)) == 4 && p[6 + k + 4] == ']') {
			tm.tm_year = y - 1900;
			*tk = TS_WALL;
			*ts = (double)timegm(&tm);
			*msg = skip_space1(p + 6 + k + 5);
			return KFMT_DMESG_T;
		}
	}
	/* ISO 8601 / RFC 3339: "2026-12-02T10:00:00[.frac][Z|+hh:mm|+hhmm] " */
	if (isdigit((unsigned char)p[0])) {
		int y, mo, d;
		if (digits(p, 4, &y) == 4 && p[4] == '-' && digits(p + 5, 2, &mo) == 2 && p[7] == '-' &&
		    digits(p + 8, 2, &d) == 2 && (p[10] == 'T' || p[10] == ' ') && (n = parse_hms(p + 11, &tm)) > 0) {
			char *q = p + 11 + n;
			double frac;
			q += parse_frac(q, &frac);
			if (*q == 'Z')
				q++;
			else if (*q == '+' || *q == '-') {
				q++;
				while (isdigit((unsigned char)*q) || *q == ':')
					q++;
			}
			if (*q == ' ' || *q == '\0') {
				tm.tm_year = y - 1900;
				tm.tm_mon = mo - 1;
				tm.tm_mday = d;
				*tk = TS_WALL;
				*ts = (double)timegm(&tm) + frac;
				q = skip_space1(q);
				/* dmesg --time-format iso has no host and tag */
				*msg = strip_host_tag(q);
				return KFMT_ISO;
			}
		}
	}
	/* syslog / journalctl short: "Dec  2 10:00:00[.frac] host tag: msg" */
	if (isupper((unsigned char)p[0]) && (n = parse_mdt(p, &tm)) > 0) {
		char *q = p + n;
		double frac;
		q += parse_frac(q, &frac);
		if (*q == ' ') {
			tm.tm_year = year - 1900;
			*tk = TS_WALL;
			*ts = (double)timegm(&tm) + frac;
			*msg = strip_host_tag(q + 1);
			return KFMT_SYSLOG;
		}
	}
	*msg = p;
	return KFMT_PLAIN;
}

size_t kmsg_unescape(char *s)
{
	char *r = s, *w = s;
	while (*r) {
		if (r[0] == '\\' && r[1] == 'x' && isxdigit((unsigned char)r[2]) && isxdigit((unsigned char)r[3])) {
			char hex[3] = { r[2], r[3], 0 };
			int c = (int)strtol(hex, NULL, 16);
			*w++ = c == 0 ? ' ' : (char)c;
			r += 4;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	return (size_t)(w - s);
}

/* Hands each '\n'-separated piece of msg to the parser. */
static void emit(struct kreader *kr, char *msg, enum ts_kind tk, double ts, uint64_t lineno)
{
	char *p = msg;
	for (;;) {
		char *nl = strchr(p, '\n');
		if (nl)
			*nl = '\0';
		str_rtrim(p);
		struct kline l = { .msg = p, .ts_kind = tk, .ts = ts, .lineno = lineno };
		kr->last = l;
		kr->st.messages++;
		kr->fn(kr->ctx, &l);
		if (!nl)
			break;
		p = nl + 1;
	}
}

/* "PRIO,SEQ,TS_USEC,FLAGS[,...];" -> true, with the message after ';'. */
static bool kmsg_header(char *line, uint64_t *seq, double *ts, char **msg)
{
	char *p = line;
	int field = 0;
	unsigned long long v[3] = { 0, 0, 0 };
	while (field < 3) {
		if (!isdigit((unsigned char)*p))
			return false;
		char *end;
		v[field] = strtoull(p, &end, 10);
		p = end;
		if (*p != ',')
			return false;
		p++;
		field++;
	}
	char *semi = strchr(p, ';');
	if (!semi || semi - p > 64)
		return false;
	for (char *q = p; q < semi; q++)
		if (*q == ' ')
			return false;
	*seq = v[1];
	*ts = (double)v[2] / 1e6;
	*msg = semi + 1;
	return true;
}

/* Whether a line klog_split read as f (msg: its message) has a kernel
 * log's own form (kread_stats.records). */
static bool own_form(enum kfmt f, const char *line, const char *msg)
{
	size_t pre = (size_t)(msg - line);
	switch (f) {
	case KFMT_DMESG_T:
	case KFMT_MONO:
	case KFMT_KMSG: return true;
	case KFMT_DMESG: {
		/* dmesg prints the seconds with a fraction; "[1] NCCL INFO" is a rank */
		const char *lb = memchr(line, '[', pre), *rb = lb ? memchr(lb, ']', pre - (size_t)(lb - line)) : NULL;
		return rb && memchr(lb, '.', (size_t)(rb - lb)) != NULL;
	}
	case KFMT_SYSLOG: return memmem(line, pre, " kernel:", 8) != NULL;
	case KFMT_ISO: /* journalctl -o short-iso, or dmesg --time-format iso (a comma) */
		return memmem(line, pre, " kernel:", 8) != NULL || memchr(line, ',', pre) != NULL;
	default: return false;
	}
}

void kreader_line(struct kreader *kr, char *line, size_t len, uint64_t lineno)
{
	kr->st.lines++;
	kr->st.bytes += len + 1;
	/* NUL and control bytes are blanked (binary input is refused by
	 * util/input.h before it gets here) */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)line[i];
		if (c == 0 || (c < 0x20 && c != '\t' && c != 0x1b) || c == 0x7f)
			line[i] = ' ';
	}
	line[len] = '\0';
	if (line[0] == ' ' && kr->after_kmsg) {
		/* " KEY=VALUE" dictionary of the previous record */
		return;
	}
	uint64_t seq;
	double ts;
	char *msg;
	if (kmsg_header(line, &seq, &ts, &msg)) {
		kr->after_kmsg = true;
		kr->st.fmt[KFMT_KMSG]++;
		kr->st.records++;
		if (kr->have_seq && seq > kr->last_seq + 1)
			kr->st.lost_records += seq - kr->last_seq - 1;
		kr->have_seq = true;
		kr->last_seq = seq;
		kmsg_unescape(msg);
		emit(kr, msg, TS_BOOT, ts, lineno);
		return;
	}
	kr->after_kmsg = false;
	enum ts_kind tk;
	enum kfmt f = klog_split(line, &msg, &tk, &ts, kr->year);
	kr->st.fmt[f]++;
	kr->st.records += own_form(f, line, msg);
	if (f == KFMT_PLAIN && kr->last.ts_kind != TS_NONE) {
		/* a continuation line without its own stamp */
		tk = kr->last.ts_kind;
		ts = kr->last.ts;
	}
	emit(kr, msg, tk, ts, lineno);
}

void kreader_take(void *kr_, char *line, size_t len, uint64_t lineno, bool truncated)
{
	struct kreader *kr = kr_;
	if (truncated)
		kr->st.truncated++;
	kreader_line(kr, line, len, lineno);
}
