/* bench's formulas and nccl-tests' text format (see bench.h). The printf
 * formats are those of nccl-tests' src/util.cu (writeDeviceReport,
 * writeResultHeader, writeBenchmarkLinePreamble/Body, writeResultFooter),
 * trailing spaces included, since scrapers split these lines on blanks. */
#include "analyze/bench.h"
#include "util/xalloc.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int bench_parse_size(const char *s, uint64_t *out)
{
	if (!s || !*s)
		return -EINVAL;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	while (*end == ' ')
		end++;
	double unit = 1;
	switch (*end) {
	case 'K': case 'k': unit = 1024.0; end++; break;
	case 'M': case 'm': unit = 1024.0 * 1024; end++; break;
	case 'G': case 'g': unit = 1024.0 * 1024 * 1024; end++; break;
	case '\0': break;
	default: return -EINVAL;
	}
	if (*end == 'B' || *end == 'b') /* "512MB", "8b" */
		end++;
	if (*end)
		return -EINVAL;
	v *= unit;
	if (v > (double)(1ULL << 50))
		return -EINVAL;
	*out = (uint64_t)v;
	return 0;
}

int bench_sizes(uint64_t min, uint64_t max, uint64_t step, uint64_t factor, uint64_t *out, int cap)
{
	if (min > max || (factor <= 1 && step == 0))
		return -EINVAL;
	int n = 0;
	for (uint64_t s = min; s <= max;) {
		if (n >= cap)
			return -EINVAL;
		out[n++] = s;
		uint64_t next = factor > 1 ? s * factor : s + step;
		if (next <= s) /* 0 * factor, or overflow */
			break;
		s = next;
	}
	return n;
}

double bench_bus_factor(int op, int nranks)
{
	double n = nranks > 0 ? nranks : 1;
	switch (op) {
	case BOP_ALL_REDUCE: return 2.0 * (n - 1) / n;
	case BOP_ALL_GATHER:
	case BOP_REDUCE_SCATTER:
	case BOP_ALLTOALL:
	case BOP_ALLTOALLV:
	case BOP_GATHER:
	case BOP_SCATTER: return (n - 1) / n;
	default: return 1.0; /* broadcast, reduce, sendrecv, hypercube */
	}
}

void bench_bw(int op, size_t count, size_t elem_size, double sec, int nranks, double *algbw, double *busbw)
{
	double n = nranks > 0 ? nranks : 1, bytes = (double)count * (double)elem_size;
	switch (op) {
	case BOP_ALL_GATHER:
	case BOP_REDUCE_SCATTER:
	case BOP_ALLTOALL:
	case BOP_GATHER:
	case BOP_SCATTER:
		bytes *= n;
		break;
	case BOP_HYPERCUBE: /* what each rank receives */
		bytes *= n - 1;
		break;
	case BOP_ALLTOALLV: { /* the most one rank sends or receives (nccl-tests' AlltoAllvGetBw) */
		size_t send, recv;
		bench_alltoallv_max((int)n, count * (size_t)n * elem_size, elem_size, &send, &recv);
		bytes = (double)(send > recv ? send : recv) * (double)elem_size;
		break;
	}
	default:
		break;
	}
	double a = sec > 0 ? bytes / 1.0E9 / sec : 0;
	*algbw = a;
	*busbw = a * bench_bus_factor(op, nranks);
}

double bench_combine(const double *t, int n, int mode)
{
	if (n <= 0)
		return 0;
	double acc = t[0];
	for (int i = 1; i < n; i++) {
		switch (mode) {
		case 0: break;
		case 2: acc = t[i] < acc ? t[i] : acc; break;
		case 3: acc = t[i] > acc ? t[i] : acc; break;
		default: acc += t[i]; break;
		}
	}
	return mode == 1 ? acc / n : acc;
}

void bench_float_str(double v, int width, char *out)
{
	size_t sz = (size_t)width + 1;
	if (snprintf(out, sz, "%*.2f", width, v) <= width)
		return;
	if (snprintf(out, sz, "%*.1f", width, v) <= width)
		return;
	if (snprintf(out, sz, "%*.0f", width, v) <= width)
		return;
	snprintf(out, sz, width >= 7 ? "%*.1e" : "%*.0e", width, v);
}

