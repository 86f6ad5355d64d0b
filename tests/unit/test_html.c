/* Unit tests of report/html.c: the one escaping function on hostile
 * strings (markup, quotes that would end an attribute, control characters,
 * bytes that are not UTF-8, secrets), and a page made from a result built in
 * memory with hostile text: nothing in it opens or closes an element or the
 * JSON's script block, no secret is left in the text or in the embedded
 * JSON, and that JSON reads back to the text as it was (redacted). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kb/findings.h"
#include "model/result.h"
#include "report/report.h"
#include "util/strbuf.h"
#include "util/text.h"

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *esc(const char *s, unsigned flags)
{
	struct strbuf o;
	strbuf_init(&o, 0);
	strbuf_adds(&o, "");
	report_html_escape(&o, s, flags);
	return strbuf_detach(&o);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static void test_escape(void **state)
{
	(void)state;
	static const struct {
		const char *in, *out;
		unsigned flags;
	} cases[] = {
		{ "</script><script>alert(1)</script>", "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;", 0 },
		{ "\" onmouseover=\"x' y", "&quot; onmouseover=&quot;x&#39; y", 0 },
		{ "a & b &amp; <!-- c -->", "a &amp; b &amp;amp; &lt;!-- c --&gt;", 0 },
		{ "]]><![CDATA[", "]]&gt;&lt;![CDATA[", 0 },
		/* control characters visible, never raw; a tab a space */
		{ "a\x1b[31mb\tc\rd", "a\\x1b[31mb c\\x0dd", 0 },
		{ "one\ntwo", "one\\x0atwo", 0 },
		{ "one\ntwo", "one\ntwo", STR_VIS_NEWLINE },
		/* not UTF-8; C1 controls */
		{ "x\xff\xfey", "x\\xff\\xfey", 0 },
		{ "\xc2\x9b" "1m", "\\u009b1m", 0 },
		{ "GPU 0 \xe2\x86\x92 GPU 1", "GPU 0 \xe2\x86\x92 GPU 1", 0 },
		/* secrets, redacted as snapshots do */
		{ "https://alice:hunter2@10.0.0.1/x", "https://&lt;redacted&gt;@10.0.0.1/x", 0 },
		{ "NCCL_IB_TOKEN=plainsecret next", "NCCL_IB_TOKEN=&lt;redacted&gt; next", 0 },
		{ "\"HF_TOKEN=hf_abc\"", "&quot;HF_TOKEN=&lt;redacted&gt;&quot;", 0 },
		{ "key Xq7bK9mZ2pL4vT8nR3sW6yU1cE5hJ0aDfGiKoMqS end", "key &lt;redacted&gt; end", 0 },
		{ "", "", 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = esc(cases[i].in, cases[i].flags);
		if (strcmp(got, cases[i].out) != 0)
			fail_msg("case %zu: '%s', wanted '%s'", i, got, cases[i].out);
		free(got);
	}
	char *got = esc(NULL, 0); /* a missing string is an empty one */
	assert_string_equal(got, "");
	free(got);
}

static const char hostile_title[] = "hang </script><script>alert(1)</script> <!-- \" ' & \x1b[2J";

static struct result *hostile(void)
{
	struct result *r = result_new("p2p");
	result_set_headline(r, "2 GPUs</details></main><h1>x</h1>");
	struct section *s = result_section(r, "env", "Environment</summary>");
	section_add(s, "hf_token", "HF_TOKEN", val_str("hf_plain"));
	section_add(s, "url", "URL", val_str("https://alice:hunter2@host/x"));
	static const struct column cols[] = { { "name", "NAME", 0 }, { "value", "VALUE", 0 } };
	struct table *t = section_table(s, "vars", "</table>", cols, 2);
	size_t row = table_add_row(t);
	table_set(t, row, "name", val_str("MY_API_KEY"));
	table_set(t, row, "value", val_str("short"));
	struct finding *f = finding_add(r, FID_P2P_HANG, SEV_ERROR, "%s", hostile_title);
	finding_evidence(f, "/var/log/<x>.log", 3, "launch HF_TOKEN=hf_abc \"SECRET_KEY=s3\"");
	finding_fix(f, "shell", "<b>note</b>", "echo '</pre>' && export NCCL_P2P_LEVEL=PIX");
	return r;
}

