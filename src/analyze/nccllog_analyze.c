/* NCCL log analysis: turns the model of nccllog*.c into findings, ranked
 * causes (the cause classes of DESIGN.md, with confidence and evidence
 * lines) and one row per rank.
 *
 * Reasoning, in order:
 *  1. signature matches: root failures count fully; consequences (a closed
 *     connection, a remote error, an abort, a framework's wrapper error)
 *     count little once a root failure is known;
 *  2. the first root failure in time (NCCL's WARN timestamps, else the order
 *     within a file) gets a bonus: later failures are usually its effects;
 *  3. model checks: NCCL versions or drivers that differ, two ranks on one
 *     GPU, ranks that never appear, environment that differs, bootstrap over
 *     a virtual interface;
 *  4. the stage timeline: where each rank stopped, and what a hang in that
 *     stage usually means, when the run hung (killed, watchdog, init never
 *     completed) and nothing better explains it. */
#include "analyze/logs/rules/rules.h"
#include "analyze/nccllog_fr.h"
#include "analyze/nccllog_inspector.h"
#include "kb/causes.h"
#include "kb/findings.h"
#include "kb/nccl_warns.h"
#include "util/ncclver.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- findings from signature matches ----------------------------------- */

/* The row of NCCL's own messages a warning no signature knows matched. */
static const struct nccl_warn *known_warn(const struct nl_event *e)
{
	size_t n;
	const struct nccl_warn *w = kb_nccl_warns(&n);
	return e->gen > 0 && (size_t)e->gen <= n ? &w[e->gen - 1] : NULL;
}

/* The title of LOG_NCCL_WARNING: what is known of its first line. A
 * message of NCCL's own table (tools/nccl-warns) is not unknown: the title
 * names the class NCCL's source ties it to, or says that its text names no
 * cause by itself; the catalog's wording stays for a line in no format. */
static void nccl_warning_title(const struct finding_def *d, const struct nl_event *e, char *buf, size_t bufsz)
{
	const struct nccl_warn *known = known_warn(e);
	if (!known)
		snprintf(buf, bufsz, "%s: %s", d->summary, e->text);
	else if (strcmp(known->cause, "context") == 0)
		snprintf(buf, bufsz, "NCCL printed a warning that names no cause by itself (NCCL's own message table): %s",
			 e->text);
	else
		snprintf(buf, bufsz, "NCCL printed a warning of class %s (NCCL's own message table): %s", known->cause,
			 e->text);
}

/* The class NCCL's own message table (kb/nccl_warns.h) gives every
 * warning that matched signature row s, when they all have one and the
 * same (not "context"); NULL otherwise. Such a warning is no unknown one:
 * its finding takes that class and says so (RAS's "NCCL version mismatch
 * with remote peer", ras/ras.cc 2.24+, is version_mismatch). */
static const char *warn_table_class(const struct ana *a, int s)
{
	const struct nccllog *lg = a->lg;
	const char *cls = NULL;
	for (size_t i = 0; i < lg->nev; i++) {
		if (lg->ev[i].sig != s)
			continue;
		const struct nccl_warn *known = known_warn(&lg->ev[i]);
		if (!known || strcmp(known->cause, "context") == 0 || (cls && strcmp(cls, known->cause) != 0))
			return NULL;
		cls = known->cause;
	}
	return cls;
}

