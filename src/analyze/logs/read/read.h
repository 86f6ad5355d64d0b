/* Private to the NCCL log reader (analyze/logs/read/; the inputs of
 * analyze/logs/inputs/ never include it): the header cache, the signature
 * matcher, the WARN fallback, the two stages of a line and the INFO-line
 * model, each in its own file:
 *   logs/read/parse.c   line cleaning, header parsing, the header cache
 *   logs/read/match.c   the signature matcher
 *   logs/read/info.c    INFO lines into the per-process model
 *   logs/read/reader.c  files, processes, events, feeding lines */
#ifndef ND_ANALYZE_LOGS_READ_READ_H
#define ND_ANALYZE_LOGS_READ_READ_H
#include "analyze/logs/text.h"
#include "analyze/nccllog.h"
#include "kb/nccl_warns.h"

/* ---- the header cache (logs/read/parse.c) -------------------------------- */

/* The header cache: a thread prints the same "host:pid:tid [dev] NCCL INFO"
 * on every line, so the parse of the bytes up to the level keyword, and the
 * process they name, are remembered by those bytes. try_header() reads
 * nothing after the keyword, so a line whose first bytes equal a remembered
 * header parses exactly as that header did; processes are never removed,
 * so the remembered index stays that of its (host, pid). */
#define HC_SETS 256          /* a power of two; two entries each (64 thrashed: three busy headers in one set) */
#define HC_MAX 128           /* longest header remembered */

struct hc_entry {
	size_t len;              /* 0: empty */
	char text[HC_MAX];
	struct nl_line line;     /* its parse; host, src, func as offsets below */
	size_t host_off, src_off, func_off;
	bool has_src, has_func;
	int proc;                /* its process, -1 not known yet */
};

struct hc_set {
	struct hc_entry way[2];
	int victim;              /* the way used least recently */
};

struct nl_hcache {
	struct hc_set set[HC_SETS];
};

/* nccllog_parse_line with the header cache; *slot is the cache entry of
 * the header (its process goes into hc->set[slot / 2].way[slot % 2].proc),
 * -1 when none. For a line that is not NCCL's (it returns 0), the launcher
 * prefixes (ppid, prank) are left unread: nl_line_prefixes() reads them. */
/* The bytes a paste or a log collector put before a line ("> ", an RFC
 * 3339 time, a docker compose service "name  | ", `cat -n`'s number and
 * tab), 0 none. */
size_t nl_paste_wrapper_len(const char *s, size_t n);
int nl_parse_cached(struct nl_hcache *hc, const char *s, size_t len, struct nl_line *out, int *slot);
/* The launcher prefixes ("[rank3]:", "(VllmWorkerProcess pid=N)") of the
 * line s[0..len) into out->ppid and out->prank. */
void nl_line_prefixes(const char *s, size_t len, struct nl_line *out);

/* ---- NCCL lines without their header (logs/read/headerless.c) ---------- */

/* The host of the one process that NCCL lines pasted without their
 * "host:pid:tid [dev]" header belong to. */
#define NL_HEADERLESS_HOST "unknown host"
/* The fallback after the header parse failed on s[0..len): reads "file.cc:N
 * NCCL WARN msg", "[0] file.cc:N NCCL WARN msg", "NCCL INFO msg" and "INFO
 * NET/Socket : ..." into out (host NL_HEADERLESS_HOST, pid 0). has_nccl:
 * the line holds " NCCL " (the caller searched for it already); without it
 * the "file.cc:N NCCL WARN" shape is not tried. Returns 1 for such a line,
 * else 0 with out's header fields as they were. */
int nl_parse_headerless(const char *s, size_t len, bool has_nccl, struct nl_line *out);

/* ---- nvidia-smi topo -m matrices in the text (logs/read/topomat.c) ------ */

/* Reads a header or GPU row of an `nvidia-smi topo -m` matrix, or an entry
 * of NET/Socket's interface list wrapped one a line, into lg->topomat and
 * returns true; any other line costs a look at its first bytes (false). */
