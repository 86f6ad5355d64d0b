/* Safe writes of files the user named (util/outfile.h). */
#include "util/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Splits path into its directory (heap; "." when there is none) and its
 * last component (heap). -EISDIR when the path names a directory. */
static int split_path(const char *path, char **dir, char **base)
{
	size_t n = strlen(path);
	if (n == 0)
		return -ENOENT;
	if (path[n - 1] == '/' || strcmp(path, ".") == 0 || strcmp(path, "..") == 0)
		return -EISDIR;
	const char *slash = strrchr(path, '/');
	const char *b = slash ? slash + 1 : path;
	if (strcmp(b, ".") == 0 || strcmp(b, "..") == 0)
		return -EISDIR;
	*base = strdup(b);
	if (!slash)
		*dir = strdup(".");
	else if (slash == path)
		*dir = strdup("/");
	else
		*dir = strndup(path, (size_t)(slash - path));
	if (!*base || !*dir) {
		free(*base);
		free(*dir);
		*base = *dir = NULL;
		return -ENOMEM;
	}
	return 0;
}

/* The target's entry in dirfd: absent, or a regular file of ours. */
static int check_target(int dirfd, const char *base, const char *path, char *err, size_t errsz)
{
	struct stat st;
	if (fstatat(dirfd, base, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		if (errno == ENOENT)
			return 0;
		int e = errno;
		snprintf(err, errsz, "cannot write '%s': %s", path, strerror(e));
		return -e;
	}
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errsz, "cannot write '%s': it is a symbolic link (not followed: remove it or name the file itself)",
			 path);
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errsz, "cannot write '%s': not a regular file (%s)", path,
			 S_ISDIR(st.st_mode) ? "a directory" : S_ISFIFO(st.st_mode) ? "a FIFO"
			 : S_ISSOCK(st.st_mode) ? "a socket" : "a device");
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	if (st.st_uid != geteuid()) {
		snprintf(err, errsz, "cannot write '%s': it belongs to uid %u, not to you (uid %u): not replaced", path,
			 (unsigned)st.st_uid, (unsigned)geteuid());
		return -EPERM;
	}
	return 0;
}

static int open_dir(const char *path, char **base, char *err, size_t errsz)
{
	char *dir = NULL;
	*base = NULL;
	int r = split_path(path, &dir, base);
	if (r < 0) {
		snprintf(err, errsz, "cannot write '%s': %s", path,
			 r == -EISDIR ? "it names a directory, not a file" : strerror(-r));
		return r;
	}
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errsz, "cannot write '%s': its directory '%s': %s", path, dir, strerror(e));
		free(dir);
		free(*base);
		*base = NULL;
		return -e;
	}
	free(dir);
	return fd;
}

int outfile_check(const char *path, char *err, size_t errsz)
{
	char *base;
	int dirfd = open_dir(path, &base, err, errsz);
	if (dirfd < 0)
		return dirfd;
	int r = check_target(dirfd, base, path, err, errsz);
	if (r == 0 && faccessat(dirfd, ".", W_OK, AT_EACCESS) < 0) {
		r = -errno;
		snprintf(err, errsz, "cannot write '%s': its directory: %s", path, strerror(-r));
	}
	free(base);
	close(dirfd);
	return r;
}

static void outfile_clear(struct outfile *of)
{
	if (of->fd >= 0)
		close(of->fd);
	if (of->dirfd >= 0)
		close(of->dirfd);
	free(of->path);
	free(of->base);
	of->fd = of->dirfd = -1;
	of->path = of->base = NULL;
	of->tmp[0] = '\0';
}

int outfile_open(struct outfile *of, const char *path, mode_t mode, char *err, size_t errsz)
{
	return outfile_open_flags(of, path, mode, 0, err, errsz);
}

