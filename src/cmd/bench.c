/* nccl-doctor bench: the collective benchmark of nccl-tests, with its flags
 * (parsed here, the GPUs picked from --gpus), run by the bench engine
 * (engine/bench.c: one worker process per GPU under deadlines) and printed
 * by bench_report.c (nccl-tests' text byte for byte, -J, --json). */
#include "analyze/topo.h"
#include "analyze/worker_findings.h"
#include "cmd/bench.h"
#include "collect/collect.h"
#include "kb/findings.h"
#include "report/report.h"
#include "model/visible.h"
#include "util/progress.h"
#include "util/sysroot.h"
#include "util/text.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fputs("usage: nccl-doctor bench [OP] [options]\n"
	      "\n"
	      "The collective benchmark of nccl-tests, with its flags, columns, busbw\n"
	      "formulas and footers, run as one process per GPU under deadlines. A hang is\n"
	      "named with its phase and ranks; the rows done so far stay printed.\n"
	      "\n"
	      "OP: all_reduce (default), all_gather, reduce_scatter, broadcast, reduce,\n"
	      "    alltoall, sendrecv, gather, scatter, alltoallv, hypercube (also as\n"
	      "    all_reduce_perf, ...). alltoall, gather and scatter run as NCCL's own\n"
	      "    call where the library has it (2.28+), else as grouped send/recv;\n"
	      "    alltoallv sends nccl-tests' distance-weighted pattern\n"
	      "    (NCCL_TESTS_ALLTOALLV_SPREAD 0..1) or the bytes of the matrix in\n"
	      "    NCCL_TESTS_ALLTOALLV_MATRIX_FILE (-b = -e), and with\n"
	      "    NCCL_TESTS_ALLTOALLV_PRINT_SUMMARY=1 prints each rank's bytes and\n"
	      "    bandwidths inside each row, as nccl-tests; hypercube needs 2^k ranks;\n"
	      "    NCCL_TESTS_SPLIT_MASK / NCCL_TESTS_SPLIT run groups of ranks at once\n"
	      "\n"
	      "options (as nccl-tests):\n"
	      "  -b SIZE   smallest size (default 32M; K, M, G are binary)\n"
	      "  -e SIZE   largest size (default 32M)\n"
	      "  -i SIZE   step in bytes (default 1M)      -f N  multiply by N instead\n"
	      "  -n N      iterations (20)                 -w N  warm-up iterations (1)\n"
	      "  -m N      calls aggregated in a group (1)\n"
	      "  -c 0|1    check results (1)               -N N  run the sweep N times (1)\n"
	      "  -z 0-3    blocking: 1 wait + barrier after each iteration, 2 wait, 3 wait +\n"
	      "            barrier after each outer (-n) iteration, time without it (0); the\n"
	      "            rank processes have no barrier here: each waits for its stream\n"
	      "  -o OP     reduction: sum prod max min avg, or all (sum)\n"
	      "  -d TYPE   int8 uint8 int32 uint32 int64 uint64 half float double bfloat16, all (float)\n"
	      "  -r ROOT   root of broadcast, reduce, gather, scatter (0; -1: every rank)\n"
	      "  -g N      GPUs per thread, one rank each (1)  -t N  threads (1): -t x -g ranks\n"
	      "  -a 0-3    time across ranks: rank 0, average (1), minimum, maximum\n"
	      "  -T SEC    deadline per collective (default 60; nccl-tests: none)\n"
	      "  -C 0|1    report CPU time of the launches (0)\n"
	      "  -G N      capture the iterations in a CUDA graph and launch it N times (0)\n"
	      "  -I 0|1    per-iteration CUDA event times: i_min i_max i_p99 i_cv% columns,\n"
	      "            all times in -J (0; not with -G)\n"
	      "  -K N      leave the first N iterations out of -I's summary (0)\n"
	      "  -S 0|1    a timestamp after each row (0)\n"
	      "  -M 0|1    GPU memory used by init, the buffers and the sweep (0)\n"
	      "  -u N      buffers start at element N, misaligned (0)\n"
	      "  -R 0-2    register the buffers with NCCL: 1 local (ncclCommRegister), 2\n"
	      "            symmetric (ncclCommWindowRegister, NCCL 2.27+) (0)\n"
	      "  -y 0|1    run on the NULL (legacy default) stream (0)\n"
	      "  -x 0-2    NCCL's CTA policy: default, efficiency, zero (2.28+) (not set)\n"
	      "  -p 0|1    parallel init: the ranks here always initialise concurrently (one\n"
	      "            process or thread each); 1 prints nccl-tests' line (0)\n"
	      "  -D N      nccl-tests' device-API kernels: only 0 (NCCL's calls) here\n"
	      "  -V N      CTAs of -D's kernels, 1-128 (16): no effect with -D 0, as in nccl-tests\n"
	      "  -J FILE   also write nccl-tests' JSON (its version 3 layout) to FILE\n"
	      "our additions:\n"
	      "  --procs            one process per rank (the default, as vLLM runs)\n"
	      "  --threads N        N ranks as threads of one process (-t N in one process, as\n"
	      "                     nccl-tests without MPI); -g N GPUs each\n"
	      "  --deadline-init SEC  deadline for communicator init (default 60)\n"
	      "  --timer wall|event  nccl-tests' CPU clock (default) or CUDA events\n"
	      "  --comm-nonblocking  nonblocking communicator (ncclInProgress polled after each\n"
	      "                     call; collectives only). Default: blocking, as nccl-tests,\n"
	      "                     with the rank's watchdog ending a call that blocks\n"
	      "                     (--comm-blocking: the default, accepted)\n"
	      "  --cuda-alloc       buffers from cuMemAlloc (default: ncclMemAlloc where NCCL\n"
	      "                     has it, 2.19+, as nccl-tests)\n"
	      "  --algo             show NCCL's algorithm/protocol per size (NCCL_DEBUG_SUBSYS=\n"
	      "                     INIT,ENV,TUNING: NCCL then prints a line per call, which\n"
	      "                     costs time at small sizes)\n"
	      "  --host-check       check results on the host (default: on the GPU, by PTX\n"
	      "                     kernels; the host where they do not load, said once)\n"
	      "  --rendezvous HOST:PORT  rank 0's address under a launcher (docs/fleet.md)\n"
	      "  --pairs quick|all  under a launcher: the nodes two at a time in rounds of\n"
	      "                     disjoint pairs (quick: a ring, all: every pair), a node x\n"
	      "                     node busbw matrix, slow links and nodes (median/MAD)\n"
	      "  --local            a benchmark of this node alone under a launcher (srun\n"
	      "                     with one task per node running bench --local -g 8)\n"
	      "  --force            also run on GPUs that other processes hold (default: a\n"
	      "                     GPU in use stops the run with exit 3, naming the\n"
	      "                     process and its memory)\n"
	      "  --html FILE        also write the result as one self-contained HTML page\n"
	      "                     (bus bandwidth per size; docs/html.md)\n"
	      "GPUs: --gpus LIST (indices = CUDA ordinals; UUIDs or bus ids through NVML, the\n"
	      "ranks then see only those GPUs) picks them, else NCCL_TESTS_DEVICE + 0..N-1.\n"
	      "Under a launcher (srun, mpirun, torchrun, a Kubernetes Indexed Job) every\n"
	      "process is one rank on the GPU of its local rank (with -g G, G ranks on\n"
	      "its node's GPUs: one process per node), and rank 0 prints the\n"
	      "report for all; the processes meet at rank 0's address (MASTER_ADDR/PORT,\n"
	      "Slurm's first node, or --rendezvous HOST:PORT) within --deadline-init, or\n"
	      "through MPI in a build with -DNCCL_DOCTOR_MPI=ON (docs/fleet.md).\n"
	      "Ranks run with NCCL_DEBUG=INFO (unless NCCL_DEBUG is set) so that the\n"
	      "transports NCCL chose can be shown. NCCL_TESTS_MIN_BW as in nccl-tests.\n"
	      "\n"
	      "After a hang, a GPU that stays busy with no process is reported as wedged,\n"
	      "with the command that resets it.\n"
	      "\n"
	      "exit status: 0 every result right, 2 wrong results, a hang, an NCCL error or\n"
	      "busbw under NCCL_TESTS_MIN_BW, 3 could not run (no GPU, no libnccl, a GPU in\n"
	      "use without --force), 64 usage; verdict (a last '# Verdict:' line): HEALTHY 0,\n"
	      "BROKEN 2, INCOMPLETE 3\n",
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
	const char *why = NULL;
	if (!m || m->n == 0)
		why = tr->error ? tr->error : "no GPU matches --gpus";
	const char *ids[BENCH_MAX_RANKS];
	for (size_t i = 0; !why && i < m->n; i++) {
		const char *u = m->gpus[i].uuid;
		if (!u)
			why = finding_get(tr, FID_NVML_NOT_AVAILABLE)
				      ? "UUIDs and bus ids in --gpus need " NVML_LIB_TEXT ", which is missing here (GPU "
					"indices work without it)"
				      : "UUIDs and bus ids in --gpus need NVML, which did not answer (GPU indices work without it)";
		else if (i >= BENCH_MAX_RANKS)
			why = "too many GPUs selected";
		else
			ids[i] = u;
	}
	int vrc = why ? 0 : cvd_format(o->visible, sizeof(o->visible), ids, m->n, NULL);
	if (vrc == -EINVAL)
		why = "NVML names a selected GPU with characters CUDA_VISIBLE_DEVICES cannot carry";
	else if (vrc < 0)
		why = "too many GPUs selected";
	for (size_t i = 0; !why && i < m->n; i++)
		o->devices[i] = (int)i;
	if (!why)
		*n = (int)m->n;
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
	char err[1024];
	int w = bench_world_devices(o, opt, err, sizeof(err)); /* srun, mpirun, torchrun, ...: one rank per process */
	if (w == -EINVAL)
		return cmd_usage_error("bench", "%s", err);
	if (w == -ETIMEDOUT && bench_world_launcher_rank() == 0 && (opt->json || opt->markdown || opt->reason_line)) {
		/* ranks never joined: rank 0's result names them, as a document too (`--out %h.json` for merge) */
		struct result *r = result_new("bench");
		finding_add(r, FID_FLEET_NODE_MISSING, SEV_ERROR, "%s", err);
		result_set_error(r, "%s", err);
		cmd_fatal("bench: %s", err);
		return cmd_finish(r, opt);
	}
	if (w < 0)
		return cmd_fatal("bench: %s", err);
	if (w > 0)
		return 0;
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

