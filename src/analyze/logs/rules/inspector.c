/* NCCL log rules: NCCL Inspector dumps and ncclras operation counts
 * (read by logs/inputs/inspector.c), compared per communicator:
 *  - ranks of header.n_ranks with no record (Inspector);
 *  - per collective type, ranks whose count is below the others' (the
 *    job stopped there: they never launched, ncclras, or never completed,
 *    Inspector, what the others went on to), and ranks ahead in one type
 *    but behind in another (different collectives at the same point);
 *    one helper for both inputs (compare_counts);
 *  - the same collective and sequence number with different sizes;
 *  - bus bandwidth of the same collective, size and communicator size far
 *    below the other communicators' (or GPUs', for 2.30's aggregated
 *    Prometheus files). Within one communicator the ranks wait for each
 *    other, so a rank's own bandwidth there says when it arrived, not how
 *    fast its links are: that comparison is not made. */
#include "analyze/logs/inputs/inspector.h"
#include "analyze/logs/rules/rules.h"
#include "kb/findings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* Evidence text kept in the dump state (cause_evidence keeps pointers). */
static const char *keep(struct nl_insp *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static const char *keep(struct nl_insp *in, const char *fmt, ...)
{
	int k = in->ntext < (int)(sizeof(in->text) / sizeof(in->text[0])) ? in->ntext++ : in->ntext - 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(in->text[k], sizeof(in->text[k]), fmt, ap);
	va_end(ap);
	return in->text[k];
}

static const char *src_name(int src)
{
	switch (src) {
	case IN_JSON:
		return "NCCL Inspector";
	case IN_PROM:
		return "NCCL Inspector (Prometheus)";
	case IN_RAS_JSON:
		return "ncclras -f json";
	default:
		return "ncclras";
	}
}

/* "rank 6 (gpu-node-3, pid 40716, GPU 6)", "7 ranks", "node-b GPU3". */
static const char *unit_label(const struct in_unit *u, char *buf, size_t sz)
{
	if (u->group > 0) {
		snprintf(buf, sz, "%d ranks", u->group);
		return buf;
	}
	if (u->rank < 0) {
		snprintf(buf, sz, "%s%s of %s", strncmp(u->gpu, "GPU", 3) ? "GPU " : "", u->gpu, u->host[0] ? u->host : "?");
		return buf;
	}
	size_t o = (size_t)snprintf(buf, sz, "rank %d", u->rank);
	const char *sep = " (";
	if (u->host[0] && o < sz) {
		o += (size_t)snprintf(buf + o, sz - o, "%s%s", sep, u->host);
		sep = ", ";
	}
	if (u->pid >= 0 && o < sz) {
		o += (size_t)snprintf(buf + o, sz - o, "%spid %ld", sep, u->pid);
		sep = ", ";
	}
	if (u->gpu[0] && strcmp(u->gpu, "-1") != 0 && o < sz) {
		o += (size_t)snprintf(buf + o, sz - o, "%s%s%s", sep, strncmp(u->gpu, "GPU", 3) ? "GPU " : "", u->gpu);
		sep = ", ";
	}
	if (sep[0] == ',' && o < sz)
		snprintf(buf + o, sz - o, ")");
	return buf;
}

/* Short communicator name: "0x7f8c496ae9f661 (DP Group 0)". */
static const char *comm_label(const struct in_unit *u, char *buf, size_t sz)
{
	const char *colon = u->src == IN_RAS_TEXT ? strchr(u->comm, ':') : NULL;
	int n = colon ? (int)(colon - u->comm) : (int)strlen(u->comm);
	if (u->comm_name[0] && strcmp(u->comm_name, "unknown") != 0 && strcmp(u->comm_name, u->comm) != 0)
		snprintf(buf, sz, "%.*s (%s)", n, u->comm, u->comm_name);
	else
		snprintf(buf, sz, "%.*s", n, u->comm[0] ? u->comm : "?");
	return buf;
}

static struct nl_insp *g_in; /* for the qsort comparator */

static int cmp_unit(const void *x, const void *y)
{
	const struct in_unit *a = &g_in->u[*(const int *)x], *b = &g_in->u[*(const int *)y];
	if (a->src != b->src)
		return a->src - b->src;
	int c = strcmp(a->comm, b->comm);
	if (c)
		return c;
	return (a->rank > b->rank) - (a->rank < b->rank); /* ranks are read, any int: no subtraction */
}

static long long count_of_fn(const struct in_unit *u, const char *name)
{
	for (int i = 0; i < u->nfn; i++)
		if (strcmp(u->fn[i].name, name) == 0)
			return u->fn[i].last;
	return -1;
}

/* The collective types of a group, at most IN_MAX_FUNCS * 2. */
static int group_funcs(const struct in_unit *const *g, int n, const char *names[], int max)
{
	int nn = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < g[i]->nfn; k++) {
			bool seen = false;
			for (int j = 0; j < nn && !seen; j++)
				seen = strcmp(names[j], g[i]->fn[k].name) == 0;
			if (!seen && nn < max)
				names[nn++] = g[i]->fn[k].name;
		}
	return nn;
}

