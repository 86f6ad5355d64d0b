/* Which launcher started this process, and this process's place in the job:
 * rank, world size, local rank and size, node, and where rank 0 listens for
 * the rendezvous (run/rendezvous.h). Read from the variables each launcher
 * sets (docs/fleet.md lists them), so `nccl-doctor bench` runs as it is
 * under srun, mpirun (Open MPI, PMIx, MPICH/Hydra), torchrun or a Kubernetes
 * Indexed Job. Pure: a function of an environment array ("NAME=value"),
 * nothing is read from the process. */
#ifndef ND_UTIL_LAUNCHER_H
#define ND_UTIL_LAUNCHER_H
#include <stddef.h>

enum launcher_kind {
	LAUNCHER_NONE,      /* one process: our own launcher starts the ranks */
	LAUNCHER_TORCHRUN,  /* RANK, WORLD_SIZE, LOCAL_RANK (torchrun, torch.distributed.run) */
	LAUNCHER_OMPI,      /* OMPI_COMM_WORLD_RANK / _SIZE / _LOCAL_RANK / _LOCAL_SIZE */
	LAUNCHER_PMIX,      /* PMIX_RANK (srun --mpi=pmix, prrte), size from Slurm or PMIX_SIZE */
	LAUNCHER_HYDRA,     /* PMI_RANK, PMI_SIZE, MPI_LOCALRANKID (MPICH, Intel MPI) */
	LAUNCHER_SLURM,     /* SLURM_PROCID, SLURM_NTASKS, SLURM_LOCALID, SLURM_NODEID (an srun step) */
	LAUNCHER_K8S_INDEXED, /* JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), WORLD_SIZE */
	LAUNCHER_RENDEZVOUS, /* --rendezvous with NCCL_DOCTOR_RANK / NCCL_DOCTOR_WORLD_SIZE */
};

#define LAUNCHER_HOST_MAX 256

struct launcher {
	enum launcher_kind kind;
	int rank, size;               /* world rank and size; size 1 with LAUNCHER_NONE */
	int local_rank, local_size;   /* on this node; local_size -1 unknown */
	int node_index;               /* -1 unknown */
	char node[LAUNCHER_HOST_MAX]; /* the node's name where the launcher says it, else "" */
	char root_host[LAUNCHER_HOST_MAX]; /* rank 0's rendezvous address, "" none */
	int root_port;                /* 0 none */
	char root_from[64];           /* where that came from: "--rendezvous", "MASTER_ADDR/MASTER_PORT", ... */
	char job[128];                /* what names the job (SLURM_JOB_ID.STEP, TORCHELASTIC_RUN_ID, ...): the
				       * rendezvous refuses a rank of another job */
	char vars[256];               /* the variables it was read from, comma-separated */
};

/* The launcher's name as the JSON carries it ("slurm", "openmpi", "pmix",
 * "hydra", "torchrun", "kubernetes-indexed-job", "rendezvous", "none"). */
const char *launcher_name(enum launcher_kind k);
/* Reads env (NULL-terminated "NAME=value") into l. rendezvous is the
 * --rendezvous HOST:PORT value or NULL; it gives rank 0's address whatever
 * the launcher. Returns 0, or -EINVAL with a one-line reason in err when a
 * launcher's variables are there but wrong (a rank out of range, a size that
 * is no number, an Indexed Job without a world size or rank-0 address). */
int launcher_detect(const char *const *env, const char *rendezvous, struct launcher *l, char *err, size_t errsz);
/* "HOST:PORT" (a name, IPv4, or [IPv6]) into host and *port (1..65535);
 * 0 or -EINVAL. */
int launcher_parse_addr(const char *text, char *host, size_t hostsz, int *port);
/* The value of NAME in env, or NULL. */
const char *launcher_getenv(const char *const *env, const char *name);

#endif
