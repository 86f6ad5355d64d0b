/* Unit tests of analyze/kmsg and analyze/kernel_parse: every format variant
 * of tests/fixtures/kernel (one fixture per variant, built from the literal
 * formats of kernel-log.md), the timestamp prefixes, kmsg records (escapes,
 * dictionaries, sequence gaps, torn lines), binary and compressed input,
 * over-long lines, and the bounded event ring. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/kernel_analyze.h"
#include "analyze/kernel_parse.h"
#include "analyze/kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "util/input.h"

#include "kread.h"

struct run {
	struct kparser kp;
	struct kreader kr;
	int rc;
};

static void on_line(void *ctx, const struct kline *l)
{
	kparser_line(ctx, l);
}

/* Parses a fixture file into r (cap events kept). */
static void run_file(struct run *r, const char *name, size_t cap)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/kernel/%s", ND_FIXTURES, name);
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	kparser_init(&r->kp, cap);
	kreader_init(&r->kr, on_line, &r->kp);
	r->rc = kread_fd(&r->kr, fd);
	close(fd);
}

/* Parses text given in the test. */
static void run_text(struct run *r, const char *text)
{
	kparser_init(&r->kp, 100);
	kreader_init(&r->kr, on_line, &r->kp);
	char *copy = strdup(text);
	uint64_t ln = 0;
	for (char *line = strtok(copy, "\n"); line; line = strtok(NULL, "\n"))
		kreader_line(&r->kr, line, strlen(line), ++ln);
	free(copy);
	r->rc = 0;
}

static void done(struct run *r)
{
	kparser_release(&r->kp);
}

static struct kevent *ev(struct run *r, size_t i)
{
	assert_true(i < kparser_count(&r->kp));
	return kparser_event(&r->kp, i);
}

static size_t count_kind(struct run *r, enum kev_kind k)
{
	size_t n = 0;
	for (size_t i = 0; i < kparser_count(&r->kp); i++)
		n += kparser_event(&r->kp, i)->kind == k;
	return n;
}

/* ---- pure helpers ---- */

static void test_bdf(void **state)
{
	(void)state;
	char b[16];
	bool nofn = false;
	assert_int_equal(kparse_bdf("0000:5d:00.0: x", false, b, sizeof(b), &nofn), 12);
	assert_string_equal(b, "0000:5d:00.0");
	assert_false(nofn);
	assert_int_equal(kparse_bdf("3b:00.1]", false, b, sizeof(b), NULL), 7);
	assert_string_equal(b, "0000:3b:00.1");
	/* an Xid address has no function digit */
	assert_int_equal(kparse_bdf("0000:5D:00)", true, b, sizeof(b), &nofn), 10);
	assert_string_equal(b, "0000:5d:00.0");
	assert_true(nofn);
	assert_int_equal(kparse_bdf("0000:5d:00)", false, b, sizeof(b), NULL), 0);
	/* 5.17-era DMAR form */
	assert_int_equal(kparse_bdf("0x3b:0x00.0]", false, b, sizeof(b), NULL), 11);
	assert_string_equal(b, "0000:3b:00.0");
	assert_int_equal(kparse_bdf("hello", true, b, sizeof(b), NULL), 0);
	assert_int_equal(kparse_bdf("0000:5d:40.0", false, b, sizeof(b), NULL), 0); /* device > 0x1f */
	assert_int_equal(kparse_bdf("12345:00:00.0", false, b, sizeof(b), NULL), 0);
}