static const long long *g_key; /* for the qsort comparator: a count per unit */

static int cmp_by_key(const void *x, const void *y)
{
	long long a = g_key[*(const int *)x], b = g_key[*(const int *)y];
	return a < b ? -1 : a > b;
}

/* Ranks ahead in one type and behind in another: true when found. Per
 * pair of types (f, h), the units in order of their f count: a unit whose
 * h count is below the highest h count of the units with a smaller f count
 * crossed it. */
static bool counts_crossed(struct ana *a, struct nl_insp *in, const struct in_unit *const *g, int n, const char *names[],
			   int nn)
{
	long long *cnt = malloc(sizeof(long long) * (size_t)n * (size_t)nn);
	int *ord = malloc(sizeof(int) * (size_t)n);
	if (!cnt || !ord) {
		free(cnt);
		free(ord);
		return false;
	}
	for (int f = 0; f < nn; f++)
		for (int i = 0; i < n; i++)
			cnt[(size_t)f * (size_t)n + (size_t)i] = count_of_fn(g[i], names[f]);
	int x = -1, y = -1, fx = 0, hx = 0;
	for (int f = 0; f < nn && x < 0; f++)
		for (int h = 0; h < nn && x < 0; h++) {
			if (h == f)
				continue;
			const long long *cf = cnt + (size_t)f * (size_t)n, *ch = cnt + (size_t)h * (size_t)n;
			for (int i = 0; i < n; i++)
				ord[i] = i;
			g_key = cf;
			qsort(ord, (size_t)n, sizeof(int), cmp_by_key);
			int best = -1; /* highest h among units with a smaller f */
			for (int i = 0; i < n && x < 0;) {
				int j = i;
				while (j < n && cf[ord[j]] == cf[ord[i]])
					j++;
				for (int k = i; k < j && x < 0; k++)
					if (best >= 0 && ch[ord[k]] < ch[best])
						x = ord[k], y = best, fx = f, hx = h;
				for (int k = i; k < j; k++)
					if (best < 0 || ch[ord[k]] > ch[best])
						best = ord[k];
				i = j;
			}
		}
	free(ord);
	if (x < 0) {
		free(cnt);
		return false;
	}
	/* x: more of fx, fewer of hx than y */
	long long xf = cnt[(size_t)fx * (size_t)n + (size_t)x], xh = cnt[(size_t)hx * (size_t)n + (size_t)x];
	long long yf = cnt[(size_t)fx * (size_t)n + (size_t)y], yh = cnt[(size_t)hx * (size_t)n + (size_t)y];
	free(cnt);
	char l1[120], l2[120], cl[96];
	const char *t = keep(in, "%s comm %s: %s at %s %lld, %s %lld; %s at %s %lld, %s %lld", src_name(g[x]->src),
			     comm_label(g[x], cl, sizeof(cl)), unit_label(g[x], l1, sizeof(l1)), names[fx], xf, names[hx], xh,
			     unit_label(g[y], l2, sizeof(l2)), names[fx], yf, names[hx], yh);
	struct finding *fd = finding_add(a->r, FID_LOG_OPCOUNTS_CROSSED, SEV_ERROR,
					 "comm %s: %s and %s called different collectives (%s vs %s)", cl, l1, l2, names[fx],
					 names[hx]);
	finding_evidence(fd, file_name(a->lg, g[x]->file), (long)g[x]->line, "%s", t);
	cause_evidence(contribute(a, "collective_mismatch_app_bug", 0.85, FID_LOG_OPCOUNTS_CROSSED), g[x]->file, g[x]->line, t);
	return true;
}

