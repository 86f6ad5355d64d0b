/* watch: the job's processes at a stall (state, wait channel, CPU, rank and
 * stage from the logs, the libnccl they mapped, vLLM workers), the TCP
 * ports they listen on with the connections each received, and a
 * torch.distributed rendezvous that misses ranks (engine/watch_int.h). */
#include "analyze/nccllog.h"
#include "engine/watch_int.h"
#include "kb/findings.h"
#include "probe/proc.h"
#include "util/text.h"
#include "util/clock.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define WATCH_MAX_SOCKS 8192

static double cpu_percent(struct watch_cpu *w, const struct proc_info *pi, double dt)
{
	unsigned long long t = pi->utime + pi->stime;
	long hz = sysconf(_SC_CLK_TCK);
	for (int i = 0; i < w->n; i++)
		if (w->pid[i] == pi->pid) {
			double pct = dt > 0 && hz > 0 ? 100.0 * (double)(t - w->ticks[i]) / hz / dt : -1;
			w->ticks[i] = t;
			return pct;
		}
	if (w->n < WATCH_MAX_PIDS) {
		w->pid[w->n] = pi->pid;
		w->ticks[w->n++] = t;
	}
	return -1;
}

/* The logs' view of a pid: its rank and stage, when it wrote NCCL lines. */
static const struct nl_proc *log_proc(const struct nccllog *lg, int pid)
{
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].pid == pid)
			return &lg->procs[i];
	return NULL;
}

