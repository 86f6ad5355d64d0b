/* The CUDA compatibility matrix: the oldest Linux driver a CUDA runtime
 * runs on, from NVIDIA's table (the source URL is in cuda_compat.c). From
 * CUDA 11 on a runtime runs on any driver of its major family's minimum
 * branch (minor version compatibility, with a limited feature set: PTX
 * built by a newer toolkit needs that toolkit's driver); CUDA 10.x and
 * before need the driver of their own minor release. */
#ifndef ND_KB_CUDA_COMPAT_H
#define ND_KB_CUDA_COMPAT_H

struct cuda_min_driver {
	int major, minor;         /* the CUDA runtime: minor -1 for a whole major family */
	const char *min_driver;   /* "525" (a branch: R525 and newer), "440.33" */
	const char *max_driver;   /* the first driver branch of the next family ("580"), NULL none */
	const char *source;       /* NVIDIA's page the row comes from */
};

/* The row of CUDA runtime major.minor, NULL when the table has none
 * (before 8.0, or a major newer than the table knows). */
const struct cuda_min_driver *kb_cuda_min_driver(int major, int minor);

#endif
