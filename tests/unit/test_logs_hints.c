/* Unit tests of the facts a paste carries beside its errors: the rule
 * container-hostname (analyze/logs/rules/container.c: NCCL hosts named like
 * Docker's containers weigh /dev/shm on one host and the bridge network
 * across hosts, only in a run that failed with no root failure) and the rule
 * ada-p2p-old-driver (rules/versions.c: GeForce RTX 40 cards with a driver
 * before 550.40.07); the host facts of a paste (kb/nccl_signatures_host.def,
 * rule memlock-small), a warning that is a hung process's last line, and
 * wireless or VPN bootstrap interfaces. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "logslines.h"
#include "analyze/logs/text.h"
#include "analyze/logs/read/read.h"
#include "report/report.h"

static void test_container_hosts(void **state)
{
	(void)state;
	/* one container, init stops, PyTorch's bare system error */
	static const char *const one[] = {
		"3f2a9c1b7d4e:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"3f2a9c1b7d4e:121:121 [1] NCCL INFO cudaDriverVersion 12020",
		"RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1275, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.5",
	};
	struct result *r = analyze_lines(one, 3);
	assert_true(has_finding(r, "LOG_CONTAINER_HOSTNAME"));
	assert_string_equal(r->causes->v[0].cause, "shm_too_small");
	double with = cause_conf(r, "shm_too_small");
	result_free(r);
	/* the same on a host of an ordinary name: the container adds weight */
	static const char *const plain[] = {
		"gpu-node-1:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"gpu-node-1:121:121 [1] NCCL INFO cudaDriverVersion 12020",
		one[2],
	};
	r = analyze_lines(plain, 3);
	assert_false(has_finding(r, "LOG_CONTAINER_HOSTNAME"));
	assert_true(cause_conf(r, "shm_too_small") < with);
	result_free(r);
	/* two containers on two hosts: the bridge network */
	static const char *const two[] = {
		"3f2a9c1b7d4e:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"a07c55e19b2f:98:98 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		one[2],
	};
	r = analyze_lines(two, 3);
	assert_true(has_finding(r, "LOG_CONTAINER_HOSTNAME"));
	assert_true(cause_conf(r, "bootstrap_network") >= 0.2);
	result_free(r);
	/* not Docker's names: digits only, upper case, 13 digits */
	static const char *const not_ids[] = {
		"123456789012:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"3F2A9C1B7D4E:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"3f2a9c1b7d4e0:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
	};
	for (size_t i = 0; i < 3; i++) {
		r = analyze_lines(&not_ids[i], 1);
		assert_false(has_finding(r, "LOG_CONTAINER_HOSTNAME"));
		result_free(r);
	}
	/* a healthy run in a container: the finding, no cause */
	static const char *const ok[] = {
		"3f2a9c1b7d4e:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"3f2a9c1b7d4e:120:120 [0] NCCL INFO comm 0x55d0 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 1000 commId 0x1 - Init COMPLETE",
		"3f2a9c1b7d4e:120:120 [0] NCCL INFO comm 0x55d0 rank 0 nranks 1 cudaDev 0 busId 1000 - Destroy COMPLETE",
	};
	r = analyze_lines(ok, 3);
	assert_true(has_finding(r, "LOG_CONTAINER_HOSTNAME"));
	assert_true(cause_conf(r, "shm_too_small") == 0);
	result_free(r);
}

