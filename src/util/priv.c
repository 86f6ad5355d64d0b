/* What a privileged run trusts: see priv.h for the rules. */
#include "util/priv.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool priv_is_elevated(void)
{
	return geteuid() == 0 || geteuid() != getuid() || getegid() != getgid();
}

/* The canonical form of path in out; *exist_len: how much of out exists
 * (all of it, or the canonical deepest existing ancestor, after which out
 * goes on with the rest of path as given). */
static int resolve(const char *path, char *out, size_t outsz, size_t *exist_len)
{
	char buf[PATH_MAX];
	if (!*path)
		return -ENOENT;
	if (strlen(path) >= PATH_MAX)
		return -ENAMETOOLONG;
	if (realpath(path, buf)) {
		*exist_len = strlen(buf);
		return xsnprintf(out, outsz, "%s", buf) < 0 ? -ENAMETOOLONG : 0;
	}
	if (errno != ENOENT && errno != ENOTDIR)
		return -errno;
	size_t cut = strlen(path);
	for (;;) {
		while (cut > 0 && path[cut - 1] == '/')
			cut--;
		while (cut > 0 && path[cut - 1] != '/')
			cut--;
		char pre[PATH_MAX];
		if (cut == 0) {
			str_copy(pre, ".", sizeof(pre));
		} else {
			memcpy(pre, path, cut);
			pre[cut] = '\0';
		}
		if (realpath(pre, buf)) {
			*exist_len = strlen(buf);
			const char *rest = path + cut;
			int n = strcmp(buf, "/") == 0 ? xsnprintf(out, outsz, "/%s", rest)
						     : xsnprintf(out, outsz, "%s/%s", buf, rest);
			return n < 0 ? -ENAMETOOLONG : 0;
		}
		if (errno != ENOENT && errno != ENOTDIR)
			return -errno;
		if (cut <= 1)
			return -ENOENT; /* "/" or "." itself is gone: cannot happen */
	}
}

int priv_path_trusted(const char *path, char *resolved, size_t rsz, char *why, size_t whysz)
{
	char real[PATH_MAX], dummy[8];
	size_t exist_len = 0;
	if (!why) {
		why = dummy;
		whysz = sizeof(dummy);
	}
	why[0] = '\0';
	int r = resolve(path, real, sizeof(real), &exist_len);
	if (r < 0) {
		str_setf(why, whysz, "cannot check '%s': %s", path, strerror(-r));
		return r;
	}
	bool shared_parent = false; /* the directory above is sticky and others may write it */
	char cur[PATH_MAX], parent[PATH_MAX] = "";
	size_t e = 1;
	for (;;) {
		memcpy(cur, real, e);
		cur[e] = '\0';
		struct stat st;
		if (lstat(cur, &st) < 0) {
			int err = errno;
			str_setf(why, whysz, "cannot check '%s': %s", cur, strerror(err));
			return -err;
		}
		bool last = e >= exist_len;
		if (S_ISLNK(st.st_mode)) {
			str_setf(why, whysz, "'%s' changed while it was checked", cur);
			return -EPERM;
		}
		if (st.st_uid != 0) {
			str_setf(why, whysz, "'%s' belongs to uid %u, not root", cur, (unsigned)st.st_uid);
			return -EPERM;
		}
		if (shared_parent && !S_ISDIR(st.st_mode)) {
			str_setf(why, whysz, "'%s' is a file in '%s', a directory others can write", cur, parent);
			return -EPERM;
		}
		shared_parent = false;
		if (st.st_mode & (S_IWGRP | S_IWOTH)) {
			if (last || !S_ISDIR(st.st_mode) || !(st.st_mode & S_ISVTX)) {
				str_setf(why, whysz, "'%s' is writable by %s (mode %04o)", cur,
					 (st.st_mode & S_IWOTH) ? "others" : "its group", (unsigned)(st.st_mode & 07777));
				return -EPERM;
			}
			shared_parent = true;
			str_copy(parent, cur, sizeof(parent));
		}
		if (last)
			break;
		if (!S_ISDIR(st.st_mode)) {
			str_setf(why, whysz, "cannot check '%s': %s", cur, strerror(ENOTDIR));
			return -ENOTDIR;
		}
		const char *next = strchr(real + e + (e == 1 ? 0 : 1), '/');
		size_t ne = next ? (size_t)(next - real) : strlen(real);
		e = ne < exist_len ? ne : exist_len;
	}
	if (resolved && str_copy(resolved, real, rsz) >= rsz) {
		str_setf(why, whysz, "cannot check '%s': %s", path, strerror(ENAMETOOLONG));
		return -ENAMETOOLONG;
	}
	return 0;
}

const char *const PRIV_HELPER_DIRS[] = { "/usr/local/bin", "/usr/bin", "/bin" };
const size_t PRIV_HELPER_NDIRS = sizeof(PRIV_HELPER_DIRS) / sizeof(PRIV_HELPER_DIRS[0]);

