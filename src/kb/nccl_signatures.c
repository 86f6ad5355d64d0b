/* The log signature table (see kb/nccl_signatures.h). Literals come from
 * /work/shared/kb/nccl-log.md (S-numbers there), which checked them against
 * NVIDIA/nccl src/ across tags; PyTorch, vLLM and kernel literals name their
 * own source. Specific rows come before general ones. Rows of NCCL warnings
 * that name a cause also match other text (NS_ANY): PyTorch repeats the last
 * NCCL warning after "Last error:", often the only trace when NCCL_DEBUG was
 * not set. */
#include "kb/nccl_signatures.h"
#include "kb/findings.h"

#include <string.h>

#define L(...) { __VA_ARGS__ }
/* kb/rm_status.def rows by their signature column: RM_IF_K03_<sig>(x) is
 * x for the rows of K03 and nothing for the others. */
#define RM_IF_K03_K03(x) x,
#define RM_IF_K03_K04(x)
#define RM_IF_K04_K03(x)
#define RM_IF_K04_K04(x) x,
/* The finding of a row: its enum (a wrong id does not compile) and its name. */
#define F(id) #id, FID_##id

static const struct nccl_signature sigs[] = {
	/* --- bootstrap and sockets ----------------------------------------- */
	{ "S05", F(LOG_BOOTSTRAP_NO_INTERFACE), NS_ANY,
	  L("Bootstrap : no socket interface found", "NET/Socket : No usable listening interface found",
	    "NET/Socket : no interface found"), NULL, NSR_ROOT, 1, 0.9, "all (seen in 2.28.9)",
	  "NCCL_SOCKET_IFNAME matches no usable interface, or the container has no network",
	  "fix NCCL_SOCKET_IFNAME (ip -br addr) or unset it", "N:bootstrap.cc, N:transport/net_socket.cc" },
	{ "S05b", F(LOG_BOOTSTRAP_NO_INTERFACE), NS_ANY, L("Socket creation failed : Address family not supported"), NULL, NSR_ROOT, 1, 0.75,
	  "2.2-2.3 'include/socket.h:311 WARN Socket creation failed : Address family not supported by protocol', 2.4-2.15 'Net : Socket creation failed : %s', 2.16-2.23 'ncclSocketInit: Socket creation failed : %s'",
	  "NCCL tried to open a socket of an address family the host or container lacks: no usable IP interface (a container without network, IPv6 only on one side)",
	  "give the container the host network (--net host) or an interface; set NCCL_SOCKET_IFNAME to one that exists on every node",
	  "N:include/socket.h (2.4-2.11), N:misc/socket.cc (2.12-2.23) 'Socket creation failed : %s' with strerror(EAFNOSUPPORT); nccl-tests#14 (maintainer: no usable IP interface)" },
	{ "S06", F(LOG_BOOTSTRAP_COMM_ID_INVALID), NS_ANY, L("Invalid NCCL_COMM_ID"), NULL, NSR_ROOT, 1, 0.9, "all",
	  "NCCL_COMM_ID not <ip>:<port>", "fix NCCL_COMM_ID", "N:bootstrap.cc" },
	{ "S12", F(LOG_SOCKET_BAD_ADDRESS), NS_ANY, L("is neither AF_INET", "nor AF_INET6"), NULL, NSR_ROOT, 1, 0.7,
	  "2.x 'ncclSocketInit: connecting to address with family 59936 is neither AF_INET(2) nor AF_INET6(10)'",
	  "NCCL was handed a socket address that is not one: an interface that does not exist (NCCL_SOCKET_IFNAME), or a peer whose libnccl lays the address out differently",
	  "check NCCL_SOCKET_IFNAME on every node; one NCCL version on every node", "N:misc/socket.cc ncclSocketInit" },
	/* no 'failed to connect': no Linux NCCL release prints it (only
	 * os/windows_ipcsocket.cc of 2.30, never on Linux; the dev branch's
	 * 'Failed to connect GDAKI QP' is IB): issue 14 item 1 review */
	{ "S07b", F(LOG_SOCKET_CONNECT_FAILED), NS_NCCL,
	  L("exceeded retries", "exceeded error retry count", "exceeded timeouts ("), NULL,
	  NSR_ROOT, -1, 0.6, "<=2.23 'socketStartConnect: exceeded retries (20000)'; 2.27+ 'exceeded error retry count after 35 attempts'",
	  "a peer never accepted the connection: not started, crashed, firewall, wrong interface",
	  "check every rank started; NCCL_SOCKET_IFNAME; firewall", "N:misc/socket.cc, N:os/linux.cc" },
	{ "S07c", F(LOG_SOCKET_CONNECT_FAILED), NS_ANY, L("Connect to "), " failed : ", NSR_ROOT, -1, 0.6, "2.13+",
	  "connect() to a peer failed", "check the peer and the interface", "N:misc/socket.cc" },
	{ "S07a", F(LOG_SOCKET_CONNECT_RETRY), NS_NCCL,
	  L("returned Connection refused, retrying", "connect returned", "Call to connect returned"), NULL,
	  NSR_CONTEXT, -1, 0.3, "<=2.23 'Call to connect returned Connection refused, retrying'; 2.24+ '<fn>: connect to A<p> returned Connection refused, retrying (3/34) after sleep for 300 msec'",
	  "a peer is not listening (yet)", "normal briefly at start; a hang follows if all retries fail", "N:misc/socket.cc" },
	{ "S10", F(LOG_SOCKET_FOREIGN_CONNECTION), NS_NCCL,
	  L("wrong magic", "wrong type", "didn't receive a valid magic", "socket magic mismatch"), NULL,
	  NSR_CONTEXT, -1, 0.35, "<=2.26 wrong magic/type; 2.27 didn't receive a valid magic; 2.30 socket magic mismatch",
	  "another job or a scanner connected to this job's port", "unique MASTER_PORT; kill stale workers", "N:misc/socket.cc, nccl-tests#188" },
	{ "S11", F(LOG_BOOTSTRAP_ROOT_MISMATCH), NS_ANY,
	  L("Bootstrap Root : mismatch in", "has already checked in"), NULL, NSR_ROOT, 3, 0.85, "all",
	  "ranks disagree on the world size or two launches share one id", "one MASTER_PORT per job; same world size", "N:bootstrap.cc" },
	/* --- peers going away (consequences) -------------------------------- */
	{ "PT07t", F(LOG_RANK0_LATE), NS_TEXT, L("retrieving ncclUniqueId from"), "Socket Timeout", NSR_ROOT, 3, 0.45,
	  "PyTorch 2.x '[7] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout'",
	  "the rank reached the store (rank 0 hosts it) but rank 0 never published the NCCL unique id within the timeout: rank 0 was busy elsewhere (data preparation on rank 0 alone, a collective or barrier the others skipped) or stuck; a dead rank 0 takes its store with it (connection reset, not a time-out)",
	  "find what rank 0 was doing at that time (its own log, py-spy dump); run rank-0-only work before init_process_group or raise the timeout (init_process_group(timeout=...), DeepSpeed/accelerate timeout settings)",
	  "pytorch torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp broadcastUniqueNCCLID (store->get of the id rank 0 sets after ncclGetUniqueId), TCPStore's recv time-out ('Socket Timeout')" },
	{ "PT07w", F(LOG_RANK0_LATE), NS_TEXT, L("retrieving ncclUniqueId from"), "wait timeout after", NSR_ROOT, 3, 0.45,
	  "PyTorch 2.11 '[1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: wait timeout after 20000ms, keys: /default_pg/0//cuda//0' (recorded on the H100 with rank 0 asleep past the group's 20 s timeout, tests/device/record-rank0-late.sh)",
	  "as PT07t: the store answered, rank 0 never published the NCCL unique id in time (busy elsewhere or stuck)",
	  "find what rank 0 was doing (its log, py-spy dump); run rank-0-only work before init_process_group or raise the timeout",
	  "pytorch torch/csrc/distributed/c10d/TCPStore.cpp doWait ('wait timeout after %dms, keys: ...'), ProcessGroupNCCL.cpp broadcastUniqueNCCLID" },
	{ "PT07", F(LOG_RENDEZVOUS_FAILED), NS_TEXT, L("retrieving ncclUniqueId from"), NULL, NSR_SECONDARY, 3, 0.45,
	  "PyTorch 2.x '[1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: ...'",
	  "a rank could not fetch the NCCL unique id from the store: rank 0 or the store died, or the store is unreachable",
	  "read rank 0's log; check MASTER_ADDR reachability", "pytorch ProcessGroupNCCL.cpp broadcastUniqueNCCLID" },
	{ "PT08", F(LOG_COMM_ABORTED), NS_TEXT, L("NCCL communicator was aborted on rank"), NULL, NSR_SECONDARY, -1, 0.15,
	  "PyTorch 'NCCL communicator was aborted on rank 3.'", "an abort after a failure or a watchdog timeout",
	  "look for the failure before it", "pytorch ProcessGroupNCCL.cpp" },
	{ "S65", F(LOG_PROXY_FAILED), NS_NCCL,
	  L("Failed to execute operation", "[Service thread] Error", "[Service thread] Connection closed", "Proxy Call to rank"), NULL,
	  NSR_SECONDARY, 5, 0.3, "2.12+ / 2.17+",
	  "a proxy operation failed; the warning before it holds the cause", "read the warning above", "N:proxy.cc" },
	{ "S65b", F(LOG_PROXY_FAILED), NS_NCCL, L("Socket recv failed while polling for opId", "Could not receive type"), NULL,
	  NSR_SECONDARY, 5, 0.3, "2.17+", "the proxy lost its peer", "find the first rank that failed", "N:proxy.cc" },
	/* --- network plugins, IB ------------------------------------------- */
	{ "S20", F(LOG_NET_NOT_FOUND), NS_NCCL, L("Failed to initialize any NET plugin", "Error: network "), NULL, NSR_ROOT, 2, 0.8,
	  "2.27+ / <=2.26", "NCCL_NET names an unavailable network", "unset NCCL_NET", "N:net.cc" },
	{ "S63", F(LOG_IB_ERROR), NS_ANY, L("Got completion from peer", "Got completion with error"), NULL, NSR_ROOT, 10, 0.7, "all; older 'NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129'",
	  "an IB work request failed (12 retry exceeded, 4 protection, 5 flush = secondary)", "check the fabric; NCCL_IB_TIMEOUT", "N:transport/net_ib.cc" },
	{ "S64", F(LOG_IB_ERROR), NS_ANY, L("async fatal event", "Got non-fatal async event", "Got async event"), NULL, NSR_ROOT, -1, 0.6,
	  "2.23+", "an HCA or port event (port down)", "check ibstat and cabling", "N:transport/net_ib.cc" },
	{ "S64m", F(LOG_IB_ERROR), NS_ANY, L("ibv_reg_mr"), "Cannot allocate memory", NSR_ROOT, -1, 0.85,
	  "all 'Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory'",
	  "memory registration failed: the locked-memory limit (ulimit -l) is too low for the process (mpirun, containers, systemd units)",
	  "ulimit -l unlimited (limits.conf, --ulimit memlock=-1, LimitMEMLOCK=infinity)", "N:misc/ibvwrap.cc, nccl-tests#206" },
	{ "S64b", F(LOG_IB_ERROR), NS_ANY, L("ibv_modify_qp failed", "ibv_create_qp failed", "ibv_reg_mr failed", "ibv_open_device failed"), NULL,
	  NSR_ROOT, -1, 0.6, "all (wrap_ibv_* in N:misc/ibvwrap.cc)", "an InfiniBand verbs call failed: port down, GID/RoCE set-up, memlock limit",
	  "check ibstat/ibv_devinfo, the RoCE GID index (NCCL_IB_GID_INDEX), ulimit -l", "N:misc/ibvwrap.cc" },
	{ "S64d", F(LOG_IB_ERROR), NS_NCCL, L("Call to ibv_"), " failed", NSR_ROOT, -1, 0.6, "all (wrap_ibv_* 'Call to ibv_<fn> failed with error <strerror>')",
	  "an InfiniBand verbs call failed", "check ibstat/ibv_devinfo, the RoCE GID index, ulimit -l", "N:misc/ibvwrap.cc" },
	/* ENODEV: in NCCL, the calls that return it are verbs (ibv_open_device,
	 * ibv_query_port/gid, ibv_modify_qp on a port or HCA that is gone or
	 * has no link); NCCL binds sockets by address, never by device name */
	{ "IB07", F(LOG_IB_ERROR), NS_NCCL, L("No such device"), NULL, NSR_ROOT, -1, 0.45,
	  "all (ibvwrap.cc 'Call to ibv_<fn> failed with error No such device', 2.19+ adds ' errno 19')",
	  "an InfiniBand verbs call found no such device: an HCA or port listed or picked that is down, absent or not usable (a bad port among several)",
	  "check ibstat/ibv_devinfo; leave the bad HCA out (NCCL_IB_HCA=^mlx5_N) or fix its link", "N:misc/ibvwrap.cc (strerror(ENODEV))" },
	{ "IB07t", F(LOG_IB_ERROR), NS_TEXT, L("with error No such device"), "NCCL", NSR_ROOT, -1, 0.45,
	  "NCCL's verbs wording 'failed with error %s' (misc/ibvwrap.cc 2.4+; include/ibvwrap.h) pasted without the NCCL header, e.g. an issue title with the NCCL version",
	  "an InfiniBand verbs call found no such device: an HCA or port listed or picked that is down, absent or not usable",
	  "check ibstat/ibv_devinfo; leave the bad HCA out (NCCL_IB_HCA=^mlx5_N) or fix its link",
	  "N:misc/ibvwrap.cc 'Call to %s failed with error %s' (tools/nccl-warns key 6225d1ff0989; the only NCCL literals of 2.4-2.15 ending in 'with error %s' are verbs calls)" },
	{ "OF01", F(LOG_OFI_REGISTER_MR_FAILED), NS_ANY, L("Unable to register memory (type"), "NET/OFI", NSR_ROOT, 9, 0.6,
	  "aws-ofi-nccl 'register_mr_buffers:544 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -22, Error: Invalid argument'",
	  "libfabric refused the plugin's memory registration: NCCL 2.19+ with the libfabric of EFA installers before 1.29, or a plugin, libfabric and NCCL not made for one another",
	  "EFA installer 1.29+ and an aws-ofi-nccl release for this NCCL, or NCCL before 2.19; FI_EFA_SET_CUDA_SYNC_MEMOPS=0",
	  "aws-ofi-nccl src/nccl_ofi_net.c / nccl_ofi_rdma.c register_mr_buffers (NCCL_OFI_WARN 'Unable to register memory (type = %d) for device %d. RC: %d, Error: %s' after fi_mr_regattr); aws-ofi-nccl#584 (maintainer: NCCL 2.19+ with EFA installers before 1.29)" },
	{ "CH01", F(LOG_NET_CHANNEL_TEXT), NS_TEXT, L(" via NET/"), "->", NSR_INFO, 9, 0,
	  "2.2-2.3 'host:pid:tid [4] INFO 3 -> 12 via NET/IB/0/GDRDMA' (no NCCL tag); any version's 'Channel 00 : 9[1a000] -> 2[6b000] [send] via NET/IB/0' quoted without its header",
	  "a network connection of NCCL's set-up, not read as an NCCL line", "capture the whole log with NCCL_DEBUG=INFO",
	  "N:transport/net.cc (v2.19.3-1 lines 195-198, '%d[%lx] -> %d[%lx] [send] via NET/%s/%d%s%s' with '/GDRDMA' when useGdr); NCCL 2.2 'INFO %d -> %d via NET/%s/%d%s' (NVIDIA/nccl#133)" },
	{ "TB01", F(LOG_NCCL_TESTS_TABLE), NS_TEXT, L(" algbw"), "busbw", NSR_INFO, 10, 0,
	  "nccl-tests '#       size         count      type   redop    root     time   algbw   busbw #wrong ...'; NCCL 1 tests '      bytes             N    type      op     time  algbw  busbw      res ...'",
	  "the column header of the test's result table: a row per size follows when its collective completes",
	  "nothing; a header with no row after it is a stall in the first collective",
	  "nccl-tests src/common.cu (the table header printed before the first size runs); NCCL 1 test/include/test_utilities.h (NVIDIA/nccl#104)" },
	{ "TB02", F(LOG_NCCL_TESTS_WRONG_DATA), NS_TEXT, L("Out of bounds values"), "FAILED", NSR_ROOT, 10, 0.5,
	  "nccl-tests '# Out of bounds values : 12 FAILED' (with a non-zero #wrong in its rows; '... : 0 OK' when every element was right)",
	  "a collective finished with wrong data: elements differed from the values nccl-tests expected",
	  "nccl-doctor kernel and sys (ACS, IOMMU, Xid); rerun with NCCL_P2P_DISABLE=1; nccl-doctor p2p finds the pair",
	  "nccl-tests src/common.cu (the footer printed after the table; kb/benchmarks.md)" },
	{ "S21", F(LOG_GDR_DISABLED), NS_INFO, L("GPU Direct RDMA Disabled for"), NULL, NSR_INFO, 4, 0, "2.13+",
	  "network traffic stages through host memory", "load nvidia-peermem if RDMA performance matters", "N:transport/net_ib.cc" },
	/* --- topology ------------------------------------------------------- */
	{ "S33n", F(LOG_GRAPH_NVLINK), NS_INFO, L(", type NVL/"), NULL, NSR_INFO, 6, 0,
	  "GRAPH 'Pattern 4, crossNic 0, nChannels 1, speed 21.000000/21.000000, type NVL/PIX, sameChannels 1' (2.4-2.11 speed, 2.12+ bw)",
	  "NCCL's graph search routes channels over NVLink: a stop after it puts the NVLink path (a link down or degraded, a bridge not seated) among the suspects",
	  "check nvidia-smi nvlink --status and the kernel log (Xid 74)", "N:graph/search.cc ncclTopoPrintGraph (kb S33)" },
	{ "S23b", F(LOG_TOPO_FILE_ERROR), NS_ANY, L("Could not open XML topology file", "Could not open XML graph file"), NULL, NSR_ROOT, 4, 0.7,
	  "2.6+", "NCCL_TOPO_FILE missing or unreadable", "fix NCCL_TOPO_FILE", "N:graph/xml.cc" },
	{ "S23u", F(LOG_TOPO_NIC_NOT_PCI), NS_INFO, L("is not a PCI device (usb)"), "Topology detection", NSR_INFO, 4, 0,
	  "2.8+ 'Topology detection: network path /sys/devices/.../usb1/1-1/... is not a PCI device (usb). Attaching to first CPU'; 2.28+ 'network path (name = X) ... is not a PCI device (usb)'",
	  "NCCL found a USB network device and attached it to the first CPU: a NIC node without a PCI bus id (virtio NICs of VMs print the same line with (virtio) and are not taken)",
	  "exclude the device (NCCL_SOCKET_IFNAME, NCCL_IB_HCA) or load a dumped NCCL_TOPO_FILE",
	  "N:graph/xml.cc ncclTopoGetXmlFromSys path of a NIC (v2.19.3-1 line 793, v2.25.1-1 line 913, v2.28.3-1 line 930); NVIDIA/nccl#1125" },
	{ "S50r", F(LOG_GPU_SM120_CONSUMER), NS_TEXT, L("GeForce RTX 50"), NULL, NSR_INFO, -1, 0,
	  "nccl-tests '#  Rank  0 Group  0 Pid 4766 on host device  0 [0x21] NVIDIA GeForce RTX 5090'; nvidia-smi's GPU name",
	  "a GeForce RTX 50-series GPU (Blackwell, compute capability 12.0, sm_120)",
	  "NCCL 2.26.2 or newer on these GPUs",
	  "nccl-tests src/common.cu (the 'Using devices' lines print cudaDeviceProp.name); NVIDIA/nccl-tests#287 and #291 (maintainer: NCCL 2.25.1 fails on the 5090, 2.26.2 works)" },
	{ "S40a", F(LOG_GPU_ADA_PCIE), NS_TEXT, L("GeForce RTX 40", "RTX 6000 Ada", "L40S"), NULL, NSR_INFO, -1, 0,
	  "nvidia-smi's and collect_env's GPU name ('GPU 0: NVIDIA GeForce RTX 4090'), nccl-tests' device lines",
	  "an Ada-generation PCIe GPU: GeForce RTX 40-series, RTX 6000 Ada, L40S; NVIDIA's drivers before 550.40.07 report P2P between GeForce RTX 40 cards that does not work",
	  "a driver 550.40.07 or newer, or NCCL_P2P_DISABLE=1",
	  "huggingface/accelerate utils/environment.py check_cuda_p2p_ib_support ('RTX 40', acceptable_driver_version 550.40.07); axolotl utils/environment.py (also 'RTX 6000 Ada', 'L40S' with 2-7 GPUs)" },
	{ "SDV1", F(LOG_DRIVER_VERSION_SEEN), NS_TEXT, L("driver version:"), NULL, NSR_INFO, -1, 0,
	  "nvidia-smi's header 'Driver Version: 535.104.05', collect_env's 'Nvidia driver version: 535.104.05'",
	  "the NVIDIA driver's version as the paste shows it",
	  "nothing by itself",
	  "nvidia-smi's table header; torch.utils.collect_env get_nvidia_driver_version" },
	{ "S23t", F(LOG_TOPO_FILE_LOADED), NS_INFO, L("Loading topology file"), NULL, NSR_INFO, 4, 0,
	  "2.6+ 'NCCL INFO Loading topology file /opt/microsoft/ncv4/topo.xml'",
	  "NCCL read its topology from NCCL_TOPO_FILE (environment or /etc/nccl.conf) or the default virtual topology file",
	  "check where NCCL_TOPO_FILE comes from; rerun without it",
	  "N:graph/xml.cc ncclTopoGetXmlFromFile (v2.19.3-1 line 315); N:graph/topo.cc ncclTopoGetSystem (NCCL_TOPO_FILE, else /var/run/nvidia-topologyd/virtualTopology.xml)" },
	{ "S23", F(LOG_TOPO_SYSFS_MISSING), NS_INFO, L("Could not find real path of"), NULL, NSR_INFO, 4, 0, "all",
	  "virtual or partial PCI tree in /sys (VM, container)", "NCCL_TOPO_FILE if the topology is wrong", "N:graph/xml.cc" },
	{ "S24", F(LOG_CPU_AFFINITY_EMPTY), NS_INFO, L("is empty, ignoring"), "Affinity for GPU", NSR_INFO, 4, 0,
	  "2.28+ 'ncclTopoGetCpuAffinity: Affinity for GPU 0 is empty, ignoring. (GPU affinity = ...' (seen in 2.28.9)",
	  "the job's CPU set misses the GPU's local CPUs", "bind ranks to GPU-local CPUs or NCCL_IGNORE_CPU_AFFINITY=1", "N:graph/topo.cc" },
	{ "S28", F(LOG_P2P_DISABLED_NVLINK), NS_ANY, L("P2P is disabled between NVLINK connected GPUs"), NULL, NSR_ROOT, 4, 0.85, "2.12+",
	  "NVLink down or degraded; init fails", "check nvidia-smi nvlink -s, Xid 74/136, fabric manager", "N:graph/paths.cc" },
	{ "S27", F(LOG_P2P_DISABLED_PCIE), NS_ANY, L("P2P is disabled between connected GPUs"), NULL, NSR_CONTEXT, 4, 0.45, "2.12+",
	  "NVML says P2P unsupported for a close pair; NCCL uses SHM", "nccl-doctor p2p / sys (ACS, IOMMU)", "N:graph/paths.cc" },
	/* not 'Could not find a path for pattern %d, falling back to simple
	 * order': graph/search.cc ncclTopoCompute prints it when its own search
	 * found no channel, uses a one-channel fallback and returns ncclSuccess
	 * (a WARN 2.5-2.26, an INFO from 2.27): a slow local graph, not ranks
	 * that disagree (tools/nccl-warns: context; issue 14 item 1 review) */
	{ "S61", F(LOG_RING_MISMATCH), NS_ANY, L("does not loop back to start"), NULL, NSR_ROOT, 6, 0.6,
	  "all", "ranks computed different topologies or settings", "same env and topology on all ranks", "N:graph/rings.cc" },
	/* --- environment ---------------------------------------------------- */
	{ "S30b", F(LOG_ENV_INVALID_VALUE), NS_NCCL, L("Invalid value "), ", using default", NSR_CONTEXT, -1, 0.3, "all",
	  "a variable's value was not understood and the default is used", "fix the value", "N:misc/param.cc" },
	/* --- shared memory -------------------------------------------------- */
	{ "S51", F(LOG_SHM_EXTEND_FAILED), NS_ANY, L("failed to extend /dev/shm", "Failed to extend /dev/shm", "to extend /dev/shm/"), NULL,
	  NSR_ROOT, 7, 0.9, "all; 2.26+ appends ', error: <strerror> (<errno>)'",
	  "/dev/shm too small or full (Docker 64 MiB)", "--ipc=host or --shm-size=16g; remove stale /dev/shm/nccl-*", "N:misc/shmutils.cc" },
	/* NCCL 2.3 and before (include/shm.h shmOpen, v2.3.7-1 line 26):
	 * posix_fallocate's own errno decides. EINTR is a signal of the
	 * application during the call, which NCCL did not retry until 2.4.2
	 * (SYSCHECKSYNC, include/core.h v2.4.2-1; nccl#137); ENOSPC is a full
	 * /dev/shm. 2.12-2.22 print 'failed to extend' without the errno (S51),
	 * and retry EINTR from 2.22 on (misc/shmutils.cc). */
	{ "S52e", F(LOG_SHM_ALLOC_INTERRUPTED), NS_ANY, L("Unable to allocate shared memory"), "Interrupted system call", NSR_ROOT, 7, 0.7,
	  "<=2.3 'Unable to allocate shared memory (4214784 bytes) : Interrupted system call'",
	  "posix_fallocate() of the /dev/shm segment was interrupted by a signal of the application (SIGPROF, an alarm): NCCL 2.3 and before fail instead of retrying",
	  "update NCCL (2.4.2+ retries); or NCCL_SHM_DISABLE=1", "N:include/shm.h (v2.3.7-1 line 26), N:include/core.h SYSCHECKSYNC (v2.4.2-1); nccl#137" },
	{ "S52u", F(LOG_SHM_SEGMENT_FAILED), NS_ANY, L("Unable to allocate shared memory"), "No space left on device", NSR_ROOT, 7, 0.85,
	  "<=2.3 'Unable to allocate shared memory (N bytes) : No space left on device'",
	  "/dev/shm is full or too small for the SHM transport's segment (ENOSPC from posix_fallocate)",
	  "--ipc=host or --shm-size=16g; remove stale /dev/shm/nccl-*", "N:include/shm.h (v2.3.7-1 line 26)" },
	{ "S52f", F(LOG_SHM_SEGMENT_FAILED), NS_ANY, L("posix_fallocate"), "No space left on device", NSR_ROOT, 7, 0.85,
	  "<=2.11 'include/shm.h:28 NCCL WARN Call to posix_fallocate failed: No space left on device' (SYSCHECK's ' failed: ' or ' failed : ')",
	  "/dev/shm is full or too small for the SHM transport's segment", "--ipc=host or --shm-size=16g", "N:include/shm.h, N:include/checks.h SYSCHECK" },
	{ "S52b", F(LOG_SHM_UNLINK_FAILED), NS_ANY, L("unlink shared memory"), "failed", NSR_CONTEXT, -1, 0.5, "all",
	  "systemd-logind RemoveIPC removed the segment", "RemoveIPC=no", "N:misc/shmutils.cc" },
	{ "S52", F(LOG_SHM_SEGMENT_FAILED), NS_ANY,
	  L("Error while creating shared memory segment", "Error while attaching to shared memory segment",
	    "failed to create shared memory file", "Could not map "), NULL, NSR_ROOT, 7, 0.8, "all",
	  "the SHM transport could not create or map its segment", "--ipc=host / --shm-size; or NCCL_SHM_DISABLE=1", "N:transport/shm.cc, N:misc/shmutils.cc" },
	{ "NT01", F(LOG_NCCL_OBSOLETE), NS_ANY, L("compiled with NCCL 1.", "NCCL version 1."), NULL, NSR_ROOT, 0, 0.35,
	  "nccl-tests before 2019 '# NCCL Tests compiled with NCCL 1.0' (src/common.cu header), NCCL 1.x 'NCCL version 1.3.4 compiled with CUDA 9.0'",
	  "the job runs NCCL 1.x, unmaintained since NCCL 2 (2017): failures there are settled by moving to NCCL 2",
	  "install NCCL 2 for the CUDA in use and rebuild against it",
	  "nccl-tests src/common.cu (NCCL_MAJOR/NCCL_MINOR header); nccl-tests#5, nccl-tests#13; NVIDIA/caffe#492 (maintainer: link with NCCL 2)" },
	/* a SIGBUS while a library is loaded is a mapped file shorter than its
	 * headers (mmap(2): SIGBUS beyond the end of the file): a truncated or
	 * half-written libnccl, not /dev/shm (vllm#4077, maintainer) */
	{ "LD02", F(LOG_NCCL_LIB_LOAD_CRASH), NS_TEXT, L("Loading nccl from library", "Found nccl from library"), "bus error",
	  NSR_ROOT, 0, 0.8,
	  "vLLM 0.4 'Loading nccl from library %s' (vllm/distributed/device_communicators/pynccl.py), 0.5+ 'Found nccl from library %s' (vllm/utils.py find_nccl_library) on the line of the bus error",
	  "a process died of SIGBUS while loading libnccl: the library file is truncated or was replaced while mapped (an interrupted download, a second copy written over it)",
	  "reinstall the libnccl (pip install --force-reinstall nvidia-nccl-cu12, or point VLLM_NCCL_SO_PATH at an intact one); check its size and checksum",
	  "man 2 mmap (SIGBUS: access beyond the end of the mapped file); vllm/distributed/device_communicators/pynccl.py, vllm/utils.py; vllm#4077" },
	{ "SB01", F(LOG_SHM_SIGBUS), NS_TEXT, L("ncclShmOpen"), NULL, NSR_ROOT, 7, 0.6,
	  "a back-trace frame (gdb 'in ncclShmOpen(char*, unsigned long, ...)', UCX or faulthandler stacks) of NCCL 2.12+ (ncclShmOpen in N:misc/shmutils.cc)",
	  "a process crashed inside NCCL's /dev/shm segment set-up: /dev/shm full or too small",
	  "--ipc=host or --shm-size=16g; remove stale /dev/shm/nccl-*", "N:misc/shmutils.cc ncclShmOpen" },
	{ "SB02", F(LOG_SHM_SIGBUS), NS_TEXT, L("(Bus error", "SIGBUS", "Fatal Python error: Bus error", "Bus error: nonexistent physical address"), NULL,
	  NSR_ROOT, -1, 0.55,
	  "UCX 'Caught signal 7 (Bus error: nonexistent physical address)' (also quoted without the parenthesis), gdb 'received signal SIGBUS, Bus error.', torchelastic 'Signal 7 (SIGBUS) received by PID', CPython faulthandler 'Fatal Python error: Bus error'",
	  "a process died of SIGBUS: a memory-mapped /dev/shm file (NCCL SHM segment, DataLoader tensors) could not be backed because /dev/shm is full",
	  "--ipc=host or --shm-size=16g; NCCL_SHM_DISABLE=1 to confirm",
	  "openucx ucs/debug/debug.c ('Caught signal %d (%s: %s%s)', strsignal(SIGBUS) = 'Bus error', BUS_ADRERR = 'nonexistent physical address'); CPython Modules/faulthandler.c; glibc strsignal" },
	{ "SB03", F(LOG_SHM_SIGBUS), NS_TEXT, L("Bus error"), "core dumped", NSR_ROOT, -1, 0.55,
	  "the shell's job message 'Bus error (core dumped)' (bash pads it: '4242 Bus error               (core dumped) python train.py')",
	  "a process died of SIGBUS: a memory-mapped /dev/shm file could not be backed because /dev/shm is full",
	  "--ipc=host or --shm-size=16g; NCCL_SHM_DISABLE=1 to confirm", "bash jobs.c (strsignal(SIGBUS) and ' (core dumped)')" },
	{ "SB04", F(LOG_SHM_SIGBUS), NS_TEXT, L("exitcode: -7", "exitcode  : -7", "return code = -7"), NULL, NSR_ROOT, -1, 0.5,
	  "torchelastic 'failed (exitcode: -7) local_rank: 0' and 'exitcode  : -7 (pid: N)', DeepSpeed's launcher 'exits with return code = -7' (a negative code is the signal that killed the rank: 7 = SIGBUS)",
	  "a rank was killed by SIGBUS: a memory-mapped /dev/shm file could not be backed because /dev/shm is full",
	  "--ipc=host or --shm-size=16g; NCCL_SHM_DISABLE=1 to confirm",
	  "pytorch torch/distributed/elastic/multiprocessing/api.py and errors/__init__.py; DeepSpeed deepspeed/launcher/launch.py sigkill_handler; Python subprocess (returncode -N = signal N)" },
	{ "PT13", F(LOG_SHM_SIGBUS), NS_TEXT, L("bus error encountered in worker"), NULL, NSR_ROOT, -1, 0.75,
	  "PyTorch 'ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).'",
	  "a DataLoader worker died of SIGBUS: /dev/shm is too small for the tensors it shares", "--ipc=host or --shm-size; fewer workers",
	  "pytorch torch/csrc/DataLoader.cpp (SIGBUS handler of worker processes)" },
	{ "PT15", F(LOG_SHM_SIGBUS), NS_TEXT, L("workers are out of shared memory"), NULL, NSR_ROOT, -1, 0.75,
	  "PyTorch 'RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit.'",
	  "a DataLoader worker died of SIGBUS: /dev/shm is too small for the tensors the workers share", "--ipc=host or --shm-size=16g; fewer workers",
	  "pytorch torch/csrc/DataLoader.cpp (the SIGBUS branch of the worker status check), checked with find_string" },
	{ "PT16", F(LOG_SHM_SEGMENT_FAILED), NS_TEXT, L("unable to write to file </torch_"), NULL, NSR_ROOT, -1, 0.6,
	  "PyTorch 'RuntimeError: unable to write to file </torch_4242_123456_0>: No space left on device (28)' (older: without the reason)",
	  "PyTorch could not grow a shared-memory file of a tensor passed between processes: /dev/shm is full or too small",
	  "--ipc=host or --shm-size=16g; torch.multiprocessing.set_sharing_strategy('file_system') moves it off /dev/shm",
	  "pytorch aten/src/ATen/MapAllocator.cpp ('unable to write to file <', filename_, '>'); torch/multiprocessing names its files /torch_PID_..." },
	{ "SHM01", F(LOG_SHM_SEGMENT_FAILED), NS_TEXT, L("No space left on device"), "/dev/shm", NSR_ROOT, -1, 0.6,
	  "any tool writing under /dev/shm: 'OSError: [Errno 28] No space left on device: '/dev/shm/...'', 'cp: error writing '/dev/shm/x': No space left on device'",
	  "/dev/shm is full: NCCL's SHM segments, PyTorch's shared tensors and the launchers' files compete for it",
	  "--ipc=host or --shm-size=16g; remove stale /dev/shm files; `df -h /dev/shm`",
	  "strerror(ENOSPC) 'No space left on device' (glibc); /dev/shm as the POSIX shared-memory tmpfs" },
	{ "S50", F(LOG_CUMEM_HOST_FALLBACK), NS_NCCL, L("cuMem host allocations do not appear to be working"), NULL, NSR_INFO, 7, 0, "2.26.3+",
	  "NUMA syscalls blocked; /dev/shm used instead", "--cap-add SYS_NICE, or a big enough /dev/shm", "N:transport/shm.cc" },
	/* --- CUDA failures, most specific first (S53) ------------------------ */
	/* framework all-reduce kernels that bypass NCCL: their own CUDA checks */
	{ "VL06", F(LOG_CUSTOM_AR_FAILED), NS_ANY, L("custom_all_reduce.cuh", "custom_all_reduce.cu:", "custom_allreduce.cu", "customAllReduceKernels"), NULL,
	  NSR_ROOT, 10, 0.8, "vLLM 'Failed: .../csrc/custom_all_reduce.cuh:310 'invalid argument''; SGLang and TensorRT-LLM copies of the kernel (TensorRT-LLM: kernels/customAllReduceKernels.cu; not the word CustomAllreduce alone: SGLang says 'CustomAllreduce is disabled' as a fact)",
	  "the framework's own (custom) all-reduce kernel failed: IPC buffers on GPUs without P2P, CUDA-graph capture, an NCCL or driver it does not support",
	  "disable it (vLLM/SGLang --disable-custom-all-reduce, TensorRT-LLM use_custom_all_reduce off) and retest", "vllm csrc/custom_all_reduce.cuh CUDACHECK" },
	{ "S53m", F(LOG_CUDA_OOM), NS_ANY, L("Cuda failure", "CUDA failure"), "out of memory", NSR_ROOT, -1, 0.85, "all",
	  "the framework took nearly all GPU memory", "lower --gpu-memory-utilization / batch", "N:include/checks.h" },
	{ "S53p", F(LOG_CUDA_PEER_ACCESS), NS_ANY, L("Cuda failure", "CUDA failure"), "peer access is not supported", NSR_ROOT, -1, 0.8, "2.23+",
	  "cuMem host or P2P on GPUs without peer access (nccl#1838)", "NCCL_CUMEM_HOST_ENABLE=0", "N:include/checks.h, nccl#1838" },
	{ "S53q", F(LOG_CUDA_PEER_ACCESS), NS_ANY, L("peer access is not supported", "cudaErrorPeerAccessUnsupported", "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED"), NULL,
	  NSR_ROOT, -1, 0.75, "CUDA error 217 as any wrapper prints it (SGLang 'CUDART error:', TensorRT-LLM 'CUDA runtime error in')",
	  "peer access between two GPUs that have none (consumer GPUs, VMs, ACS): a framework's custom all-reduce or cuMem host memory asked for it",
	  "disable the custom all-reduce / NCCL_CUMEM_HOST_ENABLE=0; check P2P with nccl-doctor p2p", "CUDA runtime API error strings (cudaErrorPeerAccessUnsupported = 217)" },
	{ "S53f", F(LOG_CUDA_FABRIC_NOT_READY), NS_ANY, L("system not yet initialized", "cudaErrorSystemNotReady", "CUDA_ERROR_SYSTEM_NOT_READY"), NULL, NSR_ROOT, -1, 0.85, "all (CUDA error 802, any wrapper)",
	  "CUDA error 802: fabric manager not running", "start nvidia-fabricmanager", "N:include/checks.h" },
	{ "S53n", F(LOG_NVLS_FAILED), NS_WARN, L("Cuda failure", "CUDA failure"), "nvls", NSR_ROOT, 7, 0.75, "2.17+ (WARN from transport/nvls.cc)",
	  "a CUDA call of NVLS (NVLink SHARP) set-up failed: fabric manager state, or multicast unsupported here", "NCCL_NVLS_ENABLE=0; check the fabric manager",
	  "N:transport/nvls.cc, kb S53" },
	{ "S53d", F(LOG_CUDA_INVALID_DEVICE), NS_ANY, L("invalid device ordinal"), NULL, NSR_ROOT, -1, 0.8, "all",
	  "a rank asked for a GPU index that is not visible", "fix CUDA_VISIBLE_DEVICES / local rank", "N:include/checks.h" },
	{ "S53i", F(LOG_CUDA_ILLEGAL_ADDRESS), NS_ANY,
	  L("an illegal memory access was encountered", "cudaErrorIllegalAddress", "CUDA_ERROR_ILLEGAL_ADDRESS"), NULL, NSR_ROOT, -1, 0.55,
	  "all (CUDA error 700, any wrapper)", "a kernel touched memory it may not: usually the application (a freed or foreign buffer, the wrong stream or device), seldom a GPU fault",
	  "CUDA_LAUNCH_BLOCKING=1 and compute-sanitizer; check Xid 13/31 in the kernel log", "CUDA runtime API error strings (cudaErrorIllegalAddress = 700)" },
	{ "S53o", F(LOG_P2P_IPC_OPEN_FAILED), NS_WARN, L("Cuda failure 'invalid argument'", "Cuda failure 1 'invalid argument'"), "p2p.cc",
	  NSR_ROOT, 7, 0.65,
	  "all 'transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid argument'' (2.19+ with the driver's code: 'Cuda failure 1 ...')",
	  "the P2P transport could not open a peer's buffer: cudaIpcOpenMemHandle refuses a legacy IPC handle from another container's namespace, or after cuMem was turned off (NCCL_CUMEM_ENABLE=0) for a peer that allocated with cuMem",
	  "keep cuMem on (unset NCCL_CUMEM_ENABLE=0; vLLM and RL frameworks set it), share the IPC namespace (--ipc=host, one pod), or NCCL_P2P_DISABLE=1 to confirm",
	  "N:transport/p2p.cc (CUDACHECK of cudaIpcOpenMemHandle in the legacy import path), CUDA runtime cudaIpcOpenMemHandle (cudaErrorInvalidValue for a handle it cannot open); NVIDIA-NeMo/RL#564 (vLLM's NCCL_CUMEM_ENABLE=0)" },
	{ "S53a", F(LOG_CUDA_KERNEL_FAULT), NS_ANY,
	  L("an illegal instruction was encountered", "misaligned address", "cudaErrorIllegalInstruction", "cudaErrorMisalignedAddress"), NULL, NSR_ROOT, -1, 0.55,
	  "all (CUDA errors 715 illegal instruction, 716 misaligned address, any wrapper; a device-side assert is PT's own row)",
	  "a kernel faulted: an application bug (a bad pointer, a kernel built wrong), seldom a GPU fault",
	  "CUDA_LAUNCH_BLOCKING=1 to find the kernel; check the kernel log for Xid 13/31/43",
	  "CUDA runtime API error strings (cudaErrorIllegalInstruction = 715, cudaErrorMisalignedAddress = 716)" },
	{ "S53l", F(LOG_CUDA_NVLINK_UNCORRECTABLE), NS_ANY,
	  L("uncorrectable NVLink error was detected", "cudaErrorNvlinkUncorrectable", "CUDA_ERROR_NVLINK_UNCORRECTABLE"), NULL, NSR_ROOT, -1, 0.8,
	  "all (CUDA error 220 'uncorrectable NVLink error was detected during the execution', any wrapper)",
	  "an NVLink link of this GPU failed during a kernel: the NVLink fabric (link, bridge, NVSwitch port)",
	  "check `nvidia-smi nvlink -s` and the kernel log (Xid 74, SXids); reset the GPU or reboot; a link that stays down needs service",
	  "CUDA runtime API error strings (cudaErrorNvlinkUncorrectable = 220)" },
	{ "S53k", F(LOG_CUDA_KERNEL_FAULT), NS_ANY, L("unspecified launch failure"), NULL,
	  NSR_ROOT, -1, 0.55, "all", "a kernel faulted: application bug or GPU fault", "check Xid; CUDA_LAUNCH_BLOCKING=1", "N:include/checks.h" },
	/* compute-sanitizer's memcheck names the access itself: the precise
	 * form of an illegal address, so S53k's class and weight */
	{ "CS01", F(LOG_CUDA_KERNEL_FAULT), NS_TEXT,
	  L("Invalid __global__ write of size", "Invalid __global__ read of size", "Invalid __global__ atomic of size"), NULL,
	  NSR_ROOT, -1, 0.55,
	  "compute-sanitizer (and cuda-memcheck before it): '========= Invalid __global__ write of size 16 bytes' followed by '=========     at ncclDevFunc_AllReduce_Sum_bf16_RING_SIMPLE()+0x14440' and 'Address 0x1bc00031d0 is out of bounds'",
	  "a kernel (NCCL's when the next line names an ncclDevFunc/ncclDevKernel) read or wrote global memory outside every allocation the process may reach: a buffer the application passed too small, freed, or allocated where the peer GPU may not access it (a VMM/cuMem pool without peer access), seldom the GPU",
	  "check the sizes and lifetimes of the buffers given to the collective, and that memory from a cuMem/VMM pool is made accessible to the peer GPUs (cuMemSetAccess); the sanitizer's host frames name the call",
	  "NVIDIA Compute Sanitizer user guide, Memcheck tool, 'Understanding Memcheck Errors' (memory access error: 'Invalid __global__ write of size N' ... 'Address ... is out of bounds')" },
	/* cudaErrorECCUncorrectable (214): the GPU's memory, not the program */
	{ "S53e", F(LOG_CUDA_ECC_UNCORRECTABLE), NS_ANY,
	  L("uncorrectable ECC error encountered", "CUDA_ERROR_ECC_UNCORRECTABLE", "cudaErrorECCUncorrectable"), NULL, NSR_ROOT, -1, 0.65,
	  "all (CUDA error 214, any wrapper)", "an uncorrectable ECC error in the GPU's memory killed the CUDA context",
	  "drain the node; nvidia-smi -q -d ECC,ROW_REMAPPER; reset the GPU or reboot; replace it if it recurs",
	  "CUDA runtime API error strings (cudaErrorECCUncorrectable = 214)" },
	{ "S53x", F(LOG_CUDA_PEER_ACCESS), NS_ANY, L("peer mapping resources exhausted"), NULL, NSR_ROOT, -1, 0.6, "all",
	  "too many peer mappings (more than 8 peers over PCIe)", "NCCL_P2P_LEVEL / fewer GPUs per process", "N:include/checks.h" },
	/* a CUDA error whose text decides the cause before the generic S53 (issue 14 item 4, batch 5) */
	{ "S53t", F(LOG_NCCL_NO_KERNEL_IMAGE), NS_ANY, L("invalid device function", "cudaErrorInvalidDeviceFunction"), NULL, NSR_ROOT, -1, 0.75,
	  "CUDA runtime error 98 'invalid device function' (NCCL's 'Cuda failure 'invalid device function'', the frameworks' CUDA error)",
	  "the kernel asked for is not compiled for this GPU's architecture: a libnccl or framework build without this compute capability",
	  "a build that includes this GPU's architecture (the framework's wheel for its CUDA, NVCC_GENCODE)",
	  "CUDA runtime API cudaErrorInvalidDeviceFunction = 98" },
	{ "PT09b", F(LOG_CUDA_DRIVER_TOO_OLD), NS_ANY,
	  L("PTX was compiled with an unsupported toolchain", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "cudaErrorUnsupportedPtxVersion"), NULL, NSR_ROOT, -1, 0.75,
	  "CUDA error 222 'the provided PTX was compiled with an unsupported toolchain.' (NCCL's 'Cuda failure', the frameworks' CUDA error): a PTX newer than the driver's JIT",
	  "the program's CUDA (its PTX) is newer than the installed driver supports",
	  "upgrade the driver, or install the framework build for the CUDA the driver supports",
	  "CUDA runtime API cudaErrorUnsupportedPtxVersion = 222, driver API CUDA_ERROR_UNSUPPORTED_PTX_VERSION" },
	{ "S53s", F(LOG_NCCL_NO_KERNEL_IMAGE), NS_ANY,
	  L("named symbol not found", "no kernel image is available for execution", "cudaErrorNoKernelImageForDevice", "CUDA_ERROR_NO_BINARY_FOR_GPU"), NULL,
	  NSR_ROOT, 8, 0.8,
	  "all: 'enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'' (cudaErrorSymbolNotFound = 500, driver CUDA_ERROR_NOT_FOUND); 'no kernel image is available for execution on the device' (209) as any wrapper prints it",
	  "NCCL's kernels (or the framework's) have no code for this GPU's architecture: a libnccl built with NVCC_GENCODE for other GPUs (sm_80 only on an H100) or for another CUDA",
	  "a libnccl built for this GPU (NVIDIA packages, the framework's nvidia-nccl wheel) or NVCC_GENCODE with this sm_XX",
	  "N:enqueue.cc ncclInitKernelsForDevice (cudaFuncGetAttributes on every kernel; 2.27+ skips cudaErrorNoKernelImageForDevice only for kernels it does not need); CUDA runtime API error strings (500, 209); NVIDIA/nccl#1372 (a build for sm_80 only on H100, fixed by rebuilding with sm_90)" },
	{ "S53u", F(LOG_CUDA_NOT_SUPPORTED_INIT), NS_ANY, L("Cuda failure", "CUDA failure"), "operation not supported", NSR_ROOT, 3, 0.6,
	  "2.27+ 'init.cc:426 NCCL WARN Cuda failure 'operation not supported'' (cudaMemPoolCreate in commAlloc); cuMem calls of 2.19+",
	  "a CUDA memory feature NCCL uses at init (memory pools, cuMem, IPC) is not supported by this GPU: a virtual GPU or VM without unified memory (VMware vGPU without enable_uvm), or an old driver",
	  "enable UVM for the VM or pass the whole GPU through; else NCCL before 2.27 or NCCL_CUMEM_ENABLE=0; update the driver",
	  "N:init.cc commAlloc (v2.27.5-1: CUDACHECK(cudaMemPoolCreate(&comm->memPool, &props)) at line 426); CUDA runtime API error strings (cudaErrorNotSupported = 801); NVIDIA/nccl#2101 (vGPU VM without UVM, solved by enabling UVM)" },
	{ "S53r", F(LOG_NCCL_CUDA_NEWER_THAN_DRIVER), NS_ANY, L("Cuda failure", "CUDA failure"), "driver version is insufficient", NSR_ROOT, 0, 0.8,
	  "all: 'init.cu:674 WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime version'' (2.1), 'init.cc:N NCCL WARN Cuda failure ...' later",
	  "NCCL's own CUDA runtime call found the driver too old: the libnccl carries the CUDA runtime of its build (the +cudaX.Y of its version line), newer than the driver supports",
	  "a libnccl built for the CUDA the driver supports, or a newer driver",
	  "N:include/checks.h CUDACHECK 'Cuda failure '%s'' with cudaGetErrorString; N:Makefile CUDARTLIB ?= cudart_static (v2.19.3-1 line 30); CUDA runtime API error strings (cudaErrorInsufficientDriver = 35); PaddlePaddle#8195 (NCCL 2.1.4+cuda9.1 on a CUDA 8 driver)" },
	/* cudaErrorCallRequiresNewerDriver (36): CUDA 11.1+ minor-version compatibility runs a newer runtime on an older driver until a call the driver lacks */
	{ "S53v", F(LOG_NCCL_CUDA_NEWER_THAN_DRIVER), NS_ANY, L("Cuda failure", "CUDA failure"), "API call is not supported in the installed CUDA driver", NSR_ROOT, -1, 0.8,
	  "all: 'enqueue.cc:802 NCCL WARN Cuda failure 'API call is not supported in the installed CUDA driver'' (libnccl built for CUDA 11.1+ on an older R4xx driver)",
	  "NCCL's own CUDA runtime (the CUDA of its build) is newer than the driver: minor-version compatibility let it start, then a call the older driver does not implement failed",
	  "a libnccl built for the CUDA the driver supports, or a newer driver",
	  "N:include/checks.h CUDACHECK; CUDA runtime API error strings (cudaErrorCallRequiresNewerDriver = 36); CUDA compatibility guide (minor-version compatibility, CUDA 11.1+)" },
	{ "S62", F(LOG_NVLS_FAILED), NS_ANY, L("Failed to bind NVLink SHARP"), NULL, NSR_ROOT, 7, 0.75, "2.27+",
	  "NVLS multicast set-up failed", "NCCL_NVLS_ENABLE=0; check fabric manager", "N:transport/nvls.cc" },
	{ "S75", F(LOG_NCCL_TOO_OLD_FOR_GPU), NS_NCCL, L("ncclMaxSharedMem", "dynamic smem"), "exceeds", NSR_ROOT, 8, 0.8,
	  "2.26-2.28 'cudaArch %d ncclMaxSharedMem %d exceeds device/fn maxSharedMem %zu', 2.29+ 'cudaArch %d dynamic smem %d exceeds device/fn maxSharedMem %d' (both return ncclSystemError; 2.25.1 on sm_120, fixed in 2.26.2)",
	  "NCCL's kernels need more shared memory than this GPU allows: the NCCL build does not support this GPU generation",
	  "upgrade NCCL (2.26.2+ for Blackwell consumer GPUs)", "N:enqueue.cc, nccl-tests#287" },
	{ "PT12", F(LOG_COLLECTIVE_MISMATCH), NS_TEXT, L("Detected mismatch between collectives on ranks", "is running inconsistent collective"), NULL,
	  NSR_ROOT, 10, 0.9, "PyTorch with TORCH_DISTRIBUTED_DEBUG=DETAIL (ProcessGroupWrapper)",
	  "ranks called different collectives or the same one with different shapes", "make every rank call the same collectives with the same shapes",
	  "pytorch torch/csrc/distributed/c10d/ProcessGroupWrapper.cpp" },
	{ "S72b", F(LOG_BOOTSTRAP_TRUNCATED), NS_ANY, L("Message truncated : received"), NULL, NSR_ROOT, 3, 0.6,
	  "2.4-2.30 'Message truncated : received %d bytes instead of %d', 2.28+ also 'received %d,%d bytes instead of %d,%d' (bootstrap.cc)",
	  "a bootstrap message (NCCL's own rank exchange, not a collective) had another size than expected: different NCCL builds on the ranks, or a bug of the NCCL version (nccl#1176, 2.19.3)",
	  "one libnccl on every rank; else another NCCL version", "N:bootstrap.cc (tools/nccl-warns keys 300a127aa873, cf0e9bb13acc, 42c8ac632d77)" },
	{ "S72i", F(LOG_COLLECTIVE_MISMATCH), NS_ANY, L("collective mismatch error"), NULL, NSR_ROOT, 10, 0.55,
	  "2.4-2.7 'NET/IB : collective mismatch error local size %d remote %d addr %lx rkey %x seq %x/%x', 2.8+ 'NET/IB : req %d/%d tag %x peer %s collective mismatch error, local size %d remote size %d' (transport/net_ib.cc), also pasted without the header",
	  "a sender posted more than the receiver expected: ranks called collectives with different sizes, or their NCCL settings or versions cut the data differently (LOG_TRANSPORT_SIZE_MISMATCH)",
	  "compare the ranks' calls, NCCL_* environment and NCCL versions; NCCL_PROTO=Simple tells settings from calls",
	  "N:transport/net_ib.cc ncclIbIsend (returns ncclInvalidUsage); nccl#615, nccl#1937" },
	{ "S72", F(LOG_COLLECTIVE_MISMATCH), NS_ANY, L("message truncated : receiving", "without a matching send", "without a matching recv"), NULL,
	  NSR_ROOT, 10, 0.65, "all ('NET/Socket : peer A<p> message truncated : receiving N bytes instead of M'; bootstrap's 'Message truncated : received' is S72b)",
	  "ranks called collectives with different sizes or mismatched send/recv", "make every rank call the same collectives with the same counts",
	  "N:transport/net_socket.cc, N:enqueue.cc" },
	{ "S73", F(LOG_INVALID_USAGE), NS_ANY, L("invalid root ", "invalid reduction operation", "is not a valid pointer", "Invalid rank requested"), NULL,
	  NSR_ROOT, -1, 0.7, "all (argument checks; '%s : invalid reduction operation %d' of N:misc/argcheck.cc 2.4-2.30, no release says 'invalid redop')", "the application passed invalid arguments to NCCL",
	  "fix the call: root in 0..nranks-1, a valid op and device pointers, rank < nranks", "N:misc/argcheck.cc, N:init.cc" },
	{ "S74", F(LOG_CUDA_FAILURE), NS_ANY, L("Failed to find CUDA library", "cuDriverGetVersion failed"), NULL, NSR_ROOT, 0, 0.75,
	  "2.13+", "NCCL could not load or query the CUDA driver (libcuda.so)", "install or expose the driver (container runtime: --gpus / nvidia runtime)",
	  "N:misc/cudawrap.cc" },
	{ "LD01", F(LOG_NCCL_SYMBOL_MISSING), NS_ANY, L("undefined symbol: nccl", "undefined symbol: \"nccl"), NULL, NSR_ROOT, 0, 0.85,
	  "glibc ld.so 'symbol lookup error: <lib>: undefined symbol: ncclCommRegister' (Python: ImportError with the same text); ncclCommRegister and ncclMemFree exist from NCCL 2.19.1, ncclCommWindowRegister from 2.27.3 (N:nccl.h.in)",
	  "the program or framework was built against a newer NCCL than the libnccl.so.2 it loaded (a second libnccl shadows it: two nvidia-nccl wheels, LD_LIBRARY_PATH, a bundled copy)",
	  "keep one libnccl at least as new as the build's (ldd; uninstall the extra nvidia-nccl wheel; LD_LIBRARY_PATH)",
	  "glibc elf/dl-lookup.c _dl_lookup_symbol_x ('undefined symbol: %s%s%s'); N:nccl.h.in (v2.19.1-1, v2.27.3-1); the quoted form as users paste it" },
	{ "LD03", F(LOG_LIB_VERSION_NOT_FOUND), NS_ANY, L("' not found (required by "), NULL, NSR_ROOT, 0, 0.75,
	  "glibc ld.so '<lib>: version `FABRIC_1.7' not found (required by <lib2>)' (Python: ImportError; NCCL: 'NET/Plugin : dlerror=<that text> No plugin found')",
	  "a library was built against a newer version of a dependency than the one loaded: a NET plugin for a newer libfabric, a wheel for a newer glibc/libstdc++",
	  "install the dependency at the version named (FABRIC_ = libfabric, GLIBC_/GLIBCXX_ = the base image) or the library's build for the installed one",
	  "glibc elf/dl-version.c match_symbol ('version `%s' not found (required by %s)'); awsome-distributed-training#292 (aws-ofi-nccl 1.9.0 needs libfabric >= 1.18.2)" },
	{ "S76", F(LOG_NCCL_CONFIG_UNDEF_REJECTED), NS_ANY, L("attribute value -2147483648"), NULL, NSR_ROOT, 0, 0.85,
	  "2.14-2.16 'init.cc:1270 NCCL WARN Invalid config blocking attribute value -2147483648' (PyTorch: 'Last error: Invalid config blocking attribute value -2147483648'); 2.17+ skip NCCL_CONFIG_UNDEF_INT",
	  "a framework built with NCCL 2.17+ headers (unset config fields = INT_MIN) loaded an older libnccl that rejects INT_MIN",
	  "keep one libnccl at least as new as the framework's build (pip list | grep nccl; LD_LIBRARY_PATH)",
	  "N:init.cc parseCommConfig (v2.14.3-1: blocking != 0 && != 1; v2.17.1-1: skips NCCL_CONFIG_UNDEF_INT), N:nccl.h.in NCCL_CONFIG_UNDEF_INT INT_MIN; NVIDIA/nccl#1167" },
	{ "S77", F(LOG_NCCL_NO_GRAPH_CAPTURE), NS_ANY, L("NCCL cannot be captured in a graph"), NULL, NSR_ROOT, 10, 0.8,
	  "2.15+ 'misc/strongstream.cc:53 NCCL WARN NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the installed CUDA driver < R465.' then ncclInvalidUsage",
	  "a collective inside CUDA graph capture with a libnccl built for CUDA < 11.3 or a driver < R465",
	  "an NCCL built for CUDA >= 11.3 matching the framework (one nvidia-nccl wheel); driver >= R465; or no graphs (--enforce-eager)",
	  "N:misc/strongstream.cc ncclCudaGetCapturingGraph (CUDART_VERSION < 11030 || driver < 11030)" },
	{ "S53", F(LOG_CUDA_FAILURE), NS_ANY, L("Cuda failure", "CUDA failure"), NULL, NSR_ROOT, -1, 0.5, "runtime 'Cuda failure 'x''; driver 'Cuda failure N 'x'' (2.19+)",
	  "a CUDA call failed; the quoted text names it", "read the CUDA error", "N:include/checks.h" },
	/* --- P2P and cuMem -------------------------------------------------- */
	/* 'cudaIpcGetMemHandle failed : %s' (transport/p2p.cc 2.12+,
	 * bootstrap.cc '[Rem Allocator]' 2.8-2.11) is here, not in S54: a local
	 * call on the rank's own buffer that no PCIe path, ACS or IOMMU setting
	 * takes part in. When the same call fails in p2pCanConnect's probe
	 * (transport/p2p.cc 2.11+) NCCL prints 'Legacy IPC not supported' and
	 * leaves P2P off: legacy CUDA IPC does not work here (issue 14 item 1) */
	{ "S55l", F(LOG_P2P_IPC_UNSUPPORTED), NS_ANY, L("Legacy IPC not supported", "cudaIpcGetMemHandle failed"), NULL, NSR_ROOT, 7, 0.75, "all",
	  "no legacy CUDA IPC (WSL-like, some VMs)", "NCCL_P2P_DISABLE=1", "N:transport/p2p.cc, N:bootstrap.cc (2.8-2.11)" },
	{ "S54", F(LOG_P2P_PEER_FAILED), NS_ANY, L("failed to peer with device"), NULL,
	  NSR_ROOT, 7, 0.7, "2.5+", "enabling P2P between two GPUs failed", "test NCCL_P2P_DISABLE=1; check ACS/IOMMU", "N:transport/p2p.cc" },
	/* INFO of p2pCanConnect, which then returns ncclSuccess with *ret = 0:
	 * P2P is not used for the pair, SHM or NET carries it; no failure */
	{ "S54c", F(LOG_P2P_DISABLED_PCIE), NS_ANY, L("Could not enable P2P between dev", "peer query failed between dev"), NULL,
	  NSR_CONTEXT, 4, 0.45, "2.5+ (INFO)",
	  "cudaDeviceCanAccessPeer said no (or failed) for the pair: NCCL leaves P2P off there and uses SHM or NET",
	  "nccl-doctor p2p / sys (ACS, IOMMU, GeForce, VM)",
	  "N:transport/p2p.cc p2pCanConnect (INFO 'Could not enable P2P between dev %d(=%lx) and dev %d(=%lx)', then *ret = 0; return ncclSuccess)" },
	{ "S56", F(LOG_CUMEM_UDS_FAILED), NS_ANY,
	  L("UDS: Socket creation error", "UDS: Cannot bind", "UDS: Cannot connect", "UDS: Sending data over socket"), NULL,
	  NSR_ROOT, 7, 0.8, "2.17+", "cuMem fd passing between ranks failed (network namespaces, /tmp)",
	  "same container/pod or NCCL_CUMEM_ENABLE=0", "N:misc/ipcsocket.cc" },
	{ "S56b", F(LOG_CUMEM_UDS_FAILED), NS_ANY, L("UDS: Binding to socket", "UDS: Receiving data over socket"), "fail", NSR_ROOT, 7, 0.8, "2.17+",
	  "cuMem fd passing between ranks failed", "same container/pod or NCCL_CUMEM_ENABLE=0", "N:misc/ipcsocket.cc" },
	{ "S57", F(LOG_NO_TRANSPORT), NS_ANY, L("No transport found for rank", "has no transport for"), NULL, NSR_ROOT, 7, 0.8, "2.9+ / 2.12+",
	  "P2P and SHM refused and no NET", "re-enable a transport", "N:transport.cc, N:proxy.cc" },
	/* --- init-time checks ----------------------------------------------- */
	{ "S59", F(LOG_DUPLICATE_GPU), NS_ANY,
	  L("Duplicate GPU detected", "Multiple Ranks are using the same GPU"), NULL, NSR_ROOT, 5, 0.95,
	  "<=2.29 'Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 60' (seen in 2.28.9); 2.30+ 'Multiple Ranks are using the same GPU/Partition'",
	  "two ranks on one GPU", "one GPU per rank (set_device(local_rank), CUDA_VISIBLE_DEVICES)", "N:init.cc" },
	{ "S60", F(LOG_NCCL_VERSION_MISMATCH), NS_ANY, L("Mismatched NCCL version detected"), NULL, NSR_ROOT, 5, 0.95, "2.23+",
	  "ranks load different libnccl", "one libnccl everywhere", "N:init.cc" },
	{ "S66", F(LOG_NO_ALGORITHM), NS_ANY, L("No algorithm/protocol available"), NULL, NSR_ROOT, 10, 0.85, "2.24+",
	  "NCCL_ALGO / NCCL_PROTO too restrictive", "unset NCCL_ALGO / NCCL_PROTO", "N:enqueue.cc" },
	{ "S67", F(LOG_THREAD_RACE), NS_ANY, L("host threads racing to launch NCCL on same device"), NULL, NSR_ROOT, 10, 0.85, "2.26+",
	  "application threading bug", "serialize NCCL calls per device", "N:enqueue.cc" },
	{ "S71", F(LOG_RAS_SOCKET_FAILED), NS_NCCL, L("RAS failed to establish", "Continuing in spite of a RAS initialization error"), NULL,
	  NSR_CONTEXT, 3, 0.15, "2.24+", "port 28028 taken by another job", "NCCL_RAS_ADDR / NCCL_RAS_ENABLE=0", "N:ras/ras.cc" },
	{ "S69", F(LOG_COMM_ABORTED), NS_NCCL, L("is in abort state", " - Abort START", " - Abort COMPLETE", " - Revoke "), NULL,
	  NSR_SECONDARY, -1, 0.15, "all", "an abort after a failure or a watchdog timeout", "look for the failure before it", "N:init.cc" },
	/* --- a peer went away: general, so after the specific rows ---------- */
	{ "S09", F(LOG_PEER_CONNECTION_LOST), NS_NCCL, L("Call to recv from", "Call to send to", "Call to recv ", "Call to send "), " failed : ",
	  NSR_SECONDARY, -1, 0.4, "<=2.25 'socketProgressOpt: Call to recv from %s failed : %s'; 2.26+ 'Call to %s %s failed : %s'",
	  "a socket to a peer broke (ECONNRESET/EPIPE: peer gone; ETIMEDOUT: network)", "find the first rank that failed", "N:misc/socket.cc" },
	{ "S08", F(LOG_PEER_CONNECTION_LOST), NS_NCCL | NS_TEXT, L("Connection closed by remote peer", "Connection reset by peer"), NULL,
	  NSR_SECONDARY, -1, 0.45, "2.13+ 'socketProgress: Connection closed by remote peer node2<42830>'",
	  "the other end closed: the peer died or was killed", "find the first rank that failed", "N:misc/socket.cc" },
	/* --- NCCL results surfaced by frameworks (S68) ----------------------- */
	{ "S68r", F(LOG_NCCL_REMOTE_ERROR), NS_ANY, L("remote process exited or there was a network error", "ncclRemoteError"), NULL,
	  NSR_SECONDARY, -1, 0.4, "2.12+ ncclGetErrorString", "a peer exited or the network failed", "find the first rank that failed", "N:init.cc ncclGetErrorString" },
	{ "S68", F(LOG_NCCL_ERROR), NS_ANY,
	  L("unhandled cuda error (run with NCCL_DEBUG", "unhandled system error (run with NCCL_DEBUG",
	    "internal error - please report this issue", "invalid usage (run with NCCL_DEBUG"), NULL,
	  NSR_SECONDARY, -1, 0.2, "all", "an NCCL error surfaced by the framework; the NCCL WARN names the cause",
	  "rerun with NCCL_DEBUG=INFO", "N:init.cc ncclGetErrorString" },
	{ "S68b", F(LOG_NCCL_ERROR), NS_TEXT, L("NCCL error in:", "DistBackendError", "NCCL error", "NCCL failure "), NULL,
	  NSR_SECONDARY, -1, 0.2, "PyTorch ProcessGroupNCCL / NCCLUtils; nccl-tests 'Test NCCL failure common.cu:N' and its first form 'NCCL failure all_reduce.cu:95 'unhandled cuda error'' (nccl-tests src/common.h before 2019)",
	  "an NCCL error surfaced by PyTorch", "read 'Last error:' and the NCCL WARN", "pytorch torch/csrc/distributed/c10d/NCCLUtils.cpp; nccl-tests src/common.h NCCLCHECK" },
#include "kb/nccl_signatures_frameworks.def"
	/* --- NCCL 2.29-2.32 diagnostics: NCCL DIAG, RAS, WQE monitor ---------- */
	{ "D01n", F(LOG_DIAG_P2P_FAILED_NVLINK), NS_TEXT,
	  L("write mismatch", "read mismatch", "peer-memory import failed", "destination buffer unavailable"), "path=NVL ", NSR_ROOT, 8, 0.85,
	  "2.31+ '<host>:<pid> NCCL DIAG [INFO] p2p: write mismatch srcRank=0 ... path=NVL handle=... '",
	  "NCCL's own P2P check failed on an NVLink edge", "nvidia-smi nvlink --status; Xid 74/79",
	  "kb diagnostic-inputs.md (NCCL 2.31 NCCL_RUN_DIAGNOSTICS docs)" },
	{ "D01", F(LOG_DIAG_P2P_FAILED), NS_TEXT,
	  L("write mismatch", "read mismatch", "peer-memory import failed", "destination buffer unavailable"), "NCCL DIAG", NSR_ROOT, 8, 0.85,
	  "2.31+ '<host>:<pid> NCCL DIAG [INFO] p2p: write mismatch srcRank=0 srcCudaDev=0 ... dstRank=1 ... path=PHB handle=LEGACY_CUDA_IPC ...'",
	  "NCCL's own P2P check found a pair whose P2P writes or reads do not arrive", "check the pair: ACS, IOMMU (nccl-doctor p2p)",
	  "kb diagnostic-inputs.md (NCCL 2.31 NCCL_RUN_DIAGNOSTICS docs)" },
	{ "D01b", F(LOG_DIAG_P2P_FAILED), NS_TEXT,
	  L("local CUDA setup failed", "topology check failed", "launch/check failed", "p2p: setup failed on rank"), "NCCL DIAG", NSR_ROOT, 8, 0.6,
	  "2.31+ '<host>:<pid> NCCL DIAG [INFO] p2p: setup failed on rank 3 result=1'",
	  "NCCL's own P2P check could not set up or run a pair", "check the pair: ACS, IOMMU (nccl-doctor p2p)",
	  "kb diagnostic-inputs.md (NCCL 2.31 NCCL_RUN_DIAGNOSTICS docs)" },
	{ "D02", F(LOG_DIAG_P2P_OK), NS_TEXT, L("directed GPU P2P edges verified"), "[OK]", NSR_INFO, 8, 0,
	  "2.31+ '<host>:<pid> NCCL DIAG [OK]   p2p: all 56 directed GPU P2P edges verified'",
	  "every tested P2P edge works", "none", "kb diagnostic-inputs.md (NCCL 2.31)" },
	{ "D03", F(LOG_NVLINK_DEGRADED), NS_ANY, L("degraded NVLink", "NVLink bandwidth degraded", "NVLink degraded"), NULL, NSR_CONTEXT, 6, 0.5,
	  "2.32+ (release notes: degraded NVLink bandwidth reported at init; exact text not public yet, matched by these words)",
	  "NVLink runs below its expected bandwidth", "nvidia-smi nvlink --status; Xid", "NCCL 2.32 release notes (kb diagnostic-inputs.md)" },
	{ "D04", F(LOG_NCCL_REVISION_MISMATCH), NS_ANY, L("git revision"), "mismatch", NSR_ROOT, 3, 0.8,
	  "2.32+ (release notes: mismatched NCCL git revisions across ranks reported at init; exact text not public yet)",
	  "ranks loaded different NCCL builds", "one libnccl on every rank", "NCCL 2.32 release notes (kb diagnostic-inputs.md)" },
	{ "D05", F(LOG_IB_WQE_STALL), NS_ANY, L("NET/IB: WQE stall"), NULL, NSR_ROOT, 10, 0.6,
	  "2.31+ 'NET/IB: WQE stall (no CQE) ...'", "an IB work request never completed", "check the HCA, port and fabric",
	  "kb diagnostic-inputs.md (NCCL 2.31 IB WQE latency monitor)" },
	{ "D06", F(LOG_IB_WQE_STALL), NS_ANY, L("NET/IB: WQE slow"), NULL, NSR_CONTEXT, 10, 0.35,
	  "2.31+ 'NET/IB: WQE slow ...' (qpn, HCA, LID/GID, percentiles)", "IB work requests complete slowly", "check the HCA, port and fabric",
	  "kb diagnostic-inputs.md (NCCL 2.31 IB WQE latency monitor)" },
	{ "R01", F(LOG_RAS_PEER_DEAD), NS_TEXT, L("considered dead (unreachable via the RAS network)", "PEER_DEAD"), NULL, NSR_ROOT, -1, 0.75,
	  "ncclras 2.24+ 'DEAD / 1 job process is considered dead (unreachable via the RAS network)'; monitor 2.29+ '[..] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1'",
	  "a job process died or its node is gone", "find why it ended (its log, dmesg)", "N:ras/client_support.cc, N:ras/peers.cc" },
	{ "R05", F(LOG_RAS_PEER_DEAD), NS_TEXT, L("\"considered_dead\": true"), NULL, NSR_ROOT, -1, 0.75,
	  "ncclras -f json 2.28.7+ (a missing rank's status: '\"considered_dead\": true')",
	  "RAS lost a rank's process for good", "find why it ended (its log, dmesg)", "N:ras/client_support.cc jsonWriteMissingRank" },
	{ "R06", F(LOG_RAS_INCOMPLETE), NS_TEXT, L("\"unresponsive\": true"), NULL, NSR_ROOT, -1, 0.5,
	  "ncclras -f json 2.28.7+ (a missing rank's status: '\"unresponsive\": true')",
	  "a rank's process does not answer RAS", "read that rank's log", "N:ras/client_support.cc jsonWriteMissingRank" },
	{ "R02", F(LOG_RAS_INCOMPLETE), NS_TEXT, L("Missing communicator data from"), NULL, NSR_ROOT, -1, 0.5,
	  "ncclras 2.24+ 'INCOMPLETE / Missing communicator data from 2 ranks' then '  Rank 3 -- GPU 3 managed by process 4242 on node n2'",
	  "some ranks did not report", "read those ranks' logs", "N:ras/client_support.cc" },
	{ "R03", F(LOG_RAS_OPCOUNT_MISMATCH), NS_TEXT, L("Communicator ranks have different"), "operation counts", NSR_ROOT, 10, 0.55,
	  "ncclras 2.24+ 'MISMATCH / Communicator ranks have different AllReduce operation counts / 7 ranks have launched up to operation 12'",
	  "ranks launched different numbers of a collective", "compare the lagging ranks' stacks", "N:ras/client_support.cc" },
	{ "R04", F(LOG_RAS_ERROR), NS_TEXT, L("Initialization error", "Asynchronous error"), " on ", NSR_SECONDARY, -1, 0.3,
	  "ncclras 2.24+ 'ERROR / Asynchronous errors on 2 ranks'", "some ranks failed", "read those ranks' logs", "N:ras/client_support.cc" },
	/* --- kernel ----------------------------------------------------------- */
	{ "K02", F(LOG_GPU_FALLEN_OFF_BUS), NS_TEXT, L("fallen off the bus"), NULL, NSR_ROOT, -1, 0.9,
	  "NVRM: 'GPU 0000:5d:00.0: GPU has fallen off the bus.' and older forms", "the GPU stopped responding", "reboot; check power/cooling",
	  "open-gpu-kernel-modules osinit.c" },
	{ "K05", F(LOG_IOMMU_FAULT), NS_TEXT, L("IO_PAGE_FAULT", "DMAR: [DMA ", "DMAR:[DMA "), NULL, NSR_ROOT, -1, 0.7,
	  "AMD-Vi 'Event logged [IO_PAGE_FAULT domain=0x%04x address=0x%llx flags=0x%04x]'; Intel DMAR '[DMA Write NO_PASID] Request device [41:00.0] fault addr ...' and the older forms",
	  "the IOMMU blocked a device's DMA: P2P between GPUs (or GPUDirect RDMA) through a translating IOMMU",
	  "IOMMU passthrough (iommu=pt) or off; NCCL_P2P_DISABLE=1 meanwhile",
	  "linux drivers/iommu/amd/iommu.c, drivers/iommu/intel/dmar.c dmar_fault_do_one (the formats analyze/kernel_parse.c reads)" },
	{ "K06", F(LOG_NVSWITCH_SXID), NS_TEXT, L("SXid (PCI:"), NULL, NSR_ROOT, -1, 0.6,
	  "the NVSwitch driver 'nvidia-nvswitch%d: SXid (PCI:%04x:%02x:%02x.%x): %05d, ...'",
	  "an NVSwitch port or the fabric reported an error", "nccl-doctor explain <SXid>; reset GPUs and switches for fatal ones",
	  "open-gpu-kernel-modules src/common/nvswitch/kernel/inc/common_nvswitch.h (kb/sxid.def)" },
	{ "K01", F(LOG_XID), NS_TEXT, L("NVRM: Xid ("), NULL, NSR_ROOT, -1, 0.8, "all drivers 'NVRM: Xid (PCI:0000:5d:00): 79, pid=...'",
	  "the driver reported a GPU fault", "nccl-doctor explain XID_<n>", "open-gpu-kernel-modules kernel_rc.c" },
	/* The RM status names are printed by the driver's asserts and RPC
	 * failures ("Assertion failed: Reset required [NV_ERR_RESET_REQUIRED]
	 * (0x00000062) returned from ..."); these mean the GPU itself must be
	 * reset, whatever call hit them. The names are the rows of
	 * kb/rm_status.def whose signature column names the row (the table
	 * `kernel` reads too); more than NS_MAX_ANY of them for one row is an
	 * "excess elements" error under -Werror. */
	{ "K03", F(LOG_NVRM_GPU_FATAL), NS_TEXT, {
#define RM_STATUS(name, code, text, meaning, sev, cause, sig) RM_IF_K03_##sig(#name)
#include "kb/rm_status.def"
#undef RM_STATUS
	  }, "NVRM",
	  NSR_ROOT, -1, 0.8, "all drivers with RM status names in NVRM lines (open kernel modules 515+)",
	  "the driver returned a status that needs a GPU reset", "reset or drain the GPU; nccl-doctor kernel",
	  "kb/rm_status.def (names, codes and texts of open-gpu-kernel-modules src/common/sdk/nvidia/inc/nvstatuscodes.h, 595.45.04)" },
	{ "K04", F(LOG_NVRM_GPU_FATAL), NS_TEXT, {
#define RM_STATUS(name, code, text, meaning, sev, cause, sig) RM_IF_K04_##sig(#name)
#include "kb/rm_status.def"
#undef RM_STATUS
	  }, "NVRM",
	  NSR_ROOT, -1, 0.7, "all drivers with RM status names in NVRM lines (open kernel modules 515+)",
	  "the driver met an ECC error or a halted GSP (RISC-V) core", "reset or drain the GPU; nccl-doctor kernel (Xid 48/94/95/119/120)",
	  "kb/rm_status.def (names, codes and texts of open-gpu-kernel-modules src/common/sdk/nvidia/inc/nvstatuscodes.h, 595.45.04)" },
	{ "X03", F(LOG_PROCESS_KILLED), NS_TEXT, L("KeyboardInterrupt", "^C"), NULL, NSR_HANG, -1, 0.3,
	  "Python / the terminal", "the user interrupted the run, usually because it hung", "see the stage it stopped in", "CPython" },
	/* --- any other NCCL WARN (matched by code, never by literal) ---------- */
	{ "W00", F(LOG_NCCL_WARNING), NS_WARN, L(NULL), NULL, NSR_CONTEXT, -1, 0.2, "all",
	  "an NCCL warning with no known signature", "read it and its back-trace", "N:debug.cc" },
	/* --- kills and timeouts ---------------------------------------------- */
	{ "X01", F(LOG_PROCESS_KILLED), NS_TEXT, L("rc=124", "exit code 124", "exit status 124", "rc=137"), NULL, NSR_HANG, -1, 0.3,
	  "timeout(1) exit status 124; 137 = SIGKILL", "the process was stopped by a timeout or a kill", "see the stage it stopped in", "coreutils timeout(1)" },
	{ "X04", F(LOG_PROCESS_KILLED), NS_TEXT, L("exit code 137", "exit status 137", "exit code 143", "exit status 143"), NULL,
	  NSR_HANG, -1, 0.3, "timeout -s KILL (137 = 128 + SIGKILL) or SIGTERM (143)",
	  "the process was killed by a signal, usually a timeout around a hang", "see the stage it stopped in",
	  "bash: 128 + signal number" },
	{ "X05", F(LOG_OOM_KILLED), NS_TEXT, L("exited on signal 9"), NULL, NSR_ROOT, -1, 0.45,
	  "Open MPI 'mpirun noticed that process rank 3 with PID 0 on node node2 exited on signal 9 (Killed).'",
	  "one rank was killed with SIGKILL while the others ran: the OOM killer (host memory), a cgroup limit, or the scheduler",
	  "read that node's dmesg (`nccl-doctor kernel`: Out of memory) and its memory limit; lower host memory use",
	  "Open MPI orte/prte errmgr ('mpirun noticed that process rank %d with PID %d on node %s exited on signal %d (%s).')" },
	{ "X06", F(LOG_PROCESS_KILLED), NS_TEXT, L("DUE TO TIME LIMIT"), "CANCELLED AT", NSR_HANG, -1, 0.3,
	  "Slurm 'slurmstepd: error: *** STEP 1234.0 ON node1 CANCELLED AT 2024-01-01T00:00:00 DUE TO TIME LIMIT ***'",
	  "the scheduler ended the job at its time limit: it was stuck (or slower than planned) where its last lines say",
	  "see the stage it stopped in", "Slurm slurmstepd (job/step cancelled messages)" },
	{ "X02", F(LOG_PROCESS_KILLED), NS_TEXT, L("Killed", "Terminated"), NULL, NSR_HANG, -1, 0.3,
	  "shell job messages", "the process was killed", "see the stage it stopped in", "bash job control" },
	/* --- NVSwitch fabric, NVLS and multi-node NVLink (issue 16) ---------- */
	{ "NV01", F(LOG_NVLS_FAILED), NS_ANY,
	  L("operation cannot be performed in the present state", "CUDA_ERROR_ILLEGAL_STATE", "cudaErrorIllegalState"), "multicast",
	  NSR_ROOT, 7, 0.85, "2.17+ (CUDA error 401 from cuMulticastAddDevice / cuMulticastBindMem)",
	  "NVLS multicast set-up refused by the driver: the fabric manager is not running, was restarted without a GPU reset, or (in a container) cannot be reached",
	  "NCCL_NVLS_ENABLE=0 now; then fix the fabric manager (nccl-doctor sys) and reset the GPUs",
	  "CUDA driver API error strings (CUDA_ERROR_ILLEGAL_STATE = 401); nccl#1788, pytorch#177472" },
	{ "NV02", F(LOG_NVLS_FAILED), NS_ANY,
	  L("operation cannot be performed in the present state", "CUDA_ERROR_ILLEGAL_STATE", "cudaErrorIllegalState"), NULL,
	  NSR_ROOT, 7, 0.7, "2.17+ (a CUDA error 401 repeated without its NVLS context, e.g. after PyTorch's 'Last error:')",
	  "CUDA error 401 in an NCCL run: nearly always NVLS multicast binding on an NVSwitch machine whose fabric manager is not in a good state",
	  "NCCL_NVLS_ENABLE=0 to confirm; check the fabric manager (nccl-doctor sys, topo)",
	  "CUDA driver API error strings (CUDA_ERROR_ILLEGAL_STATE = 401); nccl#1788" },
	{ "NV03", F(LOG_NVLS_FAILED), NS_NCCL,
	  L("Multicast support requested for team but none available", "does not support multimem"), NULL,
	  NSR_ROOT, 9, 0.8, "2.28.9+ / 2.29.7+ (device API, dev_runtime.cc)",
	  "the application asked NCCL's device API for multicast (NVLS) memory and the system has none: no NVSwitch, the fabric not set up, or multicast off in a VM",
	  "run where NVLS works (nccl-doctor topo: multicast column) or do not request multicast",
	  "N:dev_runtime.cc (tools/nccl-warns keys c1d2fc969015, fb8a7f6b7bcd)" },
	{ "NV04", F(LOG_NVLS_FAILED), NS_INFO, L("Failed to multicast-bind user buffer"), NULL, NSR_CONTEXT, 10, 0.4,
	  "2.28.9+ (INFO from transport/nvls.cc; NCCL goes on without registering the buffer)",
	  "binding a user buffer to NVLS multicast failed: the fabric's multicast resources are short or the fabric is not healthy",
	  "check the fabric manager log; NCCL_NVLS_ENABLE=0 if collectives then fail", "N:transport/nvls.cc (tools/nccl-warns key 2a05a5c97f5e)" },
	{ "NV05", F(LOG_MNNVL_UNAVAILABLE), NS_ANY,
	  L("MNNVL is not supported on this system", "is available but not supported on this system", "is available but not working on this system"),
	  NULL, NSR_ROOT, 3, 0.85, "2.20.5-2.24 'MNNVL is not supported on this system'; 2.25+ 'MNNVL (cliqueSize %d) is available but not supported/working on this system. Check the IMEX ...'",
	  "multi-node NVLink found but unusable: IMEX daemon or channel missing", "start nvidia-imex on every node, pass /dev/nvidia-caps-imex-channels; NCCL_MNNVL_ENABLE=0",
	  "N:init.cc, N:mnnvl.cc (tools/nccl-warns keys bf605aa60b66, ff44226d523e, 83ef6e434219, 6e85cb5e9d8b)" },
	{ "NV06", F(LOG_CUDA_FABRIC_NOT_READY), NS_INFO, L("state 1 healthMask", "state 2 healthMask"), "fabric UUID", NSR_ROOT, 3, 0.8,
	  "2.19+ 'MNNVL busId 0x%lx fabric UUID %lx.%lx cliqueId 0x%x state %d healthMask 0x%x' (INFO, init.cc)",
	  "NCCL read the GPU's fabric state from NVML: 1 = not started, 2 = in progress: the fabric manager has not registered this GPU",
	  "start or fix nvidia-fabricmanager (nccl-doctor sys), then reset the GPUs", "N:init.cc fillInfo (NVML_GPU_FABRIC_STATE_*)" },
	{ "NV07", F(FABRIC_MANAGER_VERSION_MISMATCH), NS_TEXT, L("fabric manager version is incompatible with"), NULL, NSR_ROOT, -1, 0.9,
	  "the fabric manager's own log ('fabric manager version is incompatible with NVSwitch driver. Please update with matching NVIDIA driver package')",
	  "the fabric manager does not match the driver and refused to start: CUDA error 802, NVLS failures",
	  "install nvidia-fabricmanager of exactly the driver's version, restart it", "NVIDIA Fabric Manager log (LocalFabricManager, driver version check)" },
	/* --- what the log shows of the machine (facts; weigh in a failed run) */
#include "kb/nccl_signatures_host.def"
	/* --- launchers and the loader (multi-node start, lost nodes) ------------ */
#include "kb/nccl_signatures_launch.def"
	{ "LB01", F(LOG_LIBNCCL_NAMED), NS_TEXT, L("libnccl.so", "nvidia-nccl-cu"), NULL, NSR_INFO, 0, 0,
	  "any text: pip's 'nvidia-nccl-cu12==2.27.3' (pip list, collect_env's '[pip3] nvidia-nccl-cu11==2.14.3'), ls/ldd paths '/usr/lib/x86_64-linux-gnu/libnccl.so.2 -> libnccl.so.2.23.4', vLLM 'Found nccl from library libnccl.so.2', back-trace frames",
	  "the log names a libnccl file or wheel; two different ones are two NCCLs that a process can load (LOG_LIBNCCL_SEVERAL)",
	  "keep one libnccl: ldd / nccl-doctor sys; pip uninstall the extra nvidia-nccl wheel",
	  "pip list and PyTorch collect_env.py output; GNU ls -l; vllm/utils.py find_nccl_library" },
	{ "VM01", F(LOG_VM_HINT), NS_TEXT, L("Hypervisor detected", "Hypervisor vendor", "Pass-Through"), NULL, NSR_CONTEXT, -1, 0.3,
	  "Linux 'Hypervisor detected: KVM' (dmesg), util-linux lscpu 'Hypervisor vendor: KVM', nvidia-smi -q 'Virtualization Mode : Pass-Through'",
	  "the host is a virtual machine: P2P between GPUs passes through the hypervisor (ACS, IOMMU), often blocked or slow",
	  "test NCCL_P2P_DISABLE=1; ask for a VM type with P2P (NVLink) or bare metal",
	  "linux arch/x86/kernel/cpu/hypervisor.c ('Hypervisor detected: %s'); util-linux sys-utils/lscpu.c; nvidia-smi -q (Virtualization Mode); NCCL troubleshooting guide (virtual machines)" },
	/* --- other components' failures, and what a log without NCCL errors
	 * still shows (issue 14, held-out batches 5 and 6) -------------------- */
	{ "FM01", F(LOG_FABRIC_MANAGER_FAILED), NS_TEXT, L("nv-fabricmanager", "nvidia-fabricmanager"), "FAILURE", NSR_ROOT, -1, 0.85,
	  "systemctl status / journal: 'Process: 444114 ExecStart=/usr/bin/nv-fabricmanager -c ... (code=exited, status=1/FAILURE)', 'nvidia-fabricmanager.service: Control process exited, code=exited, status=1/FAILURE'",
	  "the fabric manager service exited with an error: on NVSwitch machines the NVLink fabric is not set up, NCCL hangs or fails (CUDA error 802, NVLS)",
	  "journalctl -u nvidia-fabricmanager; install nvidia-fabricmanager of exactly the driver's version, start it, reset the GPUs",
	  "systemd systemctl status ('Process: PID ExecStart=... (code=exited, status=N/FAILURE)') and core/service.c ('Control process exited, code=%s, status=%i/%s'); pytorch/pytorch#129749 (P5 deadlock, the fabric manager not running)" },
	{ "FM02", F(LOG_FABRIC_MANAGER_FAILED), NS_TEXT, L("nvidia-fabricmanager.service: Failed", "Failed to start NVIDIA fabric manager"), NULL, NSR_ROOT, -1, 0.85,
	  "systemd journal 'nvidia-fabricmanager.service: Failed with result 'exit-code'.' and 'Failed to start NVIDIA fabric manager service.'",
	  "the fabric manager service failed to start", "journalctl -u nvidia-fabricmanager; a fabric manager of the driver's exact version",
	  "systemd core/unit.c ('%s: Failed with result '%s'.'), core/job.c ('Failed to start %s.'); the unit's Description 'NVIDIA fabric manager service'" },
	{ "FM03", F(FABRIC_MANAGER_VERSION_MISMATCH), NS_TEXT, L("don't match with driver version"), "driver interface version", NSR_ROOT, -1, 0.9,
	  "the fabric manager's log and syslog 'fabric manager NVIDIA GPU driver interface version 550.90.07 don't match with driver version 550.54.15. Please update with matching NVIDIA driver package.'",
	  "the fabric manager is of another version than the loaded driver and refused to start: the NVLink fabric is not set up",
	  "install nvidia-fabricmanager of exactly the driver's version (or reboot into the driver the package matches), restart it",
	  "NVIDIA Fabric Manager FMGpuDriverVersionCheck (FM_LOG_ERROR and FM_SYSLOG_ERR of ' GPU driver interface version ' X ' don't match with driver version ' Y)" },
	{ "GL01", F(LOG_GLOO_CONNECT_FAILED), NS_TEXT, L("Gloo connectFullMesh failed"), NULL, NSR_ROOT, -1, 0.75,
	  "PyTorch 1.x-2.x 'RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error' (the Gloo error follows: timed out, Connection refused, remote=[addr]:port)",
	  "the framework's Gloo CPU process group could not connect its ranks: an interface or address the other hosts cannot reach, a hostname resolving to loopback, a firewall",
	  "GLOO_SOCKET_IFNAME (and NCCL_SOCKET_IFNAME) set to the interface that reaches the other hosts",
	  "pytorch torch/csrc/distributed/c10d/ProcessGroupGloo.cpp (c10::str(\"Gloo connectFullMesh failed with \", err)); gloo transport/tcp/pair.cc; sgl-project/sglang#3226 (GLOO_SOCKET_IFNAME fixed it)" },
	{ "GL02", F(LOG_GLOO_CONNECT_FAILED), NS_TEXT, L("Unable to find address for: "), NULL, NSR_ROOT, -1, 0.8,
	  "Gloo 'Unable to find address for: eth0' (an enforce of tcp/device.cc, PyTorch: 'RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != nullptr. Unable to find address for: eth0')",
	  "the interface GLOO_SOCKET_IFNAME names does not exist (or has no address) on this host: names that differ between hosts, a typo",
	  "set GLOO_SOCKET_IFNAME (and NCCL_SOCKET_IFNAME) to an interface every host has (`ip -br addr`), or a prefix list",
	  "gloo gloo/transport/tcp/device.cc CreateDevice/lookupAddrForIface (GLOO_ENFORCE(ifa != nullptr, \"Unable to find address for: \", iface))" },
	{ "TCPX01", F(LOG_TCPX_RXDM_FAILED), NS_TEXT, L("Number of GPUs detected in the PCI tree"), NULL, NSR_ROOT, -1, 0.75,
	  "GPUDirect-TCPX/TCPXO's receive daemon (RxDM, GKE A3/A3-Mega) 'Number of GPUs detected in the PCI tree 7 is not equal to the actual number of GPUs reported by CUDA 8.'",
	  "the RxDM daemon could not pair each GPU with its NIC in the PCI tree (a NIC in a GPU NIC's slot, a missing /sys mount in its container) and exited: NCCL's TCPX/TCPXO plugin then finds no receive daemon and every connection is refused",
	  "give the node pool exactly the GPU NICs the machine type expects (no extra gVNIC network on a3-megagpu-8g), mount the host's /sys into the tcpxo-daemon container; check the daemon's log",
	  "Google's GPUDirect-TCPX receive-datapath-manager (SetAndLogError 'Number of GPUs detected in the PCI tree %d is not equal to the actual number of GPUs reported by CUDA %d.'), checked with find_string" },
	{ "GL04", F(LOG_GLOO_CONNECT_FAILED), NS_TEXT, L("gloo/transport/tcp/pair.cc"), "Connection refused", NSR_ROOT, -1, 0.6,
	  "Gloo 'RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:799] connect [127.0.1.1]:46571: Connection refused'",
	  "a Gloo rank connected to an address where nothing listens: the peer advertised a loopback address (a hostname that /etc/hosts maps to 127.0.1.1), an interface the others cannot reach, or it is not up",
	  "GLOO_SOCKET_IFNAME (and NCCL_SOCKET_IFNAME) set to the interface that reaches the other hosts; make each host name resolve to its routable address",
	  "gloo gloo/transport/tcp/pair.cc (connect: \"connect \" + peer address + \": \" + strerror)" },
	{ "GL03", F(LOG_PEER_CONNECTION_LOST), NS_TEXT, L("Connection closed by peer ["), NULL, NSR_SECONDARY, -1, 0.45,
	  "Gloo 'RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.2]:1234'",
	  "the other end of a Gloo connection went away: that rank died (OOM, a crash) or its host dropped off the network",
	  "read the log of the rank at that address; its own error is the cause",
	  "gloo gloo/transport/tcp/pair.cc (\"Connection closed by peer \" + peer address)" },
	{ "SK01", F(LOG_FD_LIMIT), NS_ANY, L("Too many open files"), NULL, NSR_ROOT, -1, 0.75,
	  "NCCL 2.2x 'ncclOsSocketTryAccept: Accept failed: Too many open files' (and any socket or file call failing with EMFILE)",
	  "the process ran out of file descriptors: NCCL opens sockets to its peers (bootstrap, proxy, NET/Socket), more with more nodes; a 1024 soft limit is not enough at scale",
	  "raise the limit (ulimit -n to the hard limit in the job's prologue; Slurm/container nofile)",
	  "strerror(EMFILE); N:misc/socket.cc accept; goodfire-ai/spd#957 (1024 soft limit, 4+ nodes)" },
	{ "OF02", F(LOG_OFI_NO_PROVIDER), NS_ANY, L("fi_getinfo() call failed"), NULL, NSR_ROOT, 2, 0.7,
	  "aws-ofi-nccl 'NET/OFI OFI fi_getinfo() call failed: No data available' (the provider, EFA, found no device)",
	  "the OFI plugin found no usable provider: the EFA devices (/dev/infiniband) are not exposed in the container, or the EFA driver / libfabric is missing",
	  "expose the devices (--device /dev/infiniband, the EFA device plugin's resource), check `fi_info -p efa` inside the container",
	  "aws-ofi-nccl nccl_ofi_rdma/nccl_ofi_sendrecv init ('OFI fi_getinfo() call failed: %s'); aws/aws-ofi-nccl#1020" },
	{ "CF01", F(LOG_NCCL_ERROR), NS_TEXT, L("failed: result == ncclSuccess"), NULL, NSR_SECONDARY, -1, 0.2,
	  "Caffe / NVCaffe NCCL_CHECK with glog: 'Check failed: result == ncclSuccess (1 vs. 0)  unhandled cuda error' (the result code, then ncclGetErrorString)",
	  "an NCCL error surfaced by the framework; its result code is all it says",
	  "rerun with NCCL_DEBUG=INFO", "BVLC/NVIDIA caffe include/caffe/util/nccl.hpp NCCL_CHECK (CHECK_EQ(result, ncclSuccess) << \" \" << ncclGetErrorString(result)); glog CHECK_EQ 'Check failed: a == b (x vs. y) '" },
	{ "HV02", F(LOG_COLLECTIVE_MISMATCH), NS_TEXT, L("by subset of ranks and are waiting for remainder of ranks"), NULL, NSR_ROOT, 10, 0.45,
	  "Horovod's stall inspector 'One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds.'",
	  "ranks submitted different tensors (a collective some ranks skip, names that differ) or some ranks stopped submitting (a dead or stuck rank)",
	  "compare what each rank submits (the missing ranks the message lists); check the ranks that are missing for an error of their own",
	  "horovod horovod/common/stall_inspector.cc" },
	{ "HV01", F(LOG_NCCL_ERROR), NS_TEXT, L("ncclCommInitRank failed: ", "ncclAllReduce failed: ", "ncclGroupEnd failed: ", "ncclBroadcast failed: "), NULL,
	  NSR_SECONDARY, -1, 0.2,
	  "Horovod 0.x NCCL ops 'ncclCommInitRank failed: unhandled cuda error' (the NCCL call, then ncclGetErrorString), as TensorFlow prints it: 'UnknownError (see above for traceback): ncclCommInitRank failed: unhandled cuda error'",
	  "an NCCL error surfaced by a program that calls NCCL's C API itself (Horovod, built against the system's libnccl); its result code is all it says",
	  "rerun with NCCL_DEBUG=WARN; check that the libnccl was built for the installed CUDA (libnccl2=X+cudaY.Z)",
	  "horovod horovod/common/ops/nccl_operations.cc NCCLContext::ErrorCheck (std::string(op_name) + \" failed: \" + ncclGetErrorString(nccl_result)); horovod#108" },
	{ "HC01", F(LOG_HEAP_CORRUPTION), NS_TEXT,
	  L("free(): invalid next size", "double free or corruption", "malloc(): corrupted", "corrupted size vs. prev_size"), NULL,
	  NSR_ROOT, -1, 0.5,
	  "glibc 2.x malloc_printerr: 'free(): invalid next size (fast)' / '(normal)', 'double free or corruption (!prev)' / '(fasttop)' / '(out)', 'malloc(): corrupted top size', 'corrupted size vs. prev_size'",
	  "glibc aborted the process on a corrupted heap: a memory bug in one of its libraries (NCCL or a plugin in nccl-tests; the application or mixed builds in a framework)",
	  "another NCCL version; NCCL_NVLS_ENABLE=0 if NVLS is used; MALLOC_CHECK_=3 / valgrind to find the library",
	  "glibc malloc/malloc.c malloc_printerr; NVIDIA/nccl#1043 (free(): invalid next size in nccl-tests with 2.18/2.19, not 2.16; fixed by the maintainer's NVLS dual-port NIC patch)" },
	{ "NE01", F(LOG_NCCL_ERROR), NS_TEXT, L("ncclSystemError: System call", "ncclUnhandledCudaError: Call to CUDA function failed"), NULL,
	  NSR_SECONDARY, -1, 0,
	  "PyTorch getNcclErrorDetailStr: 1.x 'ncclSystemError: System call (socket, malloc, munmap, etc) failed.', later 'ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.', 'ncclUnhandledCudaError: Call to CUDA function failed.' (PaddlePaddle copies them)",
	  "an NCCL error surfaced by the framework, with PyTorch's reading of its result code: it marks the run failed and names no cause (weight 0; the 'NCCL error in:' line beside it carries the result code, the NCCL WARN the cause)",
	  "rerun with NCCL_DEBUG=INFO", "pytorch torch/csrc/distributed/c10d/NCCLUtils.cpp getNcclErrorDetailStr" },
	{ "SL01", F(LOG_SOCKET_LINK_LOCAL), NS_ANY, L("NET/Socket : Using", "Bootstrap : Using", "Bootstrap: Using", "connect to 169.254."), "169.254.",
	  NSR_CONTEXT, 1, 0.45,
	  "all: 'NET/Socket : Using [0]enp73s0:10.1.216.156<0> [1]pod-id-link0:169.254.170.23<0>', 'Bootstrap : Using eth0:169.254.1.2<0>'; 2.24+ 'socketPollConnect: connect to 169.254.170.23<port> returned Connection refused, retrying (13/34)'",
	  "NCCL lists, bootstraps from or connects to a link-local (169.254.0.0/16) address: an interface other hosts cannot reach (cloud pod-identity or metadata links, an unconfigured NIC)",
	  "NCCL_SOCKET_IFNAME set to the routable interface, or excluding the link-local one (^pod-id-link0)",
	  "N:misc/socket.cc ncclFindInterfaces (every interface up with an address, only lo and docker* excluded by default: a link-local one is used); RFC 3927; aws-samples/aws-do-eks#54 (EKS pod-id-link0 excluded with NCCL_SOCKET_IFNAME)" },
	/* --- facts read by analyze/logs/rules/ (held-out batch 10, docs/logs.md) */
	{ "EV01", F(LOG_ENV_TRANSPORT_SWITCH), NS_TEXT, L("NCCL_P2P_DISABLE=", "NCCL_SHM_DISABLE=", "NCCL_IB_DISABLE="), NULL, NSR_INFO, -1, 0,
	  "a shell or launcher line: 'CUDA_VISIBLE_DEVICES=0,1,2,3 NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO ./build/all_reduce_perf -g 4', 'export NCCL_IB_DISABLE=1', 'mpirun -x NCCL_SHM_DISABLE=1 ...'",
	  "a variable that turns an NCCL transport off, set where the run was started (analyze/nccllog_b10.c takes it only in a command's shape)",
	  "nothing by itself",
	  "N:graph/paths.cc ncclGetLevel (NCCL_P2P_DISABLE: strtol == 1 disables P2P), N:transport/shm.cc (ncclParamShmDisable() == 1), N:transport/net_ib.cc (ncclParamIbDisable()), v2.26.5-1" },
	{ "SZ01", F(LOG_SHM_SIZE_SEEN), NS_TEXT, L("% /dev/shm", "--shm-size", "shm_size:", "/dev/shm has only"), NULL, NSR_INFO, -1, 0,
	  "coreutils df '(shm|tmpfs) 64M 0 64M 0% /dev/shm'; docker run '--shm-size=64m' / '--shm-size 1g'; compose 'shm_size: 2gb'; Ray 'WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available.' (vLLM and RLlib jobs on Ray print it at start)",
	  "the size of /dev/shm the job had (NCCL's SHM transport and PyTorch's DataLoader workers share memory there)",
	  "nothing by itself; under 1 GiB in a failed run: --ipc=host or --shm-size=16g (rule shm-size-small)",
	  "coreutils df (the Use% and Mounted on columns); docker run --shm-size (bytes, or b/k/m/g); compose shm_size; Docker's default 64 MiB; ray python/ray/_private/services.py (the object store's /dev/shm check, checked with find_string)" },
	{ "EV02", F(LOG_ENV_OVERRIDE), NS_TEXT, L("NCCL_TOPO_FILE=", "NCCL_GRAPH_FILE="), NULL, NSR_INFO, -1, 0,
	  "a shell or launcher line: 'mpirun -np 8 ... -x NCCL_SOCKET_IFNAME=eth0 -x NCCL_TOPO_FILE=/azure-nhc/topofiles/ndv5-topo.xml /opt/nccl-tests/build/all_reduce_perf -b 16G', 'export NCCL_GRAPH_FILE=/opt/graph.xml'",
	  "a file that replaces NCCL's topology detection (NCCL_TOPO_FILE) or its search of rings and trees (NCCL_GRAPH_FILE), set where the run was started (analyze/logs/rules/config.c takes it only in a command's shape)",
	  "nothing by itself; in a slow or failed run, rerun without it",
	  "NCCL's documented variables (kb/nccl_env.c: NCCL_TOPO_FILE 2.6+, NCCL_GRAPH_FILE); N:graph/topo.cc ncclTopoGetSystem loads NCCL_TOPO_FILE before detection, N:graph/search.cc reads NCCL_GRAPH_FILE instead of searching" },
	{ "NH01", F(LOG_BANDWIDTH_CHECK_LOW), NS_TEXT, L("NCCL allreduce, BUS BW (expected >="), "but measured", NSR_INFO, -1, 0,
	  "Azure NHC: 'ERROR:  nhc:  Health check failed:  check_nccl_allreduce: NCCL allreduce, BUS BW (expected >=431.0 GB/s, but measured 15.1043 GB/s). FaultCode: NHC2010'; check_nccl_allreduce_ib_loopback prints the same",
	  "a health check ran all_reduce_perf and measured less bus bandwidth than it expects: a slow path, not an NCCL failure; no cause by itself",
	  "rerun all_reduce_perf with NCCL_DEBUG=INFO and compare its channels and transports with a healthy node",
	  "Azure/azurehpc-health-checks customTests/azure_nccl_allreduce.nhc check_nccl_allreduce: die 1 \"$FUNCNAME: NCCL allreduce, BUS BW (expected >=$EXP_NCCL_ALLREDUCE_BW GB/s, but measured $avg_bus_bw GB/s). FaultCode: NHC2010\" (the script itself passes -x NCCL_TOPO_FILE=$TOPOFILE to mpirun)" },
	{ "NT02", F(LOG_NCCL_TESTS_GPUS), NS_TEXT, L(" device "), " Pid ", NSR_INFO, -1, 0,
	  "nccl-tests '#  Rank  0 Group  0 Pid 2081556 on   deepseek device  0 [0000:0f:00] NVIDIA H800'; the first releases '#   Rank  0 Pid  12345 on host device  0 [0x1a] Tesla V100-SXM2-16GB'",
	  "one GPU of the test: its host and its model (cudaDeviceProp.name)", "nothing",
	  "nccl-tests src/common.cu (v2.0.0 '#   Rank %2d Pid %6d on %10s device %2d [0x%02x] %s'; v2.19.6 adds 'Group %2d' and the bus id)" },
	{ "MP01", F(LOG_LAUNCHER_EXIT_CODE), NS_TEXT, L("Exit code:", "Exited with exit code"), NULL, NSR_INFO, -1, 0,
	  "Open MPI 'Exit code:    3' under 'mpirun detected that one or more processes exited with non-zero status ... The first process to do so was:'; Slurm 'srun: error: node1: task 3: Exited with exit code 3'",
	  "a process ended by itself with this status (a killed one is reported by its signal)", "read what that process printed before it exited",
	  "Open MPI's mpirun help text for a non-zero exit (help-orterun.txt; PRRTE's prterun in 5.x); Slurm srun's task exit message" },
	/* NCCL's error strings alone, whatever the framework's prefix: an issue
	 * title with the words run together ('NCCLerror: unhandled system error
	 * (run withNCCL DEBUG=INFo for details)') keeps them; last, so that every
	 * other row speaks first for a line it matches too (HV01, CF01) */
	{ "S68c", F(LOG_NCCL_ERROR), NS_TEXT, L("unhandled system error", "unhandled cuda error"), NULL, NSR_SECONDARY, -1, 0.2,
	  "all: ncclGetErrorString's texts for ncclSystemError and ncclUnhandledCudaError ('unhandled system error', 2.x appends ' (run with NCCL_DEBUG=INFO for details)')",
	  "an NCCL error surfaced by a framework or quoted in a title; the NCCL WARN names the cause",
	  "rerun with NCCL_DEBUG=INFO", "N:init.cc ncclGetErrorString (v2.3.7-1 init.cu:828, v2.28.3-1 init.cc:2515)" },
};

