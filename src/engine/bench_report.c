/* bench's output: nccl-tests' text (analyze/bench.h) followed by our own
 * "# nccl-doctor:" comment lines (per-rank NCCL version, init time,
 * transports; the hang or failure), nccl-tests' JSON file for -J, and the
 * result model for --json (docs/json.md). */
#include "engine/bench.h"
#include "kb/findings.h"
#include "report/report.h"
#include "util/envfilter.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* size and count columns of a row, as nccl-tests prints them */
static void row_sizes(const struct bench_run *br, int row, uint64_t *bytes, uint64_t *count)
{
	const struct bench_opts *o = br->o;
	int type, redop, root;
	uint64_t size;
	bench_row_config(o, row, &type, &redop, &root, &size);
	size_t es = bench_type_size(type);
	struct bench_geom g;
	bench_geometry(o->op, (size_t)(size / es), es, bench_comm_ranks(o), &g);
	*bytes = (uint64_t)((g.send_count > g.recv_count ? g.send_count : g.recv_count) * es);
	*count = g.param_count;
}

/* type, reduction (the op's no_redop without one) and root (-1 without
 * one) of a row */
static void row_labels(const struct bench_opts *o, int row, const char **type, const char **redop, int *root)
{
	int t, r, rt;
	uint64_t size;
	bench_row_config(o, row, &t, &r, &rt, &size);
	*type = bench_type_name(t);
	*redop = bench_op_info(o->op)->redop ? bench_redop_name(r) : bench_op_info(o->op)->no_redop;
	*root = bench_op_info(o->op)->root ? rt : -1;
}

static int nccl_code(const struct bench_run *br)
{
	for (int i = 0; i < br->o->nranks; i++)
		if (br->ranks[i].nccl_code)
			return br->ranks[i].nccl_code;
	return 0;
}

/* One rank on a machine with more GPUs (nccl-tests' default -g 1): the
 * number of visible GPUs, else 0. */
int bench_one_rank_of(const struct bench_run *br)
{
	if (br->o->nranks != 1 || br->ranks[0].devices < 2)
		return 0;
	return br->ranks[0].devices;
}

static void hang_text(const struct bench_run *br, struct strbuf *sb)
{
	const struct worker *w = br->ranks[br->failed_rank].w;
	bool hang = w->status == WORKER_HANG ||
		    (w->status == WORKER_ERROR && json_string_value(json_object_get(worker_error(w), "name")) &&
		     strcmp(json_string_value(json_object_get(worker_error(w), "name")), "timeout") == 0);
	if (br->could_not_run)
		strbuf_addf(sb, "# nccl-doctor: could not run: %s\n", br->why);
	else if (bench_run_cut(br))
		strbuf_addf(sb, "# nccl-doctor: NOT FINISHED(%s): ranks %s were still within the deadline of their phase when "
				"the %.0f s deadline of the whole run ended them: not a hang\n",
			    br->phase, br->not_finished, w->spec.deadline);
	else if (hang)
		strbuf_addf(sb, "# nccl-doctor: HANG(%s): ranks %s had not finished; %s\n", br->phase, br->not_finished,
			    br->why);
	else
		strbuf_addf(sb, "# nccl-doctor: FAILED(%s): ranks %s had not finished; rank %d: %s\n", br->phase,
			    br->not_finished, br->failed_rank, br->why);
	const char *last = br->ranks[br->failed_rank].last_line;
	if (!br->could_not_run && last[0])
		strbuf_addf(sb, "# nccl-doctor: rank %d's last NCCL line: %s\n", br->failed_rank, last);
	for (int i = 0; i < br->o->nranks; i++)
		if (br->wedged_dev[i])
			strbuf_addf(sb, "# nccl-doctor: GPU %d (%s) stays busy with no process after the hang: wedged; "
				    "reset it (sudo nvidia-smi -r -i %s) or reboot before the next run\n",
				    br->ranks[i].device, br->ranks[i].busid[0] ? br->ranks[i].busid : "?",
				    br->ranks[i].busid[0] ? br->ranks[i].busid : "N");
}

/* "1->2 SHM/direct/direct, 3->0 SHM/direct/direct": the links through the
 * host (SHM) or the network (NET) in the ranks' transports; 0 if none */