void signature_findings(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char lbl[96];
	/* role flags */
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++) {
		if (!lg->sigcount[s])
			continue;
		const struct nccl_signature *g = &a->sigs[s];
		if (g->role == NSR_ROOT) {
			a->have_any_root = true;
			if (g->weight >= 0.5)
				a->have_root = true;
		} else if (g->role == NSR_SECONDARY) {
			a->have_secondary = true;
		} else if (g->role == NSR_HANG) {
			a->have_hang = true;
		}
	}
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].role == NSR_ROOT && (!a->first || event_before(e, a->first)))
			a->first = e;
	}
	/* one finding per finding id, evidence from every signature raising it */
	for (size_t s = 0; s < a->nsigs && s < NL_MAX_SIGS; s++) {
		if (!lg->sigcount[s])
			continue;
		const struct nccl_signature *g = &a->sigs[s];
		const struct finding_def *d = kb_finding_def(g->fid);
		if (!d)
			continue;
		enum severity sev = d->severity;
		/* a consequence seen next to its root cause is only a warning */
		if (g->role == NSR_SECONDARY && a->have_root && sev == SEV_ERROR)
			sev = SEV_WARNING;
		const struct nl_event *firstev = NULL;
		for (size_t i = 0; i < lg->nev; i++)
			if (lg->ev[i].sig == (int)s) {
				firstev = &lg->ev[i];
				break;
			}
		char title[400];
		int nprocs = procs_with_sig(lg, (int)s);
		const char *tcls = g->fid == FID_LOG_NCCL_WARNING ? warn_table_class(a, (int)s) : NULL;
		if (tcls)
			snprintf(title, sizeof(title), "NCCL printed a warning of class %s (NCCL's own message table): %s", tcls,
				 firstev ? firstev->text : "");
		else if (g->fid == FID_LOG_NCCL_WARNING && firstev)
			nccl_warning_title(d, firstev, title, sizeof(title));
		else
			snprintf(title, sizeof(title), "%s%s%s", d->summary, firstev ? ": " : "", firstev ? firstev->text : "");
		struct finding *f = finding_get(a->r, g->fid);
		if (!f) {
			f = finding_for(a->r, g->fid, sev, title);
			if (tcls)
				f->cause = tcls;
		} else if (sev > f->sev) {
			f->sev = sev;
		}
		for (size_t i = 0; i < lg->nev; i++) {
			const struct nl_event *e = &lg->ev[i];
			if (e->sig != (int)s)
				continue;
			if (f->nev >= 8)
				break;
			event_label(lg, e, lbl, sizeof(lbl));
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "%s%s%s%s [%s, %s]", e->text,
					 e->chain[0] ? " (back-trace: " : "", e->chain, e->chain[0] ? ")" : "", lbl, g->id);
		}
		if (lg->sigcount[s] > lg->sigstored[s] || nprocs > 1)
			finding_evidence(f, NULL, 0, "%s: %u line%s in all, from %d process%s", g->id, lg->sigcount[s],
					 lg->sigcount[s] == 1 ? "" : "s", nprocs, nprocs == 1 ? "" : "es");
	}
}

/* An NCCL warning no signature knows, without a back-trace, that NCCL's
 * source classifies: in a run that failed (or stopped where a hang is
 * possible) with nothing specific, it is context for its class (0.3, once
 * per class), above the weak priors of a stage. */
void known_warn_causes(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->have_root || !a->failed)
		return;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		const struct nccl_warn *known = known_warn(e);
		if (!known || e->code || strcmp(known->cause, "context") == 0)
			continue;
		struct cause_acc *c = cause_get(a, known->cause);
		if (c && c->conf >= 0.3)
			continue;
		c = contribute(a, known->cause, 0.3 - (c ? c->conf : 0), FID_LOG_NCCL_WARNING);
		cause_evidence(c, e->file, e->line, e->text);
	}
}

/* The cause class of an NCCL warning no row knows, from its message text,
 * else its source file, else the result code its back-trace returned;
 * NULL when none says anything. *by names which. */
static const char *warn_class(const struct nl_event *e, const struct nccl_warn *known, const char **by)
{
	static const struct {
		const char *key, *cause;
	} text[] = {
		{ "collective mismatch", "collective_mismatch_app_bug" },
		{ "version mismatch", "version_mismatch" }, { "mismatched nccl version", "version_mismatch" },
		{ "shared memory", "shm_too_small" },      { "/dev/shm", "shm_too_small" },
		{ "peer access", "p2p_pcie_acs_iommu" },   { "p2p", "p2p_pcie_acs_iommu" },
		{ "ibv_", "ib_rdma_config" },               { "net/ib", "ib_rdma_config" },
		{ "rdma", "ib_rdma_config" },               { "nvls", "fabric_manager_nvswitch" },
		{ "multicast", "fabric_manager_nvswitch" }, { "fabric", "fabric_manager_nvswitch" },
		{ "bootstrap", "bootstrap_network" },
		{ "socket", "bootstrap_network" },          { "connect", "bootstrap_network" },
	}, file[] = {
		{ "transport/p2p.cc", "p2p_pcie_acs_iommu" },    { "shm.cc", "shm_too_small" },
		{ "shmutils.cc", "shm_too_small" },              { "net_ib", "ib_rdma_config" },
		{ "ibvwrap.cc", "ib_rdma_config" },              { "bootstrap.cc", "bootstrap_network" },
		{ "socket.cc", "bootstrap_network" },            { "nvls.cc", "fabric_manager_nvswitch" },
		{ "ipcsocket.cc", "custom_allreduce_or_cumem" }, { "cudawrap.cc", "driver_or_kernel_bug" },
	};
	char low[NL_TEXT_MAX];
	size_t n = strlen(e->text);
	/* NCCL's own message, classified from its source, decides; one that
	 * names no cause by itself ("context") leaves the result code */
	if (known && strcmp(known->cause, "context") != 0) {
		*by = "NCCL's source";
		return known->cause;
	}
	if (known)
		n = 0;
	for (size_t i = 0; i <= n; i++)
		low[i] = (char)(e->text[i] >= 'A' && e->text[i] <= 'Z' ? e->text[i] - 'A' + 'a' : e->text[i]);
	for (size_t k = 0; n && k < sizeof(text) / sizeof(text[0]); k++)
		if (strstr(low, text[k].key)) {
			*by = "its message";
			return text[k].cause;
		}
	for (size_t k = 0; !known && e->src[0] && k < sizeof(file) / sizeof(file[0]); k++)
		if (strstr(e->src, file[k].key)) {
			*by = "its source file";
			return file[k].cause;
		}
	*by = "its result code";
	switch (e->code) {
	case 1: return "driver_or_kernel_bug";        /* ncclUnhandledCudaError */
	case 3: return "driver_or_kernel_bug";        /* ncclInternalError */
	case 4: return "collective_mismatch_app_bug"; /* ncclInvalidArgument */
	case 5: return "nccl_config_error";           /* ncclInvalidUsage */
	case 6: return "peer_died_or_oom";            /* ncclRemoteError */
	default: return NULL;                         /* 2 ncclSystemError: anything */
	}
}