/* The "behind the others" rule, for Inspector (completed collectives) and
 * ncclras (launched ones): per collective type the highest count of the
 * communicator; the ranks below it are where the job stopped. True when
 * it names ranks that stopped. */
static bool compare_counts(struct ana *a, struct nl_insp *in, const struct in_unit *const *g, int n)
{
	const char *names[IN_MAX_FUNCS * 2];
	int nn = group_funcs(g, n, names, IN_MAX_FUNCS * 2);
	if (n < 2 || nn == 0)
		return false;
	if (counts_crossed(a, in, g, n, names, nn))
		return true;
	bool completed = g[0]->src == IN_JSON || g[0]->src == IN_PROM;
	long long maxc[IN_MAX_FUNCS * 2];
	long long max_ts = 0;
	for (int f = 0; f < nn; f++) {
		maxc[f] = -1;
		for (int i = 0; i < n; i++) {
			long long c = count_of_fn(g[i], names[f]);
			if (c > maxc[f])
				maxc[f] = c;
		}
	}
	for (int i = 0; i < n; i++)
		if (g[i]->last_ts > max_ts)
			max_ts = g[i]->last_ts;
	int nbehind = 0, ranks_behind = 0, ranks_ahead = 0, first = -1;
	for (int i = 0; i < n; i++) {
		bool behind = false;
		for (int f = 0; f < nn && !behind; f++)
			behind = count_of_fn(g[i], names[f]) < maxc[f];
		int w = g[i]->group > 0 ? g[i]->group : 1;
		if (behind) {
			nbehind++;
			ranks_behind += w;
			if (first < 0)
				first = i;
		} else {
			ranks_ahead += w;
		}
	}
	if (!nbehind)
		return false;
	char l1[120], cl[96], what[160];
	const struct in_unit *u = g[first];
	int fb = 0;
	for (int f = 0; f < nn; f++)
		if (count_of_fn(u, names[f]) < maxc[f]) {
			fb = f;
			break;
		}
	comm_label(u, cl, sizeof(cl));
	if (completed)
		snprintf(what, sizeof(what), "last completed %s #%lld, the others' #%lld", names[fb], count_of_fn(u, names[fb]),
			 maxc[fb]);
	else
		snprintf(what, sizeof(what), "launched %lld %s, the others %lld", count_of_fn(u, names[fb]), names[fb], maxc[fb]);
	/* dumps that stopped earlier than the others' say the process stopped */
	bool stopped = completed && u->last_ts && max_ts - u->last_ts >= 1000000;
	bool majority = ranks_behind > ranks_ahead;
	struct finding *fd = finding_add(a->r, FID_LOG_RANKS_BEHIND, completed && !stopped ? SEV_WARNING : SEV_ERROR,
					 "comm %s: %s%s %s behind the others (%s)", cl, unit_label(u, l1, sizeof(l1)),
					 nbehind > 1 ? " and others" : "", nbehind > 1 || u->group > 1 ? "are" : "is", what);
	int shown = 0;
	for (int i = 0; i < n && shown < 8; i++) {
		for (int f = 0; f < nn; f++) {
			long long c = count_of_fn(g[i], names[f]);
			if (c >= maxc[f])
				continue;
			char ts[80] = "";
			if (completed && g[i]->last_ts && max_ts - g[i]->last_ts >= 1000000)
				snprintf(ts, sizeof(ts), "; its last dump %.1f s before the others' last",
					 (double)(max_ts - g[i]->last_ts) / 1e6);
			if (completed)
				finding_evidence(fd, file_name(a->lg, g[i]->file), (long)g[i]->line,
						 "%s: last completed %s #%lld, the others' #%lld%s", unit_label(g[i], l1, sizeof(l1)),
						 names[f], c, maxc[f], ts);
			else
				finding_evidence(fd, file_name(a->lg, g[i]->file), (long)g[i]->line, "%s: launched %lld %s, the others %lld",
						 unit_label(g[i], l1, sizeof(l1)), c, names[f], maxc[f]);
			shown++;
			break;
		}
	}
	if (completed && !stopped)
		finding_evidence(fd, NULL, 0, "Inspector writes its records every NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS: "
					      "a lag of a few collectives is also seen in a job that is still running");
	const char *t = keep(in, "%s comm %s: %s behind (%s)", src_name(u->src), cl, unit_label(u, l1, sizeof(l1)), what);
	if (completed) {
		cause_evidence(contribute(a, "peer_died_or_oom", stopped ? 0.5 : 0.3, FID_LOG_RANKS_BEHIND), u->file, u->line, t);
	} else if (majority) {
		/* most ranks lag one that launched more: it called what they did not */
		cause_evidence(contribute(a, "collective_mismatch_app_bug", 0.4, FID_LOG_RANKS_BEHIND), u->file, u->line, t);
	} else {
		cause_evidence(contribute(a, "peer_died_or_oom", 0.35, FID_LOG_RANKS_BEHIND), u->file, u->line, t);
		cause_evidence(contribute(a, "collective_mismatch_app_bug", 0.3, FID_LOG_RANKS_BEHIND), u->file, u->line, t);
	}
	return !completed || stopped;
}