static void test_page(void **state)
{
	(void)state;
	struct result *r = hostile();
	json_t *doc = report_json(r);
	char *page = report_html(r, doc);
	json_decref(doc);
	assert_non_null(page);
	assert_int_equal(strncmp(page, "<!DOCTYPE html>\n", 16), 0);
	/* the elements the page opens itself, each closed once */
	assert_int_equal(count(page, "<script"), 1);
	assert_int_equal(count(page, "</script>"), 1);
	assert_int_equal(count(page, "<details"), count(page, "</details>"));
	assert_int_equal(count(page, "<summary>"), count(page, "</summary>"));
	assert_int_equal(count(page, "<table"), count(page, "</table>"));
	assert_int_equal(count(page, "<pre>"), count(page, "</pre>"));
	assert_int_equal(count(page, "</main>"), 1);
	assert_int_equal(count(page, "<h1>"), 1);
	assert_int_equal(count(page, "<!--"), 0);
	assert_null(strstr(page, "<b>"));
	assert_null(strchr(page, '\x1b'));
	/* secrets: nowhere, the embedded JSON included */
	const char *secrets[] = { "hf_plain", "hunter2", "short", "hf_abc", "s3\"" };
	for (size_t i = 0; i < sizeof(secrets) / sizeof(secrets[0]); i++)
		if (strstr(page, secrets[i]))
			fail_msg("'%s' is in the page", secrets[i]);
	/* the JSON reads back: the title as it was, the secret redacted */
	const char *start = strstr(page, "<script type=\"application/json\" id=\"nccl-doctor-json\">");
	assert_non_null(start);
	start = strchr(start, '>') + 1;
	const char *end = strstr(start, "</script>");
	assert_non_null(end);
	json_error_t je;
	json_t *back = json_loadb(start, (size_t)(end - start), 0, &je);
	if (!back)
		fail_msg("the embedded JSON does not parse: %s (line %d)", je.text, je.line);
	json_t *f0 = json_array_get(json_object_get(back, "findings"), 0);
	assert_string_equal(json_string_value(json_object_get(f0, "title")), hostile_title);
	json_t *ev = json_array_get(json_object_get(f0, "evidence"), 0);
	assert_non_null(strstr(json_string_value(json_object_get(ev, "text")), "HF_TOKEN=<redacted>"));
	json_t *env = json_object_get(json_object_get(back, "facts"), "env");
	assert_string_equal(json_string_value(json_object_get(env, "hf_token")), "<redacted>");
	json_t *row = json_array_get(json_object_get(env, "vars"), 0);
	assert_string_equal(json_string_value(json_object_get(row, "value")), "<redacted>");
	json_decref(back);
	free(page);
	result_free(r);
}

/* The heatmap from a document's pairs: one cell per ordered pair, and a
 * tooltip cut to its buffer ends with whole characters (a step of arrows
 * longer than the tooltip: no broken byte shown as "\xe2"). */
static void test_heatmap_cut(void **state)
{
	(void)state;
	struct result *r = result_new("p2p");
	json_t *doc = json_object(), *pairs = json_array();
	char step[3 * 400 + 1] = "";
	for (int i = 0; i < 400; i++)
		strcat(step, "\xe2\x86\x92");
	for (int a = 0; a < 3; a++)
		for (int b = 0; b < 3; b++) {
			if (a == b)
				continue;
			json_t *p = json_pack("{s:i, s:i, s:s, s:s, s:f}", "src", a, "dst", b, "status", a ? "OK" : "HANG",
					      "step", step, "ce_gbs", 10.0 + a + b);
			json_array_append_new(pairs, p);
		}
	json_object_set_new(doc, "pairs", pairs);
	char *page = report_html(r, doc);
	assert_int_equal(count(page, "<g class=\"pair\">"), 2 * 6); /* status and bandwidth */
	assert_int_equal(count(page, "GPU 0 \xe2\x86\x92 GPU 1: HANG"), 2);
	assert_null(strstr(page, "\\xe2"));
	assert_null(strstr(page, "\\x86"));
	free(page);
	json_decref(doc);
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_page),
		cmocka_unit_test(test_heatmap_cut),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
