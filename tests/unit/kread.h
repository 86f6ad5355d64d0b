/* A kernel log on fd read as the commands read one (util/input.h into
 * kreader_take): shared by the kernel-log unit tests. */
#ifndef ND_TEST_KREAD_H
#define ND_TEST_KREAD_H
#include "analyze/kmsg.h"
#include "util/input.h"

static inline int kread_fd(struct kreader *kr, int fd)
{
	struct input in;
	int r = input_from_fd(&in, fd, "input", "kernel", INPUT_TIMEOUT_DEFAULT, false);
	if (r == 0)
		r = input_read_lines(&in, KLINE_MAX, kreader_take, kr);
	input_close(&in);
	return r;
}

#endif
