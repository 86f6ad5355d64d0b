/* Unit tests of kb/sxid (the NVSwitch SXid catalog), analyze/sxid_parse (SXid
 * line shapes and their grouping), analyze/sxid_rules and the KEV_SXID events kernel_parse makes
 * of the real excerpts in tests/fixtures/kernel/sxid-* (sources in
 * tests/fixtures/kernel/SOURCES.md). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/kernel_parse.h"
#include "analyze/kmsg.h"
#include "analyze/sxid_parse.h"
#include "analyze/sxid_rules.h"
#include "kb/causes.h"
#include "kb/sxid.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "util/input.h"

#include "kread.h"

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
	assert_string_equal(s->text, "egress non-posted PRIV error");

	s = kb_sxid(20034);
	assert_non_null(s);
	assert_string_equal(s->name, "NVSWITCH_ERR_HW_DLPL_LTSSM_FAULT_UP");
	assert_int_equal(s->sclass, SXID_CLASS_FATAL);
	assert_string_equal(sxid_class_name(s->sclass), "fatal to the port");

	s = kb_sxid(22013);
	assert_non_null(s);
	assert_int_equal(s->severity, SEV_INFO);
	assert_string_equal(s->action, "IGNORE");
	assert_non_null(strstr(s->text, "Minion Link DLREQ interrupt"));

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
		assert_non_null(t[i].text);
		assert_null(strchr(t[i].text, '%'));
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

/* Every prefix of real lines, and seeded random byte changes: no crash, no
 * read past the line, fields in range. */
static void test_robust(void **state)
{
	(void)state;
	static const char *lines[] = {
		"nvidia-nvswitch3: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 32 egress non-posted PRIV error (First)",
		"nvidia-nvswitch2: SXid (PCI:0000:07:00.0): 20034, Severity 1 Engine instance 60 Sub-engine instance 00",
		("nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Data {0x000001c0, 0x00bd5c8a, 0x00000500, 0x00000064, "
		 "0x00000000, 0x40008000, 0x5a001100, 0x00000000, 0x00000000, 0x00000001, 0x00000002}"),
	};
	char buf[256];
	unsigned seed = 12345;
	for (size_t k = 0; k < sizeof(lines) / sizeof(lines[0]); k++) {
		size_t len = strlen(lines[k]);
		assert_true(len < sizeof(buf));
		for (size_t cut = 0; cut <= len; cut++) {
			memcpy(buf, lines[k], cut);
			buf[cut] = '\0';
			struct sxid_line l;
			if (sxid_parse_line(buf, &l)) {
				if (l.kind == SXID_LINE_HEADER)
					assert_true(l.text >= buf && l.text + l.text_len <= buf + cut);
				else
					assert_int_equal(l.text_len, 0);
				assert_true(l.ndata <= SXID_DATA_WORDS + 1);
			}
		}
		for (int round = 0; round < 3000; round++) {
			memcpy(buf, lines[k], len + 1);
			for (int m = 0; m < 3; m++) {
				seed = seed * 1103515245u + 12345u;
				size_t at = (seed >> 8) % len;
				seed = seed * 1103515245u + 12345u;
				buf[at] = (char)(1 + (seed >> 16) % 255);
			}
			struct sxid_line l;
			struct sxid_event ev;
			if (sxid_parse_line(buf, &l)) {
				assert_true(l.text_len <= strlen(buf));
				assert_true(strlen(l.bdf) == 12);
				sxid_event_start(&ev, &l);
				if (sxid_event_continues(&ev, &l))
					sxid_event_merge(&ev, &l);
				assert_true(ev.ndata <= SXID_DATA_WORDS);
			}
		}
	}
	/* a data line longer than we keep: the first nine words, counted as more */
	struct sxid_line l;
	assert_true(sxid_parse_line(lines[2], &l));
	assert_int_equal(l.ndata, SXID_DATA_WORDS + 1);
	assert_int_equal(l.data[8], 0);
}

/* ---- rules ---- */

static struct sxid_event ev_of(const char *line)
{
	struct sxid_line l;
	struct sxid_event ev;
	assert_true(sxid_parse_line(line, &l));
	sxid_event_start(&ev, &l);
	return ev;
}

