/* nccl-doctor bench: the collective benchmark of nccl-tests, with its flags,
 * numbers and text (byte for byte, so that DCGM's, aznhc's and gcm's
 * scrapers read it), run as one worker process per GPU (as vLLM and torchrun
 * run NCCL), under deadlines: a rank that hangs in init or in a collective is
 * aborted and named with its phase, and the rows done so far stay printed.
 * Each rank also reports its NCCL version, init time and the transports
 * NCCL chose (its own INFO lines, read with analyze/nccllog.h).
 *
 * Options, parsing and the launch are here; the output is in
 * bench_report.c; the rank task is gpu/bench.c. */
#include "analyze/topo.h"
#include "analyze/worker_findings.h"
#include "cmd/bench_cmd.h"
#include "collect/collect.h"
#include "kb/findings.h"
#include "report/report.h"
#include "run/ranks.h"
#include "util/sysroot.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_INIT_TIMEOUT 60.0
#define DEFAULT_COLL_TIMEOUT 60.0

static void usage(FILE *f)
{
	fputs("usage: nccl-doctor bench [OP] [options]\n"
	      "\n"
	      "The collective benchmark of nccl-tests, with its flags, columns, busbw\n"
	      "formulas and footers, run as one process per GPU under deadlines. A hang is\n"
	      "named with its phase and ranks; the rows done so far stay printed.\n"
	      "\n"
	      "OP: all_reduce (default), all_gather, reduce_scatter, broadcast, reduce,\n"
	      "    alltoall, sendrecv (also as all_reduce_perf, ...)\n"
	      "\n"
	      "options (as nccl-tests):\n"
	      "  -b SIZE   smallest size (default 32M; K, M, G are binary)\n"
	      "  -e SIZE   largest size (default 32M)\n"
	      "  -i SIZE   step in bytes (default 1M)      -f N  multiply by N instead\n"
	      "  -n N      iterations (20)                 -w N  warm-up iterations (1)\n"
	      "  -m N      calls aggregated in a group (1) -N N  run the sweep N times (1)\n"
	      "  -c 0|1    check results (1)               -z 0|1  wait after each iteration (0)\n"
	      "  -o OP     reduction: sum prod max min avg, or all (sum)\n"
	      "  -d TYPE   int8 uint8 int32 uint32 int64 uint64 half float double bfloat16, all (float)\n"
	      "  -r ROOT   root of broadcast and reduce (0; -1: every rank in turn)\n"
	      "  -g N      GPUs per thread, one rank each (1)  -t N  threads (1): -t x -g ranks\n"
	      "  -a 0-3    time across ranks: rank 0, average (1), minimum, maximum\n"
	      "  -T SEC    deadline per collective (default 60; nccl-tests: none)\n"
	      "  -C 0|1    report CPU time of the launches (0)\n"
	      "  -G N      capture the iterations in a CUDA graph and launch it N times (0)\n"
	      "  -J FILE   also write nccl-tests' JSON to FILE\n"
	      "our additions:\n"
	      "  --procs            one process per rank (the default, as vLLM runs)\n"
	      "  --threads          every rank a thread of one process (as nccl-tests without MPI)\n"
	      "  --deadline-init SEC  deadline for communicator init (default 60)\n"
	      "  --timer wall|event  nccl-tests' CPU clock (default) or CUDA events\n"
	      "  --comm-blocking    blocking communicator (no nonblocking init/abort)\n"
	      "  --cuda-alloc       buffers from cuMemAlloc (default: ncclMemAlloc where NCCL\n"
	      "                     has it, 2.19+, as nccl-tests)\n"
	      "  --algo             show NCCL's algorithm/protocol per size (NCCL_DEBUG_SUBSYS=\n"
	      "                     INIT,ENV,TUNING: NCCL then prints a line per call, which\n"
	      "                     costs time at small sizes)\n"
	      "  --host-check       check results on the host (default: on the GPU, by PTX\n"
	      "                     kernels; the host where they do not load, said once)\n"
	      "  --force            also run on GPUs that other processes hold (default: a\n"
	      "                     GPU in use stops the run with exit 3, naming the\n"
	      "                     process and its memory)\n"
	      "GPUs: --gpus LIST (indices = CUDA ordinals; UUIDs or bus ids through NVML, the\n"
	      "ranks then see only those GPUs) picks them, else NCCL_TESTS_DEVICE + 0..N-1.\n"
	      "Under mpirun or srun (a build with -DNCCL_DOCTOR_MPI=ON) every process is\n"
	      "one rank on the GPU of its local rank, and rank 0 prints the report.\n"
	      "Ranks run with NCCL_DEBUG=INFO (unless NCCL_DEBUG is set) so that the\n"
	      "transports NCCL chose can be shown. NCCL_TESTS_MIN_BW as in nccl-tests.\n"
	      "\n"
	      "After a hang, a GPU that stays busy with no process is reported as wedged,\n"
	      "with the command that resets it.\n"
	      "\n"
	      "exit status: 0 every result right, 2 wrong results, a hang, an NCCL error or\n"
	      "busbw under NCCL_TESTS_MIN_BW, 3 could not run (no GPU, no libnccl, a GPU in\n"
	      "use without --force), 64 usage\n",
	      f);
}

/* -b, -e, -i: a size in bytes, K, M or G (opt_fn of util/options.h) */
static int size_opt(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	return bench_parse_size(value, target) < 0 ? -1 : 0;
}

