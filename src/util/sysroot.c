/* Sysroot-relative file access and read recording: see sysroot.h. */
#include "util/sysroot.h"
#include "util/envfilter.h"
#include "util/strbuf.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char g_root[PATH_MAX];
static size_t g_rootlen;

int sysroot_set(const char *dir)
{
	if (!dir || !*dir || strcmp(dir, "/") == 0) {
		g_root[0] = '\0';
		g_rootlen = 0;
		return 0;
	}
	struct stat st;
	if (stat(dir, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	char real[PATH_MAX];
	if (!realpath(dir, real))
		return -errno;
	if (strcmp(real, "/") == 0)
		real[0] = '\0';
	str_copy(g_root, real, sizeof(g_root));
	g_rootlen = strlen(g_root);
	return 0;
}

const char *sysroot_get(void)
{
	return g_root;
}

bool sysroot_is_live(void)
{
	return g_rootlen == 0;
}

int sr_path(const char *path, char *out, size_t outsz)
{
	if (!path || path[0] != '/')
		return -EINVAL;
	int n = snprintf(out, outsz, "%s%s", g_root, path);
	if (n < 0 || (size_t)n >= outsz)
		return -ENAMETOOLONG;
	return 0;
}

/* ---- recording ---- */

static bool g_recording;
static struct sr_rec *g_recs;
static size_t g_nrecs, g_arecs;

static struct sr_rec *rec_find(const char *path)
{
	for (size_t i = g_nrecs; i-- > 0;)
		if (strcmp(g_recs[i].path, path) == 0)
			return &g_recs[i];
	return NULL;
}

static void rec_add(const char *path, enum sr_rec_type type, const void *data, size_t len, unsigned mode)
{
	struct sr_rec *r = rec_find(path);
	if (r) {
		if (type == SR_REC_DIR && r->type == SR_REC_DIR && (!data || r->data))
			return; /* keep the first listing */
		if (type == SR_REC_DIR && r->type != SR_REC_DIR)
			return; /* a file or link read there wins */
		free(r->data);
	} else {
		XGROW(g_recs, g_arecs, g_nrecs + 1);
		r = &g_recs[g_nrecs++];
		r->path = xstrdup(path);
	}
	r->type = type;
	r->mode = mode;
	r->len = len;
	r->data = NULL;
	if (data && type == SR_REC_FILE && envfilter_is_environ_path(path)) {
		/* an environment never enters a recording whole, whoever read it
		 * and under whichever name (/proc/self or /proc/PID) */
		struct strbuf sb;
		strbuf_init(&sb, 4 * len + 65536);
		if (envfilter_apply(data, len, &sb) < 0)
			strbuf_reset(&sb); /* never a partial entry */
		r->len = sb.len;
		r->data = strbuf_detach(&sb);
		return;
	}
	if (data) {
		r->data = xmalloc(len + 1);
		memcpy(r->data, data, len);
		r->data[len] = '\0';
	}
}

/* Records under the canonical path: the directory part with every link
 * resolved (the links themselves get recorded on the way), so that the
 * archive holds each link once and the real tree behind it. */
static void rec_add_canon(const char *path, enum sr_rec_type type, const void *data, size_t len, unsigned mode)
{
	char dir[PATH_MAX], canon[PATH_MAX];
	str_copy(dir, path, sizeof(dir));
	char *slash = strrchr(dir, '/');
	if (!slash || slash == dir) {
		rec_add(path, type, data, len, mode);
		return;
	}
	*slash = '\0';
	if (sr_realpath(dir, canon, sizeof(canon)) < 0) {
		rec_add(path, type, data, len, mode);
		return;
	}
	char full[PATH_MAX];
	int n = snprintf(full, sizeof(full), "%s/%s", strcmp(canon, "/") ? canon : "", slash + 1);
	if (n < 0 || (size_t)n >= sizeof(full))
		return;
	rec_add(full, type, data, len, mode);
}

void sr_record_start(void)
{
	g_recording = true;
}

void sr_record_stop(void)
{
	g_recording = false;
}

void sr_record_add_file(const char *path, const void *data, size_t len)
{
	rec_add(path, SR_REC_FILE, data, len, 0644);
}

const struct sr_rec *sr_record_entries(size_t *n)
{
	*n = g_nrecs;
	return g_recs;
}

void sr_record_clear(void)
{
	for (size_t i = 0; i < g_nrecs; i++) {
		free(g_recs[i].path);
		free(g_recs[i].data);
	}
	free(g_recs);
	g_recs = NULL;
	g_nrecs = g_arecs = 0;
}

/* ---- access ---- */

/* Host path of path with its links resolved inside the sysroot: the kernel
 * would follow an absolute link (or one climbing above the root) out of the
 * tree to the host's own files. On the live machine, plain sr_path. */
static int sr_inpath(const char *path, char *out, size_t outsz)
{
	char canon[PATH_MAX];
	if (g_rootlen) {
		int r = sr_realpath(path, canon, sizeof(canon));
		if (r < 0)
			return r;
		path = canon;
	}
	return sr_path(path, out, outsz);
}

/* What sr_open may open: regular files and directories; a character device
 * only on the live machine and only /dev/kmsg. A device node, FIFO or socket
 * inside a sysroot (an archive unpacked as root recreates them) is never
 * opened: a FIFO would block, /dev/zero-like nodes never end. */
static bool openable(const char *path, const struct stat *st)
{
	if (S_ISREG(st->st_mode) || S_ISDIR(st->st_mode))
		return true;
	return S_ISCHR(st->st_mode) && g_rootlen == 0 && strcmp(path, "/dev/kmsg") == 0;
}

static size_t g_special_n;
static char g_special_first[PATH_MAX];

static int refuse_special(const char *path)
{
	if (g_special_n++ == 0)
		str_copy(g_special_first, path, sizeof(g_special_first));
	return -SR_ESPECIAL;
}

size_t sr_special_refused(const char **first)
{
	if (first)
		*first = g_special_first;
	return g_special_n;
}

int sr_open(const char *path, int flags)
{
	char p[PATH_MAX];
	int r = sr_inpath(path, p, sizeof(p));
	if (r < 0)
		return r;
	struct stat st;
	if (stat(p, &st) == 0 && !openable(path, &st))
		return refuse_special(path);
	/* O_NONBLOCK: a node swapped in after the stat cannot block the open */
	int fd = open(p, flags | O_CLOEXEC | O_NONBLOCK | (g_rootlen ? O_NOFOLLOW : 0));
	if (fd < 0)
		return g_rootlen && errno == ELOOP ? refuse_special(path) : -errno;
	if (fstat(fd, &st) < 0 || !openable(path, &st)) {
		close(fd);
		return refuse_special(path);
	}
	if (!(flags & O_NONBLOCK))
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int sr_stat(const char *path, struct stat *st)
{
	char p[PATH_MAX];
	int r = sr_inpath(path, p, sizeof(p));
	if (r < 0)
		return r;
	return stat(p, st) < 0 ? -errno : 0;
}

int sr_lstat(const char *path, struct stat *st)
{
	char p[PATH_MAX];
	int r = sr_path(path, p, sizeof(p));
	if (r < 0)
		return r;
	return lstat(p, st) < 0 ? -errno : 0;
}

bool sr_exists(const char *path)
{
	struct stat st;
	bool ok = sr_stat(path, &st) == 0;
	if (ok && g_recording) {
		char canon[PATH_MAX];
		if (sr_realpath(path, canon, sizeof(canon)) < 0)
			str_copy(canon, path, sizeof(canon));
		if (S_ISDIR(st.st_mode))
			rec_add(canon, SR_REC_DIR, NULL, 0, 0755);
		else if (!rec_find(canon))
			rec_add(canon, SR_REC_FILE, "", 0, 0644);
	}
	return ok;
}

int sr_read_file(const char *path, char **data, size_t *len, size_t max)
{
	*data = NULL;
	*len = 0;
	int fd = sr_open(path, O_RDONLY | O_NONBLOCK);
	if (fd < 0)
		return fd;
	struct stat st;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		close(fd);
		return -EISDIR;
	}
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap >= max)
				break;
			cap = cap * 2 > max ? max : cap * 2;
			buf = xrealloc(buf, cap + 1);
		}
		size_t want = cap - n;
		if (want > max - n)
			want = max - n;
		if (want == 0)
			break;
		ssize_t r = read(fd, buf + n, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			free(buf);
			/* sysfs returns EIO/ENODEV for attributes a device lacks */
			return -e;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	close(fd);
	buf[n] = '\0';
	*data = buf;
	*len = n;
	if (g_recording)
		rec_add_canon(path, SR_REC_FILE, buf, n, st.st_mode & 0777);
	return 0;
}

int sr_read_str(const char *path, char *buf, size_t bufsz)
{
	char *data;
	size_t len;
	int r = sr_read_file(path, &data, &len, bufsz > 1 ? bufsz - 1 : 1);
	if (r < 0) {
		if (bufsz)
			buf[0] = '\0';
		return r;
	}
	str_copy(buf, data, bufsz);
	free(data);
	str_rtrim(buf);
	return 0;
}

int sr_read_ll(const char *path, int base, long long *out)
{
	char buf[64];
	int r = sr_read_str(path, buf, sizeof(buf));
	if (r < 0)
		return r;
	return parse_ll(buf, base, out);
}

int sr_readlink(const char *path, char *buf, size_t bufsz)
{
	char p[PATH_MAX];
	int r = sr_path(path, p, sizeof(p));
	if (r < 0)
		return r;
	ssize_t n = readlink(p, buf, bufsz - 1);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	if (g_recording)
		rec_add_canon(path, SR_REC_LINK, buf, (size_t)n, 0777);
	return 0;
}

/* Pushes the '/'-separated components of src onto a work list, in order. */
struct comps {
	char **v;
	size_t n, alloc;
};

static void comps_push_front(struct comps *c, const char *src)
{
	/* split src, then insert all at the front, keeping their order */
	char *copy = xstrdup(src);
	char *parts[PATH_MAX / 2];
	size_t np = 0;
	for (char *tok = strtok(copy, "/"); tok && np < PATH_MAX / 2; tok = strtok(NULL, "/"))
		parts[np++] = tok;
	XGROW(c->v, c->alloc, c->n + np);
	/* the work list is used as a stack: last element is the next to process */
	for (size_t i = np; i-- > 0;)
		c->v[c->n++] = xstrdup(parts[i]);
	free(copy);
}

int sr_realpath(const char *path, char *out, size_t outsz)
{
	if (!path || path[0] != '/')
		return -EINVAL;
	struct comps todo = { 0 };
	comps_push_front(&todo, path);
	char cur[PATH_MAX] = "";
	size_t curlen = 0;
	int links = 0, ret = 0;
	while (todo.n > 0) {
		char *c = todo.v[--todo.n];
		if (strcmp(c, ".") == 0 || !*c) {
			free(c);
			continue;
		}
		if (strcmp(c, "..") == 0) {
			char *slash = strrchr(cur, '/');
			if (slash) {
				*slash = '\0';
				curlen = (size_t)(slash - cur);
			}
			free(c);
			continue;
		}
		size_t cl = strlen(c);
		if (curlen + 1 + cl >= sizeof(cur)) {
			free(c);
			ret = -ENAMETOOLONG;
			break;
		}
		size_t before = curlen;
		cur[curlen++] = '/';
		memcpy(cur + curlen, c, cl + 1);
		curlen += cl;
		free(c);
		struct stat st;
		int r = sr_lstat(cur, &st);
		if (r < 0) {
			ret = r;
			break;
		}
		if (S_ISLNK(st.st_mode)) {
			char target[PATH_MAX];
			r = sr_readlink(cur, target, sizeof(target));
			if (r < 0) {
				ret = r;
				break;
			}
			if (++links > 40) {
				ret = -ELOOP;
				break;
			}
			if (target[0] == '/') {
				cur[0] = '\0';
				curlen = 0;
			} else {
				cur[before] = '\0';
				curlen = before;
			}
			comps_push_front(&todo, target);
		}
	}
	while (todo.n > 0)
		free(todo.v[--todo.n]);
	free(todo.v);
	if (ret < 0)
		return ret;
	if (curlen == 0)
		str_copy(cur, "/", sizeof(cur));
	if (str_copy(out, cur, outsz) >= outsz)
		return -ENAMETOOLONG;
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int sr_list_dir(const char *path, char ***names, size_t *n)
{
	*names = NULL;
	*n = 0;
	char p[PATH_MAX];
	int r = sr_inpath(path, p, sizeof(p));
	if (r < 0)
		return r;
	DIR *d = opendir(p);
	if (!d)
		return -errno;
	size_t alloc = 0;
	struct dirent *de;
	/* while recording, the listing keeps each entry's type ("d:", "l:",
	 * "f:") so that snapshot can recreate entries nobody read */
	struct strbuf listing = STRBUF_INIT;
	while ((de = readdir(d))) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		XGROW(*names, alloc, *n + 1);
		(*names)[(*n)++] = xstrdup(de->d_name);
		if (g_recording) {
			unsigned char t = de->d_type;
			if (t == DT_UNKNOWN) {
				struct stat st;
				char ep[PATH_MAX];
				int len = snprintf(ep, sizeof(ep), "%s/%s", p, de->d_name);
				t = len < 0 || (size_t)len >= sizeof(ep) || lstat(ep, &st) < 0 ? DT_REG : S_ISDIR(st.st_mode) ? DT_DIR : S_ISLNK(st.st_mode) ? DT_LNK : DT_REG;
			}
			strbuf_adds(&listing, t == DT_DIR ? "d:" : t == DT_LNK ? "l:" : "f:");
			strbuf_add(&listing, de->d_name, strlen(de->d_name) + 1);
		}
	}
	closedir(d);
	if (*n)
		qsort(*names, *n, sizeof(char *), cmp_str);
	if (g_recording) {
		char canon[PATH_MAX];
		if (sr_realpath(path, canon, sizeof(canon)) < 0)
			str_copy(canon, path, sizeof(canon));
		rec_add(canon, SR_REC_DIR, listing.buf, listing.len, 0755);
	}
	strbuf_release(&listing);
	return (int)*n;
}

void sr_names_free(char **names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

int sr_glob(const char *pattern, char ***paths, size_t *n)
{
	*paths = NULL;
	*n = 0;
	char p[PATH_MAX];
	int r = sr_path(pattern, p, sizeof(p));
	if (r < 0)
		return r;
	glob_t g;
	r = glob(p, 0, NULL, &g);
	if (r == GLOB_NOMATCH)
		return 0;
	if (r != 0)
		return r == GLOB_NOSPACE ? -ENOMEM : -EIO;
	*paths = xcalloc(g.gl_pathc, sizeof(char *));
	for (size_t i = 0; i < g.gl_pathc; i++) {
		const char *s = g.gl_pathv[i] + g_rootlen;
		(*paths)[(*n)++] = xstrdup(*s ? s : "/");
	}
	globfree(&g);
	return (int)*n;
}