const struct nccl_signature *kb_nccl_signatures(size_t *n)
{
	*n = sizeof(sigs) / sizeof(sigs[0]);
	return sigs;
}

const struct nccl_signature *kb_nccl_signature(const char *id)
{
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		if (strcmp(sigs[i].id, id) == 0)
			return &sigs[i];
	return NULL;
}

const char *nccl_signature_cause(const struct nccl_signature *s)
{
	return kb_finding_def(s->fid)->cause;
}

bool nccl_signature_generic(const struct nccl_signature *s)
{
	static const char *const generic[] = { "S53", "S68", "S68b", "S68c", "HV01", "W00", "PT09", "PT10" };
	for (size_t i = 0; i < sizeof(generic) / sizeof(generic[0]); i++)
		if (strcmp(s->id, generic[i]) == 0)
			return true;
	return false;
}

const char *nccl_sig_role_name(enum nccl_sig_role r)
{
	switch (r) {
	case NSR_ROOT: return "root";
	case NSR_SECONDARY: return "secondary";
	case NSR_HANG: return "hang";
	case NSR_CONTEXT: return "context";
	default: return "info";
	}
}

/* Stage timeline, kb/nccl-log.md (derived from N:init.cc, N:group.cc). */
static const char *stage_names[] = {
	"T0 library loaded", "T1 bootstrap interface", "T2 network picked", "T3 init start",
	"T4 bootstrap done", "T5 all ranks joined", "T6 graphs computed", "T7 transports connected",
	"T8 channels set up", "T9 init complete", "T10 first collective",
};