/* -o: a reduction or "all" (-1) */
static int redop_opt(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	int r = strcmp(value, "all") == 0 ? -1 : bench_redop_parse(value);
	if (r < 0 && strcmp(value, "all") != 0)
		return -1;
	*(int *)target = r;
	return 0;
}

/* -d: a data type or "all" (-1) */
static int type_opt(void *target, const char *value, char *why, size_t whysz)
{
	(void)why, (void)whysz;
	int t = strcmp(value, "all") == 0 ? -1 : bench_type_parse(value);
	if (t < 0 && strcmp(value, "all") != 0)
		return -1;
	*(int *)target = t;
	return 0;
}

/* --gpus with UUIDs or bus ids: NVML (in a worker, through topo) names the
 * selected GPUs' UUIDs; the ranks see only those (CUDA_VISIBLE_DEVICES in
 * NVML order), as devices 0..n-1. CUDA's own ordinals need not follow NVML's
 * order, so an index could not be passed on. */
static int visible_by_uuid(struct bench_opts *o, const struct run_opts *opt, int *n)
{
	struct result *tr = result_new("topo");
	struct topo_params tp = { .ask_driver = sysroot_is_live(), .gpus = &opt->gpus };
	struct machine mach;
	machine_init(&mach);
	collect_pci(&mach);
	collect_driver(&mach);
	if (tp.ask_driver)
		collect_gpus(&mach, opt_deadline(opt, DEADLINE_QUERY));
	topo_run(tr, &tp, &mach);
	machine_release(&mach);
	struct topo_model *m = tr->topo;
	size_t off = (size_t)snprintf(o->visible, sizeof(o->visible), "CUDA_VISIBLE_DEVICES=");
	const char *why = NULL;
	if (!m || m->n == 0)
		why = tr->error ? tr->error : "no GPU matches --gpus";
	for (size_t i = 0; !why && i < m->n; i++) {
		const char *u = m->gpus[i].uuid;
		int w = u ? snprintf(o->visible + off, sizeof(o->visible) - off, "%s%s", i ? "," : "", u) : -1;
		if (!u)
			why = finding_get(tr, FID_NVML_NOT_AVAILABLE)
				      ? "UUIDs and bus ids in --gpus need " NVML_LIB_TEXT ", which is missing here (GPU "
					"indices work without it)"
				      : "UUIDs and bus ids in --gpus need NVML, which did not answer (GPU indices work without it)";
		else if (w < 0 || (size_t)w >= sizeof(o->visible) - off || i >= BENCH_MAX_RANKS)
			why = "too many GPUs selected";
		else {
			off += (size_t)w;
			o->devices[i] = (int)i;
			*n = (int)i + 1;
		}
	}
	static struct gpusel one; /* each item must name a GPU, as topo requires of the whole list */
	for (size_t k = 0; !why && k < opt->gpus.n; k++) {
		one.n = 1;
		one.items[0] = opt->gpus.items[k];
		bool hit = false;
		for (size_t i = 0; i < m->n; i++)
			hit = hit || gpusel_match(&one, m->gpus[i].index, m->gpus[i].uuid, m->gpus[i].bdf);
		if (!hit)
			why = "an entry names none of the GPUs (UUIDs and bus ids as nvidia-smi -L and topo show them)";
	}
	int rc = why ? cmd_fatal("bench: --gpus %s: %s", opt->gpus.text ? opt->gpus.text : "", why) : 0;
	if (why)
		o->visible[0] = 0;
	result_free(tr);
	return rc;
}

static int pick_devices(struct bench_opts *o, const struct run_opts *opt)
{
	if (bench_mpi_active()) /* mpirun/srun: one rank per process */
		return bench_mpi_devices(o, opt);
	if (!gpusel_all(&opt->gpus)) {
		int n = 0;
		bool indices = true;
		for (size_t i = 0; i < opt->gpus.n; i++)
			indices = indices && opt->gpus.items[i].kind == GPUSEL_RANGE;
		for (size_t i = 0; indices && i < opt->gpus.n; i++) {
			const struct gpusel_item *it = &opt->gpus.items[i];
			for (int d = it->lo; d <= it->hi && n < BENCH_MAX_RANKS; d++)
				o->devices[n++] = d;
		}
		if (!indices) {
			int rc = visible_by_uuid(o, opt, &n);
			if (rc)
				return rc;
		}
		if (o->ngpus == 0)
			o->ngpus = n / (o->nthreads > 0 ? o->nthreads : 1) > 0 ? n / (o->nthreads > 0 ? o->nthreads : 1) : 1;
		if (n < o->ngpus)
			return cmd_usage_error("bench", "-g %lld needs %lld GPUs, --gpus names %d", o->ngpus, o->ngpus, n);
	} else {
		long long first = 0;
		const char *e = getenv("NCCL_TESTS_DEVICE");
		if (e && (parse_ll(e, 10, &first) < 0 || first < 0 || first > 1023))
			return cmd_usage_error("bench", "NCCL_TESTS_DEVICE is not a GPU index: '%s'", e);
		if (o->ngpus == 0)
			o->ngpus = 1;
		for (int i = 0; i < o->ngpus && i < BENCH_MAX_RANKS; i++)
			o->devices[i] = (int)first + i;
	}
	o->nranks = (int)(o->ngpus * o->nthreads);
	if (o->nranks > BENCH_MAX_RANKS)
		return cmd_usage_error("bench", "-t %lld x -g %lld is more than %d ranks", o->nthreads, o->ngpus, BENCH_MAX_RANKS);
	if (!gpusel_all(&opt->gpus) && o->nranks > o->ngpus)
		return cmd_usage_error("bench", "-t %lld -g %lld needs %d GPUs", o->nthreads, o->ngpus, o->nranks);
	if (gpusel_all(&opt->gpus))
		for (int i = 0; i < o->nranks; i++)
			o->devices[i] = o->devices[0] + i;
	return 0;
}