static void test_rules(void **state)
{
	(void)state;
	char buf[200];
	struct sxid_event ev = ev_of("nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up");
	assert_true(sxid_is_fatal(&ev));
	assert_int_equal(sxid_finding_id(&ev), FID_SXID_FATAL);
	assert_int_equal(sxid_severity(&ev), SEV_ERROR);
	assert_string_equal(sxid_cause(&ev), "nvlink_fabric");
	assert_string_equal(sxid_describe(&ev, buf, sizeof(buf)),
			    "SXid 20034 NVSWITCH_ERR_HW_DLPL_LTSSM_FAULT_UP, fatal, switch 1 link 48");

	/* the driver's word wins over the catalog: a documented non-fatal code logged Fatal */
	ev = ev_of("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Fatal, Link 3 egress non-posted PRIV error");
	assert_true(sxid_is_fatal(&ev));
	ev = ev_of("nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Non-fatal, Link 3 egress non-posted PRIV error");
	assert_false(sxid_is_fatal(&ev));
	assert_int_equal(sxid_finding_id(&ev), FID_SXID_NONFATAL);
	assert_int_equal(sxid_severity(&ev), SEV_ERROR); /* it stalls the GPU's traffic */

	ev = ev_of("nvidia-nvswitch1: SXid (PCI:0000:02:00.0): 22013, Non-fatal, Link 00 Minion Link DLREQ interrupt");
	assert_int_equal(sxid_severity(&ev), SEV_INFO);
	ev = ev_of("nvidia-nvswitch0: SXid (PCI:0000:03:00.0): 13001, Correctable, Link 07 x");
	assert_int_equal(sxid_severity(&ev), SEV_INFO);
	ev = ev_of("nvidia-nvswitch0: SXid (PCI:0000:03:00.0): 13001, Non-fatal, Link 07 x");
	assert_int_equal(sxid_severity(&ev), SEV_WARNING);

	/* no word: the catalog decides */
	ev = ev_of("nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 23001, Data {0x1, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0}");
	assert_true(sxid_is_fatal(&ev));
	assert_string_equal(sxid_describe(&ev, buf, sizeof(buf)),
			    "SXid 23001 NVSWITCH_ERR_HW_NXBAR_TILE_INGRESS_BUFFER_OVERFLOW, fatal by the catalog, switch 1");
	ev = ev_of("nvidia-nvswitch1: SXid (PCI:0000:84:00.0): 12028, Data {0x1, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0, 0x0}");
	assert_false(sxid_is_fatal(&ev));
	assert_string_equal(sxid_describe(&ev, buf, sizeof(buf)),
			    "SXid 12028 NVSWITCH_ERR_HW_NPORT_EGRESS_PRIVRSPERR, severity not logged, switch 1");

	ev = ev_of("SXid (PCI:0000:05:00.0): 29999, Fatal, Link 1 new");
	assert_string_equal(sxid_cause(&ev), "nvlink_fabric");
	assert_string_equal(sxid_describe(&ev, buf, sizeof(buf)), "SXid 29999 (not in the catalog), fatal, link 1");
}

static void test_gpus_behind(void **state)
{
	(void)state;
	/* two GPUs with two links each to switch 05, one link of GPU 1 to switch 06 */
	const struct sxid_link with_ports[] = {
		{ "0000:05:00.0", 32, 0, 0 }, { "0000:05:00.0", 33, 0, 1 },
		{ "0000:05:00.0", 40, 1, 0 }, { "0000:05:00.0", 41, 1, 1 },
		{ "0000:06:00.0", 48, 1, 2 },
	};
	int g[8];
	bool exact;
	size_t n = sxid_gpus_behind(with_ports, 5, "0000:05:00.0", 33, g, 8, &exact);
	assert_int_equal(n, 1);
	assert_true(exact);
	assert_int_equal(g[0], 0);
	n = sxid_gpus_behind(with_ports, 5, "0000:06:00.0", 48, g, 8, &exact);
	assert_int_equal(n, 1);
	assert_int_equal(g[0], 1);
	/* a port the map lacks, or no port: every GPU on that switch, once each */
	n = sxid_gpus_behind(with_ports, 5, "0000:05:00.0", 7, g, 8, &exact);
	assert_int_equal(n, 2);
	assert_false(exact);
	n = sxid_gpus_behind(with_ports, 5, "0000:05:00.0", -1, g, 8, &exact);
	assert_int_equal(n, 2);
	assert_int_equal(g[0], 0);
	assert_int_equal(g[1], 1);
	/* ports unknown in the map (NVML without the remote link number) */
	const struct sxid_link no_ports[] = { { "0000:05:00.0", -1, 3, 0 }, { "0000:06:00.0", -1, 4, 0 } };
	n = sxid_gpus_behind(no_ports, 2, "0000:06:00.0", 48, g, 8, &exact);
	assert_int_equal(n, 1);
	assert_false(exact);
	assert_int_equal(g[0], 4);
	assert_int_equal(sxid_gpus_behind(no_ports, 2, "0000:07:00.0", 1, g, 8, &exact), 0);
	/* max bounds what is written, not what is counted */
	assert_int_equal(sxid_gpus_behind(with_ports, 5, "0000:05:00.0", -1, g, 1, &exact), 2);
}

