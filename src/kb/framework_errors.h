/* The framework-error catalog: what PyTorch (c10d, ProcessGroupNCCL, the
 * TCPStore sockets, the env:// rendezvous), vLLM and SGLang (custom
 * all-reduce, pynccl), Ray, the DeepSpeed and accelerate launchers, JAX/XLA
 * and the CUDA error names print when a distributed start-up fails, taken from the
 * frameworks' own sources (tools/framework-errors), each with its origin
 * (repository, file, commit) and the cause class it points to. `logs`
 * matches the lines that carry no NCCL header against it: a framework
 * error decides the cause when NCCL itself said nothing. The rows live in
 * the generated framework_errors_gen.def. */
#ifndef ND_KB_FRAMEWORK_ERRORS_H
#define ND_KB_FRAMEWORK_ERRORS_H
#include <stdbool.h>
#include <stddef.h>

/* The wildcard byte of a pattern: any run of bytes (a value). */
#define FE_WILD '\001'

struct framework_error {
	const char *key;       /* stable id (tools/framework-errors/README.md) */
	const char *framework; /* "pytorch", "vllm", "sglang", "ray", "deepspeed", "accelerate", "jax", "xla", "cuda", "megatron" */
	const char *name;      /* as a report names it: "PyTorch", "vLLM" ... */
	const char *repo;      /* where the literal was read */
	const char *path;
	const char *commit;    /* the commit read, or "index:N" (a file of the source index) */
	int line;              /* 0 unknown */
	const char *cause;     /* a cause class (kb/causes.h), or "info", "hang", "context" */
	const char *reason;    /* why that class */
	const char *next;      /* the rule's first step, "" for the class's (kb/causes.h next) */
	const char *literal;   /* as the source writes it */
	const char *pattern;   /* the text as logged, FE_WILD for each value */
	int fixed;             /* bytes of pattern that are not FE_WILD */
	const char *also;      /* a text the line must hold as well, "" none */
	int code;              /* an enum literal's number (CUDA error code), -1 none */
};

/* The catalog, in the generated order. */
const struct framework_error *kb_framework_errors(size_t *n);
/* Whether the row's class is a cause (not info, hang or context). */
bool framework_error_is_cause(const struct framework_error *r);
/* "pytorch/pytorch torch/csrc/distributed/c10d/socket.cpp@8cf1b8e39425" into
 * buf (the commit shortened to 12 digits, ":LINE" when known); returns buf. */
const char *framework_error_origin(const struct framework_error *r, char *buf, size_t bufsz);
/* Whether the line s[0..n) matches row r: the fixed parts of its pattern
 * occur in order, without regard to ASCII case; a pattern that begins or
 * ends with a letter, digit or '_' matches only at a word boundary there
 * (cudaErrorInvalidDevice is not cudaErrorInvalidDeviceFunction); and the
 * line holds r->also when set. */
bool framework_error_matches(const struct framework_error *r, const char *s, size_t n);

/* A matcher over the whole catalog: rows with an `also` first, then the
 * longest fixed text first; each line is compared only with the rows whose
 * anchor (4 bytes of their longest fixed part) occurs in it. */
struct fe_index;
/* A new index (the caller frees it with fe_index_free). */
struct fe_index *fe_index_new(void);
void fe_index_free(struct fe_index *x);
/* The best row the line s[0..n) matches, NULL when none. */
const struct framework_error *fe_index_find(const struct fe_index *x, const char *s, size_t n);

#endif
