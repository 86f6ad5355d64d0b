/* The tests of util/bytescan.h (test_bytescan.c) again on its portable
 * code paths, as targets without SSE2 (aarch64 and others) compile them:
 * the same file with __SSE2__ undefined before bytescan.h is read. */
#undef __SSE2__
#include "test_bytescan.c"
