/* bench under mpirun or srun (built with -DNCCL_DOCTOR_MPI=ON): every
 * `nccl-doctor bench` process is one rank, as in nccl-tests' MPI=1 build.
 * The world rank and size come from MPI; ranks on one host (MPI's shared-
 * memory split) take consecutive devices from NCCL_TESTS_DEVICE (or the
 * --gpus list) by their local rank. Each process still runs its rank as a
 * worker (`__worker bench`, the parent never touches the driver): rank 0's
 * worker makes the unique id, MPI_Bcast gives it to every process, each
 * supervises its own worker under the same deadlines as the launcher path,
 * and what each worker said (status, stage, results, errors, output tail)
 * is gathered to rank 0 as JSON, which prints the report exactly as the
 * launcher path does. Rank 0's exit status is every process's.
 *
 * Like every engine it prints nothing: an error comes back as -errno with
 * its message, and cmd/bench.c says it. */
#include "engine/bench.h"
#include "run/ranks.h"
#include "util/text.h"
#include "util/xalloc.h"

#include <errno.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ID_HEX (2 * 128 + 1) /* NCCL_UNIQUE_ID_BYTES in hex, NUL */

static int world_rank = -1, world_size = 0, local_rank = 0;
static bool finished; /* bench_mpi_finish ran: every process agreed to end */

/* The message of an error into err; returns rc. */
__attribute__((format(printf, 4, 5))) static int fail(char *err, size_t errsz, int rc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
	return rc;
}

/* Started by a launcher (Open MPI, PMIx, PMI-2 / Slurm, MPICH)? */
static bool launched(void)
{
	static const char *vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]))
			return true;
	return false;
}

/* At exit: a process that leaves before bench_mpi_finish (a usage error,
 * -J that cannot be written) would leave the others waiting in a
 * collective for ever, so it ends the whole job (MPI_Abort, status 3). */
static void finalize(void)
{
	int init = 0, fin = 0;
	MPI_Initialized(&init);
	MPI_Finalized(&fin);
	if (init && !fin && !finished) {
		fflush(stdout);
		MPI_Abort(MPI_COMM_WORLD, EXIT_CANNOT_RUN);
	}
	if (init && !fin)
		MPI_Finalize();
}

int bench_mpi_start(char *err, size_t errsz)
{
	if (!launched()) {
		/* srun without an MPI plugin starts N copies that cannot see each
		 * other: N single-node runs on the same GPUs, not one of N ranks */
		const char *nt = getenv("SLURM_NTASKS"), *step = getenv("SLURM_STEP_ID");
		if (nt && step && atoi(nt) > 1)
			return fail(err, errsz, -ENOTSUP,
				    "started by srun with %s tasks but without an MPI plugin: use srun --mpi=pmix (or pmi2)", nt);
		return 0;
	}
	int provided;
	if (MPI_Init_thread(NULL, NULL, MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS)
		return fail(err, errsz, -EIO, "MPI_Init failed");
	atexit(finalize);
	MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
	MPI_Comm_size(MPI_COMM_WORLD, &world_size);
	MPI_Comm local;
	if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world_rank, MPI_INFO_NULL, &local) == MPI_SUCCESS) {
		MPI_Comm_rank(local, &local_rank);
		MPI_Comm_free(&local);
	}
	return 0;
}

bool bench_mpi_active(void)
{
	return world_size > 0;
}

bool bench_mpi_root(void)
{
	return world_rank <= 0;
}

int bench_mpi_rank(void)
{
	return world_rank;
}

int bench_mpi_agree(int rc)
{
	int worst = rc;
	if (bench_mpi_active())
		MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return worst;
}

int bench_mpi_devices(struct bench_opts *o, const struct run_opts *opt, char *err, size_t errsz)
{
	if (o->nthreads > 1 || o->ngpus > 1 || o->threads)
		return fail(err, errsz, -EINVAL, "under mpirun/srun every process is one rank: no -t, -g or --threads");
	if (world_size > BENCH_MAX_RANKS)
		return fail(err, errsz, -EINVAL, "%d MPI processes: at most %d ranks", world_size, BENCH_MAX_RANKS);
	int dev = local_rank;
	if (!gpusel_all(&opt->gpus)) {
		int n = 0, found = -1;
		for (size_t i = 0; i < opt->gpus.n && found < 0; i++) {
			const struct gpusel_item *it = &opt->gpus.items[i];
			if (it->kind != GPUSEL_RANGE)
				return fail(err, errsz, -EINVAL, "--gpus takes GPU indices for bench");
			for (int d = it->lo; d <= it->hi && found < 0; d++, n++)
				if (n == local_rank)
					found = d;
		}
		if (found < 0)
			return fail(err, errsz, -EINVAL, "local rank %d has no GPU in --gpus", local_rank);
		dev = found;
	} else {
		long long first = 0;
		const char *e = getenv("NCCL_TESTS_DEVICE");
		if (e && (parse_ll(e, 10, &first) < 0 || first < 0 || first > 1023))
			return fail(err, errsz, -EINVAL, "NCCL_TESTS_DEVICE is not a GPU index: '%s'", e);
		dev += (int)first;
	}
	o->ngpus = 1;
	o->nranks = world_size;
	MPI_Allgather(&dev, 1, MPI_INT, o->devices, 1, MPI_INT, MPI_COMM_WORLD);
	return 0;
}

/* The arguments of this process's rank (as run/ranks.c builds them). */
struct rank_argv {
	char nranks[16], rank[16], device[16];
	const char *argv[16 + RANKS_MAX_TASK_ARGS];
};