int priv_helper_find_in(const char *name, const char *const *dirs, size_t ndirs, bool trusted_only, char *out,
			size_t outsz, char *why, size_t whysz)
{
	char skipped[512] = "";
	if (!*name || strchr(name, '/'))
		return -EINVAL;
	for (size_t i = 0; i < ndirs; i++) {
		char cand[PATH_MAX];
		struct stat st;
		if (xsnprintf(cand, sizeof(cand), "%s/%s", dirs[i], name) < 0)
			continue;
		if (stat(cand, &st) < 0 || !S_ISREG(st.st_mode) || access(cand, X_OK) != 0)
			continue;
		if (trusted_only) {
			char res[PATH_MAX], w[400];
			if (priv_path_trusted(cand, res, sizeof(res), w, sizeof(w)) < 0) {
				if (!skipped[0])
					str_copy(skipped, w, sizeof(skipped));
				continue;
			}
			if (str_copy(out, res, outsz) >= outsz)
				return -ENAMETOOLONG;
			return 0;
		}
		if (str_copy(out, cand, outsz) >= outsz)
			return -ENAMETOOLONG;
		return 0;
	}
	if (why) {
		size_t len = 0;
		why[0] = '\0';
		str_appendf(why, whysz, &len, "not in ");
		for (size_t i = 0; i < ndirs; i++)
			str_appendf(why, whysz, &len, "%s%s", dirs[i], i + 2 == ndirs ? " or " : i + 1 < ndirs ? ", " : "");
		if (skipped[0])
			str_appendf(why, whysz, &len, " as a copy root can trust: %s", skipped);
	}
	return -ENOENT;
}

int priv_helper_find(const char *name, char *out, size_t outsz, char *why, size_t whysz)
{
	return priv_helper_find_in(name, PRIV_HELPER_DIRS, PRIV_HELPER_NDIRS, priv_is_elevated(), out, outsz, why,
				   whysz);
}

char *priv_library_dirs(const char *list, size_t *ignored)
{
	bool elevated = priv_is_elevated();
	size_t len = 0, cap = 64;
	char *out = xmalloc(cap);
	out[0] = '\0';
	*ignored = 0;
	char *copy = xstrdup(list ? list : ""), *save = NULL;
	size_t ndirs = 0;
	for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		char res[PATH_MAX];
		const char *use = d;
		if (elevated) {
			if (++ndirs > PRIV_LIBRARY_DIRS_MAX || priv_path_trusted(d, res, sizeof(res), NULL, 0) < 0) {
				(*ignored)++;
				continue;
			}
			use = res;
		}
		size_t n = strlen(use);
		while (len + n + 2 > cap) {
			cap *= 2;
			out = xrealloc(out, cap);
		}
		if (len)
			out[len++] = ':';
		memcpy(out + len, use, n + 1);
		len += n;
	}
	free(copy);
	return out;
}

/* ---- what main removed from the environment ---- */

#define PRIV_NOTES_MAX 8
static struct priv_note g_notes[PRIV_NOTES_MAX];
static size_t g_nnotes;

/* Copies s into dst with control characters shown as '?': the value came
 * from whoever set the environment and goes to root's terminal. */
static void copy_printable(char *dst, const char *s, size_t dstsz)
{
	str_copy(dst, s, dstsz);
	for (char *p = dst; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
}

static void add_note(const char *var, const char *value, const char *why)
{
	if (g_nnotes >= PRIV_NOTES_MAX)
		return;
	struct priv_note *n = &g_notes[g_nnotes++];
	n->variable = var;
	copy_printable(n->value, value, sizeof(n->value));
	copy_printable(n->why, why, sizeof(n->why));
}

size_t priv_sanitize_env(void)
{
	if (!priv_is_elevated())
		return g_nnotes;
	const char *lp = getenv("NCCL_DOCTOR_LIBRARY_PATH");
	if (lp && *lp) {
		char *copy = xstrdup(lp), *kept = xcalloc(1, strlen(lp) + 1), *save = NULL;
		size_t dropped = 0, ndirs = 0, len = 0;
		for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
			char why[400];
			ndirs++;
			if (ndirs > PRIV_LIBRARY_DIRS_MAX)
				str_copy(why, "more directories than are checked as root", sizeof(why));
			if (ndirs > PRIV_LIBRARY_DIRS_MAX || priv_path_trusted(d, NULL, 0, why, sizeof(why)) < 0) {
				add_note("NCCL_DOCTOR_LIBRARY_PATH", d, why);
				dropped++;
				continue;
			}
			size_t n = strlen(d);
			if (len)
				kept[len++] = ':';
			memcpy(kept + len, d, n + 1);
			len += n;
		}
		if (dropped && dropped == ndirs) {
			/* stock sudo strips both: behave as it would */
			unsetenv("NCCL_DOCTOR_LIBRARY_PATH");
			unsetenv("NCCL_DOCTOR_LIBRARY_PATH_ONLY");
		} else if (dropped) {
			setenv("NCCL_DOCTOR_LIBRARY_PATH", kept, 1);
		}
		free(copy);
		free(kept);
	}
	const char *we = getenv("ND_WORKER_EXE");
	if (we && *we) {
		char why[400];
		if (priv_path_trusted(we, NULL, 0, why, sizeof(why)) < 0) {
			add_note("ND_WORKER_EXE", we, why);
			unsetenv("ND_WORKER_EXE");
		}
	}
	return g_nnotes;
}

const struct priv_note *priv_notes(size_t *n)
{
	*n = g_nnotes;
	return g_notes;
}
