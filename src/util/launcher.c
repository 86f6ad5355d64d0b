/* The launcher's variables into a rank, a world size, a node and rank 0's
 * address (util/launcher.h). The order of the checks matters: an MPI
 * launcher inside a Slurm allocation starts its own daemons through srun,
 * so the processes also see SLURM_PROCID (the node's task, not the rank);
 * torchrun under srun likewise. So torchrun and the MPI launchers come
 * first, Slurm's own step after them, and Slurm's local facts are taken for
 * another launcher only where SLURM_PROCID is the same rank. */
#include "util/launcher.h"
#include "util/hostlist.h"
#include "util/text.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the default rendezvous port of an srun step without MASTER_PORT: one per
 * job and step, so two steps on one node do not meet */
#define SLURM_PORT_BASE 20000
#define SLURM_PORT_SPAN 30000
/* torchrun's and PyTorch's default MASTER_PORT */
#define TORCH_DEFAULT_PORT 29500

const char *launcher_name(enum launcher_kind k)
{
	switch (k) {
	case LAUNCHER_TORCHRUN:
		return "torchrun";
	case LAUNCHER_OMPI:
		return "openmpi";
	case LAUNCHER_PMIX:
		return "pmix";
	case LAUNCHER_HYDRA:
		return "hydra";
	case LAUNCHER_SLURM:
		return "slurm";
	case LAUNCHER_K8S_INDEXED:
		return "kubernetes-indexed-job";
	case LAUNCHER_RENDEZVOUS:
		return "rendezvous";
	case LAUNCHER_NONE:
		break;
	}
	return "none";
}

const char *launcher_getenv(const char *const *env, const char *name)
{
	size_t n = strlen(name);
	for (size_t i = 0; env && env[i]; i++)
		if (strncmp(env[i], name, n) == 0 && env[i][n] == '=')
			return env[i] + n + 1;
	return NULL;
}

