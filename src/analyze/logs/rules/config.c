/* NCCL log analysis, configuration and device mapping (nccl_config_error,
 * duplicate_gpu_or_device_mapping): two ranks on one GPU, CUDA and NVML
 * device orders, NCCL variables set and differing between ranks, the two
 * ends of a connection that expect different sizes, a topology file or a
 * variable that replaces NCCL's own detection in a run that stopped. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "util/text.h"

#include <stdio.h>
#include <string.h>

/* Whether NCCL itself told p and q apart as hosts although their hostnames
 * are the same: NCCL_HOSTID replaces the hostname/boot-id string NCCL hashes
 * into a host (misc/utils.cc getHostHash, 2.4-2.30), so ranks with different
 * values are different nodes to NCCL (its duplicate-GPU check, init.cc,
 * compares that hash) and connect through the network transport. */
static bool hostid_apart(const struct nl_proc *p, const struct nl_proc *q)
{
	const struct nl_env *ea = proc_env(p, "NCCL_HOSTID"), *eb = proc_env(q, "NCCL_HOSTID");
	const char *a = ea ? ea->value : NULL, *b = eb ? eb->value : NULL;
	return (a || b) && (!a || !b || strcmp(a, b) != 0);
}

/* Two ranks of one communicator on one GPU (same host, same bus id). */
void check_duplicate_gpu(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		for (int ci = 0; ci < p->ncomms; ci++) {
			const struct nl_comm *c = &p->comms[ci];
			if (!c->busid[0] || c->rank < 0)
				continue;
			for (int j = i + 1; j < lg->nprocs; j++) {
				const struct nl_proc *q = &lg->procs[j];
				if (strcmp(p->host, q->host) != 0 || hostid_apart(p, q))
					continue;
				for (int cj = 0; cj < q->ncomms; cj++) {
					const struct nl_comm *d = &q->comms[cj];
					if (d->rank < 0 || d->rank == c->rank || strcmp(d->busid, c->busid) != 0)
						continue;
					if (c->commid[0] ? strcmp(c->commid, d->commid) != 0 : c->nranks != d->nranks)
						continue;
					struct finding *f = finding_for(a->r, FID_LOG_DUPLICATE_GPU, SEV_ERROR, "two ranks use the same GPU");
					finding_evidence(f, file_name(lg, c->file), (long)c->stage_line,
							 "rank %d (%s:%ld) and rank %d (%s:%ld) both on busId %s", c->rank, p->host, p->pid,
							 d->rank, q->host, q->pid, c->busid);
					struct cause_acc *ca = contribute(a, "duplicate_gpu_or_device_mapping", 0.8, FID_LOG_DUPLICATE_GPU);
					cause_evidence(ca, c->file, c->stage_line, "two ranks on one GPU (same busId)");
					return;
				}
			}
		}
	}
}

/* cudaDev and nvmlDev differ: CUDA device order is not PCI order. */
void check_device_order(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96];
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_comm *c = nl_proc_main_comm(&lg->procs[i]);
		if (c && c->cudadev >= 0 && c->nvmldev >= 0 && c->cudadev != c->nvmldev) {
			struct finding *f = finding_for(a->r, FID_LOG_DEVICE_ORDER_DIFFERS, SEV_INFO, "CUDA device order differs from NVML (PCI) order");
			finding_evidence(f, file_name(lg, c->file), 0, "%s: cudaDev %d is nvmlDev %d", proc_label(lg, i, lbl, sizeof(lbl)),
					 c->cudadev, c->nvmldev);
			break;
		}
	}
}

