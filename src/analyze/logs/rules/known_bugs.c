/* NCCL log analysis, NCCL's known bugs by version (driver_or_kernel_bug):
 * the NCCL version a log prints and the symptoms it shows (the source file
 * and text of its warnings, the collective a watchdog names, the
 * transports of the run, a hang or a crash) looked up in the catalog of
 * NCCL's release notes (kb/nccl_known_bugs.h); the stage of a hang counts
 * too (inside NVLS set-up, in bootstrap). Strict: a row needs a key
 * the log shows where it failed, not only a crash or a hang; and a
 * confirmed root failure keeps its place: the known bug is then a finding,
 * not a ranked cause. */
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"
#include "kb/nccl_known_bugs.h"
#include "kb/nccl_signatures.h"
#include "util/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KB_SHOWN 3 /* rows a finding names */

/* A warning's source file (under NCCL's src/) -> key. */
static const struct { const char *prefix; uint64_t key; } file_keys[] = {
	{ "transport/shm", NKB_K_SHM }, { "misc/shmutils", NKB_K_SHM },
	{ "transport/net_ib", NKB_K_IB }, { "misc/ibvwrap", NKB_K_IB }, { "misc/ibvsymbols", NKB_K_IB },
	{ "transport/net_socket", NKB_K_SOCKET }, { "misc/socket", NKB_K_SOCKET },
	{ "transport/p2p", NKB_K_P2P },
	{ "transport/nvls", NKB_K_NVLS },
	{ "transport/coll_net", NKB_K_COLLNET },
	{ "bootstrap", NKB_K_BOOTSTRAP },
	{ "proxy", NKB_K_PROXY },
	{ "graph/", NKB_K_TOPOLOGY },
	{ "ras/", NKB_K_RAS },
	{ "register/", NKB_K_REGISTER },
	{ "plugin/net", NKB_K_NETPLUGIN }, { "net.cc", NKB_K_NETPLUGIN },
};

/* Words of a failure line -> key (ASCII case-insensitive). */
static const struct { const char *word; uint64_t key; } text_keys[] = {
	{ "NET/IB", NKB_K_IB }, { "ibv_", NKB_K_IB }, { "/dev/shm", NKB_K_SHM }, { "shared memory", NKB_K_SHM },
	{ "NVLS", NKB_K_NVLS }, { "CollNet", NKB_K_COLLNET }, { "SHARP", NKB_K_COLLNET }, { "PXN", NKB_K_PXN },
	{ "cuMem", NKB_K_CUMEM }, { "UDS", NKB_K_CUMEM }, { "MNNVL", NKB_K_MNNVL }, { "NVLink", NKB_K_NVLINK },
	{ "Bootstrap", NKB_K_BOOTSTRAP }, { "ncclCommAbort", NKB_K_ABORT }, { "ncclCommSplit", NKB_K_SPLIT },
	{ "RoCE", NKB_K_ROCE }, { "NET/Plugin", NKB_K_NETPLUGIN }, { "proxy", NKB_K_PROXY },
	/* NCCL's own check that every rank built the same rings (graph/rings.cc) */
	{ "does not loop back to start", NKB_K_CONSISTENCY },
};

/* A watchdog's OpType -> key. */
static const struct { const char *op; uint64_t key; } op_keys[] = {
	{ "ALLTOALL", NKB_K_ALLTOALL }, { "ALLGATHER", NKB_K_ALLGATHER }, { "_ALLGATHER", NKB_K_ALLGATHER },
	{ "REDUCE_SCATTER", NKB_K_REDUCESCATTER }, { "_REDUCE_SCATTER", NKB_K_REDUCESCATTER },
	{ "SEND", NKB_K_SENDRECV }, { "RECV", NKB_K_SENDRECV },
};

/* A transport of a process (nl_transport.kind) -> key. */
static const struct { const char *prefix; uint64_t key; } tr_keys[] = {
	{ "P2P", NKB_K_P2P }, { "SHM", NKB_K_SHM }, { "NET/IB", NKB_K_IB }, { "NET/Socket", NKB_K_SOCKET },
	{ "CollNet", NKB_K_COLLNET }, { "NVLS", NKB_K_NVLS },
};

/* A failure-class of a signature -> key. */
static const struct { const char *cause; uint64_t key; } class_keys[] = {
	{ "shm_too_small", NKB_K_SHM }, { "ib_rdma_config", NKB_K_IB }, { "custom_allreduce_or_cumem", NKB_K_CUMEM },
	{ "fabric_manager_nvswitch", NKB_K_NVLS }, { "p2p_pcie_acs_iommu", NKB_K_P2P }, { "p2p_virtualization", NKB_K_P2P },
	{ "bootstrap_network", NKB_K_BOOTSTRAP }, { "nvlink_fabric", NKB_K_NVLINK },
};