static void test_split(void **state)
{
	(void)state;
	char *msg;
	enum ts_kind tk;
	double ts;
	char l1[] = "[   12.345678] NVRM: hello";
	assert_int_equal(klog_split(l1, &msg, &tk, &ts, 2026), KFMT_DMESG);
	assert_int_equal(tk, TS_BOOT);
	assert_true(ts > 12.3456 && ts < 12.3457);
	assert_string_equal(msg, "NVRM: hello");
	char l2[] = "[Tue Dec  1 10:00:00 2026] x y";
	assert_int_equal(klog_split(l2, &msg, &tk, &ts, 2026), KFMT_DMESG_T);
	assert_int_equal(tk, TS_WALL);
	assert_true(ts == 1796119200.0); /* 2026-12-01 10:00:00 UTC */
	assert_string_equal(msg, "x y");
	char l3[] = "Dec  1 10:00:00 host kernel: [  5.5] NVRM: z";
	assert_int_equal(klog_split(l3, &msg, &tk, &ts, 2026), KFMT_SYSLOG);
	assert_true(ts == 1796119200.0);
	assert_string_equal(msg, "NVRM: z");
	char l4[] = "2026-12-01T10:00:00.250+01:00 host kernel: m";
	assert_int_equal(klog_split(l4, &msg, &tk, &ts, 2026), KFMT_ISO);
	assert_true(ts == 1796119200.25);
	assert_string_equal(msg, "m");
	char l5[] = "[  7.000000] node kernel: m2";
	assert_int_equal(klog_split(l5, &msg, &tk, &ts, 2026), KFMT_MONO);
	assert_string_equal(msg, "m2");
	char l6[] = "kern  :err   : [  1.5] m3";
	assert_int_equal(klog_split(l6, &msg, &tk, &ts, 2026), KFMT_DMESG);
	assert_string_equal(msg, "m3");
	char l7[] = "<4>[  1.5] m4";
	assert_int_equal(klog_split(l7, &msg, &tk, &ts, 2026), KFMT_DMESG);
	assert_string_equal(msg, "m4");
	char l10[] = "[   12.500000] [  T4321] NVRM: caller";
	assert_int_equal(klog_split(l10, &msg, &tk, &ts, 2026), KFMT_DMESG);
	assert_string_equal(msg, "NVRM: caller");
	char l8[] = "[ no stamp here";
	assert_int_equal(klog_split(l8, &msg, &tk, &ts, 2026), KFMT_PLAIN);
	assert_int_equal(tk, TS_NONE);
	char l9[] = "Decimal 12 is not a month";
	assert_int_equal(klog_split(l9, &msg, &tk, &ts, 2026), KFMT_PLAIN);
}

static void test_unescape(void **state)
{
	(void)state;
	char s[] = "a\\x0ab\\x5cc\\x00d\\xZZ";
	assert_int_equal(kmsg_unescape(s), strlen("a\nb\\c d\\xZZ"));
	assert_string_equal(s, "a\nb\\c d\\xZZ");
}

static void test_reasons_duration(void **state)
{
	(void)state;
	assert_string_equal(dmar_reason_text(5), "PTE Write access is not set");
	assert_string_equal(dmar_reason_text(0x0d), "PCE for translation request specifies blocking");
	assert_string_equal(dmar_reason_text(0x25), "Blocked a compatibility format interrupt request");
	assert_non_null(strstr(dmar_reason_text(0x38), "SM"));
	double d;
	assert_int_equal(parse_duration("90s", &d), 0);
	assert_true(d == 90);
	assert_int_equal(parse_duration("1h30m", &d), 0);
	assert_true(d == 5400);
	assert_int_equal(parse_duration("2d", &d), 0);
	assert_true(d == 172800);
	assert_int_equal(parse_duration("600", &d), 0);
	assert_true(d == 600);
	assert_int_equal(parse_duration("10min", &d), 0);
	assert_true(d == 600);
	assert_int_equal(parse_duration("", &d), -EINVAL);
	assert_int_equal(parse_duration("abc", &d), -EINVAL);
	assert_int_equal(parse_duration("5y", &d), -EINVAL);
	assert_int_equal(parse_duration("0", &d), -EINVAL);
	char buf[40];
	assert_string_equal(kts_text(TS_BOOT, 12.3456, buf, sizeof(buf)), "boot+12.346s");
	assert_string_equal(kts_text(TS_WALL, 1796119200.0, buf, sizeof(buf)), "2026-12-01 10:00:00");
}

/* ---- NVRM ---- */