static void build_args(struct rank_argv *a, const struct ranks_spec *s, const char *id)
{
	int n = 0;
	snprintf(a->nranks, sizeof(a->nranks), "%d", world_size);
	snprintf(a->rank, sizeof(a->rank), "%d", world_rank);
	snprintf(a->device, sizeof(a->device), "%d", s->devices[world_rank]);
	a->argv[n++] = "--nranks", a->argv[n++] = a->nranks, a->argv[n++] = "--rank", a->argv[n++] = a->rank;
	a->argv[n++] = "--device", a->argv[n++] = a->device, a->argv[n++] = "--count", a->argv[n++] = "1";
	a->argv[n++] = "--id", a->argv[n++] = id;
	if (s->nccl)
		a->argv[n++] = "--nccl", a->argv[n++] = s->nccl;
	for (int k = 0; s->task_args && s->task_args[k] && k < RANKS_MAX_TASK_ARGS; k++)
		a->argv[n++] = s->task_args[k];
	a->argv[n] = NULL;
}

/* Starts this process's worker; rank 0 reads the unique id from its own
 * and broadcasts it (empty: rank 0 gave none, the others do not start). */
static void start_rank(const struct ranks_spec *spec, struct worker *w, struct rank_argv *a)
{
	char id[ID_HEX] = "";
	struct worker_spec ws = { .task = spec->task, .env = spec->env, .deadline = spec->deadline,
				  .stage_deadline = spec->stage_deadline, .grace = spec->grace, .exe = spec->exe };
	if (world_rank == 0) {
		build_args(a, spec, "create");
		ws.args = a->argv;
		if (worker_start(w, &ws) == 0) {
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
	MPI_Bcast(id, ID_HEX, MPI_CHAR, 0, MPI_COMM_WORLD);
	if (world_rank != 0 && !id[0]) {
		snprintf(w->why, sizeof(w->why), "not started: rank 0 gave no unique id");
		return;
	}
	if (world_rank != 0) {
		build_args(a, spec, id);
		ws.args = a->argv;
		worker_start(w, &ws);
	}
}

/* What rank 0 needs of a worker, as JSON text (malloc'd). */
static char *pack(const struct worker *w)
{
	json_t *o = json_pack("{s:i,s:i,s:i,s:i,s:s,s:s,s:O,s:O,s:s}", "status", (int)w->status, "pid", (int)w->pid,
			      "exit_code", w->exit_code, "signal", w->signal, "stage", w->stage, "why", w->why, "results",
			      w->results, "errors", w->errors, "tail", strbuf_str(&w->tail));
	char *s = o ? json_dumps(o, JSON_COMPACT) : NULL;
	json_decref(o);
	return s ? s : xstrdup("{}");
}

static void unpack(struct worker *w, const char *text, size_t len)
{
	json_t *o = json_loadb(text, len, 0, NULL);
	if (!o) {
		snprintf(w->why, sizeof(w->why), "its report did not arrive over MPI");
		return;
	}
	w->status = (enum worker_status)json_integer_value(json_object_get(o, "status"));
	w->pid = (pid_t)json_integer_value(json_object_get(o, "pid"));
	w->exit_code = (int)json_integer_value(json_object_get(o, "exit_code"));
	w->signal = (int)json_integer_value(json_object_get(o, "signal"));
	const char *st = json_string_value(json_object_get(o, "stage")), *why = json_string_value(json_object_get(o, "why"));
	snprintf(w->stage, sizeof(w->stage), "%s", st ? st : WORKER_STAGE_START);
	snprintf(w->why, sizeof(w->why), "%s", why ? why : "");
	json_t *r = json_object_get(o, "results"), *e = json_object_get(o, "errors");
	if (json_is_array(r))
		json_array_extend(w->results, r);
	if (json_is_array(e))
		json_array_extend(w->errors, e);
	const char *tail = json_string_value(json_object_get(o, "tail"));
	if (tail)
		strbuf_add(&w->tail, tail, strlen(tail));
	json_decref(o);
}

int bench_mpi_run(const struct ranks_spec *spec, struct worker *ws)
{
	for (int i = 0; i < world_size; i++)
		worker_init(&ws[i]);
	struct worker *w = &ws[world_rank];
	struct rank_argv a;
	start_rank(spec, w, &a);
	if (w->status == WORKER_RUNNING)
		worker_wait(&w, 1);
	w->spec.args = NULL; /* they pointed into a */
	char *mine = pack(w);
	int len = (int)strlen(mine), *lens = NULL, *offs = NULL;
	char *all = NULL;
	if (world_rank == 0) {
		lens = xcalloc((size_t)world_size, sizeof(int));
		offs = xcalloc((size_t)world_size, sizeof(int));
	}
	MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (world_rank == 0) {
		long long total = 0;
		for (int i = 0; i < world_size; i++) {
			offs[i] = (int)total;
			total += lens[i];
		}
		all = xmalloc((size_t)total + 1);
	}
	MPI_Gatherv(mine, len, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, MPI_COMM_WORLD);
	for (int i = 1; world_rank == 0 && i < world_size; i++)
		unpack(&ws[i], all + offs[i], (size_t)lens[i]);
	free(mine);
	free(all);
	free(lens);
	free(offs);
	return 0;
}

int bench_mpi_finish(int rc)
{
	if (!bench_mpi_active())
		return rc;
	fflush(stdout);
	MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
	finished = true;
	finalize();
	return rc;
}
