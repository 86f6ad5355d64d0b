/* bench with one rank per process (or G, -g G), the processes started by
 * a launcher on one or many nodes (engine/bench.h's bench_world_*): under
 * MPI (bench_mpi.c, the MPI build, when MPI's launcher started us) or under
 * any launcher through our own rendezvous (bench_net.c); the steps both
 * share: a process's ranks as workers with rank 0's unique id, their
 * reports as JSON, their GPUs. */
#include "engine/bench_world.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((format(printf, 3, 4))) static int usage(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#ifdef ND_MPI
#define MPI_ACTIVE() bench_mpi_active()
#else
#define MPI_ACTIVE() false
#define bench_mpi_start(err, errsz) 0
#define bench_mpi_devices(o, opt, err, errsz) 0
#define bench_mpi_per_process() 1
#define bench_mpi_size() 1
#define bench_mpi_rank() -1
#define bench_mpi_run(spec, ws) -1
#define bench_mpi_agree(rc) (rc)
#define bench_mpi_finish(rc) (rc)
#endif

int bench_world_start(char *err, size_t errsz)
{
	(void)err, (void)errsz;
	return bench_mpi_start(err, errsz);
}

int bench_world_devices(struct bench_opts *o, const struct run_opts *opt, char *err, size_t errsz)
{
	int rc = MPI_ACTIVE() ? (bench_mpi_devices(o, opt, err, errsz) < 0 ? -EINVAL : 1) : bench_net_devices(o, opt, err, errsz);
	o->world = rc > 0;
	return rc;
}

bool bench_world_active(void)
{
	return MPI_ACTIVE() || bench_net_active();
}

bool bench_world_root(void)
{
	return bench_world_rank() <= 0;
}

int bench_world_rank(void)
{
	return MPI_ACTIVE() ? bench_mpi_rank() : bench_net_active() ? bench_net_rank() : -1;
}

int bench_world_run(const struct ranks_spec *spec, struct worker *ws)
{
	return MPI_ACTIVE() ? bench_mpi_run(spec, ws) : bench_net_run(spec, ws);
}

int bench_world_agree(int rc)
{
	return MPI_ACTIVE() ? bench_mpi_agree(rc) : bench_net_active() ? bench_net_agree(rc) : rc;
}

int bench_world_finish(int rc)
{
	return MPI_ACTIVE() ? bench_mpi_finish(rc) : bench_net_active() ? bench_net_finish(rc) : rc;
}

const char *bench_world_node_env(void)
{
	return bench_net_active() ? bench_net_node_env() : NULL;
}

int bench_world_per_process(void)
{
	return MPI_ACTIVE() ? bench_mpi_per_process() : bench_net_active() ? bench_net_per_process() : 1;
}

int bench_world_size(void)
{
	return bench_net_active() ? bench_net_size() : 1;
}

int bench_world_gather(const char *what, const char *mine, double timeout, char **all, char *err, size_t errsz)
{
	if (!bench_net_active()) {
		snprintf(err, errsz, "no rendezvous to gather the %s over", what);
		return -ENOTCONN;
	}
	return bench_net_gather(what, mine, timeout, all, err, errsz);
}

const char *bench_world_rank_node(int rank)
{
	return bench_net_active() ? bench_net_rank_node(rank) : NULL;
}

const char *bench_world_absent(void)
{
	return bench_net_active() ? bench_net_absent() : NULL;
}

bool bench_world_rank_absent(int rank, char *node, size_t nodesz)
{
	return bench_net_active() && bench_net_rank_absent(rank, node, nodesz);
}

int bench_world_launcher_rank(void)
{
	return MPI_ACTIVE() ? bench_mpi_rank() : bench_net_launcher_rank();
}

void bench_world_describe(json_t *o)
{
	if (MPI_ACTIVE()) {
		json_t *l = json_pack("{s:s,s:i}", "exchange", "mpi", "world_size", bench_mpi_size());
		if (bench_mpi_per_process() > 1)
			json_object_set_new(l, "ranks_per_process", json_integer(bench_mpi_per_process()));
		json_object_set_new(o, "launcher", l);
	} else if (bench_net_active())
		bench_net_describe(o);
}

