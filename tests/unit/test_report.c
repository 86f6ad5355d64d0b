/* Unit tests of report/: the JSON document (unknown values as null plus the
 * "unknown" map, SHOW_TEXT_ONLY / SHOW_JSON_ONLY facts and columns, extra
 * members at top level, summary and exit code, invalid UTF-8 still valid
 * JSON) and the text report (aligned labels and columns, marks, findings,
 * the verdict line last), report_render's write errors and cmd_finish. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "cmd/cmd.h"
#include "kb/findings.h"
#include "model/result.h"
#include "report/report.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The result every test renders. */
static struct result *sample(void)
{
	struct result *r = result_new("sys");
	result_set_headline(r, "host n1: %d GPUs", 4);
	struct section *s = result_section(r, "driver", "Driver");
	section_add(s, "version", "Version", val_str("580.159.04"));
	section_add(s, "cuda", "CUDA driver", val_unknown("needs root"))->mark = MARK_WARN;
	section_add(s, "secret", "Secret label that is very long", val_int(7))->show = SHOW_JSON_ONLY;
	section_add(s, "textonly", "Shown", val_str("text only"))->show = SHOW_TEXT_ONLY;
	section_add(s, "open", "Open module", val_bool(true))->mark = MARK_OK;
	section_add(s, "size", "Size", val_with_display(val_int(67108864), "64 MiB"));
	section_note(s, "a note");

	struct section *p = result_section(r, "pci", "PCI");
	static const struct column cols[] = {
		{ "bdf", "BDF", 0 },
		{ "name", "NAME", 0 },
		{ "secret", "SECRET-COLUMN-TITLE", SHOW_JSON_ONLY },
		{ "note", "NOTE", SHOW_TEXT_ONLY },
		{ "link", "LINK", 0 },
	};
	struct table *t = section_table(p, "devices", "Devices", cols, 5);
	size_t row = table_add_row(t);
	table_set(t, row, "bdf", val_str("0000:03:00.0"));
	table_set(t, row, "name", val_str("H200"));
	table_set(t, row, "secret", val_str("s0"));
	table_set(t, row, "note", val_str("ok"));
	table_set(t, row, "link", val_unknown("needs root"));
	row = table_add_row(t);
	table_set(t, row, "bdf", val_str("0000:04:00.0"));
	table_set(t, row, "name", val_str("\xC3\x9C")); /* one display column */
	table_set(t, row, "secret", val_str("s1"));
	table_set(t, row, "note", val_str("x"));
	table_set(t, row, "link", val_str("x16"));
	table_mark(t, row, "link", MARK_BAD);

	struct finding *f = finding_add(r, FID_NOFILE_LOW, SEV_WARNING, "nofile %d", 1024);
	f = finding_add(r, FID_SHM_TOO_SMALL, SEV_ERROR, "bad \xff title");
	finding_evidence(f, "/proc/self/mountinfo", 12, "size=%s", "65536k");
	finding_evidence(f, NULL, 0, "no file");
	finding_evidence(f, "/etc/x", 0, "file, no line");
	finding_fix(f, "docker", "shares the host's IPC namespace", "--ipc=host");
	finding_fix(f, "env", NULL, "NCCL_SHM_DISABLE=1");
	finding_add(r, FID_NO_NVIDIA_GPU, SEV_INFO, "none");

	json_object_set_new(r->extra, "causes", json_pack("[ii]", 1, 2));
	json_object_set_new(r->extra, "ranks", json_pack("{si}", "a", 1));
	return r;
}

/* ---- JSON ---- */