/* The options as nccl-tests has them, and ours, into o (its defaults set
 * first); returns cmd_options' value, *next the first argument. */
static int parse_flags(int argc, char **argv, struct bench_opts *o, int *next)
{
	static const char size_what[] = "a size (bytes, K, M or G)";
	static const char *const timers[] = { "wall", "event", NULL };
	long long factor = 1, root = 0;
	int mode = -1, timer = 0;
	const struct opt_spec opts[] = {
		OPT_CALL(NULL, 'b', &o->min_bytes, size_opt, size_what, "smallest size"),
		OPT_CALL(NULL, 'e', &o->max_bytes, size_opt, size_what, "largest size"),
		OPT_CALL(NULL, 'i', &o->step_bytes, size_opt, size_what, "step in bytes"),
		OPT_INT(NULL, 'f', &factor, 1, 1024, "multiply by N instead"),
		OPT_INT(NULL, 'n', &o->iters, 1, 1000000, "iterations"),
		OPT_INT(NULL, 'w', &o->warmup, 0, 1000000, "warm-up iterations"),
		OPT_INT(NULL, 'm', &o->agg, 1, 1024, "calls aggregated in a group"),
		OPT_INT(NULL, 'N', &o->cycles, 1, 1000000, "run the sweep N times"),
		OPT_INT(NULL, 'c', &o->check, 0, 100, "check results"),
		OPT_INT(NULL, 'z', &o->blocking, 0, 1, "wait after each iteration"),
		OPT_CALL(NULL, 'o', &o->redop, redop_opt, "sum, prod, max, min, avg or all", "reduction"),
		OPT_CALL(NULL, 'd', &o->type, type_opt,
			 "int8, uint8, int32, uint32, int64, uint64, half, float, double, bfloat16 or all", "data type"),
		OPT_INT(NULL, 'r', &root, -1, BENCH_MAX_RANKS - 1, "root of broadcast and reduce"),
		OPT_INT(NULL, 'g', &o->ngpus, 1, BENCH_MAX_RANKS, "GPUs per thread"),
		OPT_INT(NULL, 't', &o->nthreads, 1, BENCH_MAX_RANKS, "threads"),
		OPT_INT(NULL, 'a', &o->average, 0, 3, "time across ranks"),
		OPT_SECONDS(NULL, 'T', &o->coll_timeout, 0, 86400, "deadline per collective"),
		OPT_INT(NULL, 'C', &o->cputime, 0, 1, "report CPU time of the launches"),
		OPT_INT(NULL, 'G', &o->graph, 0, 1000000, "CUDA graph launches"),
		OPT_STRING(NULL, 'J', &o->json_file, "also write nccl-tests' JSON to FILE"),
		OPT_SET("procs", 0, &mode, 0, "one process per rank"),
		OPT_SET("threads", 0, &mode, 1, "every rank a thread of one process"),
		OPT_SECONDS_ABOVE("deadline-init", 0, &o->init_timeout, 0, 86400, "deadline for communicator init"),
		OPT_ENUM("timer", 0, &timer, timers, "nccl-tests' CPU clock or CUDA events"),
		OPT_FLAG("comm-blocking", 0, &o->comm_blocking, "blocking communicator"),
		OPT_FLAG("algo", 0, &o->algo, "show NCCL's algorithm/protocol per size"),
		OPT_FLAG("cuda-alloc", 0, &o->cuda_alloc, "buffers from cuMemAlloc"),
		OPT_FLAG("host-check", 0, &o->host_check, "check results on the host"),
		OPT_FLAG("force", 0, &o->force, "also run on GPUs that other processes hold"),
		OPT_HELP(),
		OPT_END(),
	};
	int rc = cmd_options("bench", argc, argv, opts, 0, usage, next);
	o->step_factor = (uint64_t)factor;
	o->root = (int)root;
	o->threads = mode == 1;
	o->event_timer = timer == 1;
	return rc;
}

