/* NCCL log analysis: rules added after scoring the held-out public batch 10
 * (docs/logs.md, issue 14), each on facts the rows of kb/nccl_signatures.c
 * (EV01, NT02, MP01, S68r) and the model already give:
 *  - a transport switched off where the run was started (a pasted command
 *    line, export, mpirun -x, or NCCL's 'set by environment' line): the
 *    causes of that transport that only the hang fallbacks put forward go;
 *  - more than 2 GPUs of an NVSwitch system (nccl-tests' GPU lines) in a
 *    run that stopped: NVLS and the fabric manager are a candidate;
 *  - a launcher's exit code after nccl-tests: the test's own error code, so
 *    the run failed (2, 3) or timed out (4), it did not silently hang;
 *  - ncclRemoteError where the log names no transport: the sockets (most of
 *    NCCL's returns of that code) are a candidate beside the IB fabric;
 *  - a bootstrap stop on one host with no hang marker: a weak prior, the
 *    finding says so (issue 14 item 2).
 * Called once, after b8_checks(), when every other cause is in. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"
#include "util/xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The accumulator of a cause class, NULL when it has none (cause_get adds). */
static struct cause_acc *cause_find(struct ana *a, const char *cause)
{
	for (int i = 0; i < a->ncauses; i++)
		if (strcmp(a->causes[i].cause, cause) == 0)
			return &a->causes[i];
	return NULL;
}

static bool has_fid(const struct cause_acc *c, const char *fid)
{
	for (int i = 0; i < c->nfids; i++)
		if (strcmp(c->fids[i], fid) == 0)
			return true;
	return false;
}

/* Whether every process of the log runs on one host (true with none). */
static bool one_host(const struct nccllog *lg)
{
	for (int i = 1; i < lg->nprocs; i++)
		if (strcmp(lg->procs[i].host, lg->procs[0].host) != 0)
			return false;
	return true;
}

/* Replaces f's title by prefix + the old title, once. */
static void title_prefix(struct finding *f, const char *prefix)
{
	if (!f->title || strncmp(f->title, prefix, strlen(prefix)) == 0)
		return;
	char *t = xasprintf("%s%s", prefix, f->title);
	free(f->title);
	f->title = t;
}

/* ---- transport switches --------------------------------------------- */

/* Whether word w[0..n) sets a variable ("CUDA_VISIBLE_DEVICES=0,1"). */
static bool assignment_word(const char *w, size_t n)
{
	size_t i = 0;
	while (i < n && ((w[i] >= 'A' && w[i] <= 'Z') || w[i] == '_' || (i && w[i] >= '0' && w[i] <= '9')))
		i++;
	return i > 0 && i < n && w[i] == '=';
}

/* Whether the word before position q of line t puts q in a command's
 * environment: nothing before it, a prompt ("...$", "...#"), another
 * assignment, or export / env / mpirun's -x / docker's -e. */
static bool command_position(const char *t, const char *q)
{
	if (q == t)
		return true;
	if (q[-1] != ' ' && q[-1] != '\t')
		return false;
	const char *e = q;
	while (e > t && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	const char *b = e;
	while (b > t && b[-1] != ' ' && b[-1] != '\t')
		b--;
	size_t n = (size_t)(e - b);
	if (n == 0)
		return true;
	static const char *const words[] = { "export", "env", "-x", "-e", "--env" };
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (n == strlen(words[i]) && memcmp(b, words[i], n) == 0)
			return true;
	char last = e[-1];
	return last == '$' || last == '#' || last == '%' || assignment_word(b, n);
}

/* The value of `var=N` set in a command's shape in line t; false when the
 * line does not set it so (advice text, "(NCCL_X=0)", a longer name). */
static bool command_sets(const char *t, const char *var, long *val)
{
	size_t vn = strlen(var);
	for (const char *q = strstr(t, var); q; q = strstr(q + 1, var)) {
		if (q[vn] != '=' || !command_position(t, q))
			continue;
		const char *v = q + vn + 1;
		if (*v == '"' || *v == '\'')
			v++;
		char *end;
		long x = strtol(v, &end, 0);
		if (end == v)
			continue;
		*val = x;
		return true;
	}
	return false;
}

struct switch_src {
	int file;
	uint64_t line;
	const char *text;
};

/* Where variable var is set to 1 for the run: NCCL's "set by environment"
 * line of a process, else a command line (EV01); false when nowhere. */
static bool switched_off(const struct ana *a, const char *var, struct switch_src *s)
{
	const struct nccllog *lg = a->lg;
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].nenv; k++) {
			const struct nl_env *v = &lg->procs[i].env[k];
			if (strcmp(v->name, var) == 0 && strtol(v->value, NULL, 0) == 1) {
				*s = (struct switch_src){ v->file, v->line, v->name };
				return true;
			}
		}
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		long val;
		if (strcmp(a->sigs[e->sig].id, "EV01") == 0 && command_sets(e->text, var, &val) && val == 1) {
			*s = (struct switch_src){ e->file, e->line, e->text };
			return true;
		}
	}
	return false;
}

