/* watch: the job's output and NCCL's per-process log files fed to the log
 * parser as they grow; the log directory (a private one, or --log-dir
 * checked), the names in it that are followed, stale or refused; --user's
 * credentials (cmd/watch_state.h). */
#include "cmd/cmd.h"
#include "cmd/watch_state.h"
#include "report/report.h"
#include "util/text.h"
#include "util/xalloc.h"
#include "util/clock.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- incremental line feeding --------------------------------------- */

static void feed_line(struct watch *w, struct follow *f, char *line, size_t len)
{
	f->lineno++;
	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	nccllog_feed(&w->lg, f->file, line, len, f->lineno);
}

/* Splits data into lines; an unfinished line waits in f->partial (cut at
 * WATCH_LINE_MAX: the rest of an over-long line is dropped). */
void wfollow_bytes(struct watch *w, struct follow *f, const char *data, size_t n)
{
	f->bytes += n;
	while (n > 0) {
		const char *nl = memchr(data, '\n', n);
		size_t take = nl ? (size_t)(nl - data) : n;
		if (!f->overlong) {
			size_t room = WATCH_LINE_MAX - f->partial.len;
			size_t add = take < room ? take : room;
			strbuf_add(&f->partial, data, add);
			if (add < take) {
				f->overlong = true;
				f->cut++;
			}
		}
		if (!nl)
			return;
		char empty[1] = "";
		feed_line(w, f, f->partial.buf ? f->partial.buf : empty, f->partial.len);
		strbuf_reset(&f->partial);
		f->overlong = false;
		data = nl + 1;
		n -= take + 1;
	}
}


/* ---- the log directory's files -------------------------------------------- */

static size_t name_hash(const char *n)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *n; n++)
		h = (h ^ (unsigned char)*n) * 1099511628211ULL;
	return (size_t)h;
}

static struct name_ent *name_find(struct watch *w, const char *name)
{
	if (!w->snames)
		return NULL;
	size_t m = w->snames - 1;
	for (size_t i = name_hash(name) & m;; i = (i + 1) & m) {
		if (!w->names[i].name)
			return NULL;
		if (strcmp(w->names[i].name, name) == 0)
			return &w->names[i];
	}
}

/* A new name; NULL when WATCH_MAX_NAMES are remembered. */
static struct name_ent *name_add(struct watch *w, const char *name, enum name_kind kind, unsigned long ino)
{
	if (w->nnames >= WATCH_MAX_NAMES)
		return NULL;
	if ((w->nnames + 1) * 2 > w->snames) {
		size_t ns = w->snames ? w->snames * 2 : 64;
		struct name_ent *t = xcalloc(ns, sizeof(*t));
		for (size_t i = 0; i < w->snames; i++)
			if (w->names[i].name) {
				size_t k = name_hash(w->names[i].name) & (ns - 1);
				while (t[k].name)
					k = (k + 1) & (ns - 1);
				t[k] = w->names[i];
			}
		free(w->names);
		w->names = t;
		w->snames = ns;
	}
	size_t k = name_hash(name) & (w->snames - 1);
	while (w->names[k].name)
		k = (k + 1) & (w->snames - 1);
	w->names[k] = (struct name_ent){ .name = xstrdup(name), .ino = ino, .kind = kind, .idx = -1 };
	w->nnames++;
	return &w->names[k];
}

/* A directory stream of the log directory, from its start. */
static DIR *open_dir(struct watch *w)
{
	int fd = openat(w->dir.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d && fd >= 0)
		close(fd);
	return d;
}

/* At the start: what the directory holds already is stale (an earlier run's
 * files, or planted ones): remembered by name and inode, never read. */
static void note_stale(struct watch *w)
{
	clock_gettime(CLOCK_REALTIME, &w->t_start_real);
	DIR *d = open_dir(w);
	struct dirent *e;
	while (d && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		/* half the names at most: room for the job's own */
		if (w->nnames >= WATCH_MAX_NAMES / 2 || !name_add(w, e->d_name, NAME_STALE, (unsigned long)e->d_ino)) {
			w->names_full = true;
			continue;
		}
		w->nstale++;
	}
	if (d)
		closedir(d);
}

static bool job_file(const struct watch *w, const struct stat *st)
{
	return S_ISREG(st->st_mode) && st->st_uid == w->job_uid;
}

/* What a name not seen before (or a stale file replaced) is: -1 when it
 * is gone again. */