/* Parses the options into o; returns 0, -1 after -h (exit 0), or 64. */
int bench_parse_opts(int argc, char **argv, struct bench_opts *o, const struct run_opts *opt)
{
	memset(o, 0, sizeof(*o));
	o->op = BOP_ALL_REDUCE, o->type = BT_FLOAT, o->redop = BR_SUM;
	o->min_bytes = o->max_bytes = 32ULL << 20, o->step_bytes = 1ULL << 20, o->step_factor = 1;
	o->iters = 20, o->warmup = 1, o->agg = 1, o->cycles = 1, o->check = 1, o->nthreads = 1, o->average = 1;
	o->init_timeout = DEFAULT_INIT_TIMEOUT;
	int next, rc = parse_flags(argc, argv, o, &next);
	if (rc == EXIT_HEALTHY)
		return -1; /* after -h */
	if (rc >= 0)
		return rc;
	if (next < argc) {
		if ((o->op = bench_op_parse(argv[next])) < 0)
			return cmd_usage_error("bench", "'%s' is not an operation (all_reduce, all_gather, reduce_scatter, "
						      "broadcast, reduce, alltoall, sendrecv)", argv[next]);
		if (next + 1 < argc)
			return cmd_usage_error("bench", "one operation at a time, not '%s'", argv[next + 1]);
	}
	if (o->min_bytes > o->max_bytes)
		return cmd_usage_error("bench", "invalid sizes: -b %llu is larger than -e %llu",
				       (unsigned long long)o->min_bytes, (unsigned long long)o->max_bytes);
	int n = bench_sizes(o->min_bytes, o->max_bytes, o->step_bytes, o->step_factor, o->sizes, BENCH_MAX_SIZES);
	if (n <= 0)
		return cmd_usage_error("bench", "the sizes from -b to -e with this step make more than %d rows (or none)",
				       BENCH_MAX_SIZES);
	o->nsizes = n;
	if ((rc = pick_devices(o, opt)))
		return rc;
	if (o->root >= o->nranks)
		return cmd_usage_error("bench", "-r %d: there are only %d ranks", o->root, o->nranks);
	/* the configurations: -d all, -o all, -r -1 loop as in nccl-tests */
	const struct bench_op_info *oi = bench_op_info(o->op);
	o->ntypes = o->nredops = o->nroots = 0;
	for (int t = 0; t < BT_COUNT; t++)
		if (o->type < 0 || t == o->type)
			o->types[o->ntypes++] = t;
	for (int r = 0; r < BR_COUNT; r++)
		if ((oi->redop && o->redop < 0) || r == (o->redop < 0 || !oi->redop ? BR_SUM : o->redop))
			o->redops[o->nredops++] = r;
	for (int r = 0; r < o->nranks; r++)
		if ((oi->root && o->root < 0) || r == (o->root < 0 || !oi->root ? 0 : o->root))
			o->roots[o->nroots++] = r;
	if ((long long)o->ntypes * o->nredops * o->nroots * o->cycles * o->nsizes > BENCH_MAX_SIZES)
		return cmd_usage_error("bench", "too many rows (types x reductions x roots x -N x sizes over %d)", BENCH_MAX_SIZES);
	return 0;
}

/* The arguments of every rank's `bench` task (after the rank protocol's). */
struct task_argv {
	char sizes[BENCH_MAX_SIZES * 21 + 1];
	char types[BT_COUNT * 10], redops[BR_COUNT * 6], root[BENCH_MAX_RANKS * 3 + 1], iters[24], warmup[24], agg[24], check[24], cycles[24], blocking[8], initto[32], collto[32], graph[24];
	const char *argv[RANKS_MAX_TASK_ARGS + 1];
};

static void build_task_args(const struct bench_opts *o, struct task_argv *t)
{
	size_t off = 0;
	for (int i = 0; i < o->nsizes; i++)
		off += (size_t)snprintf(t->sizes + off, sizeof(t->sizes) - off, "%s%llu", i ? "," : "",
					(unsigned long long)o->sizes[i]);
	size_t k = 0;
	for (int i = 0; i < o->ntypes; i++)
		k += (size_t)snprintf(t->types + k, sizeof(t->types) - k, "%s%s", i ? "," : "", bench_type_name(o->types[i]));
	k = 0;
	for (int i = 0; i < o->nredops; i++)
		k += (size_t)snprintf(t->redops + k, sizeof(t->redops) - k, "%s%s", i ? "," : "", bench_redop_name(o->redops[i]));
	k = 0;
	for (int i = 0; i < o->nroots; i++)
		k += (size_t)snprintf(t->root + k, sizeof(t->root) - k, "%s%d", i ? "," : "", o->roots[i]);
	snprintf(t->iters, sizeof(t->iters), "%lld", o->iters);
	snprintf(t->warmup, sizeof(t->warmup), "%lld", o->warmup);
	snprintf(t->agg, sizeof(t->agg), "%lld", o->agg);
	snprintf(t->check, sizeof(t->check), "%lld", o->check);
	snprintf(t->cycles, sizeof(t->cycles), "%lld", o->cycles);
	snprintf(t->blocking, sizeof(t->blocking), "%lld", o->blocking);
	snprintf(t->initto, sizeof(t->initto), "%g", o->init_timeout);
	snprintf(t->collto, sizeof(t->collto), "%g", o->coll_timeout);
	int n = 0;
	const char **a = t->argv;
	a[n++] = "--op", a[n++] = bench_op_info(o->op)->name;
	a[n++] = "--type", a[n++] = t->types;
	a[n++] = "--redop", a[n++] = t->redops;
	a[n++] = "--root", a[n++] = t->root;
	a[n++] = "--sizes", a[n++] = t->sizes;
	a[n++] = "--iters", a[n++] = t->iters;
	a[n++] = "--warmup", a[n++] = t->warmup;
	a[n++] = "--agg", a[n++] = t->agg;
	a[n++] = "--check", a[n++] = t->check;
	if (o->cycles != 1) /* the worker's defaults are left out: at most RANKS_MAX_TASK_ARGS */
		a[n++] = "--cycles", a[n++] = t->cycles;
	if (o->blocking)
		a[n++] = "--blocking", a[n++] = t->blocking;
	a[n++] = "--init-timeout", a[n++] = t->initto;
	a[n++] = "--coll-timeout", a[n++] = t->collto;
	a[n++] = "--timer", a[n++] = o->event_timer ? "event" : "wall";
	if (o->comm_blocking)
		a[n++] = "--comm-blocking";
	if (o->cuda_alloc)
		a[n++] = "--cuda-alloc";
	if (o->host_check)
		a[n++] = "--host-check";
	snprintf(t->graph, sizeof(t->graph), "%lld", o->graph);
	if (o->graph)
		a[n++] = "--graph", a[n++] = t->graph;
	a[n] = NULL;
}