int bench_world_ranks_each(const struct bench_opts *o, int size, int per, char *err, size_t errsz)
{
	if (o->nthreads > 1 || o->threads)
		return usage(err, errsz, "under a launcher (srun, mpirun, torchrun) every process drives its ranks' GPUs "
					 "itself: no -t or --threads (-g G: G GPUs of each process; --local: each process "
					 "a benchmark of its own node)");
	if (per > 1 && o->pairs)
		return usage(err, errsz, "--pairs runs one rank per process: no -g");
	if ((long long)size * per > BENCH_MAX_RANKS)
		return usage(err, errsz, "%d processes x -g %d: at most %d ranks", size, per, BENCH_MAX_RANKS);
	return 0;
}

int bench_world_local_device(int local, const struct run_opts *opt, int *dev, char *err, size_t errsz)
{
	if (!gpusel_all(&opt->gpus)) {
		int n = 0;
		for (size_t i = 0; i < opt->gpus.n; i++) {
			const struct gpusel_item *it = &opt->gpus.items[i];
			if (it->kind != GPUSEL_RANGE)
				return usage(err, errsz, "--gpus takes GPU indices for bench");
			for (int d = it->lo; d <= it->hi; d++, n++)
				if (n == local) {
					*dev = d;
					return 0;
				}
		}
		return usage(err, errsz, "local rank %d has no GPU in --gpus", local);
	}
	long long first = 0;
	const char *e = getenv("NCCL_TESTS_DEVICE");
	if (e && (parse_ll(e, 10, &first) < 0 || first < 0 || first > 1023))
		return usage(err, errsz, "NCCL_TESTS_DEVICE is not a GPU index: '%s'", e);
	*dev = local + (int)first;
	return 0;
}

int bench_world_my_devices(const struct bench_opts *o, const struct run_opts *opt, int size, int local, int per, int *dev,
			   char *err, size_t errsz)
{
	int rc = bench_world_ranks_each(o, size, per, err, errsz);
	/* local rank r's GPUs: r x G on (one process per node: 0 to G-1) */
	for (int k = 0; rc == 0 && k < per; k++)
		rc = bench_world_local_device(local * per + k, opt, &dev[k], err, errsz);
	return rc;
}

/* The arguments of this process's rank (as run/ranks.c builds them). */
struct bench_rank_argv {
	char nranks[16], rank[16], device[16];
	const char *argv[16 + RANKS_MAX_TASK_ARGS];
};

static void build_args(struct bench_rank_argv *a, const struct ranks_spec *s, int rank, int size, const char *id)
{
	int n = 0;
	snprintf(a->nranks, sizeof(a->nranks), "%d", size);
	snprintf(a->rank, sizeof(a->rank), "%d", rank);
	snprintf(a->device, sizeof(a->device), "%d", s->devices[rank]);
	a->argv[n++] = "--nranks", a->argv[n++] = a->nranks, a->argv[n++] = "--rank", a->argv[n++] = a->rank;
	a->argv[n++] = "--device", a->argv[n++] = a->device, a->argv[n++] = "--count", a->argv[n++] = "1";
	a->argv[n++] = "--id", a->argv[n++] = id;
	if (s->nccl)
		a->argv[n++] = "--nccl", a->argv[n++] = s->nccl;
	for (int k = 0; s->task_args && s->task_args[k] && k < RANKS_MAX_TASK_ARGS; k++)
		a->argv[n++] = s->task_args[k];
	a->argv[n] = NULL;
}

/* Starts the count ranks base.. of size: rank 0's worker, when base is 0,
 * with --id create, whose unique id share() gives to every process (rank 0
 * passes its id, "" when its worker gave none; the others receive it);
 * then the others' with that id. */
static void start_ranks(const struct ranks_spec *spec, struct worker *ws, struct bench_rank_argv *a, int base, int count,
			int size, bench_world_share *share, void *ctx)
{
	char id[BENCH_ID_HEX] = "";
	struct worker_spec w0 = { .task = spec->task, .env = spec->env, .deadline = spec->deadline,
				  .stage_deadline = spec->stage_deadline, .grace = spec->grace, .exe = spec->exe };
	if (base == 0) {
		struct worker *w = &ws[0];
		struct worker_spec s = w0;
		build_args(&a[0], spec, 0, size, "create");
		s.args = a[0].argv;
		if (worker_start(w, &s) == 0) {
			for (;;) {
				const char *hex = json_string_value(json_object_get(worker_result(w), "unique_id"));
				if (hex) {
					snprintf(id, sizeof(id), "%s", hex);
					break;
				}
				if (worker_poll(&w, 1, 0.05) == 0)
					break;
			}
		}
	}
	char why[sizeof(ws->why) - 16] = ""; /* "not started: " before it */
	bool shared = share(id, ctx, why, sizeof(why)) == 0 && id[0];
	for (int k = base == 0; k < count; k++) {
		if (!shared) {
			snprintf(ws[k].why, sizeof(ws[k].why), "not started: %s", why[0] ? why : "rank 0 gave no unique id");
			continue;
		}
		struct worker_spec s = w0;
		build_args(&a[k], spec, base + k, size, id);
		s.args = a[k].argv;
		worker_start(&ws[k], &s);
	}
}

