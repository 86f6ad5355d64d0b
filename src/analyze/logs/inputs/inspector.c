/* Inputs of the NCCL log reader: NCCL Inspector dumps and ncclras
 * operation counts, detected by content, not by name.
 *
 * Inspector (NCCL's profiler plugin, 2.28.3+; formats checked against
 * ext-profiler/inspector/inspector.cc of v2.28.3-1 and
 * plugins/profiler/inspector/inspector_json.cc, inspector_prom.cc of
 * v2.29.7-1 and v2.30.7-1): one file per process,
 * NCCL_INSPECTOR_DUMP_DIR/<hostname>-pid<pid>.log, one compact JSON object
 * per line and per completed collective of a communicator:
 *   {"header":{"id","comm_name" (2.30+),"rank","n_ranks","nnodes"},
 *    "metadata":{"inspector_output_format_version":"v4.0","git_rev",
 *                "rec_mechanism","dump_timestamp_us","hostname","pid"},
 *    "coll_perf":{"coll","coll_sn","coll_msg_size_bytes","coll_exec_time_us",
 *                 "coll_timing_source","coll_algobw_gbs","coll_busbw_gbs"}}
 * ("p2p_perf" with p2p, p2p_sn, p2p_peer ... in 2.30+). coll_sn is the
 * communicator's count of that collective type (comm->seqNumber[func],
 * the counter RAS reports too), so it is compared per type. Only
 * collectives of at least NCCL_INSPECTOR_DUMP_MIN_SIZE_BYTES (8192) are
 * recorded, and only completed ones.
 * Prometheus mode (NCCL_INSPECTOR_PROM_DUMP=1, 2.29+):
 * nccl_inspector_metrics_<gpu uuid>.prom with lines
 * `nccl_bus_bandwidth_gbs{labels} value`; 2.29 labels comm_id, hostname,
 * rank, nranks, n_nodes, gpu_device_id, collective, coll_sn, message_size;
 * 2.30 labels node, gpu, comm_name, n_nodes, nranks, collective,
 * message_size (a bucket such as "4-5GB"), algo_proto, aggregated per GPU.
 *
 * ncclras (src/ras/client_support.cc of v2.30.7-1): `-f json` gives each
 * rank's "collective_counts" {"AllReduce": N, ...} (operations launched);
 * the text report prints, under "#G-C (hash) MISMATCH", "Communicator
 * ranks have different <coll> operation counts", then the counts most
 * ranks have ("N ranks have launched up to operation X") and the outliers
 * ("Rank R has launched up to operation X -- GPU G managed by process P
 * on node H"). */
#include "analyze/logs/inputs/inspector.h"
#include "analyze/logs/text.h"
#include "util/xalloc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

static struct nl_insp *insp_state(struct nccllog *lg)
{
	if (!lg->insp) {
		struct nl_insp *in = xcalloc(1, sizeof(*in));
		in->file = -1;
		in->bad_file = -1;
		in->ras_file = -1;
		in->ras_major = -1;
		in->ras_table_file = -1;
		in->ras_hdr_file = -1;
		lg->insp = in;
	}
	return lg->insp;
}

static void copy_cut(char *dst, size_t dstsz, const char *s)
{
	nl_copy_clean(dst, dstsz, s, strlen(s));
}

struct in_unit *nl_insp_unit(struct nl_insp *in, int src, const char *comm, int rank, const char *host, const char *gpu,
			     int file)
{
	for (int i = in->nu - 1; i >= 0; i--) {
		struct in_unit *u = &in->u[i];
		if (u->src == src && u->rank == rank && strncmp(u->comm, comm, sizeof(u->comm) - 1) == 0 &&
		    strncmp(u->host, host, sizeof(u->host) - 1) == 0 && strncmp(u->gpu, gpu, sizeof(u->gpu) - 1) == 0)
			return u;
	}
	if (in->nu >= IN_MAX_UNITS) {
		in->dropped++;
		return NULL;
	}
	XGROW(in->u, in->cap, (size_t)in->nu + 1);
	struct in_unit *u = &in->u[in->nu++];
	memset(u, 0, sizeof(*u));
	u->src = src;
	copy_cut(u->comm, sizeof(u->comm), comm);
	copy_cut(u->host, sizeof(u->host), host);
	copy_cut(u->gpu, sizeof(u->gpu), gpu);
	u->rank = rank;
	u->nranks = u->nnodes = -1;
	u->pid = -1;
	u->file = file;
	return u;
}

