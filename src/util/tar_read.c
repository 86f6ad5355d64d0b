/* The bounded tar reader and unpacker: see tar.h. It reads what tar.c
 * writes (ustar names with their prefix, GNU long-name records) and what
 * GNU tar and Python's tarfile write for the same members, and refuses the
 * rest: an archive someone sends is untrusted input. */
#include "util/tar.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BLOCK 512

void tar_reader_init(struct tar_reader *t, tar_read_fn fn, void *ctx, const struct tar_limits *lim)
{
	static const struct tar_limits def = TAR_LIMITS_DEFAULT;
	memset(t, 0, sizeof(*t));
	t->read = fn;
	t->ctx = ctx;
	t->lim = lim ? *lim : def;
}

/* The reason of an error, in its visible form (util/text.h): names from
 * the archive may hold newlines or escapes, the reason stays one line. */
static void set_why(struct tar_reader *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void set_why(struct tar_reader *t, const char *fmt, ...)
{
	char raw[sizeof(t->why)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	str_visible(t->why, sizeof(t->why), raw, 0);
}

/* n bytes, fewer only at the end, or a negative errno. */
static long read_full(struct tar_reader *t, void *buf, size_t n)
{
	size_t got = 0;
	while (got < n) {
		long k = t->read(t->ctx, (char *)buf + got, n - got);
		if (k < 0) {
			set_why(t, "read failed at byte %llu: %s", (unsigned long long)t->offset,
				 strerror((int)-k));
			return k;
		}
		if (k == 0)
			break;
		got += (size_t)k;
		t->offset += (uint64_t)k;
	}
	return (long)got;
}

static int truncated(struct tar_reader *t)
{
	set_why(t, "truncated: the archive ends at byte %llu, inside a member or before its end "
		 "blocks", (unsigned long long)t->offset);
	return -EPIPE;
}

/* Reads and drops the rest of the current member and its padding. */
static int skip_data(struct tar_reader *t)
{
	char buf[8192];
	while (t->left + t->pad > 0) {
		uint64_t want = t->left + t->pad;
		size_t n = want < sizeof(buf) ? (size_t)want : sizeof(buf);
		long k = read_full(t, buf, n);
		if (k < 0)
			return (int)k;
		if ((size_t)k < n)
			return truncated(t);
		uint64_t from_left = (uint64_t)k < t->left ? (uint64_t)k : t->left;
		t->left -= from_left;
		t->pad -= (uint64_t)k - from_left;
	}
	return 0;
}

/* A numeric field: octal digits between optional spaces and a NUL or space,
 * or GNU's base-256 form (first byte 0x80, then big-endian: sizes of 8 GiB
 * and more; a value over 64 bits reads as the largest). */
static int octal_field(const unsigned char *f, size_t w, uint64_t *v)
{
	size_t i = 0;
	*v = 0;
	if (f[0] == 0x80) {
		for (i = 1; i < w; i++) {
			if (*v >> 56) {
				*v = UINT64_MAX;
				return 0;
			}
			*v = *v << 8 | f[i];
		}
		return 0;
	}
	while (i < w && f[i] == ' ')
		i++;
	size_t digits = 0;
	for (; i < w && f[i] >= '0' && f[i] <= '7'; i++, digits++) {
		if (*v >> 60)
			return -1;
		*v = *v * 8 + (uint64_t)(f[i] - '0');
	}
	if (digits == 0 || (i < w && f[i] != ' ' && f[i] != '\0'))
		return -1;
	return 0;
}

static bool checksum_ok(const unsigned char *h)
{
	uint64_t want;
	if (octal_field(h + 148, 8, &want) < 0)
		return false;
	unsigned long us = 0;
	long ss = 0;
	for (size_t i = 0; i < BLOCK; i++) {
		unsigned char c = i >= 148 && i < 156 ? ' ' : h[i];
		us += c;
		ss += (signed char)c; /* old tars summed signed bytes */
	}
	return want == us || (long long)want == ss;
}

/* A field of at most w bytes, NUL-terminated or full, into out. */
static void field(char *out, size_t outsz, const unsigned char *f, size_t w)
{
	size_t n = strnlen((const char *)f, w);
	if (n >= outsz)
		n = outsz - 1;
	memcpy(out, f, n);
	out[n] = '\0';
}

static const char *type_name(char type)
{
	switch (type) {
	case '1':
		return "a hard link";
	case '3':
		return "a character device";
	case '4':
		return "a block device";
	case '6':
		return "a FIFO";
	case 'S':
		return "a sparse file";
	default:
		return NULL;
	}
}

/* raw into m->path: no leading '/', no "..", "." and empty components
 * dropped. -EBADMSG with t->why when refused. */
static int clean_path(struct tar_reader *t, const char *raw, struct tar_member *m)
{
	if (raw[0] == '/') {
		set_why(t, "member '%.300s' has an absolute name", raw);
		return -EBADMSG;
	}
	size_t n = 0, depth = 0;
	const char *p = raw;
	while (*p) {
		const char *e = strchrnul(p, '/');
		size_t l = (size_t)(e - p);
		if (l == 2 && p[0] == '.' && p[1] == '.') {
			set_why(t, "member '%.300s' has a '..' in its name", raw);
			return -EBADMSG;
		}
		if (l > 0 && !(l == 1 && p[0] == '.')) {
			if (n + l + 2 > sizeof(m->path)) {
				set_why(t, "member '%.300s...' has a name too long", raw);
				return -EBADMSG;
			}
			if (++depth > TAR_MAX_DEPTH) {
				set_why(t, "member '%.300s' is more than %d directories deep", raw,
					 TAR_MAX_DEPTH);
				return -EBADMSG;
			}
			if (n)
				m->path[n++] = '/';
			memcpy(m->path + n, p, l);
			n += l;
		}
		p = *e ? e + 1 : e;
	}
	m->path[n] = '\0';
	return 0;
}

/* A GNU 'L' or 'K' record's text (the next member's name or link target). */
static int long_text(struct tar_reader *t, uint64_t size, char *out, size_t outsz)
{
	if (size == 0 || size >= outsz) {
		set_why(t, "a long-name record of %llu bytes at byte %llu (at most %zu)",
			 (unsigned long long)size, (unsigned long long)t->offset, outsz - 1);
		return -EBADMSG;
	}
	long k = read_full(t, out, (size_t)size);
	if (k < 0)
		return (int)k;
	if ((uint64_t)k < size)
		return truncated(t);
	out[size] = '\0';
	t->pad = (BLOCK - size % BLOCK) % BLOCK;
	return skip_data(t);
}

/* One pax value into out (path, linkpath): at most outsz - 1 bytes, no
 * NUL; an empty value unsets it (POSIX: the header's own field applies). */
static int pax_text(struct tar_reader *t, const char *key, const char *v, size_t vlen, char *out, size_t outsz,
		    bool *set)
{
	if (vlen >= outsz || memchr(v, '\0', vlen)) {
		set_why(t, "a pax '%s' record at byte %llu is %s", key, (unsigned long long)t->offset,
			 vlen >= outsz ? "too long" : "not text (a NUL in it)");
		return -EBADMSG;
	}
	memcpy(out, v, vlen);
	out[vlen] = '\0';
	*set = vlen > 0;
	return 0;
}

/* One record's keyword and value into p. */
static int pax_apply(struct tar_reader *t, const char *k, size_t klen, const char *v, size_t vlen, struct tar_pax *p)
{
	if (klen == 4 && memcmp(k, "path", 4) == 0)
		return pax_text(t, "path", v, vlen, p->path, sizeof(p->path), &p->path_set);
	if (klen == 8 && memcmp(k, "linkpath", 8) == 0)
		return pax_text(t, "linkpath", v, vlen, p->link, sizeof(p->link), &p->link_set);
	if (klen == 4 && memcmp(k, "size", 4) == 0) {
		uint64_t n = 0;
		size_t i = 0;
		for (; i < vlen && isdigit((unsigned char)v[i]); i++) {
			if (n > (UINT64_MAX - 9) / 10) {
				set_why(t, "a pax size record at byte %llu is over 64 bits", (unsigned long long)t->offset);
				return -EFBIG;
			}
			n = n * 10 + (uint64_t)(v[i] - '0');
		}
		if (i != vlen) {
			set_why(t, "a pax size record at byte %llu is not a number", (unsigned long long)t->offset);
			return -EBADMSG;
		}
		p->size = n;
		p->size_set = vlen > 0;
		return 0;
	}
	if (klen > 11 && memcmp(k, "GNU.sparse.", 11) == 0) {
		set_why(t, "a pax header at byte %llu describes a sparse file: a snapshot holds files, "
			 "directories and symbolic links only", (unsigned long long)t->offset);
		return -EBADMSG;
	}
	return 0; /* times, owners, charset, comment, vendor keywords: not needed */
}

/* The records "LEN KEY=VALUE\n" of a pax header's data buf[0..n), where
 * LEN counts the whole record, into p. */
static int pax_records(struct tar_reader *t, const char *buf, size_t n, struct tar_pax *p)
{
	size_t off = 0, nrec = 0;
	while (off < n) {
		if (++nrec > TAR_PAX_MAX_RECORDS) {
			set_why(t, "a pax header before byte %llu has more than %d records",
				 (unsigned long long)t->offset, TAR_PAX_MAX_RECORDS);
			return -EFBIG;
		}
		size_t i = off, len = 0;
		while (i < n && i - off < 8 && isdigit((unsigned char)buf[i]))
			len = len * 10 + (size_t)(buf[i++] - '0');
		/* "LEN " then at least "k=\n", all inside the header, a newline last */
		bool framed = i > off && i < n && buf[i] == ' ' && len > i - off + 3 && len <= n - off &&
			      buf[off + len - 1] == '\n';
		const char *kv = framed ? buf + i + 1 : NULL;
		const char *eq = framed ? memchr(kv, '=', (size_t)(buf + off + len - 1 - kv)) : NULL;
		if (!eq || eq == kv) {
			set_why(t, "a malformed pax record (its length, its '=' or its end) in the header before byte %llu",
				 (unsigned long long)t->offset);
			return -EBADMSG;
		}
		int r = pax_apply(t, kv, (size_t)(eq - kv), eq + 1, (size_t)(buf + off + len - 1 - (eq + 1)), p);
		if (r < 0)
			return r;
		off += len;
	}
	return 0;
}

/* A pax header's data (size bytes), read and applied to p. */
static int pax_header(struct tar_reader *t, uint64_t size, struct tar_pax *p)
{
	if (size > TAR_PAX_MAX_BYTES) {
		set_why(t, "a pax header of %llu bytes at byte %llu (at most %u)", (unsigned long long)size,
			 (unsigned long long)t->offset, TAR_PAX_MAX_BYTES);
		return -EFBIG;
	}
	char *buf = xmalloc(size ? (size_t)size : 1);
	long k = read_full(t, buf, (size_t)size);
	int r = k < 0 ? (int)k : (uint64_t)k < size ? truncated(t) : pax_records(t, buf, (size_t)size, p);
	free(buf);
	if (r < 0)
		return r;
	t->pad = (BLOCK - size % BLOCK) % BLOCK;
	return skip_data(t);
}

/* The pax value that applies: this member's 'x' header, else a GNU
 * long-name record (long, NULL when none), else a 'g' header. */
static const char *pax_pick(bool lset, const char *lv, const char *gnu, bool gset, const char *gv)
{
	return lset ? lv : gnu && gnu[0] ? gnu : gset ? gv : NULL;
}

/* tar_next's loop: the headers up to the next member, with the extended
 * ones ('L', 'K', 'x', 'g') applied. local holds this member's 'x' values. */
static int next_member(struct tar_reader *t, struct tar_member *m, struct tar_pax *local)
{
	char longname[sizeof(m->path)] = "", longlink[sizeof(m->link)] = "";
	bool pending = false; /* an extended header waits for its member */
	for (;;) {
		unsigned char h[BLOCK];
		uint64_t at = t->offset;
		long k = read_full(t, h, BLOCK);
		if (k < 0)
			return (int)k;
		if (k == 0 && at == 0) {
			set_why(t, "empty: not a tar archive");
			return -EBADMSG;
		}
		if (k < BLOCK)
			return truncated(t);
		bool zero = true;
		for (size_t i = 0; i < BLOCK && zero; i++)
			zero = h[i] == 0;
		if (zero) {
			if (pending)
				return truncated(t);
			return 0; /* the end blocks: what follows them is not read */
		}
		bool ustar = memcmp(h + 257, "ustar", 5) == 0;
		if (!ustar || !checksum_ok(h)) {
			if (at == 0)
				set_why(t, "not a tar archive (no ustar header at its start)");
			else
				set_why(t, "a damaged header at byte %llu (%s)", (unsigned long long)at,
					 ustar ? "its checksum is wrong" : "no ustar magic");
			return -EBADMSG;
		}
		if (++t->members > t->lim.members) {
			set_why(t, "more than %zu members", t->lim.members);
			return -EFBIG;
		}
		uint64_t size;
		if (octal_field(h + 124, 12, &size) < 0) {
			set_why(t, "a header at byte %llu has no readable size", (unsigned long long)at);
			return -EBADMSG;
		}
		char type = (char)h[156];
		int r;
		if (type == 'L' || type == 'K') {
			r = long_text(t, size, type == 'L' ? longname : longlink, sizeof(longname));
			if (r < 0)
				return r;
			pending = true;
			continue;
		}
		if (type == 'x' || type == 'g') {
			r = pax_header(t, size, type == 'x' ? local : &t->global);
			if (r < 0)
				return r;
			pending |= type == 'x';
			continue;
		}
		/* the name: pax or GNU long name, else ustar's prefix '/' name (a
		 * POSIX header only: GNU's keeps times in that place) */
		char raw[sizeof(m->path)], name[101], prefix[156];
		field(name, sizeof(name), h, 100);
		field(prefix, sizeof(prefix), h + 345, 155);
		const char *ext = pax_pick(local->path_set, local->path, longname, t->global.path_set, t->global.path);
		if (ext)
			str_copy(raw, ext, sizeof(raw));
		else if (h[262] == '\0' && prefix[0])
			str_setf(raw, sizeof(raw), "%s/%s", prefix, name);
		else
			str_copy(raw, name, sizeof(raw));
		const char *bad = type_name(type);
		if (!bad && type != '0' && type != '\0' && type != '7' && type != '5' && type != '2')
			bad = "of an unknown type";
		if (bad) {
			set_why(t, "member '%.300s' is %s (type %#x): a snapshot holds files, "
				 "directories and symbolic links only", raw, bad, (unsigned char)type);
			return -EBADMSG;
		}
		r = clean_path(t, raw, m);
		if (r < 0)
			return r;
		/* pax's size replaces the header's (which may be 0 or cut) */
		if (local->size_set)
			size = local->size;
		else if (t->global.size_set)
			size = t->global.size;
		m->type = type == '5' ? TAR_DIR : type == '2' ? TAR_SYMLINK : TAR_FILE;
		m->size = m->type == TAR_FILE ? size : 0;
		m->link[0] = '\0';
		if (m->type == TAR_SYMLINK) {
			ext = pax_pick(local->link_set, local->link, longlink, t->global.link_set, t->global.link);
			if (ext)
				str_copy(m->link, ext, sizeof(m->link));
			else
				field(m->link, sizeof(m->link), h + 157, 100);
			if (!m->link[0]) {
				set_why(t, "link '%.300s' has no target", m->path);
				return -EBADMSG;
			}
		}
		if (size > t->lim.member_bytes) {
			set_why(t, "member '%.300s' is over %llu MiB", m->path,
				 (unsigned long long)(t->lim.member_bytes >> 20));
			return -EFBIG;
		}
		if (t->total + size > t->lim.total_bytes) {
			set_why(t, "the files pass %llu MiB at member '%.300s'",
				 (unsigned long long)(t->lim.total_bytes >> 20), m->path);
			return -EFBIG;
		}
		t->total += size;
		/* a directory's or link's data (GNU dump directories) is skipped */
		t->left = size;
		t->pad = (BLOCK - size % BLOCK) % BLOCK;
		return 1;
	}
}

int tar_next(struct tar_reader *t, struct tar_member *m)
{
	int r = skip_data(t);
	if (r < 0)
		return r;
	t->local.path_set = t->local.link_set = t->local.size_set = false;
	return next_member(t, m, &t->local);
}

long tar_read_data(struct tar_reader *t, void *buf, size_t n)
{
	if (n > t->left)
		n = (size_t)t->left;
	if (n == 0)
		return 0;
	long k = read_full(t, buf, n);
	if (k < 0)
		return k;
	if ((size_t)k < n)
		return truncated(t);
	t->left -= (uint64_t)k;
	return k;
}

/* ---- unpacking ---- */

/* The directory of the last member, kept open: an archive lists a
 * directory's members together, and walking every path from the root again
 * costs an open per component (a snapshot of 600 members: 4,400 opens). The
 * descriptor stays right: no later member can replace a directory (names
 * are made O_EXCL, mkdirat or symlinkat, never removed). */
struct dircache {
	char path[4096];
	size_t len;
	int fd;
};

/* Opens (making it when missing) each directory above path under rootfd,
 * never through a link; *dfd gets the last (the cache's: not to be
 * closed), *base the final name. */
static int open_parent(struct tar_reader *t, int rootfd, const char *path, struct dircache *dc, int *dfd,
		       const char **base)
{
	const char *last = strrchr(path, '/');
	size_t dirlen = last ? (size_t)(last - path) : 0;
	*base = last ? last + 1 : path;
	if (dc->fd >= 0 && dc->len == dirlen && memcmp(dc->path, path, dirlen) == 0) {
		*dfd = dc->fd;
		return 0;
	}
	int cur = dup(rootfd);
	if (cur < 0)
		return -errno;
	const char *p = path;
	for (const char *slash; (slash = strchr(p, '/')); p = slash + 1) {
		char comp[256];
		size_t l = (size_t)(slash - p);
		if (l >= sizeof(comp)) {
			close(cur);
			set_why(t, "member '%.300s' has a name component over 255 bytes", path);
			return -EBADMSG;
		}
		memcpy(comp, p, l);
		comp[l] = '\0';
		int next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (next < 0 && errno == ENOENT && mkdirat(cur, comp, 0700) == 0)
			next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		struct stat st;
		bool link = next < 0 && fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode);
		close(cur);
		if (next < 0) {
			if (e == ELOOP || e == ENOTDIR)
				set_why(t, "member '%.300s' lies beneath '%.*s', which is %s", path,
					 (int)(slash - path), path, link ? "a symbolic link" : "not a directory");
			else
				set_why(t, "cannot unpack '%.300s': %s", path, strerror(e));
			return e == ELOOP || e == ENOTDIR ? -EBADMSG : -e;
		}
		cur = next;
	}
	if (dc->fd >= 0)
		close(dc->fd);
	dc->fd = *dfd = cur;
	memcpy(dc->path, path, dirlen);
	dc->len = dirlen;
	return 0;
}

/* The target a link at path is made with: an absolute one relative to the
 * root ("../" for each directory above the link); then only leading ".."
 * components, no more of them than directories above the link, so that
 * the kernel's own resolution (each link's directory is a real one) stays
 * under the root too. -EBADMSG when it would leave it. */
static int link_target(struct tar_reader *t, const struct tar_member *m, char *out, size_t outsz)
{
	size_t depth = 0;
	for (const char *p = m->path; *p; p++)
		depth += *p == '/';
	const char *tg = m->link;
	size_t n = 0, ups = 0;
	out[0] = '\0';
	if (tg[0] == '/') {
		for (size_t i = 0; i < depth && n + 4 < outsz; i++, ups++)
			n += (size_t)xsnprintf(out + n, outsz - n, "../");
		while (*tg == '/')
			tg++;
	}
	bool down = false; /* a name seen: no ".." after it */
	for (const char *p = tg; *p;) {
		const char *e = strchrnul(p, '/');
		size_t l = (size_t)(e - p);
		bool dotdot = l == 2 && p[0] == '.' && p[1] == '.';
		if (dotdot && (down || ++ups > depth)) {
			set_why(t, "link '%.300s' points outside the snapshot ('%.300s')", m->path,
				 m->link);
			return -EBADMSG;
		}
		if (l > 0 && !(l == 1 && p[0] == '.')) {
			down |= !dotdot;
			if (n + l + 2 > outsz) {
				set_why(t, "link '%.300s' has a target too long", m->path);
				return -EBADMSG;
			}
			memcpy(out + n, p, l);
			n += l;
			out[n++] = '/';
		}
		p = *e ? e + 1 : e;
	}
	if (n == 0)
		out[n++] = '.';
	else
		n--; /* the last '/' */
	out[n] = '\0';
	return 0;
}

static int unpack_file(struct tar_reader *t, const struct tar_member *m, int dfd, const char *base)
{
	int fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		set_why(t, e == EEXIST ? "member '%.300s' is given twice" :
			 "cannot unpack '%.300s': %s", m->path, strerror(e));
		return e == EEXIST ? -EBADMSG : -e;
	}
	char buf[65536];
	long k;
	int r = 0;
	while ((k = tar_read_data(t, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < k;) {
			ssize_t w = write(fd, buf + off, (size_t)(k - off));
			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				r = -errno;
				set_why(t, "cannot unpack '%.300s': %s", m->path, strerror(errno));
				break;
			}
			off += w;
		}
		if (r < 0)
			break;
	}
	close(fd);
	return r < 0 ? r : (int)k;
}

