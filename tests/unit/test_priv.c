/* Unit tests of util/priv: what a privileged run trusts. The path check on
 * constructed directory trees (owner, group/other write, sticky parents,
 * links out of and into unsafe places, paths that do not exist yet), the
 * helper lookup over a fixed list of directories, and the
 * NCCL_DOCTOR_LIBRARY_PATH filter. Ownership needs chown: as a user other
 * than root the tests that need it are skipped. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "util/priv.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OTHER_UID 4242 /* no such user needed: a number is an owner */

static char base[512]; /* short: every path built from it fits PATH_MAX */

static void mk(const char *rel, mode_t mode, uid_t uid)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chown(p, uid, 0), 0);
	assert_int_equal(chmod(p, mode), 0);
}

static void mkfile(const char *rel, mode_t mode, uid_t uid)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("#!/bin/sh\nexit 0\n", f);
	fclose(f);
	assert_int_equal(chown(p, uid, 0), 0);
	assert_int_equal(chmod(p, mode), 0);
}

static void mklink(const char *target, const char *rel)
{
	char p[PATH_MAX], t[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	snprintf(t, sizeof(t), "%s/%s", base, target);
	assert_int_equal(symlink(t, p), 0);
}

/* priv_path_trusted on base/rel: its result, with why and resolved */
static int check(const char *rel, char *resolved, char *why)
{
	char p[PATH_MAX];
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	return priv_path_trusted(p, resolved, PATH_MAX, why, 512);
}

static int setup(void **state)
{
	(void)state;
	if (geteuid() != 0)
		return 0;
	const char *tmp = getenv("TMPDIR");
	snprintf(base, sizeof(base), "%s/nd-priv.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(base))
		return -1;
	/* the base is root's own 0700 directory in a sticky /tmp: trusted */
	char real[PATH_MAX];
	if (!realpath(base, real) || strlen(real) >= sizeof(base))
		return -1;
	memcpy(base, real, strlen(real) + 1);
	mk("safe", 0755, 0);
	mk("safe/lib", 0755, 0);
	mkfile("safe/lib/tool", 0755, 0);
	mkfile("safe/lib/open", 0666, 0);
	mk("theirs", 0755, OTHER_UID);
	mkfile("theirs/tool", 0755, OTHER_UID);
	mk("safe/theirs", 0755, OTHER_UID);
	mk("groupw", 0775, 0);
	mk("groupw/lib", 0755, 0);
	mk("worldw", 0777, 0);
	mk("worldw/lib", 0755, 0);
	mk("sticky", 01777, 0);
	mk("sticky/rootdir", 0700, 0);
	mkfile("sticky/rootdir/tool", 0755, 0);
	mkfile("sticky/rootfile", 0755, 0);
	mk("sticky/theirdir", 0700, OTHER_UID);
	mklink("safe/lib", "theirs-link-dir"); /* base is root's: the link itself is safe */
	mklink("safe/lib", "theirs/link-to-safe"); /* a link in a directory someone else owns */
	mklink("theirs", "safe/link-to-theirs");
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (geteuid() != 0 || !base[0])
		return 0;
	char cmd[PATH_MAX + 16];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

#define NEED_ROOT() \
	do { \
		if (geteuid() != 0) \
			skip(); \
	} while (0)

static void test_root_owned_safe(void **state)
{
	(void)state;
	NEED_ROOT();
	char res[PATH_MAX], why[512], want[PATH_MAX];
	assert_int_equal(check("safe/lib", res, why), 0);
	snprintf(want, sizeof(want), "%s/safe/lib", base);
	assert_string_equal(res, want);
	assert_int_equal(check("safe/lib/tool", res, why), 0);
	assert_int_equal(priv_path_trusted("/", res, sizeof(res), why, sizeof(why)), 0);
	assert_string_equal(res, "/");
	/* the parent of the root's own mktemp directory is sticky /tmp: fine */
	assert_int_equal(priv_path_trusted(base, res, sizeof(res), why, sizeof(why)), 0);
}

static void test_owner(void **state)
{
	(void)state;
	NEED_ROOT();
	char res[PATH_MAX], why[512];
	assert_int_equal(check("theirs", res, why), -EPERM);
	assert_non_null(strstr(why, "belongs to uid 4242, not root"));
	assert_non_null(strstr(why, "/theirs'"));
	/* below a directory someone else owns: that directory is named */
	assert_int_equal(check("theirs/tool", res, why), -EPERM);
	assert_non_null(strstr(why, "/theirs' belongs to uid 4242"));
	/* someone else's directory inside a safe one */
	assert_int_equal(check("safe/theirs", res, why), -EPERM);
}

static void test_writable(void **state)
{
	(void)state;
	NEED_ROOT();
	char res[PATH_MAX], why[512];
	assert_int_equal(check("groupw/lib", res, why), -EPERM);
	assert_non_null(strstr(why, "/groupw' is writable by its group (mode 0775)"));
	assert_int_equal(check("worldw/lib", res, why), -EPERM);
	assert_non_null(strstr(why, "/worldw' is writable by others (mode 0777)"));
	assert_int_equal(check("safe/lib/open", res, why), -EPERM);
	assert_non_null(strstr(why, "writable by others (mode 0666)"));
}

static void test_sticky(void **state)
{
	(void)state;
	NEED_ROOT();
	char res[PATH_MAX], why[512];
	/* a root-owned directory in a sticky shared one: cannot be swapped */
	assert_int_equal(check("sticky/rootdir", res, why), 0);
	assert_int_equal(check("sticky/rootdir/tool", res, why), 0);
	/* a file right in it: could be someone's hard link */
	assert_int_equal(check("sticky/rootfile", res, why), -EPERM);
	assert_non_null(strstr(why, "/sticky/rootfile' is a file in"));
	/* the shared directory itself: anyone can add to it */
	assert_int_equal(check("sticky", res, why), -EPERM);
	assert_non_null(strstr(why, "writable by others (mode 1777)"));
	assert_int_equal(check("sticky/theirdir", res, why), -EPERM);
}

static void test_links(void **state)
{
	(void)state;
	NEED_ROOT();
	char res[PATH_MAX], why[512], want[PATH_MAX];
	snprintf(want, sizeof(want), "%s/safe/lib", base);
	/* a link to a safe place is judged by where it leads, and the caller
	 * gets that place: the link (in someone's directory) may change */
	assert_int_equal(check("theirs/link-to-safe", res, why), 0);
	assert_string_equal(res, want);
	assert_int_equal(check("theirs-link-dir/tool", res, why), 0);
	/* a link from a safe place into an unsafe one */
	assert_int_equal(check("safe/link-to-theirs", res, why), -EPERM);
	assert_non_null(strstr(why, "belongs to uid 4242"));
}

static void test_missing(void **state)
{
	(void)state;
	NEED_ROOT();
	char res[PATH_MAX], why[512], want[PATH_MAX];
	/* nobody but root can create it: safe, and nothing to load there */
	assert_int_equal(check("safe/lib/not/there", res, why), 0);
	snprintf(want, sizeof(want), "%s/safe/lib/not/there", base);
	assert_string_equal(res, want);
	assert_int_equal(priv_path_trusted("/nonexistent/nccl-doctor-golden", res, sizeof(res), why, sizeof(why)), 0);
	assert_string_equal(res, "/nonexistent/nccl-doctor-golden");
	/* someone else could create it */
	assert_int_equal(check("worldw/new", res, why), -EPERM);
	assert_int_equal(check("sticky/new", res, why), -EPERM);
	assert_int_equal(check("theirs/new/deeper", res, why), -EPERM);
	/* through a link in someone else's directory: resolved to the target */
	assert_int_equal(check("theirs/link-to-safe/new", res, why), 0);
	snprintf(want, sizeof(want), "%s/safe/lib/new", base);
	assert_string_equal(res, want);
	assert_int_equal(priv_path_trusted("", res, sizeof(res), why, sizeof(why)), -ENOENT);
}

static void test_helpers(void **state)
{
	(void)state;
	NEED_ROOT();
	char theirs[1024], safe[1024], nothing[1024], out[PATH_MAX], why[600], want[PATH_MAX];
	snprintf(theirs, sizeof(theirs), "%s/theirs", base);
	snprintf(safe, sizeof(safe), "%s/safe/lib", base);
	snprintf(nothing, sizeof(nothing), "%s/safe", base);
	const char *dirs[] = { theirs, safe };
	/* trusted only: someone else's copy first in the list is passed over */
	assert_int_equal(priv_helper_find_in("tool", dirs, 2, true, out, sizeof(out), why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "%s/tool", safe);
	assert_string_equal(out, want);
	/* a plain user's run takes the first */
	assert_int_equal(priv_helper_find_in("tool", dirs, 2, false, out, sizeof(out), why, sizeof(why)), 0);
	snprintf(want, sizeof(want), "%s/tool", theirs);
	assert_string_equal(out, want);
	/* only someone else's copy: not found, and why says which was skipped */
	assert_int_equal(priv_helper_find_in("tool", dirs, 1, true, out, sizeof(out), why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "as a copy root can trust"));
	assert_non_null(strstr(why, "belongs to uid 4242"));
	const char *none[] = { nothing, theirs, safe };
	assert_int_equal(priv_helper_find_in("absent", none, 3, true, out, sizeof(out), why, sizeof(why)), -ENOENT);
	char wantwhy[3 * PATH_MAX + 32];
	snprintf(wantwhy, sizeof(wantwhy), "not in %s, %s or %s", nothing, theirs, safe);
	assert_string_equal(why, wantwhy);
	/* a name with a slash is not a helper name */
	assert_int_equal(priv_helper_find_in("../tool", dirs, 2, false, out, sizeof(out), why, sizeof(why)), -EINVAL);
	/* the fixed list: PATH plays no part */
	assert_int_equal(PRIV_HELPER_NDIRS, 3);
	assert_string_equal(PRIV_HELPER_DIRS[0], "/usr/local/bin");
	char *path = strdup(getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
	setenv("PATH", theirs, 1);
	if (access("/usr/bin/sh", X_OK) == 0 || access("/bin/sh", X_OK) == 0) {
		/* found by its resolved path (/bin/sh -> dash) */
		assert_int_equal(priv_helper_find("sh", out, sizeof(out), why, sizeof(why)), 0);
		assert_true(out[0] == '/' && access(out, X_OK) == 0);
		assert_null(strstr(out, theirs));
	}
	assert_int_equal(priv_helper_find("tool", out, sizeof(out), why, sizeof(why)), -ENOENT);
	setenv("PATH", path, 1);
	free(path);
}

static void test_library_dirs(void **state)
{
	(void)state;
	NEED_ROOT();
	char list[4 * PATH_MAX], want[2 * PATH_MAX + 2];
	snprintf(list, sizeof(list), "%s/theirs::%s/safe/lib:%s/worldw/lib:%s/theirs/link-to-safe", base, base, base,
		 base);
	size_t ignored = 0;
	char *use = priv_library_dirs(list, &ignored);
	assert_int_equal(ignored, 2);
	snprintf(want, sizeof(want), "%s/safe/lib:%s/safe/lib", base, base);
	assert_string_equal(use, want);
	free(use);
	/* past PRIV_LIBRARY_DIRS_MAX directories the rest is not looked at */
	size_t len = 0, cap = (PRIV_LIBRARY_DIRS_MAX + 6) * (strlen(base) + 12);
	char *many = calloc(1, cap);
	for (int i = 0; i < PRIV_LIBRARY_DIRS_MAX + 6; i++)
		len += (size_t)snprintf(many + len, cap - len, "%s%s/safe/lib", i ? ":" : "", base);
	use = priv_library_dirs(many, &ignored);
	assert_int_equal(ignored, 6);
	free(use);
	free(many);
	use = priv_library_dirs("", &ignored);
	assert_string_equal(use, "");
	assert_int_equal(ignored, 0);
	free(use);
}

static void test_sanitize_env(void **state)
{
	(void)state;
	NEED_ROOT();
	char list[3 * PATH_MAX], want[PATH_MAX], exe[PATH_MAX];
	snprintf(list, sizeof(list), "%s/theirs:%s/safe/lib", base, base);
	snprintf(exe, sizeof(exe), "%s/theirs/tool", base);
	setenv("NCCL_DOCTOR_LIBRARY_PATH", list, 1);
	setenv("NCCL_DOCTOR_LIBRARY_PATH_ONLY", "1", 1);
	setenv("ND_WORKER_EXE", exe, 1);
	assert_int_equal(priv_sanitize_env(), 2);
	snprintf(want, sizeof(want), "%s/safe/lib", base);
	assert_string_equal(getenv("NCCL_DOCTOR_LIBRARY_PATH"), want);
	assert_string_equal(getenv("NCCL_DOCTOR_LIBRARY_PATH_ONLY"), "1");
	assert_null(getenv("ND_WORKER_EXE"));
	size_t n;
	const struct priv_note *notes = priv_notes(&n);
	assert_int_equal(n, 2);
	assert_string_equal(notes[0].variable, "NCCL_DOCTOR_LIBRARY_PATH");
	assert_non_null(strstr(notes[0].why, "belongs to uid 4242"));
	assert_string_equal(notes[1].variable, "ND_WORKER_EXE");
	/* every directory unsafe: both variables go, as stock sudo does it */
	snprintf(list, sizeof(list), "%s/theirs:%s/worldw/lib", base, base);
	setenv("NCCL_DOCTOR_LIBRARY_PATH", list, 1);
	assert_int_equal(priv_sanitize_env(), 4);
	assert_null(getenv("NCCL_DOCTOR_LIBRARY_PATH"));
	assert_null(getenv("NCCL_DOCTOR_LIBRARY_PATH_ONLY"));
	/* a control character in a value never reaches the terminal */
	snprintf(list, sizeof(list), "%s/worldw/\x1b[31m", base);
	setenv("NCCL_DOCTOR_LIBRARY_PATH", list, 1);
	assert_int_equal(priv_sanitize_env(), 5);
	notes = priv_notes(&n);
	assert_null(strchr(notes[4].value, 0x1b));
	assert_null(strchr(notes[4].why, 0x1b));
	unsetenv("NCCL_DOCTOR_LIBRARY_PATH");
	unsetenv("ND_WORKER_EXE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root_owned_safe), cmocka_unit_test(test_owner),
		cmocka_unit_test(test_writable),	cmocka_unit_test(test_sticky),
		cmocka_unit_test(test_links),		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_helpers),		cmocka_unit_test(test_library_dirs),
		cmocka_unit_test(test_sanitize_env),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
