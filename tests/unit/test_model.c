/* Unit tests of model/result: values and their text, sections, tables,
 * findings from the catalog by enum (an unknown column aborts), the stable
 * severity sort, and the exit codes 0/1/2/3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kb/findings.h"
#include "model/result.h"

#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_values(void **state)
{
	(void)state;
	char buf[64];
	struct value v = val_str("hello");
	assert_int_equal(v.type, VAL_STR);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "hello");
	value_release(&v);
	assert_int_equal(v.type, VAL_NONE);
	assert_null(v.s);

	v = val_str(NULL);
	assert_int_equal(v.type, VAL_NONE);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "-");

	v = val_strf("%d GPUs on %s", 8, "node1");
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "8 GPUs on node1");
	value_release(&v);

	v = val_int(-42);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "-42");
	v = val_int(9223372036854775807LL);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "9223372036854775807");
	v = val_double(32.0);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "32");
	v = val_double(2.5);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "2.5");
	v = val_double(1.0 / 3.0);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "0.333333");
	v = val_bool(true);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "yes");
	v = val_bool(false);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "no");

	v = val_unknown("needs root");
	assert_int_equal(v.type, VAL_UNKNOWN);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "unknown (needs root)");
	value_release(&v);
	v = val_unknown(NULL);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "unknown");
	value_release(&v);
	v = val_unknown("unknown");
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "unknown");
	value_release(&v);

	/* display text replaces the value in text only */
	v = val_with_display(val_int(67108864), "64 MiB");
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "64 MiB");
	json_t *j = value_json(&v);
	assert_true(json_is_integer(j));
	assert_int_equal(json_integer_value(j), 67108864);
	json_decref(j);
	v = val_with_display(v, "changed");
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "changed");
	v = val_with_display(v, NULL);
	assert_string_equal(value_text(&v, buf, sizeof(buf)), "67108864");
	value_release(&v);

	/* a small buffer is cut, not overrun */
	char small[5];
	v = val_str("0123456789");
	assert_string_equal(value_text(&v, small, sizeof(small)), "0123");
	value_release(&v);
	v = val_unknown("needs root");
	assert_string_equal(value_text(&v, small, sizeof(small)), "unkn");
	value_release(&v);
}

static void test_value_json(void **state)
{
	(void)state;
	struct value v = val_str("a\xFF");
	json_t *j = value_json(&v);
	assert_string_equal(json_string_value(j), "a\xEF\xBF\xBD");
	json_decref(j);
	value_release(&v);
	v = val_double(2.5);
	j = value_json(&v);
	assert_true(json_is_real(j));
	assert_true(json_real_value(j) == 2.5);
	json_decref(j);
	v = val_bool(true);
	j = value_json(&v);
	assert_true(json_is_true(j));
	json_decref(j);
	v = val_unknown("missing");
	j = value_json(&v);
	assert_true(json_is_null(j));
	json_decref(j);
	value_release(&v);
	v = val_none();
	j = value_json(&v);
	assert_true(json_is_null(j));
	json_decref(j);
}