bool nl_topomat_line(struct nccllog *lg, int file, const char *s, size_t len, uint64_t lineno);
/* nl_topomat_line's first test, which reads only the line (stage A):
 * false when nl_topomat_line would return false. */
bool nl_topomat_maybe(const char *s, size_t len);

/* ---- nccl-tests result tables in the text (logs/read/teststab.c) -------- */

/* The table header s[0..len) (signature TB01) of file: its columns into
 * lg->tests; a header without #wrong columns (NCCL 1's tests, nccl-tests
 * before 2.0) stops the reading of rows. */
void nl_tests_header(struct nccllog *lg, int file, const char *s, size_t len);
/* A row of the table whose header file last gave (one with #wrong > 0 is
 * kept), or "# Collective test starting: X" (the collective). */
void nl_tests_line(struct nccllog *lg, int file, const char *s, size_t len, uint64_t lineno);

/* ---- the signature matcher (logs/read/match.c) --------------------------- */

struct nl_matcher;
struct nl_matcher *nl_matcher_new(void);
void nl_matcher_free(struct nl_matcher *m);
/* The first row (table order) of kb_nccl_signatures() that matches the
 * line s[0..n) of kind where (NS_INFO, NS_WARN, NS_TEXT), or -1. */
int nl_matcher_find(const struct nl_matcher *m, const char *s, size_t n, unsigned where);
/* Every row the line matches, specific first (see logs/read/match.c), into
 * out[max]; returns how many. */
#define NL_MAX_LINE_SIGS 4
int nl_matcher_find_all(const struct nl_matcher *m, const char *s, size_t n, unsigned where, int *out, int max);
/* The same, the plain and slow way (a reference for the tests). */
int nl_matcher_find_all_ref(const struct nl_matcher *m, const char *s, size_t n, unsigned where, int *out, int max);
/* The row of the catch-all WARN signature ("W00"), -1 when none. */
int nl_matcher_fallback(const struct nl_matcher *m);
/* The signature of row i. */
const struct nccl_signature *nl_matcher_sig(const struct nl_matcher *m, int i);

/* ---- NCCL's own failure messages (logs/read/warns.c) ------------------- */

/* The fallback for a WARN no signature knows: the rows of kb_nccl_warns(). */
struct nl_warnidx;
struct nl_warnidx *nl_warnidx_new(void);
void nl_warnidx_free(struct nl_warnidx *w);
/* The WARN row whose pattern the whole message msg[0..n) matches, -1 when
 * none; src[0..srclen) is the line's "file.cc:123" (NULL: not known): a row
 * of that file wins, then the row with the most literal bytes. */
int nl_warnidx_find(const struct nl_warnidx *w, const char *msg, size_t n, const char *src, size_t srclen);
const struct nccl_warn *nl_warnidx_row(const struct nl_warnidx *w, int i);
/* The matcher's own index of them. */
const struct nl_warnidx *nl_matcher_warns(const struct nl_matcher *m);

/* ---- one line in two stages (logs/read/reader.c) ------------------------------ */

/* What the stateless stage A finds in a line (nl_stage_a): its parse, its
 * kind, the signatures it matches where the stateful stage B
 * (nl_stage_b_run) will want them. Pointers point into the line, which must
 * live until stage B has read the record. Stage A reads only its line,
 * the header cache it is given and the (read-only) matcher, so worker
 * threads run it ahead of stage B (logs/read/threads.c); stage B reads the
 * records in line order and is the only one to change the model. */
enum { NLR_TEXT, NLR_EMPTY, NLR_NCCL, NLR_CHAIN, NLR_INFO, NLR_WARN };