/* The same collective type and sequence number with different sizes. */
static bool size_mismatch(struct ana *a, struct nl_insp *in, const struct in_unit *const *g, int n)
{
	const char *names[IN_MAX_FUNCS * 2];
	int nn = group_funcs(g, n, names, IN_MAX_FUNCS * 2);
	char l1[120], l2[120], cl[96];
	for (int f = 0; f < nn; f++)
		for (int k = 0; k < IN_SLOTS; k++) {
			const struct in_unit *ref = NULL;
			const struct in_func *rf = NULL;
			for (int i = 0; i < n; i++) {
				const struct in_func *fn = NULL;
				for (int j = 0; j < g[i]->nfn; j++)
					if (strcmp(g[i]->fn[j].name, names[f]) == 0)
						fn = &g[i]->fn[j];
				if (!fn || fn->slot_sn[k] < 0)
					continue;
				if (!ref) {
					ref = g[i], rf = fn;
					continue;
				}
				if (fn->slot_sn[k] != rf->slot_sn[k] || fn->slot_size[k] == rf->slot_size[k])
					continue;
				const char *t = keep(in, "Inspector comm %s: %s #%lld of %llu bytes on %s, %llu bytes on %s",
						     comm_label(ref, cl, sizeof(cl)), names[f], rf->slot_sn[k], rf->slot_size[k],
						     unit_label(ref, l1, sizeof(l1)), fn->slot_size[k], unit_label(g[i], l2, sizeof(l2)));
				struct finding *fd = finding_add(a->r, FID_LOG_INSPECTOR_SIZE_MISMATCH, SEV_ERROR,
								 "comm %s: %s #%lld has %llu bytes on %s but %llu on %s", cl, names[f],
								 rf->slot_sn[k], rf->slot_size[k], l1, fn->slot_size[k], l2);
				finding_evidence(fd, file_name(a->lg, g[i]->file), (long)g[i]->line, "%s", t);
				cause_evidence(contribute(a, "collective_mismatch_app_bug", 0.8, FID_LOG_INSPECTOR_SIZE_MISMATCH),
					       g[i]->file, g[i]->line, t);
				return true;
			}
		}
	return false;
}

