/* Stack frames of NCCL and the layers above it, by stage (kb/nccl_frames.h).
 * Each NCCL name was checked in NVIDIA/nccl's src/ at the releases its row
 * names (git grep of v2.4.8-1, v2.7.8-1, v2.10.3-1, v2.18.3-1, v2.21.5-1
 * and the 2026 master); "N:" is NVIDIA/nccl src/, "T:" pytorch/pytorch,
 * "V:" vllm-project/vllm. */
#include "kb/nccl_frames.h"

#include <string.h>

static const struct nccl_frame rows[] = {
	/* threads that exist in every run: they wait in the same calls when
	 * all is well, so they never tell a stage */
	{ "ncclProxyService", NFK_BACKGROUND, "N:proxy.cc 2.12+" },
	{ "ncclProxyServiceUDS", NFK_BACKGROUND, "N:proxy.cc 2.19+" },
	{ "ncclProxyProgress", NFK_BACKGROUND, "N:proxy.cc" },
	{ "persistentSocketThread", NFK_BACKGROUND, "N:transport/net_socket.cc" },
	{ "ncclIbAsyncThreadMain", NFK_BACKGROUND, "N:transport/net_ib.cc" },
	{ "ncclCommWatchdog", NFK_BACKGROUND, "T:ProcessGroupNCCL.cpp (the watchdog thread)" },
	{ "heartbeatMonitor", NFK_BACKGROUND, "T:ProcessGroupNCCL.cpp (the heartbeat thread)" },
	{ "watchdogHandler", NFK_BACKGROUND, "T:ProcessGroupNCCL.cpp (the watchdog thread)" },
	/* PyTorch's store and rendezvous, before any NCCL call */
	{ "_store_based_barrier", NFK_STORE, "T:distributed_c10d.py" },
	{ "_create_c10d_store", NFK_STORE, "T:rendezvous.py" },
	{ "_env_rendezvous_handler", NFK_STORE, "T:rendezvous.py" },
	{ "_tcp_rendezvous_handler", NFK_STORE, "T:rendezvous.py" },
	{ "next_rendezvous", NFK_STORE, "T:elastic/rendezvous (torchrun's agent)" },
	{ "TCPStore", NFK_STORE, "T:TCPStore.cpp (c10d::TCPStore)" },
	{ "TCPClient", NFK_STORE, "T:TCPStore.cpp (c10d::detail::TCPClient)" },
	/* communicator init, the part not said */
	{ "ncclCommInitRank", NFK_INIT, "N:init.cc" },
	{ "ncclCommInitRankConfig", NFK_INIT, "N:init.cc 2.14+" },
	{ "ncclCommInitRankFunc", NFK_INIT, "N:init.cc 2.14+" },
	{ "ncclCommInitRankSync", NFK_INIT, "N:init.cc 2.4-2.13" },
	{ "ncclCommInitRankDev", NFK_INIT, "N:init.cc" },
	{ "ncclCommInitAll", NFK_INIT, "N:init.cc" },
	{ "ncclCommSplit", NFK_INIT, "N:init.cc 2.18+" },
	{ "initTransportsRank", NFK_INIT, "N:init.cc" },
	{ "devCommSetup", NFK_INIT, "N:init.cc 2.10+" },
	{ "getNCCLComm", NFK_INIT, "T:ProcessGroupNCCL.cpp (the communicator of a first collective)" },
	{ "initNCCLComm", NFK_INIT, "T:ProcessGroupNCCL.cpp" },
	{ "_new_process_group_helper", NFK_INIT, "T:distributed_c10d.py (the backend's creation: NCCL's comm with device_id)" },
	{ "eager_connect_single_device", NFK_INIT, "T:distributed_c10d.py (init_process_group with device_id)" },
	{ "_verify_param_shape_across_processes", NFK_INIT, "T:distributed/utils.py (DDP's first collective)" },
	{ "_sync_module_states", NFK_INIT, "T:distributed/utils.py (DDP's first broadcast)" },
	/* a collective launched or waited for */
	{ "ncclGroupEnd", NFK_COLLECTIVE, "N:group.cc" },
	{ "ncclGroupEndInternal", NFK_COLLECTIVE, "N:group.cc 2.12+" },
	{ "groupLaunch", NFK_COLLECTIVE, "N:group.cc 2.12+" },
	{ "ncclEnqueueCheck", NFK_COLLECTIVE, "N:enqueue.cc" },
	{ "ncclLaunchKernel", NFK_COLLECTIVE, "N:enqueue.cc 2.10+" },
	{ "ncclLaunchPrepare", NFK_COLLECTIVE, "N:enqueue.cc 2.17+" },
	{ "hostStreamPlanTask", NFK_COLLECTIVE, "N:enqueue.cc 2.17+" },
	{ "ncclStrongStreamSynchronize", NFK_COLLECTIVE, "N:misc/strongstream.cc 2.17+" },
	{ "ncclLaunchKernelBefore_NoUncapturedCuda", NFK_COLLECTIVE, "N:enqueue.cc 2.17+" },
	{ "ncclBarrierEnqueueWait", NFK_COLLECTIVE, "N:enqueue.cc 2.4-2.8" },
	/* destroy and abort */
	{ "ncclCommAbort", NFK_ABORT, "N:init.cc" },
	{ "ncclCommDestroy", NFK_ABORT, "N:init.cc" },
	{ "ncclCommFinalize", NFK_ABORT, "N:init.cc 2.14+" },
	{ "commDestroySync", NFK_ABORT, "N:init.cc 2.14+" },
	{ "commReclaim", NFK_ABORT, "N:init.cc 2.14+" },
	{ "commCleanup", NFK_ABORT, "N:init.cc 2.14+" },
	{ "commFree", NFK_ABORT, "N:init.cc" },
	/* transport connection, the transport not said */
	{ "ncclTransportP2pSetup", NFK_CONNECT, "N:transport.cc 2.7+" },
	{ "ncclTransportP2pConnect", NFK_CONNECT, "N:transport.cc 2.12+" },
	{ "ncclTransportRingConnect", NFK_CONNECT, "N:transport.cc 2.23+" },
	{ "ncclTransportTreeConnect", NFK_CONNECT, "N:transport.cc 2.23+" },
	{ "ncclProxyConnect", NFK_CONNECT, "N:proxy.cc 2.12+" },
	{ "ncclProxyCallBlocking", NFK_CONNECT, "N:proxy.cc 2.12+" },
	{ "ncclPollProxyResponse", NFK_CONNECT, "N:proxy.cc 2.15+" },
	/* bootstrap */
	{ "bootstrapInit", NFK_BOOTSTRAP, "N:bootstrap.cc" },
	{ "bootstrapAllGather", NFK_BOOTSTRAP, "N:bootstrap.cc" },
	{ "bootstrapIntraNodeAllGather", NFK_BOOTSTRAP, "N:bootstrap.cc 2.12+" },
	{ "bootstrapBarrier", NFK_BOOTSTRAP, "N:bootstrap.cc" },
	{ "bootstrapRecv", NFK_BOOTSTRAP, "N:bootstrap.cc" },
	{ "bootstrapSend", NFK_BOOTSTRAP, "N:bootstrap.cc" },
	{ "bootstrapRoot", NFK_BOOTSTRAP, "N:bootstrap.cc" },
	{ "bootstrapNetAccept", NFK_BOOTSTRAP, "N:bootstrap.cc 2.7-2.11" },
	/* topology */
	{ "ncclTopoGetSystem", NFK_TOPO, "N:graph/topo.cc 2.7+" },
	{ "ncclTopoGetXmlFromSys", NFK_TOPO, "N:graph/xml.cc 2.7+" },
	{ "ncclTopoComputePaths", NFK_TOPO, "N:graph/paths.cc 2.7+" },
	{ "ncclTopoTrimSystem", NFK_TOPO, "N:graph/paths.cc 2.7+" },
	{ "ncclTopoSearchInit", NFK_TOPO, "N:graph/search.cc 2.7+" },
	{ "ncclTopoCompute", NFK_TOPO, "N:graph/search.cc 2.7+" },
	/* NVLS */
	{ "ncclNvlsSetup", NFK_NVLS, "N:transport/nvls.cc 2.17+" },
	{ "ncclNvlsInit", NFK_NVLS, "N:transport/nvls.cc 2.17+" },
	{ "ncclNvlsBufferSetup", NFK_NVLS, "N:transport/nvls.cc 2.20+" },
	{ "nvlsGroupCreate", NFK_NVLS, "N:transport/nvls.cc 2.17-2.18" },
	{ "nvlsGroupBindMem", NFK_NVLS, "N:transport/nvls.cc 2.17-2.18" },
	/* the socket network */
	{ "ncclNetSocketConnect", NFK_NET_SOCKET, "N:transport/net_socket.cc 2.12+" },
	{ "ncclNetSocketAccept", NFK_NET_SOCKET, "N:transport/net_socket.cc 2.12+" },
	/* IB / RoCE and verbs */
	{ "ncclIbInit", NFK_NET_IB, "N:transport/net_ib.cc" },
	{ "ncclIbListen", NFK_NET_IB, "N:transport/net_ib.cc" },
	{ "ncclIbConnect", NFK_NET_IB, "N:transport/net_ib.cc" },
	{ "ncclIbAccept", NFK_NET_IB, "N:transport/net_ib.cc" },
	{ "ncclIbRegMr", NFK_NET_IB, "N:transport/net_ib.cc" },
	{ "ncclIbRegMrDmaBuf", NFK_NET_IB, "N:transport/net_ib.cc 2.13+" },
	{ "ncclIbGdrSupport", NFK_NET_IB, "N:transport/net_ib.cc" },
	{ "ncclIbCreateQp", NFK_NET_IB, "N:transport/net_ib.cc 2.4-2.2x" },
	{ "ncclIbRtrQp", NFK_NET_IB, "N:transport/net_ib.cc 2.4-2.2x" },
	{ "ncclIbRtsQp", NFK_NET_IB, "N:transport/net_ib.cc 2.4-2.2x" },
	{ "ncclIbSenderQpsCreate", NFK_NET_IB, "N:transport/net_ib/connect.cc 2.29+" },
	{ "ncclIbSenderQpsToRts", NFK_NET_IB, "N:transport/net_ib/connect.cc 2.29+" },
	{ "ncclIbReceiverQpsCreateToRts", NFK_NET_IB, "N:transport/net_ib/connect.cc 2.29+" },
	{ "wrap_ibv_modify_qp", NFK_NET_IB, "N:misc/ibvwrap.cc" },
	{ "wrap_ibv_reg_mr", NFK_NET_IB, "N:misc/ibvwrap.cc" },
	{ "ibv_modify_qp", NFK_NET_IB, "libibverbs" },
	{ "ibv_reg_mr", NFK_NET_IB, "libibverbs" },
	/* P2P */
	{ "p2pSendSetup", NFK_P2P, "N:transport/p2p.cc" },
	{ "p2pRecvSetup", NFK_P2P, "N:transport/p2p.cc" },
	{ "p2pSendConnect", NFK_P2P, "N:transport/p2p.cc" },
	{ "p2pRecvConnect", NFK_P2P, "N:transport/p2p.cc" },
	{ "p2pMap", NFK_P2P, "N:transport/p2p.cc 2.10+" },
	{ "p2pSendProxySetup", NFK_P2P, "N:transport/p2p.cc 2.12+" },
	{ "ncclP2pImportShareableBuffer", NFK_P2P, "N:transport/p2p.cc 2.18+" },
	{ "ncclP2pAllocateShareableBuffer", NFK_P2P, "N:transport/p2p.cc 2.18+" },
	{ "cudaIpcOpenMemHandle", NFK_P2P, "CUDA runtime (NCCL's legacy IPC import)" },
	{ "cuMemImportFromShareableHandle", NFK_P2P, "CUDA driver (NCCL's cuMem import, 2.18+)" },
	/* SHM */
	{ "shmSendSetup", NFK_SHM, "N:transport/shm.cc" },
	{ "shmRecvSetup", NFK_SHM, "N:transport/shm.cc" },
	{ "shmSendConnect", NFK_SHM, "N:transport/shm.cc" },
	{ "shmRecvConnect", NFK_SHM, "N:transport/shm.cc" },
	{ "shmOpen", NFK_SHM, "N:misc/shmutils.cc 2.4-2.11" },
	{ "ncclShmOpen", NFK_SHM, "N:misc/shmutils.cc 2.12+" },
	{ "ncclShmImportShareableBuffer", NFK_SHM, "N:transport/shm.cc 2.19+" },
	/* vLLM's custom all-reduce */
	{ "cross_device_reduce_1stage", NFK_CUSTOM_AR, "V:csrc/custom_all_reduce.cuh" },
	{ "cross_device_reduce_2stage", NFK_CUSTOM_AR, "V:csrc/custom_all_reduce.cuh" },
	{ "CustomAllreduce", NFK_CUSTOM_AR, "V:csrc/custom_all_reduce.cuh, distributed/device_communicators/custom_all_reduce.py" },
	{ "custom_all_reduce", NFK_CUSTOM_AR, "V:distributed/device_communicators/custom_all_reduce.py" },
	/* torch.distributed's collectives (only in a frame of distributed_c10d.py) */
	{ "all_reduce", NFK_PY_COLLECTIVE, "T:distributed_c10d.py" },
	{ "all_gather", NFK_PY_COLLECTIVE, "T:distributed_c10d.py" },
	{ "all_gather_into_tensor", NFK_PY_COLLECTIVE, "T:distributed_c10d.py" },
	{ "reduce_scatter_tensor", NFK_PY_COLLECTIVE, "T:distributed_c10d.py" },
	{ "broadcast", NFK_PY_COLLECTIVE, "T:distributed_c10d.py" },
	{ "barrier", NFK_PY_COLLECTIVE, "T:distributed_c10d.py" },
	{ "all_to_all_single", NFK_PY_COLLECTIVE, "T:distributed_c10d.py" },
	{ "reduce", NFK_PY_COLLECTIVE, "T:distributed_c10d.py" },
};

