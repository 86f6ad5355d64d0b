/* NCCL version strings: "NCCL version 2.28.9+cuda13.0" as NCCL prints it
 * at init and as its library carries it in .rodata. One parser for the
 * library probe (probe/ncclib.c), the host checks and the log reader. */
#ifndef ND_UTIL_NCCLVER_H
#define ND_UTIL_NCCLVER_H
#include <stddef.h>

#define NCCL_VERSION_PREFIX "NCCL version "

struct nccl_version {
	int major, minor, patch;
	char suffix[16];       /* NCCL_SUFFIX, usually "" */
	int cuda_major, cuda_minor; /* -1 when the string has no "+cuda" */
};

/* Parses "NCCL version 2.28.9+cuda13.0" (the prefix is optional: "2.28.9"
 * works too). Trailing bytes after the CUDA version are ignored. 0 or
 * -EINVAL. */
int nccl_version_parse(const char *s, struct nccl_version *v);
/* "2.28.9+cuda13.0" into buf. */
const char *nccl_version_str(const struct nccl_version *v, char *buf, size_t bufsz);
/* <0, 0, >0 like strcmp, on major, minor, patch, suffix, then CUDA version. */
int nccl_version_cmp(const struct nccl_version *a, const struct nccl_version *b);
/* The release as a number (2.21.5 -> 22105), 0 when s does not parse. */
int nccl_version_code(const char *s);
/* Copies the version token at s (up to a space or n bytes: the text after
 * "NCCL version " in a log line) into out, cut to outsz - 1 bytes; returns
 * its length. */
size_t nccl_version_token(const char *s, size_t n, char *out, size_t outsz);

#endif
