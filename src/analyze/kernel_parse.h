/* Kernel log events: recognises the message formats of kernel-log.md (NVRM
 * Xid in every generation, GPU UUID lines, fallen off the bus, PCIe AER,
 * Intel DMAR and AMD-Vi faults, EDAC, the IOMMU default domain, hung tasks
 * in the NVIDIA stack, NVRM lines naming a GPU-fatal RM status) in message text whose timestamp prefix was already
 * removed (analyze/kmsg.h does that), and turns them into events.
 *
 * The parser is a small state machine: AER details, the probe-time "fallen
 * off the bus" record, the oldest two-line DMAR form and hung-task stacks
 * span several lines. Events are kept in a ring of bounded size (the most
 * recent ones win), so memory stays bounded whatever the input. Nothing
 * here prints or touches the file system. */
#ifndef ND_ANALYZE_KERNEL_PARSE_H
#define ND_ANALYZE_KERNEL_PARSE_H
#include "analyze/sxid_parse.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum kev_kind {
	KEV_XID,          /* NVRM: Xid (...) */
	KEV_GPU_UUID,     /* NVRM: GPU at PCI:...: GPU-<uuid> */
	KEV_OFF_BUS,      /* fallen off the bus, any form */
	KEV_PROBE_FAILED, /* nvidia: probe of BDF failed with error -1 */
	KEV_CRASH_DUMP,   /* NVRM: A GPU crash dump has been created */
	KEV_AER,          /* PCIe AER error */
	KEV_DMAR,         /* Intel VT-d fault */
	KEV_AMDVI,        /* AMD-Vi event */
	KEV_EDAC,         /* EDAC CE/UE */
	KEV_IOMMU_DOMAIN, /* iommu: Default domain type: ... */
	KEV_HUNG_TASK,    /* INFO: task X:PID blocked for more than N seconds */
	KEV_SXID,         /* nvidia-nvswitchN: SXid (...), with its Severity / Data lines (analyze/sxid_parse.h) */
	KEV_RM_STATUS,    /* NVRM line naming a GPU-fatal RM status (kb/rm_status.def): code, type = name */
	KEV_NKINDS
};

enum ts_kind { TS_NONE, TS_BOOT, TS_WALL };

enum aer_sev { AER_CORRECTED = 0, AER_NONFATAL = 1, AER_FATAL = 2 };

/* One message line with its time, as the readers hand it to the parser. */
struct kline {
	const char *msg;       /* NUL-terminated message text, prefix removed */
	enum ts_kind ts_kind;
	double ts;             /* seconds since boot (TS_BOOT) or since the epoch, as written (TS_WALL) */
	uint64_t lineno;       /* line of the input file, or record number of /dev/kmsg */
};

struct kevent {
	enum kev_kind kind;
	enum ts_kind ts_kind;
	double ts;
	uint64_t lineno;
	int src;              /* index of the input it came from (kparser.cur_src) */
	char bdf[16];         /* device concerned, "0000:5d:00.0"; "" when unknown */
	bool bdf_nofn;        /* the log gave no function digit (Xid, UUID lines) */
	char port[16];        /* AER: the port that reported it */
	int rm_gpu;           /* RM status: the driver's instance N of "NVRM: GPUN ...", -1 when none */
	int code;             /* Xid code; DMAR fault reason (-1 unknown); EDAC controller */
	int gi, ci;           /* MIG GPU instance / compute instance, -1 when none */
	long count;           /* EDAC error count; 1 otherwise */
	int sev;              /* AER: enum aer_sev; EDAC: 0 CE, 2 UE */
	bool multiple;        /* AER "Multiple ..." */
	bool no_details;      /* AER "(no details found" */
	bool detail;          /* AER detail line seen */
	bool write;           /* DMAR/AMD-Vi: a write */
	bool has_addr;
	bool gpu_stack;       /* hung task: in the NVIDIA driver or an NCCL/CUDA thread */
	bool secondary;       /* Xid 43/45 soon after another Xid (set by kernel_analyze) */
	uint64_t addr;        /* fault address */
	unsigned status, mask;/* AER status/mask, AMD-Vi flags in status */
	char pid[24];         /* Xid pid ("<unknown>" kept as written, quotes removed) */
	char pname[40];       /* Xid process name; hung task name */
	char type[40];        /* AER type; DMAR "DMA Read"/"DMA Write"/"INTR-REMAP"; AMD-Vi event; IOMMU domain type */
	char agent[32];       /* AER agent ("Receiver ID") */
	char bits[96];        /* AER status bit names, comma separated */
	char uuid[48];        /* GPU-... from the UUID line */
	char detail_text[112];/* Xid text, DMAR reason, EDAC location */
	char msg[200];        /* the first message line, cut */
	struct sxid_event sx; /* SXid: switch, link, severity, data (bdf, code, sev, detail_text repeat the switch BDF, SXid, enum sxid_sev, text) */
};

struct kparser {
	struct kevent *ring;
	size_t cap;
	uint64_t total;       /* events ever added; event s lives at ring[s % cap] while total - s <= cap */
	uint64_t lines;       /* message lines seen */
	/* multi-line state: sequence numbers + 1 of events, 0 when none */
	uint64_t last_aer, last_dmar_open, last_hung, last_uuid;
	unsigned hung_lines;  /* lines since the last hung-task header */
	char pending_gpu[16]; /* "The NVIDIA GPU BDF" waiting for "fallen off the bus" */
	unsigned pending_age;
	int ghes_sev;         /* severity of the current firmware-first record, -1 none */
	int cur_src;          /* stamped on new events: the caller's index of the current input */
};

/* cap: the most events kept (older ones are dropped, counted in total). */
void kparser_init(struct kparser *kp, size_t cap);
void kparser_release(struct kparser *kp);
void kparser_line(struct kparser *kp, const struct kline *l);
/* Events kept, oldest first: index 0 .. kparser_count()-1. */
size_t kparser_count(const struct kparser *kp);
struct kevent *kparser_event(struct kparser *kp, size_t i);
uint64_t kparser_dropped(const struct kparser *kp);

/* Pure helpers, exported for tests. */
const char *kev_kind_name(enum kev_kind k);   /* "xid", "aer", ... */
const char *aer_sev_name(int sev);            /* "corrected", "nonfatal", "fatal" */
/* Text of an Intel VT-d fault reason code (kernel drivers/iommu/intel/dmar.c tables). */
const char *dmar_reason_text(int reason);
/* Parses a PCI address at s: "dddd:bb:dd.f", "bb:dd.f" (domain 0), or with
 * allow_nofn "dddd:bb:dd" (function 0, *nofn set). Writes "dddd:bb:dd.f" and
 * returns the number of characters used, 0 when s is not an address. */
size_t kparse_bdf(const char *s, bool allow_nofn, char *out, size_t outsz, bool *nofn);

#endif