static int via_host(const struct bench_run *br, char *out, size_t sz)
{
	int n = 0;
	size_t off = 0;
	out[0] = '\0';
	for (int i = 0; i < br->o->nranks; i++) {
		char tr[sizeof(br->ranks[i].transports)], *save = NULL;
		snprintf(tr, sizeof(tr), "%s", br->ranks[i].transports);
		for (char *t = strtok_r(tr, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
			const char *arrow = strstr(t, "->");
			if (!arrow || (strncmp(t, "SHM", 3) != 0 && strncmp(t, "NET", 3) != 0))
				continue;
			n++;
			if (off < sz)
				off += (size_t)snprintf(out + off, sz - off, "%s%d%s %.*s", off ? ", " : "", i, arrow,
							(int)(arrow - t), t);
		}
	}
	if (off >= sz && sz > 4)
		memcpy(out + sz - 4, "...", 4);
	return n;
}

/* "# nccl-doctor: algorithm/protocol: 8..32768 RING/LL; 65536.. RING/LL128"
 * over the out-of-place rows, runs of one choice joined */
static void algo_text(const struct bench_run *br, struct strbuf *sb)
{
	int first = -1, n = 0;
	for (int row = 0; row <= br->nrows; row++) {
		const char *a = row < br->nrows ? br->cells[row * 2].algo : "";
		if (first >= 0 && (row == br->nrows || strcmp(a, br->cells[first * 2].algo) != 0)) {
			uint64_t b0, b1, c;
			row_sizes(br, first, &b0, &c);
			row_sizes(br, row - 1, &b1, &c);
			strbuf_addf(sb, "%s%llu..%llu %s", n++ ? "; " : "# nccl-doctor: algorithm/protocol (NCCL's choice): ",
				    (unsigned long long)b0, (unsigned long long)b1, br->cells[first * 2].algo);
			first = -1;
		}
		if (first < 0 && a[0])
			first = row;
	}
	if (n)
		strbuf_addch(sb, '\n');
}

/* The NCCL call an op with a choice ran as (NCCL's own collective where
 * the loaded library has it, else grouped send/recv), from the first rank
 * that said; NULL when none did. */
static const char *bench_entry(const struct bench_run *br)
{
	for (int i = 0; i < br->o->nranks; i++)
		if (br->ranks[i].entry[0])
			return br->ranks[i].entry;
	return NULL;
}

static void entry_text(const struct bench_run *br, struct strbuf *sb)
{
	const char *native = bench_native_call(br->o->op), *entry = bench_entry(br);
	if (!native || !entry)
		return;
	if (strcmp(entry, native) == 0)
		strbuf_addf(sb, "# nccl-doctor: %s ran as %s (NCCL's own, 2.28+)\n", bench_op_info(br->o->op)->name, native);
	else
		strbuf_addf(sb, "# nccl-doctor: %s ran as grouped %s (the loaded NCCL has no %s: 2.28+)\n",
			    bench_op_info(br->o->op)->name, entry, native);
}

/* Where the results were checked: one line, "on the GPU" or the first
 * rank that checked on the host and why; after a hang or an error, how
 * many sizes were checked before it, and "no result was checked" when no
 * size finished (the checkers were only set up) */
static void checker_text(const struct bench_run *br, struct strbuf *sb)
{
	int ngpu = 0, host = -1, checked = 0;
	for (int i = 0; i < br->o->nranks; i++) {
		const struct bench_rank *rk = &br->ranks[i];
		if (strcmp(rk->checker, "gpu") == 0)
			ngpu++;
		else if (strcmp(rk->checker, "host") == 0 && host < 0)
			host = i;
	}
	if (host < 0 && !ngpu)
		return;
	for (int row = 0; row < br->nrows; row++)
		checked += br->cells[row * 2].cell.present && br->cells[row * 2].cell.wrong >= 0;
	char where[320];
	if (host >= 0)
		snprintf(where, sizeof(where), "on the host (rank %d: %s)", host, br->ranks[host].checker_why);
	else
		snprintf(where, sizeof(where), "on the GPU (check kernels)");
	if (checked == 0)
		strbuf_addf(sb, "# nccl-doctor: no result was checked: no size finished; the checks were set up %s\n", where);
	else if (!br->complete || br->failed_rank >= 0)
		strbuf_addf(sb, "# nccl-doctor: results checked %s for the %d size%s that finished before the run stopped\n",
			    where, checked, checked == 1 ? "" : "s");
	else
		strbuf_addf(sb, "# nccl-doctor: results checked %s\n", where);
}

/* What the flags of nccl-tests that act differently here did, said once
 * (rank 0's communicator speaks for all: every rank runs the same code
 * against the same library) */
static void flags_text(const struct bench_run *br, struct strbuf *sb)
{
	const struct bench_opts *o = br->o;
	const struct bench_rank *rk = &br->ranks[0];
	if (o->blocking == 1 || o->blocking == 3)
		strbuf_addf(sb, "# nccl-doctor: -z %lld: no barrier between the ranks here: each waits for its own stream after "
				"each iteration, as -z 2\n", o->blocking);
	if (o->stream_null)
		strbuf_adds(sb, "# nccl-doctor: -y 1: the calls ran on the NULL (legacy default) stream\n");
	if (o->a2av_matrix) {
		int k = bench_alltoallv_matrix_dim();
		strbuf_addf(sb, "# nccl-doctor: alltoallv: the bytes of each pair of ranks from NCCL_TESTS_ALLTOALLV_MATRIX_FILE "
				"'%.300s' (%dx%d%s)\n", o->a2av_file, o->a2av_file_dim, o->a2av_file_dim,
			    k < o->a2av_file_dim ? ", its top-left corner" : "");
	}
	if (o->ngroups > 1)
		strbuf_addf(sb, "# nccl-doctor: NCCL_TESTS_SPLIT: %d groups of ranks ran at once, each its own communicator "
				"(ncclCommSplit); the rows are group %d's (%d ranks), times over every rank\n",
			    o->ngroups, o->colors[0], bench_comm_ranks(o));
	if (o->local_register && rk->reg_how[0])
		strbuf_addf(sb, "# nccl-doctor: -R %lld: both buffers registered %s (%s)%s%s\n", o->local_register,
			    strcmp(rk->reg_how, "symmetric") == 0 ? "as symmetric windows" : "locally",
			    strcmp(rk->reg_how, "symmetric") == 0 ? "ncclCommWindowRegister" : "ncclCommRegister",
			    rk->reg_why[0] ? ": " : "", rk->reg_why);
	if (o->cta_policy >= 0 && rk->pid && rk->init_s >= 0) {
		if (rk->cta_policy >= 0)
			strbuf_addf(sb, "# nccl-doctor: -x %lld: NCCL's CTA policy set to %d\n", o->cta_policy, rk->cta_policy);
		else
			strbuf_addf(sb, "# nccl-doctor: -x %lld: not set: NCCL %s has no CTA policy %lld (0, 1 since 2.27, 2 since "
					"2.28, with ncclCommInitRankConfig)\n", o->cta_policy,
				    rk->nccl_version[0] ? rk->nccl_version : "?", o->cta_policy);
	}
}

/* NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: nccl-tests 2.19.6's per-rank lines
 * for one cell (alltoallv.cu, AlltoAllvPrintRankBandwidths, from its
 * getBw): the mode line, then each rank's bytes sent and received and the
 * bandwidths of the larger over the cell's time. nccl-tests prints them
 * from getBw, in the middle of the row (bench_text_row's mid); the ranks are
 * those of the communicator the rows are of, as our bandwidth columns. */
static void a2av_summary(const struct bench_run *br, int row, const struct bench_cellset *cs, struct strbuf *sb)
{
	const struct bench_opts *o = br->o;
	int n = bench_comm_ranks(o), type, redop, root;
	uint64_t size;
	bench_row_config(o, row, &type, &redop, &root, &size);
	size_t total = (size_t)cs->count * (size_t)n * bench_type_size(type);
	double sec = cs->bw_s;
	if (bench_alltoallv_matrix_dim())
		strbuf_addf(sb, "# NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: mode=matrix nranks=%d matrix_dim=%d scale=%.3f "
				"time_usec=%.2f\n", n, o->a2av_file_dim, o->a2av_scale, sec * 1.0E6);
	else
		strbuf_addf(sb, "# NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY: mode=generated nranks=%d total_bytes=%zu spread=%.3f "
				"time_usec=%.2f\n", n, total, bench_alltoallv_spread_used(), sec * 1.0E6);
	for (int i = 0; i < n; i++) {
		size_t send = 0, recv = 0;
		for (int j = 0; j < n; j++) {
			send += bench_alltoallv_bytes(i, j, n, total);
			recv += bench_alltoallv_bytes(j, i, n, total);
		}
		double alg = (double)(send > recv ? send : recv) / 1.0E9 / sec;
		strbuf_addf(sb, "#   rank=%d send_bytes=%zu recv_bytes=%zu alg_bw=%.2f bus_bw=%.2f\n", i, send, recv, alg,
			    alg * ((double)(n - 1) / (double)n));
	}
}

void bench_print_text(const struct bench_run *br, FILE *out)
{
	const struct bench_opts *o = br->o;
	const char *program = bench_op_info(o->op)->program;
	struct strbuf sb;
	strbuf_init(&sb, 0);
	struct bench_header h = {
		.version = "nccl-doctor-" NCCL_DOCTOR_VERSION, .nccl_version = nccl_code(br), .program = program,
		.nthreads = (int)o->nthreads, .ngpus = (int)o->ngpus, .min_bytes = o->min_bytes,
		.max_bytes = o->max_bytes, .step_bytes = o->step_bytes, .step_factor = o->step_factor,
		.warmup = (int)o->warmup, .iters = (int)o->iters, .agg = (int)o->agg, .check = (int)o->check,
		.graph = (int)o->graph, .cputime = o->cputime, .unalign = (int)o->unalign, .blocking = (int)o->blocking,
		.per_iter = (int)o->per_iter, .per_iter_skip = (int)o->per_iter_skip, .parallel_init = o->parallel_init,
	};
	bench_text_preamble(&sb, &h);
	for (int i = 0; i < o->nranks; i++) {
		const struct bench_rank *rk = &br->ranks[i];
		if (rk->pid)
			bench_text_device(&sb, i, o->colors[i], rk->pid, rk->host, rk->device, rk->busid, rk->name);
	}
	bench_text_columns(&sb, o->cputime, o->per_iter, o->timestamps);
	for (int row = 0; row < br->nrows; row++) {
		const struct bench_cellset *oop = &br->cells[row * 2], *ip = &br->cells[row * 2 + 1];
		if (!oop->cell.present)
			break;
		uint64_t bytes, count;
		row_sizes(br, row, &bytes, &count);
		const char *tn, *rn;
		int root;
		row_labels(o, row, &tn, &rn, &root);
		struct strbuf mid[2];
		for (int k = 0; k < 2; k++) {
			strbuf_init(&mid[k], 0);
			if (o->a2av_summary && (k ? ip : oop)->cell.present)
				a2av_summary(br, row, k ? ip : oop, &mid[k]);
		}
		const char *const midtext[2] = { mid[0].len ? strbuf_str(&mid[0]) : NULL,
						 mid[1].len ? strbuf_str(&mid[1]) : NULL };
		bench_text_row(&sb, bytes, count, tn, rn, root, &oop->cell, &ip->cell, o->timestamps, midtext);
		strbuf_release(&mid[0]);
		strbuf_release(&mid[1]);
		if (!ip->cell.present)
			break;
	}
	if (br->complete && br->failed_rank < 0) {
		bench_text_footer(&sb, br->errors, br->avg_busbw, br->min_bw, program);
		if (o->memory)
			bench_text_memory(&sb, br->mem);
		strbuf_adds(&sb, "#\n\n");
		int more = bench_one_rank_of(br); /* after nccl-tests' footer, as our other lines */
		if (more > 1)
			strbuf_addf(&sb, "# nccl-doctor: one rank measures no bus bandwidth (nothing crosses a link between GPUs); "
					 "%d GPUs are visible: -g %d runs one rank on each\n", more, more);
	} else {
		hang_text(br, &sb);
	}
	for (int i = 0; i < o->nranks; i++) {
		const struct bench_rank *rk = &br->ranks[i];
		if (!rk->pid)
			continue;
		strbuf_addf(&sb, "# nccl-doctor: rank %d device %d NCCL %s", i, rk->device,
			    rk->nccl_version[0] ? rk->nccl_version : "?");
		if (rk->init_s >= 0)
			strbuf_addf(&sb, " init %.3f s%s", rk->init_s, rk->nonblocking ? " (nonblocking)" : "");
		strbuf_addf(&sb, " transports %s\n", rk->transports[0] ? rk->transports : "none printed");
	}
	bench_nodes_text(br, &sb);
	entry_text(br, &sb);
	algo_text(br, &sb);
	checker_text(br, &sb);
	flags_text(br, &sb);
	char links[512];
	if (via_host(br, links, sizeof(links)) > 0)
		strbuf_addf(&sb, "# nccl-doctor: through host memory or the network, not GPU to GPU: %s\n", links);
	/* names and versions the ranks reported, shown visibly */
	report_puts(strbuf_str(&sb), STR_VIS_NEWLINE, out);
	strbuf_release(&sb);
}

/* ---- -J FILE: nccl-tests' JSON ----------------------------------------- */

static json_t *cell_json(const struct bench_cell *c, bool ours, bool cputime)
{
	if (!c->present)
		return json_null();
	if (ours)
		return json_pack("{s:f,s:f,s:f,s:o}", "time_us", c->time_us, "algbw", c->algbw, "busbw", c->busbw, "wrong",
				 c->wrong >= 0 ? json_integer(c->wrong) : json_null());
	/* util.cu writeBenchmarkLineBody: "cpu_time" with -C, #wrong a double or null */
	return json_pack("{s:f,s:f,s:f,s:o}", cputime ? "cpu_time" : "time", c->time_us, "alg_bw", c->algbw, "bus_bw",
			 c->busbw, "nwrong", c->wrong >= 0 ? json_real((double)c->wrong) : json_null());
}

/* -I: util.cu writePerIterReport's object; per_process_max_times_us where
 * more than one process measured (one process per rank here; --threads is
 * one process) */
static json_t *per_iter_json(const struct bench_opts *o, const struct bench_cellset *cs)
{
	const struct bench_iter_stats *st = &cs->cell.iter;
	json_t *times = json_array();
	for (long long k = 0; k < o->iters; k++)
		json_array_append_new(times, json_real(cs->iter_max[k] * 1e6));
	json_t *j = json_pack("{s:i,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:f,s:o}", "skipped_iterations", (int)o->per_iter_skip,
			      "min_us", st->min * 1e6, "max_us", st->max * 1e6, "avg_us", st->avg * 1e6, "p50_us",
			      st->p50 * 1e6, "p95_us", st->p95 * 1e6, "p99_us", st->p99 * 1e6, "stdev_us", st->stdev * 1e6,
			      "cv_pct", st->cv_pct, "times_us", times);
	if (!o->threads && o->nranks > 1) {
		json_t *procs = json_array();
		for (int r = 0; r < o->nranks; r++) {
			json_t *t = json_array();
			for (long long k = 0; k < o->iters; k++)
				json_array_append_new(t, json_real(cs->iter_s[r * o->iters + k] * 1e6));
			json_array_append_new(procs, t);
		}
		json_object_set_new(j, "per_process_max_times_us", procs);
	}
	return j;
}

/* The cell of a row, and with -I its per-iteration object: after it in
 * nccl-tests' JSON, inside it as "per_iter" in ours (--json) */
static void add_cell(json_t *r, const struct bench_opts *o, const struct bench_cellset *cs, bool ours, bool inplace)
{
	json_t *c = cell_json(&cs->cell, ours, o->cputime);
	bool iter = cs->cell.present && cs->cell.has_iter && cs->iter_max;
	if (ours && iter)
		json_object_set_new(c, "per_iter", per_iter_json(o, cs));
	json_object_set_new(r, inplace ? "in_place" : "out_of_place", c);
	if (!ours && iter)
		json_object_set_new(r, inplace ? "in_place_per_iter" : "out_of_place_per_iter", per_iter_json(o, cs));
}

static json_t *rows_json(const struct bench_run *br, bool ours)
{
	const struct bench_opts *o = br->o;
	json_t *rows = json_array();
	for (int row = 0; row < br->nrows; row++) {
		const char *tn, *rn;
		int rootv;
		char root[16];
		row_labels(o, row, &tn, &rn, &rootv);
		snprintf(root, sizeof(root), "%6i", rootv);
		const struct bench_cellset *oop = &br->cells[row * 2], *ip = &br->cells[row * 2 + 1];
		if (!oop->cell.present)
			break;
		uint64_t bytes, count;
		row_sizes(br, row, &bytes, &count);
		/* util.cu writeBenchmarkLinePreamble: root as printed ("%6i", a string) */
		json_t *r = json_pack("{s:I,s:I,s:s,s:s}", "size", (json_int_t)bytes, "count", (json_int_t)count, "type", tn,
				      "redop", rn);
		if (ours)
			json_object_set_new(r, "root", json_integer(rootv));
		else
			json_object_set_new(r, "root", json_string(root));
		add_cell(r, o, oop, ours, false);
		add_cell(r, o, ip, ours, true);
		if (ours && oop->algo[0])
			json_object_set_new(r, "algo", json_string(oop->algo));
		if (!ours) { /* writeBenchmarkLineTerminator */
			json_object_set_new(r, "actual_iterations", json_integer(o->iters));
			json_object_set_new(r, "experiment_name", json_string(""));
		}
		json_array_append_new(rows, r);
	}
	return rows;
}

int bench_open_json_file(const char *path, char *used, size_t usedsz, char *err, size_t errsz)
{
	/* nccl-tests never overwrites: FILE, else FILE.1, FILE.2, ... */
	int fd = -1;
	for (int k = 0; k < 100 && fd < 0; k++) {
		if (k == 0)
			snprintf(used, usedsz, "%s", path);
		else
			snprintf(used, usedsz, "%s.%d", path, k);
		fd = open(used, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644); /* never through a link or into a FIFO */
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		int e = errno;
		snprintf(err, errsz, "cannot write '%s': %s", path, strerror(e));
		return -e;
	}
	return fd;
}

/* util.cu formatNow: local time, "%Y-%m-%d %H:%M:%S" */
static json_t *time_json(time_t t)
{
	char buf[64];
	struct tm tm;
	if (!localtime_r(&t, &tm) || !strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm))
		buf[0] = 0;
	return json_string(buf);
}