long tar_extract(struct tar_reader *t, int rootfd)
{
	struct tar_member m;
	struct dircache dc = { .fd = -1 };
	long n = 0;
	int r;
	while ((r = tar_next(t, &m)) > 0) {
		if (!m.path[0])
			continue; /* "./": the root itself */
		int dfd = -1;
		const char *base = NULL;
		r = open_parent(t, rootfd, m.path, &dc, &dfd, &base);
		if (r < 0)
			break;
		struct stat st;
		char target[sizeof(m.link)];
		switch (m.type) {
		case TAR_DIR:
			/* made already as a parent of an earlier member: fine */
			if (mkdirat(dfd, base, 0700) < 0) {
				int e = errno;
				if (e == EEXIST && fstatat(dfd, base, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
					break;
				set_why(t, e == EEXIST ? "member '%.300s' is given twice" :
					 "cannot unpack '%.300s': %s", m.path, strerror(e));
				r = e == EEXIST ? -EBADMSG : -e;
			}
			break;
		case TAR_FILE:
			r = unpack_file(t, &m, dfd, base);
			break;
		case TAR_SYMLINK:
			r = link_target(t, &m, target, sizeof(target));
			if (r == 0 && symlinkat(target, dfd, base) < 0) {
				int e = errno;
				set_why(t, e == EEXIST ? "member '%.300s' is given twice" :
					 "cannot unpack '%.300s': %s", m.path, strerror(e));
				r = e == EEXIST ? -EBADMSG : -e;
			}
			break;
		}
		if (r < 0)
			break;
		n++;
	}
	if (dc.fd >= 0)
		close(dc.fd);
	return r < 0 ? r : n;
}