static void test_json_document(void **state)
{
	(void)state;
	struct result *r = sample();
	json_t *doc = report_json(r);
	assert_int_equal(json_integer_value(json_object_get(doc, "schema_version")), ND_JSON_SCHEMA_VERSION);
	assert_string_equal(json_string_value(json_object_get(doc, "command")), "sys");
	assert_string_equal(json_string_value(json_object_get(doc, "headline")), "host n1: 4 GPUs");
	assert_string_equal(json_string_value(json_object_get(doc, "tool_version")), NCCL_DOCTOR_VERSION);
	assert_null(json_object_get(doc, "error"));

	json_t *drv = json_object_get(json_object_get(doc, "facts"), "driver");
	assert_true(json_is_object(drv));
	assert_string_equal(json_string_value(json_object_get(drv, "version")), "580.159.04");
	/* unknown: null plus the reason in the section's "unknown" map */
	assert_true(json_is_null(json_object_get(drv, "cuda")));
	json_t *unk = json_object_get(drv, "unknown");
	assert_int_equal(json_object_size(unk), 1);
	assert_string_equal(json_string_value(json_object_get(unk, "cuda")), "needs root");
	/* JSON-only facts are there, text-only ones are not */
	assert_int_equal(json_integer_value(json_object_get(drv, "secret")), 7);
	assert_null(json_object_get(drv, "textonly"));
	assert_true(json_is_true(json_object_get(drv, "open")));
	/* display text does not reach JSON */
	assert_int_equal(json_integer_value(json_object_get(drv, "size")), 67108864);
	json_t *notes = json_object_get(drv, "notes");
	assert_int_equal(json_array_size(notes), 1);
	assert_string_equal(json_string_value(json_array_get(notes, 0)), "a note");

	json_t *pci = json_object_get(json_object_get(doc, "facts"), "pci");
	assert_null(json_object_get(pci, "unknown"));
	assert_null(json_object_get(pci, "notes"));
	json_t *rows = json_object_get(pci, "devices");
	assert_int_equal(json_array_size(rows), 2);
	json_t *r0 = json_array_get(rows, 0), *r1 = json_array_get(rows, 1);
	assert_string_equal(json_string_value(json_object_get(r0, "bdf")), "0000:03:00.0");
	assert_string_equal(json_string_value(json_object_get(r0, "secret")), "s0");
	assert_null(json_object_get(r0, "note"));
	assert_true(json_is_null(json_object_get(r0, "link")));
	assert_string_equal(json_string_value(json_object_get(json_object_get(r0, "unknown"), "link")), "needs root");
	assert_int_equal(json_object_size(r0), 5); /* bdf name secret link unknown */
	assert_null(json_object_get(r1, "unknown"));
	assert_string_equal(json_string_value(json_object_get(r1, "link")), "x16");
	assert_string_equal(json_string_value(json_object_get(r1, "name")), "\xC3\x9C");

	/* findings in the order they were added */
	json_t *fs = json_object_get(doc, "findings");
	assert_int_equal(json_array_size(fs), 3);
	json_t *f1 = json_array_get(fs, 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(fs, 0), "id")), "NOFILE_LOW");
	assert_string_equal(json_string_value(json_object_get(f1, "id")), "SHM_TOO_SMALL");
	assert_string_equal(json_string_value(json_object_get(f1, "severity")), "error");
	assert_string_equal(json_string_value(json_object_get(f1, "cause")), "shm_too_small");
	assert_string_equal(json_string_value(json_object_get(f1, "title")), "bad \xEF\xBF\xBD title");
	json_t *ev = json_object_get(f1, "evidence");
	assert_int_equal(json_array_size(ev), 3);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ev, 0), "file")), "/proc/self/mountinfo");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(ev, 0), "line")), 12);
	assert_string_equal(json_string_value(json_object_get(json_array_get(ev, 0), "text")), "size=65536k");
	assert_null(json_object_get(json_array_get(ev, 1), "file"));
	assert_null(json_object_get(json_array_get(ev, 1), "line"));
	assert_null(json_object_get(json_array_get(ev, 2), "line"));
	json_t *fx = json_object_get(f1, "fixes");
	assert_int_equal(json_array_size(fx), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(fx, 0), "kind")), "docker");
	assert_string_equal(json_string_value(json_object_get(json_array_get(fx, 0), "note")),
			    "shares the host's IPC namespace");
	assert_null(json_object_get(json_array_get(fx, 1), "note"));
	assert_string_equal(json_string_value(json_object_get(json_array_get(fs, 2), "severity")), "info");

	/* extra members at top level */
	json_t *causes = json_object_get(doc, "causes");
	assert_int_equal(json_array_size(causes), 2);
	assert_int_equal(json_integer_value(json_array_get(causes, 1)), 2);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "ranks"), "a")), 1);
	/* the result keeps its own reference */
	assert_non_null(json_object_get(r->extra, "causes"));

	json_t *sum = json_object_get(doc, "summary");
	assert_int_equal(json_integer_value(json_object_get(sum, "errors")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "warnings")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "info")), 1);
	assert_int_equal(json_integer_value(json_object_get(sum, "exit_code")), 2);

	/* the whole document serialises to valid JSON that parses back equal */
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	assert_non_null(text);
	json_error_t err;
	json_t *back = json_loads(text, 0, &err);
	assert_non_null(back);
	assert_true(json_equal(back, doc));
	json_decref(back);
	free(text);
	json_decref(doc);
	result_free(r);
}