static const char *stage_hang[] = {
	"stopped before or right after loading NCCL: the framework's rendezvous or a missing rank",
	"stopped in bootstrap: a rank missing or unreachable, wrong interface, firewall, port clash",
	"stopped in bootstrap: a rank missing or unreachable, wrong interface, firewall, port clash",
	"stopped in bootstrap: waiting for the other ranks (missing rank, interface, firewall)",
	"stopped in bootstrap: waiting for the other ranks (missing rank, interface, firewall)",
	"stopped in transport set-up: P2P, SHM (/dev/shm), proxy or cuMem",
	"stopped in transport set-up: P2P, SHM (/dev/shm), proxy or cuMem",
	"stopped in transport set-up: P2P, SHM (/dev/shm), proxy or cuMem",
	"stopped in transport set-up: P2P, SHM (/dev/shm), proxy or cuMem",
	"stopped after init: runtime connection at the first collective (proxy, UDS fd passing, /dev/shm)",
	"stopped in the data path: P2P blocked by ACS/IOMMU, GPU/NVLink fault, a dead rank, or mismatched collectives",
};

/* The NCCL log lines that mark each stage (kb/nccl-log.md, "Stage
 * timeline"). */
static const char *stage_lines[] = {
	"\"NCCL version\" / \"cudaDriverVersion\"",
	"\"Bootstrap : Using\" / \"Bootstrap: Using\" (the out-of-band interface chosen)",
	"the NET plugin, \"NET/IB\", \"NET/Socket\", \"Using network\"",
	"\"... - Init START\" (2.18.3+): this rank begins creating its communicator",
	"\"Bootstrap timings\" (2.23+), the CPU affinity line, the NVLS support line",
	"\"comm .. rank .. nRanks .. nNodes .. localRanks\" (2.20+): all ranks joined the bootstrap all-gather",
	"ring order \"Channel 00/02 : 0 1\", \"Trees ...\", \"P2P Chunksize set to\"",
	"\"Channel xx/y : a[i] -> b[j] via ...\", \"Connected all rings/trees\" (up to 2.21, or with runtime connect off / no cuMem)",
	"\"threadThresholds\", \"N coll channels ...\", \"CC Off, workFifoBytes\"",
	"\"... - Init COMPLETE\", \"Init timings\"",
	"(2.22+ default) at the first collective: \"Channel .. via ..\" lines, \"Connected all rings, use ring PXN x GDR y\"",
};