/* util.cu jsonBool: the strings "true" and "false", not JSON's booleans */
static json_t *tbool(bool b)
{
	return json_string(b ? "true" : "false");
}

/* a list of strings, invalid UTF-8 left out (jansson takes UTF-8 only) */
static json_t *strings_json(char *const *v, int n)
{
	json_t *a = json_array();
	for (int i = 0; v && i < n; i++) {
		json_t *s = json_string(v[i]);
		if (s)
			json_array_append_new(a, s);
	}
	return a;
}

/* nccl-tests' "env" (its whole environment) as the environment a snapshot
 * may keep (util/envfilter.h: NCCL_*, CUDA_*, launcher ids, ...; credentials
 * redacted): a benchmark result file gets passed around */
static json_t *env_json(void)
{
	struct strbuf all, kept;
	strbuf_init(&all, 0);
	strbuf_init(&kept, 1 << 20);
	for (char **e = environ; e && *e; e++) {
		strbuf_adds(&all, *e);
		strbuf_addch(&all, 0);
	}
	json_t *a = json_array();
	if (envfilter_apply(strbuf_str(&all), all.len, &kept) >= 0)
		for (size_t off = 0; off < kept.len; off += strlen(strbuf_str(&kept) + off) + 1) {
			json_t *v = json_string(strbuf_str(&kept) + off);
			if (v)
				json_array_append_new(a, v);
		}
	strbuf_release(&all);
	strbuf_release(&kept);
	return a;
}