static void test_ada_driver(void **state)
{
	(void)state;
	/* collect_env's GPU and driver lines, then a hang of a first all_reduce */
	static const char *const old[] = {
		"GPU 0: NVIDIA GeForce RTX 4090",
		"GPU 1: NVIDIA GeForce RTX 4090",
		"Nvidia driver version: 535.104.05",
		"ws:120:120 [0] NCCL INFO NCCL version 2.18.1+cuda12.1",
		"ws:120:140 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
		"ws:121:141 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/IPC",
		"Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out.",
	};
	struct result *r = analyze_lines(old, sizeof(old) / sizeof(old[0]));
	assert_true(has_finding(r, "LOG_ADA_P2P_OLD_DRIVER"));
	assert_true(has_finding(r, "LOG_GPU_ADA_PCIE"));
	double d_old = cause_conf(r, "driver_or_kernel_bug");
	assert_true(d_old >= 0.45);
	result_free(r);
	/* nvidia-smi's header with a driver that has the fix: nothing */
	static const char *const fixed[] = {
		"| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |",
		old[0], old[1], old[3], old[4], old[5], old[6],
	};
	r = analyze_lines(fixed, sizeof(fixed) / sizeof(fixed[0]));
	assert_false(has_finding(r, "LOG_ADA_P2P_OLD_DRIVER"));
	assert_true(cause_conf(r, "driver_or_kernel_bug") < d_old);
	result_free(r);
	/* no driver in the paste: weaker */
	static const char *const none[] = { old[0], old[1], old[3], old[4], old[5], old[6] };
	r = analyze_lines(none, 6);
	assert_true(has_finding(r, "LOG_ADA_P2P_OLD_DRIVER"));
	assert_true(cause_conf(r, "driver_or_kernel_bug") >= 0.3 && cause_conf(r, "driver_or_kernel_bug") < d_old);
	result_free(r);
	/* P2P switched off for the run: nothing */
	static const char *const off[] = {
		old[0], old[1], old[2], old[3],
		"ws:120:120 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.",
		"ws:120:140 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via SHM/direct/direct",
		old[6],
	};
	r = analyze_lines(off, 7);
	assert_false(has_finding(r, "LOG_ADA_P2P_OLD_DRIVER"));
	result_free(r);
	/* an L40S: the fact, no cause */
	static const char *const l40s[] = { "GPU 0: NVIDIA L40S", old[2], old[3], old[4], old[5], old[6] };
	r = analyze_lines(l40s, 6);
	assert_true(has_finding(r, "LOG_GPU_ADA_PCIE"));
	assert_false(has_finding(r, "LOG_ADA_P2P_OLD_DRIVER"));
	result_free(r);
}

/* the facts of a log's NCCL lines: a process that reaches every peer over
 * the network is one host of several (234: an NCCL 2.7 log with no node
 * count); IB asked for by a variable and not found (235) */
static void test_net_facts(void **state)
{
	(void)state;
	static const char *const veth[] = {
		"ip-172-31-0-137:14605:14673 [0] NCCL INFO NET/Socket : Using [0]ens5:172.31.0.137<0> [1]veth75fa783:fe80::14ad:64ff:fe64:b31e%veth75fa783<0>",
		"ip-172-31-0-137:14605:14673 [0] NCCL INFO Using network Socket",
		"NCCL version 2.7.8+cuda11.1",
		"ip-172-31-0-137:14605:14688 [0] NCCL INFO Channel 00 : 1[1e0] -> 0[1e0] [receive] via NET/Socket/0",
		"ip-172-31-0-137:14605:14688 [0] NCCL INFO Channel 00 : 0[1e0] -> 1[1e0] [send] via NET/Socket/0",
	};
	struct result *r = analyze_lines(veth, 5);
	assert_string_equal(r->causes->v[0].cause, "bootstrap_network");
	assert_true(r->causes->v[0].confidence >= 0.35);
	result_free(r);
	/* the same with SHM switched off: GPUs of one host without P2P go over
	 * the network too, so no several hosts */
	static const char *const off[] = {
		veth[0], veth[1], veth[2],
		"ip-172-31-0-137:14605:14673 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.",
		"ip-172-31-0-137:14605:14673 [0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.",
		veth[3], veth[4],
	};
	r = analyze_lines(off, 7);
	assert_true(cause_conf(r, "bootstrap_network") < 0.35);
	result_free(r);
	static const char *const ib[] = {
		"node013:37715:38896 [0] NCCL INFO NET/IB : No device found.",
		"node013:37715:38896 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 0.",
	};
	r = analyze_lines(ib, 2);
	assert_true(has_finding(r, "LOG_IB_WANTED_NONE_FOUND"));
	assert_string_equal(r->causes->v[0].cause, "ib_rdma_config");
	result_free(r);
	/* IB switched off on purpose: nothing asked for */
	static const char *const ib_off[] = {
		ib[0], "node013:37715:38896 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.",
	};
	r = analyze_lines(ib_off, 2);
	assert_false(has_finding(r, "LOG_IB_WANTED_NONE_FOUND"));
	result_free(r);
}

#define WATCHDOG "[rank0]:[E ProcessGroupNCCL.cpp:563] [Rank 0] Watchdog caught collective operation timeout: " \
		 "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for 1800091 " \
		 "milliseconds before timing out."

/* Host facts a paste shows beside a hang (kb/nccl_signatures_host.def, rule
 * memlock-small): each names its class in a run that hung, none in a run
 * that did not fail. */
