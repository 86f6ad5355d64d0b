/* Unit tests of kb/sxid (the NVSwitch SXid catalog), analyze/sxid_parse (SXid
 * line shapes and their grouping). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/sxid_parse.h"
#include "kb/causes.h"
#include "kb/sxid.h"

#include <stdio.h>
#include <string.h>

/* ---- catalog ---- */

static void test_catalog_lookup(void **state)
{
	(void)state;
	const struct sxid_def *s = kb_sxid(12028);
	assert_non_null(s);
	assert_string_equal(s->name, "NVSWITCH_ERR_HW_NPORT_EGRESS_PRIVRSPERR");
	assert_int_equal(s->sclass, SXID_CLASS_NONFATAL);
	assert_int_equal(s->severity, SEV_ERROR);
	assert_string_equal(s->action, "RESTART_APP");

	s = kb_sxid(20034);
	assert_non_null(s);
	assert_string_equal(s->name, "NVSWITCH_ERR_HW_DLPL_LTSSM_FAULT_UP");
	assert_int_equal(s->sclass, SXID_CLASS_FATAL);
	assert_string_equal(sxid_class_name(s->sclass), "fatal to the port");

	s = kb_sxid(22013);
	assert_non_null(s);
	assert_int_equal(s->severity, SEV_INFO);
	assert_string_equal(s->action, "IGNORE");

	s = kb_sxid(23001);
	assert_non_null(s);
	assert_int_equal(s->sclass, SXID_CLASS_ALWAYS_FATAL);
	assert_string_equal(s->action, "RESTART_BM");

	s = kb_sxid(11004);
	assert_non_null(s);
	assert_string_equal(s->cause, "fabric_manager_nvswitch");

	s = kb_sxid(26006); /* SOE halt: in the driver, not in the guide */
	assert_non_null(s);
	assert_false(sxid_documented(s));
	assert_string_equal(s->action, "LINE_SEVERITY");

	assert_null(kb_sxid(99999));
	assert_null(kb_sxid(79));
	assert_null(kb_sxid(12000)); /* block bases are no errors */
}

static void test_catalog_table(void **state)
{
	(void)state;
	size_t n, documented = 0;
	const struct sxid_def *t = kb_sxids(&n);
	assert_true(n >= 390);
	for (size_t i = 0; i < n; i++) {
		if (i > 0)
			assert_true(t[i - 1].code < t[i].code); /* sorted, unique: kb_sxid bisects */
		assert_true(t[i].code > 10000 && t[i].code < 31000);
		assert_true(strncmp(t[i].name, "NVSWITCH_ERR_HW_", 16) == 0);
		assert_true(t[i].meaning[0] != '\0');
		assert_true(kb_cause_valid(t[i].cause));
		assert_non_null(sxid_action_text(t[i].action));
		assert_ptr_equal(kb_sxid(t[i].code), &t[i]);
		documented += sxid_documented(&t[i]);
	}
	assert_int_equal(documented, 92); /* Fabric Manager guide DU-09883-001 v1.3, D.4 to D.7 */
	assert_null(sxid_action_text("NO_SUCH_WORD"));
	assert_null(sxid_action_text(NULL));
}

/* ---- line shapes ---- */

static void test_line_header(void **state)
{
	(void)state;
	struct sxid_line l;
	assert_true(sxid_parse_line(
		"nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)", &l));
	assert_int_equal(l.kind, SXID_LINE_HEADER);
	assert_int_equal(l.instance, 3);
	assert_string_equal(l.bdf, "0000:05:00.0");
	assert_int_equal(l.sxid, 12028);
	assert_int_equal(l.sev, SXID_SEV_NONFATAL);
	assert_int_equal(l.link, 32);
	assert_true(l.first);
	assert_int_equal(l.text_len, strlen("egress non-posted PRIV error"));
	assert_memory_equal(l.text, "egress non-posted PRIV error", l.text_len);

	assert_true(sxid_parse_line("nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up", &l));
	assert_int_equal(l.sev, SXID_SEV_FATAL);
	assert_int_equal(l.link, 48);
	assert_false(l.first);
	assert_memory_equal(l.text, "LTSSM Fault Up", l.text_len);

	assert_true(sxid_parse_line("nvidia-nvswitch0: SXid (PCI:0000:03:00.0): 19049, Correctable, Link 07 NCISOC HDR ECC limit error", &l));
	assert_int_equal(l.sev, SXID_SEV_CORRECTABLE);
	assert_int_equal(l.link, 7);

	/* the PRI form has no link */
	assert_true(sxid_parse_line("nvidia-nvswitch1: SXid (PCI:0000:04:00.0): 10001, Non-fatal, PRI error, instance=2, chiplet=0", &l));
	assert_int_equal(l.sev, SXID_SEV_NONFATAL);
	assert_int_equal(l.link, -1);
	assert_memory_equal(l.text, "PRI error, instance=2, chiplet=0", l.text_len);

	/* SOE, thermal and cable events carry no severity word */
	assert_true(sxid_parse_line("nvidia-nvswitch1: SXid (PCI:0000:04:00.0): 26006, SOE HALTED", &l));
	assert_int_equal(l.kind, SXID_LINE_HEADER);
	assert_int_equal(l.sev, SXID_SEV_UNKNOWN);
	assert_memory_equal(l.text, "SOE HALTED", l.text_len);

	/* a PCI domain other than 0 (Grace systems) */
	assert_true(sxid_parse_line("nvidia-nvswitch2: SXid (PCI:0002:00:00.0): 23001, Fatal, Link 11 ingress SRC-VC buffer overflow", &l));
	assert_string_equal(l.bdf, "0002:00:00.0");
}

