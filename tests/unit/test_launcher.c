/* Unit tests of util/launcher: each launcher's variables (as srun, Open
 * MPI's mpirun, PMIx, MPICH's Hydra, torchrun, a Kubernetes Indexed Job and
 * --rendezvous set them) into rank, size, local rank and size, node and
 * rank 0's address; the order when several are present; wrong values. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "util/launcher.h"

#include <errno.h>
#include <string.h>

static struct launcher detect(const char *const *env, const char *rdv)
{
	struct launcher l;
	char err[256] = "";
	if (launcher_detect(env, rdv, &l, err, sizeof(err)) < 0)
		fail_msg("unexpected error: %s", err);
	return l;
}

static void expect_bad(const char *const *env, const char *rdv, const char *why)
{
	struct launcher l;
	char err[256] = "";
	assert_int_equal(launcher_detect(env, rdv, &l, err, sizeof(err)), -EINVAL);
	if (!strstr(err, why))
		fail_msg("'%s' lacks '%s'", err, why);
}

static void test_none(void **state)
{
	(void)state;
	const char *env[] = { "HOME=/root", "PATH=/bin", NULL };
	struct launcher l = detect(env, NULL);
	assert_int_equal(l.kind, LAUNCHER_NONE);
	assert_string_equal(launcher_name(l.kind), "none");
	assert_int_equal(l.rank, 0);
	assert_int_equal(l.size, 1);
	/* a batch script's own shell is no rank of an srun step */
	const char *batch[] = { "SLURM_PROCID=0", "SLURM_NTASKS=16", "SLURM_JOB_ID=77", NULL };
	assert_int_equal(detect(batch, NULL).kind, LAUNCHER_NONE);
	expect_bad(env, "127.0.0.1:4000", "--rendezvous needs a rank");
}

static void test_slurm(void **state)
{
	(void)state;
	const char *env[] = { "SLURM_PROCID=9",	 "SLURM_NTASKS=16",	"SLURM_STEP_NUM_TASKS=16", "SLURM_LOCALID=1",
			      "SLURM_NODEID=4",	 "SLURM_STEP_ID=3",	"SLURM_JOB_ID=1234",	   "SLURMD_NODENAME=gpu05",
			      "SLURM_STEP_NODELIST=gpu[01-08]", "SLURM_STEP_TASKS_PER_NODE=2(x8)", NULL };
	struct launcher l = detect(env, NULL);
	assert_int_equal(l.kind, LAUNCHER_SLURM);
	assert_string_equal(launcher_name(l.kind), "slurm");
	assert_int_equal(l.rank, 9);
	assert_int_equal(l.size, 16);
	assert_int_equal(l.local_rank, 1);
	assert_int_equal(l.local_size, 2);
	assert_int_equal(l.node_index, 4);
	assert_string_equal(l.node, "gpu05");
	/* rank 0 on the step's first node, a port of the job and step */
	assert_string_equal(l.root_host, "gpu01");
	assert_int_equal(l.root_port, 20000 + (1234 * 16 + 3) % 30000);
	assert_string_equal(l.job, "SLURM_JOB_ID=1234.3");
	assert_non_null(strstr(l.vars, "SLURM_PROCID"));
	/* an uneven step: 3 tasks on the first two nodes, 1 on the third */
	const char *uneven[] = { "SLURM_PROCID=6", "SLURM_NTASKS=7", "SLURM_LOCALID=0", "SLURM_NODEID=2", "SLURM_STEP_ID=0",
				 "SLURM_TASKS_PER_NODE=3(x2),1", NULL };
	l = detect(uneven, NULL);
	assert_int_equal(l.local_size, 1);
	assert_int_equal(l.size, 7);
	/* MASTER_ADDR wins over the node list; --rendezvous over both */
	const char *master[] = { "SLURM_PROCID=0", "SLURM_NTASKS=2", "SLURM_STEP_ID=0", "SLURM_JOB_NODELIST=a,b",
				 "MASTER_ADDR=10.0.0.5", "MASTER_PORT=6000", NULL };
	l = detect(master, NULL);
	assert_string_equal(l.root_host, "10.0.0.5");
	assert_int_equal(l.root_port, 6000);
	l = detect(master, "[fe80::1%eth0]:7000");
	assert_string_equal(l.root_host, "fe80::1%eth0");
	assert_int_equal(l.root_port, 7000);
	assert_string_equal(l.root_from, "--rendezvous");
	const char *badrank[] = { "SLURM_PROCID=4", "SLURM_NTASKS=4", "SLURM_STEP_ID=0", NULL };
	expect_bad(badrank, NULL, "rank 4 of a world of 4");
	const char *nonum[] = { "SLURM_PROCID=x", "SLURM_NTASKS=4", "SLURM_STEP_ID=0", NULL };
	expect_bad(nonum, NULL, "SLURM_PROCID is not a number");
	const char *nosize[] = { "SLURM_PROCID=0", "SLURM_STEP_ID=0", NULL };
	expect_bad(nosize, NULL, "not SLURM_NTASKS");
	const char *badlist[] = { "SLURM_PROCID=0", "SLURM_NTASKS=2", "SLURM_STEP_ID=0", "SLURM_JOB_NODELIST=a[1-", NULL };
	expect_bad(badlist, NULL, "Slurm node list");
}