static void test_host_facts(void **state)
{
	(void)state;
	static const struct {
		const char *line, *cause;
	} facts[] = {
		{ "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-", "p2p_pcie_acs_iommu" },
		{ "[    0.401234] iommu: Default domain type: Translated ", "p2p_pcie_acs_iommu" },
		{ "    Virtualization Mode                   : VGPU", "p2p_virtualization" },
		{ "[    0.000000] DMI: QEMU Standard PC (Q35 + ICH9, 2009), BIOS 1.16.0 04/01/2014", "p2p_virtualization" },
		{ "socket.gaierror: [Errno -2] Name or service not known", "bootstrap_network" },
		{ "ssh: connect to host node2 port 22: No route to host", "bootstrap_network" },
		{ "torch 2.1.0 requires nvidia-nccl-cu12==2.18.1, but you have nvidia-nccl-cu12 2.19.3 which is incompatible.", "version_mismatch" },
		{ "| N/A   ERR!   P0    ERR! /  400W |  80000MiB / 81920MiB |     0%      Default |", "gpu_hardware" },
		{ "max locked memory           (kbytes, -l) 64", "ib_rdma_config" },
	};
	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		const char *hung[] = { facts[i].line, WATCHDOG };
		struct result *r = analyze_lines(hung, 2);
		if (strcmp(r->causes->v[0].cause, facts[i].cause) != 0)
			fail_msg("'%s': first cause %s, not %s", facts[i].line, r->causes->v[0].cause, facts[i].cause);
		result_free(r);
		r = analyze_lines(&facts[i].line, 1);
		if (cause_conf(r, facts[i].cause) > 0)
			fail_msg("'%s' alone (no failure) names %s", facts[i].line, facts[i].cause);
		result_free(r);
	}
	/* a context row inside a framework's failure line does not hide the
	 * line from the framework catalog (c10d's connect error names the
	 * failure; BN02's "No route to host" is only its errno) */
	static const char *const c10d =
		"RuntimeError: The client socket has failed to connect to any network address of (node3, 29500). The client "
		"socket has failed to connect to node3:29500 (errno: 113 - No route to host).";
	struct result *rc = analyze_lines(&c10d, 1);
	assert_string_equal(rc->causes->v[0].cause, "bootstrap_network");
	assert_true(rc->causes->v[0].confidence >= 0.7);
	assert_true(has_finding(rc, "LOG_FRAMEWORK_ERROR"));
	result_free(rc);
	/* an unlimited or large locked-memory limit is no cause */
	static const char *const limits[] = { "max locked memory           (kbytes, -l) unlimited",
					      "max locked memory           (kbytes, -l) 2097152" };
	for (size_t i = 0; i < 2; i++) {
		const char *hung[] = { limits[i], WATCHDOG };
		struct result *r = analyze_lines(hung, 2);
		assert_false(cause_conf(r, "ib_rdma_config") > 0);
		result_free(r);
	}
	/* a small limit on a host whose NCCL log shows one host and no IB: no cause */
	static const char *const local[] = {
		"max locked memory           (kbytes, -l) 64",
		"gpu-node-1:120:120 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"gpu-node-1:120:120 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC",
		WATCHDOG,
	};
	struct result *r = analyze_lines(local, 4);
	assert_false(cause_conf(r, "ib_rdma_config") > 0);
	result_free(r);
}

/* A classified NCCL warning that is the last line its process printed
 * before a hang is what NCCL said before it stopped: it outranks the
 * guesses of a hang whose stage the log does not show (rule
 * known-warn-classes), and stays context where the process went on. */
static void test_last_warning_of_a_hang(void **state)
{
	(void)state;
	static const char *const last[] = {
		"node1:1234:1300 [0] NCCL INFO NCCL version 2.18.5+cuda12.1",
		"node1:1234:1300 [0] NCCL WARN NET/IB : Unable to open device mlx5_0",
		WATCHDOG,
	};
	struct result *r = analyze_lines(last, 3);
	assert_string_equal(r->causes->v[0].cause, "ib_rdma_config");
	result_free(r);
}

/* Wi-Fi or VPN interfaces carry one host's bootstrap fine; across hosts
 * they are a suspect (LOG_BOOTSTRAP_VIRTUAL_IF). */