/* Ranks of header.n_ranks with no record; true when some are missing. */
static bool missing_ranks(struct ana *a, struct nl_insp *in, const struct in_unit *const *g, int n)
{
	int nranks = -1, nnodes = -1;
	for (int i = 0; i < n; i++) {
		if (g[i]->rank < 0)
			return false;
		if (g[i]->nranks > nranks)
			nranks = g[i]->nranks;
		if (g[i]->nnodes > nnodes)
			nnodes = g[i]->nnodes;
	}
	if (nranks <= n || nranks > 1 << 20)
		return false;
	char list[120] = "", cl[96];
	size_t o = 0;
	int nmiss = 0, nhosts = 0, next = 0, present = 0;
	const char *hosts[8];
	for (int i = 0; i < n; i++) {
		bool seen = false;
		for (int h = 0; h < nhosts && !seen; h++)
			seen = strcmp(hosts[h], g[i]->host) == 0;
		if (!seen && nhosts < 8)
			hosts[nhosts++] = g[i]->host;
	}
	/* the missing ranks counted, the first ones listed (n_ranks is read:
	 * 2^20 of 4096 communicators is no walk over every rank) */
	for (int i = 0; i < n; i++)
		present += g[i]->rank < nranks && (i == 0 || g[i]->rank != g[i - 1]->rank); /* g is sorted by rank */
	int miss = nranks - present;
	for (int r = 0; r < nranks && nmiss < miss; r++) {
		while (next < n && g[next]->rank < r)
			next++;
		if (next < n && g[next]->rank == r)
			continue;
		if (o + 12 < sizeof(list))
			o += (size_t)snprintf(list + o, sizeof(list) - o, "%s%d", nmiss ? ", " : "", r);
		else if (o + 4 < sizeof(list) && list[o - 1] != '.')
			o += (size_t)snprintf(list + o, sizeof(list) - o, ", ...");
		else
			break; /* the list is full: the rest are counted */
		nmiss++;
	}
	nmiss = miss;
	/* dumps of fewer nodes than the communicator spans: directories left out */
	bool partial = nnodes > nhosts;
	comm_label(g[0], cl, sizeof(cl));
	struct finding *fd = finding_add(a->r, FID_LOG_INSPECTOR_MISSING_RANKS, partial ? SEV_WARNING : SEV_ERROR,
					 "comm %s: no Inspector record from rank%s %s (%d of %d ranks seen)", cl, nmiss == 1 ? "" : "s",
					 list, n, nranks);
	if (partial)
		finding_evidence(fd, NULL, 0, "the communicator spans %d nodes, the dumps come from %d host%s: give every "
					      "node's NCCL_INSPECTOR_DUMP_DIR", nnodes, nhosts, nhosts == 1 ? "" : "s");
	finding_evidence(fd, file_name(a->lg, g[0]->file), (long)g[0]->line, "header.n_ranks %d, records from %d rank%s", nranks, n,
			 n == 1 ? "" : "s");
	const char *t = keep(in, "Inspector comm %s: no record from rank%s %s", cl, nmiss == 1 ? "" : "s", list);
	cause_evidence(contribute(a, "peer_died_or_oom", partial ? 0.15 : 0.45, FID_LOG_INSPECTOR_MISSING_RANKS), g[0]->file,
		       g[0]->line, t);
	return !partial;
}