static void test_xid_current(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "xid-current.dmesg", 100);
	assert_int_equal(r.rc, 0);
	assert_int_equal(count_kind(&r, KEV_XID), 5);
	assert_int_equal(count_kind(&r, KEV_GPU_UUID), 1);
	assert_int_equal(count_kind(&r, KEV_OFF_BUS), 1);
	assert_int_equal(count_kind(&r, KEV_CRASH_DUMP), 1);
	struct kevent *u = ev(&r, 0);
	assert_int_equal(u->kind, KEV_GPU_UUID);
	assert_string_equal(u->uuid, "GPU-12345678-abcd-ef01-2345-6789abcdef01");
	assert_string_equal(u->detail_text, "1650123456789"); /* board serial joined */
	struct kevent *x = ev(&r, 1);
	assert_int_equal(x->kind, KEV_XID);
	assert_int_equal(x->code, 79);
	assert_string_equal(x->bdf, "0000:5d:00.0");
	assert_true(x->bdf_nofn);
	assert_string_equal(x->pid, "<unknown>");
	assert_string_equal(x->pname, "<unknown>");
	assert_string_equal(x->detail_text, "GPU has fallen off the bus.");
	assert_true(x->ts_kind == TS_BOOT && x->ts > 100.0 && x->ts < 100.1);
	assert_int_equal(x->lineno, 4);
	struct kevent *o = ev(&r, 2);
	assert_int_equal(o->kind, KEV_OFF_BUS);
	assert_string_equal(o->bdf, "0000:5d:00.0");
	assert_false(o->bdf_nofn);
	/* pid without name (Row Remapper line) */
	struct kevent *x63 = ev(&r, 4);
	assert_int_equal(x63->code, 63);
	assert_string_equal(x63->pid, "1896");
	assert_string_equal(x63->pname, "");
	assert_string_equal(x63->bdf, "0000:10:1c.0");
	assert_non_null(strstr(x63->detail_text, "Row Remapper"));
	struct kevent *x45 = ev(&r, 5);
	assert_int_equal(x45->code, 45);
	assert_string_equal(x45->pname, "python3");
	assert_int_equal(ev(&r, 6)->code, 154);
	done(&r);
}

static void test_xid_mig(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "xid-mig.dmesg", 100);
	assert_int_equal(count_kind(&r, KEV_XID), 2);
	assert_int_equal(ev(&r, 0)->code, 13);
	assert_int_equal(ev(&r, 0)->gi, 1);
	assert_int_equal(ev(&r, 0)->ci, -1);
	assert_string_equal(ev(&r, 0)->bdf, "0000:3b:00.0");
	assert_int_equal(ev(&r, 1)->code, 31);
	assert_int_equal(ev(&r, 1)->gi, 2);
	assert_int_equal(ev(&r, 1)->ci, 0);
	assert_string_equal(ev(&r, 1)->pid, "<unknown>");
	done(&r);
}

static void test_xid_legacy_oldest(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "xid-legacy.dmesg", 100);
	assert_int_equal(kparser_count(&r.kp), 2);
	assert_int_equal(ev(&r, 0)->code, 79);
	assert_string_equal(ev(&r, 0)->pid, "");
	assert_string_equal(ev(&r, 0)->detail_text, "GPU has fallen off the bus.");
	assert_int_equal(ev(&r, 1)->kind, KEV_OFF_BUS);
	assert_string_equal(ev(&r, 1)->bdf, "0000:5a:00.0");
	done(&r);

	run_file(&r, "xid-oldest.txt", 100);
	assert_int_equal(count_kind(&r, KEV_XID), 3);
	assert_int_equal(ev(&r, 0)->code, 14);
	assert_string_equal(ev(&r, 0)->bdf, "0000:03:00.0");
	assert_int_equal(ev(&r, 0)->ts_kind, TS_NONE);
	assert_string_equal(ev(&r, 0)->detail_text, "Channel 00000001");
	assert_int_equal(ev(&r, 2)->code, 999);
	done(&r);
}

static void test_offbus_probe(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "offbus-probe.dmesg", 100);
	assert_int_equal(kparser_count(&r.kp), 2);
	assert_int_equal(ev(&r, 0)->kind, KEV_OFF_BUS);
	assert_string_equal(ev(&r, 0)->bdf, "0000:b3:00.0");
	assert_string_equal(ev(&r, 0)->type, "probe time");
	assert_int_equal(ev(&r, 1)->kind, KEV_PROBE_FAILED);
	assert_string_equal(ev(&r, 1)->bdf, "0000:b3:00.0");
	done(&r);
}

/* NVRM lines naming a GPU-fatal RM status (kb/rm_status.def): the status,
 * the PCI address or the driver's GPU instance when the line has one, and
 * no event for a name the driver only compared against. */
