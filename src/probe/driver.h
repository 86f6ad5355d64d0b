/* The NVIDIA kernel driver as the filesystem shows it: /proc/driver/nvidia,
 * /sys/module/nvidia*, /dev/nvidia* nodes. No driver call. */
#ifndef ND_PROBE_DRIVER_H
#define ND_PROBE_DRIVER_H
#include "model/driver.h"

#include <stdbool.h>
#include <stddef.h>

/* Parses the first line of /proc/driver/nvidia/version. */
bool driver_parse_version(const char *text, char *version, size_t versz, bool *open_module);
void driver_probe(struct driver_facts *d);
/* Model and UUID of the GPU at bdf from /proc/driver/nvidia/gpus/BDF/information
 * ("Model: NVIDIA H200", "GPU UUID: GPU-..."); a field the file lacks is left
 * as it was. 0, or -errno (-ENAMETOOLONG for a bdf that makes no path). */
int driver_gpu_info(const char *bdf, char *model, size_t modelsz, char *uuid, size_t uuidsz);

#endif