/* The file nccl-tests 2.19 writes with -J (util.cu: jsonOutputInit,
 * writeDeviceReport, writeResultHeader, writeBenchmarkLine*,
 * writeResultFooter, writeErrors, jsonOutputFinalize), key for key and in
 * its order, JSON_FILE_VERSION 3. What differs is said in docs/bench.md. */
int bench_write_json_file(const struct bench_run *br, int fd, const char *path, char *err, size_t errsz)
{
	const struct bench_opts *o = br->o;
	json_t *devices = json_array();
	for (int i = 0; i < o->nranks; i++) {
		const struct bench_rank *rk = &br->ranks[i];
		unsigned dom = 0, bus = 0, dev = 0;
		char hex[32];
		if (!rk->pid)
			continue;
		if (sscanf(rk->busid, "%x:%x:%x", &dom, &bus, &dev) != 3) /* as the "#  Rank" line prints it */
			dom = bus = dev = 0;
		snprintf(hex, sizeof(hex), "%04x:%02x:%02x", dom, bus, dev);
		json_array_append_new(devices, json_pack("{s:i,s:i,s:i,s:s,s:i,s:s,s:s}", "rank", i, "group", o->colors[i], "pid",
							 rk->pid, "hostname", rk->host, "device", rk->device,
							 "device_hex", hex, "device_info", rk->name));
	}
	json_t *cfg = json_pack("{s:i,s:i,s:I,s:I}", "nthreads", (int)o->nthreads, "ngpus", (int)o->ngpus, "minimum_bytes",
				(json_int_t)o->min_bytes, "maximum_bytes", (json_int_t)o->max_bytes);
	json_object_set_new(cfg, o->step_factor > 1 ? "step_factor" : "step_bytes",
			    json_integer((json_int_t)(o->step_factor > 1 ? o->step_factor : o->step_bytes)));
	json_t *rest = json_pack("{s:i,s:i,s:i,s:i,s:i,s:o,s:o,s:i,s:o,s:o}", "warmup_iters", (int)o->warmup,
				 "iterations", (int)o->iters, "aggregated_iterations", (int)o->agg, "validation", (int)o->check,
				 "graph", (int)o->graph, "blocking_collectives", tbool(o->blocking != 0), "per_iter_timing",
				 tbool(o->per_iter != 0), "per_iter_skip", (int)o->per_iter_skip, "parallel_init",
				 tbool(o->parallel_init != 0), "devices", devices);
	json_object_update(cfg, rest);
	json_decref(rest);
	json_t *root = json_pack("{s:i,s:o,s:o,s:o,s:i,s:o,s:o}", "version", 3, "start_time", time_json(o->started), "args",
				 strings_json(o->argv, o->argc), "env", env_json(), "nccl_version",
				 nccl_code(br), "config", cfg, "results", rows_json(br, false));
	if (br->complete && br->failed_rank < 0) {
		json_object_set_new(root, "out_of_bounds",
				    json_pack("{s:i,s:o}", "count", br->errors, "okay", tbool(br->errors == 0)));
		json_t *ok = br->min_bw < 0 ? json_string("unchecked") : tbool(br->avg_busbw >= br->min_bw * 0.9);
		json_object_set_new(root, "average_bus_bandwidth", json_pack("{s:f,s:o}", "bandwidth", br->avg_busbw, "okay", ok));
		/* writeErrors: ncclGetLastError's string, "" after a clean run */
		json_object_set_new(root, "errors", json_pack("[s]", ""));
	} else {
		json_object_set_new(root, "errors", json_pack("[s]", br->why[0] ? br->why : br->phase));
	}
	json_object_set_new(root, "end_time", time_json(time(NULL)));
	int r = json_dumpfd(root, fd, JSON_INDENT(2));
	json_decref(root);
	if (r < 0 || write(fd, "\n", 1) != 1) {
		snprintf(err, errsz, "cannot write '%s'", path);
		close(fd);
		return -EIO;
	}
	if (close(fd) < 0) {
		snprintf(err, errsz, "cannot write '%s': %s", path, strerror(errno));
		return -EIO;
	}
	return 0;
}

