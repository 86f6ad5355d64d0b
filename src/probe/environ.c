/* Environment of the examined machine from /proc/self/environ: see environ.h. */
#include "probe/environ.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The kernel caps the initial environment well below this (ARG_MAX). */
#define ENVIRON_MAX (4u << 20)

static char *g_env;          /* the file's bytes, NUL-terminated */
static size_t g_env_len;
static bool g_loaded;
static char g_loaded_root[PATH_MAX];

void environ_reset(void)
{
	free(g_env);
	g_env = NULL;
	g_env_len = 0;
	g_loaded = false;
	g_loaded_root[0] = '\0';
}

static void environ_load(void)
{
	const char *root = sysroot_get();
	if (g_loaded && strcmp(g_loaded_root, root) == 0)
		return;
	environ_reset();
	char *data;
	size_t len;
	if (sr_read_file("/proc/self/environ", &data, &len, ENVIRON_MAX) == 0) {
		g_env = data;
		g_env_len = len;
	}
	g_loaded = true;
	str_copy(g_loaded_root, root, sizeof(g_loaded_root));
}

const char *environ_get(const char *name)
{
	size_t nl = strlen(name);
	if (nl == 0 || strchr(name, '='))
		return NULL;
	environ_load();
	if (!g_env)
		return NULL;
	/* entries are NUL-separated; the last may lack its NUL (the copy has one) */
	const char *p = g_env, *end = g_env + g_env_len;
	const char *found = NULL;
	while (p < end) {
		size_t l = strlen(p);
		if (l > nl && memcmp(p, name, nl) == 0 && p[nl] == '=')
			found = p + nl + 1; /* like getenv, the first one wins */
		if (found)
			break;
		p += l + 1;
	}
	return found;
}

size_t environ_each(const char *prefix, void (*fn)(const char *name, size_t namelen, const char *value, void *arg),
		    void *arg)
{
	environ_load();
	if (!g_env)
		return 0;
	size_t pl = strlen(prefix), count = 0;
	const char *p = g_env, *end = g_env + g_env_len;
	while (p < end) {
		size_t l = strlen(p);
		const char *eq = memchr(p, '=', l);
		if (eq && eq > p && (size_t)(eq - p) >= pl && memcmp(p, prefix, pl) == 0) {
			fn(p, (size_t)(eq - p), eq + 1, arg);
			count++;
		}
		p += l + 1;
	}
	return count;
}

bool environ_known(void)
{
	environ_load();
	return g_env != NULL;
}

int ncclconf_read(const char *path, int (*fn)(const char *name, const char *value, void *arg), void *arg)
{
	char *data;
	size_t len;
	int r = sr_read_file(path, &data, &len, 1 << 20);
	if (r < 0)
		return r;
	int count = 0;
	for (char *line = data; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *t = str_trim(line);
		char *eq = strchr(t, '=');
		if (*t && *t != '#' && eq && eq > t) {
			*eq = '\0';
			count += fn(str_trim(t), str_trim(eq + 1), arg);
		}
		line = nl ? nl + 1 : NULL;
	}
	free(data);
	return count;
}
