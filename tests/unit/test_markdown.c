/* Unit tests of report/markdown.c on results built in memory with hostile
 * text: a title that closes a <details> block, a fix with a run of
 * backticks, a cell with '|', a newline and an escape, secrets in a fact
 * named as one, in a table row named as one, in NAME=VALUE and in a URL;
 * and the size cap: the largest details block goes, the first screen
 * stays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "kb/findings.h"
#include "model/result.h"
#include "report/report.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *render(const struct result *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(report_markdown(r, f), 0);
	fclose(f);
	return buf;
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static struct result *hostile(void)
{
	struct result *r = result_new("p2p");
	result_set_headline(r, "# 2 GPUs tested</details>");
	struct section *s = result_section(r, "env", "Environment</summary>");
	section_add(s, "hf_token", "HF_TOKEN", val_str("hf_plain"));
	section_add(s, "url", "URL", val_str("https://alice:hunter2@host/x"));
	section_add(s, "line", "line", val_str("a|b\nc\x1b[31m\td"));
	static const struct column cols[] = { { "name", "NAME", 0 }, { "value", "VALUE", 0 } };
	struct table *t = section_table(s, "vars", NULL, cols, 2);
	size_t row = table_add_row(t);
	table_set(t, row, "name", val_str("MY_API_KEY"));
	table_set(t, row, "value", val_str("short"));
	row = table_add_row(t);
	table_set(t, row, "name", val_str("NCCL_DEBUG"));
	table_set(t, row, "value", val_str("INFO"));
	struct finding *f = finding_add(r, FID_P2P_HANG, SEV_ERROR, "hang</details><details>");
	finding_evidence(f, "/var/log/x.log", 3, "launch HF_TOKEN=hf_abc \"SECRET_KEY=s3\" Xq7bK9mZ2pL4vT8nR3sW6yU1cE5hJ0aDfGiKoMqS");
	finding_fix(f, "shell", NULL, "echo '```' && export NCCL_P2P_LEVEL=PIX");
	return r;
}

static void test_hostile_text(void **state)
{
	(void)state;
	struct result *r = hostile();
	char *md = render(r);
	/* the blocks: as many opened as closed, the hostile ones escaped */
	assert_int_equal(count(md, "<details>"), count(md, "</details>"));
	assert_int_equal(count(md, "<summary>"), count(md, "</summary>"));
	assert_non_null(strstr(md, "<summary>Environment&lt;/summary&gt;</summary>"));
	assert_non_null(strstr(md, "\\# 2 GPUs tested\\</details\\>"));
	/* the cell: '|' escaped, the newline a <br>, the escape visible, no tab */
	assert_non_null(strstr(md, "| line | a\\|b<br>c\\\\x1b\\[31m d |"));
	assert_null(strchr(md, '\x1b'));
	assert_null(strchr(md, '\t'));
	/* secrets */
	assert_null(strstr(md, "hf_plain"));
	assert_null(strstr(md, "hunter2"));
	assert_null(strstr(md, "short"));
	assert_null(strstr(md, "hf_abc"));
	assert_null(strstr(md, "s3\""));
	assert_null(strstr(md, "Xq7bK9"));
	assert_non_null(strstr(md, "| HF_TOKEN | \\<redacted\\> |"));
	assert_non_null(strstr(md, "| MY_API_KEY | \\<redacted\\> |"));
	assert_non_null(strstr(md, "| NCCL_DEBUG | INFO |"));
	assert_non_null(strstr(md, "`launch HF_TOKEN=<redacted> \"SECRET_KEY=<redacted>\" <redacted>`"));
	/* the fix: a fence longer than its backticks, the first screen's too */
	assert_non_null(strstr(md, "````sh\necho '```' && export NCCL_P2P_LEVEL=PIX\n````\n"));
	assert_true(strstr(md, "**Do this now** (shell, for `P2P_HANG`)") < strstr(md, "<details>"));
	free(md);
	result_free(r);
}

static void test_size_cap(void **state)
{
	(void)state;
	struct result *r = result_new("logs");
	struct finding *f = finding_add(r, FID_P2P_HANG, SEV_ERROR, "the top problem");
	finding_evidence(f, NULL, 0, "first evidence");
	finding_fix(f, "env", NULL, "export NCCL_P2P_LEVEL=PIX");
	/* three blocks of about 32,000, 36,000 and 800 characters */
	static const size_t rows[] = { 800, 900, 20 };
	static const char *const keys[] = { "a", "b", "c" };
	static const char *const titles[] = { "Block A", "Block B", "Block C" };
	for (size_t k = 0; k < 3; k++) {
		struct section *s = result_section(r, keys[k], titles[k]);
		static const struct column cols[] = { { "text", "TEXT", 0 } };
		struct table *t = section_table(s, "rows", NULL, cols, 1);
		for (size_t i = 0; i < rows[k]; i++)
			table_set(t, table_add_row(t), "text", val_strf("row %zu of %s with some words", i, titles[k]));
	}
	char *md = render(r);
	assert_true(strlen(md) <= MD_MAX_CHARS);
	assert_null(strstr(md, "<summary>Block B</summary>"));   /* the largest went */
	assert_non_null(strstr(md, "<summary>Block A</summary>")); /* then it fits */
	assert_non_null(strstr(md, "<summary>Block C</summary>"));
	assert_non_null(strstr(md, "\n1 details block left out: run with --json for all\n"));
	assert_non_null(strstr(md, "```sh\nexport NCCL_P2P_LEVEL=PIX\n```"));
	assert_non_null(strstr(md, "- first evidence\n"));
	free(md);
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_text),
		cmocka_unit_test(test_size_cap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