static void test_json_invalid_utf8_everywhere(void **state)
{
	(void)state;
	struct result *r = result_new("logs");
	result_set_headline(r, "head \xc3");
	result_set_error(r, "cannot read '\xfe\xff': x");
	struct section *s = result_section(r, "s", "S");
	section_add(s, "v", "V", val_str("\x80\x81"));
	section_add(s, "u", "U", val_unknown("\xc0\xaf"));
	section_note(s, "note \xe2\x82");
	struct finding *f = finding_add(r, FID_NO_NVIDIA_GPU, SEV_INFO, "t\xff");
	finding_evidence(f, "file\xff", 3, "line \xff");
	finding_fix(f, "env\xff", "note\xff", "X=\xff");
	json_t *doc = report_json(r);
	char *text = json_dumps(doc, 0);
	assert_non_null(text);
	json_error_t err;
	json_t *back = json_loads(text, 0, &err);
	assert_non_null(back);
	assert_string_equal(json_string_value(json_object_get(back, "headline")), "head \xEF\xBF\xBD");
	assert_string_equal(json_string_value(json_object_get(back, "error")), "cannot read '\xEF\xBF\xBD\xEF\xBF\xBD': x");
	json_t *sj = json_object_get(json_object_get(back, "facts"), "s");
	assert_string_equal(json_string_value(json_object_get(sj, "v")), "\xEF\xBF\xBD\xEF\xBF\xBD");
	assert_string_equal(json_string_value(json_object_get(json_object_get(sj, "unknown"), "u")),
			    "\xEF\xBF\xBD\xEF\xBF\xBD");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(back, "summary"), "exit_code")), 3);
	json_decref(back);
	free(text);
	json_decref(doc);
	result_free(r);
}

static void test_json_empty_result(void **state)
{
	(void)state;
	struct result *r = result_new("topo");
	json_t *doc = report_json(r);
	assert_null(json_object_get(doc, "headline"));
	assert_int_equal(json_object_size(json_object_get(doc, "facts")), 0);
	assert_int_equal(json_array_size(json_object_get(doc, "findings")), 0);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "summary"), "exit_code")), 0);
	json_decref(doc);
	result_free(r);
}

/* ---- text ---- */

static char *render_text(const struct result *r, bool color)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	report_text(r, &(struct render_opts){ .color = color, .full = true }, f);
	fclose(f);
	return buf;
}

