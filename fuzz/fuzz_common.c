/* The helpers of fuzz/fuzz.h. */
#include "fuzz.h"

#include "util/sysroot.h"

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_root[256];

static void remove_tree(const char *path)
{
	char cmd[512];
	/* the directory is ours (mkdtemp); nothing else is below it */
	if (snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path) < (int)sizeof(cmd))
		(void)!system(cmd);
}

static void cleanup(void)
{
	if (g_root[0])
		remove_tree(g_root);
}

const char *fz_sysroot(void)
{
	if (g_root[0])
		return g_root;
	/* on tmpfs when there is one: harnesses write a file per input */
	const char *tmp = getenv("TMPDIR");
	if (access("/dev/shm", W_OK | X_OK) == 0)
		tmp = "/dev/shm";
	snprintf(g_root, sizeof(g_root), "%s/nd-fuzz-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(g_root)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	atexit(cleanup);
	if (sysroot_set(g_root) < 0) {
		fprintf(stderr, "fuzz: cannot use '%s' as sysroot\n", g_root);
		abort();
	}
	return g_root;
}

/* The files written so far, kept open: the next input for the same path
 * overwrites the file in place (no mkdir, open or close per input). */
#define PUT_CACHE 8
static struct {
	char path[1024];
	int fd;
} g_put[PUT_CACHE];
static int g_nput;

static int put_open(const char *root, const char *path, bool *kept)
{
	*kept = true;
	for (int i = 0; i < g_nput; i++)
		if (strcmp(g_put[i].path, path) == 0)
			return g_put[i].fd;
	char full[1024];
	if (snprintf(full, sizeof(full), "%s/%s", root, path[0] == '/' ? path + 1 : path) >= (int)sizeof(full))
		return -1;
	for (char *p = full + strlen(root) + 1; (p = strchr(p, '/')); p++) {
		*p = '\0';
		if (mkdir(full, 0700) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	int fd = open(full, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || g_nput == PUT_CACHE || strlen(path) >= sizeof(g_put[0].path)) {
		*kept = false; /* fz_put closes it */
		return fd;
	}
	snprintf(g_put[g_nput].path, sizeof(g_put[0].path), "%s", path);
	g_put[g_nput++].fd = fd;
	return fd;
}

int fz_put(const char *path, const void *data, size_t size)
{
	bool kept;
	int fd = put_open(fz_sysroot(), path, &kept);
	if (fd < 0)
		return -1;
	size_t off = 0;
	int ret = 0;
	while (off < size && ret == 0) {
		ssize_t w = pwrite(fd, (const char *)data + off, size - off, (off_t)off);
		if (w <= 0)
			ret = -1;
		else
			off += (size_t)w;
	}
	if (ret == 0 && ftruncate(fd, (off_t)size) < 0)
		ret = -1;
	if (!kept && close(fd) < 0)
		ret = -1;
	return ret;
}

void fz_mem_init(struct fz_mem *m, const uint8_t *data, size_t size)
{
	m->data = data;
	m->size = size;
	m->pos = 0;
	m->step = size ? data[0] : 0;
}

long fz_mem_read(void *ctx, void *buf, size_t n)
{
	struct fz_mem *m = ctx;
	if (m->pos >= m->size)
		return 0;
	/* chunk sizes 1..4096 driven by the input, so chunk ends fall anywhere */
	m->step = m->step * 1103515245u + 12345u;
	size_t k = 1 + (m->step >> 8) % 4096;
	if (k > n)
		k = n;
	if (k > m->size - m->pos)
		k = m->size - m->pos;
	memcpy(buf, m->data + m->pos, k);
	m->pos += k;
	return (long)k;
}

FILE *fz_null(void)
{
	static FILE *f;
	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		abort();
	return f;
}

char *fz_strdup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	if (!s)
		abort();
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}