/* Whether s is a count (digits only): "--threads 4" takes it, a bare
 * "--threads" before another option or the operation does not. */
static bool is_count(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* The bare "--threads" of before (the mode alone, -t threads) out of argv
 * into *bare, said once on stderr; argv is compacted, the new argc returned.
 * Options end at "--". */
static int bare_threads(int argc, char **argv, bool *bare)
{
	int n = 1;
	bool done = false;
	for (int i = 1; i < argc; i++) {
		done |= strcmp(argv[i], "--") == 0;
		if (!done && strcmp(argv[i], "--threads") == 0 && (i + 1 >= argc || !is_count(argv[i + 1]))) {
			if (!*bare)
				report_say(stderr, "nccl-doctor bench: a bare '--threads' is deprecated: say '--threads N' "
						   "(N ranks as threads of one process, as nccl-tests' -t N)");
			*bare = true;
			continue;
		}
		argv[n++] = argv[i];
	}
	argv[n] = NULL;
	return n;
}

/* The options as nccl-tests has them, and ours, into o (its defaults set
 * first); returns cmd_options' value, *next the first argument. */
static int parse_flags(int argc, char **argv, struct bench_opts *o, int *next, bool bare)
{
	static const char size_what[] = "a size (bytes, K, M or G)";
	static const char *const timers[] = { "wall", "event", NULL };
	static const char *const pair_modes[] = { "quick", "all", NULL };
	int pairs = -1;
	long long factor = 1, root = 0, nthreads = 0;
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
		OPT_INT(NULL, 'z', &o->blocking, 0, 3, "blocking: 1 wait and barrier, 2 wait, 3 wait per outer iteration"),
		OPT_INT(NULL, 'I', &o->per_iter, 0, 1, "per-iteration timing"),
		OPT_INT(NULL, 'K', &o->per_iter_skip, 0, 1000000, "leading iterations left out of -I's summary"),
		OPT_INT(NULL, 'S', &o->timestamps, 0, 1, "a timestamp per row"),
		OPT_INT(NULL, 'M', &o->memory, 0, 1, "memory usage report"),
		OPT_INT(NULL, 'u', &o->unalign, 0, 4096, "first element of the buffers"),
		OPT_INT(NULL, 'p', &o->parallel_init, 0, 1, "parallel init"),
		OPT_INT(NULL, 'y', &o->stream_null, 0, 1, "the NULL stream"),
		OPT_INT(NULL, 'R', &o->local_register, 0, 2, "buffer registration: 1 local, 2 symmetric"),
		OPT_INT(NULL, 'x', &o->cta_policy, 0, 2, "NCCL's CTA policy"),
		OPT_INT(NULL, 'D', &o->device_impl, 0, 1000, "device API implementation"),
		OPT_INT(NULL, 'V', &o->device_ctas, 1, 128, "CTAs of the device implementation"),
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
		OPT_INT("threads", 0, &nthreads, 1, BENCH_MAX_RANKS, "N ranks as threads of one process (as -t N)"),
		OPT_SECONDS_ABOVE("deadline-init", 0, &o->init_timeout, 0, 86400, "deadline for communicator init"),
		OPT_ENUM("timer", 0, &timer, timers, "nccl-tests' CPU clock or CUDA events"),
		OPT_FLAG("comm-blocking", 0, &o->comm_blocking, "blocking communicator (the default)"),
		OPT_FLAG("comm-nonblocking", 0, &o->comm_nonblocking, "nonblocking communicator"),
		OPT_FLAG("algo", 0, &o->algo, "show NCCL's algorithm/protocol per size"),
		OPT_FLAG("cuda-alloc", 0, &o->cuda_alloc, "buffers from cuMemAlloc"),
		OPT_FLAG("host-check", 0, &o->host_check, "check results on the host"),
		OPT_FLAG("force", 0, &o->force, "also run on GPUs that other processes hold"),
		CMD_OPT_HTML(o),
		OPT_STRING("rendezvous", 0, &o->rendezvous, "rank 0's HOST:PORT under a launcher"),
		OPT_FLAG("local", 0, &o->local, "a benchmark of this node alone, whatever the launcher"),
		OPT_ENUM("pairs", 0, &pairs, pair_modes, "a sweep of node pairs: quick (a ring) or all"),
		OPT_HELP(),
		OPT_END(),
	};
	int rc = cmd_options("bench", argc, argv, opts, 0, usage, next);
	if (rc < 0 && nthreads > 0) {
		/* --threads N is -t N in one process: one count, said once */
		if (o->nthreads != 1 && o->nthreads != nthreads)
			return cmd_usage_error("bench", "--threads %lld and -t %lld: give the count once", nthreads, o->nthreads);
		if (mode == 0)
			return cmd_usage_error("bench", "--threads N runs the ranks as threads of one process, --procs as processes: not both");
		o->nthreads = nthreads;
		mode = 1;
	}
	if (rc < 0 && bare) {
		if (mode == 0)
			return cmd_usage_error("bench", "--threads runs the ranks as threads of one process, --procs as processes: not both");
		mode = 1;
	}
	o->step_factor = (uint64_t)factor;
	o->root = (int)root;
	o->threads = mode == 1;
	o->event_timer = timer == 1;
	o->pairs = pairs < 0 ? BENCH_PAIRS_NONE : pairs == 0 ? BENCH_PAIRS_QUICK : BENCH_PAIRS_ALL;
	return rc;
}

