/* A small TCP rendezvous of our own, for runs across nodes without MPI:
 * rank 0 listens on HOST:PORT, every other rank connects (retrying until the
 * deadline: rank 0 may start later), says who it is, and waits until all
 * have joined. Afterwards rank 0 gathers a message of every rank (each
 * node's results, a small JSON) and broadcasts one (NCCL's unique id, the
 * exit status) — a star through rank 0, enough for the few small messages
 * of a benchmark or a check. Every wait has a deadline, and a rank that
 * never joined or stopped answering is named with its node ("ranks 5,6
 * (node b) never joined within 30 s"); rank 0 tells the others why it gave
 * up, so every process ends with the same reason.
 *
 * Sockets are non-blocking and driven by poll; a message is framed (magic,
 * type, sequence number, length) and at most RDV_MAX_MSG bytes; a stranger
 * on the port (another job, a port scanner, garbage) is refused and does
 * not take a rank's place. Like every lower layer it prints nothing: errors
 * come back as -errno with one line in err. */
#ifndef ND_RUN_RENDEZVOUS_H
#define ND_RUN_RENDEZVOUS_H
#include <stdbool.h>
#include <stddef.h>

#define RDV_MAX_MSG (4u << 20) /* one rank's message */
#define RDV_MAX_RANKS 4096
#define RDV_NODE_MAX 64        /* a node name, NUL included */

struct rdv_params {
	const char *host;     /* rank 0's address: it binds there, the others connect there */
	int port;
	int rank, size;
	const char *node;     /* this process's node name */
	const char *job;      /* every rank's must be equal ("" or NULL: not checked) */
	double timeout;       /* seconds for everyone to join */
	/* to name the nodes of ranks that never joined: ranks per node (0
	 * unknown) and the nodes' names by index (NULL, or fewer: "node #3") */
	int local_size;
	const char *const *nodes;
	size_t nnodes;
	/* the ranks each process carries (bench -g G: process p's are p x G
	 * to p x G + G - 1), which names a process that never joined or
	 * stopped answering by them; 0 or 1: its own rank */
	int ranks_each;
	/* at the deadline rank 0 goes on with the ranks that joined instead of
	 * giving up (check across nodes: a node that never came is one row of
	 * the fleet's verdict, not the end of it); see struct rdv's absent */
	bool partial;
};

struct rdv_peer; /* rank 0's view of one connection */

struct rdv {
	struct rdv_params p;    /* as joined (p.nodes is the caller's) */
	int rank, size;
	int fd;                 /* rank 0: the listening socket; others: the connection to rank 0 */
	unsigned seq;           /* the next operation's number */
	struct rdv_peer *peers; /* rank 0: one per rank */
	char (*node)[RDV_NODE_MAX]; /* every rank's node, once joined */
	int refused;            /* connections rank 0 refused (strangers, other jobs) */
	char refused_why[200];  /* the last one's reason */
	/* with p.partial, the ranks that never joined (every rank knows them
	 * from rank 0's welcome): absent[i] set, nabsent of them, and why
	 * ("rank 2 (node n2) never joined within 5 s"); gather waits for none
	 * of them and broadcast skips them */
	char *absent;
	int nabsent;
	char absent_why[400];
};

/* A message: len bytes at data (heap, NUL-terminated beyond len). */
struct rdv_msg {
	char *data;
	size_t len;
};

/* Joins (rank 0: listens and waits for every rank). Returns 0 (with
 * p->partial, also when some never joined: r->nabsent), or
 * -ETIMEDOUT (who is missing, in err), -ECANCELED (rank 0 gave up, its
 * reason in err), -EADDRINUSE, -EINVAL (bad parameters), -EPROTO; r is
 * then released. */
int rdv_join(struct rdv *r, const struct rdv_params *p, char *err, size_t errsz);
/* Every rank's message to rank 0, which gets them in all[0..size-1] (heap,
 * release with rdv_msgs_free); `what` names it in errors ("results"). On
 * rank 0 a rank that sends nothing within timeout, or leaves, is an error
 * (-ETIMEDOUT, -EPIPE) naming it; the others' messages are still in all. */
int rdv_gather(struct rdv *r, const char *what, const void *mine, size_t len, double timeout, struct rdv_msg *all,
	       char *err, size_t errsz);
/* Rank 0's m to every rank; the others receive it into m (heap). */
int rdv_bcast(struct rdv *r, const char *what, struct rdv_msg *m, double timeout, char *err, size_t errsz);
/* Rank 0: tells every connected rank why it gives up (they get -ECANCELED
 * with it); best effort, within a second. */
void rdv_abort(struct rdv *r, const char *why);
void rdv_msgs_free(struct rdv_msg *all, int n);
/* Closes every socket; r can be joined again. */
void rdv_close(struct rdv *r);
/* "ranks 5,6 (node b), 9 (node c)": the ranks with missing[i] set, grouped
 * by node, into buf; with p.ranks_each G, the ranks each carries and the
 * processes ("ranks 2,3 (process 1, node b)"). */
void rdv_name_ranks(const struct rdv *r, const char *missing, char *buf, size_t bufsz);
/* Rank i's node: the name it joined with, else the launcher's hint
 * (p.nodes by p.local_size), else "#K" (the K-th node), else "". */
void rdv_rank_node(const struct rdv *r, int i, char *buf, size_t bufsz);

#endif
