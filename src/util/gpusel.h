/* GPU selection: the --gpus LIST of every command, written like
 * CUDA_VISIBLE_DEVICES: indices and ranges ("0-3,5"), UUIDs or a unique
 * prefix of one ("GPU-5f1c…"), and PCI bus ids ("0000:18:00.0", "18:00.0",
 * NVML's "00000000:18:00.0"). It is parsed once (a bad list is a usage
 * error before any work) and matched against each command's own GPU list.
 * Pure functions; nothing here reads the machine. */
#ifndef ND_UTIL_GPUSEL_H
#define ND_UTIL_GPUSEL_H
#include <stdbool.h>
#include <stddef.h>

#define GPUSEL_MAX_ITEMS 64

enum gpusel_kind { GPUSEL_RANGE, GPUSEL_UUID, GPUSEL_BUSID };

struct gpusel_item {
	enum gpusel_kind kind;
	int lo, hi;                  /* GPUSEL_RANGE: indices lo..hi */
	char uuid[96];               /* GPUSEL_UUID: lower case, as written */
	unsigned domain, bus, dev, fn; /* GPUSEL_BUSID */
	bool any_fn;                 /* no ".fn" written */
};

struct gpusel {
	const char *text;            /* the list as given (borrowed); NULL: all GPUs */
	size_t n;
	struct gpusel_item items[GPUSEL_MAX_ITEMS];
};

/* Parses text into s. Returns 0, or -EINVAL with a one-line reason in err. */
int gpusel_parse(const char *text, struct gpusel *s, char *err, size_t errsz);
/* Whether the selection is "all GPUs" (no --gpus). */
bool gpusel_all(const struct gpusel *s);
/* Whether the GPU with this index, UUID and bus id is selected. uuid and busid
 * may be NULL when unknown (then only an index item can select it). */
bool gpusel_match(const struct gpusel *s, int index, const char *uuid, const char *busid);
/* Parses a PCI bus id in any of the spellings above; 0 or -EINVAL. */
int gpusel_parse_busid(const char *s, unsigned *domain, unsigned *bus, unsigned *dev, unsigned *fn, bool *any_fn);

#endif