struct in_func *nl_insp_func(struct in_unit *u, const char *name)
{
	for (int i = 0; i < u->nfn; i++)
		if (strncmp(u->fn[i].name, name, sizeof(u->fn[i].name) - 1) == 0)
			return &u->fn[i];
	if (u->nfn >= IN_MAX_FUNCS)
		return NULL;
	struct in_func *f = &u->fn[u->nfn++];
	memset(f, 0, sizeof(*f));
	copy_cut(f->name, sizeof(f->name), name);
	f->last = -1;
	for (int k = 0; k < IN_SLOTS; k++)
		f->slot_sn[k] = -1;
	return f;
}

/* A completed collective: its sequence number, size and bus bandwidth. */
static void add_coll(struct in_unit *u, const char *coll, long long sn, unsigned long long size, const char *sizetxt,
		     double busbw, bool have_bw)
{
	struct in_func *f = nl_insp_func(u, coll);
	if (f) {
		f->n++;
		if (sn > f->last)
			f->last = sn;
		if (sn >= 0) {
			int k = (int)(sn % IN_SLOTS);
			if (sn >= f->slot_sn[k]) {
				f->slot_sn[k] = sn;
				f->slot_size[k] = size;
			}
		}
	}
	if (!have_bw || busbw != busbw || busbw < 0)
		return;
	for (int i = 0; i < u->nbw; i++)
		if (strcmp(u->bw[i].coll, coll) == 0 && strcmp(u->bw[i].size, sizetxt) == 0) {
			u->bw[i].sum += busbw;
			u->bw[i].n++;
			return;
		}
	if (u->nbw >= IN_MAX_BW) {
		u->bw_dropped++;
		return;
	}
	struct in_bw *b = &u->bw[u->nbw++];
	copy_cut(b->coll, sizeof(b->coll), coll);
	copy_cut(b->size, sizeof(b->size), sizetxt);
	b->sum = busbw;
	b->n = 1;
}

/* One Inspector record, from either parser. */
struct in_rec {
	char id[48], comm_name[48], host[64], coll[24];
	int rank, nranks, nnodes;
	long pid;
	long long ts, sn;
	unsigned long long size;
	double busbw;
	bool have_bw, coll_perf;
};

static void take_record(struct nl_insp *in, int file, uint64_t lineno, const struct in_rec *r)
{
	struct in_unit *u = nl_insp_unit(in, IN_JSON, r->id, r->rank, r->host, "", file);
	if (!u)
		return;
	u->nranks = r->nranks;
	u->nnodes = r->nnodes;
	u->pid = r->pid;
	copy_cut(u->comm_name, sizeof(u->comm_name), r->comm_name);
	if (r->ts > u->last_ts)
		u->last_ts = r->ts;
	u->file = file;
	u->line = lineno;
	u->records++;
	if (r->coll_perf) {
		char sz[24];
		snprintf(sz, sizeof(sz), "%llu", r->size);
		add_coll(u, r->coll[0] ? r->coll : "?", r->sn, r->size, sz, r->busbw, r->have_bw);
	}
}

/* The value after "key": in the compact record s[0..n), NULL when absent. */
static const char *fast_key(const char *s, size_t n, const char *key)
{
	const char *p = bscan_find_lit(s, n, key, strlen(key));
	return p ? p + strlen(key) : NULL;
}

static bool fast_str(const char *s, size_t n, const char *key, char *out, size_t outsz)
{
	const char *p = fast_key(s, n, key), *end = s + n;
	if (!p || p >= end || *p != '"')
		return false;
	const char *q = memchr(p + 1, '"', (size_t)(end - p - 1));
	if (!q || memchr(p + 1, '\\', (size_t)(q - p - 1)))
		return false; /* escapes: jansson reads it */
	nl_copy_clean(out, outsz, p + 1, (size_t)(q - p - 1));
	return true;
}