/* What to collect next, by stage (nccl_stage_collect): NCCL_DEBUG_SUBSYS
 * names the subsystems whose INFO lines say what that stage did (NCCL's
 * environment variables documentation: INIT, BOOTSTRAP, NET, GRAPH, P2P,
 * SHM, PROXY, ENV), the files those of the stage's causes that the log
 * cannot show (ACS, IOMMU, /dev/shm, Xid: the machine's). */
static const char collect_none[] =
	"every rank's output with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,ENV (NCCL_DEBUG_FILE=/tmp/nccl.%h.%p writes "
	"one file a process) and the launcher's output of every rank (which rank never started; MASTER_ADDR and "
	"MASTER_PORT), dmesg of each host (`nccl-doctor kernel`) and `nccl-doctor snapshot` of each host";
static const char collect_bootstrap[] =
	"every rank's log with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,BOOTSTRAP,NET,ENV (the interface and address each "
	"rank chose, which rank never joined), the logs of the ranks that are missing, `ip -br addr` and `nccl-doctor "
	"snapshot` of each host; `nccl-doctor check --log FILE` on a host weighs the log with its facts";
static const char collect_connect[] =
	"every rank's log with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET,GRAPH,ENV (the transport of each "
	"channel, the one that stops), `nvidia-smi topo -m`, dmesg (`nccl-doctor kernel`: Xid, IOMMU faults) and "
	"`nccl-doctor snapshot` of the host (ACS, IOMMU, /dev/shm); `nccl-doctor check --log FILE` on the host "
	"measures P2P between its GPUs and weighs the log with the machine's facts";