/* An NCCL warning no row knows, followed by a back-trace that returned an
 * error (`... -> 3`), is a failure: it counts as a root failure of the
 * class its text, source file or result code names. */
void warn_failures(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (!nccl_signature_generic(&a->sigs[e->sig]) || a->sigs[e->sig].fid != FID_LOG_NCCL_WARNING)
			continue;
		const struct nccl_warn *known = known_warn(e);
		if (known) {
			struct finding *f = finding_get(a->r, FID_LOG_NCCL_WARNING);
			if (f && f->nev < 12)
				finding_evidence(f, file_name(lg, e->file), (long)e->line,
						 "NCCL's own message (%s, NCCL %s, %s): %s", known->file, known->versions,
						 strcmp(known->cause, "context") ? known->cause : "names no cause by itself",
						 known->format);
		}
		if (!e->code)
			continue;
		const char *by = NULL;
		const char *cls = warn_class(e, known, &by);
		struct finding *f = finding_get(a->r, FID_LOG_NCCL_WARNING);
		if (f) {
			f->sev = SEV_ERROR;
			finding_evidence(f, file_name(lg, e->file), (long)e->line, "a failure (back-trace returned %d): %s%s%s",
					 e->code, cls ? cls : "no class", cls ? " by " : "", cls ? by : "");
		}
		a->have_any_root = true;
		if (!cls)
			continue;
		a->have_root = true;
		if (!a->first || event_before(e, a->first))
			a->first = e;
		struct cause_acc *c = contribute(a, cls, 0.55, FID_LOG_NCCL_WARNING);
		cause_evidence(c, e->file, e->line, e->text);
	}
}

/* An NCCL error surfaced by a framework (or nccl-tests) with nothing more
 * specific in the logs: its result code is all there is. Weak priors
 * (<= 0.25) of what each code most often comes from, from the calls that
 * return it in NCCL and the resolutions of public threads:
 *  - ncclSystemError: /dev/shm, sockets, verbs;
 *  - ncclUnhandledCudaError: P2P/CUDA IPC refused, on bare metal (ACS,
 *    IOMMU: pytorch#19925, NCCL_P2P_DISABLE=1) or in a VM (NCCL's
 *    troubleshooting guide: P2P through a hypervisor); a libnccl built for
 *    another CUDA than the driver's (nccl-tests#6, nccl#503, NVIDIA/caffe#492
 *    where NVIDIA's maintainer asks for the NCCL of the installed CUDA); a
 *    build without this GPU's architecture (nccl#112); a GPU fault (a bad
 *    node: Xid, ECC). P2P and the GPU first (0.2), the builds next (0.15):
 *    the order among equal priors is no evidence, which is why the report
 *    names what to collect;
 *  - ncclInternalError: an NCCL or driver bug, a broken install or mixed
 *    versions, and configuration: a topology or graph XML file NCCL cannot
 *    read (graph/xml.h xmlGetAttrStr: "Attribute %s of node %s not found"
 *    returns ncclInternalError; NCCL_TOPO_FILE, a NET plugin's XML);
 *  - ncclInvalidUsage: configuration, two ranks on one GPU (init.cc
 *    "Duplicate GPU detected"), mixed libnccl versions (init.cc "Mismatched
 *    NCCL version detected", strongstream.cc's graph capture with an NCCL
 *    built for CUDA < 11.3; vllm#427, maintainer: CUDA and driver
 *    mismatch), the application.
 * The framework's own line names no cause: once a code's priors name
 * some, `unknown` steps back below them (0.1).
 * Caffe's NCCL_CHECK prints the code as a number before its text (glog's
 * CHECK_EQ "(1 vs. 0)"): the number names the code when the text is
 * garbled (markdown emphasis in a paste: "unhandled cuda _error_"). */
