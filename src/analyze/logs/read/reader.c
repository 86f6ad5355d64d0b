/* NCCL log reader: the per-process model (see nccllog.h). Each line is
 * parsed (parse.c, with the header cache), attributed to its
 * process (host, pid), INFO lines go into the model (info.c), and
 * WARN lines and other text through the signature matcher
 * (match.c); matches are stored as events with their file:line. The
 * other inputs (flight recorder, Inspector, ncclras) see each line first,
 * through their sniffer table (logs/inputs/inputs.h). */
#include "analyze/logs/inputs/inputs.h"
#include "analyze/logs/read/read.h"
#include "kb/nccl_signatures.h"
#include "util/ncclver.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <stdio.h>
#include <strings.h>

#define PID_BUCKETS 1024
#define HID_SLOTS 4096 /* a power of two */
#define ALWAYS_INLINE __attribute__((always_inline)) inline /* the one-thread path: one function a line */

struct procindex {
	int head[PID_BUCKETS];
	int *next;
	size_t anext;
	int last; /* cache: the process of the previous NCCL line */
	int *dirty; /* processes whose last_src is newer than last_text */
	size_t ndirty, adirty;
	int dirty_file; /* the file whose last_src is, -1 */
	struct {
		int hid1;   /* 1 + nl_rec.hid; 0: empty */
		int proc;
	} hid[HID_SLOTS]; /* threads: the process of a worker's cached header */
	struct nl_hcache hc;
};

void nccllog_init(struct nccllog *lg)
{
	memset(lg, 0, sizeof(*lg));
	lg->matcher = nl_matcher_new();
	struct procindex *pi = xcalloc(1, sizeof(*pi));
	for (int i = 0; i < PID_BUCKETS; i++)
		pi->head[i] = -1;
	pi->last = -1;
	pi->dirty_file = -1;
	lg->procindex = pi;
}

/* Frees what the other inputs read (lg->fr, lg->insp). */
static void release_inputs(struct nccllog *lg)
{
	for (size_t i = 0; i < nl_ninputs; i++)
		if (nl_inputs[i].release)
			nl_inputs[i].release(lg);
}

void nccllog_reset(struct nccllog *lg)
{
	struct procindex *pi = lg->procindex;
	for (int i = 0; i < lg->nprocs; i++)
		pi->head[(unsigned long)lg->procs[i].pid % PID_BUCKETS] = -1;
	pi->last = -1;
	pi->ndirty = 0;
	pi->dirty_file = -1;
	memset(pi->hid, 0, sizeof(pi->hid));
	for (int k = 0; k < HC_SETS; k++) {
		pi->hc.set[k].way[0].len = pi->hc.set[k].way[1].len = 0;
		pi->hc.set[k].victim = 0;
	}
	for (int i = 0; i < lg->nfiles; i++)
		free(lg->files[i].name);
	/* every entry of files, procs, ev and wd is cleared when it is added */
	lg->nfiles = 0;
	lg->nprocs = 0;
	lg->procs_dropped = 0;
	lg->nev = 0;
	memset(lg->sigcount, 0, sizeof(lg->sigcount));
	memset(lg->sigstored, 0, sizeof(lg->sigstored));
	lg->seq = 0;
	lg->orphan_chain = 0;
	memset(&lg->orphan_boot, 0, sizeof(lg->orphan_boot));
	memset(&lg->py_prog, 0, sizeof(lg->py_prog));
	lg->nwd = 0;
	memset(&lg->topomat, 0, sizeof(lg->topomat));
	memset(&lg->tests, 0, sizeof(lg->tests));
	memset(&lg->host, 0, sizeof(lg->host));
	release_inputs(lg);
}

void nccllog_release(struct nccllog *lg)
{
	for (int i = 0; i < lg->nfiles; i++)
		free(lg->files[i].name);
	free(lg->files);
	free(lg->procs);
	free(lg->ev);
	nl_matcher_free(lg->matcher);
	release_inputs(lg);
	struct procindex *pi = lg->procindex;
	if (pi) {
		free(pi->next);
		free(pi->dirty);
	}
	free(pi);
	memset(lg, 0, sizeof(*lg));
}

int nccllog_begin_file(struct nccllog *lg, const char *name)
{
	if (lg->nfiles >= NL_MAX_FILES)
		return -1;
	XGROW(lg->files, lg->afiles, lg->nfiles + 1);
	struct nl_file *f = &lg->files[lg->nfiles];
	memset(f, 0, sizeof(*f));
	f->name = xstrdup(name);
	f->only_proc = -1;
	return lg->nfiles++;
}