int wprocs_add(struct watch_cpu *w, const struct nccllog *lg, struct result *r, const int *pids, int npids, int *nranks,
	       int *nvllm)
{
	static const struct column cols[] = {
		{ "pid", "pid", 0 },           { "command", "command", 0 }, { "state", "state", 0 },
		{ "wchan", "waiting in", 0 },  { "cpu_percent", "CPU %", 0 }, { "threads", "threads", 0 },
		{ "rank", "rank", 0 },         { "stage", "stage", 0 },     { "role", "role", 0 },
		{ "nccl", "libnccl", 0 },
	};
	struct section *s = result_section(r, "processes", "Processes of the job");
	struct table *t = section_table(s, "processes", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	double now = nd_now_s(), dt = w->t > 0 ? now - w->t : 0;
	w->t = now;
	*nranks = *nvllm = 0;
	int ngpu = 0, vllm_pid[64], nv = 0;
	for (int i = 0; i < npids; i++) {
		struct proc_info pi;
		if (proc_read(pids[i], &pi) < 0)
			continue;
		bool gpu = pi.nccl || pi.cudart || pi.libcuda;
		/* vLLM's workers are spawned Python processes whose command line
		 * does not say vLLM: a GPU child of a vLLM process is one */
		for (int k = 0; k < nv && !pi.role[0]; k++)
			if (vllm_pid[k] == pi.ppid && gpu)
				str_copy(pi.role, "vLLM worker", sizeof(pi.role));
		if (str_startswith(pi.role, "vLLM") && nv < 64)
			vllm_pid[nv++] = pi.pid;
		const struct nl_proc *lp = log_proc(lg, pi.pid);
		if (!gpu && !lp && !pi.role[0] && i > 0)
			continue; /* a helper process of no interest (shell, pipe) */
		*nranks += pi.nccl || lp;
		ngpu += gpu;
		*nvllm += strcmp(pi.role, "vLLM worker") == 0;
		size_t row = table_add_row(t);
		table_set(t, row, "pid", val_int(pi.pid));
		table_set(t, row, "command", val_str(pi.comm));
		table_set(t, row, "state", val_strf("%c", pi.state));
		table_set(t, row, "wchan", pi.wchan[0] ? val_str(pi.wchan) : val_none());
		double pct = cpu_percent(w, &pi, dt);
		table_set(t, row, "cpu_percent", pct >= 0 ? val_double(round(pct)) : val_unknown("first sample"));
		table_set(t, row, "threads", val_int(pi.threads));
		const struct nl_comm *c = lp ? nl_proc_main_comm(lp) : NULL;
		table_set(t, row, "rank", c && c->rank >= 0 ? val_int(c->rank) : val_none());
		if (lp) {
			int st = nl_proc_stage(lp);
			table_set(t, row, "stage", st >= 0 ? val_strf("T%d %s", st, nccl_stage_name(st)) : val_none());
		}
		table_set(t, row, "role", pi.role[0] ? val_str(pi.role) : val_none());
		table_set(t, row, "nccl", pi.nccl ? val_str(pi.nccl_path) : val_none());
	}
	return ngpu;
}

/* The job's listening TCP ports and how many connections reached each. */
struct listening {
	int pid;
	char addr[64];
	unsigned port;
	int connected;
};

static int find_listening(const int *pids, int npids, struct listening *out, int max)
{
	static struct tcp_sock socks[WATCH_MAX_SOCKS];
	int ns = proc_net_tcp(socks, WATCH_MAX_SOCKS), n = 0;
	for (int i = 0; i < npids && ns > 0; i++) {
		unsigned long ino[256];
		int ni = proc_socket_inodes(pids[i], ino, 256);
		for (int k = 0; k < ni; k++)
			for (int j = 0; j < ns && n < max; j++) {
				if (socks[j].inode != ino[k] || socks[j].state != TCP_LISTEN)
					continue;
				struct listening *l = &out[n++];
				l->pid = pids[i];
				str_copy(l->addr, socks[j].local, sizeof(l->addr));
				l->port = socks[j].lport;
				l->connected = 0;
				for (int m = 0; m < ns; m++)
					l->connected += socks[m].state == TCP_ESTABLISHED && socks[m].lport == socks[j].lport;
			}
	}
	return n;
}

static void add_sockets(struct result *r, const struct listening *ls, int n)
{
	static const struct column cols[] = {
		{ "pid", "pid", 0 }, { "address", "listening on", 0 }, { "connected", "connections", 0 },
	};
	if (n == 0)
		return;
	struct table *t = section_table(result_section(r, "sockets", "Listening sockets of the job"), "listening", NULL,
					cols, 3);
	for (int i = 0; i < n; i++) {
		size_t row = table_add_row(t);
		table_set(t, row, "pid", val_int(ls[i].pid));
		bool v6 = strchr(ls[i].addr, ':') != NULL;
		table_set(t, row, "address", val_strf("%s%s%s:%u", v6 ? "[" : "", ls[i].addr, v6 ? "]" : "", ls[i].port));
		table_set(t, row, "connected", val_int(ls[i].connected));
	}
}

/* torch.distributed / torchrun: the world the ranks expect (RANK, WORLD_SIZE,
 * MASTER_PORT of their environment) against the ranks running here and the
 * connections their rendezvous store received. */
static void add_rendezvous(struct result *r, const int *pids, int npids, const struct listening *ls, int nls)
{
	long long world = 0, local_world = 0, port = 0;
	bool seen[1024] = { false };
	int nseen = 0;
	for (int i = 0; i < npids; i++) {
		char v[64];
		long long rank, ws;
		if (proc_environ_get(pids[i], "RANK", v, sizeof(v)) < 0 || parse_ll(v, 10, &rank) < 0 ||
		    proc_environ_get(pids[i], "WORLD_SIZE", v, sizeof(v)) < 0 || parse_ll(v, 10, &ws) < 0 || rank < 0 ||
		    rank >= 1024 || ws < 1)
			continue;
		if (ws > world)
			world = ws;
		if (proc_environ_get(pids[i], "LOCAL_WORLD_SIZE", v, sizeof(v)) == 0)
			parse_ll(v, 10, &local_world);
		if (proc_environ_get(pids[i], "MASTER_PORT", v, sizeof(v)) == 0)
			parse_ll(v, 10, &port);
		if (!seen[rank]) {
			seen[rank] = true;
			nseen++;
		}
	}
	if (world <= 1 || nseen >= world)
		return;
	const struct listening *store = NULL;
	for (int i = 0; i < nls && !store; i++)
		if (port > 0 && ls[i].port == (unsigned)port)
			store = &ls[i];
	/* all ranks on this node but some not running, or the store (held here)
	 * with fewer connections than the world: either way ranks are missing */
	bool all_local = local_world >= world || local_world == 0;
	if (!(all_local || (store && store->connected < world)))
		return;
	char missing[256] = "";
	size_t off = 0;
	for (long long k = 0; k < world && k < 1024 && off + 8 < sizeof(missing); k++)
		if (!seen[k])
			off += (size_t)snprintf(missing + off, sizeof(missing) - off, "%s%lld", off ? "," : "", k);
	struct finding *f = finding_add(r, FID_WATCH_RANKS_NOT_STARTED, SEV_ERROR,
					       "the rendezvous waits: %d of %lld ranks run%s; rank%s %s not running%s",
					       nseen, world, all_local ? " on this node" : " here", strchr(missing, ',') ? "s" : "",
					       missing, all_local ? "" : " here");
	finding_evidence(f, NULL, 0, "WORLD_SIZE=%lld in the job's environment; ranks running: %d", world, nseen);
	if (store)
		finding_evidence(f, NULL, 0, "the store at %s%s%s:%u (pid %d) has %d connection%s for %lld ranks",
				 strchr(store->addr, ':') ? "[" : "", store->addr, strchr(store->addr, ':') ? "]" : "",
				 store->port, store->pid, store->connected, store->connected == 1 ? "" : "s", world);
	else if (port > 0)
		finding_evidence(f, NULL, 0, "MASTER_PORT=%lld is not a port this job listens on: the store is elsewhere", port);
}

void wprocs_add_net(struct result *r, const int *pids, int npids)
{
	static struct listening ls[64];
	int nls = find_listening(pids, npids, ls, 64);
	add_sockets(r, ls, nls);
	add_rendezvous(r, pids, npids, ls, nls);
}
