/* An input of the NCCL log reader (logs/inputs/inputs.h): PyTorch
 * flight-recorder dumps, JSON (logs/inputs/flight_recorder.c) and pickle
 * (logs/inputs/pickle.c), read into lg->fr; the rules of
 * logs/rules/flight_recorder.c compare them. */
#ifndef ND_ANALYZE_LOGS_INPUTS_FLIGHT_RECORDER_H
#define ND_ANALYZE_LOGS_INPUTS_FLIGHT_RECORDER_H
#include "analyze/nccllog.h"

#include <jansson.h>

#include <stdbool.h>
#include <stddef.h>

#define FR_MAX_DUMPS 256
#define FR_MAX_PGS 16
#define FR_MAX_JSON (64u << 20) /* bytes of one dump kept */
/* The memory one dump may take once read (jansson's values):
 * FR_MEM_PER_BYTE times its size plus FR_MEM_BASE, at most
 * FR_MEM_MAX_PICKLE for a pickle (a real one takes 14-25 times its size:
 * 5 MiB, some 30000 entries, fit) and FR_MEM_MAX_JSON for JSON (6-12
 * times: 40 MiB fit). A crafted dump takes up to 240 times its size. */
#define FR_MEM_PER_BYTE 40
#define FR_MEM_BASE ((size_t)4 << 20)
#define FR_MEM_MAX_PICKLE ((size_t)128 << 20)
#define FR_MEM_MAX_JSON ((size_t)512 << 20)
#define FR_TXT 320

struct fr_head {
	long long seq;            /* collective_seq_id, -1 none */
	char name[48];            /* profiling_name: "nccl:all_reduce" */
	char sizes[64];           /* input_sizes as JSON text */
	char dtypes[48];
	char state[16];           /* scheduled | started | completed */
};

struct fr_pg {
	char name[32];            /* process_group[0]: the pg uid */
	char desc[32];
	int ranks[64];            /* from pg_config; nranks -1 unknown */
	int nranks;
	struct fr_head last_done; /* last completed */
	struct fr_head head;      /* first not completed */
};

struct fr_dump {
	int file;
	int rank;
	char version[16];
	char nccl_version[24];
	struct fr_pg pg[FR_MAX_PGS];
	int npg;
	char text[4][FR_TXT];     /* evidence texts (cause_ev keeps pointers) */
};

struct nl_fr {
	int file;                 /* the file being kept, -1 none */
	char *buf;
	size_t len, cap;
	bool over;
	struct fr_dump *dumps;
	int ndumps;
	size_t cap_dumps;
	int bad;                  /* JSON files that are no flight recorder */
	char bad_text[200];
	int bad_file;
	int cut_file;             /* a dump whose line --max-line cut (not read), -1 none */
};

/* The sniffer table's entry (logs/inputs/inputs.h): every line of every
 * input (lineno from 1); a file whose first line opens a JSON object is
 * kept whole (up to FR_MAX_JSON). No line is claimed (false). */
bool nl_fr_detect(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
bool nl_fr_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
/* At the end of an input: a flight-recorder dump becomes one more dump. */
void nl_fr_end_file(struct nccllog *lg, int file);
void nl_fr_free(struct nccllog *lg);
/* The limit on the memory of a dump of n bytes (FR_MEM_*; max the cap). */
size_t nl_fr_mem_limit(size_t n, size_t max);
/* The Python pickle buf[0..n) (protocol 2-5, the flight recorder's subset)
 * as JSON into *out: 0, -EPROTONOSUPPORT when it is no pickle, -EBADMSG
 * with why set when it holds what the reader does not take or passes a
 * bound (nesting, memory, memo, a reference cycle: logs/inputs/pickle.c). The
 * value is a tree or a DAG (the memo shares values), never a cycle, at
 * most 256 deep. */
int nl_pickle_to_json(const unsigned char *buf, size_t n, json_t **out, char *why, size_t whysz);
/* The count of flight-recorder dumps read. */
int nl_fr_ndumps(const struct nccllog *lg);
/* The first file holding a flight-recorder dump that --max-line cut (so it
 * was not read), or -1. */
int nl_fr_cut_file(const struct nccllog *lg);

#endif