static bool fast_int(const char *s, size_t n, const char *key, long long *out)
{
	const char *p = fast_key(s, n, key);
	long v = 0;
	if (!p || !parse_num(p, (size_t)(s + n - p), &v))
		return false;
	*out = v;
	return true;
}

/* The record as NCCL writes it (compact, keys unique in the object, no
 * escapes) without a JSON parser; false when it is not that simple. */
static bool fast_record(const char *s, size_t n, struct in_rec *r)
{
	long long v;
	memset(r, 0, sizeof(*r));
	r->rank = r->nranks = r->nnodes = -1;
	r->pid = -1;
	r->sn = -1;
	if (!fast_str(s, n, "\"id\":", r->id, sizeof(r->id)) || !fast_int(s, n, "\"rank\":", &v) || v > INT_MAX)
		return false;
	r->rank = (int)v;
	if (!fast_str(s, n, "\"hostname\":", r->host, sizeof(r->host)))
		return false;
	fast_str(s, n, "\"comm_name\":", r->comm_name, sizeof(r->comm_name));
	if (fast_int(s, n, "\"n_ranks\":", &v))
		r->nranks = v > INT_MAX ? -1 : (int)v;
	if (fast_int(s, n, "\"nnodes\":", &v))
		r->nnodes = v > INT_MAX ? -1 : (int)v;
	if (fast_int(s, n, "\"pid\":", &v))
		r->pid = (long)v;
	fast_int(s, n, "\"dump_timestamp_us\":", &r->ts);
	r->coll_perf = mem_has(s, n, "\"coll_perf\":{");
	if (!r->coll_perf)
		return mem_has(s, n, "\"p2p_perf\":{");
	if (!fast_str(s, n, "\"coll\":", r->coll, sizeof(r->coll)) || !fast_int(s, n, "\"coll_sn\":", &r->sn))
		return false;
	if (fast_int(s, n, "\"coll_msg_size_bytes\":", &v))
		r->size = (unsigned long long)v;
	const char *b = fast_key(s, n, "\"coll_busbw_gbs\":");
	if (b && b < s + n && (is_digit(*b) || *b == '-')) {
		char num[40];
		size_t k = 0;
		while (b + k < s + n && k < sizeof(num) - 1 && (is_digit(b[k]) || strchr(".-+eE", b[k])))
			k++;
		memcpy(num, b, k);
		num[k] = '\0';
		r->busbw = strtod(num, NULL);
		r->have_bw = true;
	}
	return true;
}

static const char *jstr(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_string(v) ? json_string_value(v) : "";
}

/* An integer field; a real is cut to an integer, one out of range (1e300)
 * is dflt. */
static long long jint(json_t *o, const char *key, long long dflt)
{
	json_t *v = json_object_get(o, key);
	if (json_is_integer(v))
		return json_integer_value(v);
	if (json_is_real(v)) {
		double d = json_real_value(v);
		return d > -9.2e18 && d < 9.2e18 ? (long long)d : dflt;
	}
	return dflt;
}

/* An int field (a rank, a count of ranks or nodes): dflt out of range. */
static int jint32(json_t *o, const char *key, int dflt)
{
	long long v = jint(o, key, dflt);
	return v >= INT_MIN && v <= INT_MAX ? (int)v : dflt;
}

/* A decimal label value as an int; -1 when it is none or out of range. */
static int label_int(const char *s)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	return end == s || errno || v < INT_MIN || v > INT_MAX ? -1 : (int)v;
}

static void bad_line(struct nl_insp *in, int file, uint64_t lineno)
{
	if (!in->bad++) {
		in->bad_file = file;
		in->bad_line = lineno;
	}
}

