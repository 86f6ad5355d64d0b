/* Fuzz harness: NCCL / PyTorch / vLLM logs, as `logs` reads them. The input
 * goes through the line reader (chunked, with a short maximum line so that
 * cut lines happen), the log model (nccllog_feed), the analysis and both
 * renderers. A line "--8<--" starts a new input file (up to 8), so that
 * multi-file and multi-host paths are reached. */
#include "fuzz.h"

#include "analyze/nccllog.h"
#include "model/result.h"
#include "report/report.h"
#include "util/linereader.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_sysroot();
	/* one model, emptied by nccllog_reset for each input: the signature
	 * matcher is compiled once (it depends on no input) and the tables are
	 * not allocated and zeroed again per input (that was most of the time
	 * left). Every 1024th input releases it and builds it anew: what one
	 * large input grew is given back, and init and release stay fuzzed. */
	static struct nccllog lg;
	static unsigned long n;
	if (n++ % 1024 == 0) {
		if (n > 1)
			nccllog_release(&lg);
		nccllog_init(&lg);
	} else {
		nccllog_reset(&lg);
	}
	struct fz_mem m;
	fz_mem_init(&m, data, size);
	struct linereader lr;
	linereader_init(&lr, -1, 1024);
	linereader_set_source(&lr, fz_mem_read, &m);
	char name[32];
	int nfile = 0, file = nccllog_begin_file(&lg, "rank0.log");
	uint64_t first = 0, bytes0 = 0, trunc0 = 0;
	bool no_newline = false;
	char *line;
	size_t len;
	while (linereader_next(&lr, &line, &len) > 0) {
		no_newline = lr.no_newline;
		if (len == 6 && memcmp(line, "--8<--", 6) == 0 && nfile < 7) {
			nccllog_end_file(&lg, file, lr.lineno - 1 - first, lr.bytes - bytes0,
					 lr.truncated_lines - trunc0, false);
			snprintf(name, sizeof(name), "rank%d.log", ++nfile);
			file = nccllog_begin_file(&lg, name);
			first = lr.lineno;
			bytes0 = lr.bytes;
			trunc0 = lr.truncated_lines;
			continue;
		}
		if (lr.may_ctrl)
			nccllog_feed(&lg, file, line, len, lr.lineno - first);
		else
			nccllog_feed_plain(&lg, file, line, len, lr.lineno - first);
	}
	nccllog_end_file(&lg, file, lr.lineno - first, lr.bytes - bytes0, lr.truncated_lines - trunc0, no_newline);
	linereader_release(&lr);

	struct result *r = result_new("logs");
	nccllog_analyze(&lg, r);
	result_sort_findings(r);
	/* every other input renders for a narrow terminal (report/text.c fits tables) */
	if (size % 2 == 0)
		setenv("COLUMNS", size % 4 == 0 ? "40" : "72", 1);
	else
		unsetenv("COLUMNS");
	report_text(r, &(struct render_opts){ .color = size % 2 == 1, .full = size % 4 >= 2 }, fz_null());
	json_t *j = report_json(r);
	char *s = json_dumps(j, JSON_COMPACT);
	free(s);
	json_decref(j);
	result_free(r);
	return 0;
}