static void test_wireless_bootstrap(void **state)
{
	(void)state;
	static const char *const one[] = {
		"omega:100:100 [0] NCCL INFO Bootstrap : Using wlp38s0:192.168.1.19<0>",
		"omega:101:101 [1] NCCL INFO Bootstrap : Using wlp38s0:192.168.1.19<0>",
		WATCHDOG,
	};
	struct result *r = analyze_lines(one, 3);
	assert_false(has_finding(r, "LOG_BOOTSTRAP_VIRTUAL_IF"));
	result_free(r);
	static const char *const two[] = {
		"omega:100:100 [0] NCCL INFO Bootstrap : Using wlp38s0:192.168.1.19<0>",
		"sigma:200:200 [0] NCCL INFO Bootstrap : Using tailscale0:100.64.0.2<0>",
		WATCHDOG,
	};
	r = analyze_lines(two, 3);
	assert_true(has_finding(r, "LOG_BOOTSTRAP_VIRTUAL_IF"));
	assert_true(cause_conf(r, "bootstrap_network") >= 0.35);
	result_free(r);
}

/* A launcher line that starts the job on several nodes makes a bare
 * first-collective time-out a matter of the hosts, not of one host's
 * P2P (rule launcher-nodes); one node, or a number it cannot read, changes
 * nothing. */
static void test_launcher_nodes(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		bool several;
	} launches[] = {
		{ "torchrun --nnodes 2 --nproc_per_node 8 --rdzv_endpoint 10.0.0.1:29500 train.py", true },
		{ "python -m torch.distributed.launch --nproc_per_node=8 --nnodes=1:4 train.py", true },
		{ "torchrun --nproc_per_node=8 --node_rank=1 --master_addr=10.0.0.1 train.py", true },
		{ "accelerate launch --num_machines 2 --machine_rank 0 train.py", true },
		{ "SLURM_NNODES=3", true },
		{ "torchrun --nnodes=1 --nproc_per_node=8 train.py", false },
		{ "torchrun --nnodes=$NNODES --nproc_per_node=8 train.py", false },
		{ "torchrun --nproc_per_node=8 --node_rank=0 train.py", false },
	};
	for (size_t i = 0; i < sizeof(launches) / sizeof(launches[0]); i++) {
		const char *lines[] = { launches[i].line, WATCHDOG };
		struct result *r = analyze_lines(lines, 2);
		const struct finding *f = result_find(r, "LOG_LAUNCH_SEVERAL_NODES");
		bool several = f && strstr(f->title, "starts the job on");
		if (several != launches[i].several)
			fail_msg("'%s': several nodes %d, expected %d", launches[i].line, several, launches[i].several);
		/* several hosts: P2P over PCIe is no longer the first guess */
		if (launches[i].several && r->causes->n && strcmp(r->causes->v[0].cause, "p2p_pcie_acs_iommu") == 0)
			fail_msg("'%s': P2P first on several nodes", launches[i].line);
		result_free(r);
	}
	/* a bare system error: /dev/shm on one host, the sockets on several */
	static const char *const syserr =
		"torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331, "
		"unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1";
	struct result *r = analyze_lines(&syserr, 1);
	assert_string_equal(r->causes->v[0].cause, "shm_too_small");
	result_free(r);
	const char *two[] = { "accelerate launch --num_machines 2 --machine_rank 1 train.py", syserr };
	r = analyze_lines(two, 2);
	assert_string_equal(r->causes->v[0].cause, "bootstrap_network");
	/* the launcher line is the network's evidence beside the error */
	bool launch_shown = false;
	for (size_t k = 0; k < r->causes->v[0].nev; k++)
		launch_shown |= strstr(r->causes->v[0].ev[k].text, "--num_machines 2") != NULL;
	assert_true(launch_shown);
	result_free(r);
}

/* A shell's notice of a job killed by SIGKILL, with no NCCL line, is read
 * as the OOM killer (a user stops a hung job with ^C or kill: SIGTERM);
 * "Terminated" stays a hang before NCCL; prose that says killed is
 * neither. The forms are those bash 5 printed here (k.sh: line 2, a
 * non-interactive bash) and its job lines. */