/* ---- --json: the result model -------------------------------------------- */

static void rank_table(const struct bench_run *br, struct section *s)
{
	static const struct column cols[] = {
		{ "rank", "rank", 0 },       { "group", "group", 0 },     { "device", "device", 0 },
		{ "busid", "bus id", 0 },    { "pid", "pid", 0 },         { "nccl", "NCCL", 0 },       { "init_s", "init (s)", 0 },
		{ "transports", "transports", 0 }, { "status", "status", 0 }, { "stage", "last stage", 0 },
	};
	struct table *t = section_table(s, "ranks", "ranks", cols, sizeof(cols) / sizeof(cols[0]));
	for (int i = 0; i < br->o->nranks; i++) {
		const struct bench_rank *rk = &br->ranks[i];
		const struct worker *w = br->ranks[i].w;
		size_t row = table_add_row(t);
		table_set(t, row, "rank", val_int(i));
		table_set(t, row, "group", val_int(br->o->colors[i])); /* NCCL_TESTS_SPLIT's color, 0 without */
		table_set(t, row, "device", val_int(rk->device));
		table_set(t, row, "busid", rk->busid[0] ? val_str(rk->busid) : val_unknown("not reported"));
		table_set(t, row, "pid", rk->pid ? val_int(rk->pid) : val_unknown("not started"));
		table_set(t, row, "nccl", rk->nccl_version[0] ? val_str(rk->nccl_version) : val_unknown("not reported"));
		table_set(t, row, "init_s", rk->init_s >= 0 ? val_double(rk->init_s) : val_unknown("not initialised"));
		table_set(t, row, "transports", val_str(rk->transports));
		table_set(t, row, "status", val_str(w->pid ? worker_status_name(w->status) : "not_started"));
		table_set(t, row, "stage", val_str(br->o->threads && rk->phase[0] ? rk->phase : w->stage));
		if (!rk->done)
			table_mark(t, row, "status", MARK_BAD);
	}
}

