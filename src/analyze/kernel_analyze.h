/* Kernel log analysis: maps the events of analyze/kernel_parse.h to GPUs
 * (PCI address -> GPU index and name through the PCI probe; an Xid address
 * has no function digit; AER on a bridge -> the GPUs below it; a DMAR or
 * AMD-Vi fault whose requester is a GPU and whose address lies in another
 * GPU's BAR -> P2P redirected into the IOMMU), aggregates them per GPU and
 * kind (count, first, last) and adds tables and findings to a result. */
#ifndef ND_ANALYZE_KERNEL_ANALYZE_H
#define ND_ANALYZE_KERNEL_ANALYZE_H
#include "analyze/kernel_parse.h"
#include "model/result.h"
#include "model/machine.h"
#include "util/gpusel.h"

#include <stdbool.h>
#include <stddef.h>

/* A GPU as the kernel report names it. */
struct kgpu {
	char bdf[PCI_BDF_LEN];
	int index;           /* position among NVIDIA GPUs in PCI order (nvidia-smi's default) */
	char name[64];       /* "NVIDIA H200" from /proc/driver/nvidia, else "10de:2335" */
	char uuid[48];       /* from /proc/driver/nvidia or the log; "" when unknown */
	const struct pci_dev *dev;
};

struct kgpu_map {
	struct kgpu *gpus;
	size_t n;
	const struct pci_list *pci; /* may be NULL or empty */
	const struct machine *mach; /* the facts it was built from; may be NULL */
};

/* Builds the GPU list from the machine model's PCI tree and the driver's
 * GPU names (collect_pci, collect_gpu_info; the caller keeps mach alive);
 * mach may be NULL (no GPU known). An IOMMU unit count, where collect_iommu
 * ran, tells kernel_analyze whether a translated domain matters. */
void kgpu_map_build(struct kgpu_map *m, const struct machine *mach);
void kgpu_map_release(struct kgpu_map *m);
/* The GPU at bdf ("0000:5d:00.0"; with nofn any function of 0000:5d:00
 * matches; a DMAR requester has no domain, so domain 0 also matches any
 * domain when that is unambiguous), or NULL. */
const struct kgpu *kgpu_find(const struct kgpu_map *m, const char *bdf, bool nofn);
/* The GPU whose BAR holds addr, other than except, or NULL. */
const struct kgpu *kgpu_by_bar(const struct kgpu_map *m, uint64_t addr, const struct kgpu *except);
/* GPUs below bridge bdf: fills up to max pointers, returns the count. */
size_t kgpu_below(const struct kgpu_map *m, const char *bdf, const struct kgpu **out, size_t max);

struct kernel_analyze_opts {
	double since;          /* keep events of the last SINCE seconds; 0 = all */
	bool have_ref_boot, have_ref_wall;
	double ref_boot;       /* "now" for boot-relative stamps */
	double ref_wall;       /* "now" for wall-clock stamps */
	const char *const *src_names; /* evidence file names by kevent.src */
	size_t nsrc;
	bool live;             /* evidence from the live /dev/kmsg: no file:line */
	const struct gpusel *gpus; /* --gpus (NULL: all GPUs); events of other
				      GPUs are left out, events of no GPU kept */
};

/* Adds the events section, per-GPU table and findings to r. Returns the
 * number of events kept. */
size_t kernel_analyze(struct result *r, struct kparser *kp, const struct kgpu_map *m,
		      const struct kernel_analyze_opts *o);

/* What the kernel log reader saw, for kernel_run. */
struct kernel_input {
	const char *const *src_names; /* evidence file names by kevent.src */
	size_t nsrc;
	bool from_kmsg;        /* read /dev/kmsg (no file given): --since counts back from the uptime */
	bool live;             /* the live ring buffer: no file:line */
	bool have_boot, have_wall;
	double max_boot, max_wall; /* the newest stamps read */
	double since;          /* --since, 0 = all */
	const struct gpusel *gpus; /* --gpus, NULL = all */
};

/* The kernel check on the events of kp: maps them to the GPUs of the
 * machine (or the sysroot) in mach, says in section `in` (the input's
 * section; may be NULL) how GPUs are named, and runs kernel_analyze. The
 * caller ran collect_kernel on mach. Returns the number of events kept;
 * *ngpus the NVIDIA GPUs on the bus. */
size_t kernel_run(struct result *r, struct section *in, struct kparser *kp, const struct kernel_input *ki,
		  const struct machine *mach, size_t *ngpus);

/* Pure: "boot+12.346s" or "2026-12-02 10:00:00" into buf. */
const char *kts_text(enum ts_kind k, double ts, char *buf, size_t bufsz);
/* Pure: parses "90s", "10m", "2h", "3d", "1w", "1h30m" or plain seconds;
 * 0 and the seconds, or -EINVAL. */
int parse_duration(const char *s, double *secs);

#endif
