/* Framework errors among the text lines of `logs` (inputs/framework.h):
 * each line without an NCCL header goes through the catalog's index
 * (kb/framework_errors.h); a match is kept with its file and line. The
 * line is never claimed: the signatures and the rest of the reader see it
 * as before. */
#include "analyze/logs/inputs/framework.h"
#include "analyze/logs/text.h"
#include "util/xalloc.h"

#include <stdlib.h>
#include <string.h>

/* NCCL's own lines ("host:pid:tid [0] NCCL INFO ...") hold no framework
 * error: the header's " NCCL " sits within the first bytes. */
static bool nccl_header(const char *s, size_t n)
{
	size_t k = n < 160 ? n : 160;
	const char *p = memmem(s, k, " NCCL ", 6);
	if (!p)
		return false;
	size_t rest = (size_t)(s + n - (p + 6));
	return (rest >= 4 && (memcmp(p + 6, "INFO", 4) == 0 || memcmp(p + 6, "WARN", 4) == 0)) ||
	       (rest >= 5 && memcmp(p + 6, "TRACE", 5) == 0);
}

bool nl_fw_detect(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	(void)lg;
	(void)file;
	(void)lineno;
	return n >= 8 && !nccl_header(s, n);
}

bool nl_fw_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	struct nl_fw *fw = lg->fwerr;
	if (!fw) {
		fw = xcalloc(1, sizeof(*fw));
		fw->idx = fe_index_new();
		lg->fwerr = fw;
	}
	const struct framework_error *r = fe_index_find(fw->idx, s, n);
	if (!r)
		return false;
	fw->lines++;
	int same = 0;
	for (int i = 0; i < fw->nhits; i++)
		same += fw->hits[i].row == r;
	if (same >= NL_FW_PER_ROW || fw->nhits >= NL_FW_MAX_HITS)
		return false;
	struct nl_fw_hit *h = &fw->hits[fw->nhits++];
	h->row = r;
	h->file = file;
	h->line = lineno;
	h->seq = lg->seq;
	h->rank = nccllog_line_rank(s, n);
	nl_copy_clean(h->text, sizeof(h->text), s, n);
	return false;
}

void nl_fw_end_file(struct nccllog *lg, int file)
{
	(void)lg;
	(void)file;
}

void nl_fw_free(struct nccllog *lg)
{
	struct nl_fw *fw = lg->fwerr;
	if (!fw)
		return;
	fe_index_free(fw->idx);
	free(fw);
	lg->fwerr = NULL;
}

const struct nl_fw *nl_fw_get(const struct nccllog *lg)
{
	const struct nl_fw *fw = lg->fwerr;
	return fw && fw->lines ? fw : NULL;
}