static void test_rm_status(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "rm-status.dmesg", 100);
	assert_int_equal(count_kind(&r, KEV_RM_STATUS), 5);
	struct kevent *e = ev(&r, 1);
	assert_int_equal(e->kind, KEV_RM_STATUS);
	assert_string_equal(e->type, "NV_ERR_RESET_REQUIRED");
	assert_int_equal(e->code, 0x62);
	assert_string_equal(e->detail_text, "Reset required");
	assert_string_equal(e->bdf, "");
	assert_int_equal(e->rm_gpu, -1);
	e = ev(&r, 3);
	assert_string_equal(e->type, "NV_ERR_GPU_IS_LOST");
	assert_int_equal(e->code, 0x0F);
	assert_int_equal(e->rm_gpu, 5);
	/* "(status == NV_ERR_GPU_IN_FULLCHIP_RESET)" is a comparison, not a status met */
	e = ev(&r, 4);
	assert_string_equal(e->type, "NV_ERR_RISCV_ERROR");
	assert_string_equal(e->bdf, "0000:04:00.0");
	assert_false(e->bdf_nofn);
	assert_int_equal(ev(&r, 5)->kind, KEV_XID);
	e = ev(&r, 6);
	assert_string_equal(e->type, "NV_ERR_ECC_ERROR");
	assert_string_equal(e->bdf, "0000:04:00.0");
	assert_true(e->bdf_nofn);
	done(&r);
	/* a longer name that starts like one of the table is not it */
	run_text(&r, "[ 1.0] NVRM: Check failed: x [NV_ERR_GPU_IS_LOST_X] (0x0000000F)\n"
		     "[ 2.0] NVRM: GPU12: Check failed: Fatal/unrecoverable error [NV_ERR_FATAL_ERROR] (0x00000071)\n");
	assert_int_equal(kparser_count(&r.kp), 1);
	assert_string_equal(ev(&r, 0)->type, "NV_ERR_FATAL_ERROR");
	assert_int_equal(ev(&r, 0)->rm_gpu, 12);
	done(&r);
}

/* ---- AER ---- */

static void test_aer_new(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "aer-new.dmesg", 100);
	assert_int_equal(kparser_count(&r.kp), 4);
	struct kevent *a = ev(&r, 0);
	assert_int_equal(a->kind, KEV_AER);
	assert_int_equal(a->sev, AER_CORRECTED);
	assert_string_equal(a->bdf, "0000:01:00.0");
	assert_string_equal(a->port, "0000:00:01.1");
	assert_true(a->detail);
	assert_string_equal(a->type, "Physical Layer");
	assert_string_equal(a->agent, "Receiver ID");
	assert_int_equal(a->status, 1);
	assert_int_equal(a->mask, 0xe000);
	assert_string_equal(a->bits, "RxErr");
	struct kevent *m = ev(&r, 1);
	assert_true(m->multiple);
	assert_string_equal(m->bits, "BadTLP,Timeout");
	assert_string_equal(m->agent, "Transmitter ID");
	struct kevent *n = ev(&r, 2);
	assert_int_equal(n->sev, AER_NONFATAL);
	assert_string_equal(n->bits, "ACSViol");
	assert_int_equal(n->status, 0x200000);
	struct kevent *f = ev(&r, 3);
	assert_int_equal(f->sev, AER_FATAL);
	assert_string_equal(f->type, "Inaccessible");
	assert_string_equal(f->agent, "Unregistered Agent ID");
	done(&r);
}

