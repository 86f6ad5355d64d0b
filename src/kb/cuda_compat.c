/* The CUDA compatibility matrix (kb/cuda_compat.h), from NVIDIA's "CUDA
 * Compatibility" guide, "Minor Version Compatibility", Table 1 (CUDA
 * Toolkit 11.x, 12.x and 13.x minimum and maximum required driver
 * versions: 13.x >= 580; 12.x >= 525, < 580; 11.x >= 450, < 525) and Table
 * 2 (CUDA Toolkit 10.x minimum required driver versions, Linux x86_64:
 * 10.2 >= 440.33, 10.1 >= 418.39, 10.0 >= 410.48); CUDA 8.0 to 9.2 from the
 * CUDA Toolkit release notes, "CUDA Toolkit and Corresponding Driver
 * Versions" (Linux x86_64: 9.2.88 >= 396.26, 9.1.85 >= 390.46, 9.0.76 >=
 * 384.81, 8.0.44 >= 367.48). The per-release "Toolkit Driver Version" of
 * CUDA 11+ (the driver a toolkit ships with, for its full feature set) is
 * not here: a runtime runs on the family minimum. */
#include "kb/cuda_compat.h"

#include <stddef.h>

#define MVC "https://docs.nvidia.com/deploy/cuda-compatibility/minor-version-compatibility.html"
#define RN "https://docs.nvidia.com/cuda/cuda-toolkit-release-notes/index.html"

static const struct cuda_min_driver rows[] = {
	{ 13, -1, "580", NULL, MVC },
	{ 12, -1, "525", "580", MVC },
	{ 11, -1, "450", "525", MVC },
	{ 10, 2, "440.33", NULL, MVC },
	{ 10, 1, "418.39", NULL, MVC },
	{ 10, 0, "410.48", NULL, MVC },
	{ 9, 2, "396.26", NULL, RN },
	{ 9, 1, "390.46", NULL, RN },
	{ 9, 0, "384.81", NULL, RN },
	{ 8, 0, "367.48", NULL, RN },
};

const struct cuda_min_driver *kb_cuda_min_driver(int major, int minor)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (rows[i].major == major && (rows[i].minor < 0 || rows[i].minor == minor))
			return &rows[i];
	return NULL;
}
