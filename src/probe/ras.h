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
 * most RAS_REPLY_MAX bytes; ras_parse() is pure. Nothing prints.
 *
 * Whose answer it is: any local user can listen on localhost:28028 (or the
 * port NCCL_RAS_ADDR names) before NCCL does and answer as RAS (a forged
 * dead peer, escape codes). The client asks only a listener the job holds
 * and reads only what a socket of the job sent: before connecting, the
 * listening sockets that would take the connection (by the kernel's rule:
 * those bound to the address itself, else those bound to the wildcard)
 * must all be fds of the job's processes (/proc/net/tcp and tcp6 inode ->
 * /proc/PID/fd "socket:[inode]"); once the server answered, the socket
 * that accepted our connection must be one too. Otherwise (or when that
 * cannot be told) it does not connect, or drops the connection, and says
 * whose socket it was. */
#ifndef ND_PROBE_RAS_H
#define ND_PROBE_RAS_H
#include "probe/proc.h"

#include <stdbool.h>
#include <stddef.h>

#define RAS_DEFAULT_PORT 28028
#define RAS_PROTOCOL 2
#define RAS_REPLY_MAX (256 * 1024)
#define RAS_MAX_LINES 24

/* Splits NCCL_RAS_ADDR ("host:port", "[v6]:port", "host", NULL) into host
 * and port (default localhost, 28028). 0 or -EINVAL. */
int ras_addr_parse(const char *addr, char *host, size_t hostsz, unsigned *port);

/* ---- whose socket ---- */
enum ras_owner {
	RAS_OWNER_JOB,   /* every socket concerned is the job's */
	RAS_OWNER_NONE,  /* no socket concerned (nobody listens; not accepted yet) */
	RAS_OWNER_OTHER, /* a socket concerned is not the job's: *other indexes it */
};

/* Pure: the listeners of socks (/proc/net/tcp[6] entries) that would take a
 * connection to ip:port (numeric): those bound to ip itself, else those
 * bound to the wildcard (0.0.0.0 for IPv4, :: for both), and whether all
 * are among the job's socket inodes job[0..njob). */
enum ras_owner ras_listener_owner(const struct tcp_sock *socks, int n, const char *ip, unsigned port,
				  const unsigned long *job, int njob, int *other);
/* Pure: the socket that accepted the connection from cip:cport to
 * sip:sport (its local end is sip:sport, its remote cip:cport), and
 * whether it is among job[0..njob). NONE when it is not found or no file
 * holds it yet. */
enum ras_owner ras_conn_owner(const struct tcp_sock *socks, int n, const char *sip, unsigned sport, const char *cip,
			      unsigned cport, const unsigned long *job, int njob, int *other);
/* Checks, on this machine, that the RAS socket for ip:port (numeric) is the
 * job's: the listener when fd < 0, else the socket that accepted fd's
 * connection. job_pid: the job's first process (its descendants count).
 * 0 when it is; -EPERM with why saying whose it is ("RAS listener on
 * 127.0.0.1:28028 belongs to pid 4242 (not the job's)"), or that it cannot
 * be told; -ENOENT when nobody listens (fd < 0 only: connecting would be
 * refused). */
int ras_check_owner(int job_pid, const char *ip, unsigned port, int fd, char *why, size_t whysz);

/* Queries host:port for STATUS; nccl_timeout is the TIMEOUT sent (seconds
 * NCCL waits for other processes). The reply text goes into *out (heap, the
 * caller frees it). Only the job's RAS is asked (ras_check_owner: job_pid
 * is the job's first process). 0, -ECONNREFUSED (nobody listens),
 * -ETIMEDOUT (no complete answer within deadline seconds), -EPROTO (not a
 * RAS server), -EPERM (the listener or the socket that answered is not
 * the job's: not asked, or dropped), or another -errno. err gets one line
 * saying what failed. */