void nccllog_end_file(struct nccllog *lg, int file, uint64_t lines, uint64_t bytes,
		      uint64_t truncated, bool no_newline)
{
	if (file < 0 || file >= lg->nfiles)
		return;
	nl_flush_text(lg);
	struct nl_file *f = &lg->files[file];
	nl_clean_in_place(f->last_text, sizeof(f->last_text));
	for (int i = 0; i < lg->nprocs; i++)
		if (lg->procs[i].last_file == file)
			nl_clean_in_place(lg->procs[i].last_text, sizeof(lg->procs[i].last_text));
	f->lines = lines;
	f->bytes = bytes;
	f->truncated = truncated;
	f->no_newline = no_newline;
	for (size_t i = 0; i < nl_ninputs; i++)
		nl_inputs[i].end_file(lg, file);
}

static int proc_find(struct nccllog *lg, const char *host, size_t hostlen, long pid)
{
	struct procindex *pi = lg->procindex;
	size_t hl = hostlen < 63 ? hostlen : 63;
	if (pi->last >= 0) {
		struct nl_proc *p = &lg->procs[pi->last];
		if (p->pid == pid && p->host[hl] == '\0' && memcmp(p->host, host, hl) == 0)
			return pi->last;
	}
	for (int i = pi->head[(unsigned long)pid % PID_BUCKETS]; i >= 0; i = pi->next[i]) {
		struct nl_proc *p = &lg->procs[i];
		if (p->pid == pid && p->host[hl] == '\0' && memcmp(p->host, host, hl) == 0)
			return pi->last = i;
	}
	return -1;
}

static int proc_add(struct nccllog *lg, const char *host, size_t hostlen, long pid, int file)
{
	if (lg->nprocs >= NL_MAX_PROCS)
		return -1;
	struct procindex *pi = lg->procindex;
	XGROW(lg->procs, lg->aprocs, lg->nprocs + 1);
	XGROW(pi->next, pi->anext, lg->nprocs + 1);
	int i = lg->nprocs++;
	struct nl_proc *p = &lg->procs[i];
	memset(p, 0, sizeof(*p));
	size_t hl = hostlen < 63 ? hostlen : 63;
	memcpy(p->host, host, hl);
	p->host[hl] = '\0';
	p->pid = pid;
	p->file = file;
	p->dev = -1;
	p->stage0 = -1;
	p->last_warn_event = -1;
	p->prank = -1;
	unsigned b = (unsigned)((unsigned long)pid % PID_BUCKETS);
	pi->next[i] = pi->head[b];
	pi->head[b] = i;
	pi->last = i;
	struct nl_file *f = &lg->files[file];
	f->nprocs++;
	return i;
}

int nl_proc_stage(const struct nl_proc *p)
{
	if (p->ncomms > 0)
		return p->comms[p->ncomms - 1].stage > p->stage0 ? p->comms[p->ncomms - 1].stage : p->stage0;
	return p->stage0;
}

const struct nl_comm *nl_proc_main_comm(const struct nl_proc *p)
{
	const struct nl_comm *best = NULL;
	for (int i = 0; i < p->ncomms; i++)
		if (p->comms[i].rank >= 0 && (!best || p->comms[i].nranks >= best->nranks))
			best = &p->comms[i];
	if (!best && p->ncomms)
		best = &p->comms[p->ncomms - 1];
	return best;
}

int nl_proc_rank(const struct nl_proc *p)
{
	const struct nl_comm *c = nl_proc_main_comm(p);
	return c && c->rank >= 0 ? c->rank : p->prank;
}


/* "init.cc:126 -> 5", "transport/p2p.cc:352 (p2pMap) -> 1", "group.cc:76 -> 5 [Async thread]" */
/* colon: the first ':' of m[0 .. min(n, 120)), NULL when none. */
static ALWAYS_INLINE bool is_chain(const char *m, size_t n, const char *colon, int *code, size_t *framelen)
{
	if (!colon || colon - m < 3)
		return false;
	size_t fl = (size_t)(colon - m);
	if (!((fl > 3 && (memcmp(colon - 3, ".cc", 3) == 0 || memcmp(colon - 3, ".cu", 3) == 0)) ||
	      memcmp(colon - 2, ".h", 2) == 0 || memcmp(colon - 2, ".c", 2) == 0))
		return false;
	for (const char *q = m; q < colon; q++)
		if (!(isalnum((unsigned char)*q) || *q == '_' || *q == '/' || *q == '.' || *q == '-'))
			return false;
	const char *q = colon + 1, *end = m + n;
	if (q >= end || !is_digit(*q))
		return false;
	while (q < end && is_digit(*q))
		q++;
	if (end - q > 2 && q[0] == ' ' && q[1] == '(') { /* 2.30: " (function)" */
		const char *cl = memchr(q, ')', (size_t)(end - q));
		if (!cl)
			return false;
		q = cl + 1;
	}
	if (end - q < 5 || memcmp(q, " -> ", 4) != 0)
		return false;
	long v = 0;
	size_t k = parse_num(q + 4, (size_t)(end - q - 4), &v);
	if (!k)
		return false;
	*code = (int)v;
	*framelen = (size_t)(q + 4 + k - m);
	return true;
}


