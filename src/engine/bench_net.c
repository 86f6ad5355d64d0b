/* bench with one rank per process under any launcher, without MPI: srun,
 * mpirun of a build without MPI, torchrun, a Kubernetes Indexed Job, or
 * --rendezvous with NCCL_DOCTOR_RANK / NCCL_DOCTOR_WORLD_SIZE. The rank,
 * world size and local rank come from the launcher's variables
 * (util/launcher.h); the processes meet in our TCP rendezvous
 * (run/rendezvous.h) at rank 0's address, exchange their GPUs, NCCL's unique
 * id of rank 0's worker, each worker's report (to rank 0, which prints for
 * everyone) and at last rank 0's exit status. Every wait has the run's own
 * deadline and names who did not come. The launcher and every rank's node
 * go into the JSON (bench_net_describe).
 *
 * The state is this process's place in the job, one per process as MPI's;
 * like every engine it prints nothing. */
#include "engine/bench_world.h"
#include "run/rendezvous.h"
#include "util/hostlist.h"
#include "util/launcher.h"
#include "util/strbuf.h"
#include "util/xalloc.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <sys/socket.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* The world this process is in: the whole job, or during a pairwise
 * sweep (bench_pairs.c) the pair of nodes of the round */
struct net_world {
	struct launcher l;
	struct rdv r;
	bool joined;
	struct hostlist nodes; /* an srun step's nodes, which r names the missing by (kept while joined) */
};
static struct net_world whole, pair, *W = &whole;
static char (*addrs)[LAUNCHER_HOST_MAX]; /* each rank's address, for a pair's own rendezvous */
static char node_env[32 + RDV_NODE_MAX]; /* "NCCL_DOCTOR_NODE=name" for the rank's worker */
static double init_timeout;
/* the ranks each process drives (-g G: its G local GPUs, ranks process x G
 * + k, as nccl-tests' -g under MPI); 1 otherwise */
static int per = 1;

/* The launcher's node name (SLURMD_NODENAME, NODE_NAME), else --node-name
 * or the host name. */
static const char *node_name(const struct run_opts *opt)
{
	return W->l.node[0] ? W->l.node : opt->node && opt->node[0] ? opt->node : "unknown";
}