static void test_openmpi(void **state)
{
	(void)state;
	/* mpirun inside an allocation: its daemons came through srun, whose
	 * SLURM_PROCID (the node's task) is not the rank */
	const char *env[] = { "OMPI_COMM_WORLD_RANK=5", "OMPI_COMM_WORLD_SIZE=8", "OMPI_COMM_WORLD_LOCAL_RANK=1",
			      "OMPI_COMM_WORLD_LOCAL_SIZE=4", "PMIX_RANK=5", "SLURM_PROCID=1", "SLURM_NTASKS=2",
			      "SLURM_STEP_ID=0", "SLURM_LOCALID=0", "SLURMD_NODENAME=n2", NULL };
	struct launcher l = detect(env, "head:9000");
	assert_int_equal(l.kind, LAUNCHER_OMPI);
	assert_string_equal(launcher_name(l.kind), "openmpi");
	assert_int_equal(l.rank, 5);
	assert_int_equal(l.size, 8);
	assert_int_equal(l.local_rank, 1);
	assert_int_equal(l.local_size, 4);
	assert_int_equal(l.node_index, 1); /* 5 / 4: the block distribution */
	assert_string_equal(l.node, ""); /* Slurm's node name is not taken: SLURM_PROCID is another rank */
	assert_string_equal(l.root_host, "head");
	const char *local[] = { "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=3",
				"OMPI_COMM_WORLD_LOCAL_SIZE=2", NULL };
	expect_bad(local, NULL, "local rank 3 of 2");
}

static void test_pmix_hydra(void **state)
{
	(void)state;
	/* srun --mpi=pmix: PMIx's rank, the step's size and Slurm's local facts */
	const char *pmix[] = { "PMIX_RANK=3",	  "PMIX_NAMESPACE=slurm.pmix.77.0", "SLURM_PROCID=3", "SLURM_STEP_ID=0",
			       "SLURM_NTASKS=4",  "SLURM_LOCALID=1", "SLURM_NODEID=1", "SLURMD_NODENAME=b", NULL };
	struct launcher l = detect(pmix, "a:1000");
	assert_int_equal(l.kind, LAUNCHER_PMIX);
	assert_int_equal(l.rank, 3);
	assert_int_equal(l.size, 4);
	assert_int_equal(l.local_rank, 1);
	assert_int_equal(l.node_index, 1);
	assert_string_equal(l.node, "b");
	assert_string_equal(l.job, "PMIX_NAMESPACE=slurm.pmix.77.0");
	const char *nosize[] = { "PMIX_RANK=0", NULL };
	expect_bad(nosize, NULL, "no world size");
	const char *hydra[] = { "PMI_RANK=2", "PMI_SIZE=4", "MPI_LOCALRANKID=0", "MPI_LOCALNRANKS=2", "PMI_KVSNAME=kvs_1", NULL };
	l = detect(hydra, "a:1000");
	assert_int_equal(l.kind, LAUNCHER_HYDRA);
	assert_string_equal(launcher_name(l.kind), "hydra");
	assert_int_equal(l.rank, 2);
	assert_int_equal(l.size, 4);
	assert_int_equal(l.local_size, 2);
	assert_int_equal(l.node_index, 1);
	assert_int_equal(l.root_port, 1000);
}