/* Whether a process connected a peer over a transport of this kind
 * ("P2P", "SHM", "NET/IB"), (IB) said it uses the IB network, or warned
 * from that transport's source (src: "transport/p2p"). */
static bool transport_used(const struct nccllog *lg, const char *kind, const char *src)
{
	size_t n = strlen(kind);
	for (size_t i = 0; i < lg->nev; i++)
		if (strncmp(lg->ev[i].src, src, strlen(src)) == 0)
			return true;
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		if (strcmp(kind, "NET/IB") == 0 && strcmp(p->net, "IB") == 0)
			return true;
		for (int t = 0; t < p->ntr; t++)
			if (strncmp(p->tr[t].kind, kind, n) == 0)
				return true;
	}
	return false;
}

/* Whether a line of the log names cause c itself: one of c's findings is
 * raised by a matched row that is a failure, a consequence or a context
 * warning (not a hang symptom, not information). Otherwise only fallbacks
 * (where a hang stopped, a log that ends) put c forward. */
static bool named_by_line(const struct ana *a, const struct cause_acc *c)
{
	for (int k = 0; k < c->nfids; k++)
		for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++) {
			const struct nccl_signature *g = &a->sigs[s];
			if (a->lg->sigcount[s] && g->role != NSR_INFO && g->role != NSR_HANG && strcmp(g->finding, c->fids[k]) == 0)
				return true;
		}
	return false;
}

/* NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1 or NCCL_IB_DISABLE=1 where the run
 * was started, and no process connected a peer over that transport or
 * warned from its source file: NCCL
 * did not use it (N:graph/paths.cc ncclGetLevel: P2P_DISABLE strtol == 1
 * sets the P2P level to LOC; N:transport/shm.cc shmCanConnect returns when
 * ncclParamShmDisable() == 1; N:transport/net_ib.cc ncclIbInit fails when
 * ncclParamIbDisable(); v2.26.5-1), so a cause of that transport that only
 * the hang fallbacks put forward is taken out. A cause a line names itself
 * stays: the switch may belong to another run of the paste. */
static void transport_switches(struct ana *a)
{
	static const struct {
		const char *var, *kind, *src, *cause[2];
	} sw[] = {
		{ "NCCL_P2P_DISABLE", "P2P", "transport/p2p", { "p2p_pcie_acs_iommu", "p2p_virtualization" } },
		{ "NCCL_SHM_DISABLE", "SHM", "transport/shm", { "shm_too_small", NULL } },
		{ "NCCL_IB_DISABLE", "NET/IB", "transport/net_ib", { "ib_rdma_config", NULL } },
	};
	const struct nccllog *lg = a->lg;
	for (size_t k = 0; k < sizeof(sw) / sizeof(sw[0]); k++) {
		struct switch_src src;
		if (!switched_off(a, sw[k].var, &src) || transport_used(lg, sw[k].kind, sw[k].src))
			continue;
		for (int j = 0; j < 2 && sw[k].cause[j]; j++) {
			struct cause_acc *c = cause_find(a, sw[k].cause[j]);
			if (!c || named_by_line(a, c))
				continue;
			struct finding *f = finding_for(a->r, FID_LOG_ENV_TRANSPORT_SWITCH, SEV_INFO, "an NCCL transport switch is set");
			finding_evidence(f, file_name(lg, src.file), (long)src.line,
					 "%s=1 and no %s connection in the log: NCCL did not use %s, so %s (%.2f from where the "
					 "run stopped, not from a line that names it) is taken out of the causes",
					 sw[k].var, sw[k].kind, sw[k].kind, c->cause, c->conf);
			int i = (int)(c - a->causes);
			memmove(&a->causes[i], &a->causes[i + 1], sizeof(a->causes[0]) * (size_t)(a->ncauses - i - 1));
			a->ncauses--;
		}
	}
}

/* ---- NVSwitch systems and NVLS -------------------------------------- */

