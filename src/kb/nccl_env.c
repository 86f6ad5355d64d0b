/* The environment-variable table of kb/nccl_env.h. Sources: NDOC-env = NCCL
 * user guide, environment variables; N:<file> = github.com/NVIDIA/nccl src/
 * (2.30.7, older text by tag); NDOC-rt / NDOC-ras = NCCL troubleshooting and
 * RAS pages; CUDA-env, PT-env = CUDA and PyTorch environment docs. Values as
 * collected in the project knowledge base (nccl-env.md). */
#include "kb/nccl_env.h"

#include <strings.h>

#define N(name, values, dflt, effect, since, src) { name, "nccl", values, dflt, effect, since, src },
#define A(name, scope, values, dflt, effect, src) { name, scope, values, dflt, effect, "", src },

static const struct nccl_env_def envs[] = {
	N("NCCL_P2P_DISABLE", "1 (only the exact value 1 acts)", "unset (P2P allowed)",
	  "Disables the P2P transport: GPUs on one node exchange data through SHM (host memory) or the network instead. The usual workaround for a P2P hang; it costs bandwidth.",
	  "<=2.3", "NDOC-env, N:graph/paths.cc")
	N("NCCL_P2P_LEVEL", "LOC, NVL, NVB, C2C, PIX, PXB, P2C, PXN, PHB, SYS (exact upper case), or integers 0=LOC 1=PIX 2=PXB 3=PHB >=4=SYS",
	  "auto: up to 2.22 PXB on Intel/ARM/Zhaoxin and SYS on AMD; 2.23+ PXB, but SYS on AMD x86 with <=2 GPUs; NVML's P2P status can veto (2.12+)",
	  "P2P is used between two GPUs only when their path class is at most this level (LOC < NVL < NVB < C2C < PIX < PXB < P2C < PXN < PHB < SYS). NVL keeps P2P for NVLink only; PIX/PXB keep it under a PCIe switch; a finer fix than NCCL_P2P_DISABLE.",
	  "2.3.4", "NDOC-env, N:graph/paths.cc")
	N("NCCL_SHM_DISABLE", "1", "0", "Disables the shared-memory transport: local ranks without P2P then use the network (sockets or IB loopback).", "<=2.3", "NDOC-env")
	N("NCCL_IB_DISABLE", "1", "0", "Disables InfiniBand/RoCE: NCCL uses TCP sockets between nodes.", "<=2.3", "NDOC-env")
	N("NCCL_NET", "\"IB\", \"Socket\" or a plugin's name", "unset", "Forces one network; a name that is not available fails init.", "2.10", "NDOC-env")
	N("NCCL_NET_PLUGIN", "library suffix, library name, or \"none\"", "unset (libnccl-net.so if present)", "Chooses the network plugin to load.", "2.11", "NDOC-env")
	N("NCCL_SOCKET_IFNAME", "comma-separated prefixes; ^ excludes, = exact, ^= exact exclude; more than one character",
	  "auto: ib* first, then the NCCL_COMM_ID subnet, then all but docker, lo (and virbr since 2.28), then docker, lo, virbr; running interfaces only",
	  "Interfaces used for bootstrap and the socket transport. A wrong automatic choice (docker0, a VPN, an unrouted interface) hangs init at bootstrap.",
	  "<=2.3", "NDOC-env, N:misc/socket.cc")
	N("NCCL_SOCKET_FAMILY", "AF_INET | AF_INET6", "unset (both)", "Restricts bootstrap and socket interfaces to IPv4 or IPv6.", "<=2.3", "NDOC-env")
	N("NCCL_COMM_ID", "<ip>:<port>, [ipv6]:<port>, host:port", "unset", "The root's address instead of the uniqueId exchange.", "<=2.3", "N:bootstrap.cc")
	N("NCCL_HOSTID", "string", "hostname + boot_id", "Replaces NCCL's host identity; decides whether ranks count as one node (P2P/SHM eligibility) across containers.", "2.5", "N:misc/utils.cc, nccl#248, nccl#879")
	N("NCCL_CUMEM_ENABLE", "0 | 1", "2.18: 0; 2.19+: on when the driver is >= 12.0 and supports VMM",
	  "cuMem (VMM) allocations and P2P/CUMEM; 0 goes back to legacy CUDA IPC (P2P/IPC). Needed off in some containers and old drivers.", "2.18", "NDOC-env, N:misc/cudawrap.cc")
	N("NCCL_CUMEM_HOST_ENABLE", "0 | 1", "2.23 off; 2.24+ on when the driver is >= 12.6 and the runtime >= 12.2; 2.26.3+ falls back automatically",
	  "cuMem host memory for SHM instead of /dev/shm files.", "2.23", "NDOC-env, NDOC-rt")
	N("NCCL_NVLS_ENABLE", "0 off, 1 on (fail when allocation fails), 2 default", "2 (2.27/2.28 fell back silently; 2.29 behaves as 1)", "NVLink SHARP (NVSwitch multicast).", "2.17", "NDOC-env")
	N("NCCL_MNNVL_ENABLE", "0 | 1 | 2 (auto)", "2", "Multi-node NVLink.", "2.21", "NDOC-env")
	N("NCCL_IGNORE_CPU_AFFINITY", "1 = use GPU-local CPUs only; 0", "0", "Ignores the process's CPU affinity when binding NCCL threads.", "2.4.6", "NDOC-env")
	N("NCCL_COMM_BLOCKING", "0 nonblocking, 1 blocking", "1 (overrides config.blocking)", "Nonblocking init lets the caller time out ncclCommInitRank and abort instead of hanging.", "2.14", "NDOC-env")
	N("NCCL_RUNTIME_CONNECT", "1 lazy (connect at the first collective); 0 connect during init", "1",
	  "0 moves connection set-up (and its hangs) inside init, where they are easier to attribute.", "2.22", "NDOC-env, N:init.cc")
	N("NCCL_DEBUG", "VERSION, WARN, INFO, TRACE", "unset (silent)", "Log level; INFO shows the transport chosen per peer, which nccl-doctor logs reads.", "<=2.3", "NDOC-env")
	N("NCCL_DEBUG_SUBSYS", "INIT, COLL, P2P, SHM, NET, GRAPH, TUNING, ENV, ALLOC, ALLOC_HOST (2.30), CALL, PROXY, NVLS, BOOTSTRAP, REG, PROFILE (2.22), RAS (2.24), DESTROY (2.30), ALL; ^ negates",
	  "up to 2.22 INIT,ENV; 2.23+ INIT,BOOTSTRAP,ENV", "Which subsystems log at INFO.", "2.3.4", "NDOC-env")
	N("NCCL_DEBUG_FILE", "path with %h (short host), %p (pid), %%; /dev/stdout and /dev/stderr allowed; no ~", "unset (stdout)", "Writes each process's log to its own file (opened with \"w\").", "2.2.12", "NDOC-env, N:debug.cc")
	N("NCCL_DEBUG_TIMESTAMP_FORMAT", "strftime string (%Nf for fractions)", "unset", "Timestamps log lines.", "2.26", "NDOC-env")
	N("NCCL_DEBUG_TIMESTAMP_LEVELS", "VERSION, WARN, INFO, ABORT, TRACE, ALL", "WARN", "Which levels get a timestamp.", "2.26", "NDOC-env")
	N("NCCL_WARN_ENABLE_DEBUG_INFO", "1", "0", "Switches logging to INFO after the first WARN.", "2.19.4", "N:debug.cc")
	N("NCCL_TOPO_FILE", "path of an XML topology", "unset; /var/run/nvidia-topologyd/virtualTopology.xml is loaded automatically", "Topology loaded before detection; gives NCCL the real PCIe tree inside a VM.", "2.6", "NDOC-env")
	N("NCCL_TOPO_DUMP_FILE", "path", "unset", "Writes the detected topology (from rank NCCL_TOPO_DUMP_FILE_RANK, default 0).", "2.6", "NDOC-env")
	N("NCCL_TOPO_DUMP_FILE_RANK", "rank number", "0", "Which rank writes NCCL_TOPO_DUMP_FILE.", "2.6", "NDOC-env")
	N("NCCL_GRAPH_DUMP_FILE", "path", "unset", "Writes the searched rings/trees.", "2.x", "N:graph/search.cc")
	N("NCCL_GRAPH_FILE", "path", "unset", "Loads rings/trees instead of searching.", "2.x", "N:graph/search.cc")
	N("NCCL_PROTO", "LL, LL128, Simple; ^ excludes; 2.24+ per-function syntax", "auto", "Restricts protocols; forcing LL128 where unsupported can corrupt data.", "2.5", "NDOC-env")
	N("NCCL_ALGO", "Ring, Tree, CollnetDirect, CollnetChain, NVLS, NVLSTree, PAT; ^ excludes", "auto (2.24+: no implicit Ring fallback)", "Restricts algorithms.", "2.5", "NDOC-env")
	N("NCCL_MIN_NCHANNELS", "integer", "auto", "Lower bound on channels.", "2.5", "NDOC-env")
	N("NCCL_MAX_NCHANNELS", "integer", "auto", "Upper bound on channels.", "2.5", "NDOC-env")
	N("NCCL_MIN_CTAS", "integer", "auto", "Lower bound on CTAs (2.17 name of channels).", "2.17", "NDOC-env")
	N("NCCL_MAX_CTAS", "integer", "auto", "Upper bound on CTAs.", "2.17", "NDOC-env")
	N("NCCL_BUFFSIZE", "bytes", "4194304", "Buffer size per channel and peer; larger uses more GPU memory.", "<=2.3", "NDOC-env")
	N("NCCL_NTHREADS", "64, 128, 256, 512", "auto", "Threads per CTA.", "<=2.3", "NDOC-env")
	N("NCCL_P2P_USE_CUDA_MEMCPY", "1", "0", "P2P through the copy engine (log shows /CE).", "2.13", "N:transport/p2p.cc")
	N("NCCL_P2P_NET_CHUNKSIZE", "bytes", "131072", "Chunk size of P2P operations over the network.", "2.14", "NDOC-env, N:init.cc")
	N("NCCL_P2P_PCI_CHUNKSIZE", "bytes", "131072", "Chunk size of P2P operations over PCIe.", "2.16", "NDOC-env, N:init.cc")
	N("NCCL_P2P_NVL_CHUNKSIZE", "bytes", "524288", "Chunk size of P2P operations over NVLink.", "2.16", "NDOC-env, N:init.cc")
	N("NCCL_P2P_READ_ENABLE", "0 | 1", "auto: read on sm80 NVLink pairs", "P2P read instead of write.", "2.7", "N:transport/p2p.cc")
	N("NCCL_P2P_DIRECT_DISABLE", "1", "0", "No direct pointers between GPUs of one process.", "2.12", "NDOC-env")
	N("NCCL_IGNORE_DISABLED_P2P", "0 check NVML's P2P status; 1 silence the warning; 2 skip the NVML check", "0", "How NCCL treats NVML saying P2P is disabled.", "2.12", "N:graph/paths.cc")
	N("NCCL_NET_DISABLE_INTRA", "1", "0", "Never use the network between GPUs of one node.", "2.12", "N:graph/paths.cc")
	N("NCCL_NVB_DISABLE", "1", "0", "No P2P through an intermediate GPU (NVB path).", "2.11", "NDOC-env")
	N("NCCL_PXN_DISABLE", "1", "0", "No PXN (sending through a NIC of another GPU over NVLink).", "2.12", "NDOC-env")
	N("NCCL_P2P_PXN_LEVEL", "0, 1, 2", "2", "When PXN is used.", "2.12", "NDOC-env")
	N("NCCL_CROSS_NIC", "0 | 1 | 2", "2", "Whether rings/trees may use different NICs on different nodes.", "2.5", "NDOC-env")
	N("NCCL_NET_GDR_LEVEL", "LOC, PIX, PXB, PHB, SYS (like NCCL_P2P_LEVEL)", "auto", "GPUDirect RDMA used only when the GPU-NIC path is at most this level; LOC disables it.", "2.3.4", "NDOC-env")
	N("NCCL_IB_GDR_LEVEL", "as NCCL_NET_GDR_LEVEL", "auto", "Old name of NCCL_NET_GDR_LEVEL.", "2.3.4", "NDOC-env")
	N("NCCL_NET_GDR_READ", "0 | 1", "auto", "GPUDirect RDMA for sends (reads from GPU memory).", "2.4", "NDOC-env")
	N("NCCL_DMABUF_ENABLE", "0 | 1", "1", "DMA-BUF for GPUDirect RDMA (open driver, no nvidia-peermem).", "2.13", "NDOC-env")
	N("NCCL_LAUNCH_MODE", "PARALLEL | GROUP", "PARALLEL", "How kernels of a multi-GPU process are launched.", "2.1", "NDOC-env")
	N("NCCL_SET_STACK_SIZE", "1", "0", "Presets the CUDA kernel stack size; avoids a reconfiguration hang.", "2.9", "NDOC-env")
	N("NCCL_LAUNCH_ORDER_IMPLICIT", "1", "0", "Orders operations of different communicators by host order; avoids cross-communicator deadlocks.", "2.26", "NDOC-env")
	N("NCCL_IPC_USE_ABSTRACT_SOCKET", "0 | 1", "1", "0 uses filesystem UNIX sockets in /tmp for cuMem handle passing: works across network namespaces that share /tmp.", "2.29", "NDOC-env")
	N("NCCL_MULTI_RANK_GPU_ENABLE", "1", "0", "Allows several ranks on one GPU.", "2.30", "NDOC-env")
	N("NCCL_RUN_DIAGNOSTICS", "1", "0", "At init, writes and reads each eligible GPU pair and names a failing pair (report only).", "2.31", "NCCL 2.31 docs")
	N("NCCL_SOCKET_RETRY_CNT", "integer", "34", "Socket connection retries (linear back-off, about 60 s in all).", "2.24", "NDOC-env")
	N("NCCL_SOCKET_RETRY_SLEEP_MSEC", "milliseconds", "100", "Back-off step between socket retries.", "2.24", "NDOC-env")
	N("NCCL_IB_TIMEOUT", "integer (4.096 us * 2^n)", "20 since 2.23; 18 in 2.14-2.22; 14 before", "InfiniBand verbs timeout.", "<=2.3", "NDOC-env")
	N("NCCL_IB_RETRY_CNT", "integer", "7", "InfiniBand retry count.", "<=2.3", "NDOC-env")
	N("NCCL_PROXY_DUMP_SIGNAL", "signal number, e.g. 10 (SIGUSR1)", "unset", "On that signal NCCL dumps its proxy state: shows which peer a stuck rank waits for.", "2.14", "N:proxy.cc")
	N("NCCL_RAS_ENABLE", "0 | 1", "1", "RAS subsystem: reports INIT/RUNNING, mismatched operation counts, dead ranks (query with ncclras).", "2.24", "NDOC-ras")
	N("NCCL_RAS_ADDR", "host:port", "localhost:28028", "Where the RAS service listens (`echo verbose status | nc localhost 28028`).", "2.24", "NDOC-ras")
	N("NCCL_CONF_FILE", "path", "unset (~/.nccl.conf, then /etc/nccl.conf)", "A user configuration file of VAR=value lines; the environment takes precedence over it, and it over /etc/nccl.conf.", "2.23", "N:misc/param.cc, NDOC-env")
	A("CUDA_VISIBLE_DEVICES", "cuda", "indices, GPU- or MIG- UUIDs, comma separated", "unset (all GPUs)", "Which GPUs a process sees and in which order; an invalid entry hides every GPU after it.", "CUDA-env")
	A("CUDA_DEVICE_ORDER", "cuda", "FASTEST_FIRST | PCI_BUS_ID", "FASTEST_FIRST", "CUDA ordinal order; PCI_BUS_ID matches nvidia-smi.", "CUDA-env")
	A("TORCH_NCCL_ASYNC_ERROR_HANDLING", "pytorch", "0-3", "3", "What PyTorch does when its watchdog sees a NCCL error or timeout.", "PT-env")
	A("TORCH_NCCL_BLOCKING_WAIT", "pytorch", "0 | 1", "0", "Blocking wait with the process group's timeout.", "PT-env")
	A("TORCH_NCCL_ENABLE_MONITORING", "pytorch", "0 | 1", "1", "The heartbeat monitor that kills a stuck watchdog.", "PT-env")
	A("TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC", "pytorch", "seconds", "480", "How long the monitor waits for the watchdog.", "PT-env")
	A("TORCH_NCCL_DUMP_ON_TIMEOUT", "pytorch", "0 | 1", "0", "Dumps the flight recorder on a timeout (with TORCH_NCCL_TRACE_BUFFER_SIZE).", "PT-env")
	A("TORCH_NCCL_TRACE_BUFFER_SIZE", "pytorch", "entries", "0 (off)", "Size of the flight recorder of collectives.", "PT-env")
	A("TORCH_NCCL_DESYNC_DEBUG", "pytorch", "0 | 1", "0", "Reports which rank is out of step on a timeout.", "PT-env")
	A("TORCH_DISTRIBUTED_DEBUG", "pytorch", "OFF, INFO, DETAIL", "OFF", "Extra checks of collective calls across ranks. PyTorch's watchdog cannot see a hang inside communicator init (pytorch#88103).", "PT-env")
	A("VLLM_SKIP_P2P_CHECK", "vllm", "0 | 1", "vLLM version dependent", "Skips vLLM's own P2P test and trusts the driver's report (log: \"Skipping P2P check and trusting the driver's P2P report\"); the custom all-reduce then relies on P2P that may not work.", "vLLM docs")
	A("VLLM_HOST_IP", "vllm", "IP address", "auto", "Address vLLM advertises to its workers.", "vLLM docs")
	A("GLOO_SOCKET_IFNAME", "gloo", "interface name", "auto", "Interface of the gloo process group (PyTorch/vLLM CPU-side collectives).", "PT-env")
};

const struct nccl_env_def *kb_nccl_envs(size_t *n)
{
	*n = sizeof(envs) / sizeof(envs[0]);
	return envs;
}

const struct nccl_env_def *kb_nccl_env(const char *name)
{
	for (size_t i = 0; i < sizeof(envs) / sizeof(envs[0]); i++)
		if (strcasecmp(envs[i].name, name) == 0)
			return &envs[i];
	return NULL;
}