/* Where each communicator stands (the summary finding). */
static void summary(struct ana *a, struct nl_insp *in, const int *idx, int nu)
{
	uint64_t recs = 0;
	int ncomm = 0, nranks = 0;
	for (int i = 0; i < nu; i++) {
		const struct in_unit *u = &in->u[idx[i]];
		if (u->src != IN_JSON && u->src != IN_PROM)
			continue;
		recs += u->records;
		nranks++;
		ncomm += i == 0 || strcmp(in->u[idx[i - 1]].comm, u->comm) != 0 || in->u[idx[i - 1]].src != u->src;
	}
	int nf = in->nfiles[IN_JSON] + in->nfiles[IN_PROM];
	if (!nf)
		return;
	struct finding *f = finding_add(a->r, FID_LOG_INSPECTOR_SUMMARY, in->bad ? SEV_WARNING : SEV_INFO,
					"%d NCCL Inspector dump%s: %llu record%s from %d rank%s of %d communicator%s", nf,
					nf == 1 ? "" : "s", (unsigned long long)recs, recs == 1 ? "" : "s", nranks,
					nranks == 1 ? "" : "s", ncomm, ncomm == 1 ? "" : "s");
	if (in->bad)
		finding_evidence(f, file_name(a->lg, in->bad_file), (long)in->bad_line, "%llu line%s of the dumps could not be read",
				 (unsigned long long)in->bad, in->bad == 1 ? "" : "s");
	if (in->dropped)
		finding_evidence(f, NULL, 0, "records of %u ranks beyond the first %d were not analysed", in->dropped, IN_MAX_UNITS);
	char cl[96];
	for (int i = 0; i < nu && f->nev < 16;) {
		const struct in_unit *u = &in->u[idx[i]];
		int j = i;
		long long lo = -1, hi = -1;
		while (j < nu && in->u[idx[j]].src == u->src && strcmp(in->u[idx[j]].comm, u->comm) == 0) {
			const struct in_unit *v = &in->u[idx[j]];
			if (u->nfn > 0) {
				long long c = count_of_fn(v, u->fn[0].name);
				lo = lo < 0 || c < lo ? c : lo;
				hi = c > hi ? c : hi;
			}
			j++;
		}
		char of[24] = "?", last[96] = "";
		if (u->nranks >= 0)
			snprintf(of, sizeof(of), "%d", u->nranks);
		if (u->nfn && hi >= 0 && lo < hi)
			snprintf(last, sizeof(last), "; last %s #%lld (lowest rank at #%lld)", u->fn[0].name, hi, lo);
		else if (u->nfn && hi >= 0)
			snprintf(last, sizeof(last), "; last %s #%lld on every rank", u->fn[0].name, hi);
		if (u->src == IN_PROM && u->rank < 0) /* 2.30: per GPU, aggregated */
			finding_evidence(f, file_name(a->lg, u->file), 0, "comm %s: metrics of %d GPU%s (aggregated, no rank)",
					 comm_label(u, cl, sizeof(cl)), j - i, j - i == 1 ? "" : "s");
		else if (u->src == IN_JSON || u->src == IN_PROM)
			finding_evidence(f, file_name(a->lg, u->file), 0, "comm %s: %d of %s ranks on %d node%s%s",
					 comm_label(u, cl, sizeof(cl)), j - i, of, u->nnodes, u->nnodes == 1 ? "" : "s", last);
		i = j;
	}
}

/* "4194304" or a Prometheus bucket "4-5GB": bytes, 0 unknown. */
static double size_bytes(const char *s)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s)
		return 0;
	const char *u = s + strlen(s);
	while (u > s && ((u[-1] >= 'A' && u[-1] <= 'Z') || (u[-1] >= 'a' && u[-1] <= 'z')))
		u--;
	double m = strncasecmp(u, "GB", 2) == 0 ? 1e9 : strncasecmp(u, "MB", 2) == 0 ? 1e6 : strncasecmp(u, "KB", 2) == 0 ? 1e3 : 1;
	return v * m;
}

struct bw_row {
	int ent;                  /* the communicator (or GPU) compared */
	int unit;                 /* a unit of it, for labels */
	const char *coll, *size;
	int nranks, nnodes;
	double v;                 /* median over its ranks of their mean busbw */
};