static void test_shell_kill_notice(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		int sig;
	} notices[] = {
		{ "Killed", 9 },
		{ "k.sh: line 2:  6534 Killed                  python3 -c \"import os\"", 9 },
		{ "bash:  6587 Killed                  bash -c 'python3 train.py'", 9 },
		{ "[1]+  Killed                  python train.py", 9 },
		{ "zsh: killed     python train.py", 9 },
		{ "Terminated", 15 },
		{ "[2]-  Terminated              torchrun --nproc_per_node 8 train.py", 15 },
		{ "the job was Killed by the admin", 0 },
		{ "Killedx", 0 },
		{ "run.sh: line x:  6534 Killed  python", 0 },
		{ "[1]+  Done                    python train.py", 0 },
		{ "", 0 },
	};
	for (size_t i = 0; i < sizeof(notices) / sizeof(notices[0]); i++) {
		const char *t = notices[i].line;
		int sig = nl_shell_kill_notice(t, strlen(t));
		if (sig != notices[i].sig)
			fail_msg("'%s': signal %d, expected %d", t, sig, notices[i].sig);
	}
	const char *killed[] = { "[1]+  Killed                  python train.py" };
	struct result *r = analyze_lines(killed, 1);
	assert_string_equal(r->causes->v[0].cause, "peer_died_or_oom");
	assert_true(has_finding(r, "LOG_OOM_KILLED"));
	assert_false(has_finding(r, "LOG_HANG_BEFORE_NCCL"));
	result_free(r);
	const char *terminated[] = { "Terminated" };
	r = analyze_lines(terminated, 1);
	assert_string_equal(r->causes->v[0].cause, "bootstrap_network");
	assert_true(has_finding(r, "LOG_HANG_BEFORE_NCCL"));
	result_free(r);
}

/* PyTorch's store barrier (PT05w, PT05b): more joins than the world is a
 * stale store (the network's set-up, whatever else), fewer on a waiting
 * line are ranks not yet at init_process_group: the application on one
 * node, the network first across nodes; a completed barrier of the same
 * key says nothing. */
static void test_store_barrier_count(void **state)
{
	(void)state;
	const char *stale[] = { "2022-05-09 22:30:27,597 INFO Waiting in store based barrier to initialize process group for "
				"rank: 0, key: store_based_barrier_key:1 (world_size=6, worker_count=287, timeout=0:30:00)" };
	struct result *r = analyze_lines(stale, 1);
	assert_string_equal(r->causes->v[0].cause, "bootstrap_network");
	assert_true(has_finding(r, "LOG_STORE_BARRIER_STALE"));
	result_free(r);
	const char *one_node[] = { "INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to initialize process "
				   "group for rank: 1, key: store_based_barrier_key:1 (world_size=4, num_workers_joined=3, "
				   "timeout=0:30:00)" };
	r = analyze_lines(one_node, 1);
	assert_string_equal(r->causes->v[0].cause, "collective_mismatch_app_bug");
	assert_true(has_finding(r, "LOG_STORE_BARRIER_MISSING_RANKS"));
	result_free(r);
	const char *nodes[] = { "torchrun --nnodes=2 --node_rank=0 --nproc_per_node=4 train.py",
				"INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to initialize process "
				"group for rank: 1, key: store_based_barrier_key:1 (world_size=8, num_workers_joined=4, "
				"timeout=0:30:00)" };
	r = analyze_lines(nodes, 2);
	assert_string_equal(r->causes->v[0].cause, "bootstrap_network");
	result_free(r);
	const char *done[] = { "INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to initialize process "
			       "group for rank: 0, key: store_based_barrier_key:1 (world_size=2, worker_count=1, "
			       "timeout=0:30:00)",
			       "INFO:torch.distributed.distributed_c10d:Rank 0: Completed store-based barrier for "
			       "key:store_based_barrier_key:1 with 2 nodes." };
	r = analyze_lines(done, 2);
	assert_false(has_finding(r, "LOG_STORE_BARRIER_MISSING_RANKS"));
	result_free(r);
	/* PyTorch 1.x's completion line without a key completes the barriers
	 * before it; a completion of another key does not */
	const char *done_nokey[] = { done[0], "INFO:torch.distributed.distributed_c10d:Rank 0: Completed store-based barrier for 2 nodes." };
	r = analyze_lines(done_nokey, 2);
	assert_false(has_finding(r, "LOG_STORE_BARRIER_MISSING_RANKS"));
	result_free(r);
	const char *other_key[] = { done[0], "INFO:torch.distributed.distributed_c10d:Rank 0: Completed store-based barrier for "
					     "key:store_based_barrier_key:2 with 2 nodes." };
	r = analyze_lines(other_key, 2);
	assert_true(has_finding(r, "LOG_STORE_BARRIER_MISSING_RANKS"));
	result_free(r);
}

/* TCPStore's 'C/W clients joined': with other ranks joined on one node
 * the missing ones never started (the application), not the network; 1/W
 * (only the server's own client) stays the network; across nodes the
 * network stays first. */