static void test_line_continuations(void **state)
{
	(void)state;
	struct sxid_line l;
	assert_true(sxid_parse_line("nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 20034, Severity 1 Engine instance 60 Sub-engine instance 00", &l));
	assert_int_equal(l.kind, SXID_LINE_SEVERITY);
	assert_int_equal(l.instance, 2);
	assert_int_equal(l.sev, SXID_SEV_FATAL);
	assert_int_equal(l.engine, 60);
	assert_int_equal(l.subengine, 0);

	assert_true(sxid_parse_line("nvidia-nvswitch1: SXid (PCI:0000:02:00.0): 22013, Severity 0 Engine instance 01 Sub-engine instance 00", &l));
	assert_int_equal(l.sev, SXID_SEV_NONFATAL);
	assert_int_equal(l.engine, 1);

	assert_true(sxid_parse_line("nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Data {0x000001c0, 0x00bd5c8a, 0x00000500, "
				    "0x00000064, 0x00000000, 0x40008000, 0x5a001100, 0x00000000, 0x00000000}", &l));
	assert_int_equal(l.kind, SXID_LINE_DATA);
	assert_int_equal(l.ndata, 9);
	assert_int_equal(l.data[0], 0x1c0);
	assert_int_equal(l.data[1], 0x00bd5c8a);
	assert_int_equal(l.data[6], 0x5a001100);
	assert_int_equal(l.sev, SXID_SEV_UNKNOWN);

	assert_true(sxid_parse_line("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Data {0x00000001, 0x00000000, 0x00000000, "
				    "0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}", &l));
	assert_int_equal(l.ndata, 8);
}

static void test_line_rejects(void **state)
{
	(void)state;
	struct sxid_line l;
	assert_false(sxid_parse_line("NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", &l));
	assert_false(sxid_parse_line("nvidia-nvswitch: Probing device 0000:02:00.0, Vendor Id = 0x10de, Device Id = 0x22a3", &l));
	assert_false(sxid_parse_line("nvidia-nvswitch3: SXid (PCI:0000:c1:00.0): garbled, Fatal", &l));
	assert_false(sxid_parse_line("nvidia-nvswitch3: SXid (PCI:zz): 12028, Fatal, Link 1 x", &l));
	assert_false(sxid_parse_line("nvidia-nvswitch3: SXid (PCI:0000:05:00.0) 12028, Fatal", &l));
	assert_false(sxid_parse_line("", &l));
	/* no "nvidia-nvswitchN:" prefix: still an SXid, switch instance unknown */
	assert_true(sxid_parse_line("SXid (PCI:0000:05:00.0): 12028, Fatal, Link 3 x", &l));
	assert_int_equal(l.instance, -1);
	/* a cut Severity line is not one */
	assert_false(sxid_parse_line("nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 22013, Severity x", &l));
}

static void test_grouping(void **state)
{
	(void)state;
	struct sxid_line h, s, d, d2, other;
	struct sxid_event ev;
	assert_true(sxid_parse_line("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 x (First)", &h));
	assert_true(sxid_parse_line("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Severity 0 Engine instance 32 Sub-engine instance 00", &s));
	assert_true(sxid_parse_line("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Data {0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0x9}", &d));
	assert_true(sxid_parse_line("nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Data {0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8}", &d2));
	assert_true(sxid_parse_line("nvidia-nvswitch0: SXid (PCI:0000:03:00.0): 12028, Severity 0 Engine instance 32 Sub-engine instance 00", &other));
	sxid_event_start(&ev, &h);
	assert_true(ev.header);
	assert_false(sxid_event_continues(&ev, &h));     /* a header opens a new group */
	assert_false(sxid_event_continues(&ev, &other)); /* another switch */
	assert_true(sxid_event_continues(&ev, &s));
	sxid_event_merge(&ev, &s);
	assert_false(sxid_event_continues(&ev, &s));     /* one Severity line per group */
	assert_false(sxid_event_continues(&ev, &d2));    /* the 8-word line comes second */
	assert_true(sxid_event_continues(&ev, &d));
	sxid_event_merge(&ev, &d);
	assert_true(sxid_event_continues(&ev, &d2));
	sxid_event_merge(&ev, &d2);
	assert_false(sxid_event_continues(&ev, &d));
	assert_int_equal(ev.sev, SXID_SEV_NONFATAL);
	assert_int_equal(ev.link, 32);
	assert_int_equal(ev.engine, 32);
	assert_true(ev.first);
	assert_int_equal(ev.data_lines, 2);
	assert_int_equal(ev.ndata, 9);
	assert_int_equal(ev.data[8], 9);

	/* an orphan Severity line: the engine instance stands for the link */
	sxid_event_start(&ev, &other);
	assert_false(ev.header);
	assert_int_equal(ev.link, 32);
	assert_int_equal(ev.sev, SXID_SEV_NONFATAL);
	assert_string_equal(sxid_sev_name(SXID_SEV_FATAL), "fatal");
	assert_string_equal(sxid_sev_name(SXID_SEV_UNKNOWN), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_catalog_lookup),
		cmocka_unit_test(test_catalog_table),
		cmocka_unit_test(test_line_header),
		cmocka_unit_test(test_line_continuations),
		cmocka_unit_test(test_line_rejects),
		cmocka_unit_test(test_grouping),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