int outfile_open_flags(struct outfile *of, const char *path, mode_t mode, unsigned flags, char *err, size_t errsz)
{
	memset(of, 0, sizeof(*of));
	of->fd = of->dirfd = -1;
	of->mode = mode;
	of->dirfd = open_dir(path, &of->base, err, errsz);
	if (of->dirfd < 0) {
		int r = of->dirfd;
		of->dirfd = -1;
		return r;
	}
	of->path = strdup(path);
	int r = of->path ? check_target(of->dirfd, of->base, path, err, errsz) : -ENOMEM;
	if (r < 0) {
		if (r == -ENOMEM)
			snprintf(err, errsz, "cannot write '%s': out of memory", path);
		outfile_clear(of);
		return r;
	}
	/* a name nobody can guess in time matters less than O_EXCL, which
	 * makes any planted name fail instead of being used */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	unsigned long long seed = (unsigned long long)ts.tv_nsec ^ ((unsigned long long)ts.tv_sec << 20) ^
				  ((unsigned long long)getpid() << 40);
	for (int i = 0; i < 100; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		if (!(flags & OUTFILE_TMP_PID))
			snprintf(of->tmp, sizeof(of->tmp), ".%.200s.%06llx", of->base, (seed >> 33) & 0xffffff);
		else if (i == 0)
			snprintf(of->tmp, sizeof(of->tmp), "%.200s.tmp.%ld", of->base, (long)getpid());
		else
			snprintf(of->tmp, sizeof(of->tmp), "%.200s.tmp.%ld.%06llx", of->base, (long)getpid(),
				 (seed >> 33) & 0xffffff);
		of->fd = openat(of->dirfd, of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (of->fd >= 0 || errno != EEXIST)
			break;
	}
	if (of->fd < 0) {
		r = -errno;
		snprintf(err, errsz, "cannot write '%s': cannot create a temporary file beside it: %s", path, strerror(-r));
		of->tmp[0] = '\0';
		outfile_clear(of);
		return r;
	}
	return 0;
}

int outfile_write(struct outfile *of, const void *data, size_t len)
{
	if (of->fd < 0)
		return -EBADF;
	if (of->failed)
		return of->err;
	const char *p = data;
	while (len > 0) {
		ssize_t w = write(of->fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			of->failed = true;
			of->err = w < 0 ? -errno : -EIO;
			return of->err;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

void outfile_abort(struct outfile *of)
{
	if (of->dirfd >= 0 && of->tmp[0])
		unlinkat(of->dirfd, of->tmp, 0);
	outfile_clear(of);
}

int outfile_commit(struct outfile *of, char *err, size_t errsz)
{
	if (of->fd < 0 || of->dirfd < 0) {
		snprintf(err, errsz, "cannot write: the file was not opened");
		return -EBADF;
	}
	int r = 0;
	mode_t um = umask(0);
	umask(um);
	if (of->failed)
		r = of->err;
	else if (fsync(of->fd) < 0 && errno != EINVAL && errno != EROFS)
		r = -errno;
	else if (fchmod(of->fd, of->mode & ~um) < 0)
		r = -errno;
	else if (close(of->fd) < 0)
		r = -errno;
	of->fd = -1;
	if (r < 0) {
		snprintf(err, errsz, "cannot write '%s': %s (the previous file, if any, is unchanged)", of->path,
			 strerror(-r));
		outfile_abort(of);
		return r;
	}
	r = check_target(of->dirfd, of->base, of->path, err, errsz);
	if (r == 0 && renameat(of->dirfd, of->tmp, of->dirfd, of->base) < 0) {
		r = -errno;
		snprintf(err, errsz, "cannot write '%s': %s", of->path, strerror(-r));
	}
	if (r < 0) {
		outfile_abort(of);
		return r;
	}
	of->tmp[0] = '\0';
	outfile_clear(of);
	return 0;
}

int outfile_write_all(const char *path, mode_t mode, const void *data, size_t len, char *err, size_t errsz)
{
	return outfile_write_all_flags(path, mode, 0, data, len, err, errsz);
}

int outfile_write_all_flags(const char *path, mode_t mode, unsigned flags, const void *data, size_t len, char *err,
			    size_t errsz)
{
	struct outfile of;
	int r = outfile_open_flags(&of, path, mode, flags, err, errsz);
	if (r < 0)
		return r;
	r = outfile_write(&of, data, len);
	if (r < 0) {
		snprintf(err, errsz, "cannot write '%s': %s (the previous file, if any, is unchanged)", path, strerror(-r));
		outfile_abort(&of);
		return r;
	}
	return outfile_commit(&of, err, errsz);
}