/* A GPU model whose SXM boards put the GPUs on NVSwitches with NVLS
 * multicast (Hopper and Blackwell data-centre GPUs, cudaDeviceProp.name):
 * not the PCIe cards ("H100 PCIe"), the bridged pairs ("H100 NVL") or a
 * Grace Hopper module (GH200). */
static bool nvswitch_model(const char *name)
{
	static const char *const sxm[] = { "H100", "H800", "H200", "H20", "B200", "B300" };
	if (strstr(name, "PCIe") || strstr(name, " NVL") || strstr(name, "GH200"))
		return false;
	for (size_t i = 0; i < sizeof(sxm) / sizeof(sxm[0]); i++)
		if (strstr(name, sxm[i]))
			return true;
	return false;
}

/* nccl-tests' GPU line (NT02): host after " on ", model after the bus id. */
static bool gpu_line(const char *t, char *host, size_t hostsz, const char **model)
{
	const char *on = strstr(t, " on ");
	const char *br = strrchr(t, ']');
	if (!on || !br || br[1] != ' ' || !br[2])
		return false;
	on += 4;
	while (*on == ' ')
		on++;
	size_t n = strcspn(on, " ");
	if (!n || n >= hostsz)
		return false;
	memcpy(host, on, n);
	host[n] = '\0';
	*model = br + 2;
	return true;
}

/* NCCL version text "2.M..." older than 2.17 (no NVLS); false unknown. */
static bool before_nvls(const char *v)
{
	int mj = 0, mn = 0;
	return sscanf(v, "%d.%d", &mj, &mn) == 2 && (mj < 2 || (mj == 2 && mn < 17));
}

/* NVLS ruled out by the log: NCCL_NVLS_ENABLE=0 set (NCCL's 'set by
 * environment' line), or an NCCL without NVLS. */
static bool nvls_ruled_out(const struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (int i = 0; i < lg->nprocs; i++) {
		if (before_nvls(lg->procs[i].version))
			return true;
		for (int k = 0; k < lg->procs[i].nenv; k++)
			if (strcmp(lg->procs[i].env[k].name, "NCCL_NVLS_ENABLE") == 0 && strtol(lg->procs[i].env[k].value, NULL, 0) == 0)
				return true;
	}
	return false;
}

/* The GPUs of the run on its one host: nccl-tests' GPU lines (all on one
 * host, the processes' host too), else the largest localRanks of a
 * communicator; 0 when several hosts or unknown. *model: a GPU line of an
 * NVSwitch model, NULL none. */
static int gpus_on_host(const struct ana *a, const struct nl_event **model)
{
	const struct nccllog *lg = a->lg;
	char host[64], h0[64] = "";
	*model = NULL;
	if (!one_host(lg))
		return 0;
	int n = 0;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		const char *name;
		if (strcmp(a->sigs[e->sig].id, "NT02") != 0 || !gpu_line(e->text, host, sizeof(host), &name))
			continue;
		if (!h0[0])
			snprintf(h0, sizeof(h0), "%s", host);
		if (strcmp(h0, host) != 0 || (lg->nprocs && strcmp(lg->procs[0].host, host) != 0))
			return 0;
		if (!*model && nvswitch_model(name))
			*model = e;
		n = (int)count_of(a, "NT02");
	}
	for (int i = 0; i < lg->nprocs; i++)
		for (int k = 0; k < lg->procs[i].ncomms; k++)
			if (lg->procs[i].comms[k].localranks > n)
				n = lg->procs[i].comms[k].localranks;
	return n;
}

/* A run that failed or stopped with no root failure, on one host with more
 * than 2 GPUs of an NVSwitch model (nccl-tests' GPU lines): NCCL sets up
 * NVLS there (N:transport/nvls.cc ncclNvlsInit, v2.18.1-1 line 239 and
 * v2.26.5-1 line 157: 'gpuCount <= 2' returns before it, and only
 * NCCL_NVLS_ENABLE turns it off, not NCCL_P2P_DISABLE), and NVLS needs the
 * fabric manager and healthy NVSwitches (kb/nccl-log.md S53/S62; nccl#1706:
 * 4 H800 hang, 2 work, NCCL_NVLS_ENABLE=0 fixed it). fabric_manager_nvswitch
 * 0.4, at the strength of the other stop fallbacks (x0.4 without a hang
 * marker, issue 14 item 2). */