static json_t *pack(const struct worker *w)
{
	return json_pack("{s:i,s:i,s:i,s:i,s:s,s:s,s:O,s:O,s:s}", "status", (int)w->status, "pid", (int)w->pid, "exit_code",
			 w->exit_code, "signal", w->signal, "stage", w->stage, "why", w->why, "results", w->results, "errors",
			 w->errors, "tail", strbuf_str(&w->tail));
}

static char *dump(json_t *o)
{
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s ? s : xstrdup("{}");
}

static char *pack_all(const struct worker *ws, int n)
{
	json_t *a = json_array();
	for (int k = 0; k < n; k++)
		json_array_append_new(a, pack(&ws[k]));
	return dump(a);
}

static bool unpack(struct worker *w, json_t *o)
{
	json_t *st = json_object_get(o, "status");
	if (!json_is_integer(st) || json_integer_value(st) < WORKER_RUNNING || json_integer_value(st) > WORKER_CRASH)
		return false;
	w->status = (enum worker_status)json_integer_value(st);
	w->pid = (pid_t)json_integer_value(json_object_get(o, "pid"));
	w->exit_code = (int)json_integer_value(json_object_get(o, "exit_code"));
	w->signal = (int)json_integer_value(json_object_get(o, "signal"));
	const char *stage = json_string_value(json_object_get(o, "stage")), *why = json_string_value(json_object_get(o, "why"));
	snprintf(w->stage, sizeof(w->stage), "%s", stage ? stage : WORKER_STAGE_START);
	snprintf(w->why, sizeof(w->why), "%s", why ? why : "");
	json_t *r = json_object_get(o, "results"), *e = json_object_get(o, "errors");
	if (json_is_array(r))
		json_array_extend(w->results, r);
	if (json_is_array(e))
		json_array_extend(w->errors, e);
	const char *tail = json_string_value(json_object_get(o, "tail"));
	if (tail)
		strbuf_add(&w->tail, tail, strlen(tail));
	return true;
}

static int unpack_all(struct worker *ws, int n, const char *text, size_t len)
{
	json_t *a = json_loadb(text, len, 0, NULL);
	int k = 0;
	if (json_is_array(a) && json_array_size(a) == (size_t)n)
		while (k < n && unpack(&ws[k], json_array_get(a, (size_t)k)))
			k++;
	json_decref(a);
	return k;
}

char *bench_world_run_mine(const struct ranks_spec *spec, struct worker *ws, int proc, int per, int nprocs,
			   bench_world_share *share, void *ctx)
{
	for (int i = 0; i < nprocs * per; i++)
		worker_init(&ws[i]);
	struct worker *w = &ws[proc * per], *running[BENCH_MAX_RANKS];
	struct bench_rank_argv *a = xcalloc((size_t)per, sizeof(*a));
	start_ranks(spec, w, a, proc * per, per, nprocs * per, share, ctx);
	int n = 0;
	for (int k = 0; k < per; k++)
		if (w[k].status == WORKER_RUNNING)
			running[n++] = &w[k];
	if (n)
		worker_wait(running, n);
	for (int k = 0; k < per; k++)
		w[k].spec.args = NULL; /* they pointed into a */
	free(a);
	return pack_all(w, per);
}

void bench_world_take(struct worker *ws, int proc, int per, const char *text, size_t len, const char *via,
		      const char *why)
{
	struct worker *w = &ws[proc * per];
	int got = text ? unpack_all(w, per, text, len) : 0;
	/* a process that died or stopped answering: its ranks are reported as not finished, with why */
	for (int k = got; k < per; k++) {
		w[k].status = WORKER_HANG;
		snprintf(w[k].stage, sizeof(w[k].stage), "%s", via);
		snprintf(w[k].why, sizeof(w[k].why), "no report of rank %d (process %d) came in the %s: %.400s", proc * per + k,
			 proc, via, why && why[0] ? why : "it did not come");
	}
}