int bench_net_devices(struct bench_opts *o, const struct run_opts *opt, char *err, size_t errsz)
{
	int rc = launcher_detect((const char *const *)environ, o->rendezvous, &W->l, err, errsz);
	if (rc < 0)
		return rc;
	/* a launcher's step of one task, or --local: this node's own benchmark */
	if (W->l.kind == LAUNCHER_NONE || W->l.size == 1 || o->local)
		return 0;
	per = o->ngpus > 1 ? (int)o->ngpus : 1;
	int dev[BENCH_MAX_RANKS];
	if ((rc = bench_world_my_devices(o, opt, W->l.size, W->l.local_rank, per, dev, err, errsz)) < 0)
		return rc;
	if (!W->l.root_host[0]) {
		snprintf(err, errsz, "%s started rank %d of %d, but where rank 0 listens is not known: give --rendezvous "
				     "HOST:PORT (rank 0's address) or MASTER_ADDR and MASTER_PORT",
			 launcher_name(W->l.kind), W->l.rank, W->l.size);
		return -EINVAL;
	}
	const char *node = node_name(opt);
	if (strlen(node) >= RDV_NODE_MAX) {
		snprintf(err, errsz, "the node name '%.80s...' is longer than %d characters: give a shorter --node-name", node,
			 RDV_NODE_MAX - 1);
		return -EINVAL;
	}
	init_timeout = o->init_timeout > 0 ? o->init_timeout : BENCH_DEFAULT_INIT_TIMEOUT;
	struct rdv_params p = { .host = W->l.root_host[0] ? W->l.root_host : "127.0.0.1", .port = W->l.root_port ? W->l.root_port : 1,
				.rank = W->l.rank, .size = W->l.size, .node = node, .job = W->l.job, .timeout = init_timeout,
				.local_size = W->l.local_size > 0 ? W->l.local_size : 0, .partial = o->join_partial,
				.ranks_each = per }; /* -g G: a process that never comes is named by its G ranks */
	/* an srun step names its nodes: a node that never starts is named by its name */
	const char *slurm_nodes = getenv("SLURM_STEP_NODELIST") ? getenv("SLURM_STEP_NODELIST") : getenv("SLURM_JOB_NODELIST");
	char why[200];
	hostlist_release(&W->nodes);
	if (W->l.kind == LAUNCHER_SLURM && slurm_nodes && p.local_size > 0 && W->l.size % p.local_size == 0 &&
	    hostlist_expand(slurm_nodes, &W->nodes, why, sizeof(why)) == 0)
		p.nodes = (const char *const *)W->nodes.names, p.nnodes = W->nodes.n;
	rc = rdv_join(&W->r, &p, err, errsz);
	if (rc < 0) {
		hostlist_release(&W->nodes);
		return rc == -EINVAL ? -EIO : rc;
	}
	W->joined = true;
	snprintf(node_env, sizeof(node_env), "NCCL_DOCTOR_NODE=%s", node);
	/* every rank's GPU to every rank (the report names each rank's): each
	 * process its per GPUs, "3,4" */
	char mine[BENCH_MAX_RANKS * 8];
	size_t len = 0;
	for (int k = 0; k < per; k++)
		len += (size_t)snprintf(mine + len, sizeof(mine) - len, "%s%d", k ? "," : "", dev[k]);
	int nranks = W->l.size * per;
	struct rdv_msg *all = W->l.rank == 0 ? xcalloc((size_t)W->l.size, sizeof(*all)) : NULL;
	rc = rdv_gather(&W->r, "GPU", mine, len, init_timeout, all, err, errsz);
	struct rdv_msg list = { 0 };
	if (W->l.rank == 0 && rc == 0) {
		char *s = xmalloc((size_t)nranks * 8 + 1);
		size_t n = 0;
		for (int i = 0; i < W->l.size; i++) {
			const char *d = all[i].data;
			for (int k = 0; k < per; k++) {
				n += (size_t)snprintf(s + n, 9, "%s%d", n ? "," : "", d ? atoi(d) & 1023 : 0);
				d = d && strchr(d, ',') ? strchr(d, ',') + 1 : NULL;
			}
		}
		list.data = s, list.len = n;
	} else if (W->l.rank == 0) {
		rdv_abort(&W->r, err);
	}
	if (all)
		rdv_msgs_free(all, W->l.size);
	free(all);
	if (rc == 0)
		rc = rdv_bcast(&W->r, "GPU list", &list, init_timeout, err, errsz);
	const char *p2 = list.data;
	for (int i = 0; rc == 0 && i < nranks; i++) {
		o->devices[i] = p2 ? atoi(p2) : 0;
		p2 = p2 ? strchr(p2, ',') : NULL;
		p2 = p2 ? p2 + 1 : NULL;
	}
	free(list.data);
	if (rc < 0) {
		rdv_close(&W->r);
		hostlist_release(&W->nodes);
		W->joined = false;
		return rc;
	}
	o->ngpus = per;
	o->nranks = nranks;
	return 1;
}

bool bench_net_active(void)
{
	return W->joined;
}

int bench_net_rank(void)
{
	return W->l.rank;
}

int bench_net_launcher_rank(void)
{
	return W->l.kind != LAUNCHER_NONE ? W->l.rank : -1;
}

const char *bench_net_node_env(void)
{
	return node_env;
}

int bench_net_per_process(void)
{
	return W == &whole ? per : 1;
}

const char *bench_net_rank_node(int rank)
{
	int p = rank / bench_net_per_process(); /* a rank's process */
	return W->r.node && rank >= 0 && p < W->l.size && W->r.node[p][0] ? W->r.node[p] : NULL;
}

const char *bench_net_absent(void)
{
	return W->joined && W->r.nabsent ? W->r.absent_why : NULL;
}

bool bench_net_rank_absent(int rank, char *node, size_t nodesz)
{
	if (!W->joined || !W->r.absent || rank < 0 || rank >= W->l.size || !W->r.absent[rank])
		return false;
	char hint[RDV_NODE_MAX];
	rdv_rank_node(&W->r, rank, hint, sizeof(hint));
	/* no name known (torchrun and MPI name no nodes): the rank's place */
	if (hint[0] && hint[0] != '#')
		snprintf(node, nodesz, "%s", hint);
	else
		snprintf(node, nodesz, "rank%d", rank);
	return true;
}

struct share_ctx {
	double timeout;
};