/* Environment: reported overrides, and differences between ranks. */
void check_env(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96], lbl2[96];
	struct finding *envf = NULL;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		for (int k = 0; k < p->nenv; k++) {
			if (!envf)
				envf = finding_for(a->r, FID_LOG_ENV_OVERRIDE, SEV_INFO, "NCCL variables set by the environment");
			bool seen = false;
			for (int j = 0; j < i && !seen; j++)
				for (int m = 0; m < lg->procs[j].nenv; m++)
					if (strcmp(lg->procs[j].env[m].name, p->env[k].name) == 0 &&
					    strcmp(lg->procs[j].env[m].value, p->env[k].value) == 0)
						seen = true;
			if (!seen && envf->nev < 12)
				finding_evidence(envf, file_name(lg, p->env[k].file), (long)p->env[k].line, "%s=%s (%s)", p->env[k].name,
						 p->env[k].value, proc_label(lg, i, lbl, sizeof(lbl)));
		}
	}
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (stage_of(p) < 3)
			continue;
		for (int j = 0; j < lg->nprocs; j++) {
			const struct nl_proc *q = &lg->procs[j];
			if (j == i || stage_of(q) < 3)
				continue;
			for (int k = 0; k < p->nenv; k++) {
				if (strcmp(p->env[k].name, "NCCL_HOSTID") == 0)
					continue; /* names the host: differs between hosts by design */
				const char *other = NULL;
				for (int m = 0; m < q->nenv; m++)
					if (strcmp(q->env[m].name, p->env[k].name) == 0)
						other = q->env[m].value;
				if (other && strcmp(other, p->env[k].value) == 0)
					continue;
				struct finding *f = finding_for(a->r, FID_LOG_ENV_DIFFERS, SEV_WARNING, "ranks run with different NCCL variables");
				finding_evidence(f, file_name(lg, p->env[k].file), (long)p->env[k].line, "%s: %s=%s, but %s: %s", proc_label(lg, i, lbl, sizeof(lbl)),
						 p->env[k].name, p->env[k].value, proc_label(lg, j, lbl2, sizeof(lbl2)), other ? other : "not set");
				struct cause_acc *c = contribute(a, "nccl_config_error", 0.35, FID_LOG_ENV_DIFFERS);
				cause_evidence(c, p->env[k].file, p->env[k].line, "NCCL variable differs between ranks");
				return;
			}
		}
	}
}

/* NCCL_BUFFSIZE of a GiB or more (NCCL prints "NCCL_BUFFSIZE set by
 * environment to N"): past every documented value (default 4 MiB,
 * N:init.cc DEFAULT_BUFFSIZE; guides 2-64 MiB), times channels and peers
 * it is more memory than a GPU has, and NCCL's sizes overflow (a SIGFPE
 * after "Connected all rings" on an H100 capture, 2.28.9).
 * nccl_config_error 0.5, failed or not. */
void buffsize_extreme(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_env *v = log_env(lg, "NCCL_BUFFSIZE");
	if (!v)
		return;
	unsigned long long b;
	if (parse_ull(v->value, 0, &b) != 0 || b < (1ULL << 30))
		return;
	struct finding *f = finding_for(a->r, FID_LOG_BUFFSIZE_EXTREME, SEV_WARNING,
					"NCCL_BUFFSIZE is set far past any documented value");
	finding_evidence(f, file_name(lg, v->file), (long)v->line, "NCCL_BUFFSIZE set by environment to %s (%.1f GiB per buffer)",
			 v->value, (double)b / (1ULL << 30));
	struct cause_acc *c = contribute(a, "nccl_config_error", 0.5, FID_LOG_BUFFSIZE_EXTREME);
	cause_evidence(c, v->file, v->line, ana_text(a, "NCCL_BUFFSIZE=%s: %.1f GiB per buffer, the default is 4 MiB", v->value,
						 (double)b / (1ULL << 30)));
}

void transport_size_mismatch(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		const char *t = e->text;
		bool boot = strstr(t, "Message truncated : received") != NULL;
		bool hit = strstr(t, "message truncated") || strstr(t, "Message truncated") ||
			   strstr(t, "collective mismatch error");
		if (!hit)
			continue;
		struct finding *f = finding_add(a->r, FID_LOG_TRANSPORT_SIZE_MISMATCH, SEV_WARNING,
						"the two ends of a connection expected different sizes");
		finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s", t);
		finding_evidence(f, NULL, 0, "inconsistent calls between ranks, or NCCL settings (protocol, buffers, "
					     "versions) that differ between ranks; NCCL_PROTO=Simple tells them apart");
		cause_evidence(contribute(a, "nccl_config_error", 0.4, FID_LOG_TRANSPORT_SIZE_MISMATCH), e->file, e->line, t);
		if (!boot)
			cause_evidence(contribute(a, "version_mismatch", 0.35, FID_LOG_TRANSPORT_SIZE_MISMATCH), e->file, e->line, t);
		const char *other;
		int pi, pj;
		const struct nl_env *v = shaping_env_differs(lg, &other, &pi, &pj);
		if (v) {
			char lbl[96], lbl2[96];
			finding_evidence(f, file_name(lg, v->file), (long)v->line, "%s: %s=%s, but %s: %s",
					 proc_label(lg, pi, lbl, sizeof(lbl)), v->name, v->value,
					 proc_label(lg, pj, lbl2, sizeof(lbl2)), other);
			cause_evidence(contribute(a, "nccl_config_error", 0.75, FID_LOG_TRANSPORT_SIZE_MISMATCH), v->file,
				       v->line, "a variable that cuts the data differs between ranks");
		}
		return;
	}
}