static void test_aer_old_ghes(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "aer-old.dmesg", 100);
	assert_int_equal(kparser_count(&r.kp), 2);
	assert_int_equal(ev(&r, 0)->sev, AER_CORRECTED);
	assert_string_equal(ev(&r, 0)->type, "Physical Layer");
	assert_string_equal(ev(&r, 0)->agent, "Receiver ID");
	assert_string_equal(ev(&r, 0)->bits, "Receiver Error");
	assert_int_equal(ev(&r, 1)->sev, AER_NONFATAL);
	assert_string_equal(ev(&r, 1)->bits, "Completion Timeout");
	assert_int_equal(ev(&r, 1)->status, 0x4000);
	done(&r);

	run_text(&r, "[ 1.0] {1}[Hardware Error]: event severity: recoverable\n"
		     "[ 1.0] {1}[Hardware Error]:   section_type: PCIe error\n"
		     "[ 1.0] {1}[Hardware Error]:   device_id: 0000:3b:00.0\n"
		     "[ 1.0] pcieport 0000:3a:00.0: aer_status: 0x00100000, aer_mask: 0x00000000\n"
		     "[ 1.0] pcieport 0000:3a:00.0: aer_layer=Transaction Layer, aer_agent=Requester ID\n"
		     "[ 1.0] AER: Multiple Uncorrected (Fatal) error received: 0000:00:1c.0 (no details found\n");
	assert_int_equal(kparser_count(&r.kp), 2);
	assert_int_equal(ev(&r, 0)->sev, AER_NONFATAL);
	assert_string_equal(ev(&r, 0)->bdf, "0000:3b:00.0");
	assert_int_equal(ev(&r, 0)->status, 0x100000);
	assert_string_equal(ev(&r, 0)->type, "Transaction Layer");
	assert_string_equal(ev(&r, 0)->agent, "Requester ID");
	assert_int_equal(ev(&r, 1)->sev, AER_FATAL);
	assert_true(ev(&r, 1)->multiple);
	assert_true(ev(&r, 1)->no_details);
	assert_string_equal(ev(&r, 1)->bdf, "0000:00:1c.0");
	done(&r);
}

/* ---- IOMMU faults ---- */

static void check_dmar(struct kevent *e, const char *bdf, bool wr, uint64_t addr, int reason, const char *text)
{
	assert_int_equal(e->kind, KEV_DMAR);
	assert_string_equal(e->bdf, bdf);
	assert_int_equal(e->write, wr);
	assert_true(e->has_addr);
	assert_true(e->addr == addr);
	assert_int_equal(e->code, reason);
	assert_string_equal(e->detail_text, text);
}

static void test_dmar_generations(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "dmar-new.dmesg", 100);
	assert_int_equal(kparser_count(&r.kp), 3);
	check_dmar(ev(&r, 0), "0000:3b:00.0", false, 0x7f6a0000, 6, "PTE Read access is not set");
	check_dmar(ev(&r, 1), "0000:3b:00.0", true, 0x7f6b0000, 5, "PTE Write access is not set");
	assert_string_equal(ev(&r, 2)->type, "INTR-REMAP");
	assert_int_equal(ev(&r, 2)->code, 0x25);
	assert_false(ev(&r, 2)->has_addr);
	done(&r);
	run_file(&r, "dmar-5x.dmesg", 100);
	check_dmar(ev(&r, 0), "0000:3b:00.0", false, 0x7f6a0000, 6, "PTE Read access is not set");
	done(&r);
	run_file(&r, "dmar-4x.dmesg", 100);
	check_dmar(ev(&r, 0), "0000:3b:00.0", true, 0x7f6a0000, 5, "PTE Write access is not set");
	/* "%02d": decimal 13 is reason 0x0d */
	check_dmar(ev(&r, 1), "0000:3b:00.0", false, 0x7f6a1000, 13, "PCE for translation request specifies blocking");
	done(&r);
	run_file(&r, "dmar-517.dmesg", 100);
	check_dmar(ev(&r, 0), "0000:3b:00.0", true, 0x7f6a0000, 5, "PTE Write access is not set");
	check_dmar(ev(&r, 1), "0000:3b:00.0", false, 0x7f6a0000, 6, "PTE Read access is not set");
	done(&r);
	run_file(&r, "dmar-old.dmesg", 100);
	assert_int_equal(kparser_count(&r.kp), 1);
	check_dmar(ev(&r, 0), "0000:00:02.0", true, 0x6df084000, 5, "PTE Write access is not set");
	done(&r);
}

static void test_amdvi(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "amdvi.dmesg", 100);
	assert_int_equal(count_kind(&r, KEV_AMDVI), 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(ev(&r, i)->bdf, "0000:41:00.0");
	assert_string_equal(ev(&r, 0)->type, "IO_PAGE_FAULT");
	assert_true(ev(&r, 0)->write);
	assert_true(ev(&r, 0)->addr == 0x7f000000);
	assert_int_equal(ev(&r, 0)->code, 0xe);
	assert_true(ev(&r, 1)->write); /* vflags suffix */
	assert_false(ev(&r, 2)->write);
	assert_true(ev(&r, 3)->addr == 0xfdf9c000);
	assert_string_equal(ev(&r, 4)->type, "ILLEGAL_DEV_TABLE_ENTRY");
	done(&r);
	run_text(&r, "[ 2.0] AMD-Vi: Event logged [Device not attached to domain properly]");
	assert_string_equal(ev(&r, 0)->type, "Device not attached to domain properly");
	done(&r);
}