static int share_id(char id[BENCH_ID_HEX], void *ctx, char *why, size_t whysz)
{
	const struct share_ctx *c = ctx;
	struct rdv_msg m = { .data = id, .len = strlen(id) };
	if (W->l.rank == 0)
		return rdv_bcast(&W->r, "unique id", &m, c->timeout, why, whysz) < 0 && !id[0] ? -1 : 0;
	m.data = NULL;
	if (rdv_bcast(&W->r, "unique id", &m, c->timeout, why, whysz) < 0)
		return -1;
	snprintf(id, BENCH_ID_HEX, "%s", m.data);
	free(m.data);
	return 0;
}

int bench_net_run(const struct ranks_spec *spec, struct worker *ws)
{
	int n = bench_net_per_process();
	/* rank 0's worker must make the id within its init deadline */
	struct share_ctx sc = { .timeout = init_timeout + spec->grace + 10 };
	char *mine = bench_world_run_mine(spec, ws, W->l.rank, n, W->l.size, share_id, &sc);
	struct rdv_msg *all = W->l.rank == 0 ? xcalloc((size_t)W->l.size, sizeof(*all)) : NULL;
	char err[512] = "";
	/* every rank's worker ends within the run's deadline: a little more for the slowest */
	rdv_gather(&W->r, "results", mine, strlen(mine), spec->deadline + spec->grace + 10, all, err, sizeof(err));
	free(mine);
	for (int i = 1; W->l.rank == 0 && i < W->l.size; i++)
		bench_world_take(ws, i, n, all[i].data, all[i].len, "rendezvous", err);
	if (all)
		rdv_msgs_free(all, W->l.size);
	free(all);
	return 0;
}

int bench_net_size(void)
{
	return W->l.size;
}

int bench_net_gather(const char *what, const char *mine, double timeout, char **all, char *err, size_t errsz)
{
	struct rdv_msg *m = W->l.rank == 0 ? xcalloc((size_t)W->l.size, sizeof(*m)) : NULL;
	int rc = rdv_gather(&W->r, what, mine, strlen(mine), timeout, m, err, errsz);
	for (int i = 0; m && i < W->l.size; i++)
		all[i] = m[i].data; /* NUL-terminated; NULL when it did not come */
	free(m);
	return rc;
}

int bench_net_agree(int rc)
{
	char mine[16], err[512];
	snprintf(mine, sizeof(mine), "%d", rc);
	struct rdv_msg *all = W->l.rank == 0 ? xcalloc((size_t)W->l.size, sizeof(*all)) : NULL;
	int worst = rc;
	rdv_gather(&W->r, "GPU check", mine, strlen(mine), init_timeout, all, err, sizeof(err));
	for (int i = 0; W->l.rank == 0 && i < W->l.size; i++)
		if (!all[i].data || atoi(all[i].data) > worst)
			worst = all[i].data ? atoi(all[i].data) : EXIT_CANNOT_RUN;
	if (all)
		rdv_msgs_free(all, W->l.size);
	free(all);
	snprintf(mine, sizeof(mine), "%d", worst);
	struct rdv_msg m = { .data = mine, .len = strlen(mine) };
	if (W->l.rank != 0)
		m.data = NULL;
	if (rdv_bcast(&W->r, "GPU check's outcome", &m, init_timeout, err, sizeof(err)) < 0)
		return W->l.rank == 0 ? worst : EXIT_CANNOT_RUN;
	if (W->l.rank != 0) {
		worst = atoi(m.data);
		free(m.data);
	}
	return worst;
}

int bench_net_finish(int rc)
{
	char mine[16], err[512];
	snprintf(mine, sizeof(mine), "%d", rc);
	struct rdv_msg m = { .data = mine, .len = strlen(mine) };
	if (W->l.rank != 0)
		m.data = NULL;
	if (rdv_bcast(&W->r, "exit status", &m, 30, err, sizeof(err)) == 0 && W->l.rank != 0) {
		rc = atoi(m.data);
		free(m.data);
	} else if (W->l.rank != 0) {
		rc = EXIT_CANNOT_RUN;
	}
	rdv_close(&W->r);
	hostlist_release(&W->nodes);
	W->joined = false;
	return rc;
}

