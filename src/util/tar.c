/* Minimal tar writer: see tar.h. */
#include "util/tar.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

struct hdr {
	char name[100], mode[8], uid[8], gid[8], size[12], mtime[12], chksum[8];
	char typeflag, linkname[100], magic[6], version[2], uname[32], gname[32];
	char devmajor[8], devminor[8], prefix[155], pad[12];
};

void tar_init(struct tar_writer *t, FILE *out, time_t mtime)
{
	memset(t, 0, sizeof(*t)); /* the counters too */
	t->out = out;
	t->mtime = mtime;
}

static void put(struct tar_writer *t, const void *p, size_t n)
{
	if (t->err || n == 0) /* an empty file's data may be NULL: not for fwrite */
		return;
	errno = 0;
	if (fwrite(p, 1, n, t->out) != n)
		t->err = errno > 0 ? -errno : -EIO; /* ENOSPC says more than EIO */
}

static void pad_block(struct tar_writer *t, size_t n)
{
	static const char zeros[512];
	if (n % 512)
		put(t, zeros, 512 - n % 512);
}

static void octal(char *field, size_t width, uint64_t v)
{
	/* width-1 digits and a NUL; values that do not fit keep their low digits */
	char tmp[32];
	int n = snprintf(tmp, sizeof(tmp), "%0*llo", (int)(width - 1), (unsigned long long)v);
	if (n < 0)
		n = 0;
	size_t len = (size_t)n, w = width - 1;
	memcpy(field, tmp + (len > w ? len - w : 0), w);
	field[w] = '\0';
}

static void write_header(struct tar_writer *t, struct hdr *h)
{
	memcpy(h->magic, "ustar", 6);
	memcpy(h->version, "00", 2);
	str_copy(h->uname, "root", sizeof(h->uname));
	str_copy(h->gname, "root", sizeof(h->gname));
	octal(h->uid, 8, 0);
	octal(h->gid, 8, 0);
	octal(h->mtime, 12, (uint64_t)t->mtime);
	memset(h->chksum, ' ', 8);
	unsigned sum = 0;
	const unsigned char *b = (const unsigned char *)h;
	for (size_t i = 0; i < sizeof(*h); i++)
		sum += b[i];
	snprintf(h->chksum, 8, "%06o", sum);
	h->chksum[7] = ' ';
	put(t, h, sizeof(*h));
}

/* A GNU long-name record: a "././@LongLink" header of type 'L' (the next
 * entry's name) or 'K' (its link target), then the text with its NUL. */
static void write_longlink(struct tar_writer *t, char type, const char *text, size_t len)
{
	struct hdr l;
	memset(&l, 0, sizeof(l));
	str_copy(l.name, "././@LongLink", sizeof(l.name));
	octal(l.mode, 8, 0644);
	octal(l.size, 12, len + 1);
	l.typeflag = type;
	write_header(t, &l);
	put(t, text, len + 1);
	pad_block(t, len + 1);
}

/* Sets name/prefix; emits a GNU ././@LongLink record first when needed. */
static void set_name(struct tar_writer *t, struct hdr *h, const char *path)
{
	size_t len = strlen(path);
	if (len <= 100) {
		memcpy(h->name, path, len);
		return;
	}
	/* ustar split at a '/' so that prefix <= 155 and name <= 100 */
	for (size_t i = len > 101 ? len - 101 : 0; i < len && i <= 155; i++) {
		if (path[i] == '/' && len - i - 1 <= 100 && i > 0) {
			memcpy(h->prefix, path, i);
			memcpy(h->name, path + i + 1, len - i - 1);
			return;
		}
	}
	write_longlink(t, 'L', path, len);
	memcpy(h->name, path, 100);
}

static const char *rel(const char *path)
{
	while (*path == '/')
		path++;
	return path;
}

int tar_add_dir(struct tar_writer *t, const char *path, unsigned mode)
{
	char p[4096];
	if (xsnprintf(p, sizeof(p), "%s/", rel(path)) < 0)
		return -ENAMETOOLONG; /* not sticky: the archive goes on without it */
	struct hdr h;
	memset(&h, 0, sizeof(h));
	set_name(t, &h, p);
	octal(h.mode, 8, mode & 07777);
	octal(h.size, 12, 0);
	h.typeflag = '5';
	write_header(t, &h);
	t->dirs++;
	return t->err;
}

int tar_add_file(struct tar_writer *t, const char *path, const void *data, size_t len, unsigned mode)
{
	struct hdr h;
	memset(&h, 0, sizeof(h));
	set_name(t, &h, rel(path));
	octal(h.mode, 8, mode & 07777);
	octal(h.size, 12, len);
	h.typeflag = '0';
	write_header(t, &h);
	put(t, data, len);
	pad_block(t, len);
	t->files++;
	t->file_bytes += len;
	return t->err;
}

int tar_add_symlink(struct tar_writer *t, const char *path, const char *target)
{
	size_t tl = strlen(target);
	if (tl > 100)
		write_longlink(t, 'K', target, tl);
	struct hdr h;
	memset(&h, 0, sizeof(h));
	set_name(t, &h, rel(path));
	octal(h.mode, 8, 0777);
	octal(h.size, 12, 0);
	h.typeflag = '2';
	memcpy(h.linkname, target, tl > 100 ? 100 : tl);
	write_header(t, &h);
	t->links++;
	return t->err;
}

int tar_finish(struct tar_writer *t)
{
	static const char zeros[1024];
	put(t, zeros, sizeof(zeros));
	errno = 0;
	if (!t->err && fflush(t->out) != 0)
		t->err = errno > 0 ? -errno : -EIO;
	return t->err;
}
