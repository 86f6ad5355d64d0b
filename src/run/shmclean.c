/* The /dev/shm segments of killed worker groups: see shmclean.h. Every
 * function here is async-signal-safe: static storage, no stdio, no malloc,
 * /proc read with getdents64 and read(2). */
#include "run/shmclean.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SHM_DIR "/dev/shm"
#define MAPS_MAX (16u << 20) /* bytes of one process's maps looked at */
#define PROCS_MAX 100000     /* /proc entries looked at */

struct shm_rec {
	dev_t dev;
	ino_t ino;
	char name[NAME_MAX + 1];
};

static struct shm_rec g_rec[SHMCLEAN_MAX];
static size_t g_nrec;

static bool our_name(const char *n)
{
	return strncmp(n, "nccl-", 5) == 0 || strncmp(n, "fakenccl-", 9) == 0;
}

static long ms_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* fork(2) that may be called from a signal handler */
static pid_t safe_fork(void)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
	return _Fork();
#else
	return (pid_t)syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0);
#endif
}

static bool write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return false;
		p += k;
		n -= (size_t)k;
	}
	return true;
}

/* Decimal text to a number; false when it is not all digits. */
static bool parse_num(const char *s, size_t n, unsigned long long *out)
{
	unsigned long long v = 0;
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (ULLONG_MAX - 9) / 10)
			return false;
		v = v * 10 + (unsigned long long)(s[i] - '0');
	}
	*out = v;
	return true;
}

static bool parse_hex(const char *s, size_t n, unsigned long long *out)
{
	unsigned long long v = 0;
	if (!n || n > 16)
		return false;
	for (size_t i = 0; i < n; i++) {
		int d = s[i] >= '0' && s[i] <= '9' ? s[i] - '0'
			: s[i] >= 'a' && s[i] <= 'f' ? s[i] - 'a' + 10
			: s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 10 : -1;
		if (d < 0)
			return false;
		v = v * 16 + (unsigned long long)d;
	}
	*out = v;
	return true;
}

/* The name after "/dev/shm/" in a path, when it is a segment of ours that
 * still has that name (not " (deleted)"); NULL otherwise. */
static const char *seg_name(const char *path, size_t len, char *buf)
{
	static const char pre[] = SHM_DIR "/";
	if (len <= sizeof(pre) - 1 || memcmp(path, pre, sizeof(pre) - 1) != 0)
		return NULL;
	path += sizeof(pre) - 1;
	len -= sizeof(pre) - 1;
	static const char del[] = " (deleted)";
	if (len >= sizeof(del) - 1 && memcmp(path + len - (sizeof(del) - 1), del, sizeof(del) - 1) == 0)
		return NULL;
	if (len > NAME_MAX || memchr(path, '/', len))
		return NULL;
	memcpy(buf, path, len);
	buf[len] = '\0';
	return our_name(buf) ? buf : NULL;
}

/* Sends a record when /dev/shm/name is (still) the file dev:ino. */
static void send_rec(int out, int shmfd, const char *name, dev_t dev, ino_t ino)
{
	struct stat st;
	if (fstatat(shmfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode) || st.st_ino != ino ||
	    st.st_dev != dev)
		return;
	struct shm_rec r;
	memset(&r, 0, sizeof(r));
	r.dev = dev;
	r.ino = ino;
	memcpy(r.name, name, strlen(name) + 1);
	write_all(out, &r, sizeof(r));
}

/* getdents64 over a directory fd: calls fn for each name */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void scan_fds(int out, int shmfd, const char *pid)
{
	char path[64], link[PATH_MAX + 32], nb[NAME_MAX + 1];
	size_t pl = strlen(pid);
	if (pl > 20)
		return;
	memcpy(path, "/proc/", 6);
	memcpy(path + 6, pid, pl);
	memcpy(path + 6 + pl, "/fd", 4);
	int d = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (d < 0)
		return;
	char buf[4096];
	for (;;) {
		long n = syscall(SYS_getdents64, d, buf, sizeof(buf));
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct linux_dirent64 *e = (struct linux_dirent64 *)(buf + off);
			off += e->d_reclen;
			if (e->d_name[0] == '.')
				continue;
			ssize_t k = readlinkat(d, e->d_name, link, sizeof(link) - 1);
			if (k <= 0)
				continue;
			const char *name = seg_name(link, (size_t)k, nb);
			struct stat st;
			if (name && fstatat(d, e->d_name, &st, 0) == 0)
				send_rec(out, shmfd, name, st.st_dev, st.st_ino);
		}
	}
	close(d);
}

