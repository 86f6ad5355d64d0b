/* Unit tests of util/outfile: files written through a temporary and a
 * rename; a symbolic link, FIFO, directory or another user's file at the
 * target's name is refused without being opened; a failed write (the file
 * size limit standing in for a full disk) leaves the previous file intact
 * and no temporary behind; modes; the NAME.tmp.PID temporary of --prom. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "util/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

static char g_tmp[256];

static const char *tpath(const char *rel)
{
	static char p[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(p[k], sizeof(p[k]), "%s/%s", g_tmp, rel);
	return p[k];
}

static int setup(void **state)
{
	(void)state;
	snprintf(g_tmp, sizeof(g_tmp), "%s/nd-outfile.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(g_tmp) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g_tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static char *slurp(const char *path)
{
	static char buf[4096];
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries of the test directory whose name starts with '.' (temporaries). */
static int hidden_entries(void)
{
	DIR *d = opendir(g_tmp);
	struct dirent *e;
	int n = 0;
	while (d && (e = readdir(d)))
		n += e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	if (d)
		closedir(d);
	return n;
}

static void test_new_and_replace(void **state)
{
	(void)state;
	char err[512] = "";
	mode_t old = umask(022);
	const char *p = tpath("a.json");
	assert_int_equal(outfile_check(p, err, sizeof(err)), 0);
	assert_int_equal(outfile_write_all(p, 0644, "one\n", 4, err, sizeof(err)), 0);
	assert_string_equal(slurp(p), "one\n");
	struct stat st1, st2;
	assert_int_equal(stat(p, &st1), 0);
	assert_int_equal(st1.st_mode & 07777, 0644);
	assert_int_equal(outfile_write_all(p, 0600, "two\n", 4, err, sizeof(err)), 0);
	assert_string_equal(slurp(p), "two\n");
	assert_int_equal(stat(p, &st2), 0);
	assert_int_equal(st2.st_mode & 07777, 0600);
	assert_int_not_equal(st1.st_ino, st2.st_ino); /* renamed into place, not written over */
	assert_int_equal(hidden_entries(), 0);
	umask(old);
}

/* OUTFILE_TMP_PID (--prom): the temporary is NAME.tmp.PID, renamed away;
 * a planted link at that name is neither followed nor removed, and the
 * write goes on through a name with a random suffix after it. */
static void test_tmp_pid_name(void **state)
{
	(void)state;
	char err[512] = "", tmp[64], planted[600], p[600], victim[600];
	snprintf(p, sizeof(p), "%s", tpath("m.prom")); /* tpath's buffers are reused */
	snprintf(victim, sizeof(victim), "%s", tpath("victim-pid"));
	assert_int_equal(outfile_write_all(victim, 0600, "secret\n", 7, err, sizeof(err)), 0);
	struct outfile of;
	assert_int_equal(outfile_open_flags(&of, p, 0644, OUTFILE_TMP_PID, err, sizeof(err)), 0);
	snprintf(tmp, sizeof(tmp), "m.prom.tmp.%ld", (long)getpid());
	assert_string_equal(of.tmp, tmp);
	assert_int_equal(access(tpath(tmp), F_OK), 0); /* beside the target while written */
	assert_int_equal(outfile_write(&of, "a 1\n", 4), 0);
	assert_int_equal(outfile_commit(&of, err, sizeof(err)), 0);
	assert_string_equal(slurp(p), "a 1\n");
	assert_int_equal(access(tpath(tmp), F_OK), -1);
	snprintf(planted, sizeof(planted), "%s", tpath(tmp));
	assert_int_equal(symlink(victim, planted), 0);
	assert_int_equal(outfile_write_all_flags(p, 0644, OUTFILE_TMP_PID, "a 2\n", 4, err, sizeof(err)), 0);
	assert_string_equal(slurp(p), "a 2\n");
	assert_string_equal(slurp(victim), "secret\n");
	struct stat st;
	assert_int_equal(lstat(planted, &st), 0);
	assert_true(S_ISLNK(st.st_mode));
	assert_int_equal(unlink(planted), 0);
}

