/* Stack frames among the text lines of `logs`: gdb's `#N ... in FUNC`,
 * py-spy's `    FUNC (file.py:N)`, PyTorch's C++ `frame #N: FUNC + 0x..`,
 * a glibc back-trace `lib.so(FUNC+0x..)[0x..]`, Python's traceback and
 * faulthandler `File "...", line N, in FUNC`, compute-sanitizer's `Host
 * Frame:FUNC`, numbered `N 0xADDR ...` lines. The names of
 * kb/nccl_frames.h in them are counted by the stage they belong to, the
 * first lines of each stage kept with their place; mangled C++ names are
 * read too. Lines are never claimed. The rule that reads them is
 * analyze/logs/rules/frames.c. */
#ifndef ND_ANALYZE_LOGS_INPUTS_FRAMES_H
#define ND_ANALYZE_LOGS_INPUTS_FRAMES_H
#include "analyze/nccllog.h"
#include "kb/nccl_frames.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NL_FRAMES_PER_KIND 3 /* lines kept of each stage */

struct nl_frame_hit {
	const struct nccl_frame *row;
	int file;
	uint64_t line;
	char text[NL_TEXT_MAX];
};

struct nl_frames {
	uint32_t count[NFK_COUNT];   /* frame lines of each stage */
	struct nl_frame_hit hits[NFK_COUNT][NL_FRAMES_PER_KIND];
	uint32_t lines;              /* frame lines that named a row */
};

/* Whether s[0..n) has the shape of a stack frame (any of the formats above). */
bool nl_frame_shape(const char *s, size_t n);
/* The row of the most specific name in the frame line s[0..n), NULL none. */
const struct nccl_frame *nl_frame_row(const char *s, size_t n);

bool nl_frames_detect(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
bool nl_frames_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
void nl_frames_end_file(struct nccllog *lg, int file);
void nl_frames_free(struct nccllog *lg);
/* What was found, NULL when no frame named a row. */
const struct nl_frames *nl_frames_get(const struct nccllog *lg);

#endif