/* Lines that are frequent and never match a signature: the matcher is
 * skipped for them (speed). colon as is_chain(). */
static bool info_is_bulk(const char *m, size_t n, const char *colon)
{
	if (n == 0)
		return true;
	/* ALLOC subsystem: "channel.cc:42 Cuda Alloc Size 608 pointer 0x..." */
	const char *cc = n > 40 && colon && colon - m < 24 ? colon : NULL;
	if (cc && cc - m > 3 && memcmp(cc - 3, ".cc", 3) == 0) {
		const char *sp = bscan_find_byte(cc, ' ', (size_t)(m + n - cc));
		if (sp && (starts(sp, (size_t)(m + n - sp), " Cuda ") || starts(sp, (size_t)(m + n - sp), " Mem ")))
			return true;
	}
	switch (m[0]) {
	case 'C':
		return starts(m, n, "Channel ") || starts(m, n, "Connected all ");
	case 'T':
		/* "Trees [0] ...", and the tree dump "Tree 6 : -1 -> 0 -> -1/-1/-1" */
		return starts(m, n, "Trees") || (starts(m, n, "Tree ") && n > 5 && is_digit(m[5]));
	case ' ':
		return true; /* graph dumps " 0 : GPU/0-60" */
	default:
		if (is_digit(m[0])) { /* the same dump past channel 9: "28 : GPU/0-60" */
			size_t i = 1;
			while (i < n && is_digit(m[i]))
				i++;
			return starts(m + i, n - i, " : ");
		}
		return false;
	}
}

/* Where the first literal of signature g starts in text[0..n) when it
 * lies past what an event keeps (NL_TEXT_MAX), else 0: a long command line
 * ('mpirun ... -x NCCL_TOPO_FILE=...' at byte 393) would otherwise be
 * stored without the very words it was matched on. */
static size_t literal_past_cut(const struct nccl_signature *g, const char *text, size_t n)
{
	if (!g || n < NL_TEXT_MAX)
		return 0;
	size_t best = n, blen = 0;
	for (int k = 0; k < NS_MAX_ANY && g->any[k]; k++) {
		size_t l = strlen(g->any[k]);
		for (size_t i = 0; i + l <= n && i < best; i++)
			if (strncasecmp(text + i, g->any[k], l) == 0) {
				best = i, blen = l;
				break;
			}
	}
	/* kept already, or too near the start for a head and a window */
	return best == n || best + blen < NL_TEXT_MAX - 1 || best < 140 ? 0 : best;
}

/* force: store it even past NL_MAX_EVIDENCE (bounded by the caller) */
static void store_event_x(struct nccllog *lg, int sig, int proc, int prank, int file, uint64_t line, long long ts,
			  const char *text, size_t textlen, bool force)
{
	if (sig < 0 || sig >= NL_MAX_SIGS)
		return;
	lg->sigcount[sig]++;
	if (proc >= 0)
		lg->procs[proc].sighits[sig / 64] |= 1ULL << (sig % 64);
	if (lg->sigstored[sig] >= NL_MAX_EVIDENCE && !force)
		return;
	if (lg->sigstored[sig] < 255)
		lg->sigstored[sig]++;
	XGROW(lg->ev, lg->aev, lg->nev + 1);
	struct nl_event *e = &lg->ev[lg->nev++];
	memset(e, 0, sizeof(*e));
	e->sig = sig;
	e->proc = proc;
	e->prank = prank;
	e->file = file;
	e->line = line;
	e->seq = lg->seq;
	e->ts = ts;
	/* the window around the literal, after the line's first words */
	size_t at = literal_past_cut(lg->matcher ? nl_matcher_sig(lg->matcher, sig) : NULL, text, textlen);
	if (at) {
		char buf[NL_TEXT_MAX];
		size_t head = 80, from = at - 60;
		memcpy(buf, text, head);
		memcpy(buf + head, " ... ", 5);
		size_t rest = textlen - from < sizeof(buf) - head - 5 ? textlen - from : sizeof(buf) - head - 5;
		memcpy(buf + head + 5, text + from, rest);
		nl_copy_clean(e->text, sizeof(e->text), buf, head + 5 + rest);
		return;
	}
	nl_copy_clean(e->text, sizeof(e->text), text, textlen);
}

static void store_event(struct nccllog *lg, int sig, int proc, int prank, int file, uint64_t line, long long ts,
			const char *text, size_t textlen)
{
	store_event_x(lg, sig, proc, prank, file, line, ts, text, textlen, false);
}

/* A warning no signature knows, looked up among NCCL's own messages: it is
 * stored with its row (e->gen); past the evidence cap still when its row
 * names a cause no stored warning names yet (at most one per class). */