static void test_symlink_refused(void **state)
{
	(void)state;
	char err[512] = "";
	const char *victim = tpath("victim"), *link = tpath("link.json");
	assert_int_equal(outfile_write_all(victim, 0600, "secret\n", 7, err, sizeof(err)), 0);
	assert_int_equal(symlink(victim, link), 0);
	assert_int_equal(outfile_check(link, err, sizeof(err)), -ELOOP);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(outfile_write_all(link, 0644, "pwned\n", 6, err, sizeof(err)), -ELOOP);
	assert_string_equal(slurp(victim), "secret\n");
	/* a dangling link too: nothing is created where it points */
	const char *dl = tpath("dangling.json");
	assert_int_equal(symlink(tpath("nowhere"), dl), 0);
	assert_int_equal(outfile_write_all(dl, 0644, "x", 1, err, sizeof(err)), -ELOOP);
	assert_int_equal(access(tpath("nowhere"), F_OK), -1);
	assert_int_equal(hidden_entries(), 0);
}

static void test_special_refused(void **state)
{
	(void)state;
	char err[512] = "";
	const char *fifo = tpath("fifo.json");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	/* a FIFO without a reader would block an open for writing: never opened */
	alarm(10);
	assert_int_equal(outfile_check(fifo, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "a FIFO"));
	assert_int_equal(outfile_write_all(fifo, 0644, "x", 1, err, sizeof(err)), -EINVAL);
	alarm(0);
	const char *dir = tpath("d");
	assert_int_equal(mkdir(dir, 0700), 0);
	assert_int_equal(outfile_write_all(dir, 0644, "x", 1, err, sizeof(err)), -EISDIR);
	assert_int_equal(outfile_write_all(tpath("d/"), 0644, "x", 1, err, sizeof(err)), -EISDIR);
	assert_int_equal(outfile_check(tpath("no/such/dir/x.json"), err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "its directory"));
	assert_int_equal(hidden_entries(), 0);
}

static void test_foreign_owner_refused(void **state)
{
	(void)state;
	if (geteuid() != 0)
		skip();
	char err[512] = "";
	const char *p = tpath("theirs.json");
	assert_int_equal(outfile_write_all(p, 0644, "theirs\n", 7, err, sizeof(err)), 0);
	assert_int_equal(chown(p, 54321, 54321), 0);
	assert_int_equal(outfile_write_all(p, 0644, "mine\n", 5, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "belongs to uid 54321"));
	assert_string_equal(slurp(p), "theirs\n");
}

/* A write that fails (the file size limit makes write() fail with EFBIG, as
 * a full disk makes it fail with ENOSPC): the old file stays whole. */
static void test_failed_write_keeps_old(void **state)
{
	(void)state;
	char err[512] = "";
	const char *p = tpath("keep.env");
	assert_int_equal(outfile_write_all(p, 0644, "old contents\n", 13, err, sizeof(err)), 0);
	struct rlimit old, lim = { .rlim_cur = 4096, .rlim_max = RLIM_INFINITY };
	getrlimit(RLIMIT_FSIZE, &old);
	lim.rlim_max = old.rlim_max;
	signal(SIGXFSZ, SIG_IGN);
	assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
	static char big[65536];
	memset(big, 'x', sizeof(big));
	struct outfile of;
	assert_int_equal(outfile_open(&of, p, 0644, err, sizeof(err)), 0);
	assert_int_equal(outfile_write(&of, big, sizeof(big)), -EFBIG);
	assert_int_equal(outfile_commit(&of, err, sizeof(err)), -EFBIG);
	assert_non_null(strstr(err, "unchanged"));
	setrlimit(RLIMIT_FSIZE, &old);
	assert_string_equal(slurp(p), "old contents\n");
	assert_int_equal(hidden_entries(), 0);
	/* abort after open leaves nothing either */
	assert_int_equal(outfile_open(&of, tpath("never.json"), 0644, err, sizeof(err)), 0);
	outfile_abort(&of);
	outfile_abort(&of);
	assert_int_equal(access(tpath("never.json"), F_OK), -1);
	assert_int_equal(hidden_entries(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_new_and_replace),
		cmocka_unit_test(test_tmp_pid_name),
		cmocka_unit_test(test_symlink_refused),
		cmocka_unit_test(test_special_refused),
		cmocka_unit_test(test_foreign_owner_refused),
		cmocka_unit_test(test_failed_write_keeps_old),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
