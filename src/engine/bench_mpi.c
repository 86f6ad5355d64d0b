/* bench under mpirun or srun (built with -DNCCL_DOCTOR_MPI=ON): every
 * `nccl-doctor bench` process is one rank, or with -g G drives G ranks
 * (process x G + k), as in nccl-tests' MPI=1 build. The process's rank and
 * the world's size come from MPI; processes on one host (MPI's shared-
 * memory split) take consecutive devices from NCCL_TESTS_DEVICE (or the
 * --gpus list) by their local rank, G each. Each process still runs each of
 * its ranks as a worker (`__worker bench`, the parent never touches the
 * driver): rank 0's worker makes the unique id, MPI_Bcast gives it to every
 * process, each supervises its own workers under the same deadlines as the
 * launcher path, and what they said (status, stage, results, errors, output
 * tail) is gathered to rank 0 as JSON, which prints the report exactly as
 * the launcher path does. Rank 0's exit status is every process's. The
 * steps the rendezvous path shares are in bench_world.c.
 *
 * Like every engine it prints nothing: an error comes back as -errno with
 * its message, and cmd/bench.c says it. */
#include "engine/bench_world.h"
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

/* world_rank and world_size count processes; each drives per ranks (-g) */
static int world_rank = -1, world_size = 0, local_rank = 0, per = 1;
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
	/* srun without an MPI plugin, torchrun, an Indexed Job: our own
	 * rendezvous takes the ranks (bench_net.c) */
	if (!launched())
		return 0;
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
	int dev[BENCH_MAX_RANKS];
	per = o->ngpus > 1 ? (int)o->ngpus : 1;
	if (bench_world_my_devices(o, opt, world_size, local_rank, per, dev, err, errsz) < 0)
		return -EINVAL;
	o->ngpus = per;
	o->nranks = world_size * per;
	MPI_Allgather(dev, per, MPI_INT, o->devices, per, MPI_INT, MPI_COMM_WORLD);
	return 0;
}

int bench_mpi_per_process(void)
{
	return per;
}

int bench_mpi_size(void)
{
	return world_size;
}

/* rank 0's id to every process (engine/bench_world.h's share) */
static int share_id(char id[BENCH_ID_HEX], void *ctx, char *why, size_t whysz)
{
	(void)ctx, (void)why, (void)whysz;
	MPI_Bcast(id, BENCH_ID_HEX, MPI_CHAR, 0, MPI_COMM_WORLD);
	return 0;
}

int bench_mpi_run(const struct ranks_spec *spec, struct worker *ws)
{
	char *mine = bench_world_run_mine(spec, ws, world_rank, per, world_size, share_id, NULL);
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
		bench_world_take(ws, i, per, all + offs[i], (size_t)lens[i], "MPI gather", "its report was not one");
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