const struct nccl_frame *kb_nccl_frames(size_t *n)
{
	*n = sizeof(rows) / sizeof(rows[0]);
	return rows;
}

const struct nccl_frame *kb_nccl_frame(const char *name, size_t n)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		if (strlen(rows[i].name) == n && memcmp(rows[i].name, name, n) == 0)
			return &rows[i];
	return NULL;
}

/* What to do, by stage (the first screen's "Next" of LOG_STACK_STAGE). */
static const char *const fixes[NFK_COUNT] = {
	[NFK_BACKGROUND] = "",
	[NFK_PY_COLLECTIVE] = "Dump every rank the same way (py-spy dump --native --pid PID): a rank in another collective or "
			      "gone is the cause; rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL and NCCL_DEBUG=INFO.",
	[NFK_INIT] = "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET to see which part of init stops; "
		     "py-spy dump --native shows the NCCL frame below this one.",
	[NFK_COLLECTIVE] = "Dump every rank: a rank in another collective or gone is the cause; otherwise test "
			   "NCCL_P2P_DISABLE=1 (`nccl-doctor p2p` finds broken pairs) and look for Xids (`nccl-doctor kernel`).",
	[NFK_ABORT] = "Let outstanding work finish (or abort it) before destroying the communicator; look up the NCCL "
		      "version's destroy/abort fixes in its release notes.",
	[NFK_STORE] = "Check that every rank started and reaches MASTER_ADDR:MASTER_PORT (a firewall, the address of the "
		      "wrong interface).",
	[NFK_CONNECT] = "Test NCCL_P2P_DISABLE=1, then NCCL_SHM_DISABLE=1, one at a time (`nccl-doctor check` ranks them "
			"from the pairs that broke).",
	[NFK_BOOTSTRAP] = "Set NCCL_SOCKET_IFNAME to the interface the hosts reach each other on, open the ports between "
			  "them, and check that every rank started.",
	[NFK_TOPO] = "Rerun with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,GRAPH; unset NCCL_TOPO_FILE and NCCL_GRAPH_FILE; "
		     "try a newer NCCL.",
	[NFK_NVLS] = "Set NCCL_NVLS_ENABLE=0 to confirm; check nvidia-fabricmanager (and IMEX) on the host.",
	[NFK_NET_SOCKET] = "Set NCCL_SOCKET_IFNAME to the NIC the hosts reach each other on and open the ports between them.",
	[NFK_NET_IB] = "Check ibv_devinfo (port ACTIVE), NCCL_IB_GID_INDEX on RoCE and the memlock limit (ulimit -l "
		       "unlimited); NCCL_IB_DISABLE=1 confirms it is IB.",
	[NFK_P2P] = "Test NCCL_P2P_DISABLE=1; `nccl-doctor p2p` finds the broken pairs; on bare metal disable ACS or set "
		    "the IOMMU to passthrough (iommu=pt).",
	[NFK_SHM] = "Run the container with --ipc=host or --shm-size=16g (check `df -h /dev/shm`); NCCL_SHM_DISABLE=1 "
		    "confirms it.",
	[NFK_CUSTOM_AR] = "Restart with --disable-custom-all-reduce (vLLM, SGLang); `nccl-doctor p2p` tests the P2P it needs.",
};

