/* Unit tests of util/options: the syntax getopt_long accepted (long names,
 * =value, prefixes, short clusters, values taken whatever they look like,
 * "--", arguments between options or ending them), the included tables,
 * main's keep-unknown mode, and the wording of every usage error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "util/options.h"

#include <string.h>

struct vals {
	bool force, list;
	long long n, root;
	double stall;
	const char *file;
	int mode, kind;
};

static const char *const kinds[] = { "xid", "sxid", "finding", NULL };

static int parse(struct vals *v, unsigned flags, char *msg, int argc, char **argv)
{
	const struct opt_spec shared[] = {
		OPT_FLAG("force", 0, &v->force, "force"),
		OPT_END(),
	};
	const struct opt_spec specs[] = {
		OPT_INCLUDE(shared),
		OPT_FLAG("list", 'l', &v->list, "list"),
		OPT_FLAG("list-all", 0, &v->list, "list all"),
		OPT_INT(NULL, 'n', &v->n, 1, 100, "count"),
		OPT_INT("root", 'r', &v->root, -1, 7, "root"),
		OPT_SECONDS("stall", 0, &v->stall, 0.1, 86400, "stall"),
		OPT_SECONDS_ABOVE("deadline", 0, &v->stall, 0, 10, "deadline"),
		OPT_FILE("write", 'o', &v->file, "file"),
		OPT_SET("procs", 0, &v->mode, 0, "procs"),
		OPT_SET("threads", 0, &v->mode, 1, "threads"),
		OPT_ENUM("kind", 'k', &v->kind, kinds, "kind"),
		OPT_HELP(),
		OPT_END(),
	};
	memset(v, 0, sizeof(*v));
	v->mode = v->kind = -1;
	return opt_parse(argc, argv, specs, flags, msg, 256);
}

#define ARGV(...) ((char *[]){ "cmd", __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ "cmd", __VA_ARGS__ }) / sizeof(char *)))
#define PARSE(v, fl, msg, ...) parse(v, fl, msg, ARGC(__VA_ARGS__), ARGV(__VA_ARGS__))

static void test_forms(void **state)
{
	(void)state;
	struct vals v;
	char msg[256];
	char **a = ARGV("a1", "--force", "--stall=2.5", "a2", "-n", "7", "-lr-1", "--wri", "out", "--threads", "--kind", "sxid");
	int r = parse(&v, 0, msg, 13, a);
	assert_int_equal(r, 11);
	assert_string_equal(a[11], "a1");
	assert_string_equal(a[12], "a2");
	assert_true(v.force && v.list);
	assert_int_equal(v.n, 7);
	assert_int_equal(v.root, -1);
	assert_true(v.stall == 2.5);
	assert_string_equal(v.file, "out");
	assert_int_equal(v.mode, 1);
	assert_int_equal(v.kind, 1);
	/* a value is taken from the next argument whatever it looks like */
	assert_int_equal(PARSE(&v, 0, msg, "-r", "-1", "--write", "--force"), 5);
	assert_string_equal(v.file, "--force");
	assert_false(v.force);
	/* "--" ends the options; "-" is an argument */
	a = ARGV("-l", "--", "--force", "-");
	assert_int_equal(parse(&v, 0, msg, 5, a), 3);
	assert_string_equal(a[3], "--force");
	assert_string_equal(a[4], "-");
	assert_false(v.force);
	/* stop at the first argument */
	a = ARGV("-l", "job", "--force");
	assert_int_equal(parse(&v, OPT_STOP_AT_ARG, msg, 4, a), 2);
	assert_string_equal(a[2], "job");
	assert_false(v.force);
	assert_int_equal(PARSE(&v, 0, msg, "--list"), 2); /* an exact name before prefixes */
	assert_true(v.list);
	assert_int_equal(PARSE(&v, 0, msg, "-l", "--help", "--frob"), OPT_RET_HELP);
	assert_int_equal(PARSE(&v, 0, msg, "-lh"), OPT_RET_HELP);
}

