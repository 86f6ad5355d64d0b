/* NVSwitch SXid lines of the kernel log, as the nvidia-nvswitch driver prints
 * them (open-gpu-kernel-modules src/common/nvswitch/kernel/inc/common_nvswitch.h
 * NVSWITCH_PRINT_SXID, error_nvswitch.c, intr_nvswitch.h):
 *
 *   nvidia-nvswitchN: SXid (PCI:dddd:bb:dd.f): CODE, Fatal|Non-fatal|Correctable, Link NN <text>[ (First)]
 *   nvidia-nvswitchN: SXid (PCI:dddd:bb:dd.f): CODE, Fatal|Non-fatal, <text>, instance=I, chiplet=C
 *   nvidia-nvswitchN: SXid (PCI:dddd:bb:dd.f): CODE, <text>                (SOE, thermal, CCI events)
 *   nvidia-nvswitchN: SXid (PCI:dddd:bb:dd.f): CODE, Severity S Engine instance EE Sub-engine instance SS
 *   nvidia-nvswitchN: SXid (PCI:dddd:bb:dd.f): CODE, Data {0x%08x x 9}
 *   nvidia-nvswitchN: SXid (PCI:dddd:bb:dd.f): CODE, Data {0x%08x x 8}      (only when non-zero)
 *
 * The first three shapes open a group; the Severity and Data lines that
 * follow belong to the newest group of the same switch and code (several
 * switches interleave their lines). A continuation whose header is missing
 * (a cut excerpt, a dropped record) stands alone. Pure functions: text in,
 * fields out; nothing here allocates, prints or reads files. */
#ifndef ND_ANALYZE_SXID_PARSE_H
#define ND_ANALYZE_SXID_PARSE_H
#include <stdbool.h>
#include <stddef.h>

enum sxid_sev {
	SXID_SEV_UNKNOWN = -1,    /* no severity word and no Severity line */
	SXID_SEV_CORRECTABLE = 0, /* "Correctable," */
	SXID_SEV_NONFATAL = 1,    /* "Non-fatal," or Severity 0 */
	SXID_SEV_FATAL = 2,       /* "Fatal," or Severity 1 */
};

enum sxid_line_kind {
	SXID_LINE_HEADER,   /* opens a group: severity word and/or text */
	SXID_LINE_SEVERITY, /* "Severity S Engine instance E Sub-engine instance S" */
	SXID_LINE_DATA,     /* "Data {0x..., ...}" */
};

#define SXID_DATA_WORDS 9

/* One SXid message line. */
struct sxid_line {
	enum sxid_line_kind kind;
	int instance;          /* N of "nvidia-nvswitchN:", -1 when absent */
	char bdf[16];          /* switch PCI address "dddd:bb:dd.f" */
	int sxid;
	enum sxid_sev sev;     /* HEADER: its word; SEVERITY: from S; DATA: unknown */
	int link;              /* HEADER "Link NN", -1 when none */
	int engine, subengine; /* SEVERITY line, -1 otherwise */
	bool first;            /* HEADER ends in "(First)" */
	unsigned ndata;        /* DATA: words parsed (at most SXID_DATA_WORDS kept) */
	unsigned data[SXID_DATA_WORDS];
	const char *text;      /* HEADER: the description, inside msg (not NUL-cut: see text_len); "" otherwise */
	size_t text_len;       /* without "(First)" and trailing blanks; 0 for other kinds */
	/* DATA: ndata is SXID_DATA_WORDS + 1 when the line had more words than kept */
};

/* One SXid with its continuation lines merged. */
struct sxid_event {
	int instance;
	char bdf[16];
	int sxid;
	enum sxid_sev sev;
	int link;              /* -1 when not known; else from "Link NN" or the engine instance */
	int engine, subengine;
	bool first;
	bool header;           /* the opening line was seen */
	bool severity_line;    /* a Severity line was merged */
	unsigned data_lines;   /* Data lines merged */
	unsigned ndata;
	unsigned data[SXID_DATA_WORDS];
};

/* Parses one message line (timestamp prefix removed). Returns false when the
 * line is no SXid line; out is then unspecified. */
bool sxid_parse_line(const char *msg, struct sxid_line *out);
/* Starts an event from its first line (any kind). */
void sxid_event_start(struct sxid_event *ev, const struct sxid_line *l);
/* True when l continues ev: the same switch and code, a Severity or Data
 * line, in the order the driver prints them. */
bool sxid_event_continues(const struct sxid_event *ev, const struct sxid_line *l);
/* Merges continuation l into ev (call only when sxid_event_continues). */
void sxid_event_merge(struct sxid_event *ev, const struct sxid_line *l);
/* "fatal", "nonfatal", "correctable", "unknown" */
const char *sxid_sev_name(enum sxid_sev s);

#endif