static void add_findings(const struct bench_run *br, struct result *r)
{
	char links[512];
	if (via_host(br, links, sizeof(links)) > 0)
		finding_add(r, FID_BENCH_TRANSPORT_VIA_HOST, SEV_INFO, "not GPU to GPU: %s", links);
	bench_nodes_versions(br, r);
	int more = bench_one_rank_of(br);
	if (more > 1) {
		struct finding *f = finding_add(r, FID_BENCH_ONE_RANK, SEV_INFO,
						"one rank measures no bus bandwidth: %d GPUs are visible, -g %d uses them all", more, more);
		finding_fix(f, "shell", "one rank per GPU", "nccl-doctor bench -g %d", more);
	}
	if (br->could_not_run) {
		result_set_error(r, "could not run: %s", br->why);
		return;
	}
	if (br->failed_rank >= 0) {
		const struct worker *w = br->ranks[br->failed_rank].w;
		const char *ename = json_string_value(json_object_get(worker_error(w), "name"));
		bool hang = w->status == WORKER_HANG || (ename && strcmp(ename, "timeout") == 0);
		struct finding *f = bench_run_cut(br)
					    ? finding_add(r, FID_BENCH_NOT_FINISHED, SEV_WARNING,
							  "not finished in %.0f s (%s): ranks %s were still within their phase's deadline",
							  w->spec.deadline, br->phase, br->not_finished)
				    : hang ? finding_add(r, FID_BENCH_HANG, SEV_ERROR, "HANG(%s): ranks %s had not finished",
							      br->phase, br->not_finished)
					 : finding_add(r, FID_BENCH_RANK_FAILED, SEV_ERROR, "rank %d failed in %s: %s",
							      br->failed_rank, br->phase, br->why);
		for (int i = 0; i < br->o->nranks; i++) {
			const struct worker *wi = br->ranks[i].w;
			if (br->ranks[i].done)
				continue;
			char proc[32] = ""; /* -g G under a launcher: the process of the rank */
			if (br->o->world && bench_world_per_process() > 1)
				snprintf(proc, sizeof(proc), "process %d, ", i / bench_world_per_process());
			finding_evidence(f, NULL, 0, "rank %d (%sdevice %d): %s in '%s'%s%s; transports %s%s%s", i, proc,
					 br->ranks[i].device, wi->pid ? worker_status_name(wi->status) : "not started", wi->stage,
					 wi->why[0] ? ": " : "", wi->why,
					 br->ranks[i].transports[0] ? br->ranks[i].transports : "none printed",
					 br->ranks[i].last_line[0] ? "; last NCCL line: " : "", br->ranks[i].last_line);
		}
	}
	for (int i = 0; i < br->o->nranks; i++) {
		if (!br->wedged_dev[i])
			continue;
		const char *id = br->ranks[i].busid[0] ? br->ranks[i].busid : "N";
		struct finding *f = finding_add(r, FID_BENCH_GPU_WEDGED, SEV_ERROR,
						"GPU %d stays busy with no process after the hang in %s", br->ranks[i].device, br->phase);
		finding_fix(f, "shell", "resets the GPU; nothing may run on it", "sudo nvidia-smi -r -i %s", id);
	}
	if (br->errors > 0)
		finding_add(r, FID_BENCH_WRONG_RESULTS, SEV_ERROR, "%lld wrong elements in %d rank results (#wrong)",
				   br->wrong_total, br->errors);
	if (br->complete && br->failed_rank < 0 && br->min_bw >= 0 && br->avg_busbw < br->min_bw * 0.9)
		finding_add(r, FID_BENCH_BELOW_MIN_BW, SEV_ERROR, "average busbw %g GB/s is below 0.9 x NCCL_TESTS_MIN_BW %g",
				   br->avg_busbw, br->min_bw);
}