/* ---- EDAC, IOMMU domain, hung tasks ---- */

static void test_edac_iommu_hung(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "edac.dmesg", 100);
	assert_int_equal(kparser_count(&r.kp), 3);
	assert_int_equal(ev(&r, 0)->sev, 0);
	assert_int_equal(ev(&r, 0)->code, 0);
	assert_int_equal(ev(&r, 0)->count, 1);
	assert_string_equal(ev(&r, 0)->detail_text, "CPU_SrcID#0_Ha#0_Chan#1_DIMM#0");
	assert_int_equal(ev(&r, 1)->count, 3);
	assert_int_equal(ev(&r, 2)->sev, 2);
	assert_int_equal(ev(&r, 2)->code, 1);
	done(&r);
	run_file(&r, "iommu-hung.dmesg", 100);
	assert_int_equal(ev(&r, 0)->kind, KEV_IOMMU_DOMAIN);
	assert_string_equal(ev(&r, 0)->type, "Translated");
	assert_int_equal(count_kind(&r, KEV_HUNG_TASK), 3);
	assert_string_equal(ev(&r, 1)->pname, "nccl-proxy");
	assert_string_equal(ev(&r, 1)->pid, "12345");
	assert_true(ev(&r, 1)->gpu_stack);  /* by name */
	assert_string_equal(ev(&r, 2)->pname, "python3");
	assert_true(ev(&r, 2)->gpu_stack);  /* by its stack: [nvidia] */
	assert_string_equal(ev(&r, 3)->pname, "kworker/3:1");
	assert_false(ev(&r, 3)->gpu_stack);
	done(&r);
}

/* ---- readers ---- */

static void test_formats_agree(void **state)
{
	(void)state;
	static const char *files[] = { "fmt-dmesg-T.txt", "fmt-journal.txt", "fmt-journal-iso.txt",
				       "fmt-journal-mono.txt", "fmt-kernlog.txt", "fmt-dmesg-x.txt", "fmt-kmsg.txt" };
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		struct run r;
		run_file(&r, files[i], 100);
		assert_int_equal(r.rc, 0);
		assert_int_equal(count_kind(&r, KEV_XID), 2);
		assert_int_equal(ev(&r, 0)->code, 79);
		assert_int_equal(ev(&r, 1)->code, 48);
		assert_string_equal(ev(&r, 0)->bdf, "0000:5d:00.0");
		assert_int_not_equal(ev(&r, 0)->ts_kind, TS_NONE);
		/* an hour apart in every form */
		double gap = ev(&r, 1)->ts - ev(&r, 0)->ts;
		assert_true(gap > 3599 && gap < 3601);
		done(&r);
	}
}

/* Which lines have a kernel log's own form (kread_stats.records): what
 * tells a kernel log from prose or an NCCL log ("cannot tell"). */
static void test_own_form(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		int record;
	} cases[] = {
		{ "[   12.345678] Linux version 6.8.0", 1 },
		{ "<4>[   12.345678] pci 0000:3b:00.0: x", 1 },
		{ "kern  :info  : [   12.345678] x", 1 },
		{ "[Tue Dec  1 10:00:00 2026] x", 1 },
		{ "Dec  2 10:00:00 host kernel: x", 1 },
		{ "Dec 02 10:00:00 host kernel: [   12.3] x", 1 },
		{ "2026-12-02T10:00:00+0100 host kernel: x", 1 },
		{ "2026-12-02T10:00:00,123456+01:00 x", 1 },
		{ "[   12.345678] host kernel: x", 1 },
		{ "6,1001,100000002,-;NVRM: x", 1 },
		{ "[1] NCCL INFO group.cc:242 -> 1", 0 },
		{ "[0]:", 0 },
		{ "host:77:77 [0] NCCL INFO Bootstrap : Using eth0", 0 },
		{ "2025-01-07T10:00:00.000001Z worker-0:77:77 [0] NCCL INFO x", 0 },
		{ "Dec  2 10:00:00 host sshd[12]: Accepted publickey", 0 },
		{ "This is prose.", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct run r;
		run_text(&r, cases[i].line);
		if ((int)r.kr.st.records != cases[i].record)
			fail_msg("'%s': records %llu, want %d", cases[i].line, (unsigned long long)r.kr.st.records,
				 cases[i].record);
		done(&r);
	}
}