#define MAX_PRIORS 5
static const struct code_priors {
	int code; /* ncclResult_t */
	const char *text;
	const char *cause[MAX_PRIORS];
	double w[MAX_PRIORS];
} code_prior_rows[] = {
	{ 2, "unhandled system error", { "shm_too_small", "bootstrap_network", "ib_rdma_config", NULL }, { 0.25, 0.2, 0.15, 0 } },
	{ 1, "unhandled cuda error",
	  { "p2p_pcie_acs_iommu", "p2p_virtualization", "hardware_xid_nvlink", "version_mismatch", "driver_or_kernel_bug" },
	  { 0.2, 0.2, 0.2, 0.15, 0.15 } },
	{ 3, "internal error", { "driver_or_kernel_bug", "nccl_config_error", "version_mismatch", NULL }, { 0.2, 0.15, 0.15, 0 } },
	{ 5, "invalid usage",
	  { "nccl_config_error", "duplicate_gpu_or_device_mapping", "version_mismatch", "collective_mismatch_app_bug", NULL },
	  { 0.2, 0.2, 0.2, 0.15, 0 } },
};

/* The row of code_prior_rows the framework line e reports, -1 none: by
 * its text, else (Caffe's NCCL_CHECK, CF01) by glog's "(N vs. 0)". */
static int code_prior_row(const struct ana *a, const struct nl_event *e)
{
	char low[NL_TEXT_MAX];
	size_t n = strlen(e->text);
	for (size_t k = 0; k <= n; k++)
		low[k] = (char)(e->text[k] >= 'A' && e->text[k] <= 'Z' ? e->text[k] - 'A' + 'a' : e->text[k]);
	for (size_t k = 0; k < sizeof(code_prior_rows) / sizeof(code_prior_rows[0]); k++)
		if (strstr(low, code_prior_rows[k].text))
			return (int)k;
	const char *v = strcmp(a->sigs[e->sig].id, "CF01") == 0 ? strstr(low, "ncclsuccess (") : NULL;
	if (!v || v[13] < '1' || v[13] > '9' || strncmp(v + 14, " vs. 0)", 7) != 0)
		return -1;
	for (size_t k = 0; k < sizeof(code_prior_rows) / sizeof(code_prior_rows[0]); k++)
		if (code_prior_rows[k].code == v[13] - '0')
			return (int)k;
	return -1;
}

/* An unhandled CUDA error from a program that loads the system's libnccl
 * itself rather than one shipped with a framework's wheel: nccl-tests
 * ("NCCL failure f.cu:N", S68b), Caffe/NVCaffe (NCCL_CHECK, CF01) and
 * Horovod ("ncclCommInitRank failed: ...", HV01, built against it). The
 * libnccl2 packages are built per CUDA version (libnccl2=2.9.8-1+cuda10.2)
 * and a plain `apt install libnccl2` takes the build for the newest CUDA
 * (NCCL Installation Guide: "If you prefer to keep CUDA 8.0, issue ...
 * libnccl2=2.1.2-1+cuda8.0", quoted in horovod#108); NCCL links the CUDA
 * runtime statically, so a build for a newer CUDA than the driver's fails
 * its first CUDA call. Public threads: horovod#108, nccl#503, nccl#554,
 * nccl-tests#208 (the +cuda11.8 build on another GPU). The build comes
 * first there (0.3). */
static bool system_libnccl_program(const struct ana *a, const struct nl_event *e)
{
	const char *id = a->sigs[e->sig].id;
	return strcmp(id, "CF01") == 0 || strcmp(id, "HV01") == 0 || strstr(e->text, "NCCL failure ") != NULL;
}

void result_code_priors(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->have_root)
		return;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].fid != FID_LOG_NCCL_ERROR)
			continue;
		int k = code_prior_row(a, e);
		if (k < 0)
			continue;
		const struct code_priors *row = &code_prior_rows[k];
		for (int j = 0; j < MAX_PRIORS && row->cause[j]; j++) {
			double w = row->w[j];
			if (row->code == 1 && strcmp(row->cause[j], "version_mismatch") == 0 && system_libnccl_program(a, e))
				w = 0.3;
			/* ncclInvalidUsage raised through vLLM's pynccl (VL07): pynccl
			 * is a ctypes binding of a libnccl vLLM loads itself, written
			 * to run NCCL inside CUDA graphs (pynccl_wrapper.py's header),
			 * and NCCL refuses capture with ncclInvalidUsage when built for
			 * a CUDA runtime older than 11.3 or with a driver older than
			 * R465 (N:misc/strongstream.cc, v2.18.1 line 53; S77's message
			 * with NCCL_DEBUG=WARN): the libnccl build comes first */
			if (row->code == 5 && strcmp(row->cause[j], "version_mismatch") == 0 && count_of(a, "VL07"))
				w = 0.3;
			struct cause_acc *c = cause_get(a, row->cause[j]);
			if (c && c->conf >= w)
				continue; /* one error line sets the prior once */
			c = contribute(a, row->cause[j], w - (c ? c->conf : 0), FID_LOG_NCCL_ERROR);
			cause_evidence(c, e->file, e->line, e->text);
		}
		for (int j = 0; j < a->ncauses; j++)
			if (strcmp(a->causes[j].cause, "unknown") == 0 && a->causes[j].conf > 0.1)
				a->causes[j].conf = 0.1;
		return;
	}
}

