/* check on many nodes at once (check_nodes.c): under a launcher every
 * process is one node's check; the processes meet first, each runs its own
 * checkup, rank 0 joins the results with merge's analysis, one all_reduce
 * across the nodes tests the network between them, and rank 0 prints one
 * fleet verdict for all. */
#ifndef ND_CMD_CHECK_NODES_H
#define ND_CMD_CHECK_NODES_H
#include "cmd/cmd.h"
#include "engine/bench.h"

struct check_nodes {
	bool active;            /* joined: this process is one node of several */
	const char *rendezvous; /* --rendezvous HOST:PORT */
	double join_timeout;    /* --join-timeout: for every node to come (default 60) */
	bool across;            /* --across-nodes: one check of the launcher's nodes (else each alone) */
	struct bench_opts bo;   /* the all_reduce across the nodes */
	char never_joined[64];  /* merge's reason for a node that never joined */
};

/* With --across-nodes or --rendezvous, joins the other nodes when a
 * launcher started several processes (cn->active then). Returns 0 to
 * go on, else the exit status after the reason was said (a node that never
 * came, bad variables). */
int check_nodes_join(struct check_nodes *cn, const struct run_opts *opt);
/* This node's finished check r to rank 0 and the all_reduce across the
 * nodes; rank 0 prints the fleet's result. Frees r; returns the exit
 * status every node exits with (rank 0's). budget: the check's, the
 * longest rank 0 waits for a node's result. */
int check_nodes_finish(struct check_nodes *cn, struct result *r, const struct run_opts *opt, double budget);

#endif