static void test_sections_tables(void **state)
{
	(void)state;
	struct result *r = result_new("sys");
	assert_string_equal(r->command, "sys");
	assert_true(json_is_object(r->extra));
	struct section *a = result_section(r, "driver", "Driver");
	struct section *b = result_section(r, "pci", NULL);
	assert_ptr_equal(result_section(r, "driver", "Other title"), a);
	assert_int_equal(r->nsections, 2);
	assert_string_equal(a->title, "Driver");
	assert_string_equal(b->title, "pci");

	struct kv *kv = section_add(a, "version", "Version", val_str("580.1"));
	assert_string_equal(kv->key, "version");
	assert_string_equal(kv->label, "Version");
	assert_int_equal(kv->mark, MARK_NONE);
	assert_int_equal(kv->show, SHOW_BOTH);
	kv = section_add(a, "open", NULL, val_bool(true));
	assert_string_equal(kv->label, "open");
	for (int i = 0; i < 100; i++)
		section_add(b, "k", "K", val_int(i));
	assert_int_equal(b->nkv, 100);
	assert_int_equal(b->kvs[99].v.i, 99);
	section_note(a, "note %d", 1);
	section_note(a, "%s", "second");
	assert_int_equal(a->nnotes, 2);
	assert_string_equal(a->notes[0], "note 1");

	static const struct column cols[] = {
		{ "bdf", "BDF", 0 }, { "speed", NULL, 0 }, { "hidden", "H", SHOW_JSON_ONLY },
	};
	struct table *t = section_table(b, "devices", "Devices", cols, 3);
	assert_int_equal(t->ncols, 3);
	assert_string_equal(t->cols[1].title, "speed");
	assert_int_equal(t->cols[2].show, SHOW_JSON_ONLY);
	/* the table owns copies of the column strings */
	assert_ptr_not_equal(t->cols[0].key, cols[0].key);
	for (size_t i = 0; i < 50; i++) {
		size_t row = table_add_row(t);
		assert_int_equal(row, i);
		assert_int_equal(t->cells[row * 3 + 0].type, VAL_NONE);
		table_set(t, row, "bdf", val_strf("0000:%02zx:00.0", i));
		table_set(t, row, "speed", val_double(16.0));
		table_set(t, row, "speed", val_double(32.0)); /* replacing frees the old */
		if (i == 7)
			table_mark(t, row, "speed", MARK_BAD);
	}
	assert_int_equal(t->nrows, 50);
	assert_string_equal(t->cells[49 * 3].s, "0000:31:00.0");
	assert_true(t->cells[10 * 3 + 1].d == 32.0);
	assert_int_equal(t->marks[7 * 3 + 1], MARK_BAD);
	assert_int_equal(t->marks[8 * 3 + 1], MARK_NONE);
	assert_int_equal(t->cells[5 * 3 + 2].type, VAL_NONE);

	result_set_headline(r, "host %s", "n1");
	result_set_headline(r, "host %s", "n2");
	assert_string_equal(r->headline, "host n2");
	result_free(r);
	result_free(NULL);
}

static void test_findings(void **state)
{
	(void)state;
	struct result *r = result_new("sys");
	const struct finding_def *def = kb_finding("SHM_TOO_SMALL");
	assert_non_null(def);
	assert_null(kb_finding("NO_SUCH_FINDING_ID"));
	struct finding *f = finding_add(r, FID_SHM_TOO_SMALL, SEV_ERROR, "/dev/shm is %d MiB", 64);
	assert_string_equal(f->id, "SHM_TOO_SMALL");
	assert_string_equal(f->title, "/dev/shm is 64 MiB");
	assert_string_equal(f->cause, "shm_too_small");
	assert_int_equal(f->sev, SEV_ERROR);
	finding_evidence(f, "/proc/self/mountinfo", 12, "size=%s", "65536k");
	finding_evidence(f, NULL, 0, "no file");
	finding_fix(f, "docker", "shares the host's IPC namespace", "--ipc=host");
	finding_fix(f, "env", NULL, "NCCL_SHM_DISABLE=%d", 1);
	assert_int_equal(f->nev, 2);
	assert_string_equal(f->ev[0].file, "/proc/self/mountinfo");
	assert_int_equal(f->ev[0].line, 12);
	assert_string_equal(f->ev[0].text, "size=65536k");
	assert_null(f->ev[1].file);
	assert_int_equal(f->nfix, 2);
	assert_string_equal(f->fixes[0].kind, "docker");
	assert_string_equal(f->fixes[0].note, "shares the host's IPC namespace");
	assert_null(f->fixes[1].note);
	assert_string_equal(f->fixes[1].text, "NCCL_SHM_DISABLE=1");

	/* a severity other than the catalog default is kept */
	struct finding *g = finding_add(r, FID_VIRTUAL_MACHINE, SEV_WARNING, "vm");
	assert_int_equal(g->sev, SEV_WARNING);
	assert_string_equal(g->cause, "p2p_virtualization");
	assert_ptr_equal(result_find(r, "VIRTUAL_MACHINE"), g);
	assert_ptr_equal(finding_get(r, FID_VIRTUAL_MACHINE), g);
	assert_null(finding_get(r, FID_NOFILE_LOW));
	assert_true(finding_is(g, FID_VIRTUAL_MACHINE));
	assert_false(finding_is(g, FID_SHM_TOO_SMALL));
	assert_ptr_equal(result_find(r, "SHM_TOO_SMALL"), f);
	assert_null(result_find(r, "ACS_REDIRECT_ENABLED"));
	result_free(r);
}

