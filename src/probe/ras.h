/* A client of NCCL's RAS service (NCCL 2.24 and newer, on by default): every
 * NCCL process listens on localhost:28028 (NCCL_RAS_ADDR changes it) and
 * answers a small text protocol, the one NCCL's own `ncclras` client speaks
 * (NVIDIA/nccl src/ras/client.cc and client_support.cc):
 *
 *   -> "CLIENT PROTOCOL 2\n"     <- "SERVER PROTOCOL N\n"
 *   -> "TIMEOUT SECS\n"          <- "OK\n"   (how long NCCL waits for its peers)
 *   -> "STATUS\n"                <- the report as text, then NCCL closes
 *
 * The report's "Errors" section lists INCOMPLETE (processes that did not
 * answer), DEAD ("N job processes are considered dead", then one
 * "  Process PID on node HOST managing GPU N" line each) and per-communicator
 * MISMATCH / ERROR blocks; the communicator table gives each group's status
 * (INIT, RUNNING, FINALIZE, ABORT).
 *
 * ras_query() connects with a deadline for the whole exchange and keeps at
 * most RAS_REPLY_MAX bytes; ras_parse() is pure. Nothing prints. */
#ifndef ND_PROBE_RAS_H
#define ND_PROBE_RAS_H
#include <stdbool.h>
#include <stddef.h>

#define RAS_DEFAULT_PORT 28028
#define RAS_PROTOCOL 2
#define RAS_REPLY_MAX (256 * 1024)
#define RAS_MAX_LINES 24

/* Splits NCCL_RAS_ADDR ("host:port", "[v6]:port", "host", NULL) into host
 * and port (default localhost, 28028). 0 or -EINVAL. */
int ras_addr_parse(const char *addr, char *host, size_t hostsz, unsigned *port);

/* Queries host:port for STATUS; nccl_timeout is the TIMEOUT sent (seconds
 * NCCL waits for other processes). The reply text goes into *out (heap, the
 * caller frees it). 0, -ECONNREFUSED (nobody listens), -ETIMEDOUT (no
 * complete answer within deadline seconds), -EPROTO (not a RAS server), or
 * another -errno. err gets one line saying what failed. */
int ras_query(const char *host, unsigned port, int nccl_timeout, double deadline, char **out, char *err,
	      size_t errsz);

struct ras_summary {
	bool have_version;
	char version[48];            /* "2.29.2+cuda13.0" from "NCCL version ..." */
	int dead;                    /* processes considered dead, -1 when not said */
	int missing;                 /* processes that sent no communicator data */
	int ncomm_groups;            /* rows of the communicator table */
	char status[64];             /* statuses of the table, "RUNNING", "INIT,RUNNING" */
	bool mismatch, error;        /* a MISMATCH / ERROR block or table entry */
	char lines[RAS_MAX_LINES][160]; /* the Errors/Warnings section's lines, cut */
	int nlines;
	int nlines_total;
};

/* Reads a STATUS report. Returns 0, or -EINVAL when text is not one. */
int ras_parse(const char *text, struct ras_summary *s);

#endif