void bench_net_describe(json_t *o)
{
	json_t *nodes = json_array();
	for (int i = 0; i < W->l.size * bench_net_per_process() && W->r.node; i++)
		json_array_append_new(nodes, json_string(W->r.node[i / bench_net_per_process()]));
	json_t *l = json_pack("{s:s,s:s,s:s,s:i,s:s,s:o}", "exchange", "rendezvous", "name", launcher_name(W->l.kind), "variables",
			      W->l.vars, "world_size", W->l.size, "rendezvous", "", "rank_nodes", nodes);
	char addr[LAUNCHER_HOST_MAX + 16];
	snprintf(addr, sizeof(addr), strchr(W->l.root_host, ':') ? "[%s]:%d" : "%s:%d", W->l.root_host, W->l.root_port);
	json_object_set_new(l, "rendezvous", json_string(addr));
	json_object_set_new(l, "rendezvous_from", json_string(W->l.root_from));
	if (bench_net_per_process() > 1)
		json_object_set_new(l, "ranks_per_process", json_integer(bench_net_per_process()));
	if (W->r.refused)
		json_object_set_new(l, "refused_connections", json_integer(W->r.refused));
	json_object_set_new(o, "launcher", l);
}

/* ---- the pairwise sweep's worlds (bench_pairs.c) ------------------------ */

int bench_net_addresses(char *err, size_t errsz)
{
	char mine[LAUNCHER_HOST_MAX] = "";
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	/* the address this process reached rank 0 from, which the others reach it at */
	if (whole.l.rank == 0)
		snprintf(mine, sizeof(mine), "%s", whole.l.root_host);
	else if (getsockname(whole.r.fd, (struct sockaddr *)&ss, &sl) < 0 ||
		 getnameinfo((struct sockaddr *)&ss, sl, mine, sizeof(mine), NULL, 0, NI_NUMERICHOST) != 0)
		snprintf(mine, sizeof(mine), "%s", whole.l.root_host);
	char **all = whole.l.rank == 0 ? xcalloc((size_t)whole.l.size, sizeof(*all)) : NULL;
	int rc = bench_net_gather("address", mine, init_timeout, all, err, errsz);
	struct rdv_msg m = { 0 };
	if (whole.l.rank == 0) {
		struct strbuf sb;
		strbuf_init(&sb, 0);
		for (int i = 0; i < whole.l.size; i++) {
			strbuf_addf(&sb, "%s\n", all[i] && all[i][0] ? all[i] : whole.l.root_host);
			free(all[i]);
		}
		free(all);
		m.len = sb.len;
		m.data = strbuf_detach(&sb);
		if (rc < 0)
			rdv_abort(&whole.r, err);
	}
	if (rc == 0)
		rc = rdv_bcast(&whole.r, "addresses", &m, init_timeout, err, errsz);
	free(addrs);
	addrs = xcalloc((size_t)whole.l.size, sizeof(*addrs));
	const char *p = m.data;
	for (int i = 0; rc == 0 && p && i < whole.l.size; i++) {
		size_t n = strcspn(p, "\n");
		snprintf(addrs[i], sizeof(addrs[i]), "%.*s", (int)n, p);
		p = p[n] ? p + n + 1 : NULL;
	}
	free(m.data);
	return rc;
}

int bench_net_pair_begin(const int *ranks, int n, int round, char *err, size_t errsz)
{
	int k = -1;
	for (int i = 0; i < n; i++)
		if (ranks[i] == whole.l.rank)
			k = i;
	if (k < 0 || !addrs)
		return -EINVAL;
	pair.l = whole.l;
	pair.l.rank = k, pair.l.size = n;
	char job[160];
	snprintf(job, sizeof(job), "%.100s/pair-%d-%d/round-%d", whole.l.job, ranks[0], ranks[n - 1], round);
	/* the leader listens beside rank 0's port: one port per leader, so pairs on one host do not meet */
	int port = 1024 + (whole.l.root_port - 1024 + 1 + ranks[0]) % (65535 - 1024);
	struct rdv_params p = { .host = addrs[ranks[0]], .port = port, .rank = k, .size = n,
				.node = whole.r.node[whole.l.rank], .job = job, .timeout = init_timeout };
	int rc = rdv_join(&pair.r, &p, err, errsz);
	if (rc < 0)
		return rc;
	pair.joined = true;
	W = &pair;
	return 0;
}

void bench_net_pair_end(void)
{
	if (W != &pair)
		return;
	rdv_close(&pair.r);
	pair.joined = false;
	W = &whole;
}