#define BENCH_PER_ITER_MAX 20000

/* The flags of nccl-tests 2.19 that depend on each other, as it decides
 * them (common.cu, after getopt): what it disables with a line on stderr
 * is disabled here with the same line; what bench cannot do is refused. */
static int check_flag_pairs(struct bench_opts *o)
{
	if (o->device_impl > 0)
		return cmd_usage_error("bench", "-D %lld: nccl-tests' device-API implementations are its own CUDA kernels "
					      "built against NCCL's device headers; bench has none (-D 0: NCCL's calls)",
				       o->device_impl);
	if (o->local_register == 2 && o->cuda_alloc)
		return cmd_usage_error("bench",
				       "-R 2 (symmetric registration) needs the buffers from ncclMemAlloc, not --cuda-alloc");
	if (o->per_iter && o->graph > 0) {
		report_say(stderr,
			   "nccl-doctor bench: per-iteration timing (-I) is incompatible with CUDA graph mode (-G). Disabling.");
		o->per_iter = 0;
	}
	if (o->blocking == 3 && o->graph > 0) {
		report_say(stderr, "nccl-doctor bench: blocking mode (-z 3) is incompatible with CUDA graph mode (-G). Disabling.");
		o->blocking = 0;
	}
	/* each rank's times of a cell travel in one protocol line (WORKER_LINE_MAX,
	 * 1 MiB: some 40000 numbers) */
	if (o->per_iter && o->iters > BENCH_PER_ITER_MAX)
		return cmd_usage_error("bench", "-I 1 takes at most -n %d (each rank sends a cell's times in one message)",
				       BENCH_PER_ITER_MAX);
	if (o->per_iter_skip >= o->iters) {
		report_say(stderr, "nccl-doctor bench: per-iteration skip (-K) must be between 0 and %lld. Disabling.", o->iters - 1);
		o->per_iter_skip = 0;
	}
	if (o->per_iter_skip && !o->per_iter) {
		report_say(stderr, "nccl-doctor bench: per-iteration skip (-K) requires per-iteration timing (-I 1). Disabling.");
		o->per_iter_skip = 0;
	}
	return 0;
}