/* Where the log showed each key first (an event, -1 none). */
struct shown {
	struct nkb_symptoms s;
	int ev[64];
};

static int bit_index(uint64_t k)
{
	int b = 0;
	while (k > 1) {
		k >>= 1;
		b++;
	}
	return b;
}

static void add_key(struct shown *sh, uint64_t k, bool strong, int ev)
{
	if (strong)
		sh->s.strong |= k;
	else
		sh->s.weak |= k;
	int b = bit_index(k);
	if (sh->ev[b] < 0)
		sh->ev[b] = ev;
}

static bool failure_role(enum nccl_sig_role r)
{
	return r == NSR_ROOT || r == NSR_SECONDARY || r == NSR_HANG || r == NSR_CONTEXT;
}

static void symptoms(const struct ana *a, struct shown *sh)
{
	const struct nccllog *lg = a->lg;
	memset(sh, 0, sizeof(*sh));
	for (int i = 0; i < 64; i++)
		sh->ev[i] = -1;
	for (size_t i = 0; i < lg->nev; i++) {
		const struct nl_event *e = &lg->ev[i];
		const struct nccl_signature *sig = &a->sigs[e->sig];
		if (!e->src[0] && !failure_role(sig->role))
			continue;
		/* where it failed: a root failure's line, a hang marker, or a warning
		 * whose back-trace returned an error; a consequence (a proxy's failed
		 * Setup after a UDS error) or a warning without one (NCCL 2.4's
		 * 'Failed to open libibverbs' on a host without IB) only says what
		 * the run used */
		bool strong = sig->role == NSR_ROOT || sig->role == NSR_HANG || e->code != 0;
		for (size_t k = 0; k < sizeof(file_keys) / sizeof(file_keys[0]); k++)
			if (e->src[0] && strncmp(e->src, file_keys[k].prefix, strlen(file_keys[k].prefix)) == 0)
				add_key(sh, file_keys[k].key, strong, (int)i);
		for (size_t k = 0; k < sizeof(text_keys) / sizeof(text_keys[0]); k++)
			if (str_casestr(e->text, text_keys[k].word))
				add_key(sh, text_keys[k].key, strong, (int)i);
		const char *cls = nccl_signature_cause(sig);
		for (size_t k = 0; cls && failure_role(sig->role) && k < sizeof(class_keys) / sizeof(class_keys[0]); k++)
			if (strcmp(cls, class_keys[k].cause) == 0)
				add_key(sh, class_keys[k].key, false, (int)i);
		/* a crash: Python's or glibc's own words, or torchrun's summary of a
		 * SIGSEGV/SIGBUS (not its SIGABRT: PyTorch's watchdog aborts a hung
		 * rank itself) */
		if (strcmp(sig->id, "PT11") == 0 || strcmp(sig->id, "HC01") == 0 ||
		    (strcmp(sig->id, "PT06") == 0 && (strstr(e->text, "SIGSEGV") || strstr(e->text, "SIGBUS") ||
						      strstr(e->text, "exitcode  : -11") || strstr(e->text, "exitcode  : -7"))))
			sh->s.effects |= NKB_E_CRASH;
	}
	for (int w = 0; w < lg->nwd; w++)
		for (size_t k = 0; k < sizeof(op_keys) / sizeof(op_keys[0]); k++) {
			const char *op = lg->wd[w].optype;
			size_t n = strlen(op_keys[k].op);
			if (strncmp(op, op_keys[k].op, n) == 0 && (op[n] == '\0' || op[n] == '_' || op[n] == 'V'))
				add_key(sh, op_keys[k].key, true, -1);
		}
	for (int i = 0; i < lg->nprocs; i++) {
		const struct nl_proc *p = &lg->procs[i];
		for (int t = 0; t < p->ntr; t++)
			for (size_t k = 0; k < sizeof(tr_keys) / sizeof(tr_keys[0]); k++)
				if (strncmp(p->tr[t].kind, tr_keys[k].prefix, strlen(tr_keys[k].prefix)) == 0)
					add_key(sh, tr_keys[k].key, false, -1);
		if (strcmp(p->net, "IB") == 0)
			add_key(sh, NKB_K_IB, false, -1);
		for (int c = 0; c < p->ncomms; c++)
			if (p->comms[c].nranks >= 64)
				add_key(sh, NKB_K_SCALE, false, -1);
		for (int v = 0; v < p->nenv; v++) {
			const struct nl_env *e = &p->env[v];
			if (strcmp(e->name, "NCCL_PROTO") == 0 && str_casestr(e->value, "LL128") && e->value[0] != '^')
				add_key(sh, NKB_K_LL128, false, -1);
			if (strcmp(e->name, "NCCL_ALGO") == 0 && str_casestr(e->value, "tree") && e->value[0] != '^')
				add_key(sh, NKB_K_TREE, false, -1);
			if (strcmp(e->name, "NCCL_COLLNET_ENABLE") == 0 && strcmp(e->value, "1") == 0)
				add_key(sh, NKB_K_COLLNET, false, -1);
		}
	}
	static const enum finding_id hangs[] = {
		FID_LOG_HANG_BOOTSTRAP, FID_LOG_HANG_INIT_CONNECT, FID_LOG_HANG_RUNTIME_CONNECT, FID_LOG_HANG_DATA_PATH,
		FID_LOG_HANG_NVLS_SETUP,
	};
	if (a->have_hang)
		sh->s.effects |= NKB_E_HANG;
	for (size_t h = 0; h < sizeof(hangs) / sizeof(hangs[0]); h++)
		if (finding_get(a->r, hangs[h]))
			sh->s.effects |= NKB_E_HANG;
	/* the stage of the hang: inside NVLS set-up names NVLS, in bootstrap
	 * only says where the ranks waited */
	if (finding_get(a->r, FID_LOG_HANG_NVLS_SETUP))
		add_key(sh, NKB_K_NVLS, true, -1);
	if (finding_get(a->r, FID_LOG_HANG_BOOTSTRAP))
		add_key(sh, NKB_K_BOOTSTRAP, false, -1);
	if (a->failed && init_unfinished(lg))
		sh->s.effects |= NKB_E_INIT;
	if (a->have_any_root)
		sh->s.effects |= NKB_E_ERROR;
}