static void test_torchrun(void **state)
{
	(void)state;
	/* torchrun under srun: one torchrun per node (SLURM_PROCID = node), RANK per GPU */
	const char *env[] = { "RANK=13",	"WORLD_SIZE=16",	"LOCAL_RANK=5",		  "LOCAL_WORLD_SIZE=8",
			      "GROUP_RANK=1",	"MASTER_ADDR=node0",	"MASTER_PORT=29501",	  "TORCHELASTIC_RUN_ID=j9",
			      "SLURM_PROCID=1", "SLURM_NTASKS=2",	"SLURM_STEP_ID=0",	  NULL };
	struct launcher l = detect(env, NULL);
	assert_int_equal(l.kind, LAUNCHER_TORCHRUN);
	assert_int_equal(l.rank, 13);
	assert_int_equal(l.size, 16);
	assert_int_equal(l.local_rank, 5);
	assert_int_equal(l.local_size, 8);
	assert_int_equal(l.node_index, 1);
	assert_string_equal(l.root_host, "node0");
	assert_int_equal(l.root_port, 29502); /* torchrun's agent may hold MASTER_PORT */
	assert_string_equal(l.root_from, "MASTER_ADDR/MASTER_PORT+1");
	assert_string_equal(l.job, "TORCHELASTIC_RUN_ID=j9");
	/* MASTER_PORT unset: PyTorch's default (and the port above it) */
	const char *noport[] = { "RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=0", "MASTER_ADDR=10.1.2.3", NULL };
	assert_int_equal(detect(noport, NULL).root_port, 29501);
	const char *badaddr[] = { "RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=0", "MASTER_ADDR=a b;rm", NULL };
	expect_bad(badaddr, NULL, "MASTER_ADDR is not a host name");
	const char *badport[] = { "RANK=0", "WORLD_SIZE=2", "LOCAL_RANK=0", "MASTER_ADDR=a", "MASTER_PORT=70000", NULL };
	expect_bad(badport, NULL, "MASTER_PORT is not a number");
}

static void test_indexed_job(void **state)
{
	(void)state;
	const char *env[] = { "JOB_COMPLETION_INDEX=2", "WORLD_SIZE=4", "NODE_NAME=gpu-node-c",
			      "MASTER_ADDR=nccl-doctor-fleet-0.nccl-doctor", NULL };
	struct launcher l = detect(env, NULL);
	assert_int_equal(l.kind, LAUNCHER_K8S_INDEXED);
	assert_string_equal(launcher_name(l.kind), "kubernetes-indexed-job");
	assert_int_equal(l.rank, 2);
	assert_int_equal(l.size, 4);
	assert_int_equal(l.node_index, 2);
	assert_string_equal(l.node, "gpu-node-c");
	assert_string_equal(l.root_host, "nccl-doctor-fleet-0.nccl-doctor");
	const char *nosize[] = { "JOB_COMPLETION_INDEX=0", NULL };
	expect_bad(nosize, NULL, "needs the job's size");
}

static void test_rendezvous_only(void **state)
{
	(void)state;
	const char *env[] = { "NCCL_DOCTOR_RANK=1", "NCCL_DOCTOR_WORLD_SIZE=3", "NCCL_DOCTOR_JOB=t1", NULL };
	struct launcher l = detect(env, "127.0.0.2:5000");
	assert_int_equal(l.kind, LAUNCHER_RENDEZVOUS);
	assert_int_equal(l.rank, 1);
	assert_int_equal(l.size, 3);
	assert_string_equal(l.root_host, "127.0.0.2");
	assert_string_equal(l.job, "NCCL_DOCTOR_JOB=t1");
	expect_bad(env, "127.0.0.2", "HOST:PORT");
	expect_bad(env, "127.0.0.2:0", "HOST:PORT");
	expect_bad(env, "fe80::1:80", "HOST:PORT"); /* IPv6 needs brackets */
	expect_bad(env, ":80", "HOST:PORT");
}

static void test_parse_addr(void **state)
{
	(void)state;
	char host[64];
	int port = 0;
	assert_int_equal(launcher_parse_addr("a.example.com:1", host, sizeof(host), &port), 0);
	assert_string_equal(host, "a.example.com");
	assert_int_equal(port, 1);
	assert_int_equal(launcher_parse_addr("[::1]:65535", host, sizeof(host), &port), 0);
	assert_string_equal(host, "::1");
	assert_int_equal(launcher_parse_addr("a:65536", host, sizeof(host), &port), -EINVAL);
	assert_int_equal(launcher_parse_addr("a:12x", host, sizeof(host), &port), -EINVAL);
	assert_int_equal(launcher_parse_addr("a/b:12", host, sizeof(host), &port), -EINVAL);
	char tiny[4];
	assert_int_equal(launcher_parse_addr("abcdef:1", tiny, sizeof(tiny), &port), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),	    cmocka_unit_test(test_slurm),	    cmocka_unit_test(test_openmpi),
		cmocka_unit_test(test_pmix_hydra), cmocka_unit_test(test_torchrun),	    cmocka_unit_test(test_indexed_job),
		cmocka_unit_test(test_rendezvous_only), cmocka_unit_test(test_parse_addr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
