/* NCCL log analysis, cross-domain weighting: weak candidates of a run
 * that failed with nothing specific (an NCCL warning of NCCL's own table,
 * a framework's NCCL result code, ncclRemoteError), and transports switched
 * off where the run was started, which take out the causes of that
 * transport that only the hang fallbacks put forward. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_signatures.h"
#include "kb/nccl_warns.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An NCCL warning no signature knows, without a back-trace, that NCCL's
 * source classifies: in a run that failed (or stopped where a hang is
 * possible) with nothing specific, it is context for its class (0.3, once
 * per class), above the weak priors of a stage. In a run that hung, a
 * warning that is the last line its process printed is what NCCL said
 * before it stopped: 0.55, above the guesses of a hang whose stage the
 * log does not show (0.5 at most), as the warning is evidence and the
 * stage's prior is not. */
static bool last_line_of_proc(const struct nccllog *lg, const struct nl_event *e)
{
	if (e->proc < 0 || e->proc >= lg->nprocs)
		return false;
	const struct nl_proc *p = &lg->procs[e->proc];
	return p->last_file == e->file && p->last_line == e->line;
}

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
		double want = a->have_hang && last_line_of_proc(lg, e) ? 0.55 : 0.3;
		double have = score_conf(a, known->cause);
		if (have >= want)
			continue;
		struct cause_acc *c = contribute(a, known->cause, want - have, FID_LOG_NCCL_WARNING);
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
 *    node: Xid, ECC). A bug of the NCCL or driver version first (0.2),
 *    P2P in a VM, the GPU and the build next (0.15; the build 0.3 for a
 *    program on the system's libnccl, below), P2P on bare metal last
 *    (0.1): of the 30 public cases of the corpus whose paste says
 *    "unhandled cuda error" (docs/logs.md), 9 were named a bug of the
 *    NCCL or driver version and 10 were resolved by another libnccl, CUDA
 *    or driver (7 of them programs on the system's libnccl), 2 by P2P in
 *    a VM, 1 by a bad GPU and none by ACS or the IOMMU. These are base
 *    rates, not evidence about one log, which is why the report names
 *    what to collect;
 *  - ncclInternalError: an NCCL or driver bug, a broken install or mixed
 *    versions, and configuration: a topology or graph XML file NCCL cannot
 *    read (graph/xml.h xmlGetAttrStr: "Attribute %s of node %s not found"
 *    returns ncclInternalError; NCCL_TOPO_FILE, a NET plugin's XML);
 *  - ncclInvalidUsage: configuration, two ranks on one GPU (init.cc
 *    "Duplicate GPU detected"), mixed libnccl versions (init.cc "Mismatched
 *    NCCL version detected", strongstream.cc's graph capture with an NCCL
 *    built for CUDA < 11.3; vllm#427, maintainer: CUDA and driver
 *    mismatch), the application;
 *  - no code at all, "unknown result code": the default case of
 *    ncclGetErrorString's switch (N:init.cc, every release from v2.3.7-1
 *    to v2.28.9-1), so the caller handed the library a ncclResult_t value
 *    the library does not know: a caller built against other NCCL headers
 *    than the libnccl it loads (a newer header's code, ncclInProgress or
 *    ncclRemoteError, passed to an older library; or a result of another
 *    build's enum). The header/library skew is the one explanation the
 *    code itself gives (0.35; rules18, docs/logs.md).
 * The framework's own line names no cause: once a code's priors name
 * some, `unknown` steps back below them (0.1).
 * Caffe's NCCL_CHECK prints the code as a number before its text (glog's
 * CHECK_EQ "(1 vs. 0)"): the number names the code when the text is
 * garbled (markdown emphasis in a paste: "unhandled cuda _error_"). */
#define MAX_PRIORS 5

static const struct code_priors {
	int code; /* ncclResult_t, -1: a text of no code */
	const char *text;
	const char *cause[MAX_PRIORS];
	double w[MAX_PRIORS];
} code_prior_rows[] = {
	{ 2, "unhandled system error", { "shm_too_small", "bootstrap_network", "ib_rdma_config", NULL }, { 0.25, 0.2, 0.15, 0 } },
	{ 1, "unhandled cuda error",
	  { "driver_or_kernel_bug", "p2p_virtualization", "gpu_hardware", "version_mismatch", "p2p_pcie_acs_iommu" },
	  { 0.2, 0.15, 0.15, 0.15, 0.1 } },
	{ 3, "internal error", { "driver_or_kernel_bug", "nccl_config_error", "version_mismatch", NULL }, { 0.2, 0.15, 0.15, 0 } },
	{ 5, "invalid usage",
	  { "nccl_config_error", "duplicate_gpu_or_device_mapping", "version_mismatch", "collective_mismatch_app_bug", NULL },
	  { 0.2, 0.2, 0.2, 0.15, 0 } },
	{ -1, "unknown result code", { "version_mismatch", NULL }, { 0.35, 0 } },
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
 * first there (0.3). The same holds for any program that reports the NCCL
 * error from a CUDA source of its own ("NCCL error src/x/Context.cu:725",
 * "NCCL failure common.cu:777"): a .cu file is compiled by nvcc against
 * the installed NCCL headers and linked with the system's libnccl, as
 * nccl-tests is (its src/common.h NCCLCHECK prints __FILE__); the
 * frameworks that ship their own libnccl report from C++ sources
 * (PyTorch's ProcessGroupNCCL.cpp, NCCLUtils.hpp; XLA's nccl_utils.cc).
 * PaddlePaddle's fluid builds are such programs too: they ship no NCCL and
 * dlopen the system's libnccl.so at the first NCCL call
 * (paddle/fluid/platform/dynload/dynamic_loader.cc GetNCCLDsoHandle: "You
 * may need to install 'nccl2' from NVIDIA official website ... before
 * install PaddlePaddle"; dynload/nccl.h dlsym), and their enforce names
 * the fluid source that called it ("at [.../paddle/fluid/platform/
 * nccl_helper.h:93]"). */
static bool own_cuda_source(const char *text)
{
	const char *m = strstr(text, "NCCL error");
	if (!m)
		m = strstr(text, "NCCL failure");
	const char *cu = m ? strstr(m, ".cu:") : NULL;
	return cu && cu[4] >= '0' && cu[4] <= '9';
}

static bool system_libnccl_program(const struct ana *a, const struct nl_event *e)
{
	const char *id = a->sigs[e->sig].id;
	if (strcmp(id, "CF01") == 0 || strcmp(id, "HV01") == 0 || strstr(e->text, "NCCL failure ") != NULL ||
	    strstr(e->text, "paddle/fluid/platform/") != NULL)
		return true;
	for (size_t i = 0; i < a->lg->nev; i++) /* the program's line beside the code's ("Failed, NCCL error f.cu:N") */
		if (a->sigs[a->lg->ev[i].sig].fid == FID_LOG_NCCL_ERROR && own_cuda_source(a->lg->ev[i].text))
			return true;
	return false;
}

/* Whether the job spans several hosts: a launcher line says so, or a
 * process of the log is one of several (multi_host). */
static bool several_hosts(const struct ana *a)
{
	if (a->launch_nodes > 1)
		return true;
	for (int i = 0; i < a->lg->nprocs; i++)
		if (multi_host(a, &a->lg->procs[i]))
			return true;
	return false;
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
			/* a system error of a job on several hosts: the sockets
			 * between them come before one host's /dev/shm (NCCL's
			 * bootstrap and NET/Socket return ncclSystemError for a
			 * failed connect, bind or accept: N:misc/socket.cc) */
			if (row->code == 2 && strcmp(row->cause[j], "bootstrap_network") == 0 && several_hosts(a))
				w = 0.3;
			double have = score_conf(a, row->cause[j]);
			if (have >= w)
				continue; /* one error line sets the prior once */
			struct cause_acc *c = contribute(a, row->cause[j], w - have, FID_LOG_NCCL_ERROR);
			cause_evidence(c, e->file, e->line, e->text);
			if (row->code == 2 && strcmp(row->cause[j], "bootstrap_network") == 0 && a->launch_nodes > 1)
				for (size_t m = 0; m < lg->nev; m++) /* the launcher line that says several hosts */
					if (a->sigs[lg->ev[m].sig].fid == FID_LOG_LAUNCH_SEVERAL_NODES) {
						cause_evidence(c, lg->ev[m].file, lg->ev[m].line, lg->ev[m].text);
						break;
					}
		}
		score_cap(a, "unknown", 0.1, "a framework's NCCL result code names its usual causes: unknown steps back");
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

static bool has_fid(const struct cause_acc *c, const char *fid)
{
	for (int i = 0; i < c->nfids; i++)
		if (strcmp(c->fids[i], fid) == 0)
			return true;
	return false;
}

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
 * unless a rule already put them there (bootstrap_peer_closed's reading of a closed
 * connection). A connection closed or reset (S08, S09) existed: the reading
 * of remote_error_priors stands. Nor does any line say that a peer died
 * (the dead peer's only reason is this line): misc/socket.cc's sites
 * (v2.18.6-1) are 2 for a peer's connection that ended (recv failed,
 * "Connection closed by remote peer") against 4 for a connect that ran out
 * of retries (refused or timed out: an address or interface the rank
 * cannot reach) and 3 for a socket's state, so the dead peer goes below
 * the sockets (0.2, a candidate still). Not for a collective's error
 * (PyTorch's WorkNCCL async exception, a watchdog line): there the
 * connections were up, and the one that ended is the dead peer's reading. */
void remote_error_no_transport(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	const struct nl_event *re = first_of(a, "S68r");
	const struct cause_acc *ib = score_find(a, "ib_rdma_config");
	if (a->have_root || !re || !ib || !has_fid(ib, "LOG_NCCL_REMOTE_ERROR") || count_of(a, "S08") || count_of(a, "S09"))
		return;
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].net[0] || lg->procs[i].socket_if[0] || lg->procs[i].ib_hcas[0])
			return;
	for (size_t i = 0; i < lg->nev; i++)
		if (strstr(lg->ev[i].text, "NET/IB") || strstr(lg->ev[i].text, "NET/Socket"))
			return;
	if (score_conf(a, "bootstrap_network") >= 0.2)
		return;
	struct cause_acc *c = contribute(a, "bootstrap_network", 0.25, FID_LOG_NCCL_REMOTE_ERROR);
	cause_evidence(c, re->file, re->line, re->text);
	const struct cause_acc *peer = score_find(a, "peer_died_or_oom");
	bool in_collective = lg->nwd > 0;
	for (size_t i = 0; i < lg->nev && !in_collective; i++)
		in_collective = strstr(lg->ev[i].text, "WorkNCCL(") != NULL;
	if (peer && peer->nfids == 1 && has_fid(peer, "LOG_NCCL_REMOTE_ERROR") && !in_collective)
		score_cap(a, "peer_died_or_oom", 0.2,
			  "ncclRemoteError alone, no line of a peer that died: NCCL's sockets return it more often for a "
			  "connect that ran out of retries than for a peer that went away");
	struct finding *f = finding_get(a->r, FID_LOG_NCCL_REMOTE_ERROR);
	if (f)
		finding_evidence(f, NULL, 0, "no line names the network: NCCL returns this code mostly from its sockets (an "
					     "address a rank cannot reach, a connection closed or reset), so the socket interface "
					     "(NCCL_SOCKET_IFNAME) is a candidate beside the IB fabric");
}

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
bool command_position(const char *t, const char *q)
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

bool var_set_to_1(const struct ana *a, const char *var)
{
	struct switch_src s;
	return switched_off(a, var, &s);
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
void transport_switches(struct ana *a)
{
	static const struct {
		const char *var, *kind, *src, *cause[2], *why;
	} sw[] = {
		{ "NCCL_P2P_DISABLE", "P2P", "transport/p2p", { "p2p_pcie_acs_iommu", "p2p_virtualization" },
		  "NCCL_P2P_DISABLE=1 and no P2P connection in the log: only where the run stopped named this cause" },
		{ "NCCL_SHM_DISABLE", "SHM", "transport/shm", { "shm_too_small", NULL },
		  "NCCL_SHM_DISABLE=1 and no SHM connection in the log: only where the run stopped named this cause" },
		{ "NCCL_IB_DISABLE", "NET/IB", "transport/net_ib", { "ib_rdma_config", NULL },
		  "NCCL_IB_DISABLE=1 and no NET/IB connection in the log: only where the run stopped named this cause" },
	};
	const struct nccllog *lg = a->lg;
	for (size_t k = 0; k < sizeof(sw) / sizeof(sw[0]); k++) {
		struct switch_src src;
		if (!switched_off(a, sw[k].var, &src) || transport_used(lg, sw[k].kind, sw[k].src))
			continue;
		for (int j = 0; j < 2 && sw[k].cause[j]; j++) {
			const struct cause_acc *c = score_find(a, sw[k].cause[j]);
			if (!c || named_by_line(a, c))
				continue;
			struct finding *f = finding_for(a->r, FID_LOG_ENV_TRANSPORT_SWITCH, SEV_INFO, "an NCCL transport switch is set");
			finding_evidence(f, file_name(lg, src.file), (long)src.line,
					 "%s=1 and no %s connection in the log: NCCL did not use %s, so %s (%.2f from where the "
					 "run stopped, not from a line that names it) is taken out of the causes",
					 sw[k].var, sw[k].kind, sw[k].kind, c->cause, c->conf);
			score_drop(a, c->cause, sw[k].why);
		}
	}
}