/* Parses the options into o; returns 0, -1 after -h (exit 0), or 64. */
int bench_parse_opts(int argc, char **argv, struct bench_opts *o, const struct run_opts *opt)
{
	bench_opts_init(o);
	bool bare = false;
	argc = bare_threads(argc, argv, &bare);
	int next, rc = parse_flags(argc, argv, o, &next, bare);
	if (rc == EXIT_HEALTHY)
		return -1; /* after -h */
	if (rc >= 0)
		return rc;
	if (next < argc) {
		if ((o->op = bench_op_parse(argv[next])) < 0)
			return cmd_usage_error("bench", "'%s' is not an operation (all_reduce, all_gather, reduce_scatter, "
						      "broadcast, reduce, alltoall, sendrecv, gather, scatter, alltoallv, hypercube)",
					       argv[next]);
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
	if (o->pairs && (!o->world || o->json_file))
		return cmd_usage_error("bench", "%s", o->json_file ? "--pairs writes no -J file (--json has the links)"
								: "--pairs sweeps the nodes of a job: start it with srun, mpirun, torchrun or "
								  "an Indexed Job, one process per GPU");
	int smallest, largest; /* groups of NCCL_TESTS_SPLIT: -r -1 takes the roots every group has */
	if ((rc = bench_env_split(o, &smallest, &largest)))
		return rc;
	if ((rc = bench_env_alltoallv(o, largest))) /* the parent's bandwidth formula and each rank's traffic */
		return rc;
	if ((rc = check_flag_pairs(o)))
		return rc;
	/* the configurations: -d all, -o all, -r -1 loop as in nccl-tests */
	const struct bench_op_info *oi = bench_op_info(o->op);
	o->ntypes = o->nredops = o->nroots = 0;
	for (int t = 0; t < BT_COUNT; t++)
		if (o->type < 0 || t == o->type)
			o->types[o->ntypes++] = t;
	for (int r = 0; r < BR_COUNT; r++)
		if ((oi->redop && o->redop < 0) || r == (o->redop < 0 || !oi->redop ? BR_SUM : o->redop))
			o->redops[o->nredops++] = r;
	for (int r = 0; r < smallest; r++)
		if ((oi->root && o->root < 0) || r == (o->root < 0 || !oi->root ? 0 : o->root))
			o->roots[o->nroots++] = r;
	if ((long long)o->ntypes * o->nredops * o->nroots * o->cycles * o->nsizes > BENCH_MAX_SIZES)
		return cmd_usage_error("bench", "too many rows (types x reductions x roots x -N x sizes over %d)", BENCH_MAX_SIZES);
	return 0;
}

/* --pairs: the sweep of node pairs; rank 0 prints the matrix */
static int run_pairs(const struct bench_opts *o, const struct run_opts *opt)
{
	struct bench_pairs *p = NULL;
	bench_pairs_run(o, opt, &p);
	int rc = 0;
	if (bench_world_root()) {
		struct result *res = bench_pairs_result(p, o);
		if (opt->json || opt->markdown || opt->reason_line) {
			rc = cmd_finish(res, opt);
		} else {
			bench_pairs_print(p, o, stdout);
			rc = result_exit_code(res);
			printf("# Verdict: %s\n", result_verdict(res));
			result_free(res);
		}
	}
	bench_pairs_free(p);
	return bench_world_finish(rc);
}

int cmd_bench(int argc, char **argv, const struct run_opts *opt)
{
	static struct bench_opts o;
	char merr[256];
	if (bench_world_start(merr, sizeof(merr)) < 0)
		return cmd_fatal("bench: %s", merr);
	int rc = bench_parse_opts(argc, argv, &o, opt);
	o.argc = argc, o.argv = argv, o.started = time(NULL); /* -J's "args", "start_time" */
	if (rc)
		return rc < 0 ? 0 : rc;
	struct run_opts ro = *opt; /* with --html */
	ro.html = o.html;
	opt = &ro;
	if ((rc = cmd_html_check("bench", opt)) >= 0)
		return rc;
	if (o.coll_timeout <= 0)
		o.coll_timeout = BENCH_DEFAULT_COLL_TIMEOUT;
	/* progress as every command (util/progress.h); nccl-tests' own lines stay on stdout */
	o.progress = progress_wanted(opt->quiet, opt->progress, isatty(STDERR_FILENO));
	if (!o.force && (rc = bench_busy_check(&o, opt)) != 0)
		return rc;
	if (o.pairs)
		return run_pairs(&o, opt);
	static char jpath[4096];
	char jerr[256] = "";
	int jfd = -1;
	if (o.json_file && bench_world_root()) {
		if ((jfd = bench_open_json_file(o.json_file, jpath, sizeof(jpath), jerr, sizeof(jerr))) < 0)
			return cmd_fatal("bench: %s", jerr);
		if (!opt->json && !opt->markdown) /* as nccl-tests, before anything else */
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
	if (!bench_world_root()) /* rank 0 reports for every process */
		goto release;
	bench_wedged_check(br, opt);
	if (jfd >= 0 && bench_write_json_file(br, jfd, jpath, jerr, sizeof(jerr)) < 0)
		report_say(stderr, "nccl-doctor bench: %s", jerr);
	struct result *res = bench_result(br);
	if (opt->json || opt->markdown || opt->reason_line) {
		rc = cmd_finish(res, opt);
	} else {
		bench_print_text(br, stdout);
		int more = bench_one_rank_of(br);
		if (more > 1 && br->complete)
			report_say(stderr, "nccl-doctor bench: one rank measures no bus bandwidth; %d GPUs are visible: -g %d runs one rank on each",
				more, more);
		rc = cmd_extra_outputs(res, opt, result_exit_code(res));
		/* the verdict of every command, as a comment line of nccl-tests' format */
		printf("# Verdict: %s\n", result_verdict(res));
		if (res->error)
			report_say(stderr, "nccl-doctor bench: %s", res->error);
		if (cmd_html(res, opt) < 0) /* --html */
			rc = EXIT_CANNOT_RUN;
		result_free(res);
		if (fflush(stdout) != 0)
			rc = EXIT_CANNOT_RUN;
	}
	if (jerr[0] && rc == 0)
		rc = EXIT_CANNOT_RUN;
release:
	bench_run_free(br);
	return bench_world_finish(rc);
}