__attribute__((format(printf, 3, 4))) static int bad(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* The integer NAME in env into *out (lo..hi): 1 read, 0 absent, -EINVAL
 * (said in err) when it is there but no such number. */
static int env_int(const char *const *env, const char *name, long long lo, long long hi, int *out, char *err,
		   size_t errsz)
{
	const char *v = launcher_getenv(env, name);
	long long x;
	if (!v)
		return 0;
	if (parse_ll(v, 10, &x) < 0 || x < lo || x > hi)
		return bad(err, errsz, "%s is not a number from %lld to %lld: '%.40s'", name, lo, hi, v);
	*out = (int)x;
	return 1;
}

static void note_var(struct launcher *l, const char *name)
{
	size_t n = strlen(l->vars);
	snprintf(l->vars + n, sizeof(l->vars) - n, "%s%s", n ? "," : "", name);
}

/* Reads each of names (NULL-ended) that is set into its int, noting it. */
struct want {
	const char *name;
	int *into;
	long long lo, hi;
};

static int read_all(const char *const *env, struct launcher *l, const struct want *w, char *err, size_t errsz)
{
	for (; w->name; w++) {
		int r = env_int(env, w->name, w->lo, w->hi, w->into, err, errsz);
		if (r < 0)
			return r;
		if (r)
			note_var(l, w->name);
	}
	return 0;
}

int launcher_parse_addr(const char *text, char *host, size_t hostsz, int *port)
{
	const char *colon = text[0] == '[' ? strstr(text, "]:") : strrchr(text, ':');
	if (!colon || colon == text)
		return -EINVAL;
	const char *h = text, *p = colon + 1;
	size_t hl = (size_t)(colon - text);
	if (text[0] == '[') { /* [v6]:port */
		h++, hl--;
		p = colon + 2;
	} else if (memchr(text, ':', hl)) { /* an IPv6 address needs its brackets */
		return -EINVAL;
	}
	long long x;
	if (hl == 0 || hl >= hostsz || parse_ll(p, 10, &x) < 0 || x < 1 || x > 65535)
		return -EINVAL;
	for (size_t i = 0; i < hl; i++) /* a host name or address, nothing a shell or a log line would misread */
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_:%", h[i]))
			return -EINVAL;
	memcpy(host, h, hl);
	host[hl] = 0;
	*port = (int)x;
	return 0;
}

/* "2(x3),1": the tasks on node `node` (Slurm's SLURM_STEP_TASKS_PER_NODE);
 * -1 when it cannot say. */
static int slurm_tasks_on(const char *spec, int node)
{
	const char *p = spec;
	while (p && *p && node >= 0) {
		char *end;
		long n = strtol(p, &end, 10), times = 1;
		if (end == p || n < 1)
			return -1;
		if (strncmp(end, "(x", 2) == 0) {
			times = strtol(end + 2, &end, 10);
			if (times < 1 || *end != ')')
				return -1;
			end++;
		}
		if (node < times)
			return (int)n;
		node -= (int)times;
		p = *end == ',' ? end + 1 : NULL;
		if (*end && *end != ',')
			return -1;
	}
	return -1;
}

/* Slurm's facts of this task (local rank and size, node), taken when
 * SLURM_PROCID is our rank: srun itself, or an MPI started by srun
 * --mpi=pmix where both agree. */
static int slurm_local(const char *const *env, struct launcher *l, char *err, size_t errsz)
{
	int procid = -1;
	if (env_int(env, "SLURM_PROCID", 0, 1 << 24, &procid, err, errsz) < 0)
		return -EINVAL;
	if (procid != l->rank)
		return 0;
	const struct want w[] = {
		{ "SLURM_LOCALID", &l->local_rank, 0, 1 << 20 },
		{ "SLURM_NODEID", &l->node_index, 0, 1 << 24 },
		{ NULL, NULL, 0, 0 },
	};
	if (read_all(env, l, w, err, errsz) < 0)
		return -EINVAL;
	const char *tpn = launcher_getenv(env, "SLURM_STEP_TASKS_PER_NODE");
	if (!tpn)
		tpn = launcher_getenv(env, "SLURM_TASKS_PER_NODE");
	if (l->local_size < 0 && tpn && l->node_index >= 0)
		l->local_size = slurm_tasks_on(tpn, l->node_index);
	const char *nn = launcher_getenv(env, "SLURMD_NODENAME");
	if (nn && !l->node[0])
		snprintf(l->node, sizeof(l->node), "%s", nn);
	return 0;
}

/* Rank 0's address of an srun step: the step's first node (rank 0 runs
 * there with the default block distribution) and a port of the job and
 * step. */
static int slurm_root(const char *const *env, struct launcher *l, char *err, size_t errsz)
{
	const char *list = launcher_getenv(env, "SLURM_STEP_NODELIST");
	if (!list)
		list = launcher_getenv(env, "SLURM_JOB_NODELIST");
	if (!list)
		return 0;
	struct hostlist hl = { 0 };
	char why[200];
	if (hostlist_expand(list, &hl, why, sizeof(why)) < 0)
		return bad(err, errsz, "the Slurm node list '%.60s': %s", list, why);
	if (hl.n > 0 && strlen(hl.names[0]) < sizeof(l->root_host)) {
		int job = 0, step = 0;
		env_int(env, "SLURM_JOB_ID", 0, 1 << 30, &job, err, errsz);
		env_int(env, "SLURM_STEP_ID", 0, 1 << 30, &step, err, errsz);
		snprintf(l->root_host, sizeof(l->root_host), "%s", hl.names[0]);
		l->root_port = SLURM_PORT_BASE + (int)(((long long)job * 16 + step) % SLURM_PORT_SPAN);
		snprintf(l->root_from, sizeof(l->root_from), "the Slurm step's first node");
	}
	hostlist_release(&hl);
	return 0;
}

/* MASTER_ADDR and MASTER_PORT (torchrun, PyTorch's operators, ours for an
 * Indexed Job); the port defaults to PyTorch's. Under torchrun the port
 * above MASTER_PORT: torchrun's agent may serve its own store on
 * MASTER_PORT (PyTorch 2.4+ shares it with the workers), which a worker
 * cannot bind again. */
static int master_root(const char *const *env, struct launcher *l, char *err, size_t errsz)
{
	const char *a = launcher_getenv(env, "MASTER_ADDR");
	int port = TORCH_DEFAULT_PORT;
	if (!a)
		return 0;
	if (env_int(env, "MASTER_PORT", 1, 65535, &port, err, errsz) < 0)
		return -EINVAL;
	if (l->kind == LAUNCHER_TORCHRUN)
		port = port < 65535 ? port + 1 : port - 1;
	char tmp[LAUNCHER_HOST_MAX + 8];
	snprintf(tmp, sizeof(tmp), "%s:%d", a, port);
	if (launcher_parse_addr(tmp, l->root_host, sizeof(l->root_host), &l->root_port) < 0)
		return bad(err, errsz, "MASTER_ADDR is not a host name or address: '%.60s'", a);
	snprintf(l->root_from, sizeof(l->root_from), "%s",
		 l->kind == LAUNCHER_TORCHRUN ? "MASTER_ADDR/MASTER_PORT+1" : "MASTER_ADDR/MASTER_PORT");
	return 0;
}

static void job_of(const char *const *env, struct launcher *l, const char *const *names)
{
	for (; *names; names++) {
		const char *v = launcher_getenv(env, *names);
		if (v) {
			snprintf(l->job, sizeof(l->job), "%s=%.100s", *names, v);
			return;
		}
	}
}

/* The launcher itself: which one, rank, size, local rank (1 when found, 0
 * none, -EINVAL). */
static int which(const char *const *env, struct launcher *l, char *err, size_t errsz)
{
	int r = 0;
	if (launcher_getenv(env, "RANK") && launcher_getenv(env, "WORLD_SIZE") && launcher_getenv(env, "LOCAL_RANK")) {
		const struct want w[] = {
			{ "RANK", &l->rank, 0, 1 << 24 },
			{ "WORLD_SIZE", &l->size, 1, 1 << 24 },
			{ "LOCAL_RANK", &l->local_rank, 0, 1 << 20 },
			{ "LOCAL_WORLD_SIZE", &l->local_size, 1, 1 << 20 },
			{ "GROUP_RANK", &l->node_index, 0, 1 << 24 },
			{ NULL, NULL, 0, 0 },
		};
		static const char *const jobs[] = { "TORCHELASTIC_RUN_ID", NULL };
		l->kind = LAUNCHER_TORCHRUN;
		job_of(env, l, jobs);
		return read_all(env, l, w, err, errsz) < 0 ? -EINVAL : 1;
	}
	if (launcher_getenv(env, "OMPI_COMM_WORLD_RANK")) {
		const struct want w[] = {
			{ "OMPI_COMM_WORLD_RANK", &l->rank, 0, 1 << 24 },
			{ "OMPI_COMM_WORLD_SIZE", &l->size, 1, 1 << 24 },
			{ "OMPI_COMM_WORLD_LOCAL_RANK", &l->local_rank, 0, 1 << 20 },
			{ "OMPI_COMM_WORLD_LOCAL_SIZE", &l->local_size, 1, 1 << 20 },
			{ NULL, NULL, 0, 0 },
		};
		static const char *const jobs[] = { "OMPI_MCA_orte_hnp_uri", "PMIX_NAMESPACE", "OMPI_MCA_ess_base_jobid", NULL };
		l->kind = LAUNCHER_OMPI;
		job_of(env, l, jobs);
		return read_all(env, l, w, err, errsz) < 0 ? -EINVAL : 1;
	}
	if (launcher_getenv(env, "PMI_RANK") && launcher_getenv(env, "PMI_SIZE")) {
		const struct want w[] = {
			{ "PMI_RANK", &l->rank, 0, 1 << 24 },
			{ "PMI_SIZE", &l->size, 1, 1 << 24 },
			{ "MPI_LOCALRANKID", &l->local_rank, 0, 1 << 20 },
			{ "MPI_LOCALNRANKS", &l->local_size, 1, 1 << 20 },
			{ NULL, NULL, 0, 0 },
		};
		static const char *const jobs[] = { "PMI_KVSNAME", "PMI_ID", NULL };
		l->kind = LAUNCHER_HYDRA;
		job_of(env, l, jobs);
		return read_all(env, l, w, err, errsz) < 0 ? -EINVAL : 1;
	}
	if (launcher_getenv(env, "PMIX_RANK")) {
		const struct want w[] = {
			{ "PMIX_RANK", &l->rank, 0, 1 << 24 },
			{ "PMIX_SIZE", &l->size, 1, 1 << 24 },
			{ NULL, NULL, 0, 0 },
		};
		static const char *const jobs[] = { "PMIX_NAMESPACE", NULL };
		l->kind = LAUNCHER_PMIX;
		job_of(env, l, jobs);
		if (read_all(env, l, w, err, errsz) < 0)
			return -EINVAL;
		/* srun --mpi=pmix: PMIx names no size in the environment, the step does */
		if (l->size <= 0 && (r = env_int(env, "SLURM_STEP_NUM_TASKS", 1, 1 << 24, &l->size, err, errsz)) <= 0 &&
		    (r < 0 || env_int(env, "SLURM_NTASKS", 1, 1 << 24, &l->size, err, errsz) <= 0))
			return r < 0 ? -EINVAL : bad(err, errsz, "PMIX_RANK is set, but no world size (PMIX_SIZE or SLURM_NTASKS)");
		return 1;
	}
	/* an srun step (SLURM_STEP_ID): a batch script's own shell has SLURM_PROCID 0 of SLURM_NTASKS too, and
	 * is no rank */
	if (launcher_getenv(env, "SLURM_PROCID") && launcher_getenv(env, "SLURM_STEP_ID")) {
		const struct want w[] = {
			{ "SLURM_PROCID", &l->rank, 0, 1 << 24 },
			{ "SLURM_STEP_NUM_TASKS", &l->size, 1, 1 << 24 },
			{ NULL, NULL, 0, 0 },
		};
		l->kind = LAUNCHER_SLURM;
		if (read_all(env, l, w, err, errsz) < 0)
			return -EINVAL;
		if (l->size <= 0 && (r = env_int(env, "SLURM_NTASKS", 1, 1 << 24, &l->size, err, errsz)) <= 0)
			return r < 0 ? -EINVAL : bad(err, errsz, "SLURM_PROCID is set, but not SLURM_NTASKS");
		if (r > 0)
			note_var(l, "SLURM_NTASKS");
		const char *job = launcher_getenv(env, "SLURM_JOB_ID"), *step = launcher_getenv(env, "SLURM_STEP_ID");
		snprintf(l->job, sizeof(l->job), "SLURM_JOB_ID=%.40s.%.20s", job ? job : "?", step);
		return 1;
	}
	if (launcher_getenv(env, "JOB_COMPLETION_INDEX")) {
		const struct want w[] = {
			{ "JOB_COMPLETION_INDEX", &l->rank, 0, 1 << 24 },
			{ "WORLD_SIZE", &l->size, 1, 1 << 24 },
			{ "NCCL_DOCTOR_WORLD_SIZE", &l->size, 1, 1 << 24 },
			{ NULL, NULL, 0, 0 },
		};
		l->kind = LAUNCHER_K8S_INDEXED;
		if (read_all(env, l, w, err, errsz) < 0)
			return -EINVAL;
		if (l->size <= 0)
			return bad(err, errsz, "a Kubernetes Indexed Job (JOB_COMPLETION_INDEX) needs the job's size in "
					       "WORLD_SIZE or NCCL_DOCTOR_WORLD_SIZE (its completions)");
		l->node_index = l->rank;
		l->local_rank = 0, l->local_size = 1;
		const char *nn = launcher_getenv(env, "NODE_NAME"); /* contrib/kubernetes: the downward API's spec.nodeName */
		if (nn)
			snprintf(l->node, sizeof(l->node), "%s", nn);
		return 1;
	}
	if (launcher_getenv(env, "NCCL_DOCTOR_RANK")) {
		const struct want w[] = {
			{ "NCCL_DOCTOR_RANK", &l->rank, 0, 1 << 24 },
			{ "NCCL_DOCTOR_WORLD_SIZE", &l->size, 1, 1 << 24 },
			{ "NCCL_DOCTOR_LOCAL_RANK", &l->local_rank, 0, 1 << 20 },
			{ NULL, NULL, 0, 0 },
		};
		l->kind = LAUNCHER_RENDEZVOUS;
		if (read_all(env, l, w, err, errsz) < 0)
			return -EINVAL;
		if (l->size <= 0)
			return bad(err, errsz, "NCCL_DOCTOR_RANK is set, but not NCCL_DOCTOR_WORLD_SIZE");
		return 1;
	}
	return 0;
}

int launcher_detect(const char *const *env, const char *rendezvous, struct launcher *l, char *err, size_t errsz)
{
	memset(l, 0, sizeof(*l));
	l->rank = 0, l->size = 0, l->local_rank = 0, l->local_size = -1, l->node_index = -1; /* size 0: not read yet */
	int r = which(env, l, err, errsz);
	if (r < 0)
		return r;
	if (r == 0) {
		l->kind = LAUNCHER_NONE;
		l->size = l->local_size = 1;
		if (rendezvous)
			return bad(err, errsz, "--rendezvous needs a rank: no launcher's variables here (NCCL_DOCTOR_RANK and "
					       "NCCL_DOCTOR_WORLD_SIZE, or srun, mpirun, torchrun, an Indexed Job)");
		return 0;
	}
	if (l->rank >= l->size)
		return bad(err, errsz, "%s: rank %d of a world of %d", launcher_name(l->kind), l->rank, l->size);
	if (l->kind != LAUNCHER_K8S_INDEXED && slurm_local(env, l, err, errsz) < 0)
		return -EINVAL;
	if (l->local_size > 0 && l->local_rank >= l->local_size)
		return bad(err, errsz, "%s: local rank %d of %d on the node", launcher_name(l->kind), l->local_rank, l->local_size);
	if (l->node_index < 0 && l->local_size > 0 && l->size % l->local_size == 0)
		l->node_index = l->rank / l->local_size; /* the block distribution every launcher defaults to */
	if (rendezvous) {
		if (launcher_parse_addr(rendezvous, l->root_host, sizeof(l->root_host), &l->root_port) < 0)
			return bad(err, errsz, "--rendezvous takes HOST:PORT (a port from 1 to 65535): '%.80s'", rendezvous);
		snprintf(l->root_from, sizeof(l->root_from), "--rendezvous");
	} else if ((r = master_root(env, l, err, errsz)) < 0) {
		return r;
	} else if (!l->root_host[0] && l->kind == LAUNCHER_SLURM && (r = slurm_root(env, l, err, errsz)) < 0) {
		return r;
	}
	if (!l->job[0]) {
		const char *j = launcher_getenv(env, "NCCL_DOCTOR_JOB");
		if (j)
			snprintf(l->job, sizeof(l->job), "NCCL_DOCTOR_JOB=%.100s", j);
	}
	return 0;
}
