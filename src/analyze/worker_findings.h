/* What a GPU worker's outcome means, as findings: one mapping for every
 * command that runs workers (topo today; p2p, bench and check next). A worker
 * that hung, crashed, could not load its library or failed in a vendor call
 * gives one finding with the worker's stage, elapsed time, message and last
 * output line as evidence. */
#ifndef ND_ANALYZE_WORKER_FINDINGS_H
#define ND_ANALYZE_WORKER_FINDINGS_H
#include "model/result.h"
#include "model/worker.h"

#include <stdbool.h>

/* Which library a worker talks to: it picks the finding ids and titles. */
enum worker_lib {
	WLIB_NVML,   /* libnvidia-ml.so.1: nvml-topo */
	WLIB_CUDA,   /* libcuda.so.1: cuda-info */
};

/* Adds the finding for w's outcome to r (none when it succeeded). With
 * driver_missing (NVML could not be loaded at all) a CUDA library that cannot
 * be loaded either adds nothing: one "no driver" finding is enough. Returns
 * the finding, or NULL. */
struct finding *worker_findings(struct result *r, const struct worker_outcome *w, enum worker_lib lib,
				bool driver_missing);

/* When w failed only because its library could not be loaded (the driver
 * did not fail or hang): what is wrong with the library, "is not
 * installed", "cannot be loaded" or "lacks a required entry point"; NULL
 * otherwise. */
const char *worker_lib_missing(const struct worker_outcome *w);

/* NVML as messages name it when it is missing: what the library is. */
#define NVML_LIB_TEXT "libnvidia-ml.so.1 (NVML, part of the NVIDIA driver)"

/* The worker's stage, time, message and last output line as evidence of f. */
void worker_evidence(struct finding *f, const struct worker_outcome *w);

#endif
