/* The bench worker's own output, read back: stdout and stderr go through a
 * pipe to a thread that passes every byte on unchanged (so the parent's
 * output tail is what it would have been) and keeps NCCL's "NCCL INFO" /
 * "NCCL WARN" lines, up to a cap, so that the rank can report the
 * transports and versions NCCL printed (parsed by the parent with
 * analyze/nccllog.h). Only for worker processes. */
#ifndef ND_GPU_BENCH_CAPTURE_H
#define ND_GPU_BENCH_CAPTURE_H
#include <jansson.h>

#define CAPTURE_MAX_LINES 512
#define CAPTURE_MAX_BYTES (256 << 10)

/* Starts capturing fds 1 and 2; 0 or -errno (then nothing changed). */
int capture_start(void);
/* The NCCL lines kept since the last call, as a new JSON array of strings. */
json_t *capture_take(void);
/* Flushes, puts fds 1 and 2 back and ends the thread. */
void capture_stop(void);

#endif