static const struct {
	const char *name, *meaning;
	struct nccl_frame_cause c[5];
} kinds[NFK_COUNT] = {
	[NFK_BACKGROUND] = { "a background thread", "a thread every run has", { { NULL, 0 } } },
	[NFK_PY_COLLECTIVE] = { "a torch.distributed collective",
				"a collective call that did not return: another rank is elsewhere, gone, or the "
				"communicator's lazy init behind it stopped",
				{ { "collective_mismatch_app_bug", 0.2 }, { "peer_died_or_oom", 0.2 },
				  { "p2p_pcie_acs_iommu", 0.15 }, { NULL, 0 } } },
	[NFK_INIT] = { "communicator init",
		       "inside NCCL's communicator init, the part not said: the frames below it would tell",
		       { { "p2p_pcie_acs_iommu", 0.2 }, { "bootstrap_network", 0.2 }, { "shm_too_small", 0.15 },
			 { NULL, 0 } } },
	[NFK_COLLECTIVE] = { "a collective launched or waited for",
			     "NCCL launching or waiting for a collective: the kernels of earlier ones did not finish "
			     "(a rank elsewhere or gone, a transport that moves no data)",
			     { { "collective_mismatch_app_bug", 0.3 }, { "peer_died_or_oom", 0.25 },
			       { "p2p_pcie_acs_iommu", 0.2 }, { "gpu_hardware", 0.15 }, { NULL, 0 } } },
	[NFK_ABORT] = { "communicator destroy or abort",
			"NCCL destroying or aborting a communicator: teardown that waits on work or peers, a bug "
			"of some releases",
			{ { "driver_or_kernel_bug", 0.3 }, { "collective_mismatch_app_bug", 0.15 }, { NULL, 0 } } },
	[NFK_STORE] = { "PyTorch's store rendezvous",
			"PyTorch's TCPStore or rendezvous, before NCCL: a rank that cannot reach the store's "
			"address and port, or one that never started",
			{ { "bootstrap_network", 0.4 }, { "peer_died_or_oom", 0.25 }, { NULL, 0 } } },
	[NFK_CONNECT] = { "transport connection set-up",
			  "NCCL connecting its transports between ranks (P2P, SHM or the network, the frame does not "
			  "say which)",
			  { { "p2p_pcie_acs_iommu", 0.3 }, { "shm_too_small", 0.2 }, { "ib_rdma_config", 0.2 },
			    { "custom_allreduce_or_cumem", 0.15 }, { NULL, 0 } } },
	[NFK_BOOTSTRAP] = { "NCCL bootstrap",
			    "NCCL's bootstrap: the ranks exchange their addresses over sockets; a rank not reachable "
			    "on the interface NCCL chose, or one that never arrived",
			    { { "bootstrap_network", 0.5 }, { "peer_died_or_oom", 0.2 }, { NULL, 0 } } },
	[NFK_TOPO] = { "topology detection",
		       "NCCL reading the machine's topology (sysfs, NVML) and searching its graphs: a device it "
		       "cannot read, a topology file, a bug of the release with this machine",
		       { { "driver_or_kernel_bug", 0.3 }, { "nccl_config_error", 0.2 }, { NULL, 0 } } },
	[NFK_NVLS] = { "NVLink SHARP set-up",
		       "NCCL setting up NVLink SHARP (multicast) buffers: the NVSwitch fabric, its manager or IMEX",
		       { { "fabric_manager_nvswitch", 0.35 }, { "driver_or_kernel_bug", 0.2 }, { NULL, 0 } } },
	[NFK_NET_SOCKET] = { "the socket network transport",
			     "NCCL's socket transport connecting ranks on other hosts: the interface or a firewall",
			     { { "bootstrap_network", 0.4 }, { NULL, 0 } } },
	[NFK_NET_IB] = { "the IB / RoCE transport",
			 "NCCL's IB transport (verbs: queue pairs, memory registration): the fabric, its GID/port "
			 "settings, the locked-memory limit, GPUDirect RDMA",
			 { { "ib_rdma_config", 0.45 }, { "p2p_pcie_acs_iommu", 0.15 }, { NULL, 0 } } },
	[NFK_P2P] = { "P2P transport set-up",
		      "NCCL mapping another GPU's memory (CUDA IPC or cuMem import): P2P over PCIe that ACS or an "
		      "IOMMU breaks, or P2P inside a VM",
		      { { "p2p_pcie_acs_iommu", 0.45 }, { "p2p_virtualization", 0.2 }, { "custom_allreduce_or_cumem", 0.15 },
			{ NULL, 0 } } },
	[NFK_SHM] = { "SHM transport set-up",
		      "NCCL creating or mapping its shared-memory segments in /dev/shm: a small or full /dev/shm "
		      "(a container's 64 MB), RemoveIPC",
		      { { "shm_too_small", 0.45 }, { NULL, 0 } } },
	[NFK_CUSTOM_AR] = { "vLLM's custom all-reduce",
			    "vLLM's own all-reduce over CUDA IPC buffers, beside NCCL: its kernels spin on flags the "
			    "other GPUs write; without working P2P they never see them",
			    { { "custom_allreduce_or_cumem", 0.45 }, { "p2p_pcie_acs_iommu", 0.15 }, { NULL, 0 } } },
};

const char *nccl_frame_kind_name(enum nccl_frame_kind k)
{
	return k < NFK_COUNT ? kinds[k].name : "?";
}

const char *nccl_frame_kind_fix(enum nccl_frame_kind k)
{
	return k < NFK_COUNT ? fixes[k] : "";
}

const char *nccl_frame_kind_meaning(enum nccl_frame_kind k)
{
	return k < NFK_COUNT ? kinds[k].meaning : "?";
}

const struct nccl_frame_cause *nccl_frame_causes(enum nccl_frame_kind k)
{
	return kinds[k < NFK_COUNT ? k : NFK_BACKGROUND].c;
}