/* The n-th line (0-based) of text, in a static buffer. */
static const char *line_of(const char *text, int n)
{
	static char buf[1024];
	const char *p = text;
	for (int i = 0; i < n && p; i++) {
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	if (!p)
		return NULL;
	size_t len = strcspn(p, "\n");
	if (len >= sizeof(buf))
		len = sizeof(buf) - 1;
	memcpy(buf, p, len);
	buf[len] = '\0';
	return buf;
}

/* Display column (code points) where needle starts in line, -1 if absent. */
static int column_of(const char *line, const char *needle)
{
	const char *p = strstr(line, needle);
	if (!p)
		return -1;
	int col = 0;
	for (const char *q = line; q < p; q++)
		if (((unsigned char)*q & 0xC0) != 0x80)
			col++;
	return col;
}

static void test_text_report(void **state)
{
	(void)state;
	struct result *r = sample();
	char *out = render_text(r, false);
	/* headline, blank line, then the sections */
	assert_string_equal(line_of(out, 0), "host n1: 4 GPUs");
	assert_string_equal(line_of(out, 1), "");
	assert_string_equal(line_of(out, 2), "Driver");
	/* labels padded to the longest visible one ("CUDA driver"), plus two */
	assert_string_equal(line_of(out, 3), "   Version      580.159.04");
	assert_string_equal(line_of(out, 4), " * CUDA driver  unknown (needs root)");
	assert_string_equal(line_of(out, 5), "   Shown        text only");
	assert_string_equal(line_of(out, 6), "   Open module  yes");
	assert_string_equal(line_of(out, 7), "   Size         64 MiB");
	assert_string_equal(line_of(out, 8), "   a note");
	assert_string_equal(line_of(out, 9), "");
	assert_null(strstr(out, "Secret"));
	assert_null(strstr(out, "SECRET"));
	assert_null(strstr(out, "s0"));
	assert_string_equal(line_of(out, 10), "PCI");
	assert_string_equal(line_of(out, 11), "  Devices");
	/* columns BDF 12 wide, NAME 4, LINK 20, NOTE 4: each cell is a space,
	 * the text padded to the width, a space, the last one unpadded; prose
	 * (NOTE) goes last; '!' marks a row with a bad cell */
	assert_string_equal(line_of(out, 12), "    BDF           NAME  LINK                  NOTE");
	assert_string_equal(line_of(out, 13), "    0000:03:00.0  H200  unknown (needs root)  ok");
	assert_string_equal(line_of(out, 14), "  ! 0000:04:00.0  \xC3\x9C     x16                   x");
	/* the same columns by display width, multi-byte text included */
	char hdr[1024], r0[1024], r1[1024];
	strcpy(hdr, line_of(out, 12));
	strcpy(r0, line_of(out, 13));
	strcpy(r1, line_of(out, 14));
	assert_int_equal(column_of(hdr, "NAME"), column_of(r0, "H200"));
	assert_int_equal(column_of(hdr, "NAME"), column_of(r1, "\xC3\x9C"));
	int last = 0; /* the column of r1's last cell */
	for (const char *q = r1; q < strrchr(r1, ' ') + 1; q++)
		last += ((unsigned char)*q & 0xC0) != 0x80;
	assert_int_equal(column_of(hdr, "NOTE"), last);
	assert_int_equal(column_of(hdr, "LINK"), column_of(r0, "unknown"));
	assert_int_equal(column_of(hdr, "LINK"), column_of(r1, "x16"));
	assert_string_equal(line_of(out, 15), "   ! a problem"); /* the legend of the marker */
	assert_string_equal(line_of(out, 16), "");
	assert_string_equal(line_of(out, 17), "Findings");
	assert_string_equal(line_of(out, 18), "  WARN  NOFILE_LOW  nofile 1024");
	assert_string_equal(line_of(out, 19), "        cause: NCCL configuration error (variables / topology files) [nccl_config_error]");
	/* a byte that is no UTF-8 is shown, not sent to the terminal */
	assert_string_equal(line_of(out, 20), "  ERROR SHM_TOO_SMALL  bad \\xff title");
	assert_string_equal(line_of(out, 21), "        cause: /dev/shm too small, full or cleared [shm_too_small]");
	assert_string_equal(line_of(out, 22), "        evidence: /proc/self/mountinfo:12: size=65536k");
	assert_string_equal(line_of(out, 23), "        evidence: no file");
	assert_string_equal(line_of(out, 24), "        evidence: /etc/x: file, no line");
	assert_string_equal(line_of(out, 25), "        fix (docker): --ipc=host");
	assert_string_equal(line_of(out, 26), "            shares the host's IPC namespace");
	assert_string_equal(line_of(out, 27), "        fix (env): NCCL_SHM_DISABLE=1");
	assert_string_equal(line_of(out, 28), "  info  NO_NVIDIA_GPU  none");
	assert_string_equal(line_of(out, 29), "        cause: no known cause [unknown]");
	assert_string_equal(line_of(out, 30), "");
	assert_string_equal(line_of(out, 31), "Verdict: BROKEN (1 error, 1 warning, 1 note)");
	/* the verdict is the last line */
	assert_string_equal(line_of(out, 32), "");
	assert_null(line_of(out, 33));
	assert_null(strchr(out, '\033'));
	free(out);

	/* colour: escape sequences, same verdict words */
	out = render_text(r, true);
	assert_non_null(strstr(out, "\033["));
	assert_non_null(strstr(out, "BROKEN"));
	assert_non_null(strstr(out, "\033[31m\033[1mERROR"));
	free(out);
	result_free(r);
}

/* Text from outside reaches the terminal in its visible form: no escape
 * sequence, C1 control or stray byte in any place a string is printed;
 * the JSON keeps the strings as they are. */
static void test_text_controls(void **state)
{
	(void)state;
	struct result *r = result_new("kernel");
	result_set_headline(r, "Kernel log: \x1b]0;title\x07 read");
	struct section *s = result_section(r, "input", "Input \x1b[2J");
	section_add(s, "source", "source", val_str("/tmp/x\x1b[31m.log"));
	section_note(s, "note \xC2\x9B" "6n");
	static const struct column cols[] = { { "file", "file", 0 }, { "line", "line", 0 } };
	struct table *t = section_table(s, "events", "events", cols, 2);
	size_t row = table_add_row(t);
	table_set(t, row, "file", val_str("a\rb"));
	table_set(t, row, "line", val_str("x\x9by"));
	struct finding *f = finding_add(r, FID_SHM_TOO_SMALL, SEV_ERROR, "title \x1b[1m");
	finding_evidence(f, "k\x1b.log", 3, "NVRM: Xid \x1b[5m79\nVerdict: HEALTHY");
	finding_fix(f, "docker", NULL, "docker run \\\n  --ipc=host\x1b[0m");
	char *out = render_text(r, false);
	assert_null(strchr(out, '\x1b'));
	assert_null(strchr(out, '\r'));
	assert_null(strstr(out, "\xC2\x9B"));
	assert_null(strchr(out, '\x9b'));
	assert_string_equal(line_of(out, 0), "Kernel log: \\x1b]0;title\\x07 read");
	assert_non_null(strstr(out, "\nInput \\x1b[2J\n"));
	assert_non_null(strstr(out, "source  /tmp/x\\x1b[31m.log\n"));
	assert_non_null(strstr(out, "note \\u009b6n\n"));
	assert_non_null(strstr(out, " a\\x0db "));
	assert_non_null(strstr(out, " x\\x9by"));
	assert_non_null(strstr(out, "SHM_TOO_SMALL  title \\x1b[1m\n"));
	/* a newline inside a log line cannot forge a line of the report */
	assert_non_null(strstr(out, "evidence: k\\x1b.log:3: NVRM: Xid \\x1b[5m79\\x0aVerdict: HEALTHY\n"));
	/* our own fix text keeps its lines */
	assert_non_null(strstr(out, "fix (docker): docker run \\\n  --ipc=host\\x1b[0m\n"));
	free(out);
	json_t *j = report_json(r);
	assert_string_equal(json_string_value(json_object_get(j, "headline")), "Kernel log: \x1b]0;title\x07 read");
	json_decref(j);
	result_free(r);
}

static const char *last_line(const char *text)
{
	static char buf[512];
	size_t n = strlen(text);
	assert_true(n > 0);
	assert_int_equal(text[n - 1], '\n');
	const char *end = text + n - 1;
	const char *start = end;
	while (start > text && start[-1] != '\n')
		start--;
	size_t len = (size_t)(end - start);
	assert_true(len < sizeof(buf));
	memcpy(buf, start, len);
	buf[len] = '\0';
	return buf;
}

static void test_text_verdicts(void **state)
{
	(void)state;
	struct result *r = result_new("sys");
	char *out = render_text(r, false);
	assert_string_equal(out, "Verdict: HEALTHY (0 errors, 0 warnings, 0 notes)\n");
	free(out);
	finding_add(r, FID_NO_NVIDIA_GPU, SEV_INFO, "a");
	finding_add(r, FID_NO_NVIDIA_GPU, SEV_INFO, "b");
	out = render_text(r, false);
	assert_string_equal(last_line(out), "Verdict: HEALTHY (0 errors, 0 warnings, 2 notes)");
	free(out);
	finding_add(r, FID_NOFILE_LOW, SEV_WARNING, "w");
	out = render_text(r, false);
	assert_string_equal(last_line(out), "Verdict: DEGRADED (0 errors, 1 warning, 2 notes)");
	free(out);
	finding_add(r, FID_SHM_TOO_SMALL, SEV_ERROR, "e1");
	finding_add(r, FID_SHM_TOO_SMALL, SEV_ERROR, "e2");
	out = render_text(r, false);
	assert_string_equal(last_line(out), "Verdict: BROKEN (2 errors, 1 warning, 2 notes)");
	free(out);
	result_set_error(r, "cannot read '/sys': permission denied");
	out = render_text(r, false);
	assert_string_equal(last_line(out), "Could not complete: cannot read '/sys': permission denied");
	assert_null(strstr(out, "Verdict"));
	free(out);
	result_free(r);
}

static void test_text_empty_table(void **state)
{
	(void)state;
	struct result *r = result_new("sys");
	struct section *s = result_section(r, "net", "Network");
	static const struct column cols[] = { { "name", "IFACE", 0 } };
	section_table(s, "interfaces", "Interfaces", cols, 1);
	section_note(s, "no interface found");
	char *out = render_text(r, false);
	assert_string_equal(out, "Network\n   no interface found\n\nVerdict: HEALTHY (0 errors, 0 warnings, 0 notes)\n");
	free(out);
	json_t *doc = report_json(r);
	json_t *rows = json_object_get(json_object_get(json_object_get(doc, "facts"), "net"), "interfaces");
	assert_true(json_is_array(rows));
	assert_int_equal(json_array_size(rows), 0);
	json_decref(doc);
	result_free(r);
}

/* ---- render and cmd_finish ---- */

static void test_render(void **state)
{
	(void)state;
	struct result *r = sample();
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct render_opts o = { .json = true, .color = false };
	assert_int_equal(report_render(r, &o, f), 0);
	fclose(f);
	assert_true(len > 2);
	assert_int_equal(buf[len - 1], '\n');
	json_error_t err;
	json_t *doc = json_loads(buf, 0, &err);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "command")), "sys");
	json_decref(doc);
	free(buf);

	/* a full disk is an error, for both renderers */
	f = fopen("/dev/full", "w");
	if (f) {
		assert_int_equal(report_render(r, &o, f), -EIO);
		fclose(f);
		f = fopen("/dev/full", "w");
		o.json = false;
		assert_int_equal(report_render(r, &o, f), -EIO);
		fclose(f);
	}
	result_free(r);
}