/* ncclRemoteError ("remote process exited or there was a network error")
 * with nothing more specific: the message names two causes, and NCCL
 * returns the code for both. From 2.14 misc/socket.cc returns it for a
 * connection a peer closed or reset, and transport/net_ib.cc for an IB
 * completion error ("NET/IB : Got completion from peer ... with status=",
 * v2.21.5 net_ib.cc:1912, v2.28.9 :2547): a peer that hit an IB fault
 * aborts, and its sockets reset under the others. A dead peer stays
 * first (S68r, S08); the network comes next (0.2): the IB fabric, or the
 * sockets where NCCL said it used NET/Socket or listed its interfaces.
 * Not when every rank seen runs on one host, or the peer is a loopback
 * address: no network between the ranks. */
void remote_error_priors(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->have_root || !count_of(a, "S68r"))
		return;
	bool ib = false, sock = false;
	for (int i = 0; i < lg->nprocs; i++) {
		ib = ib || strcmp(lg->procs[i].net, "IB") == 0;
		/* NET/Socket lists its interfaces only when NCCL initializes it,
		 * after IB found no device: ncclNetInit stops at the first network
		 * that initializes, IB before Socket (N:net.cc, v2.21.5-1) */
		sock = sock || strcmp(lg->procs[i].net, "Socket") == 0 || lg->procs[i].socket_if[0];
	}
	for (size_t i = 0; i < lg->nev; i++) /* the same lines pasted without their header */
		sock = sock || strstr(lg->ev[i].text, "NET/Socket : Using") || strstr(lg->ev[i].text, "NET/IB : No device found");
	bool several_hosts = false;
	for (int i = 1; i < lg->nprocs; i++)
		several_hosts = several_hosts || strcmp(lg->procs[i].host, lg->procs[0].host) != 0;
	if (lg->nprocs >= 2 && !several_hosts)
		return; /* ranks seen, all on one host (one process alone says nothing of the others) */
	for (size_t i = 0; i < lg->nev; i++)
		if (strstr(lg->ev[i].text, "from 127.") || strstr(lg->ev[i].text, "peer 127."))
			return;
	const char *cls = sock && !ib ? "bootstrap_network" : "ib_rdma_config";
	struct cause_acc *c = contribute(a, cls, 0.2, FID_LOG_NCCL_REMOTE_ERROR);
	for (size_t i = 0; i < lg->nev && c; i++)
		if (strcmp(a->sigs[lg->ev[i].sig].id, "S68r") == 0 || strcmp(a->sigs[lg->ev[i].sig].id, "S08") == 0 ||
		    strcmp(a->sigs[lg->ev[i].sig].id, "S09") == 0)
			cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
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
			cause_evidence(c, p->env[e].file, p->env[e].line, p->env[e].name);
			break;
		}
	}
}

/* Whether some process printed the interface its bootstrap uses. */
static bool bootstrap_if_known(const struct nccllog *lg)
{
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].bootstrap_if[0])
			return true;
	return false;
}

/* Cause contributions of signature matches. */
void signature_causes(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->first) {
		const struct finding_def *d = kb_finding_def(a->sigs[a->first->sig].fid);
		if (d)
			cause_evidence(cause_get(a, d->cause), a->first->file, a->first->line, a->first->text);
	}
	for (size_t k = 0; k < 2 * a->nsigs && k < 2 * NL_MAX_SIGS; k++) {
		/* root failures first, so their lines lead each cause's evidence */
		size_t s = k % a->nsigs;
		if (!lg->sigcount[s] || (k < a->nsigs) != (a->sigs[s].role == NSR_ROOT))
			continue;
		const struct nccl_signature *g = &a->sigs[s];
		const struct finding_def *d = kb_finding_def(g->fid);
		if (!d || g->role == NSR_INFO || g->role == NSR_HANG)
			continue;
		if (g->fid == FID_LOG_NCCL_WARNING && a->have_root)
			continue; /* unknown warnings next to a known failure (or classified) */
		double w = g->weight;
		if (g->role == NSR_SECONDARY && a->have_root)
			w *= 0.3;
		if (g->role == NSR_CONTEXT && !a->have_root && !a->have_secondary && !a->have_hang)
			continue; /* a warning in a run that did not fail names no cause */
		const char *cause = d->cause;
		if (g->fid == FID_LOG_SOCKET_BAD_ADDRESS && bootstrap_if_known(lg)) {
			/* the local interface is fine (NCCL printed it): the address
			 * came from a peer whose libnccl lays it out differently */
			cause = "version_mismatch";
			struct cause_acc *b = contribute(a, d->cause, 0.3, g->fid);
			for (size_t i = 0; i < lg->nev; i++)
				if (lg->ev[i].sig == (int)s)
					cause_evidence(b, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
		}
		int np = procs_with_sig(lg, (int)s);
		if (np > 1 && g->role == NSR_ROOT)
			w += 0.03 * (np - 1 < 3 ? np - 1 : 3);
		if (a->first && a->first->sig == (int)s)
			w += 0.1;
		if (w > 0.97)
			w = 0.97;
		struct cause_acc *c = contribute(a, cause, w, g->fid);
		/* the first failure's line first */
		if (a->first && a->first->sig == (int)s)
			cause_evidence(c, a->first->file, a->first->line, a->first->text);
		for (size_t i = 0; i < lg->nev; i++)
			if (lg->ev[i].sig == (int)s)
				cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
	}
}

