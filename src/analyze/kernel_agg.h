/* The aggregation state kernel_analyze.c shares with the files that build
 * the findings of one kind of event (kernel_rmstatus.c): private to
 * analyze/kernel_*.c, never included elsewhere. */
#ifndef ND_ANALYZE_KERNEL_AGG_H
#define ND_ANALYZE_KERNEL_AGG_H
#include "analyze/kernel_analyze.h"

#define MAX_AGGS 4096

/* Events of one kind, device and name, counted with their first and last. */
struct agg {
	enum kev_kind kind;
	char bdf[16];
	bool nofn;
	const struct kgpu *gpu;  /* the GPU the event is about (requester for faults) */
	const struct kgpu *peer; /* fault address inside this GPU's BAR */
	const struct kgpu *below[16];
	size_t nbelow;           /* AER on a bridge: GPUs below it */
	char what[256];          /* the event as named: longest ~190 bytes (DMAR with its reason) */
	int code, sev;
	int rm_gpu;              /* RM status: the driver's GPU instance, -1 none (kernel_rmstatus.c) */
	long long count;
	long long secondary;     /* Xid 43/45 that followed another Xid */
	enum ts_kind tk;
	double first, last;
	size_t first_ev, last_ev;
	char bits[96];
	bool acs_violation;
	char pname[40];
	char uuid[48];
	bool nvidia_absent;      /* fault of an NVIDIA device that is not on this machine */
};

struct aggs {
	struct agg *a;
	size_t n, alloc;
	long long overflow;
};

/* The state of one analysis. */
struct kan {
	struct result *r;
	struct kparser *kp;
	const struct kgpu_map *m;
	const struct kernel_analyze_opts *o;
	struct aggs as;
	size_t kept;
	char iommu_domain[112];  /* from the boot log, "" when not seen */
	size_t iommu_ev;
	char (*uuids)[48];       /* by GPU index, from the log */
};

/* "GPU 1 (0000:04:00.0, NVIDIA H200)", "device BDF" or "an unidentified device". */
const char *kan_gpu_name(const struct kgpu *g, const char *bdf, char *buf, size_t bufsz);
/* The aggregate's first and last lines as evidence of f. */
void kan_add_first_last(struct finding *f, struct kparser *kp, const struct agg *a,
		    const struct kernel_analyze_opts *o);
/* "once, at T", "N times, T1 .. T2" or "N times" (no time stamps). */
void kan_when_text(const struct agg *a, char *buf, size_t bufsz);
/* The findings of the KEV_RM_STATUS aggregates from as.a[i] on that belong
 * to the device of as.a[i] (kernel_rmstatus.c); returns how many it used. */
size_t rm_status_finding(const struct kan *c, size_t i);

#endif
