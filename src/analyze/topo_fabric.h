/* The NVSwitch fabric side of `topo` (analyze/topo_fabric.c): per shown GPU
 * its fabric state (NVML), multicast support (CUDA), NVLink count against
 * the model's (kb/nvlink_models.h), link speeds and error counters, and the
 * findings about them. analyze/topo.c calls these once it has its GPUs. */
#ifndef ND_ANALYZE_TOPO_FABRIC_H
#define ND_ANALYZE_TOPO_FABRIC_H
#include "model/result.h"
#include "util/jsonx.h"

/* Speed, version and error counters of one link from the worker's link
 * object into x. */
void topo_nvlink_details(struct topo_nvlink *x, json_t *lk);

/* One shown GPU: its nvml-topo object (gpu_nvml) and its cuda-info device
 * (cuda_dev, NULL when CUDA did not answer or no ordinal has its bus id).
 * Adds a fabric row to m. */
void topo_fabric_gpu(struct topo_model *m, int index, const char *name, json_t *gpu_nvml, json_t *cuda_dev);

/* After every GPU: decides whether there is an NVSwitch fabric (nvswitches:
 * NVSwitch PCI functions, -1 unknown), marks downtrained links, adds the
 * "fabric" section (a note "no NVSwitch fabric" when there is none) and the
 * findings. */
void topo_fabric_finish(struct result *r, struct topo_model *m, int nvswitches);

#endif