static void copy_str(char *dst, size_t sz, json_t *v)
{
	const char *s = json_string_value(v);
	snprintf(dst, sz, "%s", s ? s : "");
}

/* NCCL's "F: N Bytes -> Algo A proto P" line: the rows whose call moves N bytes */
static void algo_line(struct bench_run *br, const char *line)
{
	unsigned long long bytes;
	char ap[32];
	if (bench_parse_algo(line, &bytes, ap, sizeof(ap)) < 0)
		return;
	const struct bench_opts *o = br->o;
	for (int row = 0; row < br->nrows; row++) {
		int type, redop, root;
		uint64_t size;
		bench_row_config(o, row, &type, &redop, &root, &size);
		size_t es = bench_type_size(type);
		struct bench_geom g;
		bench_geometry(o->op, (size_t)(size / es), es, o->nranks, &g);
		for (int ip = 0; ip < 2; ip++)
			if (g.param_count * es == bytes && !br->cells[row * 2 + ip].algo[0])
				snprintf(br->cells[row * 2 + ip].algo, sizeof(br->cells[0].algo), "%s", ap);
	}
}

/* --threads: one process prints every rank's "via" lines; each goes to
 * the rank that is its source */
static void via_line(struct bench_run *br, const char *line)
{
	int src, dst;
	char kind[64], item[96];
	if (!br->o->threads || bench_parse_via(line, &src, &dst, kind, sizeof(kind)) < 0 || src < 0 ||
	    src >= br->o->nranks)
		return;
	struct bench_rank *rk = &br->ranks[src];
	snprintf(item, sizeof(item), "%s->%d", kind, dst);
	size_t off = strlen(rk->transports), il = strlen(item);
	for (const char *p = rk->transports; (p = strstr(p, item)) != NULL; p += il)
		if ((p == rk->transports || p[-1] == ' ') && (p[il] == ',' || p[il] == '\0'))
			return; /* already listed */
	if (off + il + 3 < sizeof(rk->transports))
		snprintf(rk->transports + off, sizeof(rk->transports) - off, "%s%s", off ? ", " : "", item);
}

/* "P2P/IPC->1, SHM/direct/direct->3": the transports NCCL printed; and the
 * algorithm lines */
static void transports(struct bench_run *br, struct bench_rank *rk, json_t *lines)
{
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "rank");
	size_t i;
	json_t *l;
	uint64_t n = 0;
	json_array_foreach(lines, i, l) {
		const char *s = json_string_value(l);
		if (!s)
			continue;
		algo_line(br, s);
		via_line(br, s);
		if (strstr(s, " NCCL INFO ") || strstr(s, " NCCL WARN "))
			snprintf(rk->last_line, sizeof(rk->last_line), "%s", s);
		char *dup = xstrdup(s);
		nccllog_feed(&lg, f, dup, strlen(dup), ++n);
		free(dup);
	}
	nccllog_end_file(&lg, f, n, 0, 0, false);
	size_t off = strlen(rk->transports);
	int nprocs = br->o->threads ? 0 : lg.nprocs; /* --threads: per rank from the via lines instead */
	for (int p = 0; p < nprocs; p++)
		for (int t = 0; t < lg.procs[p].ntr && off < sizeof(rk->transports) - 1; t++)
			off += (size_t)snprintf(rk->transports + off, sizeof(rk->transports) - off, "%s%s->%d",
						off ? ", " : "", lg.procs[p].tr[t].kind, lg.procs[p].tr[t].peer);
	if (off >= sizeof(rk->transports))
		rk->transports[sizeof(rk->transports) - 1] = '\0';
	nccllog_release(&lg);
}

/* The results of worker w; each names its rank (else the worker's index). */
static void collect_worker(struct bench_run *br, int w)
{
	size_t k;
	json_t *res;
	json_array_foreach(br->ws[w].results, k, res) {
		const char *kind = json_string_value(json_object_get(res, "kind"));
		json_t *rj = json_object_get(res, "rank");
		int i = json_is_integer(rj) ? (int)json_integer_value(rj) : w;
		if (!kind || i < 0 || i >= br->o->nranks)
			continue;
		struct bench_rank *rk = &br->ranks[i];
		if (strcmp(kind, "rank") == 0) {
			rk->pid = (int)json_integer_value(json_object_get(res, "pid"));
			copy_str(rk->host, sizeof(rk->host), json_object_get(res, "host"));
			copy_str(rk->busid, sizeof(rk->busid), json_object_get(res, "busid"));
			copy_str(rk->name, sizeof(rk->name), json_object_get(res, "name"));
			copy_str(rk->nccl_version, sizeof(rk->nccl_version), json_object_get(res, "nccl_version"));
			rk->nccl_code = (int)json_integer_value(json_object_get(res, "nccl_code"));
			json_t *dv = json_object_get(res, "devices");
			rk->devices = json_is_integer(dv) ? (int)json_integer_value(dv) : -1;
		} else if (strcmp(kind, "init") == 0) {
			rk->init_s = json_number_value(json_object_get(res, "init_s"));
			rk->nonblocking = json_is_true(json_object_get(res, "nonblocking"));
		} else if (strcmp(kind, "nccl_lines") == 0) {
			transports(br, rk, json_object_get(res, "lines"));
		} else if (strcmp(kind, "phase") == 0) {
			copy_str(rk->phase, sizeof(rk->phase), json_object_get(res, "phase"));
		} else if (strcmp(kind, "checker") == 0) {
			copy_str(rk->checker, sizeof(rk->checker), json_object_get(res, "where"));
			copy_str(rk->checker_why, sizeof(rk->checker_why), json_object_get(res, "why"));
		} else if (strcmp(kind, "done") == 0) {
			rk->done = true;
		} else if (strcmp(kind, "cell") == 0) {
			int row = (int)json_integer_value(json_object_get(res, "row"));
			int ip = json_is_true(json_object_get(res, "inplace"));
			if (row < 0 || row >= br->nrows)
				continue;
			struct bench_cellset *cs = &br->cells[row * 2 + ip];
			cs->time_s[i] = json_number_value(json_object_get(res, "time_s"));
			cs->cpu_s[i] = json_number_value(json_object_get(res, "cputime_s"));
			cs->wrong[i] = (long long)json_integer_value(json_object_get(res, "wrong"));
			cs->bytes = (uint64_t)json_integer_value(json_object_get(res, "bytes"));
			cs->count = (uint64_t)json_integer_value(json_object_get(res, "count"));
			cs->have++;
		}
	}
}