/* ---- fixtures through kmsg + kernel_parse, as `nccl-doctor kernel` reads them ---- */

static void on_line(void *ctx, const struct kline *l)
{
	kparser_line(ctx, l);
}

static void run_file(struct kparser *kp, const char *name)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/kernel/%s", ND_FIXTURES, name);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	struct kreader kr;
	kparser_init(kp, 200);
	kreader_init(&kr, on_line, kp);
	assert_true(kread_fd(&kr, fd) >= 0);
	close(fd);
}

/* The i-th KEV_SXID event. */
static struct kevent *sxid_ev(struct kparser *kp, size_t i)
{
	for (size_t k = 0; k < kparser_count(kp); k++) {
		struct kevent *e = kparser_event(kp, k);
		if (e->kind == KEV_SXID && i-- == 0)
			return e;
	}
	fail_msg("no SXid event %zu", i);
	return NULL;
}

static size_t count_kind(struct kparser *kp, enum kev_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < kparser_count(kp); i++)
		n += kparser_event(kp, i)->kind == k;
	return n;
}

static void test_fixture_h100_dlreq(void **state)
{
	(void)state;
	struct kparser kp;
	run_file(&kp, "sxid-h100-dlreq.dmesg");
	assert_int_equal(count_kind(&kp, KEV_SXID), 6);
	assert_int_equal(kparser_count(&kp), 6); /* probe and MSI lines are no events */
	struct kevent *e = sxid_ev(&kp, 0);
	assert_string_equal(kev_kind_name(e->kind), "sxid");
	assert_int_equal(e->code, 22013);
	assert_string_equal(e->bdf, "0000:02:00.0");
	assert_int_equal(e->sx.instance, 1);
	assert_int_equal(e->sx.link, 0);
	assert_int_equal(e->sev, SXID_SEV_NONFATAL);
	assert_true(e->sx.severity_line);
	assert_int_equal(e->sx.data_lines, 1);
	assert_int_equal(e->sx.data[4], 0x80005302);
	assert_string_equal(e->detail_text, "Minion Link DLREQ interrupt");
	assert_true(e->ts > 25.94 && e->ts < 25.95);
	e = sxid_ev(&kp, 1);
	assert_int_equal(e->sx.link, 1);
	assert_true(e->sx.severity_line);
	assert_int_equal(e->sx.data_lines, 0);
	/* the excerpt starts with a Data line whose header came before it */
	e = sxid_ev(&kp, 2);
	assert_string_equal(e->bdf, "0000:04:00.0");
	assert_false(e->sx.header);
	assert_int_equal(e->sx.data_lines, 1);
	assert_int_equal(e->sx.data[0], 0x2b);
	assert_int_equal(e->sev, SXID_SEV_UNKNOWN);
	for (size_t i = 3; i < 6; i++) {
		e = sxid_ev(&kp, i);
		assert_true(e->sx.header);
		assert_int_equal(e->sx.instance, 3);
		assert_int_equal(e->sx.link, 44 + (int)(i - 3));
		assert_int_equal(e->sev, SXID_SEV_NONFATAL);
	}
	assert_int_equal(sxid_ev(&kp, 3)->sx.data[0], 0x2c);
	assert_int_equal(sxid_ev(&kp, 4)->sx.data[0], 0x2d);
	assert_false(sxid_ev(&kp, 5)->sx.severity_line); /* the excerpt ends there */
	kparser_release(&kp);
}

static void test_fixture_ltssm_offbus(void **state)
{
	(void)state;
	struct kparser kp;
	run_file(&kp, "sxid-ltssm-offbus.dmesg");
	assert_int_equal(count_kind(&kp, KEV_XID), 1);
	assert_int_equal(count_kind(&kp, KEV_OFF_BUS), 1);
	assert_int_equal(count_kind(&kp, KEV_SXID), 5);
	static const struct {
		const char *bdf;
		int inst, link;
		bool header, sevline;
		unsigned data;
	} want[] = {
		{ "0000:06:00.0", 1, 48, true, false, 0 },
		{ "0000:05:00.0", 0, 63, true, false, 1 },
		{ "0000:07:00.0", 2, 60, false, true, 0 }, /* its header is not in the excerpt */
		{ "0000:07:00.0", 2, 37, true, true, 0 },
		{ "0000:05:00.0", 0, 62, true, true, 0 },
	};
	for (size_t i = 0; i < 5; i++) {
		struct kevent *e = sxid_ev(&kp, i);
		assert_int_equal(e->code, 20034);
		assert_string_equal(e->bdf, want[i].bdf);
		assert_int_equal(e->sx.instance, want[i].inst);
		assert_int_equal(e->sx.link, want[i].link);
		assert_int_equal(e->sx.header, want[i].header);
		assert_int_equal(e->sx.severity_line, want[i].sevline);
		assert_int_equal(e->sx.data_lines, want[i].data);
		assert_int_equal(e->sev, SXID_SEV_FATAL);
	}
	assert_string_equal(sxid_ev(&kp, 0)->detail_text, "LTSSM Fault Up");
	kparser_release(&kp);
}

