/* Test helper: the analysis of a log given as lines (one file, "t.log"),
 * and the two questions the rule tests ask of it. Used by
 * test_logs_headerless.c, test_logs_frames.c and test_logs_hints.c;
 * header-only. Include after <cmocka.h>. */
#ifndef ND_TESTS_LOGSLINES_H
#define ND_TESTS_LOGSLINES_H
#include "analyze/nccllog.h"
#include "model/result.h"

#include <stdlib.h>
#include <string.h>

/* The caller frees the result (result_free). */
static struct result *analyze_lines(const char *const *lines, size_t n)
{
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "t.log");
	for (size_t i = 0; i < n; i++) {
		char *b = strdup(lines[i]); /* the reader may change the line in place */
		nccllog_feed(&lg, f, b, strlen(b), i + 1);
		free(b);
	}
	nccllog_end_file(&lg, f, n, 0, 0, false);
	struct result *r = result_new("logs");
	nccllog_analyze(&lg, r);
	nccllog_release(&lg);
	return r;
}

/* The confidence of cause in r, 0 when it is not ranked. */
static inline double cause_conf(const struct result *r, const char *cause)
{
	for (size_t i = 0; i < r->causes->n; i++)
		if (strcmp(r->causes->v[i].cause, cause) == 0)
			return r->causes->v[i].confidence;
	return 0;
}

static inline bool has_finding(const struct result *r, const char *id)
{
	return result_find(r, id) != NULL;
}
#endif