static void nvls_candidate(struct ana *a)
{
	if (!a->failed || a->have_root || nvls_ruled_out(a))
		return;
	const struct nl_event *model = NULL;
	int n = gpus_on_host(a, &model);
	const char *name = NULL;
	char host[64];
	if (!model || n <= 2 || !gpu_line(model->text, host, sizeof(host), &name))
		return;
	char title[240];
	snprintf(title, sizeof(title),
		 "%d GPUs %.60s on one host in a run that stopped: NVLS (NVLink SHARP) and the fabric manager are a candidate", n,
		 name);
	struct finding *f = finding_for(a->r, FID_LOG_NVLS_CANDIDATE, SEV_WARNING, title);
	double w = 0.4 * (a->have_hang ? 1.0 : 0.4);
	struct cause_acc *c = contribute(a, "fabric_manager_nvswitch", w, FID_LOG_NVLS_CANDIDATE);
	finding_evidence(f, file_name(a->lg, model->file), (long)model->line, "%s", model->text);
	cause_evidence(c, model->file, model->line, model->text);
	finding_evidence(f, NULL, 0, "NCCL sets up NVLS for more than 2 GPUs of an NVSwitch node; NCCL_P2P_DISABLE does not turn it off, "
				     "NCCL_NVLS_ENABLE=0 does");
}

/* ---- nccl-tests' exit code ------------------------------------------ */

/* The status in "Exit code:    3" (Open MPI) or "Exited with exit code 3"
 * (Slurm); -1 none. */
static int exit_code_of(const char *t)
{
	const char *p = strstr(t, "Exit code:");
	if (p)
		p += strlen("Exit code:");
	else if ((p = strstr(t, "Exited with exit code ")))
		p += strlen("Exited with exit code ");
	else
		return -1;
	char *end;
	long v = strtol(p, &end, 10);
	return end == p || v < 0 || v > 255 ? -1 : (int)v;
}

static const char *const hang_fids[] = { "LOG_HANG_STAGE_UNKNOWN", "LOG_HANG_BOOTSTRAP", "LOG_HANG_INIT_CONNECT",
					  "LOG_HANG_RUNTIME_CONNECT", "LOG_HANG_DATA_PATH" };

/* A launcher's exit code (MP01) in a log with nccl-tests' output (its
 * table header TB01, its GPU lines NT02): nccl-tests exits with the
 * testResult_t of the step that failed (nccl-tests src/common.h, the same
 * values v2.0.0 to v2.19.6: 1 testInternalError, 2 testCudaError, 3
 * testNcclError, 4 testTimeout; main() returns run()'s result, TESTCHECK in
 * 2.13+; wrong results exit 1 before 2.17.3, 6 testNumResults after). 1, 2,
 * 3, 6: the process failed by itself, the run did not hang (have_hang and
 * the stage findings read a stop as a possible hang: they drop to info and
 * say why). 4: nccl-tests' -T timeout ended a collective that hung. */
static void tests_exit_code(struct ana *a)
{
	static const char *const meaning[] = { NULL,
					       "testInternalError, or before nccl-tests 2.17.3 wrong results",
					       "testCudaError: a CUDA call failed",
					       "testNcclError: an NCCL call failed",
					       "testTimeout: a collective did not finish within -T seconds",
					       NULL,
					       "testNumResults: wrong results or a bandwidth below the check" };
	const struct nccllog *lg = a->lg;
	if (!count_of(a, "TB01") && !count_of(a, "NT02"))
		return;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		int code = strcmp(a->sigs[e->sig].id, "MP01") == 0 ? exit_code_of(e->text) : -1;
		if (code <= 0 || code >= (int)(sizeof(meaning) / sizeof(meaning[0])) || !meaning[code])
			continue;
		a->failed = true;
		for (size_t k = 0; k < sizeof(hang_fids) / sizeof(hang_fids[0]); k++) {
			struct finding *h = result_find(a->r, hang_fids[k]);
			if (!h)
				continue;
			if (code == 4) {
				h->sev = SEV_ERROR;
				finding_evidence(h, file_name(lg, e->file), (long)e->line,
						 "a hang: nccl-tests exited with 4 (testTimeout), its own timeout ended the collective");
			} else if (!a->have_hang) {
				h->sev = SEV_INFO;
				if (k == 0) { /* its title speaks of a possible hang only */
					free(h->title);
					h->title = xasprintf("the run failed at a stage its log does not show (nccl-tests exited "
							     "with %d, not a hang)", code);
				} else {
					title_prefix(h, "not a hang, the test exited with an error; ");
				}
				finding_evidence(h, file_name(lg, e->file), (long)e->line,
						 "nccl-tests exited with %d (%s): the run stopped by itself, where the log ends is where "
						 "it failed; the candidates keep the order of a stop there",
						 code, meaning[code]);
			}
		}
		if (code != 4) {
			char title[200];
			snprintf(title, sizeof(title), "nccl-tests exited with %d (%s): the run failed, it did not hang", code,
				 meaning[code]);
			struct finding *f = finding_for(a->r, FID_LOG_NCCL_TESTS_EXIT, SEV_ERROR, title);
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s", e->text);
		}
		return;
	}
}