/* One Inspector JSON record: the fast reader, else jansson. */
static void json_record(struct nl_insp *in, int file, const char *s, size_t n, uint64_t lineno)
{
	struct in_rec r;
	if (fast_record(s, n, &r)) {
		take_record(in, file, lineno, &r);
		return;
	}
	/* a record is some 500 bytes: a longer line (--max-line raised) is not
	 * one, and jansson would take up to 80 times its size */
	if (n > IN_MAX_RECORD) {
		bad_line(in, file, lineno);
		return;
	}
	json_error_t err;
	json_t *root = json_loadb(s, n, 0, &err);
	json_t *h = json_object_get(root, "header"), *m = json_object_get(root, "metadata");
	json_t *c = json_object_get(root, "coll_perf"), *p = json_object_get(root, "p2p_perf");
	if (!json_is_object(h) || (!json_is_object(c) && !json_is_object(p))) {
		bad_line(in, file, lineno);
		json_decref(root);
		return;
	}
	copy_cut(r.id, sizeof(r.id), jstr(h, "id"));
	copy_cut(r.comm_name, sizeof(r.comm_name), jstr(h, "comm_name"));
	copy_cut(r.host, sizeof(r.host), jstr(m, "hostname"));
	r.rank = jint32(h, "rank", -1);
	r.nranks = jint32(h, "n_ranks", -1);
	r.nnodes = jint32(h, "nnodes", -1);
	r.pid = (long)jint(m, "pid", -1);
	r.ts = jint(m, "dump_timestamp_us", 0);
	r.coll_perf = json_is_object(c);
	if (r.coll_perf) {
		copy_cut(r.coll, sizeof(r.coll), jstr(c, "coll"));
		r.sn = jint(c, "coll_sn", -1);
		r.size = (unsigned long long)jint(c, "coll_msg_size_bytes", 0);
		json_t *bw = json_object_get(c, "coll_busbw_gbs");
		r.busbw = json_number_value(bw);
		r.have_bw = json_is_number(bw);
	}
	take_record(in, file, lineno, &r);
	json_decref(root);
}

/* The value of label key in a Prometheus label set s[0..n) into out. */
static bool prom_label(const char *s, size_t n, const char *key, char *out, size_t outsz)
{
	size_t kl = strlen(key), i = 0;
	out[0] = '\0';
	while (i < n) {
		while (i < n && (s[i] == ',' || s[i] == ' '))
			i++;
		size_t k0 = i;
		while (i < n && s[i] != '=')
			i++;
		bool hit = i - k0 == kl && memcmp(s + k0, key, kl) == 0;
		if (i + 1 >= n || s[i + 1] != '"')
			return false;
		i += 2;
		size_t o = 0;
		while (i < n && s[i] != '"') {
			if (s[i] == '\\' && i + 1 < n)
				i++;
			if (hit && o + 1 < outsz)
				out[o++] = s[i];
			i++;
		}
		i++;
		if (hit) {
			out[o] = '\0';
			nl_clean_in_place(out, outsz);
			return true;
		}
	}
	return false;
}

/* One Prometheus line: nccl_bus_bandwidth_gbs{labels} value. */
static void prom_record(struct nl_insp *in, int file, const char *s, size_t n, uint64_t lineno)
{
	static const char metric[] = "nccl_bus_bandwidth_gbs{";
	if (n == 0 || s[0] == '#' || !starts(s, n, "nccl_"))
		return;
	if (!starts(s, n, metric))
		return; /* exec time, algorithm bandwidth, P2P: not compared */
	const char *lb = s + sizeof(metric) - 1;
	const char *le = memchr(lb, '}', n - (size_t)(lb - s));
	if (!le) {
		bad_line(in, file, lineno);
		return;
	}
	size_t ln = (size_t)(le - lb);
	char comm[48], name[48], host[64], gpu[24], tmp[32], coll[24], size[24];
	if (!prom_label(lb, ln, "comm_id", comm, sizeof(comm)))
		prom_label(lb, ln, "comm_name", comm, sizeof(comm));
	prom_label(lb, ln, "comm_name", name, sizeof(name));
	if (!prom_label(lb, ln, "hostname", host, sizeof(host)))
		prom_label(lb, ln, "node", host, sizeof(host));
	if (!prom_label(lb, ln, "gpu_device_id", gpu, sizeof(gpu)))
		prom_label(lb, ln, "gpu", gpu, sizeof(gpu));
	int rank = prom_label(lb, ln, "rank", tmp, sizeof(tmp)) ? label_int(tmp) : -1;
	if (!prom_label(lb, ln, "collective", coll, sizeof(coll)) || !coll[0]) {
		bad_line(in, file, lineno);
		return;
	}
	prom_label(lb, ln, "message_size", size, sizeof(size));
	/* 2.29 writes one line per collective with its rank; 2.30 one per
	 * GPU, aggregated: that GPU is the unit */
	struct in_unit *u = nl_insp_unit(in, IN_PROM, comm, rank, host, gpu, file);
	if (!u)
		return;
	copy_cut(u->comm_name, sizeof(u->comm_name), name);
	if (prom_label(lb, ln, "nranks", tmp, sizeof(tmp)))
		u->nranks = label_int(tmp);
	if (prom_label(lb, ln, "n_nodes", tmp, sizeof(tmp)))
		u->nnodes = label_int(tmp);
	long long sn = -1;
	if (prom_label(lb, ln, "coll_sn", tmp, sizeof(tmp))) {
		errno = 0;
		sn = strtoll(tmp, NULL, 10);
		if (errno)
			sn = -1;
	}
	char *end;
	double v = strtod(le + 1, &end);
	u->file = file;
	u->line = lineno;
	u->records++;
	add_coll(u, coll, sn, 0, size, v, end != le + 1);
}

