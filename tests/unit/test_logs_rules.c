/* Unit tests of the log analysis's rule table (analyze/logs/rules/table.c):
 * one entry per rule, each with a phase, a function and a one-line what;
 * ids are unique, lower-case words joined by '-', and say what, not when
 * (no batch or round); the table goes by phase (evidence, timeline,
 * priors, adjust: logs_rules_in_phase_order, which finds a table out of
 * that order) and keeps the order the analysis relies on (the signature
 * evidence first, the run-failed step first of the timeline, the
 * revisions after what they revise). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/logs/rules/rules.h"

#include <ctype.h>
#include <string.h>

static int index_of(const struct rule *r, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(r[i].id, id) == 0)
			return (int)i;
	return -1;
}

static void test_entries_well_formed(void **state)
{
	(void)state;
	size_t n;
	const struct rule *r = logs_rules(&n);
	assert_true(n >= 40);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(r[i].fn);
		assert_non_null(r[i].what);
		assert_true(strlen(r[i].what) > 10 && strlen(r[i].what) < 120);
		assert_true(r[i].phase >= RULE_EVIDENCE && r[i].phase <= RULE_ADJUST);
		assert_string_not_equal(rule_phase_name(r[i].phase), "?");
		const char *id = r[i].id;
		assert_true(islower((unsigned char)id[0]));
		for (const char *p = id; *p; p++)
			assert_true(islower((unsigned char)*p) || isdigit((unsigned char)*p) || (*p == '-' && p[1] && p[1] != '-'));
		assert_null(strstr(id, "batch"));
		assert_null(strstr(id, "round"));
		for (size_t j = 0; j < i; j++) {
			assert_string_not_equal(r[j].id, id);
			assert_ptr_not_equal(r[j].fn, r[i].fn);
		}
	}
}

static void test_order_the_analysis_needs(void **state)
{
	(void)state;
	size_t n;
	const struct rule *r = logs_rules(&n);
	/* the signatures set have_root/have_hang and the first failure that
	 * every later rule reads */
	/* ... after the roles of the rows the processes outlived are settled */
	assert_int_equal(index_of(r, n, "warn-went-on"), 0);
	assert_int_equal(index_of(r, n, "signature-findings"), 1);
	assert_int_equal(index_of(r, n, "warn-failures"), 2);
	assert_int_equal(index_of(r, n, "signature-causes"), 3);
	/* PyTorch's echo clears have_hang before anything reads it */
	int echo = index_of(r, n, "pytorch-error-echo"), failed = index_of(r, n, "run-failed"),
	    stages = index_of(r, n, "stages");
	assert_true(echo > 3 && echo < failed);
	assert_true(failed < stages);
	/* the revisions come after what they revise */
	assert_true(index_of(r, n, "single-rank-bootstrap") > stages);
	assert_true(index_of(r, n, "one-host-bootstrap-stop") > stages);
	assert_true(index_of(r, n, "tests-exit-code") > stages);
	assert_true(index_of(r, n, "transport-switches") > stages);
	assert_true(index_of(r, n, "remote-error-no-transport") > index_of(r, n, "remote-error"));
	assert_true(index_of(r, n, "overrides") > failed);
	/* the first of the timeline says whether the run failed */
	for (size_t i = 0; i < n; i++)
		if (r[i].phase == RULE_TIMELINE) {
			assert_int_equal((int)i, failed);
			break;
		}
}

static void noop(struct ana *a)
{
	(void)a;
}

/* The phases never go back, and the check says so of a table that does. */
static void test_phase_order(void **state)
{
	(void)state;
	size_t n;
	const struct rule *r = logs_rules(&n);
	for (size_t i = 1; i < n; i++)
		if (r[i].phase < r[i - 1].phase)
			fail_msg("rule '%s' (%s) after '%s' (%s): the phases go evidence, timeline, priors, adjust", r[i].id,
				 rule_phase_name(r[i].phase), r[i - 1].id, rule_phase_name(r[i - 1].phase));
	assert_true(logs_rules_in_phase_order(r, n));
	assert_int_equal(r[0].phase, RULE_EVIDENCE);
	assert_int_equal(r[n - 1].phase, RULE_ADJUST);
	const struct rule good[] = { { RULE_EVIDENCE, "a", noop, "a" }, { RULE_EVIDENCE, "b", noop, "b" },
				     { RULE_TIMELINE, "c", noop, "c" }, { RULE_ADJUST, "d", noop, "d" } };
	const struct rule bad[] = { { RULE_EVIDENCE, "a", noop, "a" }, { RULE_PRIORS, "b", noop, "b" },
				    { RULE_TIMELINE, "c", noop, "c" }, { RULE_ADJUST, "d", noop, "d" } };
	assert_true(logs_rules_in_phase_order(good, 4));
	assert_false(logs_rules_in_phase_order(bad, 4));
	assert_true(logs_rules_in_phase_order(bad, 0));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entries_well_formed),
		cmocka_unit_test(test_order_the_analysis_needs),
		cmocka_unit_test(test_phase_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