void bench_text_preamble(struct strbuf *sb, const struct bench_header *h)
{
	strbuf_addf(sb, "# nccl-tests version %s nccl-headers=%d nccl-library=%d\n", h->version, h->nccl_version,
		    h->nccl_version);
	strbuf_addf(sb, "# Collective test starting: %s\n", h->program);
	strbuf_addf(sb,
		    "# nThread %d nGpus %d minBytes %llu maxBytes %llu step: %llu(%s) warmup iters: %d iters: %d agg iters: %d "
		    "validation: %d graph: %d unalign: %d\n",
		    h->nthreads, h->ngpus, (unsigned long long)h->min_bytes, (unsigned long long)h->max_bytes,
		    (unsigned long long)(h->step_factor > 1 ? h->step_factor : h->step_bytes),
		    h->step_factor > 1 ? "factor" : "bytes", h->warmup, h->iters, h->agg, h->check, h->graph, h->unalign);
	/* nccl-tests' lines for -z, -I and -p, word for word */
	if (h->blocking == 1)
		strbuf_adds(sb, "# Blocking Enabled: wait and barrier after each inner iteration (-m) \n");
	if (h->blocking == 2)
		strbuf_adds(sb, "# Blocking Enabled: wait after each inner iteration (-m), no barrier \n");
	if (h->blocking == 3)
		strbuf_adds(sb, "# Blocking Enabled: wait and barrier after each outer iteration (-n); time excludes barrier \n");
	if (h->per_iter) {
		strbuf_adds(sb, "# Per-Iteration Report: CUDA event timing; i_* uses max over process rows");
		if (h->per_iter_skip)
			strbuf_addf(sb, "; summary skips first %d iterations", h->per_iter_skip);
		strbuf_adds(sb, " \n");
	}
	if (h->parallel_init)
		strbuf_adds(sb, "# Parallel Init Enabled: threads call into NcclInitRank concurrently \n");
	strbuf_adds(sb, "#\n# Using devices\n");
}

void bench_text_device(struct strbuf *sb, int rank, int group, int pid, const char *host, int device, const char *busid,
		       const char *name)
{
	unsigned dom = 0, bus = 0, dev = 0;
	if (!busid || sscanf(busid, "%x:%x:%x", &dom, &bus, &dev) != 3)
		dom = bus = dev = 0;
	strbuf_addf(sb, "#  Rank %2d Group %2d Pid %6d on %10s device %2d [%04x:%02x:%02x] %s\n", rank, group, pid,
		    host ? host : "", device, dom, bus, dev, name ? name : "");
}

void bench_text_columns(struct strbuf *sb, bool cputime, bool per_iter, bool timestamps)
{
	const char *t = cputime ? "cputime" : "time";
	const char *ts = timestamps ? "timestamp" : "", *tsf = timestamps ? "%Y-%m-%d %H:%M:%S" : "";
	int tsw = timestamps ? 19 : 0;
	strbuf_adds(sb, "#\n");
	if (per_iter) {
		strbuf_addf(sb, "# %10s  %12s  %8s  %6s  %6s              out-of-place (+ per-iteration)                "
				"                in-place (+ per-iteration)\n", "", "", "", "", "");
		strbuf_addf(sb, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  "
				"%7s  %7s  %7s  %7s %*s\n", "size", "count", "type", "redop", "root", t, "algbw", "busbw",
			    "#wrong", "i_min", "i_max", "i_p99", "i_cv%", t, "algbw", "busbw", "#wrong", "i_min", "i_max",
			    "i_p99", "i_cv%", tsw, ts);
		strbuf_addf(sb, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %7s  %7s  %7s  %7s  %6s  %6s  %6s  "
				"%7s  %7s  %7s  %7s %*s\n", "(B)", "(elements)", "", "", "", "(us)", "(GB/s)", "(GB/s)", "",
			    "(us)", "(us)", "(us)", "(%)", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(us)", "(us)", "(%)", tsw,
			    tsf);
		return;
	}
	strbuf_addf(sb, "# %10s  %12s  %8s  %6s  %6s           out-of-place                       in-place          \n", "", "",
		    "", "", "");
	strbuf_addf(sb, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "size", "count", "type",
		    "redop", "root", t, "algbw", "busbw", "#wrong", t, "algbw", "busbw", "#wrong", tsw, ts);
	strbuf_addf(sb, "# %10s  %12s  %8s  %6s  %6s  %7s  %6s  %6s  %6s  %7s  %6s  %6s  %6s %*s\n", "(B)", "(elements)", "",
		    "", "", "(us)", "(GB/s)", "(GB/s)", "", "(us)", "(GB/s)", "(GB/s)", "", tsw, tsf);
}