/* Runs cmd_finish with stdout and stderr sent to files; returns its code. */
static int finish_captured(struct result *r, bool json, char **out, char **err)
{
	char po[] = "/tmp/nd-out.XXXXXX", pe[] = "/tmp/nd-err.XXXXXX";
	int fo = mkstemp(po), fe = mkstemp(pe);
	assert_true(fo >= 0 && fe >= 0);
	unlink(po);
	unlink(pe);
	fflush(stdout);
	fflush(stderr);
	int so = dup(1), se = dup(2);
	dup2(fo, 1);
	dup2(fe, 2);
	struct run_opts opt = { .json = json, .color = false };
	int code = cmd_finish(r, &opt);
	fflush(stdout);
	fflush(stderr);
	dup2(so, 1);
	dup2(se, 2);
	close(so);
	close(se);
	int fds[2] = { fo, fe };
	char **dst[2] = { out, err };
	for (int i = 0; i < 2; i++) {
		off_t n = lseek(fds[i], 0, SEEK_END);
		*dst[i] = calloc(1, (size_t)n + 1);
		assert_int_equal(pread(fds[i], *dst[i], (size_t)n, 0), n);
		close(fds[i]);
	}
	return code;
}

static void test_cmd_finish(void **state)
{
	(void)state;
	char *out, *err;
	struct result *r = result_new("sys");
	assert_int_equal(finish_captured(r, false, &out, &err), EXIT_HEALTHY);
	assert_string_equal(out, "Verdict: HEALTHY (0 errors, 0 warnings, 0 notes)\n");
	assert_string_equal(err, "");
	free(out);
	free(err);

	r = result_new("sys");
	finding_add(r, FID_NOFILE_LOW, SEV_WARNING, "w");
	assert_int_equal(finish_captured(r, true, &out, &err), EXIT_WARNINGS);
	json_error_t jerr;
	json_t *doc = json_loads(out, 0, &jerr);
	assert_non_null(doc);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "summary"), "exit_code")), 1);
	json_decref(doc);
	free(out);
	free(err);

	r = result_new("sys");
	finding_add(r, FID_NOFILE_LOW, SEV_WARNING, "w");
	finding_add(r, FID_SHM_TOO_SMALL, SEV_ERROR, "e");
	assert_int_equal(finish_captured(r, false, &out, &err), EXIT_PROBLEM);
	free(out);
	free(err);

	/* an error: exit 3, a one-line message on stderr in text mode */
	r = result_new("sys");
	result_set_error(r, "cannot read '%s': %s", "/proc", "permission denied");
	assert_int_equal(finish_captured(r, false, &out, &err), EXIT_CANNOT_RUN);
	assert_string_equal(err, "nccl-doctor sys: cannot read '/proc': permission denied\n");
	free(out);
	free(err);
	r = result_new("sys");
	result_set_error(r, "boom");
	assert_int_equal(finish_captured(r, true, &out, &err), EXIT_CANNOT_RUN);
	assert_string_equal(err, "");
	doc = json_loads(out, 0, &jerr);
	assert_non_null(doc);
	assert_string_equal(json_string_value(json_object_get(doc, "error")), "boom");
	json_decref(doc);
	free(out);
	free(err);
}

