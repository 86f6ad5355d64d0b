/* Kernel log readers: turn the kernel ring buffer (/dev/kmsg, live or a
 * recorded copy) and saved logs (dmesg with and without "[ seconds]",
 * dmesg -T, dmesg -r/-x, journalctl -k in short, short-iso, short-precise
 * and short-monotonic forms, syslog kern.log with or without the kernel's
 * own timestamp) into message lines with a time, for analyze/kernel_parse.h.
 *
 * /dev/kmsg records: "PRIO,SEQ,TS_USEC,FLAGS[,...];MESSAGE" then dictionary
 * lines " KEY=VALUE"; non-printable bytes in MESSAGE are escaped as \xNN,
 * so a multi-line record arrives as one line with \x0a inside. Read live,
 * each read() returns one record, EAGAIN means the end, EPIPE that records
 * were overwritten (the reader goes on), EINVAL a too-small buffer.
 * Memory stays bounded: lines longer than KLINE_MAX are cut. Nothing
 * prints, and nothing reads: the caller reads its input with util/input.h
 * (input_read_lines, input_read_kmsg) and hands each line to kreader_take. */
#ifndef ND_ANALYZE_KMSG_H
#define ND_ANALYZE_KMSG_H
#include "analyze/kernel_parse.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KLINE_MAX (64 * 1024) /* longest line kept; longer ones are cut */

enum kfmt {
	KFMT_PLAIN,   /* message only */
	KFMT_DMESG,   /* [   12.345678] msg  (also <4>[..] and dmesg -x "kern  :err   : ") */
	KFMT_DMESG_T, /* [Tue Dec  1 10:00:00 2026] msg */
	KFMT_SYSLOG,  /* Dec  2 10:00:00 host kernel: [ 12.3] msg  (syslog, journalctl short) */
	KFMT_ISO,     /* 2026-12-02T10:00:00.123+00:00 host kernel: msg (short-iso, RFC 3339 syslog, dmesg --time-format iso) */
	KFMT_MONO,    /* [   12.345678] host kernel: msg (journalctl -o short-monotonic) */
	KFMT_KMSG,    /* /dev/kmsg record */
	KFMT_N
};

struct kread_stats {
	uint64_t lines;         /* input lines (or live records) */
	uint64_t messages;      /* message lines handed on */
	uint64_t bytes;
	uint64_t truncated;     /* lines cut at the maximum length */
	uint64_t lost_records;  /* records overwritten (EPIPE, or gaps in kmsg sequence numbers) */
	uint64_t overruns;      /* EPIPE returns */
	uint64_t fmt[KFMT_N];   /* lines per format */
	uint64_t records;       /* lines in a kernel log's own form: a kmsg record,
	                         * a dmesg stamp with its fraction ("[   12.345678]"),
	                         * dmesg -T, a syslog or journal line of the kernel
	                         * tag, dmesg's ISO stamp ("...T10:00:00,123456+01:00");
	                         * what tells a kernel log from other text (an NCCL
	                         * log's "[1]" or a container's ISO stamps are not) */
};

typedef void (*kline_fn)(void *ctx, const struct kline *l);

struct kreader {
	kline_fn fn;
	void *ctx;
	struct kread_stats st;
	bool after_kmsg;        /* the previous line was a kmsg record: " KEY=VALUE" lines follow */
	bool have_seq;
	uint64_t last_seq;
	int year;               /* for syslog stamps without a year */
	struct kline last;      /* time of the previous message, for continuation lines */
};

void kreader_init(struct kreader *kr, kline_fn fn, void *ctx);
/* One input line of any form (a kmsg record included). line is modified. */
void kreader_line(struct kreader *kr, char *line, size_t len, uint64_t lineno);
/* kreader_line for a reader of util/input.h (input_read_lines,
 * input_read_kmsg: kr is the struct kreader), counting the cut lines. The
 * caller opens and reads the input: nothing here touches a file. */
void kreader_take(void *kr, char *line, size_t len, uint64_t lineno, bool truncated);

/* Pure: recognises the prefix of one line, sets *msg to the message inside
 * line and the time; returns the format. year: for stamps without one. */
enum kfmt klog_split(char *line, char **msg, enum ts_kind *tk, double *ts, int year);
/* Pure: decodes \xNN escapes of a kmsg message in place; returns the length. */
size_t kmsg_unescape(char *s);
const char *kfmt_name(enum kfmt f);

#endif