/* One line of /proc/PID/maps: "start-end perms offset MAJ:MIN inode path" */
static void maps_line(int out, int shmfd, const char *l, size_t len)
{
	const char *f[6];
	size_t fl[6];
	size_t i = 0, nf = 0;
	while (nf < 5) {
		while (i < len && l[i] == ' ')
			i++;
		if (i >= len)
			return;
		f[nf] = l + i;
		while (i < len && l[i] != ' ')
			i++;
		fl[nf] = (size_t)(l + i - f[nf]);
		nf++;
	}
	while (i < len && l[i] == ' ')
		i++;
	char nb[NAME_MAX + 1];
	const char *name = seg_name(l + i, len - i, nb);
	if (!name)
		return;
	const char *colon = memchr(f[3], ':', fl[3]);
	unsigned long long maj, min, ino;
	if (!colon || !parse_hex(f[3], (size_t)(colon - f[3]), &maj) ||
	    !parse_hex(colon + 1, fl[3] - (size_t)(colon - f[3]) - 1, &min) || !parse_num(f[4], fl[4], &ino))
		return;
	send_rec(out, shmfd, name, makedev((unsigned)maj, (unsigned)min), (ino_t)ino);
}

static void scan_maps(int out, int shmfd, const char *pid)
{
	char path[64];
	size_t pl = strlen(pid);
	if (pl > 20)
		return;
	memcpy(path, "/proc/", 6);
	memcpy(path + 6, pid, pl);
	memcpy(path + 6 + pl, "/maps", 6);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	static char buf[16384];
	size_t have = 0, total = 0;
	bool skipping = false; /* inside a line too long for buf */
	for (;;) {
		ssize_t k = read(fd, buf + have, sizeof(buf) - have);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		have += (size_t)k;
		total += (size_t)k;
		size_t start = 0;
		for (size_t j = 0; j < have; j++) {
			if (buf[j] != '\n')
				continue;
			if (!skipping)
				maps_line(out, shmfd, buf + start, j - start);
			skipping = false;
			start = j + 1;
		}
		memmove(buf, buf + start, have - start);
		have -= start;
		if (have == sizeof(buf)) {
			have = 0;
			skipping = true;
		}
		if (total >= MAPS_MAX)
			break;
	}
	close(fd);
}

/* The process group of /proc/PID/stat: the field after "PID (comm) S PPID". */
static bool pgrp_of(const char *pid, pid_t *pg)
{
	char path[64], buf[1024];
	size_t pl = strlen(pid);
	if (pl > 20)
		return false;
	memcpy(path, "/proc/", 6);
	memcpy(path + 6, pid, pl);
	memcpy(path + 6 + pl, "/stat", 6);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	char *rp = NULL;
	for (char *p = buf; *p; p++)
		if (*p == ')')
			rp = p;
	if (!rp)
		return false;
	/* ") S PPID PGRP" */
	const char *p = rp + 1;
	for (int field = 0; field < 3; field++) {
		while (*p == ' ')
			p++;
		if (field == 2)
			break;
		while (*p && *p != ' ')
			p++;
	}
	size_t len = 0;
	while (p[len] >= '0' && p[len] <= '9')
		len++;
	unsigned long long v;
	if (!parse_num(p, len, &v) || v > INT_MAX)
		return false;
	*pg = (pid_t)v;
	return true;
}

