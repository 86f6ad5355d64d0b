/* Fuzz harness: the tar reader that `logs --snapshot` unpacks an archive
 * with (util/tar_read.c), over a memory source handing out chunks of varying
 * size (a decompressor's pipe), with small limits: each input is unpacked
 * into a fresh directory under the private sysroot, removed afterwards.
 * A member handed on never has an absolute name or a ".." component (pax
 * path records included), and a refused archive always says why in one line. */
#include "fuzz.h"

#include "util/privdir.h"
#include "util/tar.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void check_why(const struct tar_reader *t)
{
	if (!t->why[0] || strchr(t->why, '\n'))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *root = fz_sysroot();
	static const struct tar_limits lim = { 64, 1u << 20, 4u << 20 };

	/* member by member: the names handed on */
	struct fz_mem m;
	fz_mem_init(&m, data, size);
	struct tar_reader t;
	tar_reader_init(&t, fz_mem_read, &m, &lim);
	struct tar_member *mb = malloc(sizeof(*mb));
	int r;
	while ((r = tar_next(&t, mb)) > 0) {
		const char *p = mb->path;
		if (p[0] == '/' || strcmp(p, "..") == 0 || strncmp(p, "../", 3) == 0 || strstr(p, "/../") ||
		    (strlen(p) >= 3 && strcmp(p + strlen(p) - 3, "/..") == 0))
			abort();
		char buf[4096];
		long k;
		while ((k = tar_read_data(&t, buf, sizeof(buf))) > 0)
			;
		if (k < 0) {
			r = (int)k;
			break;
		}
	}
	if (r < 0)
		check_why(&t);
	free(mb);

	/* unpacked into a fresh directory, removed */
	char dir[4200];
	snprintf(dir, sizeof(dir), "%s/untar.XXXXXX", root);
	if (!mkdtemp(dir))
		abort();
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		abort();
	fz_mem_init(&m, data, size);
	tar_reader_init(&t, fz_mem_read, &m, &lim);
	if (tar_extract(&t, fd) < 0)
		check_why(&t);
	if (privdir_remove_tree(fd, dir) < 0) /* what was unpacked is under dir, all of it */
		abort();
	close(fd);
	return 0;
}
