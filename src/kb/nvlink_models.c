/* NVLink counts and speeds per GPU model (kb/nvlink_models.h). Counts from
 * NVIDIA's data sheets (A100: 12 third-generation links, 600 GB/s; H100 and
 * H200 SXM: 18 fourth-generation links, 900 GB/s; B200: 18 fifth-generation
 * links, 1.8 TB/s); the H100 per-link speed of 26562 MB/s is what NVML and
 * NVIDIA's Health Validation report for a trained NVLink 4 link (issue 16).
 * Other speeds are left 0 (unknown): links are then compared with the GPU's
 * other links only. Export variants with fewer links (A800, H800) and models
 * not checked against a data sheet are deliberately absent: no row, no
 * expectation. */
#include "kb/nvlink_models.h"

#include <stddef.h>
#include <string.h>

static const struct nvlink_model models[] = {
	{ "A100-SXM", 12, 0, "NVIDIA A100 data sheet: 12 NVLinks, 600 GB/s" },
	{ "H100 80GB HBM3", 18, 26562, "NVIDIA H100 SXM5 data sheet: 18 NVLinks, 900 GB/s; 26562 MB/s per link in NVML" },
	{ "H100 SXM", 18, 26562, "NVIDIA H100 SXM5 data sheet: 18 NVLinks, 900 GB/s; 26562 MB/s per link in NVML" },
	{ "H200", 18, 26562, "NVIDIA H200 SXM data sheet: 18 NVLinks, 900 GB/s (NVLink 4, as H100)" },
	{ "B200", 18, 0, "NVIDIA B200 / HGX B200 data sheet: 18 fifth-generation NVLinks, 1.8 TB/s" },
};

const struct nvlink_model *kb_nvlink_model(const char *name)
{
	if (!name || strstr(name, "PCIe") || strstr(name, " NVL"))
		return NULL;
	/* the longest match wins; a match followed by a digit is another model
	 * ("H200" inside "H2000") */
	const struct nvlink_model *best = NULL;
	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		const char *p = strstr(name, models[i].name_has);
		if (!p)
			continue;
		char after = p[strlen(models[i].name_has)];
		if (after >= '0' && after <= '9')
			continue;
		if (!best || strlen(models[i].name_has) > strlen(best->name_has))
			best = &models[i];
	}
	return best;
}
