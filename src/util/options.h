/* Option parsing: every command (and every worker task) declares its options
 * as one table, and this parser reads argv against it and words every usage
 * error, naming the option as it was typed (git's parse-options is the
 * model). A table is an array of struct opt_spec built with the OPT_*
 * macros below and ended by OPT_END(); it may include another table
 * (OPT_INCLUDE), so that options several commands share are declared once.
 *
 * Accepted syntax, as getopt_long's: --name, --name=value, --name value, an
 * unambiguous prefix of a long name (--bud for --budget), -x, -x value,
 * -xvalue and clusters of short flags (-lk xid). A value taken from the next
 * argument is taken whatever it looks like ("-r -1"). "--" ends the options;
 * "-" is an argument. By default the arguments may stand between options
 * (they are moved after them, in order); OPT_STOP_AT_ARG stops at the first
 * one (everything after it is an argument: `watch ... CMD ARGS`).
 *
 * Pure: it writes the targets and the message buffer, prints nothing. */
#ifndef ND_UTIL_OPTIONS_H
#define ND_UTIL_OPTIONS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum opt_kind {
	OPT_KIND_END = 0,
	OPT_KIND_FLAG,    /* bool *: set true; takes no value */
	OPT_KIND_SET,     /* int *: set to .ival; takes no value */
	OPT_KIND_INT,     /* long long *: an integer (base .base) from .lo to .hi */
	OPT_KIND_SECONDS, /* double *: finite seconds from .lo (or above it: OPT_ABOVE_LO) to .hi */
	OPT_KIND_STRING,  /* const char **: any value (OPT_NONEMPTY: not "") */
	OPT_KIND_ENUM,    /* int *: the index of the value in .choices (NULL-terminated) */
	OPT_KIND_CALL,    /* .fn(target, value, why) decides; .expects says what it wants */
	OPT_KIND_HELP,    /* -h, --help: the parse stops and returns OPT_RET_HELP */
	OPT_KIND_INCLUDE, /* .include: another table, its options taken as this one's */
};

/* spec flags */
#define OPT_ABOVE_LO 1u /* SECONDS: more than .lo, not equal to it */
#define OPT_NONEMPTY 2u /* STRING: "" is refused */

/* A value check of OPT_KIND_CALL: 0 when value is good (target written), -1
 * when not; it may put a reason in why (why[0] stays 0 otherwise: then the
 * message says what .expects says). */
typedef int (*opt_fn)(void *target, const char *value, char *why, size_t whysz);

struct opt_spec {
	const char *name;     /* long name without "--"; NULL: none */
	char short_name;      /* 0: none */
	enum opt_kind kind;
	void *target;
	const char *help;     /* one line for the reader of the table */
	double lo, hi;        /* INT, SECONDS: the range */
	int base;             /* INT: 10, or 0 for 0x.. hex too */
	int ival;             /* SET: the value */
	unsigned flags;
	const char *const *choices;        /* ENUM */
	opt_fn fn;                         /* CALL */
	const char *expects;               /* CALL, STRING: "a size (K, M, G) of at least 1M" */
	const struct opt_spec *include;    /* INCLUDE */
};

#define OPT_END() { .kind = OPT_KIND_END }
#define OPT_HELP() { .name = "help", .short_name = 'h', .kind = OPT_KIND_HELP, .help = "this help" }
#define OPT_FLAG(l, s, t, h) { .name = (l), .short_name = (s), .kind = OPT_KIND_FLAG, .target = (t), .help = (h) }
#define OPT_SET(l, s, t, v, h) \
	{ .name = (l), .short_name = (s), .kind = OPT_KIND_SET, .target = (t), .ival = (v), .help = (h) }
#define OPT_INT(l, s, t, from, to, h) \
	{ .name = (l), .short_name = (s), .kind = OPT_KIND_INT, .target = (t), .lo = (from), .hi = (to), .base = 10, .help = (h) }
/* an integer in decimal, 0x.. hex or 0.. octal (strtoll base 0) */
#define OPT_INT0(l, s, t, from, to, h) \
	{ .name = (l), .short_name = (s), .kind = OPT_KIND_INT, .target = (t), .lo = (from), .hi = (to), .base = 0, .help = (h) }
#define OPT_SECONDS(l, s, t, from, to, h) \
	{ .name = (l), .short_name = (s), .kind = OPT_KIND_SECONDS, .target = (t), .lo = (from), .hi = (to), .help = (h) }
/* seconds more than from (0 excluded) */
#define OPT_SECONDS_ABOVE(l, s, t, from, to, h)                                                                       \
	{ .name = (l), .short_name = (s), .kind = OPT_KIND_SECONDS, .target = (t), .lo = (from), .hi = (to),            \
	  .flags = OPT_ABOVE_LO, .help = (h) }
#define OPT_STRING(l, s, t, h) { .name = (l), .short_name = (s), .kind = OPT_KIND_STRING, .target = (t), .help = (h) }
#define OPT_FILE(l, s, t, h)                                                                                           \
	{ .name = (l), .short_name = (s), .kind = OPT_KIND_STRING, .target = (t), .flags = OPT_NONEMPTY,                \
	  .expects = "a file name", .help = (h) }
#define OPT_ENUM(l, s, t, names, h) \
	{ .name = (l), .short_name = (s), .kind = OPT_KIND_ENUM, .target = (t), .choices = (names), .help = (h) }
#define OPT_CALL(l, s, t, f, what, h) \
	{ .name = (l), .short_name = (s), .kind = OPT_KIND_CALL, .target = (t), .fn = (f), .expects = (what), .help = (h) }
#define OPT_INCLUDE(table) { .kind = OPT_KIND_INCLUDE, .include = (table) }

/* parse flags */
#define OPT_STOP_AT_ARG 1u   /* the first argument ends the options ("+" of getopt) */
#define OPT_KEEP_UNKNOWN 2u  /* unknown options stay in argv as arguments (main's global options) */
#define OPT_EXACT 4u         /* long names only in full (no prefixes) */

/* opt_parse results besides an argument index */
#define OPT_RET_HELP (-1)  /* -h or --help was given: the caller prints its help */
#define OPT_RET_ERROR (-2) /* a usage error, worded in msg */

/* Parses argv[1..argc-1] (argv[0] is the command) against specs, writing
 * each option's target as it is met. Returns the index of the first
 * argument: argv[ret..argc-1] are the arguments (moved after the options
 * given, in their order, argv[argc] untouched), ret == argc when there are
 * none. Or OPT_RET_HELP, or OPT_RET_ERROR with a one-line lower-case message in msg
 * ("option '--budget' requires a value", "unknown option '-T'", "option
 * '--stall' expects a number of seconds from 0.1 to 86400, not 'abc'"). */
int opt_parse(int argc, char **argv, const struct opt_spec *specs, unsigned flags, char *msg, size_t msgsz);

/* What a value option wants, in words: "a number from 1 to 1000",
 * "a number of seconds more than 0 and at most 86400", "report, kill or
 * keep", .expects for the others; into buf, returns buf. */
const char *opt_expects(const struct opt_spec *o, char *buf, size_t bufsz);
/* Every option of specs and the tables it includes, in table order, as
 * they are typed: "--stall --on-stall ... -h --help" (a short name before
 * its long one), space separated, into buf (cut to fit, ending in " ...",
 * as str_appendf cuts). Returns the length the whole list needs. */
size_t opt_list(const struct opt_spec *specs, char *buf, size_t bufsz);

#endif