static int cmp_row(const void *x, const void *y)
{
	const struct bw_row *a = x, *b = y;
	int c = strcmp(a->coll, b->coll);
	if (!c)
		c = strcmp(a->size, b->size);
	if (!c)
		c = (a->nranks > b->nranks) - (a->nranks < b->nranks);
	if (!c)
		c = (a->nnodes > b->nnodes) - (a->nnodes < b->nnodes);
	return c ? c : (a->v < b->v ? -1 : a->v > b->v);
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

#define MAX_ROWS 8192
#define MAX_RUN 256

/* The rows of one entity (units idx[i0..i1)): one per (collective, size). */
static int entity_rows(struct nl_insp *in, const int *idx, int i0, int i1, int ent, struct bw_row *rows, int nrows)
{
	double vals[MAX_RUN];
	const struct in_unit *u0 = &in->u[idx[i0]];
	for (int b = 0; b < u0->nbw && nrows < MAX_ROWS; b++) {
		int nv = 0;
		for (int i = i0; i < i1 && nv < MAX_RUN; i++) {
			const struct in_unit *u = &in->u[idx[i]];
			for (int k = 0; k < u->nbw; k++)
				if (u->bw[k].n > 0 && strcmp(u->bw[k].coll, u0->bw[b].coll) == 0 &&
				    strcmp(u->bw[k].size, u0->bw[b].size) == 0)
					vals[nv++] = u->bw[k].sum / (double)u->bw[k].n;
		}
		if (!nv)
			continue;
		qsort(vals, (size_t)nv, sizeof(double), cmp_dbl);
		rows[nrows++] = (struct bw_row){ ent, idx[i0], u0->bw[b].coll, u0->bw[b].size, u0->nranks, u0->nnodes, vals[nv / 2] };
	}
	return nrows;
}

/* The hosts of an entity, "node-a, node-b". */
static void entity_hosts(struct nl_insp *in, const int *idx, int nu, int unit, char *out, size_t outsz)
{
	const struct in_unit *u0 = &in->u[unit];
	size_t o = 0;
	int nh = 0;
	out[0] = '\0';
	for (int i = 0; i < nu && nh < 4; i++) {
		const struct in_unit *u = &in->u[idx[i]];
		if (u->src != u0->src || strcmp(u->comm, u0->comm) != 0 || (u0->rank < 0 && u != u0) || strstr(out, u->host))
			continue;
		o += (size_t)snprintf(out + o, outsz - o, "%s%s", nh ? ", " : "", u->host);
		nh++;
		if (o >= outsz)
			break;
	}
}

/* Bus bandwidth far below the other communicators' (or GPUs') of the same
 * collective, size and communicator size. */
static void insp_slow(struct ana *a, struct nl_insp *in, const int *idx, int nu)
{
	/* a row per bandwidth bucket at most: no 400 KB for a dump of counts */
	size_t want = 0;
	for (int i = 0; i < nu && want < MAX_ROWS; i++)
		want += (size_t)in->u[idx[i]].nbw;
	if (want == 0)
		return;
	struct bw_row *rows = malloc(sizeof(*rows) * (want < MAX_ROWS ? want : MAX_ROWS));
	if (!rows)
		return;
	int nrows = 0, nent = 0;
	for (int i = 0; i < nu;) {
		const struct in_unit *u = &in->u[idx[i]];
		int j = i + 1;
		/* 2.30's Prometheus files aggregate per GPU: each is its own entity */
		if (!(u->src == IN_PROM && u->rank < 0))
			while (j < nu && in->u[idx[j]].src == u->src && strcmp(in->u[idx[j]].comm, u->comm) == 0)
				j++;
		if (u->src == IN_JSON || u->src == IN_PROM)
			nrows = entity_rows(in, idx, i, j, nent++, rows, nrows);
		i = j;
	}
	qsort(rows, (size_t)nrows, sizeof(*rows), cmp_row);
	int reported = 0;
	double others[MAX_RUN];
	char cl[96], hosts[160];
	for (int i = 0; i < nrows && reported < 4;) {
		int j = i + 1;
		while (j < nrows && strcmp(rows[j].coll, rows[i].coll) == 0 && strcmp(rows[j].size, rows[i].size) == 0 &&
		       rows[j].nranks == rows[i].nranks && rows[j].nnodes == rows[i].nnodes)
			j++;
		double bytes = size_bytes(rows[i].size);
		if (j - i >= 2 && j - i <= MAX_RUN && (bytes == 0 || bytes >= 1e6)) {
			/* the slowest row (sorted first) against the median of the others */
			int no = 0;
			for (int k = i + 1; k < j; k++)
				others[no++] = rows[k].v;
			double med = others[no / 2];
			const struct bw_row *r = &rows[i];
			if (med > 0 && r->v < 0.5 * med && !finding_get(a->r, FID_LOG_INSPECTOR_SLOW)) {
				const struct in_unit *u = &in->u[r->unit];
				entity_hosts(in, idx, nu, r->unit, hosts, sizeof(hosts));
				bool gpu = u->src == IN_PROM && u->rank < 0;
				if (gpu)
					snprintf(cl, sizeof(cl), "GPU %s of %s", u->gpu, u->host);
				else
					comm_label(u, cl, sizeof(cl));
				const char *t = keep(in, "Inspector: %s%s%s%s: %s of %s bytes at %.1f GB/s busbw, the other %d at %.1f GB/s (median)",
						     gpu ? "" : "comm ", cl, gpu ? "" : " on ", gpu ? "" : hosts, r->coll, r->size, r->v,
						     no, med);
				struct finding *f = finding_add(a->r, FID_LOG_INSPECTOR_SLOW, SEV_WARNING,
								"%s%s%s%s: %s %s at %.1f GB/s, %.1fx below the others (%.1f GB/s)",
								gpu ? "" : "comm ", cl, gpu ? "" : " on ", gpu ? "" : hosts, r->coll,
								r->size, r->v, r->v > 0 ? med / r->v : 0.0, med);
				finding_evidence(f, file_name(a->lg, u->file), (long)u->line, "%s", t);
				finding_evidence(f, NULL, 0, "compared: %d %s of %d ranks on %d node%s running %s of %s bytes", no + 1,
						 gpu ? "GPUs" : "communicators", r->nranks, r->nnodes, r->nnodes == 1 ? "" : "s", r->coll,
						 r->size);
				if (u->nnodes > 1) {
					cause_evidence(contribute(a, "ib_rdma_config", 0.3, FID_LOG_INSPECTOR_SLOW), u->file, u->line, t);
				} else {
					cause_evidence(contribute(a, "gpu_hardware", 0.3, FID_LOG_INSPECTOR_SLOW), u->file, u->line, t);
					cause_evidence(contribute(a, "p2p_pcie_acs_iommu", 0.2, FID_LOG_INSPECTOR_SLOW), u->file, u->line, t);
				}
				reported++;
			}
		}
		i = j;
	}
	free(rows);
}

void inspector_counts(struct ana *a)
{
	struct nl_insp *in = a->lg->insp;
	if (!in || !in->nu)
		return;
	int *idx = malloc(sizeof(int) * (size_t)in->nu);
	const struct in_unit **g = malloc(sizeof(*g) * (size_t)in->nu);
	if (!idx || !g) {
		free(idx);
		free(g);
		return;
	}
	for (int i = 0; i < in->nu; i++)
		idx[i] = i;
	g_in = in;
	qsort(idx, (size_t)in->nu, sizeof(int), cmp_unit);
	summary(a, in, idx, in->nu);
	for (int i = 0; i < in->nu;) {
		const struct in_unit *u = &in->u[idx[i]];
		int n = 0;
		while (i + n < in->nu && in->u[idx[i + n]].src == u->src && strcmp(in->u[idx[i + n]].comm, u->comm) == 0) {
			g[n] = &in->u[idx[i + n]];
			n++;
		}
		bool f = false;
		if (u->src == IN_JSON || (u->src == IN_PROM && u->rank >= 0)) {
			f |= missing_ranks(a, in, g, n);
			f |= size_mismatch(a, in, g, n);
		}
		f |= compare_counts(a, in, g, n);
		if (f)
			a->failed = true;
		i += n;
	}
	insp_slow(a, in, idx, in->nu);
	free(idx);
	free(g);
}