/* Whether the first line of a file starts an Inspector dump. */
static int dump_kind(const char *s, size_t n)
{
	size_t i = 0;
	while (i < n && isspace((unsigned char)s[i]))
		i++;
	s += i, n -= i;
	if (n && s[0] == '{' && mem_has(s, n, "\"header\"") && mem_has(s, n, "\"inspector_output_format_version\"") &&
	    (mem_has(s, n, "\"coll_perf\"") || mem_has(s, n, "\"p2p_perf\"")))
		return IN_JSON;
	if (starts(s, n, "nccl_") && memchr(s, '{', n) &&
	    (mem_has(s, n, "_bandwidth_gbs{") || mem_has(s, n, "_exec_time_microseconds{")))
		return IN_PROM;
	return -1;
}

/* "  Rank 6 has launched up to operation 4119 -- GPU 6 managed by process
 * 40716 on node gpu-node-3", "  7 ranks have launched up to operation 4120"
 * and their "not launched any operations" forms. */
static void ras_text_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	struct nl_insp *in = lg->insp;
	if (s[0] == '#') { /* "#0-0 (2b7d11c0a9e84f36) MISMATCH" */
		const char *o = memchr(s, '(', n), *c = o ? memchr(o, ')', n - (size_t)(o - s)) : NULL;
		if (!is_digit(s[1]) || !o || !c || c - o != 17 || o[-1] != ' ' || !memchr(s, '-', (size_t)(o - s)))
			return;
		for (const char *h = o + 1; h < c; h++)
			if (!isxdigit((unsigned char)*h))
				return;
		in = insp_state(lg);
		in->ras_file = file;
		in->ras_func[0] = '\0';
		nl_copy_clean(in->ras_comm, sizeof(in->ras_comm), o + 1, (size_t)(c - o - 1));
		return;
	}
	if (!in || in->ras_file != file)
		return;
	if (starts(s, n, "  Communicator ranks have different ")) {
		char func[24] = "";
		token_after(s, n, "have different ", func, sizeof(func));
		bool ops = mem_has(s, n, "operation counts");
		str_copy_cut(in->ras_func, sizeof(in->ras_func), ops ? func : "");
		in->ras_major = -1;
		return;
	}
	if (!in->ras_func[0])
		return;
	long long val = -1;
	const char *t = bscan_find_lit(s, n, "launched up to operation ", 25);
	if (t) {
		long v = 0;
		if (parse_num(t + 25, n - (size_t)(t + 25 - s), &v))
			val = v;
	} else if (mem_has(s, n, "not launched any operations")) {
		val = 0;
	}
	if (s[2] != 'R') { /* "  N ranks have ..." */
		if (val >= 0 && in->ras_major < 0)
			in->ras_major = val; /* the most frequent count comes first */
		if (val >= 0) {
			char comm[48], who[24], vs[24];
			int cnt = atoi(s + 2);
			snprintf(comm, sizeof(comm), "%.23s:%s", in->ras_comm, in->ras_func);
			snprintf(who, sizeof(who), "%d ranks", cnt);
			snprintf(vs, sizeof(vs), "%lld", val);
			struct in_unit *u = nl_insp_unit(in, IN_RAS_TEXT, comm, -1, who, vs, file);
			struct in_func *f = u ? nl_insp_func(u, in->ras_func) : NULL;
			if (f) {
				f->last = val;
				u->group = cnt;
				u->line = lineno;
			}
		}
		return;
	}
	int rank = -1;
	int_after(s, n, "Rank ", &rank);
	if (rank < 0 || val < 0)
		return;
	char comm[48], host[64] = "", gpu[24] = "";
	snprintf(comm, sizeof(comm), "%.23s:%s", in->ras_comm, in->ras_func);
	const char *node = bscan_find_lit(s, n, "on node ", 8);
	if (node)
		raw_copy(host, sizeof(host), node + 8, (size_t)(s + n - node - 8));
	token_after(s, n, "-- GPU ", gpu, sizeof(gpu));
	struct in_unit *u = nl_insp_unit(in, IN_RAS_TEXT, comm, rank, host, gpu, file);
	struct in_func *f = u ? nl_insp_func(u, in->ras_func) : NULL;
	if (!f)
		return;
	int pid = -1;
	if (int_after(s, n, "by process ", &pid))
		u->pid = pid;
	f->last = val;
	u->line = lineno;
	nl_clean_in_place(u->host, sizeof(u->host));
	nl_clean_in_place(u->gpu, sizeof(u->gpu));
}

