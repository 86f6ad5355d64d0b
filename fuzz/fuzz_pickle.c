/* Fuzz harness: PyTorch flight-recorder dumps in Python's pickle format, as
 * `logs` reads them: each part of the input goes to nccllog_add_pickle (the
 * entry cmd/logs.c uses for a binary input that opens with a pickle's
 * PROTO), then the analysis and both renderers. A part is the bytes up to a
 * line "--8<--" (up to 8 parts, each one rank's dump), so that the ranks of
 * a group are matched against each other. */
#include "fuzz.h"

#include "analyze/nccllog.h"
#include "model/result.h"
#include "report/report.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char SEP[] = "\n--8<--\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fz_sysroot();
	/* one model, emptied for each input; released and built anew every
	 * 1024th (fuzz_logs.c says why) */
	static struct nccllog lg;
	static unsigned long n;
	if (n++ % 1024 == 0) {
		if (n > 1)
			nccllog_release(&lg);
		nccllog_init(&lg);
	} else {
		nccllog_reset(&lg);
	}
	size_t off = 0;
	for (int part = 0; part < 8 && off <= size; part++) {
		const uint8_t *end = part < 7 ? memmem(data + off, size - off, SEP, sizeof(SEP) - 1) : NULL;
		size_t len = end ? (size_t)(end - (data + off)) : size - off;
		/* an exact-size copy: ASan sees a read past the part's end */
		unsigned char *buf = malloc(len ? len : 1);
		memcpy(buf, data + off, len);
		char name[32], why[400];
		snprintf(name, sizeof(name), "nccl_trace_rank_%d", part);
		why[0] = '\0';
		int rc = nccllog_add_pickle(&lg, name, buf, len, why, sizeof(why));
		free(buf);
		/* a refused pickle always says why, in one line */
		if (rc < 0 && rc != -EPROTONOSUPPORT && (why[0] == '\0' || strchr(why, '\n')))
			abort();
		if (!end)
			break;
		off += len + sizeof(SEP) - 1;
	}
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
