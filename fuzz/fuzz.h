/* Shared helpers of the fuzz harnesses (fuzz/fuzz_*.c): a private empty
 * sysroot so that no harness reads the real /sys, /proc or /etc, a memory
 * source for util/linereader, and a sink for rendered reports. Each harness
 * defines LLVMFuzzerTestOneInput; libFuzzer (the NCCL_DOCTOR_FUZZ build) or
 * fuzz/replay.c (every build: the regression corpus under ctest) calls it. */
#ifndef ND_FUZZ_FUZZ_H
#define ND_FUZZ_FUZZ_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Points the sysroot at a private empty directory (made once, on /dev/shm
 * when it is writable, else in $TMPDIR or /tmp; removed at exit) and
 * returns its path: everything the code under test reads goes
 * there, never to the machine. A harness may write files below it. */
const char *fz_sysroot(void);

/* Writes size bytes to PATH inside the private sysroot (directories made as
 * needed). The file stays open, and the next call for the same PATH
 * overwrites it in place. 0 or -1. */
int fz_put(const char *path, const void *data, size_t size);

/* A memory source for linereader_set_source: hands out the bytes in chunks
 * of varying size, so that lines cross chunk ends. */
struct fz_mem {
	const uint8_t *data;
	size_t size, pos;
	unsigned step;
};
void fz_mem_init(struct fz_mem *m, const uint8_t *data, size_t size);
long fz_mem_read(void *ctx, void *buf, size_t n);

/* /dev/null as a FILE, opened once: reports are rendered into it. */
FILE *fz_null(void);

/* A NUL-terminated heap copy of the input (the caller frees it). */
char *fz_strdup(const uint8_t *data, size_t size);

#endif