/* Renders r as text or JSON into a string the caller frees. */
static char *render_to(const struct result *r, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct render_opts o = { .json = json, .color = false, .full = true };
	assert_int_equal(report_render(r, &o, f), 0);
	fclose(f);
	/* a copy: GCC 12's -Wdangling-pointer takes pointers into the stream's
	 * buffer for pointers to the local variable whose address it was given */
	char *copy = strdup(buf);
	free(buf);
	assert_non_null(copy);
	return copy;
}

/* The typed causes and ranks: text tables in their sections' places, JSON
 * members at the top level only, confidence a number printed as 0.97. */
/* Markers, words and abbreviated column titles are explained once per
 * report, under the first table that shows them, and only those shown. */
static void test_text_legend(void **state)
{
	(void)state;
	struct result *r = result_new("p2p");
	struct section *s = result_section(r, "pairs", "GPU pairs");
	static const struct column cols[] = { { "pair", "pair", 0 }, { "ce", "CE", 0 }, { "nccl", "NCCL", 0 } };
	for (int k = 0; k < 2; k++) {
		struct table *t = section_table(s, k ? "more" : "pairs", NULL, cols, 3);
		size_t row = table_add_row(t);
		table_set(t, row, "pair", val_str("0->1"));
		table_set(t, row, "ce", val_str("BAD p2p"));
		table_set(t, row, "nccl", val_str("-"));
		table_mark(t, row, "ce", MARK_BAD);
	}
	char *out = render_to(r, false);
	const char *l = strstr(out, "\n   ! a problem; CE: ");
	assert_non_null(l);
	assert_non_null(strstr(l, "; BAD: wrong data or the step failed\n"));
	assert_null(strstr(out, "* a warning"));            /* no warning row */
	assert_null(strstr(out, "NCCL: NCCL's own"));       /* no "ok" in the NCCL column */
	assert_null(strstr(l + 6, "! a problem"));          /* once per report */
	free(out);
	result_free(r);
}