/* The last NCCL line in a worker's output tail (its lines were not sent:
 * killed by the parent) */
static void last_line_from_tail(const struct worker *w, char *out, size_t sz)
{
	const char *t = strbuf_str(&w->tail), *best = NULL;
	for (const char *p = t; (p = strstr(p, " NCCL ")) != NULL; p++)
		if (strncmp(p, " NCCL INFO ", 11) == 0 || strncmp(p, " NCCL WARN ", 11) == 0)
			best = p;
	if (!best)
		return;
	const char *start = best, *end = strchr(best, '\n');
	while (start > t && start[-1] != '\n')
		start--;
	size_t n = end ? (size_t)(end - start) : strlen(start);
	snprintf(out, sz, "%.*s", (int)(n < sz ? n : sz - 1), start);
}

static void collect(struct bench_run *br)
{
	for (int i = 0; i < br->o->nranks; i++) {
		struct bench_rank *rk = &br->ranks[i];
		rk->rank = i;
		rk->device = br->o->devices[i];
		rk->init_s = -1;
		rk->devices = -1;
		rk->w = &br->ws[br->o->threads ? 0 : i];
	}
	for (int w = 0; w < br->nworkers; w++)
		collect_worker(br, w);
	for (int i = 0; i < br->o->nranks; i++)
		if (!br->ranks[i].last_line[0] && !br->o->threads)
			last_line_from_tail(br->ranks[i].w, br->ranks[i].last_line, sizeof(br->ranks[i].last_line));
}

/* Where a rank stopped, in the words of the issue: bootstrap, init, or the
 * row ("size N of op X ..."). */
static void phase_of_text(const char *stage, char *out, size_t sz)
{
	if (strncmp(stage, "size ", 5) == 0 || strncmp(stage, "warm-up ", 8) == 0 || strcmp(stage, "init") == 0)
		snprintf(out, sz, "%s", stage);
	else if (strncmp(stage, "ncclComm", 8) == 0 || strncmp(stage, "cuMem", 5) == 0 ||
		 strncmp(stage, "cuStream", 8) == 0)
		snprintf(out, sz, "%s", stage);
	else
		snprintf(out, sz, "bootstrap (%.200s)", stage[0] ? stage : "not started");
}

static void phase_of(const struct worker *w, char *out, size_t sz)
{
	/* the stage of the first error (later stages are the clean-up) */
	const char *st = json_string_value(json_object_get(worker_error(w), "stage"));
	phase_of_text(st && *st ? st : w->stage, out, sz);
}

static void combine(struct bench_run *br)
{
	const struct bench_opts *o = br->o;
	int n = o->nranks;
	double bwsum = 0;
	br->complete = true;
	for (int c = 0; c < br->nrows * 2; c++) {
		struct bench_cellset *cs = &br->cells[c];
		if (cs->have != n) {
			br->complete = false;
			continue;
		}
		int type, redop, root;
		uint64_t size;
		bench_row_config(o, c / 2, &type, &redop, &root, &size);
		size_t es = bench_type_size(type);
		double t = bench_combine(cs->time_s, n, (int)o->average);
		double shown = o->cputime ? bench_combine(cs->cpu_s, n, (int)o->average) : t;
		cs->cell.present = true;
		cs->cell.time_us = shown * 1e6;
		bench_bw(o->op, (size_t)cs->count, es, t, n, &cs->cell.algbw, &cs->cell.busbw);
		cs->cell.wrong = o->check ? 0 : -1;
		for (int r = 0; r < n && o->check; r++) {
			if (cs->wrong[r] > 0) {
				cs->cell.wrong += cs->wrong[r];
				br->errors++;
			}
		}
		br->wrong_total += cs->cell.wrong > 0 ? cs->cell.wrong : 0;
		bwsum += cs->cell.busbw;
		br->nbw++;
	}
	br->avg_busbw = br->nbw ? bwsum / br->nbw : 0;
}

/* The ranks that did not finish, grouped by the phase each was in:
 * "0,1,2,3", or "0,1 (size 8 of op sendrecv out-of-place); 2,3 (...)" */