struct result *bench_result(const struct bench_run *br)
{
	const struct bench_opts *o = br->o;
	struct result *r = result_new("bench");
	result_set_headline(r, "%s on %d rank%s, %d size%s", bench_op_info(o->op)->name, o->nranks, o->nranks == 1 ? "" : "s",
			    o->nsizes, o->nsizes == 1 ? "" : "s");
	struct section *s = result_section(r, "bench", "benchmark");
	section_add(s, "op", "operation", val_str(bench_op_info(o->op)->name));
	section_add(s, "type", "data type", val_str(o->type < 0 ? "all" : bench_type_name(o->type)));
	section_add(s, "redop", "reduction",
		    val_str(!bench_op_info(o->op)->redop ? "none" : o->redop < 0 ? "all" : bench_redop_name(o->redop)));
	section_add(s, "nranks", "ranks", val_int(o->nranks));
	if (bench_native_call(o->op) && bench_entry(br))
		section_add(s, "entry", "NCCL call", val_str(bench_entry(br)));
	/* text only: the top-level member "bench" carries them in JSON (each fact once) */
	section_add(s, "complete", "every row done", val_bool(br->complete && br->failed_rank < 0))->show = SHOW_TEXT_ONLY;
	section_add(s, "out_of_bounds", "out of bounds values", val_int(br->errors))->show = SHOW_TEXT_ONLY;
	section_add(s, "avg_busbw", "average busbw (GB/s)", val_double(br->avg_busbw))->show = SHOW_TEXT_ONLY;
	rank_table(br, s);
	json_t *b = json_pack("{s:o,s:i,s:f,s:b}", "rows", rows_json(br, true), "out_of_bounds", br->errors, "avg_busbw",
			      br->avg_busbw, "complete", br->complete && br->failed_rank < 0);
	if (br->failed_rank >= 0)
		json_object_set_new(b, "phase", json_string(br->phase));
	int host = 0, gpu = 0;
	for (int i = 0; i < o->nranks; i++) {
		host += strcmp(br->ranks[i].checker, "host") == 0;
		gpu += strcmp(br->ranks[i].checker, "gpu") == 0;
	}
	if (host || gpu)
		json_object_set_new(b, "checked_on", json_string(host ? "host" : "gpu"));
	if (bench_node_count(br) > 1 || o->world)
		json_object_set_new(b, "nodes", bench_nodes_json(br));
	if (o->world)
		bench_world_describe(b);
	json_object_set_new(r->extra, "bench", b);
	add_findings(br, r);
	return r;
}
