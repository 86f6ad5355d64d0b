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
	{ "S07b", F(LOG_SOCKET_CONNECT_FAILED), NS_NCCL,
	  L("exceeded retries", "exceeded error retry count", "exceeded timeouts (", "failed to connect"), NULL,
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
	{ "S21", F(LOG_GDR_DISABLED), NS_INFO, L("GPU Direct RDMA Disabled for"), NULL, NSR_INFO, 4, 0, "2.13+",
	  "network traffic stages through host memory", "load nvidia-peermem if RDMA performance matters", "N:transport/net_ib.cc" },
	/* --- topology ------------------------------------------------------- */
	{ "S23b", F(LOG_TOPO_FILE_ERROR), NS_ANY, L("Could not open XML topology file", "Could not open XML graph file"), NULL, NSR_ROOT, 4, 0.7,
	  "2.6+", "NCCL_TOPO_FILE missing or unreadable", "fix NCCL_TOPO_FILE", "N:graph/xml.cc" },
	{ "S23", F(LOG_TOPO_SYSFS_MISSING), NS_INFO, L("Could not find real path of"), NULL, NSR_INFO, 4, 0, "all",
	  "virtual or partial PCI tree in /sys (VM, container)", "NCCL_TOPO_FILE if the topology is wrong", "N:graph/xml.cc" },
	{ "S24", F(LOG_CPU_AFFINITY_EMPTY), NS_INFO, L("is empty, ignoring"), "Affinity for GPU", NSR_INFO, 4, 0,
	  "2.28+ 'ncclTopoGetCpuAffinity: Affinity for GPU 0 is empty, ignoring. (GPU affinity = ...' (seen in 2.28.9)",
	  "the job's CPU set misses the GPU's local CPUs", "bind ranks to GPU-local CPUs or NCCL_IGNORE_CPU_AFFINITY=1", "N:graph/topo.cc" },
	{ "S28", F(LOG_P2P_DISABLED_NVLINK), NS_ANY, L("P2P is disabled between NVLINK connected GPUs"), NULL, NSR_ROOT, 4, 0.85, "2.12+",
	  "NVLink down or degraded; init fails", "check nvidia-smi nvlink -s, Xid 74/136, fabric manager", "N:graph/paths.cc" },
	{ "S27", F(LOG_P2P_DISABLED_PCIE), NS_ANY, L("P2P is disabled between connected GPUs"), NULL, NSR_CONTEXT, 4, 0.45, "2.12+",
	  "NVML says P2P unsupported for a close pair; NCCL uses SHM", "nccl-doctor p2p / sys (ACS, IOMMU)", "N:graph/paths.cc" },
	{ "S61", F(LOG_RING_MISMATCH), NS_ANY, L("does not loop back to start", "Could not find a path for pattern"), NULL, NSR_ROOT, 6, 0.6,
	  "all", "ranks computed different topologies or settings", "same env and topology on all ranks", "N:graph/rings.cc, N:graph/search.cc" },
	/* --- environment ---------------------------------------------------- */
	{ "S30b", F(LOG_ENV_INVALID_VALUE), NS_NCCL, L("Invalid value "), ", using default", NSR_CONTEXT, -1, 0.3, "all",
	  "a variable's value was not understood and the default is used", "fix the value", "N:misc/param.cc" },
	/* --- shared memory -------------------------------------------------- */
	{ "S51", F(LOG_SHM_EXTEND_FAILED), NS_ANY, L("failed to extend /dev/shm", "Failed to extend /dev/shm", "to extend /dev/shm/"), NULL,
	  NSR_ROOT, 7, 0.9, "all; 2.26+ appends ', error: <strerror> (<errno>)'",
	  "/dev/shm too small or full (Docker 64 MiB)", "--ipc=host or --shm-size=16g; remove stale /dev/shm/nccl-*", "N:misc/shmutils.cc" },
	{ "S52b", F(LOG_SHM_UNLINK_FAILED), NS_ANY, L("unlink shared memory"), "failed", NSR_CONTEXT, -1, 0.5, "all",
	  "systemd-logind RemoveIPC removed the segment", "RemoveIPC=no", "N:misc/shmutils.cc" },
	{ "S52", F(LOG_SHM_SEGMENT_FAILED), NS_ANY,
	  L("Error while creating shared memory segment", "Error while attaching to shared memory segment",
	    "failed to create shared memory file", "Could not map "), NULL, NSR_ROOT, 7, 0.8, "all",
	  "the SHM transport could not create or map its segment", "--ipc=host / --shm-size; or NCCL_SHM_DISABLE=1", "N:transport/shm.cc, N:misc/shmutils.cc" },
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
	{ "S50", F(LOG_CUMEM_HOST_FALLBACK), NS_NCCL, L("cuMem host allocations do not appear to be working"), NULL, NSR_INFO, 7, 0, "2.26.3+",
	  "NUMA syscalls blocked; /dev/shm used instead", "--cap-add SYS_NICE, or a big enough /dev/shm", "N:transport/shm.cc" },
	/* --- CUDA failures, most specific first (S53) ------------------------ */
	/* framework all-reduce kernels that bypass NCCL: their own CUDA checks */
	{ "VL06", F(LOG_CUSTOM_AR_FAILED), NS_ANY, L("custom_all_reduce.cuh", "custom_all_reduce.cu:", "custom_allreduce.cu", "customAllReduce"), NULL,
	  NSR_ROOT, 10, 0.8, "vLLM 'Failed: .../csrc/custom_all_reduce.cuh:310 'invalid argument''; SGLang and TensorRT-LLM copies of the kernel",
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
	{ "S53k", F(LOG_CUDA_KERNEL_FAULT), NS_ANY, L("unspecified launch failure", "uncorrectable ECC error encountered", "CUDA_ERROR_ECC_UNCORRECTABLE"), NULL,
	  NSR_ROOT, -1, 0.55, "all", "a kernel faulted: application bug or GPU fault", "check Xid; CUDA_LAUNCH_BLOCKING=1", "N:include/checks.h" },
	{ "S53x", F(LOG_CUDA_PEER_ACCESS), NS_ANY, L("peer mapping resources exhausted"), NULL, NSR_ROOT, -1, 0.6, "all",
	  "too many peer mappings (more than 8 peers over PCIe)", "NCCL_P2P_LEVEL / fewer GPUs per process", "N:include/checks.h" },
	{ "S62", F(LOG_NVLS_FAILED), NS_ANY, L("Failed to bind NVLink SHARP"), NULL, NSR_ROOT, 7, 0.75, "2.27+",
	  "NVLS multicast set-up failed", "NCCL_NVLS_ENABLE=0; check fabric manager", "N:transport/nvls.cc" },
	{ "S75", F(LOG_NCCL_TOO_OLD_FOR_GPU), NS_NCCL, L("ncclMaxSharedMem"), "exceeds", NSR_ROOT, 8, 0.8,
	  "2.x 'cudaArch %d ncclMaxSharedMem %d exceeds device/fn maxSharedMem %zu' (2.25.1 on sm_120, fixed in 2.26.2)",
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
	{ "S72", F(LOG_COLLECTIVE_MISMATCH), NS_ANY, L("message truncated : receiving", "without a matching send", "without a matching recv"), NULL,
	  NSR_ROOT, 10, 0.65, "all ('NET/Socket : peer A<p> message truncated : receiving N bytes instead of M'; bootstrap's 'Message truncated : received' is S72b)",
	  "ranks called collectives with different sizes or mismatched send/recv", "make every rank call the same collectives with the same counts",
	  "N:transport/net_socket.cc, N:enqueue.cc" },
	{ "S73", F(LOG_INVALID_USAGE), NS_ANY, L("invalid root ", "invalid redop", "is not a valid pointer", "Invalid rank requested"), NULL,
	  NSR_ROOT, -1, 0.7, "all (argument checks)", "the application passed invalid arguments to NCCL",
	  "fix the call: root in 0..nranks-1, a valid op and device pointers, rank < nranks", "N:misc/argcheck.cc, N:init.cc" },
	{ "S74", F(LOG_CUDA_FAILURE), NS_ANY, L("Failed to find CUDA library", "cuDriverGetVersion failed"), NULL, NSR_ROOT, 0, 0.75,
	  "2.13+", "NCCL could not load or query the CUDA driver (libcuda.so)", "install or expose the driver (container runtime: --gpus / nvidia runtime)",
	  "N:misc/cudawrap.cc" },
	{ "LD01", F(LOG_NCCL_SYMBOL_MISSING), NS_ANY, L("undefined symbol: nccl", "undefined symbol: \"nccl"), NULL, NSR_ROOT, 0, 0.85,
	  "glibc ld.so 'symbol lookup error: <lib>: undefined symbol: ncclCommRegister' (Python: ImportError with the same text); ncclCommRegister and ncclMemFree exist from NCCL 2.19.1, ncclCommWindowRegister from 2.27.3 (N:nccl.h.in)",
	  "the program or framework was built against a newer NCCL than the libnccl.so.2 it loaded (a second libnccl shadows it: two nvidia-nccl wheels, LD_LIBRARY_PATH, a bundled copy)",
	  "keep one libnccl at least as new as the build's (ldd; uninstall the extra nvidia-nccl wheel; LD_LIBRARY_PATH)",
	  "glibc elf/dl-lookup.c _dl_lookup_symbol_x ('undefined symbol: %s%s%s'); N:nccl.h.in (v2.19.1-1, v2.27.3-1); the quoted form as users paste it" },
	{ "S53", F(LOG_CUDA_FAILURE), NS_ANY, L("Cuda failure", "CUDA failure"), NULL, NSR_ROOT, -1, 0.5, "runtime 'Cuda failure 'x''; driver 'Cuda failure N 'x'' (2.19+)",
	  "a CUDA call failed; the quoted text names it", "read the CUDA error", "N:include/checks.h" },
	/* --- P2P and cuMem -------------------------------------------------- */
	{ "S55l", F(LOG_P2P_IPC_UNSUPPORTED), NS_ANY, L("Legacy IPC not supported"), NULL, NSR_ROOT, 7, 0.75, "all",
	  "no legacy CUDA IPC (WSL-like, some VMs)", "NCCL_P2P_DISABLE=1", "N:transport/p2p.cc" },
	{ "S54", F(LOG_P2P_PEER_FAILED), NS_ANY,
	  L("failed to peer with device", "Could not enable P2P between dev", "peer query failed between dev", "cudaIpcGetMemHandle failed"), NULL,
	  NSR_ROOT, 7, 0.7, "2.5+", "enabling P2P between two GPUs failed", "test NCCL_P2P_DISABLE=1; check ACS/IOMMU", "N:transport/p2p.cc" },
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
	/* --- PyTorch -------------------------------------------------------- */
	{ "PT01", F(LOG_WATCHDOG_TIMEOUT), NS_TEXT, L("Watchdog caught collective operation timeout"), NULL, NSR_HANG, 10, 0.3,
	  "PyTorch 1.13+ '[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, ..., Timeout(ms)=600000) ran for 600081 milliseconds before timing out.'",
	  "a collective did not finish in time", "see where each rank stopped", "pytorch ProcessGroupNCCL.cpp" },
	{ "PT02", F(LOG_WATCHDOG_TIMEOUT), NS_TEXT, L("watchdog got stuck for", "Some NCCL operations have failed or timed out", "Timeout at NCCL work"), NULL,
	  NSR_HANG, 10, 0.3, "PyTorch 2.x", "the NCCL watchdog or a collective is stuck", "see where each rank stopped", "pytorch ProcessGroupNCCL.cpp" },
	{ "PT03", F(LOG_TORCH_OOM), NS_TEXT, L("CUDA out of memory", "OutOfMemoryError", "CUDA error: out of memory", "CUDA_ERROR_OUT_OF_MEMORY"), NULL, NSR_ROOT, -1, 0.85,
	  "PyTorch 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate ...'", "a rank ran out of GPU memory",
	  "lower batch size / --gpu-memory-utilization", "pytorch c10/cuda/CUDACachingAllocator.cpp" },
	{ "PT04", F(LOG_RENDEZVOUS_FAILED), NS_TEXT,
	  L("DistStoreError", "RendezvousTimeoutError", "The client socket has timed out", "The server socket has failed to listen"), NULL,
	  NSR_ROOT, 0, 0.7, "PyTorch 2.x TCPStore", "the rendezvous at MASTER_ADDR:MASTER_PORT failed",
	  "same MASTER_ADDR/MASTER_PORT/WORLD_SIZE; reachable address; free port", "pytorch torch/csrc/distributed/c10d/TCPStore*.cpp" },
	{ "PT05", F(LOG_RENDEZVOUS_FAILED), NS_TEXT, L("clients joined", "waiting for clients"), "Timed out", NSR_ROOT, 0, 0.75,
	  "PyTorch 'Timed out after N seconds waiting for clients. 1/2 clients joined.'", "a rank never joined the rendezvous",
	  "start every rank; same MASTER_ADDR/PORT", "pytorch TCPStore.cpp" },
	{ "PT06", F(LOG_CHILD_FAILED), NS_TEXT, L("ChildFailedError", "exitcode  :", "Signal 9 (SIGKILL) received", "Signal 11 (SIGSEGV)"), NULL,
	  NSR_SECONDARY, -1, 0.35, "torchrun (torch.distributed.elastic) failure summary",
	  "a rank process exited with an error or a signal", "read that rank's error; dmesg for the OOM killer", "pytorch torch/distributed/elastic/multiprocessing/errors" },
	{ "PT09", F(LOG_CUDA_FAILURE), NS_TEXT,
	  L("driver version is insufficient for CUDA runtime version", "unsupported display driver / cuda driver combination",
	    "Error 803: system has unsupported"), NULL, NSR_ROOT, -1, 0.75, "CUDA runtime errors 35, 803 as PyTorch prints them",
	  "the driver is older than the CUDA runtime the framework ships, or the user-space and kernel driver differ",
	  "update the driver, or use a framework build for the installed CUDA; reboot after a driver update", "CUDA runtime API error strings" },
	{ "NC01", F(LOG_CONTAINER_NO_GPU), NS_TEXT, L("initialization error: cuda error: no cuda-capable device"), "nvidia-container-cli",
	  NSR_ROOT, 0, 0.7,
	  "libnvidia-container 1.0.x 'nvidia-container-cli: initialization error: cuda error: no cuda-capable device is detected' (driver initialized on the host, before any device selection)",
	  "the host's driver brought up no GPU: a GPU or NVLink fault (a bridge or link that fails training), or a half-installed driver",
	  "nvidia-smi and nccl-doctor kernel on the host (Xid, NVLink); reseat/remove a faulty NVLink bridge; reinstall the driver, reboot",
	  "libnvidia-container src/cli/configure.c (nvc_init failure 'initialization error: %s'), src/driver.c (CUDA driver init in 1.0.x)" },
	{ "NC02", F(LOG_CUDA_COMPAT_UNSUPPORTED), NS_ANY,
	  L("forward compatibility was attempted on non supported", "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "cudaErrorCompatNotSupportedOnDevice"), NULL,
	  NSR_ROOT, 0, 0.85, "CUDA 10.1+ error 804 as any wrapper prints it ('cuda error: forward compatibility was attempted on non supported HW')",
	  "the image's CUDA forward-compatibility libraries are newer than the driver and this GPU does not support forward compatibility",
	  "an image whose CUDA the driver supports, or a newer driver", "CUDA driver API error strings (CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804)" },
	{ "PT10", F(LOG_CUDA_INVALID_DEVICE), NS_TEXT, L("no CUDA-capable device is detected"), NULL, NSR_ROOT, -1, 0.7,
	  "CUDA error 100 as PyTorch prints it", "no GPU visible to the process (CUDA_VISIBLE_DEVICES, container without GPUs)",
	  "check CUDA_VISIBLE_DEVICES and the container's GPU request (--gpus, nvidia.com/gpu)", "CUDA runtime API error strings" },
	{ "PT11", F(LOG_CHILD_FAILED), NS_TEXT, L("Segmentation fault", "Fatal Python error: Segmentation", "SIGSEGV"), NULL,
	  NSR_ROOT, -1, 0.45, "any process", "a rank crashed; the others wait for it", "find what crashed (core dump, faulthandler), check driver and NCCL versions",
	  "the shell, Python faulthandler" },
	/* --- vLLM ----------------------------------------------------------- */
	{ "RY01", F(LOG_OOM_KILLED), NS_TEXT, L("by OOM killer", "Out of memory: Killed process", "oom-kill:", "OOMKilled"), NULL,
	  NSR_ROOT, -1, 0.6, "Ray 'The process is killed by SIGKILL by OOM killer due to high memory usage'; kernel 'Out of memory: Killed process'; Kubernetes OOMKilled",
	  "a rank's process was (or may have been) killed by the host's OOM killer; the other ranks then wait or time out",
	  "check dmesg / the node's memory; lower host memory use (dataloader workers, CPU offload)", "ray python/ray/_private worker exit messages, linux mm/oom_kill.c" },
	{ "RY02", F(LOG_WORKER_DIED), NS_TEXT, L("The actor is dead because its worker process has died", "Worker unexpectedly exits"), NULL,
	  NSR_SECONDARY, -1, 0.35, "Ray actor death message", "a Ray worker holding a rank died", "read its own error; dmesg for the OOM killer", "ray python/ray/exceptions.py" },
	{ "VL01", F(LOG_WORKER_DIED), NS_TEXT, L("died unexpectedly, shutting down executor", "EngineDeadError", "Engine core initialization failed"), NULL,
	  NSR_SECONDARY, -1, 0.35, "vLLM v1 'Worker proc VllmWorker-0 died unexpectedly, shutting down executor.'",
	  "a worker died; its own error is the cause", "read the worker's traceback", "vllm v1/executor/multiproc_executor.py" },
	{ "VL02", F(LOG_WORKER_DIED), NS_TEXT, L("Worker VllmWorkerProcess pid"), "died", NSR_SECONDARY, -1, 0.35, "vLLM v0 multiproc",
	  "a worker died", "read the worker's traceback", "vllm executor/multiproc_worker_utils.py" },
	{ "VL03", F(LOG_VLLM_CUSTOM_AR_DISABLED), NS_TEXT, L("Custom allreduce is disabled"), NULL, NSR_INFO, -1, 0,
	  "vLLM 'Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs...' / 'because your platform lacks GPU P2P capability or P2P test failed'",
	  "vLLM uses NCCL for all-reduce", "none unless P2P should work", "vllm distributed/device_communicators/custom_all_reduce.py" },
	{ "VL04", F(LOG_VLLM_P2P_CHECK), NS_TEXT, L("Skipping P2P check", "gpu_p2p_access_cache"), NULL, NSR_INFO, -1, 0,
	  "vLLM 'Skipping P2P check and trusting the driver's P2P report.'", "how vLLM decided P2P", "delete the cache to recheck",
	  "vllm distributed/device_communicators/custom_all_reduce_utils.py" },
	{ "VL05", F(LOG_VLLM_NCCL_VERSION), NS_TEXT, L("vLLM is using nccl=="), NULL, NSR_INFO, 0, 0,
	  "vLLM 0.4+ 'INFO 06-11 10:00:02 pynccl.py:63] vLLM is using nccl==2.21.5'",
	  "the libnccl vLLM's own NCCL wrapper loaded; it can differ from PyTorch's", "compare with the NCCL version lines; VLLM_NCCL_SO_PATH",
	  "vllm distributed/device_communicators/pynccl.py" },
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
	{ "K01", F(LOG_XID), NS_TEXT, L("NVRM: Xid ("), NULL, NSR_ROOT, -1, 0.8, "all drivers 'NVRM: Xid (PCI:0000:5d:00): 79, pid=...'",
	  "the driver reported a GPU fault", "nccl-doctor explain XID_<n>", "open-gpu-kernel-modules kernel_rc.c" },
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
	static const char *const generic[] = { "S53", "S68", "S68b", "W00", "PT09", "PT10" };
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
