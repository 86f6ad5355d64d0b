/* Fuzz harness: the JSON manifests of a snapshot, read back when a command
 * runs on an unpacked archive (--sysroot): /.nccl-doctor/libraries.json
 * (probe/ncclib.c: ncclib_scan_from_json, then written out again as the
 * snapshot would) and /.nccl-doctor/live.json (probe/live.c, read by the
 * host probe for /dev/shm). */
#include "fuzz.h"

#include "probe/host.h"
#include "probe/live.h"
#include "probe/ncclib.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_sysroot();
	json_error_t err;
	json_t *j = json_loadb((const char *)data, size, 0, &err);
	if (j) {
		struct ncclib_scan s;
		memset(&s, 0, sizeof(s));
		if (ncclib_scan_from_json(j, &s) == 0) {
			json_t *back = ncclib_scan_to_json(&s);
			char *txt = json_dumps(back, JSON_COMPACT);
			free(txt);
			json_decref(back);
		}
		ncclib_scan_release(&s);
		json_decref(j);
	}
	/* the same bytes as the live facts of the snapshot */
	if (fz_put(LIVE_MANIFEST, data, size) < 0)
		abort();
	live_reset();
	struct host_facts *h = calloc(1, sizeof(*h));
	host_probe(h);
	free(h);
	live_reset();
	return 0;
}