/* Appends ", word" (or "word" first) to buf, cut at its end. */
static void append_word(char *buf, size_t bufsz, const char *word)
{
	size_t o = strlen(buf);
	if (o + 1 < bufsz)
		snprintf(buf + o, bufsz - o, "%s%s", o ? ", " : "", word ? word : "?");
}

/* "hang, alltoall": the effects and keys of row m the log shows, into buf. */
static void matched_text(const struct nkb_match *m, char *buf, size_t bufsz)
{
	buf[0] = '\0';
	for (int b = 0; b < 32; b++)
		if (m->effects & (1u << b))
			append_word(buf, bufsz, nkb_effect_name(1u << b));
	for (int b = 0; b < 64; b++)
		if (m->keys & (UINT64_C(1) << b))
			append_word(buf, bufsz, nkb_key_name(UINT64_C(1) << b));
}

/* Every key of row m that the log shows was first shown by one root
 * failure's line, and there are two of them at least. */
static bool root_shows_row(const struct ana *a, const struct shown *sh, const struct nkb_match *m)
{
	int ev = -1, n = 0;
	for (int k = 0; k < 64; k++) {
		if (!(m->keys & (UINT64_C(1) << k)))
			continue;
		if (sh->ev[k] < 0 || (ev >= 0 && sh->ev[k] != ev))
			return false;
		ev = sh->ev[k];
		n++;
	}
	return n >= 2 && a->sigs[a->lg->ev[ev].sig].role == NSR_ROOT;
}

