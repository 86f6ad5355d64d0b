/* Private directories for files a job writes (util/privdir.h). */
#include "util/privdir.h"
#include "util/text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void privdir_init(struct privdir *d)
{
	memset(d, 0, sizeof(*d));
	d->fd = -1;
}

void privdir_close(struct privdir *d)
{
	if (d->fd >= 0)
		close(d->fd);
	d->fd = -1;
}

static bool trusted(const struct privdir_trust *t, uid_t uid)
{
	return uid == t->uid[0] || uid == t->uid[1];
}

static const char *user_name(uid_t uid, char *buf, size_t n)
{
	struct passwd *pw = getpwuid(uid);
	if (pw && pw->pw_name)
		snprintf(buf, n, "%s", pw->pw_name);
	else
		snprintf(buf, n, "uid %u", (unsigned)uid);
	return buf;
}

/* Each directory from / down to dir (absolute, without links: realpath's
 * output) belongs to root or a trusted user and is writable by others only
 * when sticky: nobody else can rename what is in it. */
static int check_chain(const char *dir, const struct privdir_trust *t, char *why, size_t whysz)
{
	char p[PATH_MAX];
	size_t len = strlen(dir);
	if (len == 0 || len >= sizeof(p) || dir[0] != '/')
		return -EINVAL;
	memcpy(p, dir, len + 1);
	for (size_t i = 1; i <= len; i++) {
		if (i < len && p[i] != '/')
			continue;
		char keep = p[i];
		p[i] = '\0';
		struct stat st;
		int r = lstat(i == 0 ? "/" : p, &st);
		if (r < 0) {
			r = -errno;
			snprintf(why, whysz, "cannot check '%s': %s", p, strerror(-r));
			return r;
		}
		char who[64];
		if (st.st_uid != 0 && !trusted(t, st.st_uid)) {
			snprintf(why, whysz, "'%s' belongs to %s, who could replace what is in it", p,
				 user_name(st.st_uid, who, sizeof(who)));
			return -EPERM;
		}
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX)) {
			snprintf(why, whysz, "'%s' is writable by group or others (mode %04o) and not sticky: they could "
				 "replace what is in it", p, (unsigned)(st.st_mode & 07777));
			return -EPERM;
		}
		p[i] = keep;
	}
	/* the root itself */
	struct stat st;
	if (lstat("/", &st) == 0 && st.st_uid != 0 && !trusted(t, st.st_uid)) {
		snprintf(why, whysz, "'/' does not belong to root");
		return -EPERM;
	}
	return 0;
}

/* fd opened on path (no link followed) and path still the same inode. */
static int open_checked(struct privdir *d, const char *path, char *why, size_t whysz)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		int r = -errno;
		snprintf(why, whysz, "cannot open '%s': %s", path, r == -ELOOP ? "a symbolic link" : strerror(-r));
		return r;
	}
	struct stat a, b;
	if (fstat(fd, &a) < 0 || lstat(path, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino ||
	    !S_ISDIR(a.st_mode)) {
		close(fd);
		snprintf(why, whysz, "'%s' changed while it was opened", path);
		return -EAGAIN;
	}
	d->fd = fd;
	d->dev = a.st_dev;
	d->ino = a.st_ino;
	d->owner = a.st_uid;
	str_copy(d->path, path, sizeof(d->path));
	return 0;
}