/* ---- ncclRemoteError with no transport named ------------------------ */

/* "remote process exited or there was a network error" (S68r) where no
 * line names a network (no NET/IB or NET/Socket line, no interface of a
 * process): remote_error_priors reads IB then (0.2). In NCCL 2.18.6, 9 of
 * the 10 places that return ncclRemoteError are in misc/socket.cc (connect
 * refused or timed out past its retries: an address the rank cannot reach;
 * recv failing; a connection closed by the peer), used by bootstrap, by
 * NET/Socket and by IB's own connection set-up; 1 is an IB completion error
 * (transport/net_ib.cc). With no detail line, the connections that never
 * came up (an address the rank cannot reach: the interface) remain, so the
 * sockets come next to the dead peer: bootstrap_network 0.25 (nccl#1141),
 * unless a rule already put them there (b9's bootstrap reading of a closed
 * connection). A connection closed or reset (S08, S09) existed: the reading
 * of remote_error_priors stands. */
static void remote_error_no_transport(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_event *re = first_of(a, "S68r");
	struct cause_acc *ib = cause_find(a, "ib_rdma_config");
	if (a->have_root || !re || !ib || !has_fid(ib, "LOG_NCCL_REMOTE_ERROR") || count_of(a, "S08") || count_of(a, "S09"))
		return;
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].net[0] || lg->procs[i].socket_if[0] || lg->procs[i].ib_hcas[0])
			return;
	for (size_t i = 0; i < lg->nev; i++)
		if (strstr(lg->ev[i].text, "NET/IB") || strstr(lg->ev[i].text, "NET/Socket"))
			return;
	struct cause_acc *bn = cause_find(a, "bootstrap_network");
	if (bn && bn->conf >= 0.2)
		return;
	struct cause_acc *c = contribute(a, "bootstrap_network", 0.25, FID_LOG_NCCL_REMOTE_ERROR);
	cause_evidence(c, re->file, re->line, re->text);
	struct finding *f = finding_get(a->r, FID_LOG_NCCL_REMOTE_ERROR);
	if (f)
		finding_evidence(f, NULL, 0, "no line names the network: NCCL returns this code mostly from its sockets (an "
					     "address a rank cannot reach, a connection closed or reset), so the socket interface "
					     "(NCCL_SOCKET_IFNAME) is a candidate beside the IB fabric");
}

/* ---- a bootstrap stop on one host ----------------------------------- */

/* LOG_HANG_BOOTSTRAP on one host, with no hang marker, no root failure and
 * no rank missing: hang_causes then ranks the paths between the GPUs first
 * (a log that merely ends is a weak prior, issue 14 item 2), and the
 * finding says the same: a warning that the log may just end there. One
 * process driving every GPU (nccl-tests -g N) bootstraps its ranks over its
 * own host's address, where the interface rarely matters. */
static void one_host_bootstrap_stop(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct finding *f = finding_get(a->r, FID_LOG_HANG_BOOTSTRAP);
	if (!f || a->have_hang || a->have_root || finding_get(a->r, FID_LOG_RANKS_MISSING) || !lg->nprocs || !one_host(lg))
		return;
	if (f->sev > SEV_WARNING)
		f->sev = SEV_WARNING;
	title_prefix(f, "possible hang, the log just stops; ");
	finding_evidence(f, NULL, 0, "one host and no hang marker (no kill, timeout or watchdog line): a log that ends here "
				     "(a paste cut here too) is a weak prior, the paths between the GPUs of the host come first");
	if (lg->nprocs == 1 && count_of(a, "NT02") > 1)
		finding_evidence(f, NULL, 0, "one process drives every GPU: its ranks bootstrap over this host's own address, "
					     "where NCCL_SOCKET_IFNAME rarely matters");
}

void b10_checks(struct ana *a)
{
	tests_exit_code(a);
	remote_error_no_transport(a);
	nvls_candidate(a);
	one_host_bootstrap_stop(a);
	transport_switches(a);
}
