/* Test helper: the analysis of an NCCL log model as compact JSON with
 * sorted keys, for comparing two ways of building the same model. Used by
 * test_logs_fast.c and test_linereader_map.c; header-only. Include after
 * <cmocka.h>. */
#ifndef ND_TESTS_LOGSJSON_H
#define ND_TESTS_LOGSJSON_H
#include "analyze/nccllog.h"
#include "report/report.h"

/* The caller frees the string. */
static char *analysis_json(const struct nccllog *lg)
{
	struct result *r = result_new("logs");
	nccllog_analyze(lg, r);
	result_sort_findings(r);
	json_t *j = report_json(r);
	char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	result_free(r);
	assert_non_null(s);
	return s;
}
#endif