static void diagnose(struct bench_run *br)
{
	const struct bench_opts *o = br->o;
	char phases[BENCH_MAX_RANKS][256];
	bool done[BENCH_MAX_RANKS] = { false };
	int ngroups = 0;
	br->failed_rank = -1;
	for (int i = 0; i < o->nranks; i++) {
		const struct bench_rank *rk = &br->ranks[i];
		done[i] = rk->done && rk->w->status != WORKER_CRASH;
		if (!done[i] && o->threads && rk->phase[0])
			phase_of_text(rk->phase, phases[i], sizeof(phases[i]));
		else if (!done[i])
			phase_of(rk->w, phases[i], sizeof(phases[i]));
		if (!done[i] && br->failed_rank < 0) {
			br->failed_rank = i;
			snprintf(br->phase, sizeof(br->phase), "%s", phases[i]);
		}
	}
	/* a rank that failed by itself (not at a deadline) explains the others,
	 * which then wait for it until theirs */
	for (int i = 0; i < o->nranks && br->failed_rank >= 0; i++) {
		const struct worker *w = br->ranks[i].w;
		const char *name = json_string_value(json_object_get(worker_error(w), "name"));
		if (!done[i] && !o->threads && (w->status == WORKER_CRASH || (w->status == WORKER_ERROR && !(name && strcmp(name, "timeout") == 0)))) {
			br->failed_rank = i;
			snprintf(br->phase, sizeof(br->phase), "%s", phases[i]);
			break;
		}
	}
	size_t off = 0, cap = sizeof(br->not_finished);
	bool one_phase = true;
	for (int i = 0; i < o->nranks; i++)
		if (!done[i] && strcmp(phases[i], br->phase) != 0)
			one_phase = false;
	for (int i = 0; i < o->nranks && off < cap - 1; i++) {
		if (done[i])
			continue;
		bool first_of_phase = true;
		for (int j = 0; j < i; j++)
			if (!done[j] && strcmp(phases[j], phases[i]) == 0)
				first_of_phase = false;
		if (!first_of_phase)
			continue;
		int k = 0;
		off += (size_t)snprintf(br->not_finished + off, cap - off, "%s", ngroups++ ? "; " : "");
		for (int j = i; j < o->nranks && off < cap - 1; j++)
			if (!done[j] && strcmp(phases[j], phases[i]) == 0)
				off += (size_t)snprintf(br->not_finished + off, cap - off, "%s%d", k++ ? "," : "", j);
		if (!one_phase && off < cap - 1)
			off += (size_t)snprintf(br->not_finished + off, cap - off, " (%s)", phases[i]);
	}
	if (off >= cap)
		br->not_finished[cap - 1] = '\0';
	if (br->failed_rank < 0)
		return;
	/* could not run at all: no library, no GPU (every rank stopped before init) */
	const struct worker *w = br->ranks[br->failed_rank].w;
	json_t *err = worker_error(w);
	const char *lib = json_string_value(json_object_get(err, "lib"));
	const char *msg = json_string_value(json_object_get(err, "message"));
	snprintf(br->why, sizeof(br->why), "%s", msg ? msg : w->why);
	if (br->ranks[br->failed_rank].init_s < 0 && w->status == WORKER_ERROR &&
	    ((lib && strcmp(lib, "loader") == 0) || strcmp(w->stage, "cuInit") == 0 || strcmp(w->stage, "cuDeviceGet") == 0))
		br->could_not_run = true;
}

/* --threads: one worker process runs every rank as a thread
 * (`--local-ranks N --devices LIST`), with the deadlines of spec. */
static int run_threads(const struct bench_opts *o, const struct ranks_spec *spec, struct bench_run *br)
{
	static char devs[BENCH_MAX_RANKS * 6 + 1], nr[16], local[16], dev0[16];
	size_t off = 0;
	for (int i = 0; i < o->nranks; i++)
		off += (size_t)snprintf(devs + off, sizeof(devs) - off, "%s%d", i ? "," : "", o->devices[i]);
	snprintf(nr, sizeof(nr), "%d", o->nranks);
	snprintf(local, sizeof(local), "%d", o->nranks);
	snprintf(dev0, sizeof(dev0), "%d", o->devices[0]);
	const char *args[RANKS_MAX_TASK_ARGS + 20];
	int n = 0;
	args[n++] = "--nranks", args[n++] = nr, args[n++] = "--rank", args[n++] = "0", args[n++] = "--device", args[n++] = dev0;
	args[n++] = "--id", args[n++] = "create", args[n++] = "--local-ranks", args[n++] = local;
	args[n++] = "--devices", args[n++] = devs;
	if (spec->nccl)
		args[n++] = "--nccl", args[n++] = spec->nccl;
	for (int k = 0; spec->task_args[k] && n < RANKS_MAX_TASK_ARGS + 19; k++)
		args[n++] = spec->task_args[k];
	args[n] = NULL;
	struct worker_spec ws = {
		.task = spec->task, .args = args, .env = spec->env, .deadline = spec->deadline,
		.stage_deadline = spec->stage_deadline, .grace = spec->grace,
	};
	worker_init(&br->ws[0]);
	int r = worker_start(&br->ws[0], &ws);
	if (r == 0)
		worker_wait((struct worker *[]){ &br->ws[0] }, 1);
	br->ws[0].spec.args = NULL; /* args lives on this stack */
	return r;
}