static void test_kmsg_records(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "fmt-kmsg.txt", 100);
	assert_int_equal(r.kr.st.fmt[KFMT_KMSG], 3);
	assert_int_equal(r.kr.st.lost_records, 3); /* 1001 -> 1005 */
	/* the \x0a-escaped probe-time record gives one off-bus event */
	assert_int_equal(count_kind(&r, KEV_OFF_BUS), 1);
	assert_string_equal(ev(&r, 2)->bdf, "0000:b3:00.0");
	assert_true(ev(&r, 0)->ts > 100.0000019 && ev(&r, 0)->ts < 100.0000021);
	done(&r);
}

static void test_torn_binary_compressed(void **state)
{
	(void)state;
	struct run r;
	run_file(&r, "torn-kmsg.txt", 100);
	assert_int_equal(r.rc, 0);
	assert_int_equal(count_kind(&r, KEV_XID), 1);
	done(&r);
	run_file(&r, "binary.bin", 100);
	assert_int_equal(r.rc, -EBADMSG);
	done(&r);
	/* a compressed file is read through its decompressor (util/input.h) */
	run_file(&r, "dmesg.gz", 100);
	assert_int_equal(r.rc, 0);
	assert_true(r.kr.st.lines > 0);
	done(&r);
}

static void test_long_line_and_ring(void **state)
{
	(void)state;
	/* a 10 MB line, then an Xid: the line is cut, the Xid still found */
	FILE *f = tmpfile();
	assert_non_null(f);
	for (int i = 0; i < 10 * 1024 * 1024 / 64; i++)
		fputs("NVRM: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", f);
	fputs("\n[ 1.0] NVRM: Xid (PCI:0000:01:00): 79, pid=1, name=a, GPU has fallen off the bus.\n", f);
	for (int i = 0; i < 500; i++)
		fprintf(f, "[ %d.0] NVRM: Xid (PCI:0000:01:00): 13, pid=%d, name=a, x\n", i + 2, i);
	fflush(f);
	rewind(f);
	struct kparser kp;
	struct kreader kr;
	kparser_init(&kp, 50);
	kreader_init(&kr, on_line, &kp);
	assert_int_equal(kread_fd(&kr, fileno(f)), 0);
	fclose(f);
	assert_int_equal(kr.st.truncated, 1);
	assert_int_equal(kp.total, 501);
	assert_int_equal(kparser_count(&kp), 50);
	assert_int_equal(kparser_dropped(&kp), 451);
	/* the most recent events win */
	assert_string_equal(kparser_event(&kp, 49)->pid, "499");
	assert_string_equal(kparser_event(&kp, 0)->pid, "450");
	kparser_release(&kp);
}

/* The live reader: one record per read() (a SOCK_SEQPACKET pair behaves like
 * /dev/kmsg here), dictionary lines in the same read, EAGAIN at the end. */