static void test_typed_causes_ranks(void **state)
{
	(void)state;
	struct result *r = result_new("logs");
	result_section(r, "inputs", "Inputs");
	struct rank_list *rl = result_ranks(r, "Ranks");
	struct rank *k = rank_list_add(rl);
	k->host = strdup("h0");
	k->pid = 7;
	k->rank = 0;
	k->nranks = 2;
	k->rank_of_comm = true;
	k->stage = strdup("T4");
	k->stage_name = strdup("T4 bootstrap done");
	k->verdict = strdup("failed: LOG_X (line 3)");
	k->last_file = strdup("a.log");
	k->last_line = 9;
	k->last_text = strdup("last");
	rank_add_transport(k, 1, "P2P", 2);
	rank_add_transport(k, 1, "P2P", 2);
	rank_add_transport(k, 1, "SHM", 1);
	struct cause_list *cl = result_causes(r, "Causes (best first)");
	cl->failed = true;
	struct cause *c = cause_list_add(cl, "shm_too_small", 0.97);
	cause_add_evidence(c, "a.log", 3, "failed to extend /dev/shm");
	cause_add_finding(c, "LOG_SHM_EXTEND_FAILED");
	cause_add_finding(c, "LOG_X");
	cause_list_set_first(cl, "a.log", 3, "rank 0 (h0:7)", "failed to extend /dev/shm");

	char *txt = render_to(r, false);
	/* sections in their order: inputs, ranks, causes */
	char *pi = strstr(txt, "Inputs"), *pr = strstr(txt, "Ranks"), *pc = strstr(txt, "Causes (best first)");
	assert_true(pi && pr && pc && pi < pr && pr < pc);
	assert_non_null(strstr(txt, "0/2"));
	assert_non_null(strstr(txt, "P2P,SHM"));
	/* a class in words: "Title [id]" at its first mention (the first
	 * screen's cause), the title alone after (the causes table) */
	char *first = strstr(txt, "Most likely cause: /dev/shm too small, full or cleared [shm_too_small] (0.97)");
	assert_non_null(first);
	char *row = strstr(txt, "! /dev/shm too small, full or cleared ");
	assert_true(row && row > first && !strstr(row, "[shm_too_small]"));
	assert_non_null(strstr(txt, "0.97"));
	assert_non_null(strstr(txt, "LOG_SHM_EXTEND_FAILED,LOG_X"));
	assert_non_null(strstr(txt, "first failure: a.log:3, rank 0 (h0:7): failed to extend /dev/shm"));
	free(txt);

	char *js = render_to(r, true);
	assert_non_null(strstr(js, "\"confidence\": 0.97,"));
	json_t *doc = json_loads(js, 0, NULL);
	assert_non_null(doc);
	json_t *facts = json_object_get(doc, "facts");
	assert_non_null(json_object_get(facts, "inputs"));
	assert_null(json_object_get(facts, "causes"));
	assert_null(json_object_get(facts, "ranks"));
	json_t *c0 = json_array_get(json_object_get(doc, "causes"), 0);
	assert_true(json_is_real(json_object_get(c0, "confidence")));
	json_t *r0 = json_array_get(json_object_get(doc, "ranks"), 0);
	assert_int_equal(json_integer_value(json_object_get(r0, "nranks")), 2);
	assert_true(json_is_null(json_object_get(r0, "bus_id")));
	assert_int_equal(json_array_size(json_object_get(r0, "transports")), 3);
	assert_string_equal(json_string_value(json_object_get(json_object_get(doc, "first_failure"), "process")), "rank 0 (h0:7)");
	/* a ranked result leads with causes, ranks, findings */
	const char *lead[] = { "schema_version", "causes", "ranks", "findings" };
	void *it = json_object_iter(doc);
	for (size_t i = 0; i < 4; i++, it = json_object_iter_next(doc, it))
		assert_string_equal(json_object_iter_key(it), lead[i]);
	json_decref(doc);
	free(js);
	result_free(r);
}

