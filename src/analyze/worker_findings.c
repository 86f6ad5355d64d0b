/* Worker outcomes as findings: see worker_findings.h. */
#include "analyze/worker_findings.h"
#include "kb/findings.h"
#include "model/vendor_reason.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* Per library: who is named in titles and which findings apply. */
struct wlib_desc {
	const char *soname;
	const char *hang_subject;  /* "<subject> hung in '<stage>'" */
	const char *hang_stage;    /* stage named when the worker reported none */
	const char *worker;        /* "the <worker> worker died of signal ..." */
	enum finding_id hang, failed, unavailable;
	const char *unavailable_title;
};

static const struct wlib_desc libs[] = {
	[WLIB_NVML] = { "libnvidia-ml.so.1", "NVML", "start", "NVML", FID_NVML_HANG, FID_NVML_FAILED,
			FID_NVML_NOT_AVAILABLE, NULL /* NVML's says whether it is installed */ },
	[WLIB_CUDA] = { "libcuda.so.1", "the CUDA driver", "", "CUDA", FID_CUDA_HANG, FID_CUDA_INIT_FAILED,
			FID_CUDA_INIT_FAILED, "libcuda.so.1 cannot be loaded although NVML works" },
};

void worker_evidence(struct finding *f, const struct worker_outcome *w)
{
	finding_evidence(f, NULL, 0, "worker '%s': %s after %.1f s%s%s", w->task, worker_status_name(w->status),
			 w->elapsed, w->stage[0] ? ", last stage " : "", w->stage);
	if (w->why[0])
		finding_evidence(f, NULL, 0, "%s", w->why);
	if (w->tail && w->tail[0]) {
		/* the last line of what the libraries printed */
		char *t = xstrdup(w->tail);
		str_rtrim(t);
		char *last = strrchr(t, '\n');
		if (*t)
			finding_evidence(f, NULL, 0, "output: %.300s", last ? last + 1 : t);
		free(t);
	}
}

static const char *error_member(const struct worker_outcome *w, const char *key)
{
	json_t *e = w->error;
	return e ? json_string_value(json_object_get(e, key)) : NULL;
}

const char *worker_lib_missing(const struct worker_outcome *w)
{
	const char *from = error_member(w, "lib");
	if (w->status == WORKER_OK || w->status == WORKER_HANG || w->status == WORKER_CRASH || !from ||
	    strcmp(from, VENDOR_LOADER) != 0)
		return NULL;
	switch (vendor_reason_parse(error_member(w, "name"))) {
	case VENDOR_NOT_INSTALLED: return "is not installed";
	case VENDOR_SYMBOL_MISSING: return "lacks a required entry point";
	default: return "cannot be loaded";
	}
}

/* The title of a vendor call that failed (not a loading problem). */
static struct finding *failed_finding(struct result *r, const struct worker_outcome *w, enum worker_lib lib,
				      const char *reason)
{
	const struct wlib_desc *d = &libs[lib];
	if (lib == WLIB_NVML)
		return finding_add(r, d->failed, SEV_ERROR, "NVML failed in '%s'%s%s", w->stage, reason ? ": " : "",
				   reason ? reason : "");
	return finding_add(r, d->failed, SEV_ERROR, "%s failed%s%s", w->stage[0] ? w->stage : "cuInit",
			   reason ? ": " : "", reason ? reason : "");
}

struct finding *worker_findings(struct result *r, const struct worker_outcome *w, enum worker_lib lib,
				bool driver_missing)
{
	const struct wlib_desc *d = &libs[lib];
	const char *from = error_member(w, "lib"), *reason = error_member(w, "name");
	bool loader = from && strcmp(from, VENDOR_LOADER) == 0;
	struct finding *f = NULL;
	switch (w->status) {
	case WORKER_OK:
		return NULL;
	case WORKER_HANG:
		f = finding_add(r, d->hang, SEV_ERROR, "%s hung in '%s'", d->hang_subject,
				w->stage[0] ? w->stage : d->hang_stage);
		break;
	case WORKER_CRASH:
		f = finding_add(r, FID_GPU_WORKER_CRASHED, SEV_ERROR, "the %s worker died of signal %d in '%s'", d->worker,
				w->signal, w->stage);
		break;
	default:
		if (loader && vendor_reason_parse(reason) == VENDOR_SYMBOL_MISSING) {
			f = finding_add(r, FID_VENDOR_SYMBOL_MISSING, SEV_ERROR, "%s lacks a required entry point", d->soname);
		} else if (loader) {
			if (lib != WLIB_NVML && driver_missing)
				return NULL;
			if (lib == WLIB_NVML) /* plainly what is missing, and what that stops */
				f = finding_add(r, d->unavailable, SEV_ERROR, NVML_LIB_TEXT " %s: no GPU can be queried or tested here",
						worker_lib_missing(w));
			else
				f = finding_add(r, d->unavailable, SEV_ERROR, "%s", d->unavailable_title);
		} else {
			f = failed_finding(r, w, lib, reason);
		}
		break;
	}
	worker_evidence(f, w);
	return f;
}