/* ---- model checks ---------------------------------------------------------- */

/* ---- output ------------------------------------------------------------------- */

static int cmp_cause(const void *x, const void *y)
{
	const struct cause_acc *a = x, *b = y;
	if (a->conf != b->conf)
		return a->conf < b->conf ? 1 : -1;
	return strcmp(a->cause, b->cause);
}

static double round2(double v)
{
	return floor(v * 100.0 + 0.5) / 100.0;
}

static int cmp_proc(const void *x, const void *y, void *ctx)
{
	const struct nccllog *lg = ctx;
	const struct nl_proc *p = &lg->procs[*(const int *)x], *q = &lg->procs[*(const int *)y];
	const struct nl_comm *a = nl_proc_main_comm(p), *b = nl_proc_main_comm(q);
	int ra = a && a->rank >= 0 ? a->rank : 1 << 30, rb = b && b->rank >= 0 ? b->rank : 1 << 30;
	if (ra != rb)
		return ra < rb ? -1 : 1;
	int h = strcmp(p->host, q->host);
	if (h)
		return h;
	return p->pid < q->pid ? -1 : p->pid > q->pid;
}

/* Another process lost its connection to a peer (a peer_died_or_oom event
 * that followed a failure) and no process printed a failure of its own: a
 * process whose log then ends with no error is the likely peer that was
 * killed (SIGKILL, the OOM killer) without a word, not "ok". */
static bool peer_lost_elsewhere(const struct ana *a, int pi)
{
	const struct nccllog *lg = a->lg;
	bool lost = false;
	for (size_t k = 0; k < lg->nev; k++) {
		const struct nl_event *e = &lg->ev[k];
		if (e->proc < 0)
			continue;
		if (a->sigs[e->sig].role == NSR_ROOT)
			return false; /* that process's own failure explains the others */
		if (e->proc != pi && a->sigs[e->sig].role == NSR_SECONDARY &&
		    strcmp(nccl_signature_cause(&a->sigs[e->sig]), "peer_died_or_oom") == 0)
			lost = true;
	}
	return lost;
}

/* One word on a process: what its own log says happened to it. */
static const char *proc_verdict(const struct ana *a, int pi, char *buf, size_t bufsz)
{
	const struct nccllog *lg = a->lg;
	const struct nl_proc *p = &lg->procs[pi];
	const struct nl_event *root = NULL, *second = NULL;
	for (size_t k = 0; k < lg->nev; k++) {
		const struct nl_event *e = &lg->ev[k];
		if (e->proc != pi)
			continue;
		if (a->sigs[e->sig].role == NSR_ROOT && (!root || event_before(e, root)))
			root = e;
		if (a->sigs[e->sig].role == NSR_SECONDARY && (!second || event_before(e, second)))
			second = e;
	}
	if (root) {
		snprintf(buf, bufsz, "failed: %s (line %llu)", a->sigs[root->sig].finding, (unsigned long long)root->line);
		return buf;
	}
	if (second) {
		snprintf(buf, bufsz, "after a failure: %s (line %llu)", a->sigs[second->sig].finding, (unsigned long long)second->line);
		return buf;
	}
	int hs = hang_stage(p);
	const struct nl_comm *mc = nl_proc_main_comm(p);
	if (!(mc && (mc->destroyed || mc->aborted)) && peer_lost_elsewhere(a, pi)) {
		snprintf(buf, bufsz, "log ends, no error: the peer that went away?");
		return buf;
	}
	if (stage_of(p) < 9)
		snprintf(buf, bufsz, "stuck before init completed");
	else if (a->have_hang)
		snprintf(buf, bufsz, hs >= 10 ? "stuck in a collective" : "stuck at the first collective");
	else
		snprintf(buf, bufsz, "ok");
	return buf;
}

static char *dup_or_null(const char *s)
{
	return s && s[0] ? xstrdup(s) : NULL;
}