static void test_store_clients_joined(void **state)
{
	(void)state;
	const char *some[] = { "torch.distributed.DistStoreError: Timed out after 31 seconds waiting for clients. 2/3 clients joined." };
	struct result *r = analyze_lines(some, 1);
	assert_string_equal(r->causes->v[0].cause, "collective_mismatch_app_bug");
	assert_true(has_finding(r, "LOG_STORE_BARRIER_MISSING_RANKS"));
	result_free(r);
	/* the other rank's wait for the NCCL id follows from rank 0's wait for
	 * the clients: a warning, and the first screen acts on the missing rank */
	const char *both[] = { some[0], "[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and "
					"retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but "
					"store->get('0') got error: wait timeout after 30000ms, keys: /default_pg/0//cuda//0" };
	r = analyze_lines(both, 2);
	assert_string_equal(r->causes->v[0].cause, "collective_mismatch_app_bug");
	for (size_t i = 0; i < r->nfindings; i++)
		if (strcmp(r->findings[i]->id, "LOG_RANK0_LATE") == 0)
			assert_int_equal(r->findings[i]->sev, SEV_WARNING);
	assert_string_equal(report_top_problem(r)->id, "LOG_STORE_BARRIER_MISSING_RANKS");
	result_free(r);
	const char *none[] = { "torch.distributed.DistStoreError: Timed out after 31 seconds waiting for clients. 1/2 clients joined." };
	r = analyze_lines(none, 1);
	assert_string_equal(r->causes->v[0].cause, "bootstrap_network");
	assert_false(has_finding(r, "LOG_STORE_BARRIER_MISSING_RANKS"));
	result_free(r);
	const char *nodes[] = { "torchrun --nnodes=4 --node_rank=0 --nproc_per_node=8 train.py",
				"torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 24/32 clients joined." };
	r = analyze_lines(nodes, 2);
	assert_string_equal(r->causes->v[0].cause, "bootstrap_network");
	result_free(r);
	const char *odd[] = { "DistStoreError: Timed out after 30 seconds waiting for clients. 1234567/3 clients joined." };
	r = analyze_lines(odd, 1);
	assert_false(has_finding(r, "LOG_STORE_BARRIER_MISSING_RANKS"));
	result_free(r);
}

/* PyTorch's exit warning alone at the end of a log (nothing failed before
 * it): a hang there is in teardown, the application's destroy first; not
 * after an exception, and not when a failure is in the log. */
static void test_exit_without_destroy(void **state)
{
	(void)state;
	const char *end[] = { "[INFO:swift] End time of running main: 2026-02-05 18:00:31.710947",
			      "[rank0]:[W205 18:00:34.953145631 ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() "
			      "was not called before program exit, which can leak resources. For more info, please see "
			      "https://pytorch.org/docs/stable/distributed.html#shutdown (function operator())" };
	struct result *r = analyze_lines(end, 2);
	assert_string_equal(r->causes->v[0].cause, "collective_mismatch_app_bug");
	assert_true(has_finding(r, "LOG_EXIT_WITHOUT_DESTROY"));
	result_free(r);
	const char *exc[] = { "Traceback (most recent call last):", "ValueError: Missing parameters", end[1] };
	r = analyze_lines(exc, 3);
	/* not a clean end: the exception ended the run (the application
	 * through it, LOG_PROGRAM_EXCEPTION), not a hang in teardown */
	assert_false(has_finding(r, "LOG_EXIT_WITHOUT_DESTROY"));
	assert_true(has_finding(r, "LOG_PROGRAM_EXCEPTION"));
	result_free(r);
	const char *failed[] = { "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 96.00 GiB.", end[1] };
	r = analyze_lines(failed, 2);
	assert_string_equal(r->causes->v[0].cause, "peer_died_or_oom");
	result_free(r);
}

/* The bare wrapper 'c10::DistBackendError: watchdog thread terminated with
 * exception' names no error of its own: no 'unknown' from it beside the
 * watchdog's time-out (a first collective: P2P first). */
