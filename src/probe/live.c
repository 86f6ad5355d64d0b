/* The recorded live-facts manifest: see live.h. */
#include "probe/live.h"
#include "util/sysroot.h"

#include <stdbool.h>
#include <stdlib.h>

static json_t *g_manifest;
static bool g_loaded;

void live_reset(void)
{
	json_decref(g_manifest);
	g_manifest = NULL;
	g_loaded = false;
}

json_t *live_manifest(void)
{
	if (g_loaded)
		return g_manifest;
	g_loaded = true;
	if (sysroot_is_live())
		return NULL;
	char *data;
	size_t len;
	if (sr_read_file(LIVE_MANIFEST, &data, &len, 16 << 20) < 0)
		return NULL;
	json_error_t err;
	json_t *j = json_loadb(data, len, 0, &err);
	free(data);
	if (j && json_is_object(j))
		g_manifest = j;
	else
		json_decref(j);
	return g_manifest;
}

json_t *live_get(const char *key)
{
	json_t *m = live_manifest();
	return m ? json_object_get(m, key) : NULL;
}