static void store_unknown_warn(struct nccllog *lg, int sig, int proc, const struct nl_line *pl, int file,
			       uint64_t lineno)
{
	const struct nl_warnidx *wi = nl_matcher_warns(lg->matcher);
	int g = nl_warnidx_find(wi, pl->msg, pl->msglen, pl->src, pl->src ? pl->srclen : 0);
	const struct nccl_warn *r = nl_warnidx_row(wi, g);
	bool force = false;
	if (r && strcmp(r->cause, "context") != 0) {
		force = true;
		for (size_t i = 0; i < lg->nev && force; i++) {
			const struct nccl_warn *o = lg->ev[i].gen ? nl_warnidx_row(wi, lg->ev[i].gen - 1) : NULL;
			force = !(lg->ev[i].sig == sig && o && strcmp(o->cause, r->cause) == 0);
		}
	}
	size_t before = lg->nev;
	store_event_x(lg, sig, proc, pl->prank, file, lineno, pl->ts, pl->msg, pl->msglen, force);
	if (lg->nev > before)
		lg->ev[before].gen = g + 1;
}

/* "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1,
 * OpType=ALLREDUCE, ..., Timeout(ms)=600000) ran for ..." (PyTorch 1.13+) */
static void note_watchdog(struct nccllog *lg, int file, uint64_t lineno, const char *s, size_t n, int prank)
{
	if (lg->nwd >= NL_MAX_WATCHDOG)
		return;
	struct nl_watchdog *w = &lg->wd[lg->nwd];
	memset(w, 0, sizeof(*w));
	w->rank = prank;
	int v;
	if (int_after(s, n, "[Rank ", &v))
		w->rank = v;
	char tok[32];
	w->seq = -1;
	/* a paste's "SeqNum=..." (elided) is no number: unknown, not 0 (case 376) */
	if (token_after(s, n, "SeqNum=", tok, sizeof(tok)) && isdigit((unsigned char)tok[0]))
		w->seq = strtoll(tok, NULL, 10);
	if (token_after(s, n, "OpType=", tok, sizeof(tok))) {
		size_t k = strcspn(tok, ",)");
		tok[k] = '\0';
		str_copy(w->optype, tok, sizeof(w->optype));
	}
	if (token_after(s, n, "Timeout(ms)=", tok, sizeof(tok)) && isdigit((unsigned char)tok[0]))
		w->timeout_ms = strtoll(tok, NULL, 10);
	w->file = file;
	w->line = lineno;
	lg->nwd++;
}

/* A watchdog line wrapped before its "WorkNCCL(SeqNum=..." (as pasted):
 * the next line completes the last watchdog record. */
static void watchdog_continued(struct nccllog *lg, int file, uint64_t lineno, const char *s, size_t n)
{
	struct nl_watchdog *lw = lg->nwd ? &lg->wd[lg->nwd - 1] : NULL;
	if (!lw || lw->seq >= 0 || lw->file != file || lw->line + 1 != lineno || !BSCAN_FIND(s, n, "SeqNum="))
		return;
	int rank = lw->rank;
	uint64_t first = lw->line;
	lg->nwd--;
	note_watchdog(lg, file, first, s, n, rank);
}

static int proc_for_text(struct nccllog *lg, int file, const struct nl_line *pl)
{
	if (pl->ppid > 0) {
		struct procindex *pi = lg->procindex;
		for (int i = pi->head[(unsigned long)pl->ppid % PID_BUCKETS]; i >= 0; i = pi->next[i])
			if (lg->procs[i].pid == pl->ppid)
				return i;
	}
	if (pl->prank >= 0) {
		for (int i = 0; i < lg->nprocs; i++) {
			struct nl_proc *p = &lg->procs[i];
			if (p->file != file && p->last_file != file)
				continue;
			if (p->prank == pl->prank)
				return i;
			const struct nl_comm *c = nl_proc_main_comm(p);
			if (c && c->rank == pl->prank)
				return i;
		}
	}
	if (file >= 0 && file < lg->nfiles && lg->files[file].only_proc >= 0)
		return lg->files[file].only_proc;
	return -1;
}

void nl_flush_text(struct nccllog *lg)
{
	struct procindex *px = lg->procindex;
	for (size_t i = 0; i < px->ndirty; i++) {
		struct nl_proc *p = &lg->procs[px->dirty[i]];
		raw_copy(p->last_text, sizeof(p->last_text), p->last_src, p->last_srclen);
		p->last_dirty = false;
	}
	px->ndirty = 0;
	if (px->dirty_file >= 0) {
		struct nl_file *f = &lg->files[px->dirty_file];
		raw_copy(f->last_text, sizeof(f->last_text), f->last_src, f->last_srclen);
		f->last_dirty = false;
		px->dirty_file = -1;
	}
}

/* p's last text is s[0..n): copied now (copy: the line goes after this
 * call, the one-thread path) or at the next nl_flush_text */