static void test_sort_stable(void **state)
{
	(void)state;
	struct result *r = result_new("x");
	/* severities in insertion order, with a tag in the title */
	const enum severity sev[] = { SEV_INFO, SEV_WARNING, SEV_ERROR, SEV_INFO, SEV_ERROR,
				      SEV_WARNING, SEV_WARNING, SEV_INFO, SEV_ERROR };
	size_t n = sizeof(sev) / sizeof(sev[0]);
	for (size_t i = 0; i < n; i++)
		finding_add(r, FID_NO_NVIDIA_GPU, sev[i], "%zu", i);
	result_sort_findings(r);
	const char *want[] = { "2", "4", "8", "1", "5", "6", "0", "3", "7" };
	assert_int_equal(r->nfindings, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(r->findings[i]->title, want[i]);
	/* sorting again changes nothing */
	result_sort_findings(r);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(r->findings[i]->title, want[i]);
	result_free(r);

	r = result_new("x");
	result_sort_findings(r); /* empty */
	assert_int_equal(r->nfindings, 0);
	result_free(r);
}

/* model/runs.c: the one ranking formula of causes (logs, check) */
static void test_cause_ranking(void **state)
{
	(void)state;
	/* noisy-or: 0.6 then 0.6 leaves 0.4 x 0.4 unexplained */
	assert_true(fabs(cause_conf_add(0, 0.6) - 0.6) < 1e-12);
	assert_true(fabs(cause_conf_add(0.6, 0.6) - 0.84) < 1e-12);
	assert_true(fabs(cause_conf_add(cause_conf_add(0, 0.6), 0.25) - 0.7) < 1e-12);
	/* the order of the pieces does not matter */
	assert_true(fabs(cause_conf_add(cause_conf_add(0, 0.25), 0.6) - cause_conf_add(cause_conf_add(0, 0.6), 0.25)) < 1e-12);
	/* nothing, or a negative weight, adds nothing */
	assert_true(cause_conf_add(0.3, 0) == 0.3);
	assert_true(cause_conf_add(0.3, -0.5) == 0.3);
	assert_true(cause_conf_add(0, 0) == 0);
	/* never certain: a weight of 1, or many pieces, stop at the cap */
	assert_true(cause_conf_add(0, 1) == CAUSE_CONF_MAX);
	assert_true(cause_conf_add(0.5, 2) == CAUSE_CONF_MAX);
	double c = 0;
	for (int i = 0; i < 4; i++) /* 1 - 0.4^4 = 0.9744 */
		c = cause_conf_add(c, 0.6);
	assert_true(c == CAUSE_CONF_MAX);
	assert_true(cause_conf_add(CAUSE_CONF_MAX, 0.9) == CAUSE_CONF_MAX);
	assert_true(cause_conf_add(0.99, 0) == CAUSE_CONF_MAX); /* above the cap on the way in */
	/* the ranking: higher first, equal ones by name, a cause equals itself */
	assert_true(cause_rank_cmp(0.6, "shm_too_small", 0.25, "bootstrap_network") < 0);
	assert_true(cause_rank_cmp(0.25, "bootstrap_network", 0.6, "shm_too_small") > 0);
	assert_true(cause_rank_cmp(0.6, "bootstrap_network", 0.6, "shm_too_small") < 0);
	assert_true(cause_rank_cmp(0.6, "shm_too_small", 0.6, "bootstrap_network") > 0);
	assert_int_equal(cause_rank_cmp(0.6, "unknown", 0.6, "unknown"), 0);
	assert_true(cause_rank_cmp(CAUSE_CONF_MAX, "x", 0.96, "a") < 0);
	/* shown: two decimals, half up, never above the cap */
	assert_true(cause_conf_shown(0) == 0);
	assert_true(cause_conf_shown(0.844) == 0.84);
	assert_true(cause_conf_shown(0.125) == 0.13);
	assert_true(cause_conf_shown(0.19999999999999996) == 0.2);
	assert_true(cause_conf_shown(0.9744) == 0.97);
	assert_true(cause_conf_shown(1) == 0.97);
}

static void test_exit_codes(void **state)
{
	(void)state;
	struct result *r = result_new("x");
	assert_int_equal(result_exit_code(r), 0);
	finding_add(r, FID_NO_NVIDIA_GPU, SEV_INFO, "info only");
	assert_int_equal(result_exit_code(r), 0);
	finding_add(r, FID_NOFILE_LOW, SEV_WARNING, "a warning");
	assert_int_equal(result_exit_code(r), 1);
	finding_add(r, FID_NO_NVIDIA_GPU, SEV_INFO, "more info");
	assert_int_equal(result_exit_code(r), 1);
	finding_add(r, FID_SHM_TOO_SMALL, SEV_ERROR, "an error");
	assert_int_equal(result_exit_code(r), 2);
	result_set_error(r, "cannot read '%s': %s", "/sys", "permission denied");
	assert_string_equal(r->error, "cannot read '/sys': permission denied");
	assert_int_equal(result_exit_code(r), 3);
	result_free(r);

	r = result_new("x");
	result_set_error(r, "failed");
	assert_int_equal(result_exit_code(r), 3);
	result_free(r);
}

/* Runs fn in a child; true when the child died of SIGABRT. */
static bool aborts(void (*fn)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* keep the expected internal-error message off the test output */
		if (!freopen("/dev/null", "w", stderr))
			_exit(9);
		fn();
		_exit(0);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

static void set_unknown_column(void)
{
	struct result *r = result_new("x");
	static const struct column cols[] = { { "a", "A", 0 } };
	struct table *t = section_table(result_section(r, "s", "S"), "t", NULL, cols, 1);
	size_t row = table_add_row(t);
	table_set(t, row, "b", val_int(1));
	result_free(r);
}

static void test_aborts(void **state)
{
	(void)state;
	assert_true(aborts(set_unknown_column));
}

static void test_catalog(void **state)
{
	(void)state;
	size_t n;
	const struct finding_def *all = kb_findings(&n);
	assert_true(n > 30);
	for (size_t i = 0; i < n; i++) {
		assert_ptr_equal(kb_finding(all[i].id), &all[i]);
		assert_non_null(all[i].cause);
		assert_true(strlen(all[i].summary) > 0);
		/* ids are upper snake case */
		for (const char *p = all[i].id; *p; p++)
			assert_true((*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_');
	}
	assert_string_equal(kb_finding("ACS_REDIRECT_ENABLED")->cause, "p2p_pcie_acs_iommu");
	assert_int_equal(kb_finding("ACS_REDIRECT_ENABLED")->severity, SEV_ERROR);
	assert_int_equal(kb_finding("REMOVEIPC_ENABLED")->severity, SEV_INFO);
	/* the enum and the table agree, and names resolve both ways */
	assert_int_equal(n, FID_COUNT);
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(kb_finding_id(all[i].id), (int)i);
		assert_ptr_equal(kb_finding_def((enum finding_id)i), &all[i]);
	}
	assert_string_equal(kb_finding_def(FID_ACS_REDIRECT_ENABLED)->id, "ACS_REDIRECT_ENABLED");
	assert_int_equal(kb_finding_id("NOT_IN_THE_CATALOG"), -1);
	assert_null(kb_finding_def(FID_COUNT));
	/* Xid codes map to their XID_<code> finding, unknown ones to XID_UNKNOWN */
	assert_int_equal(kb_xid_finding(79), FID_XID_79);
	assert_string_equal(kb_finding_def(kb_xid_finding(79))->id, "XID_79");
	assert_int_equal(kb_xid_finding(99999), FID_XID_UNKNOWN);
	assert_int_equal(kb_xid_finding(-1), FID_XID_UNKNOWN);
	assert_string_equal(severity_name(SEV_ERROR), "error");
	assert_string_equal(severity_name(SEV_WARNING), "warning");
	assert_string_equal(severity_name(SEV_INFO), "info");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_value_json),
		cmocka_unit_test(test_sections_tables),
		cmocka_unit_test(test_findings),
		cmocka_unit_test(test_sort_stable),
		cmocka_unit_test(test_cause_ranking),
		cmocka_unit_test(test_exit_codes),
		cmocka_unit_test(test_aborts),
		cmocka_unit_test(test_catalog),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
