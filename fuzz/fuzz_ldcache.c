/* Fuzz harness: /etc/ld.so.cache (the old and the new glibc formats) as the
 * library scan reads it from a snapshot (probe/ncclib_ld.c), looked up for
 * the names the scan asks for. */
#include "fuzz.h"

#include "probe/ncclib.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* an exact-size heap copy: a read past the cache's end is an ASan error */
	char *c = malloc(size ? size : 1);
	if (size)
		memcpy(c, data, size);
	static const char *const names[] = { "libnccl.so.2", "libcuda.so.1", "libnvidia-ml.so.1", "libc.so.6", "" };
	char out[64];
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int r = ncclib_ldcache_lookup(c, size, names[i], out, sizeof(out));
		if (r == 1 && strlen(out) >= sizeof(out))
			abort();
	}
	free(c);
	return 0;
}