static void test_live_records(void **state)
{
	(void)state;
	int sv[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
	static const char *recs[] = {
		"6,10,100000002,-;NVRM: Xid (PCI:0000:5d:00): 79, pid=1, name=x, GPU has fallen off the bus.\n SUBSYSTEM=pci\n DEVICE=+pci:0000:5d:00.0\n",
		"6,11,100500000,c;NVRM: The NVIDIA GPU 0000:b3:00.0\\x0aNVRM: fallen off the bus and is not responding to commands.\n",
		"4,15,200000000,-;pcieport 0000:00:01.1: AER: Corrected error received: 0000:01:00.0\n",
	};
	for (size_t i = 0; i < 3; i++)
		assert_true(write(sv[1], recs[i], strlen(recs[i])) == (ssize_t)strlen(recs[i]));
	struct kparser kp;
	struct kreader kr;
	kparser_init(&kp, 10);
	kreader_init(&kr, on_line, &kp);
	assert_int_equal(input_read_kmsg(sv[0], kreader_take, &kr, &kr.st.overruns), 0); /* stops at EAGAIN */
	assert_int_equal(kr.st.lines, 3);
	assert_int_equal(kr.st.lost_records, 3); /* 11 -> 15 */
	assert_int_equal(kparser_count(&kp), 3);
	assert_int_equal(kparser_event(&kp, 0)->code, 79);
	assert_int_equal(kparser_event(&kp, 0)->lineno, 1);
	assert_int_equal(kparser_event(&kp, 1)->kind, KEV_OFF_BUS);
	assert_string_equal(kparser_event(&kp, 1)->bdf, "0000:b3:00.0");
	assert_int_equal(kparser_event(&kp, 2)->kind, KEV_AER);
	assert_true(kparser_event(&kp, 2)->ts == 200.0);
	kparser_release(&kp);
	close(sv[0]);
	close(sv[1]);
}

/* Random cuts and byte flips of every fixture line: no crash, no overrun
 * (the sanitizer build checks), events stay well-formed. */
static void test_fuzz(void **state)
{
	(void)state;
	static const char *files[] = { "xid-current.dmesg", "xid-mig.dmesg", "aer-new.dmesg", "aer-old.dmesg",
				       "dmar-new.dmesg", "dmar-old.dmesg", "amdvi.dmesg", "edac.dmesg",
				       "iommu-hung.dmesg", "offbus-probe.dmesg", "fmt-kmsg.txt", "fmt-dmesg-T.txt" };
	char lines[128][512];
	size_t nl = 0;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[512];
		snprintf(path, sizeof(path), "%s/kernel/%s", ND_FIXTURES, files[i]);
		FILE *f = fopen(path, "r");
		assert_non_null(f);
		while (nl < 128 && fgets(lines[nl], sizeof(lines[nl]), f)) {
			lines[nl][strcspn(lines[nl], "\n")] = '\0';
			nl++;
		}
		fclose(f);
	}
	srand(12345);
	struct kparser kp;
	struct kreader kr;
	kparser_init(&kp, 64);
	kreader_init(&kr, on_line, &kp);
	char buf[600];
	for (int it = 0; it < 20000; it++) {
		const char *src = lines[rand() % nl];
		size_t len = strlen(src);
		size_t cut = len ? (size_t)rand() % (len + 1) : 0;
		if (rand() % 2)
			cut = len;
		memcpy(buf, src, cut);
		buf[cut] = '\0';
		int flips = rand() % 4;
		for (int k = 0; k < flips && cut; k++) {
			static const char alphabet[] = "0123456789abcdefx:.[]() ,;=-\\";
			buf[rand() % cut] = rand() % 3 ? alphabet[rand() % (sizeof(alphabet) - 1)] : (char)(rand() % 256);
		}
		kreader_line(&kr, buf, strlen(buf), (uint64_t)it + 1);
	}
	assert_true(kp.total > 1000);
	for (size_t i = 0; i < kparser_count(&kp); i++) {
		const struct kevent *e = kparser_event(&kp, i);
		assert_true(e->kind < KEV_NKINDS);
		assert_true(strlen(e->bdf) == 0 || strlen(e->bdf) == 12);
		assert_true(strlen(e->msg) < sizeof(e->msg));
	}
	kparser_release(&kp);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bdf),
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_unescape),
		cmocka_unit_test(test_reasons_duration),
		cmocka_unit_test(test_xid_current),
		cmocka_unit_test(test_xid_mig),
		cmocka_unit_test(test_xid_legacy_oldest),
		cmocka_unit_test(test_offbus_probe),
		cmocka_unit_test(test_rm_status),
		cmocka_unit_test(test_aer_new),
		cmocka_unit_test(test_aer_old_ghes),
		cmocka_unit_test(test_dmar_generations),
		cmocka_unit_test(test_amdvi),
		cmocka_unit_test(test_edac_iommu_hung),
		cmocka_unit_test(test_formats_agree),
		cmocka_unit_test(test_own_form),
		cmocka_unit_test(test_kmsg_records),
		cmocka_unit_test(test_torn_binary_compressed),
		cmocka_unit_test(test_long_line_and_ring),
		cmocka_unit_test(test_live_records),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