static const char collect_runtime[] =
	"every rank's log with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET,PROXY,ENV and NCCL_RUNTIME_CONNECT=0 "
	"(the connections are made at init, so the log shows the one that stops), TORCH_NCCL_DUMP_ON_TIMEOUT=1, dmesg "
	"(`nccl-doctor kernel`) and `nccl-doctor snapshot` of the host; `nccl-doctor check --log FILE` on the host";
static const char collect_data[] =
	"every rank's log with NCCL_DEBUG=INFO (transports, versions, where each rank stopped), the flight recorder of "
	"every rank (TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1; `nccl-doctor logs` reads the "
	"dumps), the kernel log of each host (`nccl-doctor kernel`) and `nccl-doctor check` on each host (NCCL, CUDA "
	"and driver versions must agree across hosts)";

const char *nccl_stage_collect(int stage)
{
	if (stage < 0 || stage > NCCL_STAGE_MAX)
		return collect_none;
	if (stage <= 4)
		return collect_bootstrap;
	if (stage <= 8)
		return collect_connect;
	return stage == 9 ? collect_runtime : collect_data;
}

const char *nccl_stage_lines(int stage)
{
	if (stage < 0 || stage > NCCL_STAGE_MAX)
		return NULL;
	return stage_lines[stage];
}

const char *nccl_stage_name(int stage)
{
	if (stage < 0 || stage > NCCL_STAGE_MAX)
		return "no NCCL line";
	return stage_names[stage];
}

const char *nccl_stage_hang_meaning(int stage)
{
	if (stage < 0 || stage > NCCL_STAGE_MAX)
		return "no NCCL output: hung before NCCL init (rendezvous) or NCCL_DEBUG not set";
	return stage_hang[stage];
}