/* One typed row per process (model/runs.h), in rank order. */
static void ranks_output(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	char sc[16];
	int *order = xmalloc(sizeof(int) * (size_t)(lg->nprocs ? lg->nprocs : 1));
	for (int i = 0; i < lg->nprocs; i++)
		order[i] = i;
	qsort_r(order, (size_t)lg->nprocs, sizeof(int), cmp_proc, (void *)lg);
	struct rank_list *ranks = result_ranks(a->r, "Ranks (one line per process)");
	if (!lg->nprocs)
		section_note(result_section(a->r, "ranks", NULL), "no NCCL process found in the input");
	for (int oi = 0; oi < lg->nprocs; oi++) {
		int i = order[oi];
		const struct nl_proc *p = &lg->procs[i];
		const struct nl_comm *c = nl_proc_main_comm(p);
		int st = stage_of(p);
		struct rank *k = rank_list_add(ranks);
		k->host = xstrdup(p->host);
		k->pid = p->pid;
		k->rank = c && c->rank >= 0 ? c->rank : p->prank;
		k->nranks = c && c->nranks > 0 ? c->nranks : 0;
		k->rank_of_comm = c && c->rank >= 0;
		k->cuda_dev = c && c->cudadev >= 0 ? c->cudadev : p->dev >= 0 ? p->dev : -1;
		k->nvml_dev = c && c->nvmldev >= 0 ? c->nvmldev : -1;
		k->bus_id = c ? dup_or_null(c->busid) : NULL;
		k->comm_id = c ? dup_or_null(c->commid) : NULL;
		k->nccl_version = dup_or_null(p->version);
		k->cuda_driver = p->cuda_driver;
		k->bootstrap_if = dup_or_null(p->bootstrap_if);
		k->network = dup_or_null(p->net);
		k->stage = xstrdup(stage_code(st, sc, sizeof(sc)));
		k->stage_name = xstrdup(nccl_stage_name(st));
		k->init_complete = st >= 9;
		char vb[96];
		k->verdict = xstrdup(proc_verdict(a, i, vb, sizeof(vb)));
		k->init_seconds = c && c->init_total >= 0 ? c->init_total : -1;
		k->warnings = p->nwarn;
		for (int t = 0; t < p->ntr; t++)
			rank_add_transport(k, p->tr[t].peer, p->tr[t].kind, p->tr[t].count);
		for (int t = 0; t < p->nenv; t++)
			rank_add_env(k, p->env[t].name, p->env[t].value);
		for (size_t t = 0; t < lg->nev; t++) {
			const struct nl_event *e = &lg->ev[t];
			if (e->proc != i || a->sigs[e->sig].role == NSR_INFO)
				continue;
			struct rank_event *x = rank_add_event(k);
			x->signature = xstrdup(a->sigs[e->sig].id);
			x->finding_id = xstrdup(a->sigs[e->sig].finding);
			x->file = dup_or_null(file_name(lg, e->file));
			x->line = (long)e->line;
			x->text = xstrdup(e->text);
			x->chain = dup_or_null(e->chain);
			x->nccl_result = e->code;
		}
		for (int t = 0; t < p->ncomms; t++) {
			const struct nl_comm *m = &p->comms[t];
			struct rank_comm *x = rank_add_comm(k);
			x->comm = xstrdup(m->ptr);
			x->comm_id = dup_or_null(m->commid);
			x->rank = m->rank;
			x->nranks = m->nranks > 0 ? m->nranks : 0;
			x->stage = xstrdup(stage_code(m->stage, sc, sizeof(sc)));
			x->complete = m->complete;
			x->destroyed = m->destroyed;
		}
		k->last_file = dup_or_null(file_name(lg, p->last_file));
		k->last_line = (long)p->last_line;
		k->last_text = xstrdup(p->last_text);
	}
	free(order);
}