/* A directory made just now: ours and private, else someone raced us. */
static int check_made(struct privdir *d, const char *path, char *why, size_t whysz)
{
	int r = open_checked(d, path, why, whysz);
	if (r < 0)
		return r;
	struct stat st;
	if (fstat(d->fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		snprintf(why, whysz, "'%s' is not the private directory just made", path);
		privdir_close(d);
		return -EPERM;
	}
	return 0;
}

int privdir_make_temp(struct privdir *d, const char *tmpl, const struct privdir_trust *t, char *why, size_t whysz)
{
	privdir_init(d);
	why[0] = '\0';
	const char *slash = strrchr(tmpl, '/');
	if (!slash || strlen(tmpl) >= PATH_MAX)
		return -EINVAL;
	char parent[PATH_MAX], real[PATH_MAX], name[PATH_MAX];
	size_t pl = (size_t)(slash - tmpl);
	memcpy(parent, tmpl, pl);
	parent[pl] = '\0';
	if (!realpath(pl ? parent : "/", real)) {
		int r = -errno;
		snprintf(why, whysz, "cannot use '%s': %s", pl ? parent : "/", strerror(-r));
		return r;
	}
	int r = check_chain(real, t, why, whysz);
	if (r < 0)
		return r;
	if (snprintf(name, sizeof(name), "%s%s", strcmp(real, "/") ? real : "", slash) >= (int)sizeof(name))
		return -ENAMETOOLONG;
	if (!mkdtemp(name)) {
		r = -errno;
		snprintf(why, whysz, "cannot make a directory in '%s': %s", real, strerror(-r));
		return r;
	}
	r = check_made(d, name, why, whysz);
	if (r < 0)
		rmdir(name);
	return r;
}

int privdir_open(struct privdir *d, const char *path, const struct privdir_trust *t, int *made, char *why,
		 size_t whysz)
{
	privdir_init(d);
	why[0] = '\0';
	*made = 0;
	char given[PATH_MAX];
	if (!path[0] || str_copy(given, path, sizeof(given)) >= sizeof(given))
		return -ENAMETOOLONG;
	size_t gl = strlen(given);
	while (gl > 1 && given[gl - 1] == '/') /* "dir/" would make lstat follow a link */
		given[--gl] = '\0';
	char real[PATH_MAX], who[64];
	struct stat st;
	for (int attempt = 0; attempt < 2; attempt++) {
		if (lstat(given, &st) == 0) {
			if (S_ISLNK(st.st_mode)) {
				snprintf(why, whysz, "'%s' is a symbolic link, not a directory", given);
				return -ELOOP;
			}
			if (!S_ISDIR(st.st_mode)) {
				snprintf(why, whysz, "'%s' is not a directory", given);
				return -ENOTDIR;
			}
			if (!trusted(t, st.st_uid)) {
				snprintf(why, whysz, "'%s' belongs to %s, not to you", given, user_name(st.st_uid, who, sizeof(who)));
				return -EPERM;
			}
			if (st.st_mode & (S_IWGRP | S_IWOTH)) {
				snprintf(why, whysz, "'%s' is writable by group or others (mode %04o)", given,
					 (unsigned)(st.st_mode & 07777));
				return -EPERM;
			}
			if (!realpath(given, real)) {
				int r = -errno;
				snprintf(why, whysz, "cannot resolve '%s': %s", given, strerror(-r));
				return r;
			}
			char parent[PATH_MAX];
			str_copy(parent, real, sizeof(parent));
			char *s = strrchr(parent, '/');
			if (s)
				s[s == parent ? 1 : 0] = '\0';
			int r = check_chain(parent, t, why, whysz);
			if (r < 0)
				return r;
			r = open_checked(d, real, why, whysz);
			if (r < 0)
				return r;
			if (d->dev != st.st_dev || d->ino != st.st_ino) {
				privdir_close(d);
				snprintf(why, whysz, "'%s' changed while it was checked", given);
				return -EAGAIN;
			}
			return 0;
		}
		if (errno != ENOENT) {
			int r = -errno;
			snprintf(why, whysz, "cannot use '%s': %s", given, strerror(-r));
			return r;
		}
		/* make it: its parent checked first, the name made under the resolved parent */
		char parent[PATH_MAX];
		const char *base = strrchr(given, '/');
		if (base) {
			size_t pl = (size_t)(base - given);
			memcpy(parent, given, pl);
			parent[pl] = '\0';
			if (pl == 0)
				str_copy(parent, "/", sizeof(parent));
			base++;
		} else {
			str_copy(parent, ".", sizeof(parent));
			base = given;
		}
		if (!strcmp(base, ".") || !strcmp(base, "..")) {
			snprintf(why, whysz, "cannot use '%s'", given);
			return -EINVAL;
		}
		char rparent[PATH_MAX];
		if (!realpath(parent, rparent)) {
			int r = -errno;
			snprintf(why, whysz, "cannot make '%s': '%s': %s", given, parent, strerror(-r));
			return r;
		}
		int r = check_chain(rparent, t, why, whysz);
		if (r < 0)
			return r;
		if (snprintf(real, sizeof(real), "%s/%s", strcmp(rparent, "/") ? rparent : "", base) >= (int)sizeof(real))
			return -ENAMETOOLONG;
		if (mkdir(real, 0700) < 0) {
			r = -errno;
			if (r == -EEXIST)
				continue; /* made by someone else meanwhile: checked as existing */
			snprintf(why, whysz, "cannot make '%s': %s", given, strerror(-r));
			return r;
		}
		r = check_made(d, real, why, whysz);
		if (r < 0)
			return r;
		*made = 1;
		return 0;
	}
	snprintf(why, whysz, "'%s' keeps changing", given);
	return -EAGAIN;
}

/* Empties the directory fd: its entries that are not directories, and
 * (depth > 0) the directories below, emptied the same way first. */
static void empty_dir(int fd, int depth)
{
	/* a few passes: removing entries while reading may skip some */
	for (int pass = 0; pass < 3; pass++) {
		int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd < 0)
			return;
		DIR *d = fdopendir(dfd);
		if (!d) {
			close(dfd);
			return;
		}
		int removed = 0, left = 0;
		struct dirent *e;
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			if (unlinkat(fd, e->d_name, 0) == 0) {
				removed++;
				continue;
			}
			int sub = depth > 0 && (errno == EISDIR || errno == EPERM) ?
				  openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
			if (sub >= 0) {
				empty_dir(sub, depth - 1);
				close(sub);
			}
			if (sub >= 0 && unlinkat(fd, e->d_name, AT_REMOVEDIR) == 0)
				removed++;
			else
				left++;
		}
		closedir(d);
		if (!left || !removed)
			break;
	}
}

static int remove_emptied(int fd, const char *path, int depth)
{
	if (fd < 0)
		return -EBADF;
	empty_dir(fd, depth);
	struct stat a, b;
	if (fstat(fd, &a) < 0 || lstat(path, &b) < 0 || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		return -ESTALE; /* the path names something else now: left alone */
	return rmdir(path) < 0 ? -errno : 0;
}

int privdir_remove(int fd, const char *path)
{
	return remove_emptied(fd, path, 0);
}

int privdir_remove_tree(int fd, const char *path)
{
	return remove_emptied(fd, path, PRIVDIR_TREE_DEPTH);
}
