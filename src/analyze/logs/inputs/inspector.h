/* Inputs of the NCCL log reader (logs/inputs/inputs.h): per-rank
 * collective counts and bus bandwidths from NCCL Inspector dumps (JSON
 * lines and Prometheus text) and from `ncclras` reports (the -f json
 * `collective_counts`, the text report's "launched up to operation" lines
 * and communicator table), read into lg->insp by logs/inputs/inspector.c
 * and compared across ranks, communicators and hosts by the rules of
 * logs/rules/inspector.c. Memory is bounded: per (communicator, rank) a
 * fixed record, at most IN_MAX_UNITS of them. */
#ifndef ND_ANALYZE_LOGS_INPUTS_INSPECTOR_H
#define ND_ANALYZE_LOGS_INPUTS_INSPECTOR_H
#include "analyze/nccllog.h"

#include <jansson.h>

#include <stdbool.h>
#include <stdint.h>

#define IN_MAX_UNITS 4096
#define IN_MAX_FUNCS 8      /* collective types per unit (NCCL has 5-8) */
#define IN_SLOTS 16         /* recent (sn, size) pairs per type, by sn % IN_SLOTS */
#define IN_MAX_BW 48        /* (collective, size) bandwidth buckets per unit */
#define IN_TXT 240
#define IN_MAX_RECORD 65536 /* bytes of a JSON record line parsed by jansson */

enum in_src { IN_JSON, IN_PROM, IN_RAS_JSON, IN_RAS_TEXT };

struct in_func {
	char name[24];            /* "AllReduce" */
	long long last;           /* Inspector: highest coll_sn; RAS: operations launched */
	long long n;              /* records */
	long long slot_sn[IN_SLOTS];
	unsigned long long slot_size[IN_SLOTS];
};

struct in_bw {
	char coll[24];
	char size[24];            /* bytes, or the Prometheus bucket ("4-5GB") */
	double sum;
	long n;
};

/* One rank of one communicator (2.30 Prometheus: one GPU of one node). */
struct in_unit {
	int src;                  /* enum in_src */
	char comm[48];            /* header.id, comm_id, the RAS hash; 2.30 Prometheus: comm_name */
	char comm_name[48];
	int rank, nranks, nnodes; /* -1 unknown */
	int group;                /* ncclras text: the count of ranks it stands for, 0 one rank */
	char host[64];
	long pid;
	char gpu[24];
	int file;
	uint64_t line;            /* its last record */
	long long last_ts;        /* dump_timestamp_us of its last record, 0 none */
	struct in_func fn[IN_MAX_FUNCS];
	int nfn;
	struct in_bw bw[IN_MAX_BW];
	int nbw;
	uint32_t bw_dropped;
	uint64_t records;
};

struct nl_insp {
	int file;                 /* the dump being read, -1 none */
	int kind;                 /* its enum in_src */
	struct in_unit *u;
	int nu;
	size_t cap;
	uint32_t dropped;         /* records of units over the cap */
	uint64_t bad;             /* lines of a dump that did not parse */
	int bad_file;
	uint64_t bad_line;
	int nfiles[4];            /* dumps read per enum in_src */
	/* the ncclras text report being read */
	int ras_file;
	char ras_comm[24];        /* its communicator hash */
	char ras_func[24];
	long long ras_major;      /* the count most ranks launched, -1 none */
	/* the communicator table of ncclras reports ("Group Comms ... Status
	 * Errors" and a row per group until a blank line) */
	int ras_table_file;       /* the table being read, -1 none */
	int ras_groups, ras_groups_bad, ras_reports;
	int ras_hdr_file;         /* the first table's header */
	uint64_t ras_hdr_line;
	char ras_status[IN_TXT];  /* the first group's "status / errors" not RUNNING/OK, else the first's */
	char text[24][IN_TXT];    /* evidence texts (cause_ev keeps pointers) */
	int ntext;
};

/* The sniffer table's entries (logs/inputs/inputs.h). Inspector: a file
 * whose first line is an Inspector record or Prometheus metric is read as
 * a dump, its records claimed (true: the log reader skips them). ncclras:
 * text lines with operation counts and communicator tables, taken from
 * any input (never claimed). */
bool nl_insp_detect(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
bool nl_insp_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
void nl_insp_end_file(struct nccllog *lg, int file);
bool nl_ras_detect(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
bool nl_ras_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno);
void nl_ras_end_file(struct nccllog *lg, int file);
/* An `ncclras -f json` document (root): its per-rank collective_counts;
 * true when it was one. */
bool nl_insp_ras_json(struct nccllog *lg, int file, json_t *root);
void nl_insp_free(struct nccllog *lg);
/* Units read (ranks with counts or bandwidths). */
int nl_insp_nunits(const struct nccllog *lg);
/* ncclras text reports read (their communicator tables): reports, groups,
 * groups whose status is not RUNNING or whose errors are not OK. */
struct nl_ras_tables {
	int reports, groups, bad, file;
	uint64_t line;
	const char *status;
};
bool nl_insp_ras_tables(const struct nccllog *lg, struct nl_ras_tables *t);
/* The unit of (src, comm, rank, host, gpu), added when new; NULL over the cap. */
struct in_unit *nl_insp_unit(struct nl_insp *in, int src, const char *comm, int rank, const char *host, const char *gpu,
			     int file);
/* The counter of collective type name in u, added when new; NULL when full. */
struct in_func *nl_insp_func(struct in_unit *u, const char *name);

#endif