int bench_execute(const struct bench_opts *o, const struct run_opts *opt, const char *const *extra_env,
		  struct bench_run **out)
{
	static struct task_argv targs;
	build_task_args(o, &targs);
	const char *env[BENCH_MAX_ENV + 3];
	int nenv = 0;
	if (o->visible[0])
		env[nenv++] = o->visible;
	for (int k = 0; extra_env && extra_env[k] && nenv < BENCH_MAX_ENV; k++)
		env[nenv++] = extra_env[k];
	if (!getenv("NCCL_DEBUG") || o->algo)
		env[nenv++] = "NCCL_DEBUG=INFO";
	if (o->algo)
		env[nenv++] = "NCCL_DEBUG_SUBSYS=INIT,ENV,TUNING";
	env[nenv] = NULL;
	struct bench_run *br = xcalloc(1, sizeof(*br));
	br->o = o;
	br->nrows = (int)(o->ntypes * o->nredops * o->nroots * o->nsizes * o->cycles);
	br->cells = xcalloc((size_t)br->nrows * 2, sizeof(*br->cells));
	const char *mb = getenv("NCCL_TESTS_MIN_BW");
	br->min_bw = mb ? atof(mb) : -1;
	double whole = o->init_timeout + 30 + (double)br->nrows * 2 * (o->coll_timeout + 5) + o->coll_timeout;
	struct ranks_spec spec = {
		.task = "bench",
		.task_args = targs.argv,
		.nranks = o->nranks,
		.devices = o->devices,
		.nccl = opt->nccl,
		.count = 1,
		.deadline = opt->timeout > 0 ? opt->timeout : whole < 86400 ? whole : 86400,
		.stage_deadline = (o->init_timeout > o->coll_timeout ? o->init_timeout : o->coll_timeout) + 10,
		.grace = 2,
		.env = env,
	};
	int r = o->threads ? run_threads(o, &spec, br) : bench_mpi_active() ? bench_mpi_run(&spec, br->ws) : ranks_run(&spec, br->ws);
	br->nworkers = o->threads ? 1 : o->nranks;
	for (int i = 0; i < br->nworkers; i++)
		br->ws[i].spec.env = NULL; /* env lives on this stack */
	if (r < 0) {
		bench_run_free(br);
		return r;
	}
	if (bench_mpi_root()) { /* under MPI, rank 0 collects for every process */
		collect(br);
		combine(br);
		diagnose(br);
	}
	*out = br;
	return 0;
}

bool bench_run_cut(const struct bench_run *br)
{
	if (!br || br->failed_rank < 0 || br->could_not_run)
		return false;
	bool any = false;
	for (int i = 0; i < br->o->nranks; i++) {
		const struct worker *w = br->ranks[i].w;
		if (br->ranks[i].done || !w)
			continue;
		if (w->status != WORKER_HANG || !w->cut)
			return false;
		any = true;
	}
	return any;
}

void bench_run_free(struct bench_run *br)
{
	if (!br)
		return;
	for (int i = 0; i < br->nworkers; i++)
		worker_release(&br->ws[i]);
	free(br->cells);
	free(br);
}

int cmd_bench(int argc, char **argv, const struct run_opts *opt)
{
	static struct bench_opts o;
	int rc = bench_mpi_start();
	if (rc)
		return rc;
	rc = bench_parse_opts(argc, argv, &o, opt);
	if (rc)
		return rc < 0 ? 0 : rc;
	if (o.coll_timeout <= 0)
		o.coll_timeout = DEFAULT_COLL_TIMEOUT;
	if (!o.force && (rc = bench_busy_check(&o, opt)) != 0)
		return rc;
	static char jpath[4096];
	char jerr[256] = "";
	int jfd = -1;
	if (o.json_file && bench_mpi_root()) {
		if ((jfd = bench_open_json_file(o.json_file, jpath, sizeof(jpath), jerr, sizeof(jerr))) < 0)
			return cmd_fatal("bench: %s", jerr);
		if (!opt->json) /* as nccl-tests, before anything else */
			printf("# Writing JSON output to %s\n", jpath);
		fflush(stdout); /* before the fork of the ranks */
	}
	struct bench_run *br = NULL;
	int r = bench_execute(&o, opt, NULL, &br);
	if (r < 0) {
		if (jfd >= 0) {
			close(jfd);
			unlink(jpath);
		}
		return cmd_fatal("bench: cannot start the rank processes: %s", strerror(-r));
	}
	if (!bench_mpi_root()) /* rank 0 reports for every process */
		goto release;
	bench_wedged_check(br, opt);
	if (jfd >= 0 && bench_write_json_file(br, jfd, jpath, jerr, sizeof(jerr)) < 0)
		report_say(stderr, "nccl-doctor bench: %s", jerr);
	struct result *res = bench_result(br);
	if (opt->json) {
		rc = cmd_finish(res, opt);
	} else {
		bench_print_text(br, stdout);
		int more = bench_one_rank_of(br);
		if (more > 1 && br->complete)
			report_say(stderr, "nccl-doctor bench: one rank measures no bus bandwidth; %d GPUs are visible: -g %d runs one rank on each",
				more, more);
		rc = result_exit_code(res);
		if (res->error)
			report_say(stderr, "nccl-doctor bench: %s", res->error);
		result_free(res);
		if (fflush(stdout) != 0)
			rc = EXIT_CANNOT_RUN;
	}
	if (jerr[0] && rc == 0)
		rc = EXIT_CANNOT_RUN;
release:
	bench_run_free(br);
	return bench_mpi_finish(rc);
}