struct nl_rec {
	const char *line;
	uint32_t len;
	uint8_t kind;            /* NLR_* */
	uint8_t nul, ansi;       /* cleaned of NUL bytes, of ANSI escapes */
	uint8_t blank;           /* NLR_TEXT: only blanks */
	uint8_t topo;            /* NLR_TEXT: may be a topo -m row (nl_topomat_maybe) */
	uint8_t info_matched;    /* NLR_INFO: sigs holds its signatures (none for a bulk line) */
	uint8_t py_error;        /* NLR_TEXT, no signature: a Python traceback or exception line */
	int8_t ns;               /* signatures in sigs (NLR_WARN, NLR_TEXT, NLR_INFO when info_matched) */
	int16_t sigs[NL_MAX_LINE_SIGS];
	int slot;                /* header-cache entry (-1: none) */
	int hid;                 /* threads: the worker's id of that entry's header (-1: none) */
	int code;                /* NLR_CHAIN: the code after "->" */
	uint32_t framelen;       /* NLR_CHAIN: bytes of the frame */
	const char *colon;       /* NLR_INFO: the message's first ':' (first 120 bytes) */
	const char *ver;         /* NLR_TEXT: "NCCL version " of a version line, else NULL */
	struct nl_line pl;
};

/* Stage A of the line s[0..len) (clean: no NUL, no ESC) into r, with the
 * header cache hc (each thread its own) and the matcher mt. match_info:
 * match INFO lines too, ahead of the model (stage B uses the result only
 * when the model does not explain the line): worker threads, which have
 * time to spare while stage B is the slower one. */
void nl_stage_a(const struct nl_matcher *mt, struct nl_hcache *hc, const char *s, size_t len, struct nl_rec *r,
		bool match_info);
/* Stage B: the records r[0..n) of the lines lineno, lineno + 1, ... of
 * file into the model, in order, then nl_flush_text (the threaded path;
 * the one-thread path runs stage B of each line in nccllog_feed). */
/* Whether a text line is a Python traceback's first line or an exception
 * line ("ValueError: ...", "[rank0]: torch.OutOfMemoryError: ..."). */
bool nl_py_error_line(const char *s, size_t n);
/* Whether an exception line (nl_py_error_line) names one of Python's
 * built-in exceptions of a program's own error: ValueError, TypeError,
 * IndexError, KeyError, AttributeError, AssertionError, NameError,
 * UnboundLocalError, NotImplementedError, ZeroDivisionError,
 * RecursionError (a dotted prefix allowed: "builtins.ValueError"). Not
 * RuntimeError (CUDA's and NCCL's errors come as that), OSError and its
 * kind (the network, files), ImportError (an installation), MemoryError. */
bool nl_py_program_error(const char *s, size_t n);
void nl_stage_b_run(struct nccllog *lg, int file, const struct nl_rec *r, size_t n, uint64_t lineno);
#define NL_PREFETCH_AHEAD 4 /* records prefetched: stage B's time fell ~8% (2 to 8 about the same) */
/* Copies the last text of the processes and the file stage B fed since
 * the last call into their last_text (stage B keeps only a pointer to the
 * line: the caller flushes before the lines go). */
void nl_flush_text(struct nccllog *lg);
/* Forgets the header ids of stage B (nl_rec.hid): a new threaded read
 * numbers them anew. */
void nl_hid_clear(struct nccllog *lg);
/* The header cache stage A uses on the single-thread path. */
struct nl_hcache *nl_own_hcache(struct nccllog *lg);

/* ---- INFO lines into the model (logs/read/info.c) ------------------------ */

/* Structural parse of an INFO message of process p: stages, comms,
 * transports, environment. colon: the first ':' of m[0 .. min(n, 120)),
 * NULL when none (the caller has it). Returns true when the line is fully
 * explained (no signature can match it). */
bool nl_model_info(struct nl_proc *p, int file, uint64_t line, const char *m, size_t n, const char *colon);
/* NET/Plugin, NET/Socket and NET/IB lines into p's host facts (the rules
 * compare them across hosts). */
void nl_model_net(struct nl_proc *p, int file, uint64_t line, const char *m, size_t n);
/* Before p's bootstrap interface becomes u[0..k): a different address
 * than the one it had is kept in p->bootstrap_if2 (one hostname and pid
 * in two containers or machines). */
void nl_model_bootstrap_again(struct nl_proc *p, const char *u, size_t k);
/* The version token after "NCCL version " at v (n bytes available) into
 * p->version, with where it was seen. */
void nl_set_version(struct nl_proc *p, const char *v, size_t n, int file, uint64_t line);

#endif