/* ncclras's communicator table (client_support.cc, rasClientRunComms):
 *   Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors
 *       #  in group  per comm  per node  per comm  in group
 *       0         1         1         1         1         1   RUNNING      OK
 * one row per group of alike communicators, until a blank line. */
static void ras_table_header(struct nccllog *lg, int file, uint64_t lineno)
{
	struct nl_insp *in = insp_state(lg);
	in->ras_table_file = file;
	in->ras_reports++;
	if (in->ras_hdr_file < 0) {
		in->ras_hdr_file = file;
		in->ras_hdr_line = lineno;
	}
}

static void ras_table_row(struct nl_insp *in, const char *s, size_t n)
{
	const char *tok[12];
	size_t len[12];
	int nt = 0;
	for (size_t i = 0; i < n && nt < 12;) {
		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r'))
			i++;
		if (i >= n)
			break;
		tok[nt] = s + i;
		while (i < n && s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
			i++;
		len[nt] = (size_t)(s + i - tok[nt]);
		nt++;
	}
	if (nt == 0) { /* the blank line after the table */
		in->ras_table_file = -1;
		return;
	}
	if (tok[0][0] == '#')
		return; /* the header's second line */
	if (nt != 8 || !is_digit(tok[0][0])) {
		in->ras_table_file = -1; /* not a table row: the table ended */
		return;
	}
	bool ok = len[6] == 7 && memcmp(tok[6], "RUNNING", 7) == 0 && len[7] == 2 && memcmp(tok[7], "OK", 2) == 0;
	in->ras_groups++;
	if (!ok)
		in->ras_groups_bad++;
	if (in->ras_groups == 1 || (!ok && in->ras_groups_bad == 1))
		snprintf(in->ras_status, sizeof(in->ras_status), "group %.*s: %.*s, errors %.*s", (int)len[0], tok[0],
			 (int)len[6], tok[6], (int)len[7], tok[7]);
}

bool nl_insp_ras_tables(const struct nccllog *lg, struct nl_ras_tables *t)
{
	const struct nl_insp *in = lg->insp;
	if (!in || in->ras_reports == 0)
		return false;
	*t = (struct nl_ras_tables){ .reports = in->ras_reports, .groups = in->ras_groups, .bad = in->ras_groups_bad,
				     .file = in->ras_hdr_file, .line = in->ras_hdr_line, .status = in->ras_status };
	return true;
}

bool nl_insp_detect(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	const struct nl_insp *in = lg->insp;
	(void)s, (void)n;
	return lineno == 1 || (in && in->file == file);
}

bool nl_insp_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	struct nl_insp *in = lg->insp;
	if (lineno == 1 && n > 8 && (s[0] == '{' || s[0] == 'n' || isspace((unsigned char)s[0]))) {
		int k = dump_kind(s, n);
		if (k >= 0) {
			in = insp_state(lg);
			in->file = file;
			in->kind = k;
			in->nfiles[k]++;
		}
	}
	if (in && in->file == file) {
		/* only what looks like a record: log lines after it (a dump and a
		 * log concatenated) stay log lines */
		size_t i = 0;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (in->kind == IN_JSON && i < n && s[i] == '{') {
			json_record(in, file, s, n, lineno);
			return true;
		}
		if (in->kind == IN_PROM && (starts(s + i, n - i, "nccl_") || (i < n && s[i] == '#'))) {
			prom_record(in, file, s, n, lineno);
			return true;
		}
		if (i == n)
			return true; /* blank */
	}
	return false;
}