static void test_fixture_dmesg_x(void **state)
{
	(void)state;
	struct kparser kp;
	run_file(&kp, "sxid-dmesg-x.txt");
	assert_int_equal(kparser_count(&kp), 1);
	struct kevent *e = sxid_ev(&kp, 0);
	assert_int_equal(e->code, 12028);
	assert_string_equal(e->bdf, "0000:84:00.0");
	assert_int_equal(e->sx.instance, 1);
	assert_int_equal(e->sx.ndata, 9);
	assert_int_equal(e->sx.data[1], 0x00bd5c8a);
	assert_int_equal(e->sev, SXID_SEV_UNKNOWN);
	assert_int_equal(e->sx.link, -1);
	kparser_release(&kp);
}

static void test_fixture_shapes(void **state)
{
	(void)state;
	struct kparser kp;
	run_file(&kp, "sxid-shapes.dmesg");
	assert_int_equal(count_kind(&kp, KEV_SXID), 6);
	struct kevent *e = sxid_ev(&kp, 0);
	assert_int_equal(e->code, 12028);
	assert_true(e->sx.first);
	assert_int_equal(e->sx.link, 32);
	assert_int_equal(e->sx.engine, 32);
	assert_int_equal(e->sx.data_lines, 2);
	assert_string_equal(e->detail_text, "egress non-posted PRIV error");
	assert_int_equal(sxid_ev(&kp, 1)->sev, SXID_SEV_CORRECTABLE);
	assert_true(sxid_ev(&kp, 1)->sx.severity_line);
	assert_int_equal(sxid_ev(&kp, 2)->sx.link, -1);
	assert_string_equal(sxid_ev(&kp, 2)->detail_text, "PRI error, instance=2, chiplet=0");
	assert_int_equal(sxid_ev(&kp, 3)->sev, SXID_SEV_UNKNOWN);
	assert_string_equal(sxid_ev(&kp, 3)->detail_text, "SOE HALTED");
	assert_string_equal(sxid_ev(&kp, 4)->bdf, "0002:00:00.0");
	assert_true(sxid_ev(&kp, 4)->sx.severity_line);
	assert_int_equal(sxid_ev(&kp, 5)->code, 99999);
	assert_null(kb_sxid(sxid_ev(&kp, 5)->code));
	kparser_release(&kp);
}

/* Continuations search the ring only back to the newest SXid of their switch. */
static void test_kparser_interleaved(void **state)
{
	(void)state;
	struct kparser kp;
	kparser_init(&kp, 50);
	static const char *lines[] = {
		"nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 LTSSM Fault Up",
		"NVRM: Xid (PCI:0000:91:00): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.",
		"nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Fatal, Link 48 LTSSM Fault Up",
		"nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Severity 1 Engine instance 63 Sub-engine instance 00",
		"nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 20034, Severity 1 Engine instance 48 Sub-engine instance 00",
		"nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Data {0x10000000, 0x10000000, 0x00000000, 0x10000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000, 0x00000000}",
		/* a second Severity line for switch 0: its group has one, so it stands alone */
		"nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Severity 1 Engine instance 62 Sub-engine instance 00",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		struct kline l = { .msg = lines[i], .ts_kind = TS_NONE, .lineno = i + 1 };
		kparser_line(&kp, &l);
	}
	assert_int_equal(count_kind(&kp, KEV_SXID), 3);
	assert_int_equal(count_kind(&kp, KEV_XID), 1);
	struct kevent *e = sxid_ev(&kp, 0);
	assert_int_equal(e->sx.link, 63);
	assert_true(e->sx.severity_line);
	assert_int_equal(e->sx.data_lines, 1);
	assert_int_equal(e->lineno, 1);
	assert_true(sxid_ev(&kp, 1)->sx.severity_line);
	assert_int_equal(sxid_ev(&kp, 1)->sx.data_lines, 0);
	assert_int_equal(sxid_ev(&kp, 2)->sx.link, 62);
	assert_int_equal(sxid_ev(&kp, 2)->lineno, 7);
	kparser_release(&kp);
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
		cmocka_unit_test(test_robust),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_gpus_behind),
		cmocka_unit_test(test_fixture_h100_dlreq),
		cmocka_unit_test(test_fixture_ltssm_offbus),
		cmocka_unit_test(test_fixture_dmesg_x),
		cmocka_unit_test(test_fixture_shapes),
		cmocka_unit_test(test_kparser_interleaved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