/* The typed topology: matrices, P2P codes and NVLink rows in text; the
 * members once, at the top level, in JSON. */
static void test_typed_topo(void **state)
{
	(void)state;
	struct result *r = result_new("topo");
	struct topo_model *m = result_topo(r);
	m->from_nvml = true;
	for (int i = 0; i < 2; i++) {
		struct topo_gpu *g = topo_add_gpu(m);
		g->index = i;
		g->bdf = strdup(i ? "0000:04:00.0" : "0000:03:00.0");
	}
	result_topo_section(r, SECTION_TOPO_GPUS, "gpus", "GPUs");
	result_topo_section(r, SECTION_TOPO_MATRIX, "matrix", "GPU-to-GPU matrix");
	topo_alloc_matrices(m, true, true);
	*topo_cell(m, m->matrix, 0, 1) = (struct link){ LINK_PHB, 4 };
	*topo_cell(m, m->matrix, 1, 0) = (struct link){ LINK_PHB, 4 };
	*topo_cell(m, m->nvml_matrix, 0, 1) = (struct link){ LINK_PHB, 4 };
	*topo_cell(m, m->sysfs_matrix, 0, 1) = (struct link){ LINK_PIX, 0 };
	result_topo_section(r, SECTION_TOPO_P2P, "p2p", "P2P");
	m->have_p2p = true;
	struct topo_p2p *p = topo_add_p2p(m);
	p->a = 0;
	p->b = 1;
	p->read = strdup("IOH_TOPOLOGY_NOT_SUPPORTED");
	p->write = strdup("OK");
	p->nvlink = strdup("OK");
	p->atomics = strdup("OK");

	char *txt = render_to(r, false);
	/* row 0 marked: NVML (PHB) and sysfs (PIX) disagree on 0-1; row 1 not:
	 * only the nvml/sysfs cells of 0-1 were set */
	assert_non_null(strstr(txt, "\n  * GPU0  X     NV4"));
	assert_non_null(strstr(txt, "\n    GPU1  NV4   X"));
	assert_non_null(strstr(txt, "\n  * GPU0  X     TNS")); /* the P2P row, marked */
	free(txt);

	char *js = render_to(r, true);
	json_t *doc = json_loads(js, 0, NULL);
	assert_non_null(doc);
	assert_int_equal(json_object_size(json_object_get(doc, "facts")), 0);
	json_t *mx = json_object_get(doc, "matrix");
	assert_string_equal(json_string_value(json_array_get(json_array_get(mx, 0), 1)), "NV4");
	assert_string_equal(json_string_value(json_array_get(json_array_get(json_object_get(doc, "sysfs_matrix"), 0), 1)), "PIX");
	assert_true(json_is_null(json_array_get(json_array_get(json_object_get(doc, "sysfs_matrix"), 1), 0)));
	assert_string_equal(json_string_value(json_object_get(doc, "matrix_source")), "nvml");
	assert_true(json_is_null(json_object_get(json_array_get(json_object_get(doc, "p2p"), 0), "cuda_can_access_peer")));
	assert_null(json_object_get(doc, "nvlinks"));
	json_decref(doc);
	free(js);
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_json_document),
		cmocka_unit_test(test_json_invalid_utf8_everywhere),
		cmocka_unit_test(test_json_empty_result),
		cmocka_unit_test(test_text_report),
		cmocka_unit_test(test_text_controls),
		cmocka_unit_test(test_text_verdicts),
		cmocka_unit_test(test_text_empty_table),
		cmocka_unit_test(test_render),
		cmocka_unit_test(test_cmd_finish),
		cmocka_unit_test(test_text_legend),
		cmocka_unit_test(test_typed_causes_ranks),
		cmocka_unit_test(test_typed_topo),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