int ras_query(const char *host, unsigned port, int job_pid, int nccl_timeout, double deadline, char **out, char *err,
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

/* ---- the MONITOR stream (NCCL 2.29.2 and newer) ---------------------------
 * Checked against NVIDIA/nccl v2.30.7-1 (and v2.29.2-1, the same protocol):
 * src/ras/client.cc (monitorNCCLEvents) and client_support.cc
 * (rasClientEventLoop, rasClientsNotifyEvent), peers.cc, rasnet.cc.
 *
 *   -> "CLIENT PROTOCOL 2\n"          <- "SERVER PROTOCOL 2\n"
 *   -> "MONITOR lifecycle,trace\n"    <- "OK\n"  ("ERROR: ..." for a bad group;
 *                                     "ERROR: Unknown command" before 2.29)
 *   <- then one line per event, for as long as the connection lives:
 *      "[2026-12-02 23:59:01] PEER_DEAD: Process 4242 on node 10.0.0.2 managing GPU 1 \n"
 *      "[...] PEER_DISCONNECTED: 10.0.0.2<36117> peer closed connection during receive operation\n"
 * The time is the NCCL process's local time ("%F %T"); the peer is
 * "Process PID on node HOST managing GPU[s] LIST" (LIST "0,1", with
 * " (NVML 2,3)" when those ids differ) when NCCL knows it, else its RAS
 * socket address "HOST<PORT>"; the details follow (empty for PEER_NEW and
 * PEER_DEAD). Groups: lifecycle (PEER_NEW, PEER_DEAD) and trace
 * (PEER_CONNECTING, PEER_CONNECTED, PEER_RETRY, PEER_UNRESPONSIVE,
 * PEER_SEND_STUCK, PEER_KEEPALIVE_TIMEOUT, PEER_TIMEOUT_DEAD,
 * PEER_INIT_TIMEOUT, PEER_DISCONNECTED, PEER_RECOVERED). There is no
 * keep-alive towards the client: a quiet connection is a quiet job (ncclras
 * itself waits without a timeout). Each process of a job listens on the same
 * address (SO_REUSEPORT): one connection reaches one of them, and closes
 * when that process ends. */
#define RAS_MON_LINE_MAX 512     /* longer event lines are cut there */
#define RAS_MON_GROUPS "lifecycle,trace"
#define RAS_MON_CONNECT_S 3.0    /* connecting */
#define RAS_MON_ANSWER_S 5.0     /* each handshake answer */
#define RAS_MON_READ_MAX 65536   /* bytes read per ras_monitor_poll */

enum ras_ev_kind {
	RAS_EV_OTHER,      /* PEER_CONNECTING, PEER_CONNECTED, PEER_RETRY, unknown names */
	RAS_EV_NEW,        /* PEER_NEW */
	RAS_EV_DEAD,       /* PEER_DEAD, PEER_TIMEOUT_DEAD */
	RAS_EV_TROUBLE,    /* unresponsive, stuck, keep-alive or init timeouts, disconnected */
	RAS_EV_RECOVERED,  /* PEER_RECOVERED */
};

struct ras_event {
	enum ras_ev_kind kind;
	char time[32];     /* as NCCL printed it (its local time) */
	char type[32];     /* "PEER_DEAD" */
	long pid;          /* -1 when the event names an address only */
	char host[64];     /* the node ("10.0.0.2"), "" when not said */
	char gpus[48];     /* "1", "0,1 (NVML 2,3)", "" */
	char addr[96];     /* "10.0.0.2<36117>" when NCCL did not know the process */
	char details[160]; /* NCCL's words after the peer, cut */
};

/* Reads one event line (without its newline). 0, or -EINVAL when the line
 * is not "[TIME] NAME: ..." with NAME in upper case. Pure. */
int ras_event_parse(const char *line, struct ras_event *ev);
const char *ras_ev_kind_name(enum ras_ev_kind k);

enum ras_mon_state {
	RAS_MON_IDLE,       /* not started, or closed */
	RAS_MON_CONNECTING, /* a non-blocking connect is under way */
	RAS_MON_HELLO,      /* CLIENT PROTOCOL sent, waiting for SERVER PROTOCOL */
	RAS_MON_SUBSCRIBE,  /* MONITOR sent, waiting for OK */
	RAS_MON_FOLLOW,     /* reading events */
};

typedef void (*ras_event_fn)(void *ctx, const struct ras_event *ev);

struct ras_monitor {
	int fd;                      /* -1 when none */
	enum ras_mon_state state;
	char host[256];
	unsigned port;
	bool v6_next;                /* "localhost": ::1 after 127.0.0.1 */
	double t_step;               /* when the current step began (monotonic) */
	char line[RAS_MON_LINE_MAX]; /* the unfinished line */
	size_t len;
	bool overlong;               /* the current line passed RAS_MON_LINE_MAX */
	char out[96];                /* a command not yet sent in full */
	size_t outlen, outoff;
	unsigned long long lines, events, bad, cut, bytes;
	char answer[96];             /* the server's answer that ended a handshake */
	int job_pid;                 /* the job whose socket must answer; 0: not checked (tests) */
	bool owner_checked;          /* the socket that answered is the job's */
	char refused[200];           /* why it was not asked or dropped (-EPERM) */
};

void ras_monitor_init(struct ras_monitor *m);
/* The stream's bytes as they come (pure, no I/O): lines are split (cut at
 * RAS_MON_LINE_MAX), the handshake's answers move the state on (queueing
 * the next command in m->out), each event line after OK goes to fn. 0;
 * -EPROTO when the server does not speak the protocol, -EOPNOTSUPP when it
 * refuses MONITOR (NCCL before 2.29, a bad group); m->answer says what it
 * answered. Lines that are no event are counted in m->bad and skipped. */
int ras_monitor_feed(struct ras_monitor *m, const char *data, size_t n, ras_event_fn fn, void *ctx);
/* Starts a non-blocking connection to host:port (numeric; "localhost" is
 * 127.0.0.1, then ::1) when the listener there is the job's (job_pid: its
 * first process; 0 skips the checks, for tests of the protocol alone).
 * 0, or -errno (-EINVAL: not a numeric address; -EPERM: the listener is
 * not the job's, or that cannot be told: m->refused says why). */
int ras_monitor_connect(struct ras_monitor *m, const char *host, unsigned port, int job_pid);
/* Moves the connection on without blocking: completes the connect, sends
 * the handshake and MONITOR, reads what arrived (at most RAS_MON_READ_MAX
 * bytes) and gives each event to fn. now: monotonic seconds. 0 while the
 * connection lives; else it is closed and: -ECONNREFUSED (nobody listens),
 * -ETIMEDOUT (no connection or answer in time), -EPROTO, -EOPNOTSUPP (see
 * ras_monitor_feed), -ECONNRESET (the server closed it), -EPERM (the socket
 * that answered is not the job's: nothing it sent was read; m->refused),
 * another -errno. */
int ras_monitor_poll(struct ras_monitor *m, double now, ras_event_fn fn, void *ctx);
void ras_monitor_close(struct ras_monitor *m);
/* Whether a numeric address names this machine (loopback, or an address of
 * one of its interfaces). */
bool ras_host_is_local(const char *ip);

#endif