static void test_bare_watchdog_wrapper(void **state)
{
	(void)state;
	const char *lines[] = { "Watchdog caught collective operation timeout:", "WorkNCCL(SeqNum=1, OpType=ALLREDUCE)", "",
				"c10::DistBackendError: watchdog thread terminated with exception",
				"process 1 terminated with signal SIGABRT" };
	struct result *r = analyze_lines(lines, 5);
	assert_string_equal(r->causes->v[0].cause, "p2p_pcie_acs_iommu");
	assert_false(has_finding(r, "LOG_NCCL_ERROR"));
	result_free(r);
	/* a late time-out beside one teardown line of NCCL (no stage): the
	 * watchdog's SeqNum decides, the application first (case 370) */
	const char *late[] = { "NCCL INFO comm 0x8312280 rank 7 nranks 8 cudaDev 7 busId c9000 - Abort COMPLETE",
			       "[E ProcessGroupNCCL.cpp:456] Some NCCL operations have failed or timed out.",
			       "  what():  [Rank 7] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=923, "
			       "OpType=REDUCE, Timeout(ms)=1800000) ran for 1806745 milliseconds before timing out." };
	r = analyze_lines(late, 3);
	assert_string_equal(r->causes->v[0].cause, "collective_mismatch_app_bug");
	result_free(r);
	/* "SeqNum=..." as pasted is no first collective (case 376) */
	const char *elided[] = { "[rankN] Watchdog caught collective operation timeout:",
				 "WorkNCCL(SeqNum=..., OpType=ALLGATHER, ...) ran for 1800000 milliseconds before timing out" };
	r = analyze_lines(elided, 2);
	assert_string_equal(r->causes->v[0].cause, "collective_mismatch_app_bug");
	result_free(r);
	/* what a paste or a collector put before a line */
	static const struct {
		const char *line;
		size_t skip;
	} wraps[] = {
		{ "> host:1:1 [0] NCCL INFO x", 2 },
		{ "> > [rank0]: Traceback", 4 },
		{ "2026-12-06T10:00:01.123456789Z [rank0]: x", 31 },
		{ "2026-12-06T10:00:01+02:00 x", 26 },
		{ "2026-12-06T10:00:01Z", 0 },          /* nothing after it: no prefix */
		{ "2026-12-06 10:00:01,123 INFO x", 0 }, /* Python logging's own format: the program's */
		{ "vllm-1  | (EngineCore_DP0 pid=132) ERROR", 10 },
		{ "worker-1 | x", 11 },
		{ "     8388608       2097152     float     sum      -1", 0 }, /* an nccl-tests row */
		{ "| 0  NVIDIA H100 |", 0 },
		{ "    12\t[rank0]: x", 7 },
		{ "12\tx", 3 },
		{ "  12  x", 0 }, /* an editor's number: left alone */
		{ "GPU0     X      NODE    0-63", 0 },
		{ "", 0 },
	};
	for (size_t i = 0; i < sizeof(wraps) / sizeof(wraps[0]); i++)
		if (nl_paste_wrapper_len(wraps[i].line, strlen(wraps[i].line)) != wraps[i].skip)
			fail_msg("wrapper of '%s': %zu, want %zu", wraps[i].line,
				 nl_paste_wrapper_len(wraps[i].line, strlen(wraps[i].line)), wraps[i].skip);
	assert_true(nl_py_error_line("Traceback (most recent call last):", 34));
	assert_true(nl_py_error_line("[rank0]: torch.OutOfMemoryError: CUDA out of memory", 51));
	assert_true(nl_py_error_line("  KeyboardInterrupt", 19));
	assert_false(nl_py_error_line("NCCL INFO Error: none", 21));
	assert_false(nl_py_error_line("Error: x", 8));
	assert_false(nl_py_error_line("[rank0 no bracket end", 21));
}

/* A traceback ending in a program's own exception, with nothing else:
 * the application (LOG_PROGRAM_EXCEPTION); not RuntimeError, OSError or
 * ImportError, and not when a line names a stronger cause. */