static void inputs_output(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	struct section *s = result_section(a->r, "inputs", "Inputs");
	static const struct column cols[] = {
		{ "file", "file", 0 }, { "lines", "lines", 0 }, { "nccl_lines", "NCCL lines", 0 }, { "processes", "processes", 0 },
		{ "skipped", "cleaned / cut", 0 },
	};
	struct table *t = section_table(s, "files", NULL, cols, sizeof(cols) / sizeof(cols[0]));
	uint64_t cut = 0, nul = 0, ansi = 0;
	struct finding *skip = NULL;
	for (int i = 0; i < lg->nfiles; i++) {
		const struct nl_file *f = &lg->files[i];
		size_t row = table_add_row(t);
		table_set(t, row, "file", val_str(f->name));
		table_set(t, row, "lines", val_int((long long)f->lines));
		table_set(t, row, "nccl_lines", val_int((long long)f->nccl_lines));
		table_set(t, row, "processes", val_int(f->nprocs));
		char buf[160] = "";
		size_t len = 0;
		if (f->truncated)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu long line%s cut", len ? ", " : "",
						(unsigned long long)f->truncated, f->truncated == 1 ? "" : "s");
		if (f->nul_lines)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu with NUL bytes", len ? ", " : "",
						(unsigned long long)f->nul_lines);
		if (f->ansi_lines && len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu with colour codes", len ? ", " : "",
						(unsigned long long)f->ansi_lines);
		if (f->no_newline && len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%slast line unterminated", len ? ", " : "");
		table_set(t, row, "skipped", val_str(buf[0] ? buf : "-"));
		cut += f->truncated;
		nul += f->nul_lines;
		ansi += f->ansi_lines;
		if (f->truncated || f->nul_lines) {
			if (!skip)
				skip = finding_for(a->r, FID_LOG_INPUT_SKIPPED, SEV_INFO, "parts of the input could not be read as text");
			finding_evidence(skip, f->name, 0, "%s", buf);
		}
	}
	if (lg->procs_dropped)
		section_note(s, "%u lines of processes beyond the first %d were not analysed", lg->procs_dropped, NL_MAX_PROCS);
	if (lg->orphan_chain)
		section_note(s, "%llu back-trace line%s without a warning before them (usually benign, e.g. a disabled transport)",
			     (unsigned long long)lg->orphan_chain, lg->orphan_chain == 1 ? "" : "s");
	(void)cut;
	(void)nul;
	(void)ansi;
}

void nccllog_analyze(const struct nccllog *lg, struct result *r)
{
	struct ana a;
	memset(&a, 0, sizeof(a));
	a.lg = lg;
	a.r = r;
	a.sigs = kb_nccl_signatures(&a.nsigs);

	inputs_output(&a);
	logs_rules_run(&a);
	bool failed = a.failed;
	for (int i = 0; i < a.ncauses; i++)
		if (a.causes[i].conf >= 0.5)
			failed = true;
	if (failed && a.ncauses == 0) {
		struct cause_acc *c = contribute(&a, "unknown", 0.1, FID_COUNT);
		for (size_t i = 0; i < lg->nev && c; i++)
			if (a.sigs[lg->ev[i].sig].role != NSR_INFO)
				cause_evidence(c, lg->ev[i].file, lg->ev[i].line, lg->ev[i].text);
	}
	if (a.ncauses == 0 && result_exit_code(r) >= 1) /* not healthy, no lead */
		contribute(&a, "unknown", 0.1, FID_COUNT);
	qsort(a.causes, (size_t)a.ncauses, sizeof(a.causes[0]), cmp_cause);
	/* keep what says something: weak echoes of a strong cause go; with
	 * only weak priors (a log that just ends) their order is the answer */
	double floor_conf = a.ncauses && a.causes[0].conf >= 0.3 ? 0.1 : 0.05;
	while (a.ncauses > 1 && a.causes[a.ncauses - 1].conf < floor_conf)
		a.ncauses--;

	ranks_output(&a);

	/* the causes, best first */
	struct cause_list *cl = result_causes(r, failed ? "Causes (best first)" : "Causes");
	cl->failed = failed;
	for (int i = 0; i < a.ncauses; i++) {
		const struct cause_acc *c = &a.causes[i];
		struct cause *x = cause_list_add(cl, c->cause, round2(c->conf));
		for (int k = 0; k < c->nev; k++)
			cause_add_evidence(x, file_name(lg, c->ev[k].file), (long)c->ev[k].line, c->ev[k].text);
		for (int k = 0; k < c->nfids; k++)
			cause_add_finding(x, c->fids[k]);
	}
	if (!a.ncauses)
		section_note(result_section(r, "causes", NULL), "%s",
			     lg->nprocs ? "no failure: every rank completed NCCL init and no error was logged"
					: "nothing points to a cause");
	if (a.first) {
		char lbl[96];
		cause_list_set_first(cl, file_name(lg, a.first->file), (long)a.first->line,
				     event_label(lg, a.first, lbl, sizeof(lbl)), a.first->text);
	}

	int nranks_seen = 0;
	for (int i = 0; i < lg->nprocs; i++)
		if (nl_proc_main_comm(&lg->procs[i]))
			nranks_seen++;
	if (a.ncauses && failed)
		result_set_headline(r, "NCCL logs: %d file%s, %d process%s: most likely %s (confidence %.2f)", lg->nfiles,
				    lg->nfiles == 1 ? "" : "s", lg->nprocs, lg->nprocs == 1 ? "" : "es", a.causes[0].cause,
				    round2(a.causes[0].conf));
	else
		result_set_headline(r, "NCCL logs: %d file%s, %d process%s, %d with a communicator%s", lg->nfiles,
				    lg->nfiles == 1 ? "" : "s", lg->nprocs, lg->nprocs == 1 ? "" : "es", nranks_seen,
				    failed ? "" : ": no failure found");
}