void bench_text_timestamp(struct strbuf *sb)
{
	char buf[64];
	time_t now = time(NULL);
	struct tm tm;
	if (!localtime_r(&now, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		buf[0] = 0;
	strbuf_addf(sb, "%21s", buf);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* nearest rank: the smallest sample with at least pct % of them at or below */
static int pct_index(int n, int pct)
{
	int i = (n * pct + 99) / 100 - 1;
	return i < n - 1 ? i : n - 1;
}

void bench_iter_stats(const double *t, int n, struct bench_iter_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (n <= 0)
		return;
	double *s = xmalloc((size_t)n * sizeof(*s));
	memcpy(s, t, (size_t)n * sizeof(*s));
	qsort(s, (size_t)n, sizeof(*s), cmp_double);
	st->min = s[0], st->max = s[n - 1], st->p50 = s[n / 2];
	st->p95 = s[pct_index(n, 95)], st->p99 = s[pct_index(n, 99)];
	double sum = 0, var = 0;
	for (int i = 0; i < n; i++)
		sum += s[i];
	st->avg = sum / n;
	for (int i = 0; i < n; i++)
		var += (s[i] - st->avg) * (s[i] - st->avg);
	st->stdev = sqrt(var / n);
	st->cv_pct = st->avg > 0 ? st->stdev / st->avg * 100.0 : 0.0;
	free(s);
}

void bench_text_iter(struct strbuf *sb, const struct bench_iter_stats *st)
{
	char a[8], b[8], c[8], d[8];
	bench_float_str(st->min * 1e6, 7, a);
	bench_float_str(st->max * 1e6, 7, b);
	bench_float_str(st->p99 * 1e6, 7, c);
	bench_float_str(st->cv_pct, 7, d);
	strbuf_addf(sb, "  %7s  %7s  %7s  %7s", a, b, c, d);
}

static void cell(struct strbuf *sb, const struct bench_cell *c)
{
	char t[8], a[7], b[7];
	bench_float_str(c->time_us, 7, t);
	bench_float_str(c->algbw, 6, a);
	bench_float_str(c->busbw, 6, b);
	if (c->wrong >= 0)
		strbuf_addf(sb, "  %7s  %6s  %6s  %6g", t, a, b, (double)c->wrong);
	else
		strbuf_addf(sb, "  %7s  %6s  %6s    N/A", t, a, b);
}

void bench_text_row(struct strbuf *sb, uint64_t bytes, uint64_t count, const char *type, const char *redop, int root,
		    const struct bench_cell *oop, const struct bench_cell *ip, bool timestamp, const char *const mid[2])
{
	char rootname[16];
	snprintf(rootname, sizeof(rootname), "%6i", root);
	strbuf_addf(sb, "%12lli  %12lli  %8s  %6s  %6s", (long long)bytes, (long long)count, type, redop, rootname);
	if (oop && oop->present) {
		if (mid && mid[0])
			strbuf_adds(sb, mid[0]);
		cell(sb, oop);
		if (oop->has_iter)
			bench_text_iter(sb, &oop->iter);
		if (ip && ip->present) {
			if (mid && mid[1])
				strbuf_adds(sb, mid[1]);
			cell(sb, ip);
			if (ip->has_iter)
				bench_text_iter(sb, &ip->iter);
			if (timestamp)
				bench_text_timestamp(sb);
		}
	}
	strbuf_addch(sb, '\n');
}

void bench_text_footer(struct strbuf *sb, int errors, double avg_busbw, double min_bw, const char *program)
{
	strbuf_addf(sb, "# %-20s : %d %s\n", "Out of bounds values", errors, errors ? "FAILED" : "OK");
	strbuf_addf(sb, "# %-20s : %g %s\n", "Avg bus bandwidth", avg_busbw,
		    min_bw < 0 ? "" : avg_busbw < min_bw * 0.9 ? "FAILED" : "OK");
	strbuf_adds(sb, "#\n");
	strbuf_addf(sb, "# Collective test concluded: %s\n", program);
}

/* nccl-tests' getMemString: B, KB, MB, GB (binary), 2 decimals under 10,
 * 1 under 100, else none */
static void mem_str(struct strbuf *sb, long long bytes)
{
	double v = (double)bytes;
	const char *unit = " B";
	if (fabs(v) >= 1024.0 * 1024 * 1024)
		v /= 1024.0 * 1024 * 1024, unit = " GB";
	else if (fabs(v) >= 1024.0 * 1024)
		v /= 1024.0 * 1024, unit = " MB";
	else if (fabs(v) >= 1024.0)
		v /= 1024.0, unit = " KB";
	strbuf_addf(sb, "%.*f%s", fabs(v) < 10 ? 2 : fabs(v) < 100 ? 1 : 0, v, unit);
}

void bench_text_memory(struct strbuf *sb, const long long mem[3])
{
	static const char *const names[3] = { "Initialization", "User-Allocated", "Collective" };
	strbuf_addf(sb, "# %-20s : ", "GPU memory usage");
	for (int i = 0; i < 3; i++) {
		strbuf_addf(sb, "%s ", names[i]);
		mem_str(sb, mem[i]);
		strbuf_adds(sb, " | ");
	}
	strbuf_adds(sb, "Total  ");
	mem_str(sb, mem[0] + mem[1] + mem[2]);
	strbuf_addch(sb, '\n');
}

int bench_parse_algo(const char *line, unsigned long long *bytes, char *ap, size_t apsz)
{
	const char *m = strstr(line, " NCCL INFO ");
	if (!m)
		return -1;
	char func[64], algo[32], proto[32];
	if (sscanf(m + 11, "%63[A-Za-z]: %llu Bytes -> Algo %31s proto %31s", func, bytes, algo, proto) != 4)
		return -1;
	snprintf(ap, apsz, "%s/%s", algo, proto);
	return 0;
}

int bench_parse_via(const char *line, int *src, int *dst, char *kind, size_t kindsz)
{
	const char *m = strstr(line, " NCCL INFO Channel ");
	const char *c = m ? strstr(m, " : ") : NULL;
	const char *v = c ? strstr(c, " via ") : NULL;
	if (!v)
		return -1;
	char k[64];
	if (sscanf(c + 3, "%d[%*[^]]] -> %d[", src, dst) != 2 || sscanf(v + 5, "%63s", k) != 1)
		return -1;
	snprintf(kind, kindsz, "%s", k);
	return 0;
}