/* "Loading topology file" (S23t) in a run that failed or stopped, where a
 * process stopped before Init COMPLETE, with no root failure of weight: the file replaced NCCL's detection, and a file
 * for another machine is a configuration error NCCL reports late
 * (NVIDIA/nccl#1008); 0.3, like NCCL_GRAPH_FILE's prior plus the line's
 * evidence that the file was really read. */
void topo_file(struct ana *a)
{
	const struct nl_event *e = first_of(a, "S23t");
	if (!e || !a->failed || a->have_root || !init_unfinished(a->lg))
		return;
	struct finding *f = finding_for(a->r, FID_LOG_TOPO_FILE_RUN_STOPPED, SEV_WARNING,
					"the run loaded a topology file and stopped before init completed");
	finding_evidence(f, file_name(a->lg, e->file), (long)e->line, "%s", e->text);
	struct cause_acc *c = contribute(a, "nccl_config_error", 0.3, FID_LOG_TOPO_FILE_RUN_STOPPED);
	cause_evidence(c, e->file, e->line, e->text);
}

/* "Failed to initialize any NET plugin" where NCCL_IB_DISABLE=1: NCCL's
 * IB network is off, so NCCL_NET=IB (which NCCL 2.28 reads without an INFO
 * line) or a plugin that runs over IB leaves no network (captured: config-
 * ib-conflict.log). The two settings contradict each other; the evidence
 * names the one the log shows, ahead of the warning's lines. */
void net_not_found_ib_disabled(struct ana *a)
{
	struct finding *f = finding_get(a->r, FID_LOG_NET_NOT_FOUND);
	const struct nl_env *v = f ? log_env(a->lg, "NCCL_IB_DISABLE") : NULL;
	if (!v || strtol(v->value, NULL, 0) == 0)
		return;
	env_explains(a, f, "nccl_config_error", v,
		     "turns the IB network off while the run asks for a network (NCCL_NET=IB, or a plugin over IB): "
		     "the two settings contradict each other");
	finding_fix(f, "env", "NCCL then uses IB where it finds a device, else sockets", "unset NCCL_NET NCCL_IB_DISABLE");
}

/* In a run that failed or hung, a variable that replaces what NCCL would
 * detect itself (the graph, the topology, the algorithm or protocol) is a
 * configuration suspect: a graph file is written for one machine type and
 * GPU count (nccl#1240), a topology file or a forced algorithm can leave
 * NCCL with no path. Weak (<= 0.25): such files are also set on purpose. */
void override_priors(struct ana *a)
{
	static const struct {
		const char *name;
		double w;
	} vars[] = { { "NCCL_GRAPH_FILE", 0.25 }, { "NCCL_TOPO_FILE", 0.15 }, { "NCCL_ALGO", 0.15 }, { "NCCL_PROTO", 0.15 } };
	const struct nccllog *lg = a->lg;
	if (!a->failed)
		return;
	for (size_t k = 0; k < sizeof(vars) / sizeof(vars[0]); k++) {
		for (int i = 0; i < lg->nprocs; i++) {
			const struct nl_proc *p = &lg->procs[i];
			int e = -1;
			for (int j = 0; j < p->nenv && e < 0; j++)
				if (strcmp(p->env[j].name, vars[k].name) == 0)
					e = j;
			if (e < 0)
				continue;
			struct cause_acc *c = contribute(a, "nccl_config_error", vars[k].w, FID_LOG_ENV_OVERRIDE);
			const char *t = ana_text(a, "%s set by environment to %s", p->env[e].name, p->env[e].value);
			cause_evidence(c, p->env[e].file, p->env[e].line, t ? t : p->env[e].name);
			break;
		}
	}
}

/* Where the run was started with var set to a value: NCCL's "set by
 * environment" line of a process, else a command line (EV02, or a launcher
 * line another row took first) that sets it
 * in a command's shape ("-x NCCL_TOPO_FILE=/path", "export ..."); false
 * when nowhere (advice text that names the variable is no setting). */
static bool run_sets(const struct ana *a, const char *var, int *file, uint64_t *line, const char **text)
{
	const struct nccllog *lg = a->lg;
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].nenv; k++) {
			const struct nl_env *v = &lg->procs[i].env[k];
			if (strcmp(v->name, var) == 0 && v->value[0]) {
				*file = v->file, *line = v->line, *text = v->name;
				return true;
			}
		}
	size_t vn = strlen(var);
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		/* EV02's lines, or a launcher line another row took first (the
		 * transport switches' "-x NCCL_IB_DISABLE=1" beside the rest) */
		for (const char *q = strstr(e->text, var); q; q = strstr(q + 1, var))
			if (q[vn] == '=' && q[vn + 1] && q[vn + 1] != ' ' && command_position(e->text, q)) {
				*file = e->file, *line = e->line, *text = e->text;
				return true;
			}
	}
	return false;
}