static void test_program_exception(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		bool prog;
	} lines[] = {
		{ "ValueError: The output_size of gate's and up's weight = 96 is not", true },
		{ "[rank1]: AssertionError", true },
		{ "  builtins.KeyError: 'model.layers.0'", true },
		{ "IndexError: list index out of range", true },
		{ "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970", false },
		{ "ConnectionRefusedError: [Errno 111] Connection refused", false },
		{ "ModuleNotFoundError: No module named 'vllm._C'", false },
		{ "MyValueError: x", false },
		{ "    raise ValueError(msg)", false },
		{ "    except ValueError:", false },
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
		if (nl_py_program_error(lines[i].line, strlen(lines[i].line)) != lines[i].prog)
			fail_msg("'%s': want %s", lines[i].line, lines[i].prog ? "a program error" : "none");
	const char *alone[] = { "Traceback (most recent call last):", "  File \"/app/serve.py\", line 12, in <module>",
				"    build_mesh(cfg)", "ValueError: `jax.make_mesh` does not support multi-slice topologies." };
	struct result *r = analyze_lines(alone, 4);
	assert_string_equal(r->causes->v[0].cause, "collective_mismatch_app_bug");
	assert_true(has_finding(r, "LOG_PROGRAM_EXCEPTION"));
	result_free(r);
	/* a framework catalog line beside it names the cause: the exception adds nothing */
	const char *named[] = { "ValueError: invalid literal for int() with base 10: 'abc'",
				"torch.distributed.DistNetworkError: The client socket has timed out after 900000ms while "
				"trying to connect to (10.0.0.1, 29500)." };
	r = analyze_lines(named, 2);
	assert_false(has_finding(r, "LOG_PROGRAM_EXCEPTION"));
	assert_string_not_equal(r->causes->v[0].cause, "collective_mismatch_app_bug");
	result_free(r);
	/* a RuntimeError alone is not one */
	const char *rt[] = { "RuntimeError: something went wrong in the step" };
	r = analyze_lines(rt, 1);
	assert_false(has_finding(r, "LOG_PROGRAM_EXCEPTION"));
	result_free(r);
}

/* Rank 0's store answered but the NCCL id never came (a time-out): rank 0
 * was late, not the network; a reset connection is rank 0 gone. */
static void test_rank0_late(void **state)
{
	(void)state;
	const char *timeout[] = { "[7] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d "
				  "key-value store by key '0', but store->get('0') got error: Socket Timeout" };
	struct result *r = analyze_lines(timeout, 1);
	assert_string_equal(r->causes->v[0].cause, "collective_mismatch_app_bug");
	assert_true(has_finding(r, "LOG_RANK0_LATE"));
	result_free(r);
	const char *reset[] = { "[1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d "
				"key-value store by key '0', but store->get('0') got error: Connection reset by peer" };
	r = analyze_lines(reset, 1);
	assert_false(has_finding(r, "LOG_RANK0_LATE"));
	assert_string_not_equal(r->causes->v[0].cause, "collective_mismatch_app_bug");
	result_free(r);
}

/* ProcessGroupNCCL's heartbeat monitor: the watchdog thread itself is
 * stuck in an NCCL/CUDA call; a GPU path first, not the application. */
static void test_watchdog_stuck(void **state)
{
	(void)state;
	const char *stuck[] = { "[rank1]:[E513 12:38:14.493976596 ProcessGroupNCCL.cpp:1870] [PG ID 0 PG GUID 0(default_pg) "
				"Rank 1] ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress in "
				"monitoring enqueued collectives. This typically indicates a NCCL/CUDA API (e.g., "
				"CudaEventDestroy) hang blocking the watchdog" };
	struct result *r = analyze_lines(stuck, 1);
	assert_string_equal(r->causes->v[0].cause, "p2p_pcie_acs_iommu");
	result_free(r);
}

/* aws-ofi-nccl's logger puts the function where NCCL puts the file; a
 * line pasted without its host header still reads as an NCCL warning. */
static void test_function_prefix_warn(void **state)
{
	(void)state;
	const char *ofi[] = { "create_nccl_ofi_component:496 NCCL WARN NET/OFI Couldn't enable endpoint. RC: -12, ERROR: "
			      "Cannot allocate memory" };
	struct result *r = analyze_lines(ofi, 1);
	assert_string_equal(r->causes->v[0].cause, "ib_rdma_config");
	result_free(r);
	const char *prose[] = { "note:496 NCCL is fine" };
	r = analyze_lines(prose, 1);
	assert_true(has_finding(r, "LOG_NO_NCCL_LINES"));
	result_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_container_hosts),
		cmocka_unit_test(test_ada_driver),
		cmocka_unit_test(test_net_facts),
		cmocka_unit_test(test_host_facts),
		cmocka_unit_test(test_last_warning_of_a_hang),
		cmocka_unit_test(test_wireless_bootstrap),
		cmocka_unit_test(test_launcher_nodes),
		cmocka_unit_test(test_shell_kill_notice),
		cmocka_unit_test(test_store_barrier_count),
		cmocka_unit_test(test_store_clients_joined),
		cmocka_unit_test(test_exit_without_destroy),
		cmocka_unit_test(test_bare_watchdog_wrapper),
		cmocka_unit_test(test_program_exception),
		cmocka_unit_test(test_rank0_late),
		cmocka_unit_test(test_watchdog_stuck),
		cmocka_unit_test(test_function_prefix_warn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