/* In the child: every process of the groups, its fds and maps. */
static void scan(const pid_t *pgids, size_t n, int out)
{
	int shmfd = open(SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int proc = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (shmfd < 0 || proc < 0)
		return;
	char buf[8192];
	size_t seen = 0;
	while (seen < PROCS_MAX) {
		long k = syscall(SYS_getdents64, proc, buf, sizeof(buf));
		if (k <= 0)
			break;
		for (long off = 0; off < k && seen < PROCS_MAX; seen++) {
			struct linux_dirent64 *e = (struct linux_dirent64 *)(buf + off);
			off += e->d_reclen;
			if (e->d_name[0] < '1' || e->d_name[0] > '9')
				continue;
			pid_t pg;
			if (!pgrp_of(e->d_name, &pg))
				continue;
			bool member = false;
			for (size_t i = 0; i < n && !member; i++)
				member = pgids[i] > 0 && pg == pgids[i];
			if (!member)
				continue;
			scan_fds(out, shmfd, e->d_name);
			scan_maps(out, shmfd, e->d_name);
		}
	}
	close(proc);
	close(shmfd);
}

static void add_rec(const struct shm_rec *r)
{
	if (!our_name(r->name) || !memchr(r->name, '\0', sizeof(r->name)))
		return;
	for (size_t i = 0; i < g_nrec; i++)
		if (g_rec[i].dev == r->dev && g_rec[i].ino == r->ino)
			return;
	if (g_nrec < SHMCLEAN_MAX)
		g_rec[g_nrec++] = *r;
}

void shmclean_note_groups(const pid_t *pgids, size_t n)
{
	if (!n)
		return;
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0)
		return;
	pid_t c = safe_fork();
	if (c < 0) {
		close(p[0]);
		close(p[1]);
		return;
	}
	if (c == 0) {
		close(p[0]);
		scan(pgids, n, p[1]);
		_exit(0);
	}
	close(p[1]);
	long end = ms_now() + SHMCLEAN_SCAN_MS;
	struct shm_rec r;
	size_t got = 0;
	bool done = false;
	while (!done) {
		long left = end - ms_now();
		if (left <= 0)
			break;
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		int pr = poll(&pf, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0)
			break;
		ssize_t k = read(p[0], (char *)&r + got, sizeof(r) - got);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			done = true;
			break;
		}
		got += (size_t)k;
		if (got == sizeof(r)) {
			add_rec(&r);
			got = 0;
		}
	}
	close(p[0]);
	if (!done)
		kill(c, SIGKILL); /* stuck on a map lock: a killable wait */
	for (long t = ms_now() + 200; ms_now() < t;) {
		pid_t w = waitpid(c, NULL, WNOHANG);
		if (w == c || (w < 0 && errno != EINTR))
			break;
		struct timespec ts = { 0, 5 * 1000000L };
		nanosleep(&ts, NULL);
	}
}

size_t shmclean_sweep(void)
{
	if (!g_nrec)
		return 0;
	int dir = open(SHM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0)
		return 0;
	size_t removed = 0, keep = 0;
	for (size_t i = 0; i < g_nrec; i++) {
		const struct shm_rec *r = &g_rec[i];
		bool still = false;
		int fd = openat(dir, r->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		struct stat st;
		if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == r->dev && st.st_ino == r->ino &&
		    st.st_uid == geteuid()) {
			/* a lease breaker is told by a signal: one that is ignored
			 * by default, not SIGIO (which would end the tool) */
			fcntl(fd, F_SETSIG, SIGURG);
			if (fcntl(fd, F_SETLEASE, F_WRLCK) == 0) {
				struct stat now;
				if (fstatat(dir, r->name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_ino == r->ino &&
				    now.st_dev == r->dev && unlinkat(dir, r->name, 0) == 0)
					removed++;
				fcntl(fd, F_SETLEASE, F_UNLCK);
			} else if (errno == EAGAIN || errno == EBUSY) {
				still = true; /* open or mapped somewhere: later */
			}
		}
		if (fd >= 0)
			close(fd);
		if (still)
			g_rec[keep++] = *r;
	}
	g_nrec = keep;
	close(dir);
	return removed;
}

size_t shmclean_pending(void)
{
	return g_nrec;
}