static inline void proc_last_text(struct nccllog *lg, int pi, const char *s, size_t n, bool copy)
{
	struct nl_proc *p = &lg->procs[pi];
	if (copy) {
		raw_copy(p->last_text, sizeof(p->last_text), s, n);
		return;
	}
	p->last_src = s;
	p->last_srclen = n;
	if (!p->last_dirty) {
		struct procindex *px = lg->procindex;
		p->last_dirty = true;
		XGROW(px->dirty, px->adirty, px->ndirty + 1);
		px->dirty[px->ndirty++] = pi;
	}
}

/* A generic row (an NCCL error surfaced by a framework: S68b's
 * 'DistBackendError') on a line that is only PyTorch's wrapper
 * 'c10::DistBackendError: watchdog thread terminated with exception', the
 * exception itself not on the line: it names no error, the watchdog's own
 * lines do (PT01, PT02), so it is not counted as one (case 347). */
static bool bare_watchdog_wrapper(const char *line, size_t len, const int *sigs, int ns)
{
	static const char tail[] = "watchdog thread terminated with exception";
	const size_t tl = sizeof(tail) - 1;
	while (len && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r' || line[len - 1] == ':'))
		len--;
	if (ns != 1 || len < tl || strncasecmp(line + len - tl, tail, tl) != 0)
		return false;
	size_t nsig;
	const struct nccl_signature *all = kb_nccl_signatures(&nsig); /* the matcher's rows */
	return (size_t)sigs[0] < nsig && nccl_signature_generic(&all[sigs[0]]);
}

/* match_info: match INFO lines too (their signatures are used only when
 * the model does not explain the line: ahead of time, for threads) */
static ALWAYS_INLINE void stage_a(const struct nl_matcher *mt, struct nl_hcache *hc, const char *line, size_t len,
				  struct nl_rec *r, bool match_info)
{
	size_t wrap = nl_paste_wrapper_len(line, len);
	line += wrap;
	len -= wrap;
	r->line = line;
	r->len = (uint32_t)len;
	r->ns = 0;
	r->ver = NULL;
	r->py_error = 0;
	int sigs[NL_MAX_LINE_SIGS];
	int ns = 0;
	if (nl_parse_cached(hc, line, len, &r->pl, &r->slot)) {
		const struct nl_line *pl = &r->pl;
		r->kind = NLR_NCCL;
		if (pl->level == NL_INFO || pl->level == NL_TRACE || pl->level == NL_ATTN) {
			int code;
			size_t fl;
			/* the first ':' (found once for the tests below that want it) */
			const char *colon = bscan_find_byte(pl->msg, ':', pl->msglen < 120 ? pl->msglen : 120);
			if (pl->msglen && is_chain(pl->msg, pl->msglen, colon, &code, &fl)) {
				r->kind = NLR_CHAIN;
				r->code = code;
				r->framelen = (uint32_t)fl;
				return;
			}
			r->kind = NLR_INFO;
			r->colon = colon;
			r->info_matched = match_info;
			if (match_info && !info_is_bulk(pl->msg, pl->msglen, colon))
				ns = nl_matcher_find_all(mt, pl->msg, pl->msglen, NS_INFO, sigs, NL_MAX_LINE_SIGS);
		} else if (pl->level == NL_WARN) {
			r->kind = NLR_WARN;
			/* from the source file on, so a row can ask for "nvls.cc" */
			const char *ws = pl->src ? pl->src : pl->msg;
			ns = nl_matcher_find_all(mt, ws, (size_t)(line + len - ws), NS_WARN, sigs, NL_MAX_LINE_SIGS);
		}
	} else if (len == 0) {
		r->kind = NLR_EMPTY;
		return;
	} else {
		/* other text (PyTorch, vLLM, launchers, kernel) */
		r->kind = NLR_TEXT;
		ns = nl_matcher_find_all(mt, line, len, NS_TEXT, sigs, NL_MAX_LINE_SIGS);
		if (ns == 1 && bare_watchdog_wrapper(line, len, sigs, ns))
			ns = 0;
		else if (ns == 0)
			r->py_error = nl_py_error_line(line, len);
		/* bare version line of old NCCL at NCCL_DEBUG=VERSION/WARN */
		const char *v = len < 100 ? BSCAN_FIND(line, len, NCCL_VERSION_PREFIX) : NULL;
		if (v && !((v == line || !isalnum((unsigned char)v[-1])) && BSCAN_FIND(v, (size_t)(line + len - v), "+cuda")))
			v = NULL;
		r->ver = v;
		if (ns > 0 || v)
			nl_line_prefixes(line, len, &r->pl); /* only these lines need them */
		size_t lead = 0;
		while (lead < len && (line[lead] == ' ' || line[lead] == '\t'))
			lead++;
		r->blank = lead == len;
		r->topo = nl_topomat_maybe(line, len);
	}
	r->ns = (int8_t)ns;
	for (int k = 0; k < ns; k++)
		r->sigs[k] = (int16_t)sigs[k];
}

/* Stage B of a chain line "init.cc:126 -> 5": onto the last WARN of p. */
static void chain_line(struct nccllog *lg, struct nl_proc *p, int file, const struct nl_rec *r, uint64_t lineno)
{
	if (p->last_warn_event >= 0 && p->last_warn_file == file && lineno - p->last_warn_line < 64) {
		struct nl_event *e = &lg->ev[p->last_warn_event];
		size_t cl = strlen(e->chain), fl = r->framelen;
		if (!e->code)
			e->code = r->code;
		if (cl + fl + 3 < sizeof(e->chain)) {
			if (cl)
				memcpy(e->chain + cl, ", ", 2), cl += 2;
			nl_copy_clean(e->chain + cl, sizeof(e->chain) - cl, r->pl.msg, fl);
		}
		p->last_warn_line = lineno;
	} else {
		lg->orphan_chain++;
		const char *m = r->pl.msg, *c = memchr(m, ':', r->framelen);
		if (!lg->orphan_boot.line && r->code && c && c - m >= 12 && memcmp(c - 12, "bootstrap.cc", 12) == 0 &&
		    (c - m == 12 || c[-13] == '/')) {
			lg->orphan_boot.file = file;
			lg->orphan_boot.line = lineno;
			nl_copy_clean(lg->orphan_boot.text, sizeof(lg->orphan_boot.text), m, r->framelen);
		}
	}
}

static ALWAYS_INLINE void info_line(struct nccllog *lg, int pi, int file, const struct nl_rec *r, uint64_t lineno, bool copy)
{
	struct nl_proc *p = &lg->procs[pi];
	const struct nl_line *pl = &r->pl;
	proc_last_text(lg, pi, pl->msg, pl->msglen, copy);
	int before = nl_proc_stage(p);
	int nc = p->ncomms;
	bool known = nl_model_info(p, file, lineno, pl->msg, pl->msglen, r->colon);
	if (known) { /* rules/went_on.c: did the process go on after a warning */
		p->known_file = file;
		p->known_line = lineno;
	}
	if (nl_proc_stage(p) != before || p->ncomms != nc) {
		nl_copy_clean(p->stage_text, sizeof(p->stage_text), pl->msg, pl->msglen);
		p->stage_file = file;
		p->stage_line = lineno;
	}
	if (known)
		return;
	if (r->info_matched) { /* stage A matched it ahead (threads) */
		for (int k = 0; k < r->ns; k++)
			store_event(lg, r->sigs[k], pi, pl->prank, file, lineno, pl->ts, pl->msg, pl->msglen);
	} else if (!info_is_bulk(pl->msg, pl->msglen, r->colon)) {
		int sigs[NL_MAX_LINE_SIGS];
		int ns = nl_matcher_find_all(lg->matcher, pl->msg, pl->msglen, NS_INFO, sigs, NL_MAX_LINE_SIGS);
		for (int k = 0; k < ns; k++)
			store_event(lg, sigs[k], pi, pl->prank, file, lineno, pl->ts, pl->msg, pl->msglen);
	}
}

static void warn_line(struct nccllog *lg, int pi, int file, const struct nl_rec *r, uint64_t lineno, bool copy)
{
	struct nl_proc *p = &lg->procs[pi];
	const struct nl_line *pl = &r->pl;
	p->nwarn++;
	proc_last_text(lg, pi, pl->msg, pl->msglen, copy);
	size_t before = lg->nev;
	if (r->ns == 0)
		store_unknown_warn(lg, nl_matcher_fallback(lg->matcher), pi, pl, file, lineno);
	bool peer = false;
	for (int k = 0; k < r->ns; k++) {
		store_event(lg, r->sigs[k], pi, pl->prank, file, lineno, pl->ts, pl->msg, pl->msglen);
		peer |= finding_is_peer_loss(nl_matcher_sig(lg->matcher, r->sigs[k])->fid);
	}
	p->nwarn_peer += peer;
	/* the back-trace goes to the line's first (most specific) event */
	p->last_warn_event = lg->nev > before ? (int)before : -1;
	if (lg->nev > before && pl->src) {
		size_t sl = 0, room = (size_t)(r->line + r->len - pl->src);
		while (sl < room && sl + 1 < sizeof(lg->ev[before].src) && pl->src[sl] != ':' && pl->src[sl] != ' ')
			sl++;
		memcpy(lg->ev[before].src, pl->src, sl);
		lg->ev[before].src[sl] = 0;
	}
	p->last_warn_line = lineno;
	p->last_warn_file = file;
	/* a WARN may still carry model facts (version mismatch, dup GPU) */
}

/* Stage B of an NCCL line: its process, then the kind's own part. */
static ALWAYS_INLINE void nccl_line(struct nccllog *lg, int file, const struct nl_rec *r, uint64_t lineno, bool own_cache)
{
	struct nl_file *f = &lg->files[file];
	struct procindex *px = lg->procindex;
	const struct nl_line *pl = &r->pl;
	f->nccl_lines++;
	f->last_nccl_line = lineno;
	int slot = own_cache ? r->slot : -1;
	int pi = slot >= 0 ? px->hc.set[(unsigned)slot / 2].way[(unsigned)slot % 2].proc : -1;
	unsigned h = 0;
	if (!own_cache && r->hid >= 0) { /* the header a worker saw before */
		h = ((unsigned)r->hid * 2654435761u) >> 20 & (HID_SLOTS - 1);
		if (px->hid[h].hid1 == r->hid + 1)
			pi = px->hid[h].proc;
	}
	if (pi >= 0) {
		px->last = pi; /* as proc_find() would */
	} else {
		pi = proc_find(lg, pl->host, pl->hostlen, pl->pid);
		if (pi < 0)
			pi = proc_add(lg, pl->host, pl->hostlen, pl->pid, file);
		if (pi < 0) {
			lg->procs_dropped++;
			return;
		}
		if (slot >= 0)
			px->hc.set[slot / 2].way[slot % 2].proc = pi;
		if (!own_cache && r->hid >= 0) {
			px->hid[h].hid1 = r->hid + 1;
			px->hid[h].proc = pi;
		}
	}
	if (f->only_proc == -1)
		f->only_proc = pi;
	else if (f->only_proc != pi)
		f->only_proc = -2;
	struct nl_proc *p = &lg->procs[pi];
	p->nlines++;
	if (p->dev < 0)
		p->dev = pl->dev;
	if (pl->prank >= 0)
		p->prank = pl->prank;
	p->last_file = file;
	p->last_line = lineno;
	if (r->kind == NLR_CHAIN)
		chain_line(lg, p, file, r, lineno);
	else if (r->kind == NLR_INFO)
		info_line(lg, pi, file, r, lineno, own_cache);
	else if (r->kind == NLR_WARN)
		warn_line(lg, pi, file, r, lineno, own_cache);
}

/* PyTorch's C10D_NCCL_CHECK ends its error with "Last error:\n" and
 * ncclGetLastError(), the text of NCCL's last WARN without its header
 * (torch/csrc/distributed/c10d/NCCLUtils: getNcclErrorDetailStr): a line
 * no signature took, on "Last error:" or after it, is looked up among
 * NCCL's own messages as its WARN would be; stored with its row (W00)
 * when the row names a cause. */
static void last_error_echo(struct nccllog *lg, struct nl_file *f, int file, const char *line, size_t len,
			    uint64_t lineno)
{
	static const char tag[] = "Last error:";
	const char *t = BSCAN_FIND(line, len, tag);
	const char *msg = NULL;
	size_t n = 0;
	if (t) {
		msg = t + sizeof(tag) - 1;
		n = (size_t)(line + len - msg);
		while (n && (*msg == ' ' || *msg == '\t'))
			msg++, n--;
		if (!n) {
			f->last_error_line = lineno;
			return;
		}
	} else if (f->last_error_line && f->last_error_line + 1 == lineno) {
		size_t skip = str_launcher_prefix_len(line, len); /* "[rank0]: " */
		msg = line + skip, n = len - skip;
	}
	if (!msg || !lg->matcher)
		return;
	const struct nl_warnidx *wi = nl_matcher_warns(lg->matcher);
	int g = nl_warnidx_find(wi, msg, n, NULL, 0);
	const struct nccl_warn *row = nl_warnidx_row(wi, g);
	if (!row || strcmp(row->cause, "context") == 0)
		return;
	size_t before = lg->nev;
	store_event(lg, nl_matcher_fallback(lg->matcher), -1, -1, file, lineno, 0, line, len);
	if (lg->nev > before)
		lg->ev[before].gen = g + 1;
}

/* Stage B of other text (PyTorch, vLLM, launchers, kernel). */
static ALWAYS_INLINE void text_line(struct nccllog *lg, int file, const struct nl_rec *r, uint64_t lineno, bool copy)
{
	const char *line = r->line;
	size_t len = r->len;
	if (r->topo && nl_topomat_line(lg, file, line, len, lineno))
		return; /* a topo -m row holds no signature */
	/* a row of an nccl-tests table under its header, or the line naming its
	 * collective ('#' in its first bytes): read, then handled as any text */
	if ((lg->tests.ncols && lg->tests.file == file) || (len > 28 && memchr(line, '#', len < 24 ? len : 24)))
		nl_tests_line(lg, file, line, len, lineno);
	struct nl_file *f = &lg->files[file];
	struct procindex *px = lg->procindex;
	const struct nl_line *pl = &r->pl;
	int ns = r->ns;
	watchdog_continued(lg, file, lineno, line, len);
	int pi = -2;
	if (ns > 0) {
		pi = proc_for_text(lg, file, pl);
		if (pi >= 0 && pl->prank >= 0 && lg->procs[pi].prank < 0)
			lg->procs[pi].prank = pl->prank; /* "[rank0]: ..." of its only process */
	}
	for (int k = 0; k < ns; k++) {
		store_event(lg, r->sigs[k], pi, pl->prank, file, lineno, 0, line, len);
		if (strcmp(nl_matcher_sig(lg->matcher, r->sigs[k])->id, "PT01") == 0)
			note_watchdog(lg, file, lineno, line, len, pl->prank);
		else if (strcmp(nl_matcher_sig(lg->matcher, r->sigs[k])->id, "TB01") == 0)
			nl_tests_header(lg, file, line, len);
	}
	if (ns == 0 && !r->blank)
		last_error_echo(lg, f, file, line, len, lineno);
	lg->py_errors += r->py_error;
	if (r->py_error && !lg->py_prog.line && nl_py_program_error(line, len)) {
		lg->py_prog.file = file;
		lg->py_prog.line = lineno;
		nl_copy_clean(lg->py_prog.text, sizeof(lg->py_prog.text), line, len);
	}
	const char *v = r->ver;
	if (v) {
		if (pi == -2)
			pi = proc_for_text(lg, file, pl);
		/* NCCL prints it between its own lines: the process of the line before */
		if (pi < 0 && px->last >= 0 && lg->procs[px->last].last_file == file)
			pi = px->last;
		if (pi >= 0 && !lg->procs[pi].version[0])
			nl_set_version(&lg->procs[pi], v + 13, (size_t)(line + len - v - 13), file, lineno);
	}
	if (!r->blank && copy) {
		raw_copy(f->last_text, sizeof(f->last_text), line, len);
		f->last_line_no = lineno;
	} else if (!r->blank) {
		f->last_src = line;
		f->last_srclen = len;
		f->last_dirty = true;
		px->dirty_file = file;
		f->last_line_no = lineno;
	}
}

/* own_cache: the one-thread path (lg's header cache; the line goes after
 * this call, so last texts are copied now) */
static ALWAYS_INLINE void stage_b(struct nccllog *lg, int file, const struct nl_rec *r, uint64_t lineno, bool own_cache)
{
	const char *line = r->line;
	size_t len = r->len;
	lg->seq++;
	if (r->nul)
		lg->files[file].nul_lines++;
	if (r->ansi)
		lg->files[file].ansi_lines++;
	for (size_t i = 0; i < nl_ninputs; i++) /* the other inputs (logs/inputs/inputs.h) */
		if (nl_inputs[i].detect(lg, file, line, len, lineno) && nl_inputs[i].line(lg, file, line, len, lineno))
			return; /* a record of an input's dump: no log line */
	if (r->kind >= NLR_NCCL)
		nccl_line(lg, file, r, lineno, own_cache);
	else if (r->kind == NLR_TEXT)
		text_line(lg, file, r, lineno, own_cache);
}

void nl_stage_a(const struct nl_matcher *mt, struct nl_hcache *hc, const char *line, size_t len, struct nl_rec *r,
		bool match_info)
{
	stage_a(mt, hc, line, len, r, match_info);
}

void nl_stage_b_run(struct nccllog *lg, int file, const struct nl_rec *r, size_t n, uint64_t lineno)
{
	for (size_t i = 0; i < n; i++) {
		if (i + NL_PREFETCH_AHEAD < n) {
			/* a worker on another core wrote them: fetch them early */
			const struct nl_rec *q = &r[i + NL_PREFETCH_AHEAD];
			__builtin_prefetch(q);
			__builtin_prefetch((const char *)q + 64);
			__builtin_prefetch((const char *)q + 128);
			__builtin_prefetch(q->line);
			__builtin_prefetch(q->line + 64);
		}
		stage_b(lg, file, &r[i], lineno + i, false);
	}
	nl_flush_text(lg); /* before the lines go */
}

void nl_hid_clear(struct nccllog *lg)
{
	struct procindex *px = lg->procindex;
	memset(px->hid, 0, sizeof(px->hid));
}

struct nl_hcache *nl_own_hcache(struct nccllog *lg)
{
	return &((struct procindex *)lg->procindex)->hc;
}

static void feed_line(struct nccllog *lg, int file, const char *line, size_t len, uint64_t lineno, bool nul,
		      bool ansi)
{
	struct nl_rec r;
	stage_a(lg->matcher, nl_own_hcache(lg), line, len, &r, false);
	r.nul = nul;
	r.ansi = ansi;
	stage_b(lg, file, &r, lineno, true);
}

void nccllog_feed(struct nccllog *lg, int file, char *line, size_t len, uint64_t lineno)
{
	bool had_nul, had_ansi;
	len = nccllog_clean_line(line, len, &had_nul, &had_ansi);
	feed_line(lg, file, line, len, lineno, had_nul, had_ansi);
}

void nccllog_feed_plain(struct nccllog *lg, int file, const char *line, size_t len, uint64_t lineno)
{
	feed_line(lg, file, line, len, lineno, false, false);
}