void nl_insp_end_file(struct nccllog *lg, int file)
{
	struct nl_insp *in = lg->insp;
	if (in && in->file == file)
		in->file = -1;
}

/* ncclras text: a line that starts "Group ", '#' or a blank, and every
 * line of the communicator table being read */
bool nl_ras_detect(const struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	const struct nl_insp *in = lg->insp;
	(void)lineno;
	return (n && (s[0] == 'G' || s[0] == '#' || s[0] == ' ')) || (in && in->ras_table_file == file);
}

bool nl_ras_line(struct nccllog *lg, int file, const char *s, size_t n, uint64_t lineno)
{
	struct nl_insp *in = lg->insp;
	/* cheap tests on the first bytes only */
	if (s[0] == 'G' && n > 20 && starts(s, n, "Group ") && mem_has(s, n, " Status") && mem_has(s, n, " Errors")) {
		ras_table_header(lg, file, lineno);
		return false;
	}
	if (in && in->ras_table_file == file) {
		ras_table_row(in, s, n);
		return false;
	}
	if (n > 12 && (s[0] == '#' || (s[0] == ' ' && s[1] == ' ' && (s[2] == 'R' || s[2] == 'C' || is_digit(s[2])))))
		ras_text_line(lg, file, s, n, lineno);
	return false;
}

void nl_ras_end_file(struct nccllog *lg, int file)
{
	struct nl_insp *in = lg->insp;
	if (!in)
		return;
	if (in->ras_file == file) {
		in->ras_file = -1;
		in->ras_func[0] = '\0';
	}
	if (in->ras_table_file == file)
		in->ras_table_file = -1;
}

bool nl_insp_ras_json(struct nccllog *lg, int file, json_t *root)
{
	json_t *comms = json_object_get(root, "communicators");
	if (!json_is_array(comms) || !json_object_get(root, "nccl_version"))
		return false;
	struct nl_insp *in = insp_state(lg);
	in->nfiles[IN_RAS_JSON]++;
	size_t i, k;
	json_t *c, *r;
	json_array_foreach(comms, i, c) {
		json_t *ranks = json_object_get(c, "ranks");
		json_array_foreach(ranks, k, r) {
			json_t *cc = json_object_get(r, "collective_counts");
			if (!json_is_object(cc))
				continue;
			char gpu[24];
			snprintf(gpu, sizeof(gpu), "%lld", jint(r, "cuda_dev", -1));
			struct in_unit *u = nl_insp_unit(in, IN_RAS_JSON, jstr(c, "hash"), jint32(r, "rank", -1), jstr(r, "host"),
							 gpu, file);
			if (!u)
				continue;
			u->nranks = jint32(c, "size", -1);
			u->pid = (long)jint(r, "pid", -1);
			u->records++;
			const char *key;
			json_t *v;
			json_object_foreach(cc, key, v) {
				struct in_func *f = json_is_integer(v) ? nl_insp_func(u, key) : NULL;
				if (f)
					f->last = json_integer_value(v);
			}
		}
	}
	return true;
}

void nl_insp_free(struct nccllog *lg)
{
	struct nl_insp *in = lg->insp;
	if (!in)
		return;
	free(in->u);
	free(in);
	lg->insp = NULL;
}

int nl_insp_nunits(const struct nccllog *lg)
{
	const struct nl_insp *in = lg->insp;
	return in ? in->nu : 0;
}
