/* The lines of the frameworks around NCCL (PyTorch, vLLM, SGLang, Ray,
 * the DeepSpeed and accelerate launchers, JAX/XLA, CUDA error names) that the framework-error catalog knows (kb/framework_errors.h),
 * kept with their place in the input. They are found among the text lines
 * that carry no NCCL header, through the input table (inputs.h) without
 * claiming any line: the log reader sees every one too. The rule that reads
 * them is analyze/logs/rules/framework.c. */
#ifndef ND_ANALYZE_LOGS_INPUTS_FRAMEWORK_H
#define ND_ANALYZE_LOGS_INPUTS_FRAMEWORK_H
#include "analyze/nccllog.h"
#include "kb/framework_errors.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NL_FW_MAX_HITS 64   /* lines kept, at most NL_FW_PER_ROW of one row */
#define NL_FW_PER_ROW 3

struct nl_fw_hit {
	const struct framework_error *row;
	int file;
	uint64_t line;
	uint64_t seq;            /* order of reading (lg->seq) */
	int rank;                /* the launcher prefix's rank ("[rank1]: ..."), -1 none */
	char text[NL_TEXT_MAX];
};

struct nl_fw {
	struct fe_index *idx;
	struct nl_fw_hit hits[NL_FW_MAX_HITS];
	int nhits;
	uint32_t lines;          /* lines that matched, kept or not */
};

bool nl_fw_detect(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
bool nl_fw_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
void nl_fw_end_file(struct nccllog *lg, int file);
void nl_fw_free(struct nccllog *lg);
/* What was found, NULL when no line matched. */
const struct nl_fw *nl_fw_get(const struct nccllog *lg);

#endif
