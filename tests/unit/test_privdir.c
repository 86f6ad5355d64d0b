/* Unit tests of util/privdir: a fresh private directory (0700, ours), an
 * existing one accepted or refused (a link, group-writable, another owner,
 * inside a directory of another owner or a writable non-sticky one), a
 * missing one made, and the removal through the fd when the path was
 * replaced by a link meanwhile (the link is not followed, the files it
 * points at stay). The owner cases need root (chown); they are skipped
 * otherwise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "util/privdir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* paths here are short; the fixed buffers are only for brevity */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

static char base[4096];

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(base, sizeof(base), "%s/nd-privdir.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void path(char *out, size_t n, const char *name)
{
	snprintf(out, n, "%s/%s", base, name);
}

static void touch(const char *p)
{
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static const struct privdir_trust me = { { (uid_t)-1, (uid_t)-1 } };

static struct privdir_trust trust_me(void)
{
	struct privdir_trust t = me;
	t.uid[0] = geteuid();
	return t;
}

static void test_make_temp(void **state)
{
	(void)state;
	struct privdir_trust t = trust_me();
	struct privdir d;
	char tmpl[4200], why[4400];
	path(tmpl, sizeof(tmpl), "w.XXXXXX");
	assert_int_equal(privdir_make_temp(&d, tmpl, &t, why, sizeof(why)), 0);
	struct stat st;
	assert_int_equal(lstat(d.path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0700);
	assert_int_equal(st.st_uid, geteuid());
	char f[4300];
	snprintf(f, sizeof(f), "%s/nccl.a.1", d.path);
	touch(f);
	assert_int_equal(privdir_remove(d.fd, d.path), 0);
	assert_int_equal(lstat(d.path, &st), -1);
	privdir_close(&d);
}

static void test_open_existing(void **state)
{
	(void)state;
	struct privdir_trust t = trust_me();
	struct privdir d;
	char p[4400], why[4400];
	int made;
	path(p, sizeof(p), "mine");
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(privdir_open(&d, p, &t, &made, why, sizeof(why)), 0);
	assert_int_equal(made, 0);
	privdir_close(&d);
	/* a final slash is the same directory */
	char ps[4300];
	snprintf(ps, sizeof(ps), "%s/", p);
	assert_int_equal(privdir_open(&d, ps, &t, &made, why, sizeof(why)), 0);
	privdir_close(&d);
	/* group-writable */
	path(p, sizeof(p), "gw");
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chmod(p, 0770), 0);
	assert_int_equal(privdir_open(&d, p, &t, &made, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "writable by group or others (mode 0770)"));
	/* a link to our own directory */
	char target[4200];
	path(target, sizeof(target), "mine");
	path(p, sizeof(p), "link");
	assert_int_equal(symlink(target, p), 0);
	assert_int_equal(privdir_open(&d, p, &t, &made, why, sizeof(why)), -ELOOP);
	assert_non_null(strstr(why, "symbolic link"));
	snprintf(ps, sizeof(ps), "%s/", p);
	assert_int_equal(privdir_open(&d, ps, &t, &made, why, sizeof(why)), -ELOOP);
	/* not a directory */
	path(p, sizeof(p), "file");
	touch(p);
	assert_int_equal(privdir_open(&d, p, &t, &made, why, sizeof(why)), -ENOTDIR);
	/* inside a directory writable by others and not sticky */
	char open_dir[4000];
	path(open_dir, sizeof(open_dir), "open");
	assert_int_equal(mkdir(open_dir, 0700), 0);
	assert_int_equal(chmod(open_dir, 0777), 0);
	snprintf(p, sizeof(p), "%s/x", open_dir);
	assert_int_equal(privdir_open(&d, p, &t, &made, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "not sticky"));
	struct stat st;
	assert_int_equal(lstat(p, &st), -1); /* not made */
	/* sticky: fine (a /tmp) */
	assert_int_equal(chmod(open_dir, 01777), 0);
	assert_int_equal(privdir_open(&d, p, &t, &made, why, sizeof(why)), 0);
	assert_int_equal(made, 1);
	privdir_close(&d);
}

static void test_made(void **state)
{
	(void)state;
	struct privdir_trust t = trust_me();
	struct privdir d;
	char p[4400], why[4400];
	int made;
	path(p, sizeof(p), "new");
	assert_int_equal(privdir_open(&d, p, &t, &made, why, sizeof(why)), 0);
	assert_int_equal(made, 1);
	struct stat st;
	assert_int_equal(fstat(d.fd, &st), 0);
	assert_int_equal(st.st_mode & 077, 0);
	privdir_close(&d);
	/* a relative name */
	char cwd[4096];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(base), 0);
	assert_int_equal(privdir_open(&d, "rel", &t, &made, why, sizeof(why)), 0);
	assert_int_equal(made, 1);
	assert_non_null(strstr(d.path, "/rel"));
	assert_true(d.path[0] == '/'); /* resolved: NCCL_DEBUG_FILE names the real place */
	privdir_close(&d);
	assert_int_equal(chdir(cwd), 0);
}

static void test_remove_replaced(void **state)
{
	(void)state;
	struct privdir_trust t = trust_me();
	struct privdir d;
	char tmpl[4200], why[4400];
	path(tmpl, sizeof(tmpl), "r.XXXXXX");
	assert_int_equal(privdir_make_temp(&d, tmpl, &t, why, sizeof(why)), 0);
	/* someone moves the directory away and puts a link to a directory of
	 * precious files in its place */
	char precious[4200], pf[4300], moved[4200], mf[4300];
	path(precious, sizeof(precious), "precious");
	assert_int_equal(mkdir(precious, 0700), 0);
	snprintf(pf, sizeof(pf), "%s/keep", precious);
	touch(pf);
	snprintf(mf, sizeof(mf), "%s/nccl.a.1", d.path);
	touch(mf);
	path(moved, sizeof(moved), "moved");
	assert_int_equal(rename(d.path, moved), 0);
	assert_int_equal(symlink(precious, d.path), 0);
	assert_int_equal(privdir_remove(d.fd, d.path), -ESTALE);
	struct stat st;
	assert_int_equal(lstat(pf, &st), 0);        /* the precious file stays */
	assert_int_equal(lstat(d.path, &st), 0);    /* the link is left alone */
	assert_true(S_ISLNK(st.st_mode));
	snprintf(mf, sizeof(mf), "%s/nccl.a.1", moved);
	assert_int_equal(lstat(mf, &st), -1);       /* our own file went, where it is now */
	privdir_close(&d);
}

static void test_owners(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	struct privdir_trust t = trust_me();
	struct privdir d;
	char p[4400], why[4400];
	int made;
	const uid_t other = 65534;
	path(p, sizeof(p), "theirs");
	assert_int_equal(mkdir(p, 0700), 0);
	assert_int_equal(chown(p, other, other), 0);
	assert_int_equal(privdir_open(&d, p, &t, &made, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "not to you"));
	/* the job's user is trusted too */
	struct privdir_trust t2 = t;
	t2.uid[1] = other;
	assert_int_equal(privdir_open(&d, p, &t2, &made, why, sizeof(why)), 0);
	assert_int_equal(d.owner, other);
	privdir_close(&d);
	/* ours, inside theirs: they could rename it */
	assert_int_equal(chmod(p, 0755), 0);
	char in[4300];
	snprintf(in, sizeof(in), "%s/mine", p);
	assert_int_equal(mkdir(in, 0700), 0);
	assert_int_equal(privdir_open(&d, in, &t, &made, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "who could replace what is in it"));
	char tmpl[4300];
	snprintf(tmpl, sizeof(tmpl), "%s/w.XXXXXX", p);
	assert_int_equal(privdir_make_temp(&d, tmpl, &t, why, sizeof(why)), -EPERM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_make_temp),
		cmocka_unit_test(test_open_existing),
		cmocka_unit_test(test_made),
		cmocka_unit_test(test_remove_replaced),
		cmocka_unit_test(test_owners),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