void known_nccl_bugs(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	int pi = -1;
	for (int i = 0; i < lg->nprocs && pi < 0; i++)
		if (lg->procs[i].version[0])
			pi = i;
	if (pi < 0 || !a->failed)
		return;
	const struct nl_proc *p = &lg->procs[pi];
	struct shown sh;
	symptoms(a, &sh);
	struct nkb_match m[KB_SHOWN];
	size_t n = nkb_lookup(p->version, &sh.s, m, KB_SHOWN);
	if (!n)
		return;
	char ver[32], what[200], lbl[96];
	snprintf(ver, sizeof(ver), "%.*s", (int)strcspn(p->version, "+"), p->version);
	const struct nccl_known_bug *b = m[0].bug;
	if (finding_get(a->r, FID_LOG_NCCL_KNOWN_BUG))
		return;
	struct finding *f = finding_add(a->r, FID_LOG_NCCL_KNOWN_BUG, SEV_WARNING,
					"NCCL %s has a known bug that the release notes of %s describe as \"%s\"; fixed in %s",
					ver, strcmp(b->tag, "-") ? b->tag + 1 : b->fixed_in, b->note, b->fixed_in);
	finding_evidence(f, file_name(lg, p->version_file), (long)p->version_line, "%s prints NCCL version %s",
			 proc_label(lg, pi, lbl, sizeof(lbl)), p->version);
	for (size_t i = 0; i < n; i++) {
		const struct nccl_known_bug *r = m[i].bug;
		matched_text(&m[i], what, sizeof(what));
		finding_evidence(f, NULL, 0, "NCCL %s release notes (%s, commit %.12s, line %d): \"%s\" (the log shows: %s)",
				 r->fixed_in, r->tag, r->commit, r->line, r->note, what);
	}
	for (int k = 0; k < 64; k++) {
		uint64_t bit = UINT64_C(1) << k;
		if ((m[0].keys & bit) && sh.ev[k] >= 0)
			event_evidence(a, f, NULL, &lg->ev[sh.ev[k]]);
	}
	finding_fix(f, "note", NULL, "upgrade NCCL to >= %s (the release whose notes fix it)", b->fixed_in);
	if (b->workaround[0])
		finding_fix(f, "env", "the work-around the release notes name", "export %s", b->workaround);
	const char *cu = strstr(p->version, "+cuda");
	int cuda = cu ? atoi(cu + 5) : 12;
	finding_fix(f, "shell", "the fixed release; or the libnccl your framework or container loads, at that version or newer",
		    "pip install 'nvidia-nccl-cu%d>=%s'", cuda >= 11 && cuda <= 13 ? cuda : 12, b->fixed_in);
	/* A confirmed root failure keeps its place: the bug is a finding only,
	 * unless the root failure's own line shows every key of the row (NCCL
	 * 2.19.3's ring check, fixed in 2.19.4 by "Make topology detection more
	 * deterministic"): then the row explains that very failure and competes
	 * with the class the line gives, behind it. */
	if (a->have_root && !root_shows_row(a, &sh, &m[0]))
		return;
	double w = m[0].strength >= 3 ? 0.3 : 0.2;
	struct cause_acc *c = contribute(a, b->cause, w, FID_LOG_NCCL_KNOWN_BUG);
	cause_evidence(c, p->version_file, p->version_line, "the NCCL version with the known bug");
	for (int k = 0; k < 64; k++)
		if ((m[0].keys & (UINT64_C(1) << k)) && sh.ev[k] >= 0) {
			const struct nl_event *e = &lg->ev[sh.ev[k]];
			cause_evidence(c, e->file, e->line, e->text);
			break;
		}
}

/* The most the release age gives: below the result code's priors (0.2)
 * alone, ahead of them once it joins the bug prior of the code (0.15)
 * for a release that lacks most of the fixes. */
#define RELEASE_AGE_MAX 0.1

/* A framework's ncclUnhandledCudaError or ncclInternalError with nothing
 * more specific, and the NCCL version the log names: these are the codes
 * a bug of NCCL itself returns (ncclSystemError is a system call that
 * failed: /dev/shm, sockets; ncclInvalidUsage the caller), and the release
 * notes fix many that no symptom key can point at (an error, a crash, an
 * init failure, no feature needed). The older the release, the more of
 * them it lacks: driver_or_kernel_bug ("upgrade") gains
 * RELEASE_AGE_MAX times the share it lacks (tools/nccl-known-bugs; NCCL
 * 2.4.8 lacks 27 of 29, 2.18.6 11, 2.27.3 2), which puts the upgrade first
 * for a release that lacks most of them and leaves a recent one to the
 * code's other priors. The version: the processes' version line, else the
 * error line's own "NCCL version X" (PyTorch 1.x-2.0). */
void nccl_release_age(struct ana *a)
{
	const struct nccllog *lg = a->lg;
	if (a->have_root || finding_get(a->r, FID_LOG_NCCL_KNOWN_BUG))
		return;
	const struct nl_event *err = NULL;
	for (size_t i = 0; i < lg->nev && !err; i++) {
		const struct nl_event *e = &lg->ev[i];
		if (a->sigs[e->sig].fid == FID_LOG_NCCL_ERROR &&
		    (str_casestr(e->text, "unhandled cuda error") || str_casestr(e->text, "internal error")))
			err = e;
	}
	if (!err)
		return;
	const char *ver = NULL;
	for (int i = 0; i < lg->nprocs && !ver; i++)
		if (lg->procs[i].version[0])
			ver = lg->procs[i].version;
	const char *t = strstr(err->text, "NCCL version ");
	if (!ver && t)
		ver = t + strlen("NCCL version ");
	size_t total = 0, lacks = nkb_generic_fixes(ver, &total);
	if (!lacks || !total)
		return;
	char v[32], title[240];
	snprintf(v, sizeof(v), "%.*s", (int)strcspn(ver, "+ ,)"), ver);
	snprintf(title, sizeof(title),
		 "NCCL %s lacks %zu of the %zu fixes of errors, crashes and init failures in NCCL's release notes; "
		 "a generic error with nothing more: upgrading is a candidate", v, lacks, total);
	struct finding *f = finding_for(a->r, FID_LOG_NCCL_OLD_RELEASE, SEV_WARNING, title);
	event_evidence(a, f, NULL, err);
	struct cause_acc *c = contribute(a, "driver_or_kernel_bug", RELEASE_AGE_MAX * (double)lacks / (double)total,
					 FID_LOG_NCCL_OLD_RELEASE);
	cause_evidence(c, err->file, err->line, err->text);
}