/* Data that came out wrong (nccl-tests' #wrong, its "Out of bounds
 * values" footer) in a run that forced the LL128 protocol (NCCL_PROTO
 * naming LL128 without '^'): NCCL enables LL128 only where the hardware
 * keeps 128-byte stores in order (NVLink on the GPUs it knows) and NCCL's
 * documentation of NCCL_PROTO warns that forcing it where it is not
 * supported can corrupt data (kb/nccl-env.md, NDOC-env). The setting is
 * the cause before the P2P path (0.75 against the wrong data's 0.5-0.6);
 * case 463: LL128 over sockets between two nodes, 2 elements wrong. */
void ll128_wrong_data(struct ana *a)
{
	struct finding *wf = finding_get(a->r, FID_LOG_NCCL_TESTS_WRONG_DATA);
	int file;
	uint64_t line;
	const char *text;
	if (!wf || !run_sets(a, "NCCL_PROTO", &file, &line, &text))
		return;
	const struct nl_env *v = log_env(a->lg, "NCCL_PROTO");
	const char *val = v ? v->value : strstr(text, "NCCL_PROTO=") + strlen("NCCL_PROTO=");
	size_t n = strcspn(val, " \t\"'");
	const char *ll = strstr(val, "LL128");
	if (!ll || ll >= val + n || memchr(val, '^', n))
		return;
	struct finding *f = finding_for(a->r, FID_LOG_PROTO_LL128_FORCED, SEV_ERROR,
					"the run forced the LL128 protocol and its data came out wrong");
	finding_evidence(f, file_name(a->lg, file), (long)line, "NCCL_PROTO=%.*s", (int)n, val);
	const char *t = ana_text(a, "NCCL_PROTO=%.*s forces LL128, which NCCL enables by itself only where it is safe", (int)n, val);
	cause_evidence_first(contribute(a, "nccl_config_error", 0.75, FID_LOG_PROTO_LL128_FORCED), file, line, t ? t : "NCCL_PROTO");
}

/* A run that measured far less bandwidth than expected (a health check's
 * all_reduce_perf below its threshold, NH01; a communicator far below its
 * peers, LOG_INSPECTOR_SLOW) and was started with NCCL_TOPO_FILE or
 * NCCL_GRAPH_FILE: each replaces what NCCL would find itself (NCCL's
 * documented variables, kb/nccl_env.c: the topology is loaded before
 * detection, N:graph/topo.cc ncclTopoGetSystem; the graph file replaces
 * the search, N:graph/search.cc), so a file for another machine leaves
 * NCCL on paths that are not this machine's and is the configuration
 * suspect ahead of the hardware (0.4, above the slow finding's own
 * candidates, 0.3). A slow run with no such file names no cause here. */
void slow_topo_file(struct ana *a)
{
	const struct nl_event *slow = first_of(a, "NH01");
	const struct finding *insp = finding_get(a->r, FID_LOG_INSPECTOR_SLOW);
	if (!slow && !insp)
		return;
	static const char *const vars[] = { "NCCL_TOPO_FILE", "NCCL_GRAPH_FILE" };
	for (size_t k = 0; k < sizeof(vars) / sizeof(vars[0]); k++) {
		int file;
		uint64_t line;
		const char *text;
		if (!run_sets(a, vars[k], &file, &line, &text))
			continue;
		struct finding *f = finding_for(a->r, FID_LOG_TOPO_FILE_SLOW_RUN, SEV_WARNING,
						"a slow run with a topology or graph file set where it was started");
		if (slow)
			finding_evidence(f, file_name(a->lg, slow->file), (long)slow->line, "%s", slow->text);
		else
			finding_evidence(f, NULL, 0, "%s", insp->title);
		finding_evidence(f, file_name(a->lg, file), (long)line, "%s is set where the run started: %s", vars[k],
				 text);
		struct cause_acc *c = contribute(a, "nccl_config_error", 0.4, FID_LOG_TOPO_FILE_SLOW_RUN);
		cause_evidence(c, file, line, vars[k]);
		if (slow)
			cause_evidence(c, slow->file, slow->line, slow->text);
		return;
	}
}
