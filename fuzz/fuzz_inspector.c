/* Fuzz harness: NCCL Inspector dumps (JSON lines, Prometheus text) and
 * ncclras reports (-f json documents, the text report's counts and
 * communicator table), as `logs` reads them: the input goes through the
 * line reader (lines up to 4 KiB, longer ones cut) and nccllog_feed, which
 * hands a dump's lines to the Inspector reader and a JSON document to the
 * flight-recorder / ncclras JSON reader; then the analysis (counts, sizes,
 * missing ranks, bandwidth across communicators) and both renderers. A
 * line "--8<--" starts another file (up to 8): one per rank or host. */
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
	linereader_init(&lr, -1, 4096);
	linereader_set_source(&lr, fz_mem_read, &m);
	char name[48];
	int nfile = 0, file = nccllog_begin_file(&lg, "node-a-pid4100.log");
	uint64_t first = 0, bytes0 = 0, trunc0 = 0;
	bool no_newline = false;
	char *line;
	size_t len;
	while (linereader_next(&lr, &line, &len) > 0) {
		no_newline = lr.no_newline;
		if (len == 6 && memcmp(line, "--8<--", 6) == 0 && nfile < 7) {
			nccllog_end_file(&lg, file, lr.lineno - 1 - first, lr.bytes - bytes0, lr.truncated_lines - trunc0, false);
			nfile++;
			snprintf(name, sizeof(name), "node-%c-pid%d.log", 'a' + nfile / 2, 4100 + nfile);
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
	report_text(r, &(struct render_opts){ .color = size % 2 == 1, .full = size % 4 >= 2 }, fz_null());
	json_t *j = report_json(r);
	char *s = json_dumps(j, JSON_COMPACT);
	free(s);
	json_decref(j);
	result_free(r);
	return 0;
}