static int judge(struct watch *w, const char *name)
{
	struct stat st;
	if (fstatat(w->dir.fd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return -1;
	if (!job_file(w, &st))
		return NAME_REFUSED;
	/* a name not remembered at the start (too many) and unchanged since */
	if (w->names_full && (st.st_ctim.tv_sec < w->t_start_real.tv_sec ||
			      (st.st_ctim.tv_sec == w->t_start_real.tv_sec && st.st_ctim.tv_nsec < w->t_start_real.tv_nsec)))
		return NAME_STALE;
	return w->nfiles >= WATCH_MAX_FILES ? NAME_LEFT_OUT : NAME_FOLLOWED;
}

static void count_name(struct watch *w, int kind, int d)
{
	if (kind == NAME_STALE)
		w->nstale += d;
	else if (kind == NAME_REFUSED)
		w->nrefused += d;
	else if (kind == NAME_LEFT_OUT)
		w->nleft += d;
}

static struct follow *follow_add(struct watch *w, struct name_ent *ne)
{
	XGROW(w->files, w->afiles, w->nfiles + 1);
	struct follow *f = &w->files[w->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = xstrdup(ne->name);
	strbuf_init(&f->partial, WATCH_LINE_MAX + 1);
	f->file = nccllog_begin_file(&w->lg, ne->name);
	ne->kind = NAME_FOLLOWED;
	ne->idx = w->nfiles++;
	return f;
}

/* The follow of a directory entry; NULL when it is not read. */
static struct follow *entry_follow(struct watch *w, const struct dirent *e, int *over)
{
	unsigned long ino = (unsigned long)e->d_ino;
	struct name_ent *ne = name_find(w, e->d_name);
	if (ne && ne->kind == NAME_STALE && ne->ino != ino) {
		int k = judge(w, e->d_name); /* the stale file was replaced */
		if (k < 0)
			return NULL;
		count_name(w, NAME_STALE, -1);
		count_name(w, k, 1);
		ne->kind = (enum name_kind)k;
		ne->ino = ino;
		return k == NAME_FOLLOWED ? follow_add(w, ne) : NULL;
	}
	if (ne)
		return ne->kind == NAME_FOLLOWED ? &w->files[ne->idx] : NULL;
	int k = judge(w, e->d_name);
	if (k < 0)
		return NULL;
	ne = name_add(w, e->d_name, (enum name_kind)k, ino);
	if (!ne) {
		*over += k == NAME_FOLLOWED || k == NAME_LEFT_OUT;
		return NULL;
	}
	count_name(w, k, 1);
	return k == NAME_FOLLOWED ? follow_add(w, ne) : NULL;
}

/* Reads what the NCCL log files gained since the last look: regular files
 * of the job's user in the log directory, through its fd, never a link. */
void wlogdir_poll(struct watch *w)
{
	if (w->dir.fd < 0)
		return;
	DIR *d = open_dir(w);
	if (!d)
		return;
	int over = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		struct follow *f = entry_follow(w, e, &over);
		struct stat st;
		if (!f || fstatat(w->dir.fd, f->path, &st, AT_SYMLINK_NOFOLLOW) < 0 || !job_file(w, &st) ||
		    st.st_size <= f->off)
			continue;
		int fd = openat(w->dir.fd, f->path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
		if (fd < 0)
			continue;
		if (fstat(fd, &st) == 0 && job_file(w, &st) && st.st_size > f->off) {
			char buf[65536];
			ssize_t got;
			while ((got = pread(fd, buf, sizeof(buf), f->off)) > 0) {
				f->off += got;
				w->t_activity = nd_now_s();
				wfollow_bytes(w, f, buf, (size_t)got);
			}
		}
		close(fd);
	}
	closedir(d);
	w->nover = over;
}

/* The diagnosis says which files of the log directory it did not read. */
void wlogdir_notes(const struct watch *w, struct result *r)
{
	if (!w->nstale && !w->nrefused && !w->nleft && !w->nover)
		return;
	struct section *s = result_section(r, "inputs", "Inputs");
	if (w->nstale)
		section_note(s, "%d file%s that '%s' held before the job started %s not read (stale)", w->nstale,
			     w->nstale == 1 ? "" : "s", w->dir.path, w->nstale == 1 ? "was" : "were");
	if (w->nrefused)
		section_note(s, "%d entr%s of '%s' %s not read: not a regular file of the job's user (uid %u)", w->nrefused,
			     w->nrefused == 1 ? "y" : "ies", w->dir.path, w->nrefused == 1 ? "was" : "were",
			     (unsigned)w->job_uid);
	if (w->nleft + w->nover)
		section_note(s, "%d NCCL log file%s past the first %d of '%s' %s not read", w->nleft + w->nover,
			     w->nleft + w->nover == 1 ? "" : "s", WATCH_MAX_FILES, w->dir.path,
			     w->nleft + w->nover == 1 ? "was" : "were");
}

/* ---- set-up ------------------------------------------------------------- */

/* The log directory: --log-dir DIR (made when missing, else checked: the
 * invoking user's or the job's, not writable by group or others, nor the
 * directories above it by someone else), or a fresh private one in $TMPDIR.
 * Prints why it cannot be used; false then. */
bool wlogdir_make(struct watch *w, const char *log_dir, const struct passwd *user)
{
	struct privdir_trust t = { { geteuid(), user ? user->pw_uid : (uid_t)-1 } };
	char why[4400] = "";
	int made = 0, r;
	if (log_dir) {
		r = privdir_open(&w->dir, log_dir, &t, &made, why, sizeof(why));
		if (r == 0 && !made && user && w->dir.owner != user->pw_uid) {
			fprintf(stderr, "nccl-doctor watch: cannot use '%s' as the log directory: it belongs to uid %u and the "
				"job runs as %s (give it one of %s's, or leave --log-dir out)\n", log_dir, (unsigned)w->dir.owner,
				user->pw_name, user->pw_name);
			privdir_close(&w->dir);
			return false;
		}
	} else {
		const char *tmp = getenv("TMPDIR");
		if (!tmp || !*tmp)
			tmp = "/tmp";
		char tmpl[4200];
		if (snprintf(tmpl, sizeof(tmpl), "%s/nccl-doctor-watch.XXXXXX", tmp) >= (int)sizeof(tmpl))
			r = -ENAMETOOLONG;
		else
			r = privdir_make_temp(&w->dir, tmpl, &t, why, sizeof(why));
		made = r == 0;
		w->own_dir = r == 0;
	}
	if (r < 0) {
		fprintf(stderr, "nccl-doctor watch: cannot use %s%s%s as the log directory: %s\n", log_dir ? "'" : "a directory in $TMPDIR",
			log_dir ? log_dir : "", log_dir ? "'" : "", why[0] ? why : strerror(-r));
		return false;
	}
	/* made for a job of another user: its, still private */
	if (made && user && fchown(w->dir.fd, user->pw_uid, user->pw_gid) < 0) {
		report_say(stderr, "nccl-doctor watch: cannot give '%s' to %s: %s", w->dir.path, user->pw_name, strerror(errno));
		if (w->own_dir)
			privdir_remove(w->dir.fd, w->dir.path);
		privdir_close(&w->dir);
		return false;
	}
	if (!made)
		note_stale(w);
	return true;
}

void wlogdir_remove(struct watch *w)
{
	if (w->own_dir)
		privdir_remove(w->dir.fd, w->dir.path);
	privdir_close(&w->dir);
}

/* --user NAME (or a uid): the job runs as that user, with its groups and
 * its HOME, USER and LOGNAME. Returns -1 to go on, else the exit status
 * (said on stderr): 64 no such user, 3 not root. */
int watch_resolve_user(struct watch *w, const char *name)
{
	struct passwd *res = NULL;
	long long uid;
	getpwnam_r(name, &w->pw, w->pwbuf, sizeof(w->pwbuf), &res);
	if (!res && parse_ll(name, 10, &uid) == 0 && uid >= 0 && uid < (long long)(uid_t)-1)
		getpwuid_r((uid_t)uid, &w->pw, w->pwbuf, sizeof(w->pwbuf), &res);
	if (!res)
		return cmd_usage_error("watch", "--user: no user '%s' on this machine", name);
	if (w->pw.pw_uid == geteuid() && w->pw.pw_uid == getuid() && geteuid() != 0)
		return -1; /* already that user: nothing to change */
	if (geteuid() != 0) {
		report_say(stderr, "nccl-doctor watch: --user %s needs root: watch runs as uid %u", name, (unsigned)geteuid());
		return EXIT_CANNOT_RUN;
	}
	int ng = 64;
	for (int tries = 0; tries < 8; tries++) {
		free(w->groups);
		w->groups = xcalloc((size_t)ng, sizeof(gid_t));
		int want = ng;
		if (getgrouplist(w->pw.pw_name, w->pw.pw_gid, w->groups, &want) >= 0) {
			ng = want;
			break;
		}
		if (want <= ng || want > 65536) {
			report_say(stderr, "nccl-doctor watch: --user %s: cannot read the user's groups", name);
			return EXIT_CANNOT_RUN;
		}
		ng = want;
	}
	w->user = (struct sup_user){ .uid = w->pw.pw_uid, .gid = w->pw.pw_gid, .groups = w->groups, .ngroups = ng };
	snprintf(w->user_env[0], sizeof(w->user_env[0]), "HOME=%s", w->pw.pw_dir ? w->pw.pw_dir : "/");
	snprintf(w->user_env[1], sizeof(w->user_env[1]), "USER=%s", w->pw.pw_name);
	snprintf(w->user_env[2], sizeof(w->user_env[2]), "LOGNAME=%s", w->pw.pw_name);
	w->user_set = true;
	return -1;
}