static void expect_error(const char *want, int argc, char **argv)
{
	struct vals v;
	char msg[256];
	assert_int_equal(parse(&v, 0, msg, argc, argv), OPT_RET_ERROR);
	assert_string_equal(msg, want);
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("option '--stall' requires a value", 2, ARGV("--stall"));
	expect_error("option '--sta' requires a value", 2, ARGV("--sta"));
	expect_error("option '-n' requires a value", 3, ARGV("-l", "-n"));
	expect_error("option '-o' requires a value", 2, ARGV("-lo"));
	expect_error("unknown option '--frob'", 3, ARGV("--frob=1", "x"));
	expect_error("unknown option '-x'", 2, ARGV("-lx"));
	expect_error("option '--force' takes no value", 2, ARGV("--force=yes"));
	expect_error("option '--stall' expects a number of seconds from 0.1 to 86400, not 'abc'", 3, ARGV("--stall", "abc"));
	expect_error("option '--deadline' expects a number of seconds more than 0 and at most 10, not '0'", 2,
		     ARGV("--deadline=0"));
	expect_error("option '--stall' expects a number of seconds from 0.1 to 86400, not 'inf'", 2, ARGV("--stall=inf"));
	expect_error("option '-n' expects a number from 1 to 100, not '0'", 2, ARGV("-n0"));
	expect_error("option '-r' expects a number from -1 to 7, not '8'", 3, ARGV("-r", "8"));
	expect_error("option '--write' expects a file name, not ''", 2, ARGV("--write="));
	expect_error("option '--kind' expects xid, sxid or finding, not 'x'", 3, ARGV("--kind", "x"));
	expect_error("option '--lis' is ambiguous: --list, --list-all", 2, ARGV("--lis"));
}

static void test_keep_unknown(void **state)
{
	(void)state;
	bool json = false;
	const char *root = NULL;
	const struct opt_spec g[] = {
		OPT_FLAG("json", 0, &json, "json"),
		OPT_STRING("sysroot", 0, &root, "root"),
		OPT_END(),
	};
	char msg[256];
	char **a = ARGV("sys", "--budget", "--json", "-x", "--sysroot=/r", "--js", "--json=f", "--", "--json");
	int r = opt_parse(10, a, g, OPT_KEEP_UNKNOWN | OPT_EXACT, msg, sizeof(msg));
	assert_int_equal(r, 3);
	assert_true(json);
	assert_string_equal(root, "/r");
	const char *want[] = { "sys", "--budget", "-x", "--js", "--json=f", "--", "--json" };
	for (int i = 0; i < 7; i++)
		assert_string_equal(a[r + i], want[i]);
	assert_int_equal(opt_parse(2, ARGV("--sysroot"), g, OPT_KEEP_UNKNOWN | OPT_EXACT, msg, sizeof(msg)), OPT_RET_ERROR);
	assert_string_equal(msg, "option '--sysroot' requires a value");
}

/* opt_list: every option as typed, through included tables; a cut list ends in " ..." */
static void test_list(void **state)
{
	(void)state;
	bool a = false, b = false;
	const char *s = NULL;
	const struct opt_spec shared[] = { OPT_STRING("nccl", 0, &s, "lib"), OPT_END() };
	const struct opt_spec t[] = {
		OPT_FLAG("all", 'a', &a, "all"), OPT_FLAG(NULL, 'q', &b, "quiet"), OPT_INCLUDE(shared), OPT_HELP(), OPT_END(),
	};
	char buf[128];
	const char *want = "-a --all -q --nccl -h --help";
	assert_int_equal(opt_list(t, buf, sizeof(buf)), strlen(want));
	assert_string_equal(buf, want);
	char small[8];
	assert_int_equal(opt_list(t, small, sizeof(small)), strlen(want));
	assert_true(strlen(small) < sizeof(small));
	assert_non_null(strstr(small, " ...")); /* a cut list says it was cut */
	const struct opt_spec none[] = { OPT_END() };
	assert_int_equal(opt_list(none, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_keep_unknown),
		cmocka_unit_test(test_list),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
