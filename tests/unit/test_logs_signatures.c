/* Unit tests of the NCCL log signature table (kb/nccl_signatures.c): one line
 * per signature in the real format of the NCCL (or PyTorch, vLLM, kernel)
 * version it belongs to, fed through the log reader; each must raise exactly
 * its own row. Every row of the table must have a test line here. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "analyze/nccllog.h"
#include "kb/findings.h"
#include "kb/causes.h"
#include "kb/nccl_signatures.h"
#include "kb/rm_status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sigcase {
	const char *id;
	const char *version; /* which version prints it, for the reader */
	const char *line;
};

#define H "node1:4242:4242 [0] NCCL INFO "
#define W25(src) "node1:4242:4242 [0] " src " NCCL WARN "
#define W26(src) "[2025-05-01 10:00:00] node1:4242:4242 [0] " src " NCCL WARN "
#define W30(src, fn) "[2026-03-01 10:00:00] node1:4242:4242 [0] " src " (" fn ") NCCL WARN "

static const struct sigcase cases[] = {
	{ "S05", "2.28.9 (real H200)", W26("bootstrap.cc:114") "Bootstrap : no socket interface found" },
	{ "S05", "2.19", W25("transport/net_socket.cc:46") "NET/Socket : no interface found" },
	{ "S05c", "2.28.9 (real H100, NCCL_COMM_ID=10.255.255.1:23456)", W26("bootstrap.cc:108") "NET/Socket : No usable listening interface found" },
	{ "S06", "2.x", W25("bootstrap.cc:90") "Invalid NCCL_COMM_ID, please use format: <ipv4>:<port> or [<ipv6>]:<port> or <hostname>:<port>" },
	{ "S07b", "2.27", W26("misc/socket.cc:620") "socketPollConnect: connect to 10.0.0.2<41235> exceeded error retry count after 35 attempts" },
	{ "S07b", "2.18", W25("misc/socket.cc:480") "socketStartConnect: exceeded retries (20000)" },
	{ "S07c", "2.13+", W25("misc/socket.cc:503") "socketPollConnect: Connect to 10.1.1.2<43223> failed : Software caused connection abort" },
	{ "S07a", "2.27", H "socketPollConnect: connect to 10.0.0.2<41235> returned Connection refused, retrying (3/34) after sleep for 300 msec" },
	{ "S07a", "2.23", H "Call to connect returned Connection refused, retrying" },
	{ "S10", "2.30", W30("misc/socket.cc:410", "socketFinalizeAccept") "socket magic mismatch (peer 0x1234 != expected 0x5678), discarding peer connection" },
	{ "S10", "2.26", W26("misc/socket.cc:400") "socketFinalizeAccept: wrong magic 1234 != 5678" },
	{ "S11", "2.x", W25("bootstrap.cc:323") "Bootstrap Root : mismatch in rank count from procs 8 : 16" },
	{ "S08", "2.21", W25("misc/socket.cc:538") "socketProgress: Connection closed by remote peer node2<42830>" },
	{ "S09", "2.21", W25("misc/socket.cc:49") "socketProgressOpt: Call to recv from 10.0.0.3<52345> failed : Connection reset by peer" },
	{ "S09", "2.30", W30("misc/socket.cc:58", "ncclOsSocketProgressOpt") "Call to send to 10.0.0.3<52345> failed : Broken pipe" },
	{ "S65", "2.19", W25("proxy.cc:1496") "[Proxy Service 3] Failed to execute operation Connect from rank 3, retcode 3" },
	{ "S65b", "2.19", W25("proxy.cc:1100") "Socket recv failed while polling for opId=0x7f2c" },
	{ "S20", "2.27", W26("net.cc:1044") "Failed to initialize any NET plugin" },
	{ "S63", "2.21", W25("transport/net_ib.cc:1696") "NET/IB : Got completion from peer 10.0.0.12<54021> with error 12, opcode 32541, len 0, vendor err 129 (Recv)" },
	{ "S64", "2.23+", W25("transport/net_ib.cc:120") "NET/IB : mlx5_0:1 async fatal event: local catastrophic error" },
	{ "S21", "2.13+", H "NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module or not supported by GPU)" },
	{ "S23b", "2.6+", W25("graph/xml.cc:540") "Could not open XML topology file /opt/topo.xml : No such file or directory" },
	{ "S23b", "2.28.9 (real H100, an INFO)", H "Could not open XML topology file /nonexistent/topo.xml : No such file or directory" },
	{ "S23g", "2.6+", W25("graph/xml.cc:790") "Could not open XML graph file /opt/graph.xml : No such file or directory" },
	{ "S66t", "2.28.9 (real H100, NCCL_ALGO=Rign)", W26("graph/tuning.cc:104") "Unrecognized element token \"Rign\" when parsing \"Rign\"" },
	{ "SHM02", "CPython 3.12 (case 419)", "FileNotFoundError: [Errno 2] No such file or directory: '/psm_dee74a05'" },
	{ "SHM03", "CPython (case 420)", "    self._semlock = _multiprocessing.SemLock._rebuild(*state)" },
	{ "PT21", "PyTorch 2.x", "  File \"/usr/lib/python3.10/site-packages/torch/cuda/__init__.py\", line 478, in set_device" },
	{ "VL08", "vLLM (case 394)", "(EngineCore_DP0 pid=570282) AssertionError: local_world_size (16) must be less than or equal to the number of visible devices (8)." },
	{ "PT22", "PyTorch 1.x (case 414)", "ValueError: host not found: Temporary failure in name resolution" },
	{ "PT22b", "PyTorch 1.x (cases 493, 494)", "ValueError: host not found: Name or service not known" },
	{ "PT22c", "PyTorch 1.x", "ValueError: host not found: No address associated with hostname" },
	{ "S63w", "2.28 (case 510, the paste cut 'from peer')", W25("transport/net_ib.cc:1700") "NET/IB: Got completion ... status=IBV_WC_LOC_PROT_ERR(4) opcode=IBV_WC_SEND(0) vendor_err=81 hca mlx5_2" },
	{ "S21v", "2.11+ (an INFO)", H "Failed to open libibverbs.so[.1]" },
	{ "S53g", "2.27 (case 502)", W25("misc/strongstream.cc:378") "Cuda failure 'operation failed due to a previous error during capture'" },
	{ "S53g", "PyTorch", "RuntimeError: CUDA error: operation not permitted when stream is capturing" },
	{ "S53c", "PyTorch", "RuntimeError: CUDA error: capturing stream has unjoined work" },
	{ "PT16s", "PyTorch 2.11 (H100 capture shm-tiny)", "[rank0]: RuntimeError: unable to allocate shared memory(shm) for file </torch_1069_2848542119_0>: Resource temporarily unavailable (11)" },
	{ "S53z", "2.28.9 (H100 capture device-assert, a WARN)", W25("misc/strongstream.cc:131") "Cuda failure 'device-side assert triggered'" },
	{ "GL05", "Gloo (case 500)", "RuntimeError: Application timeout caused pair closure" },
	{ "GL05", "Gloo (case 500)", "[.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 1800000ms for recv operation to complete" },
	{ "ZMQ01", "pyzmq", "zmq.error.ZMQError: Address already in use (addr='tcp://10.0.0.1:5557')" },
	{ "ZMQ02", "pyzmq 27", "  File \"/usr/local/lib/python3.12/dist-packages/zmq/sugar/socket.py\", line 320, in bind" },
	{ "S23", "2.x", H "Could not find real path of /sys/class/net/ib0/device" },
	{ "S23t", "2.18.5 (nccl#1008)", H "Loading topology file /opt/microsoft/ncv4/topo.xml" },
	{ "S23u", "2.18 (nccl#1125)", H "Topology detection: network path /sys/devices/pci0000:2b/0000:2b:08.1/0000:2e:00.3/usb1/1-1/1-1.2/1-1.2:2.0 is not a PCI device (usb). Attaching to first CPU" },
	{ "S23u", "2.28", H "Topology detection: network path (name = usb0) /sys/devices/pci0000:00/0000:00:14.0/usb1/1-2 is not a PCI device (usb). Attaching to first CPU" },
	{ "S24", "2.28.9 (real H200)", H "ncclTopoGetCpuAffinity: Affinity for GPU 0 is empty, ignoring. (GPU affinity =  ; CPU affinity = 0-15)." },
	{ "S28", "2.12+", W25("graph/paths.cc:320") "P2P is disabled between NVLINK connected GPUs 1 and 0. This should not be the case given their connectivity, and is probably due to a hardware issue. If you still want to proceed, you can set NCCL_IGNORE_DISABLED_P2P=1." },
	{ "S27", "2.12+", W25("graph/paths.cc:330") "P2P is disabled between connected GPUs 1 and 0. You can repress this message with NCCL_IGNORE_DISABLED_P2P=1." },
	{ "S61", "2.x", W25("graph/rings.cc:42") "Error : ring 0 does not loop back to start (5 != 0)" },
	{ "S30b", "2.x", H "Invalid value pxb for NCCL_P2P_LEVEL, using default" },
	{ "IB07", "2.7", W25("include/ibvwrap.h:1090") "ibv_post_send() failed with error No such device" },
	{ "IB07t", "2.7.8 (issue title)", "failed with error No such device --NCCL 2.7.8" },
	{ "S33n", "2.6", H "Pattern 4, crossNic 0, nChannels 1, speed 21.000000/21.000000, type NVL/PIX, sameChannels 1" },
	{ "S33n", "2.19", H "Pattern 4, crossNic 0, nChannels 16, bw 40.000000/40.000000, type NVL/NVL, sameChannels 1" },
	{ "LD02", "vLLM 0.4 (issue title)", "[Bug]: bus error when Loading nccl from library /root/.config/vllm/nccl/cu12/libnccl.so.2.18.1" },
	{ "LD02", "vLLM 0.5+", "INFO 07-22 03:07:02 utils.py:918] Found nccl from library libnccl.so.2 ... bus error" },
	{ "NT01", "nccl-tests with NCCL 1", "# NCCL Tests compiled with NCCL 1.0" },
	{ "LB01", "pip / collect_env", "[pip3] nvidia-nccl-cu12==2.27.3" },
	{ "LB01", "ls -l", "lrwxrwxrwx 1 root root 17 Sep 10  2024 /usr/lib/x86_64-linux-gnu/libnccl.so.2 -> libnccl.so.2.23.4" },
	{ "VM01", "Linux dmesg", "[    0.000000] Hypervisor detected: KVM" },
	{ "VM01", "lscpu", "Hypervisor vendor:                KVM" },
	{ "VM01", "nvidia-smi -q", "    Virtualization Mode                   : Pass-Through" },
	{ "S72i", "2.14", W25("transport/net_ib.cc:1038") "NET/IB : req 0/1 tag 0 peer 10.10.23.6<58683> collective mismatch error, local size 496640 remote size 65536" },
	{ "S72i", "2.4 (pasted)", "Run multi-worker with nccl error: NET/IB : collective mismatch error" },
	{ "S51", "2.20", W25("misc/shmutils.cc:72") "Error: failed to extend /dev/shm/nccl-p4Q2xK to 9637892 bytes" },
	{ "S51", "2.26", W26("misc/shmutils.cc:80") "Error: failed to extend /dev/shm/nccl-03v824 to 33030148 bytes, error: No space left on device (28)" },
	{ "S52b", "2.x", W25("misc/shmutils.cc:140") "unlink shared memory /dev/shm/nccl-abc failed, error: No such file or directory" },
	{ "S52", "2.20", W25("misc/shmutils.cc:113") "Error while creating shared memory segment /dev/shm/nccl-p4Q2xK (size 9637888)" },
	{ "S50", "2.26.3+", H "cuMem host allocations do not appear to be working; falling back to a /dev/shm/ based implementation. This could be due to the container runtime disabling NUMA support. To disable this warning, set NCCL_CUMEM_HOST_ENABLE=0" },
	{ "S53n", "2.19", W25("transport/nvls.cc:113") "Cuda failure 1 'invalid argument'" },
	{ "S63", "2.9", W25("transport/net_ib.cc:1100") "NET/IB : Got completion with error 12, opcode 0, len 0, vendor err 129" },
	{ "S72", "2.x", W25("transport/net_socket.cc:410") "NET/Socket : peer 10.0.0.2<41877> message truncated : receiving 1048576 bytes instead of 65536" },
	{ "S73", "2.x", W25("misc/argcheck.cc:31") "AllReduce : invalid root 4 (root should be in the 0..4 range)" },
	{ "S73", "2.x", W25("init.cc:1700") "Invalid rank requested : 3/2" },
	{ "S74", "2.19", W25("misc/cudawrap.cc:188") "Failed to find CUDA library libcuda.so (NCCL_CUDA_PATH='') : libcuda.so: cannot open shared object file" },
	{ "S53m", "2.21", W25("transport/p2p.cc:189") "Cuda failure 'out of memory'" },
	{ "S53p", "2.30", W30("transport/shm.cc:482", "shmAllocateCuMemHost") "Cuda failure 1 'peer access is not supported between these two devices'" },
	{ "S53f", "2.19", W25("transport/nvls.cc:100") "Cuda failure 802 'system not yet initialized'" },
	{ "S53d", "2.x", W25("init.cc:1600") "Cuda failure 'invalid device ordinal'" },
	{ "S53i", "2.x", W25("enqueue.cc:1500") "Cuda failure 'an illegal memory access was encountered'" },
	{ "S53i", "PyTorch", "RuntimeError: CUDA error: an illegal memory access was encountered" },
	{ "S53k", "2.x", W25("enqueue.cc:1500") "Cuda failure 'unspecified launch failure'" },
	{ "CS01", "compute-sanitizer (llama.cpp#24489)", "========= Invalid __global__ write of size 16 bytes" },
	{ "CS01", "cuda-memcheck", "========= Invalid __global__ read of size 8" },
	{ "S53f", "JAX", "RuntimeError: cuInit failed: CUDA_ERROR_SYSTEM_NOT_READY" },
	{ "S53x", "2.x", W25("transport/p2p.cc:200") "Cuda failure 'peer mapping resources exhausted'" },
	{ "S62", "2.27+", W26("transport/nvls.cc:150") "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 1073741824 : CUDA error 1 'invalid argument'" },
	{ "S53", "2.x", W25("init.cc:300") "Cuda failure 'initialization error'" },
	{ "S55l", "2.x", W25("transport/p2p.cc:400") "Legacy IPC not supported" },
	{ "S54", "2.5+", W25("transport/p2p.cc:280") "failed to peer with device 1(=1c000): 704 peer access is already enabled" },
	{ "S54c", "2.5+", "gpu1:454:838 [0] NCCL INFO Could not enable P2P between dev 1(=1c000) and dev 0(=1b000)" },
	{ "S54c", "2.5+", "gpu1:454:838 [0] NCCL INFO peer query failed between dev 1(=1c000) and dev 0(=1b000)" },
	{ "S56", "2.19", W25("misc/ipcsocket.cc:138") "UDS: Sending data over socket /tmp/nccl-socket-1-0b3f9a failed : Connection refused (111)" },
	{ "S56b", "2.19", W25("misc/ipcsocket.cc:190") "UDS: Receiving data over socket /tmp/nccl-socket-0-ab12 failed : Connection reset by peer (104)" },
	{ "S57", "2.12+", W25("transport.cc:60") "No transport found for rank 0[1b000] -> rank 1[1c000]" },
	{ "S59", "2.28.9 (real H200)", W26("init.cc:904") "Duplicate GPU detected : rank 0 and rank 1 both on CUDA device 60" },
	{ "S59", "2.30", W30("init.cc:910", "checkDuplicateGpus") "Multiple Ranks are using the same GPU/Partition: rank 0 and rank 1 both on CUDA device 60" },
	{ "S60", "2.23+", W25("init.cc:700") "Mismatched NCCL version detected : rank 0 version 22304 rank 1 version 22105" },
	{ "S66", "2.24+", W26("enqueue.cc:1800") "No algorithm/protocol available for function AllReduce with datatype ncclFloat32. NCCL_ALGO was set to Tree." },
	{ "S67", "2.26+", W26("enqueue.cc:2000") "Fatal: host threads racing to launch NCCL on same device." },
	{ "S71", "2.24+", W25("ras/ras.cc:300") "RAS failed to establish a client listening socket at localhost<28028>" },
	{ "S69", "2.x", H "comm 0x5601f2a0 rank 0 nranks 4 cudaDev 0 busId 1b000 - Abort COMPLETE" },
	{ "S68r", "PyTorch + NCCL 2.21", "[rank0]: torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, remote process exited or there was a network error, NCCL version 2.21.5" },
	{ "S68", "PyTorch + NCCL 2.20", "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)" },
	{ "S68b", "PyTorch 2.x", "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, ncclSomethingNew" },
	{ "PT01", "PyTorch 2.x", "[rank1]:[E1218 20:27:21.433063423 ProcessGroupNCCL.cpp:632] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, NumelIn=131072000, NumelOut=131072000, Timeout(ms)=600000) ran for 600088 milliseconds before timing out." },
	{ "PT02", "PyTorch 2.x", "[rank0]:[E ProcessGroupNCCL.cpp:1316] [PG 0 Rank 0] Heartbeat monitor timed out! Process will be terminated after dumping debug info. workMetaList_.size()=1 Some NCCL operations have failed or timed out." },
	{ "PT03", "PyTorch 2.x", "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 3 has a total capacity of 79.15 GiB of which 1.06 GiB is free." },
	{ "PT04", "PyTorch 2.x", "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 1/2 clients joined." },
	{ "PT05s", "PyTorch 2.11", "[rank0]:[W1206 19:59:03.587502114 socket.cpp:469] [c10d] waitForInput: poll for socket SocketImpl(fd=54, addr=[localhost]:36334, remote=[localhost]:29761) returned 0, likely a timeout" },
	{ "PT05s", "PyTorch 2.11", "[rank0]:[W1206 19:59:03.587727422 socket.cpp:494] [c10d] waitForInput: socket SocketImpl(fd=54, addr=[localhost]:36334, remote=[localhost]:29761) timed out after 10002ms" },
	{ "JX02", "JAX / XLA", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: RET_CHECK failure (external/org_tensorflow/tensorflow/compiler/xla/service/gpu/gpu_executable_run_options.cc:75) 0 <= local_device_ordinal && local_device_ordinal < gpu_global_device_ids->size()" },
	{ "PT05", "PyTorch 2.x", "RuntimeError: Timed out after 300 seconds waiting for clients. 3/4 clients joined." },
	{ "PT06", "torchrun", "  exitcode  : -9 (pid: 2345)" },
	{ "PT07", "PyTorch 2.x", "[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Connection reset by peer" },
	{ "PT08", "PyTorch 2.x", "RuntimeError: NCCL communicator was aborted on rank 3." },
	{ "PT09", "PyTorch", "RuntimeError: The NVIDIA driver on your system is too old. CUDA driver version is insufficient for CUDA runtime version" },
	{ "PT10", "PyTorch", "RuntimeError: CUDA error: no CUDA-capable device is detected" },
	{ "PT10", "PyTorch", "RuntimeError: No CUDA GPUs are available" },
	{ "PT20", "PyTorch", "[rank0]:[W205 18:00:34.953145631 ProcessGroupNCCL.cpp:1538] Warning: WARNING: destroy_process_group() was not called before program exit, which can leak resources." },
	{ "S53o", "NCCL 2.26", "node1:9:9 [0] transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid argument'" },
	{ "SK01", "NCCL 2.2x", "ncclOsSocketTryAccept: Accept failed: Too many open files" },
	{ "OF02", "aws-ofi-nccl 1.1x", "[2025-10-16 22:16:08] ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available" },
	{ "PT05w", "PyTorch 1.x", "I0510 07:28:04.417845 139863945226048 distributed_c10d.py:337] Waiting in store based barrier to initialize process group for rank: 2, key: store_based_barrier_key:2 (world_size=8, worker_count=7, timeout=0:30:00)" },
	{ "PT05w", "PyTorch 2.x", "INFO:torch.distributed.distributed_c10d:Waiting in store based barrier to initialize process group for rank: 1, key: store_based_barrier_key:1 (world_size=4, num_workers_joined=3, timeout=0:30:00)" },
	{ "PT05w", "PyTorch 2.11 (DEBUG)", "[rank0]:V1206 20:09:52.694000 520 torch/distributed/distributed_c10d.py:1009] Waiting in store based barrier to initialize process group for 10.04434323310852 secondsrank: 0, key: store_based_barrier_key:0 (world_size=2, num_workers_joined=1, timeout=0:02:00 error=wait timeout after 10002ms, keys: /store_based_barrier_key:0:last_worker)" },
	{ "PT05w", "PyTorch 1.x", "INFO:torch.distributed.distributed_c10d:Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 2 nodes." },
	{ "PT05b", "PyTorch 1.x", "RuntimeError: Timed out initializing process group in store based barrier on rank: 0, for key: store_based_barrier_key:1 (world_size=2, worker_count=1, timeout=0:30:00)" },
	{ "JX01", "JAX 0.4", "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: PjRT_Client_Connect. Timed out task names: /job:jax_worker/replica:0/task:1" },
	{ "HV02", "Horovod 0.2x", "[2023-01-01 00:00:00.000000: W /tmp/pip-install/horovod/common/stall_inspector.cc:107] One or more tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds." },
	{ "X05", "Open MPI 4", "mpirun noticed that process rank 3 with PID 0 on node node2 exited on signal 9 (Killed)." },
	{ "X06", "Slurm", "slurmstepd: error: *** STEP 1234.0 ON node1 CANCELLED AT 2024-01-01T00:00:00 DUE TO TIME LIMIT ***" },
	{ "PT10b", "CUDA 10-11 text", "RuntimeError: CUDA error: all CUDA-capable devices are busy or unavailable" },
	{ "S53a", "PyTorch", "RuntimeError: CUDA error: misaligned address" },
	{ "S53a", "NCCL 2.x", "h:1:2 [0] enqueue.cc:1 NCCL WARN Cuda failure 'an illegal instruction was encountered'" },
	{ "S53l", "NCCL 2.x", "h:1:2 [0] enqueue.cc:1 NCCL WARN Cuda failure 'uncorrectable NVLink error was detected during the execution'" },
	/* host facts of a paste (kb/nccl_signatures_host.def) */
	{ "ACS01", "lspci -vvv", "\t\tACSCtl:\tSrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-" },
	{ "IOM01", "Linux dmesg", "[    0.401234] iommu: Default domain type: Translated " },
	{ "IOM01", "Linux dmesg, command line", "[    0.401234] iommu: Default domain type: Translated (set via kernel command line)" },
	{ "VM02", "nvidia-smi -q", "    Virtualization Mode                   : VGPU" },
	{ "VM03", "Linux dmesg", "[    0.000000] DMI: QEMU Standard PC (Q35 + ICH9, 2009), BIOS rel-1.16.0-0-gd239552ce722-prebuilt.qemu.org 04/01/2014" },
	{ "VM03", "dmidecode", "\tProduct Name: VMware Virtual Platform" },
	{ "IBV01", "rdma-core", "libibverbs: Warning: couldn't load driver 'libmlx5-rdmav34.so': libmlx5-rdmav34.so: cannot open shared object file: No such file or directory" },
	{ "IBV02", "ibv_devinfo", "No IB devices found" },
	{ "MEM01", "bash ulimit -a", "max locked memory           (kbytes, -l) 8192" },
	{ "BN01", "Python", "socket.gaierror: [Errno -2] Name or service not known" },
	{ "BN02", "ssh", "ssh: connect to host node2 port 22: No route to host" },
	{ "PIP01", "pip", "torch 2.1.0 requires nvidia-nccl-cu12==2.18.1; platform_system == \"Linux\" and platform_machine == \"x86_64\", but you have nvidia-nccl-cu12 2.19.3 which is incompatible." },
	{ "LIB01", "Python", "OSError: libnccl.so.2: cannot open shared object file: No such file or directory" },
	{ "SMI01", "nvidia-smi", "| N/A   ERR!   P0    ERR! /  400W |  80000MiB / 81920MiB |     0%      Default |" },
	{ "LN01", "torchrun", "torchrun --nnodes=2 --nproc_per_node=8 --rdzv_endpoint=10.0.0.1:29500 train.py" },
	{ "LN01", "deepspeed", "deepspeed --num_nodes 2 --num_gpus 8 --hostfile hostfile train.py" },
	{ "LN02", "Slurm", "#SBATCH --nodes=4" },
	{ "LN02", "Slurm environment", "SLURM_NNODES=2" },
	{ "S52f", "NCCL 2.4", "include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on device" },
	{ "DRV01", "nvidia-smi", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running." },
	{ "OMP01", "Open MPI 4", "ORTE was unable to reliably start one or more daemons." },
	{ "OMP01", "Open MPI 5", "PRTE was unable to reliably start one or more daemons." },
	{ "OMP02", "Open MPI 4", "An ORTE daemon has unexpectedly failed after launch and before" },
	{ "OMP03", "Open MPI 5", "PRTE has lost communication with a remote daemon." },
	{ "OMP04", "Open MPI btl tcp", "WARNING: Open MPI accepted a TCP connection from what appears to be a" },
	{ "OMP05", "Open MPI bml r2", "At least one pair of MPI processes are unable to reach each other for MPI communications." },
	{ "OMP06", "Open MPI ess base", "but OMPI was not built with SLURM's PMI support and therefore cannot" },
	{ "SSH01", "OpenSSH", "Host key verification failed." },
	{ "SSH02", "OpenSSH 9", "root@node2: Permission denied (publickey)." },
	{ "SSH03", "OpenSSH", "ssh: connect to host node2 port 2222: Connection refused" },
	{ "SSH04", "OpenSSH", "ssh: Could not resolve hostname worker-1: Temporary failure in name resolution" },
	{ "PDSH01", "pdsh (DeepSpeed)", "node1: pdsh@node1: node2: ssh exited with exit code 255" },
	{ "SLM01", "Slurm srun", "srun: error: gpu-node-07: task 3: Out Of Memory" },
	{ "SLM02", "Slurm 23", "slurmstepd: error: Detected 1 oom_kill event in StepId=4242.0. Some of the step tasks have been OOM Killed." },
	{ "SLM02", "Slurm 20", "Some of your processes may have been killed by the cgroup out-of-memory handler." },
	{ "LIB02", "Python", "ImportError: libcudart.so.11.0: cannot open shared object file: No such file or directory" },
	{ "LIB02", "Python", "OSError: libcublas.so.12: cannot open shared object file: No such file or directory" },
	{ "PT15", "PyTorch DataLoader", "RuntimeError: DataLoader worker (pid 4242) is killed by signal: Bus error. It is possible that dataloader's workers are out of shared memory. Please try to raise your shared memory limit." },
	{ "PT16", "PyTorch MapAllocator", "RuntimeError: unable to write to file </torch_4242_1853749251_0>: No space left on device (28)" },
	{ "SHM01", "Python", "OSError: [Errno 28] No space left on device: '/dev/shm/psm_5f2c'" },
	{ "NB02", "PyTorch", "AssertionError: Torch not compiled with CUDA enabled" },
	{ "RY03", "Ray", "[2025-03-24 10:00:00,123 W 4242 4242] gcs_rpc_client.h:151: Failed to connect to GCS at address 192.168.2.40:6379 within 5 seconds." },
	{ "RY04", "Ray", "(raylet) The node with node id: 5f2c and address: 10.0.0.2 and node name: 10.0.0.2 has been marked dead because the detector has missed too many heartbeats from it." },
	{ "GL04", "PyTorch Gloo", "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:799] connect [127.0.1.1]:46571: Connection refused" },
	{ "SZ01", "Ray", "2023-06-30 09:24:53,459 WARNING services.py:1826 -- WARNING: The object store is using /tmp instead of /dev/shm because /dev/shm has only 67108864 bytes available." },
	{ "PT07t", "PyTorch 2.x", "[7] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Socket Timeout" },
	{ "TCPX01", "GPUDirect-TCPXO RxDM", "Number of GPUs detected in the PCI tree 7 is not equal to the actual number of GPUs reported by CUDA 8." },
	{ "PT07w", "PyTorch 2.11 (H100 capture)", "[rank1]: torch.distributed.DistBackendError: [1] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: wait timeout after 20000ms, keys: /default_pg/0//cuda//0" },
	{ "NB01r", "TensorFlow", "tensorflow.python.framework.errors_impl.NotFoundError: No registered 'NcclAllReduce' OpKernel for 'GPU' devices compatible with node {{node NcclAllReduce}}" },
	{ "NB01p", "Paddle on Windows", "AttributeError: module 'paddle.base.libpaddle' has no attribute 'ProcessGroupNCCL'" },
	{ "NB01p", "PyTorch without NCCL", "ImportError: cannot import name 'ProcessGroupNCCL' from 'torch._C._distributed_c10d' (unknown location)" },
	{ "SMI02", "nvidia-smi", "Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error" },
	{ "SMI02", "nvidia-smi", "Unable to determine the device handle for GPU 0000:B1:00.0: GPU is lost.  Reboot the system to recover this GPU" },
	{ "HAMI01", "HAMi-core", "[HAMI-core Debug(15563:140264054912576:event.c:97)]: Hijacking cuFuncGetAttribute" },
	{ "HAMI02", "the kernel", "[1835488.737042] python[3864703]: segfault at 0 ip 00007efeb76ad8a2 sp 00007ffd19dc5450 error 4 in libvgpu.so[7efeb767e000+38000]" },
	{ "DOCK01", "Docker", "docker: Error response from daemon: could not select device driver \"\" with capabilities: [[gpu]]." },
	{ "LDR01", "glibc ld.so", "OSError: /usr/lib/libnccl.so.2: wrong ELF class: ELFCLASS32" },
	{ "NB01", "PyTorch source line", "    raise RuntimeError(\"Distributed package doesn't have NCCL \" \"built in\")" },
	{ "NB01", "TensorFlow", "No OpKernel was registered to support Op 'NcclAllReduce' used by {{node NcclAllReduce}} with these attrs: [reduction=\"sum\", T=DT_FLOAT, num_devices=2]" },
	{ "UCX01", "UCX", "[1700000000.123456] [node1:1234:0]        mm_iface.c:123  UCX  ERROR mm_iface failed to allocate receive FIFO" },
	{ "PT14", "PyTorch 2.11", "[rank0]: RuntimeError: No backend type associated with device type cpu" },
	{ "SZ01", "coreutils df -h", "shm              64M     0   64M   0% /dev/shm" },
	{ "SZ01", "docker run", "docker run --gpus all --shm-size=64m -it img" },
	{ "SZ01", "compose", "    shm_size: '2gb'" },
	{ "PT04b", "PyTorch 1.x", "RuntimeError: Socket Timeout" },
	{ "PT04b", "PyTorch 1.x", "RuntimeError: Address already in use" },
	{ "GL02", "PyTorch + Gloo", "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != nullptr. Unable to find address for: eth0" },
	{ "PT23", "PyTorch TCPStore", "[rank30]:[W111 00:54:10.905768298 TCPStore.cpp:125] [c10d] recvValue failed on SocketImpl(fd=99, addr=[::ffff:10.0.0.2]:38760, remote=[::ffff:10.0.0.1]:42643): Failed to recv, got 0 bytes. Connection was likely closed. Did the remote server shutdown or crash?" },
	{ "GL03", "PyTorch + Gloo", "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.2]:1234" },
	{ "PT10c", "PyTorch", "torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED at \"../aten/src/ATen/cuda/CUDAContext.cpp\":50" },
	{ "PT09c", "PyTorch", "UserWarning: CUDA initialization: The NVIDIA driver on your system is too old (found version 11040). Please update your GPU driver" },
	{ "PT09b", "CUDA runtime", "h:1:2 [0] enqueue.cc:1 NCCL WARN Cuda failure 'the provided PTX was compiled with an unsupported toolchain.'" },
	{ "PT09c", "nvidia-container-cli", "docker: Error response from daemon: failed to create task for container: nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.4, please update your driver to a newer version, or use an earlier cuda container: unknown." },
	{ "ML01", "nvidia-smi", "Failed to initialize NVML: Driver/library version mismatch" },
	{ "S53t", "NCCL 2.x", "h:1:2 [0] enqueue.cc:100 NCCL WARN Cuda failure 'invalid device function'" },
	{ "PT10b", "PyTorch", "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable" },
	{ "PT10b", "CUDA driver API (JAX)", "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: CUDA error: Failed call to cuDevicePrimaryCtxRetain: CUDA_ERROR_DEVICE_UNAVAILABLE: CUDA-capable device(s) is/are busy or unavailable" },
	{ "NC01", "libnvidia-container 1.0", "docker: Error response from daemon: OCI runtime create failed: container_linux.go:346: starting container process caused \"process_linux.go:449: container init caused \"process_linux.go:432: running prestart hook 1 caused \"error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization error: cuda error: no cuda-capable device is detected\\n\"\"\": unknown." },
	{ "NC02", "libnvidia-container", "nvidia-container-cli: initialization error: cuda error: forward compatibility was attempted on non supported HW" },
	{ "NC02", "PyTorch", "RuntimeError: CUDA error: forward compatibility was attempted on non supported HW" },
	{ "LD01", "glibc / Python", "ImportError: /home/runner/.local/lib/python3.10/site-packages/torch/lib/libtorch_cuda.so: undefined symbol: ncclMemFree" },
	{ "LD01", "glibc", "./build/all_reduce_perf: symbol lookup error: ./build/all_reduce_perf: undefined symbol: ncclCommWindowRegister" },
	{ "LD01", "as pasted", "undefined symbol: \"ncclCommWindowRegister\"" },
	{ "LD03", "NCCL's NET plugin load (awsome-distributed-training#292)", "NCCL INFO NET/Plugin : dlerror=/opt/amazon/efa/lib/libfabric.so.1: version `FABRIC_1.7' not found (required by /opt/conda/lib/libnccl-net.so) No plugin found (libnccl-net.so), using internal implementation" },
	{ "LD03", "glibc / Python", "ImportError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by /opt/venv/lib/python3.10/site-packages/torch/lib/libtorch_python.so)" },
	{ "S76", "2.14.3", W25("init.cc:1270") "Invalid config blocking attribute value -2147483648" },
	{ "S76", "PyTorch 'Last error:'", "Invalid config blocking attribute value -2147483648" },
	{ "S77", "2.19.3", W25("misc/strongstream.cc:53") "NCCL cannot be captured in a graph if either it wasn't built with CUDA runtime >= 11.3 or if the installed CUDA driver < R465." },
	{ "S72b", "2.19", W25("bootstrap.cc:77") "Message truncated : received 256 bytes instead of 4" },
	{ "S72b", "2.28", W26("bootstrap.cc:91") "Message truncated : received 8,16 bytes instead of 8,24" },
	{ "SB01", "gdb", "#0 0x00007f6b59544f3b in ncclShmOpen(char*, unsigned long, void**, void**, int, void**) ()" },
	{ "SB02", "UCX", "[8d6bf97c3bf4:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)" },
	{ "SB02", "gdb", "Thread 787 \"imagenet_fake_d\" received signal SIGBUS, Bus error." },
	{ "SB02", "torchrun", "torch.distributed.elastic.multiprocessing.api.SignalException: Process 4242 got signal: 7 (SIGBUS)" },
	{ "SB03", "bash", "/bin/sh: line 1: 4242 Bus error               (core dumped) python train.py" },
	{ "SB03", "bash (interactive)", "Bus error (core dumped)" },
	{ "SB02", "CPython", "Fatal Python error: Bus error" },
	{ "PT13", "PyTorch DataLoader", "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm)." },
	{ "S53e", "PyTorch", "RuntimeError: CUDA error: uncorrectable ECC error encountered" },
	{ "S53b", "PyTorch", "RuntimeError: CUDA error: CUDA driver is a stub library" },
	{ "S64b", "2.x", W25("misc/ibvwrap.cc:400") "Call to ibv_modify_qp failed with 110 Connection timed out" },
	{ "PT11", "bash", "/bin/sh: line 1: 4242 Segmentation fault      (core dumped) python train.py" },
	{ "D01", "2.31 (documented)", "node1:4242 NCCL DIAG [INFO] p2p: write mismatch srcRank=0 srcCudaDev=0 srcNvmlDev=0 dstRank=1 dstCudaDev=1 dstNvmlDev=1 path=PHB handle=LEGACY_CUDA_IPC expected=0x5a5a got=0x0 verify=0x5a5a; check the affected pair with 'nvidia-smi topo -p2p p', then check Linux bare-metal IOMMU mode and PCIe ACS settings" },
	{ "D01n", "2.31 (documented)", "node1:4242 NCCL DIAG [INFO] p2p: read mismatch srcRank=2 srcCudaDev=2 srcNvmlDev=2 dstRank=3 dstCudaDev=3 dstNvmlDev=3 path=NVL handle=CUMEM_POSIX_FD expected=0x5a5a got=0x0 verify=0x5a5a" },
	{ "D01b", "2.31 (documented)", "node1:4242 NCCL DIAG [INFO] p2p: setup failed on rank 3 result=1" },
	{ "D02", "2.31 (documented)", "node1:4242 NCCL DIAG [OK]   p2p: all 56 directed GPU P2P edges verified" },
	{ "D03", "2.32 (release notes)", H "NVLink bandwidth degraded on GPU 3: 12 of 18 links active" },
	{ "D04", "2.32 (release notes)", W26("init.cc:900") "NCCL git revision mismatch: rank 0 has 1a2b3c4 but rank 5 has 9f8e7d6" },
	{ "D05", "2.31 (documented)", W26("transport/net_ib/common.cc:300") "NET/IB: WQE stall (no CQE) qpn 0x1a2 on mlx5_3:1 LID 0x12 for 5000 ms" },
	{ "D06", "2.31 (documented)", H "NET/IB: WQE slow qpn 0x1a2 on mlx5_3:1 LID 0x12 p50 12 us p99 4500 us" },
	{ "R01", "2.24+", "  1 job process is considered dead (unreachable via the RAS network)" },
	{ "R01", "2.29+", "[2025-12-19 13:07:07] PEER_DEAD: Process 1524345 on node 172.16.64.245 managing GPU 1" },
	{ "R05", "2.28.7+ json", "            \"considered_dead\": true" },
	{ "R06", "2.28.7+ json", "            \"unresponsive\": true," },
	{ "R02", "2.24+", "  Missing communicator data from 2 ranks" },
	{ "R03", "2.24+", "  Communicator ranks have different AllReduce operation counts" },
	{ "R04", "2.24+", "  Asynchronous errors on 2 ranks" },
	{ "VL05", "vLLM 0.5", "INFO 06-11 10:00:02 pynccl.py:63] vLLM is using nccl==2.21.5" },
	{ "X03", "Python", "KeyboardInterrupt" },
	{ "X03", "terminal", "^C" },
	{ "PT02", "PyTorch 2.4", "[rank1]:[E ProcessGroupNCCL.cpp:607] [Rank 1] Timeout at NCCL work: 12, last enqueued NCCL work: 12, last completed NCCL work: 11." },
	{ "VL01", "vLLM v1", "(EngineCore_DP0 pid=265) ERROR 02-27 10:31:24 [multiproc_executor.py:231] Worker proc VllmWorker-0 died unexpectedly, shutting down executor." },
	{ "VL02", "vLLM v0", "ERROR 06-11 10:00:05 multiproc_worker_utils.py:120] Worker VllmWorkerProcess pid 3312 died, exit code: -9" },
	{ "VL03", "vLLM 0.5+", "(VllmWorkerProcess pid=180) WARNING 03-19 08:09:03 custom_all_reduce.py:134] Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs. To silence this warning, specify disable_custom_all_reduce=True explicitly." },
	{ "VL04", "vLLM", "INFO 05-01 10:00:00 custom_all_reduce_utils.py:234] reading GPU P2P access cache from /root/.cache/vllm/gpu_p2p_access_cache_for_0,1,2,3.json" },
	{ "K02", "R5xx", "[ 8812.104301] NVRM: GPU 0000:28:00.0: GPU has fallen off the bus." },
	{ "K01", "R5xx", "[ 1234.567890] NVRM: Xid (PCI:0000:5d:00): 48, pid=1896, name=python3, An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0." },
	{ "K01", "R5xx", "kernel: NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate." },
	{ "K05", "AMD-Vi (5.x)", "[  312.404410] nvidia 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0027 address=0xfc8f0000 flags=0x0020]" },
	{ "K05", "Intel DMAR (4.x)", "[ 1021.123456] DMAR: [DMA Write] Request device [b1:00.0] fault addr 3bfe0000 [fault reason 05] PTE Write access is not set" },
	{ "K05", "Intel DMAR (oldest)", "DMAR:[DMA Read] Request device [02:00.0] fault addr 6df084000" },
	{ "K06", "nvswitch", "[ 5432.1] nvidia-nvswitch3: SXid (PCI:0000:c8:00.0): 12028, Non-fatal, Link 44 egress non-posted PRIV error (First)" },
	/* the RM's assert format "Assertion failed: %s [%s] (0x%08X) returned from ..." with nvstatuscodes.h's names */
	{ "K03", "R5xx", "[ 5120.331207] NVRM: nvAssertOkFailedNoLog: Assertion failed: GPU lost from the bus [NV_ERR_GPU_IS_LOST] (0x0000000F) returned from pRmApi->Control(pRmApi, ...) @ kern_bus.c:1201" },
	{ "K03", "R5xx", "kernel: NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] (0x00000062) returned from status @ kernel_channel.c:1310" },
	{ "K04", "R5xx", "[ 77.100220] NVRM: nvAssertOkFailedNoLog: Assertion failed: Generic RISC-V assert or halt [NV_ERR_RISCV_ERROR] (0x00000079) returned from kgspWaitForRmInitDone(pGpu, pKernelGsp) @ kernel_gsp.c:4188" },
	{ "X01", "timeout(1)", "rc=124" },
	{ "X04", "timeout -s KILL, as captured on the H200", "exit code 137" },
	{ "X02", "bash", "Killed" },
	{ "W00", "any", W25("init.cc:1") "something NCCL never said before" },
	{ "VL06", "vLLM 0.4", "Failed: /home/runner/work/vllm/vllm/csrc/custom_all_reduce.cuh:307 'invalid argument'" },
	{ "S53q", "SGLang", "RuntimeError: CUDART error: peer access is not supported between these two devices" },
	{ "S53q", "TensorRT-LLM", "[TensorRT-LLM][ERROR] CUDA runtime error in cudaDeviceEnablePeerAccess(i, 0): peer access is not supported between these two devices" },
	{ "S12", "2.14", "ncclSocketInit: connecting to address with family 0 is neither AF_INET(2) nor AF_INET6(10)" },
	{ "S12", "2.27", W26("misc/socket.cc:640") "ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)" },
	{ "S64m", "2.x", W25("misc/ibvwrap.cc:278") "Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory" },
	{ "S64d", "2.x", W25("misc/ibvwrap.cc:300") "Call to ibv_query_port failed with error Operation not permitted" },
	{ "S75", "2.25.1", H "ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856" },
	{ "S75", "2.2x", W26("enqueue.cc:120") "cudaArch 1200 ncclMaxSharedMem 82240 exceeds device/fn maxSharedMem 79856" },
	{ "PT12", "PyTorch DETAIL", "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running collective: CollectiveFingerPrint(OpType=ALLGATHER, TensorShape=[4])" },
	{ "RY01", "kernel", "[12345.678] Out of memory: Killed process 4242 (python) total-vm:123456kB" },
	{ "RY01", "Slurm", "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=1234.0. Some of your processes may have been killed by the cgroup out-of-memory handler." },
	{ "RY02", "Ray", "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR" },
	{ "S68b", "nccl-tests", "node1: Test NCCL failure common.cu:777 'unhandled system error'" },
	{ "S68b", "PyTorch 1.x (case differs)", "RuntimeError: NCCL Error 2: unhandled system error" },
	{ "S68b", "nccl-tests 2018", "NCCL failure all_reduce.cu:95 'unhandled cuda error'" },
	{ "S05b", "2.3", "e66aa18dc444:3171:3171 [0] include/socket.h:311 WARN Socket creation failed : Address family not supported by protocol" },
	{ "S05b", "2.12", W25("misc/socket.cc:400") "Net : Socket creation failed : Address family not supported by protocol" },
	{ "SB02", "as quoted", "running error with \"Bus error: nonexistent physical address\"" },
	{ "SB04", "torchelastic", "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: 0 (pid: 5275) of binary: /usr/bin/python" },
	{ "SB04", "torchelastic summary", "  exitcode  : -7 (pid: 5275)" },
	{ "SB04", "DeepSpeed", "[2023-07-20 10:00:00,000] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python3', '-u', 'main.py'] exits with return code = -7" },
	/* NVSwitch fabric (issue 16) */
	{ "NV01", "PyTorch symmetric memory (constructed)", "RuntimeError: CUDA driver error: the operation cannot be performed in the present state (cuMulticastBindMem)" },
	{ "NV02", "PyTorch (constructed)", "RuntimeError: CUDA driver error: the operation cannot be performed in the present state" },
	{ "NV03", "2.28.9", W26("dev_runtime.cc:210") "Multicast support requested for team but none available on system." },
	{ "NV03", "2.29.7", W26("dev_runtime.cc:260") "Multimem pointer requested but system does not support multimem." },
	{ "NV04", "2.28.9", H "Failed to multicast-bind user buffer: CUDA error 1 'invalid argument'" },
	{ "NV05", "2.27.7", W26("mnnvl.cc:82") "MNNVL (cliqueSize 8) is available but not working on this system. Check the IMEX channel configuration (/dev/nvidia-caps-imex-channels). Set NCCL_MNNVL_ENABLE=0 to ignore this issue." },
	{ "NV05", "2.22", W25("init.cc:900") "MNNVL is not supported on this system" },
	{ "NV06", "2.23", H "MNNVL busId 0x18000 fabric UUID 0.0 cliqueId 0x0 state 1 healthMask 0x0" },
	{ "NV07", "fabric manager log", "[Dec 02 2026 09:10:44] [ERROR] [tid 3301] fabric manager version is incompatible with NVSwitch driver. Please update with matching NVIDIA driver package" },
	{ "S53s", "2.x (nccl#1372)", W25("enqueue.cc:58") "Cuda failure 'named symbol not found'" },
	{ "S53s", "PyTorch", "RuntimeError: CUDA error: no kernel image is available for execution on the device" },
	{ "S53u", "2.27.5 (nccl#2101)", W26("init.cc:426") "Cuda failure 'operation not supported'" },
	{ "S53r", "2.1.4 (Paddle#8195)", "idgsim-gpu-001:47744:47744 [0] init.cu:674 WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime version'" },
	{ "S53r", "2.19", W25("init.cc:1502") "Cuda failure 'CUDA driver version is insufficient for CUDA runtime version'" },
	{ "S53v", "2.9 (nccl#496)", W25("enqueue.cc:802") "Cuda failure 'API call is not supported in the installed CUDA driver'" },
	{ "S53y", "PyTorch", "RuntimeError: Unexpected error from cudaGetDeviceCount(). Error 803: system has unsupported display driver / cuda driver combination" },
	{ "S53y", "JAX", "RuntimeError: cuInit failed: CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" },
	{ "OF01", "aws-ofi-nccl 1.7 (aws-ofi-nccl#584)", "register_mr_buffers:544 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -22, Error: Invalid argument" },
	{ "CH01", "2.2 (nccl#133)", "CY4SCH102501002:6213:6213 [4] INFO 3 -> 12 via NET/IB/0/GDRDMA" },
	{ "CH01", "quoted without header (nccl#897)", "9[1a000] -> 2[6b000] [receive] via NET/IB/1" },
	{ "PT02f", "PyTorch 2.3 (particleflow#390)", "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x1554e9e0f8f2 in libtorch_cuda.so)" },
	{ "S50r", "nccl-tests 2.x (nccl-tests#291)", "#Rank 0 Group 0 Pid 12225 on node device 0 [0000:16:00] NVIDIA GeForce RTX 5090" },
	{ "S40a", "PyTorch collect_env", "GPU 0: NVIDIA GeForce RTX 4090" },
	{ "S40a", "nvidia-smi 550", "|   0  NVIDIA L40S                    On  |   00000000:17:00.0 Off |                    0 |" },
	{ "SDV1", "nvidia-smi 535", "| NVIDIA-SMI 535.104.05             Driver Version: 535.104.05   CUDA Version: 12.2     |" },
	{ "SDV1", "PyTorch collect_env", "Nvidia driver version: 550.54.15" },
	{ "NT02", "nccl-tests 2.x (nccl#1706)", "#  Rank  0 Group  0 Pid 2081556 on   deepseek device  0 [0000:0f:00] NVIDIA H800" },
	{ "NT02", "nccl-tests 2.0", "#   Rank  1 Pid  40210 on     node07 device  1 [0x1b] Tesla V100-SXM2-32GB" },
	{ "EV01", "shell prompt (nccl#1706)", "root@deepseek:/data/data1/nccl-tests# CUDA_VISIBLE_DEVICES=0,1,2,3 NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 4" },
	{ "EV02", "mpirun -x (azurehpc-health-checks#142)", "root@vm:/azure-nhc# mpirun -np 8 -x NCCL_SOCKET_IFNAME=eth0 -x NCCL_TOPO_FILE=/azure-nhc/topofiles/ndv5-topo.xml /opt/nccl-tests/build/all_reduce_perf -b 16G -f 2 -g 1 -e 16G -c 1" },
	{ "EV02", "export", "export NCCL_GRAPH_FILE=/opt/microsoft/ndv4-graph.xml" },
	{ "NH01", "Azure NHC", "ERROR:  nhc:  Health check failed:  check_nccl_allreduce: NCCL allreduce, BUS BW (expected >=431.0 GB/s, but measured 15.1043 GB/s). FaultCode: NHC2010" },
	{ "NH01", "Azure NHC IB loopback", "node-079 | ERROR: nhc: Health check failed: check_nccl_allreduce_ib_loopback: NCCL allreduce, BUS BW (expected >=40.0 GB/s, but measured 20.7377 GB/s)" },
	{ "EV01", "mpirun -x", "mpirun -np 16 -x NCCL_IB_DISABLE=1 -x NCCL_DEBUG=INFO ./all_reduce_perf -b 8 -e 1G" },
	{ "MP01", "Open MPI 4", "  Exit code:    3" },
	{ "MP01", "Slurm", "srun: error: node12: task 3: Exited with exit code 3" },
	{ "TB01", "nccl-tests 2.x", "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong" },
	{ "TB01", "NCCL 1 tests (nccl#104)", ">      bytes             N    type      op     time  algbw  busbw      res     time  algbw  busbw      res" },
	{ "TB02", "nccl-tests 2.x footer", "# Out of bounds values : 15 FAILED" },
	{ "TB02", "nccl-tests under Open MPI --tag-output", "[1,0]<stdout>:# Out of bounds values : 3 FAILED" },
	{ "FM01", "systemctl status", "    Process: 444114 ExecStart=/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg (code=exited, status=1/FAILURE)" },
	{ "FM02", "journal", "Aug 11 06:47:54 node systemd[1]: nvidia-fabricmanager.service: Failed with result 'exit-code'." },
	{ "FM03", "fabric manager syslog", "Nov 05 13:55:26 node1 nv-fabricmanager[104230]: fabric manager NVIDIA GPU driver interface version 550.127.05 don't match with driver version 550.120. Please update with matching NVIDIA driver package." },
	{ "GL01", "PyTorch", "RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error" },
	{ "CF01", "NVCaffe", "F0404 10:13:40.123456 12760 nccl.cpp:123] Check failed: result == ncclSuccess (1 vs. 0)  unhandled cuda error" },
	{ "DA01", "CUDA 12 (PyTorch ATen)", "../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [44,0,0], thread: [70,0,0] Assertion `index >= -sizes[i] && index < sizes[i] && \"index out of bounds\"` failed." },
	{ "DA01", "PyTorch 2.x", "[rank3]: RuntimeError: CUDA error: device-side assert triggered" },
	{ "DA01", "glibc", "python3: ../csrc/kernel.cpp:88: void f(): Assertion `n > 0' failed." },
	{ "VL07", "vLLM 0.5", "[rank0]:   File \"/home/u/vllm/vllm/distributed/device_communicators/pynccl_wrapper.py\", line 223, in NCCL_CHECK" },
	{ "HV01", "Horovod 0.x (TensorFlow)", "UnknownError (see above for traceback): ncclCommInitRank failed: unhandled cuda error" },
	{ "HC01", "glibc", "free(): invalid next size (fast)" },
	{ "HC01", "glibc", "double free or corruption (!prev)" },
	{ "NE01", "PyTorch 1.x", "ncclSystemError: System call (socket, malloc, munmap, etc) failed." },
	{ "NE01", "PyTorch 2.x", "ncclUnhandledCudaError: Call to CUDA function failed." },
	{ "SL01", "2.x", H "NET/Socket : Using [0]enp73s0:10.1.216.156<0> [1]pod-id-link0:169.254.170.23<0>" },
	{ "SL01", "2.x", H "Bootstrap : Using eth0:169.254.1.2<0>" },
	{ "S52e", "<=2.3, pasted without header or tag", "WARN Unable to allocate shared memory (4214784 bytes) : Interrupted system call" },
	{ "S52u", "<=2.3", W25("include/shm.h:26") "Unable to allocate shared memory (4214784 bytes) : No space left on device" },
	{ "S68c", "a title, words run together", "Serving : NCCLerror: unhandled system error (run withNCCL DEBUG=INFo for details)" },
	{ "S68c", "a title", "[Bug] NCCLerror unhandled cuda error when loading the model" },
};

static int sig_index(const char *id)
{
	size_t n;
	const struct nccl_signature *s = kb_nccl_signatures(&n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].id, id) == 0)
			return (int)i;
	return -1;
}

/* Feeds one line; returns the index of the only signature it raised, -1 for
 * none, -2 for several. */
static int match_one(const char *text)
{
	struct nccllog lg;
	nccllog_init(&lg);
	int f = nccllog_begin_file(&lg, "t.log");
	char *buf = strdup(text);
	nccllog_feed(&lg, f, buf, strlen(buf), 1);
	free(buf);
	int hit = -1;
	for (int i = 0; i < NL_MAX_SIGS; i++)
		if (lg.sigcount[i])
			hit = hit == -1 ? i : -2;
	nccllog_release(&lg);
	return hit;
}

/* Lines that look like a row's literals but are not its message. */
static void test_not_matched(void **state)
{
	(void)state;
	static const struct {
		const char *id, *line;
	} none[] = {
		{ "SB02", "[  +0.000316] pcieport 0000:00:03.0: PCIe Bus Error: severity=Corrected, type=Data Link Layer, (Transmitter ID)" },
		{ "S72", W25("bootstrap.cc:77") "Message truncated : received 256 bytes instead of 4" },
		{ "S76", W25("init.cc:1270") "Invalid config blocking attribute value 5" },
		{ "PT10", "nvidia-container-cli: initialization error: cuda error: no cuda-capable device is detected" },
		{ "VL06", "CustomAllreduce is disabled because this process group spans across nodes." }, /* SGLang's fact (238) */
		{ "NT01", "# NCCL Tests compiled with NCCL 2.4" },
		{ "VM01", "    Virtualization Mode                   : None" },
		{ "VM02", "    Virtualization Mode                   : Pass-Through" },
		{ "ACS01", "\t\tACSCtl:\tSrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-" },
		{ "IOM01", "[    0.401234] iommu: Default domain type: Passthrough (set via kernel command line)" },
		{ "IBV01", "libibverbs: Warning: couldn't load driver 'mlx5': some other text" },
		{ "NT01", "NCCL version 2.18.1+cuda12.1" },
		{ "IB07t", "RuntimeError: [Errno 19] No such device (GLOO_SOCKET_IFNAME=eth9)" },
		{ "LD02", "INFO 04-14 06:28:59 pynccl.py:58] Loading nccl from library /root/.config/vllm/nccl/cu12/libnccl.so.2.18.1" },
		{ "DA01", "AssertionError: expected tensor shapes to match" }, /* Python's assert: no process death by itself */
		{ "DA01", "TORCH_USE_CUDA_DSA to enable device-side assertions" },
		{ "S23u", H "Topology detection: network path (name = eth0) /sys/devices/pci0000:00/0000:00:03.0/virtio2 is not a PCI device (virtio). Attaching to first CPU" },
		{ "PT02f", "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x1554e9e16333 in libtorch_cuda.so)" },
		{ "S50r", "#Rank 0 Group 0 Pid 4766 on GENOA-06 device 0 [0x21] NVIDIA GeForce RTX 4090" },
		{ "EV01", H "NCCL_P2P_DISABLE set by environment to 1" }, /* NCCL's own line: the process's environment */
		{ "NT02", "# nThread 1 nGpus 4 minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20" },
		{ "MP01", "Exit status of the job: 3" },
		{ "TB02", "# Out of bounds values : 0 OK" },
		/* posix_fallocate's other errors: neither the EINTR bug nor a full /dev/shm */
		{ "S52e", W25("include/shm.h:26") "Unable to allocate shared memory (4214784 bytes) : Invalid argument" },
		{ "S52u", W25("include/shm.h:26") "Unable to allocate shared memory (4214784 bytes) : Interrupted system call" },
		{ "S68c", "the supervisor logged an unhandled systemd error" },
		/* S68c comes last: Horovod's row speaks for its line */
		{ "S68c", "UnknownError (see above for traceback): ncclCommInitRank failed: unhandled cuda error" },
	};
	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++) {
		int got = match_one(none[i].line);
		if (got == sig_index(none[i].id))
			fail_msg("'%s' raised %s", none[i].line, none[i].id);
	}
}

static void test_each_case(void **state)
{
	(void)state;
	size_t n;
	const struct nccl_signature *s = kb_nccl_signatures(&n);
	int bad = 0;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int want = sig_index(cases[i].id);
		int got = match_one(cases[i].line);
		if (got != want) {
			print_error("%s (%s): got %s for '%s'\n", cases[i].id, cases[i].version,
				    got >= 0 ? s[got].id : got == -1 ? "no match" : "several", cases[i].line);
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

static void test_every_row_tested(void **state)
{
	(void)state;
	size_t n;
	const struct nccl_signature *s = kb_nccl_signatures(&n);
	assert_true(n <= NL_MAX_SIGS);
	for (size_t i = 0; i < n; i++) {
		bool have = false;
		for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++)
			if (strcmp(cases[k].id, s[i].id) == 0)
				have = true;
		if (!have)
			fail_msg("signature %s has no test line", s[i].id);
	}
}

static void test_rows_well_formed(void **state)
{
	(void)state;
	size_t n;
	const struct nccl_signature *s = kb_nccl_signatures(&n);
	for (size_t i = 0; i < n; i++) {
		const struct finding_def *d = kb_finding(s[i].finding);
		if (!d)
			fail_msg("%s: finding %s is not in the catalog", s[i].id, s[i].finding);
		/* the row's enum and its text name one catalog entry */
		assert_ptr_equal(kb_finding_def(s[i].fid), d);
		assert_true(kb_cause_valid(d->cause));
		assert_string_equal(nccl_signature_cause(&s[i]), d->cause);
		assert_non_null(nccl_sig_role_name(s[i].role));
		assert_true(s[i].weight >= 0 && s[i].weight <= 1);
		assert_true(s[i].stage >= -1 && s[i].stage <= NCCL_STAGE_MAX);
		assert_non_null(s[i].meaning);
		assert_non_null(s[i].fix);
		assert_non_null(s[i].source);
		assert_non_null(s[i].versions);
		for (size_t k = i + 1; k < n; k++)
			if (strcmp(s[i].id, s[k].id) == 0)
				fail_msg("duplicate signature id %s", s[i].id);
		/* the matcher tests NCCL lines every (shortest literal - 3) bytes:
		 * a short literal on INFO/WARN lines slows every init line */
		for (int k = 0; k < NS_MAX_ANY && s[i].any[k] && (s[i].where & NS_NCCL); k++)
			if (strlen(s[i].any[k]) < 10)
				fail_msg("%s: literal '%s' of an NCCL line is shorter than 10 bytes", s[i].id, s[i].any[k]);
	}
	assert_non_null(kb_nccl_signature("S05"));
	assert_null(kb_nccl_signature("S999"));
}

/* Every signature of a line is recorded: a watchdog line that also names
 * the OOM killer raises both; a specific CUDA row hides the generic one; a
 * root failure's own wording of a consequence adds no second row. */
static void test_all_signatures_of_a_line(void **state)
{
	(void)state;
	static const struct {
		const char *line;
		const char *ids[4];
	} multi[] = {
		{ "(pid=7) Worker exit detail: The process is killed by SIGKILL by OOM killer due to high memory usage. [rank9]:[E416 ProcessGroupNCCL.cpp:1834] Timeout at NCCL work: 876319, last enqueued NCCL work: 876319",
		  { "PT02", "RY01", NULL } },
		{ W25("transport/p2p.cc:189") "Cuda failure 'out of memory'", { "S53m", NULL } },
		{ W25("misc/ipcsocket.cc:190") "UDS: Receiving data over socket /tmp/x failed : Connection reset by peer (104)", { "S56b", NULL } },
		{ "RuntimeError: cuda failure 'PEER ACCESS IS NOT SUPPORTED between these two devices'", { "S53p", NULL } },
	};
	for (size_t i = 0; i < sizeof(multi) / sizeof(multi[0]); i++) {
		struct nccllog lg;
		nccllog_init(&lg);
		int f = nccllog_begin_file(&lg, "t.log");
		char *buf = strdup(multi[i].line);
		nccllog_feed(&lg, f, buf, strlen(buf), 1);
		free(buf);
		int want = 0;
		for (int k = 0; k < 4 && multi[i].ids[k]; k++, want++) {
			int si = sig_index(multi[i].ids[k]);
			assert_true(si >= 0);
			if (!lg.sigcount[si])
				fail_msg("line %zu: %s not raised", i, multi[i].ids[k]);
		}
		int got = 0;
		for (int k = 0; k < NL_MAX_SIGS; k++)
			got += lg.sigcount[k] ? 1 : 0;
		if (got != want)
			fail_msg("line %zu: %d signatures raised, want %d", i, got, want);
		nccllog_release(&lg);
	}
}

/* K03 and K04 take their literals from kb/rm_status.def, the table that
 * `kernel` reads: each row is a literal of the signature it names, each
 * literal of those signatures a row, and the classes agree. */
static void test_rm_status_table(void **state)
{
	(void)state;
	size_t n, seen = 0;
	const struct rm_status *t = kb_rm_statuses(&n);
	assert_true(n >= 6);
	for (size_t i = 0; i < n; i++) {
		const struct nccl_signature *sg = kb_nccl_signature(t[i].signature);
		assert_non_null(sg);
		assert_string_equal(nccl_signature_cause(sg), t[i].cause);
		bool found = false;
		for (size_t k = 0; k < NS_MAX_ANY && sg->any[k]; k++)
			found |= strcmp(sg->any[k], t[i].name) == 0;
		assert_true(found);
		assert_true(strncmp(t[i].name, "NV_ERR_", 7) == 0 && t[i].code > 0 && t[i].text[0] && t[i].meaning[0]);
	}
	static const char *const ids[] = { "K03", "K04" };
	for (size_t j = 0; j < 2; j++) {
		const struct nccl_signature *sg = kb_nccl_signature(ids[j]);
		for (size_t k = 0; k < NS_MAX_ANY && sg->any[k]; k++)
			seen++;
	}
	assert_int_equal(seen, n);
	char line[128];
	snprintf(line, sizeof(line), "NVRM: x [%s] (0x%08X)", t[n - 1].name, t[n - 1].code);
	assert_ptr_equal(kb_rm_status_in(line), &t[n - 1]);
	assert_null(kb_rm_status_in("NVRM: (status == NV_ERR_RESET_REQUIRED)"));
}

static void test_no_false_matches(void **state)
{
	(void)state;
	static const char *benign[] = {
		H "[Proxy Service UDS] Device 0 CPU core 2",
		H "[Proxy Service] Device 0 CPU core 1",
		H "NET/IB : No device found.",
		H "Failed to initialize NET plugin IB",
		H "transport/net_ib.cc:852 -> 3",
		H "comm 0x2f6b74b0 rank 0 nranks 1 cudaDev 0 busId 60 - Destroy COMPLETE",
		"rank 0 sum 1.0",
		"INFO: killed 3 zombie workers and restarted the pool in a long line of text that mentions Killed in passing",
		"[rank0]:[W1202 09:46:16.640234228 ProcessGroupNCCL.cpp:1575] Warning: WARNING: destroy_process_group() was not called before program exit",
		H "MNNVL busId 0x18000 fabric UUID 0.0 cliqueId 0x0 state 3 healthMask 0x0", /* fabric registered */
		H "NVLS multicast support is available on dev 0 (NVLS_NCHANNELS 16)",
	};
	size_t nsig;
	const struct nccl_signature *sigs = kb_nccl_signatures(&nsig);
	for (size_t i = 0; i < sizeof(benign) / sizeof(benign[0]); i++) {
		/* a fact row (NSR_INFO: PT20's exit warning, read only when nothing
		 * failed) names no failure */
		int m = match_one(benign[i]);
		if (m != -1 && !(m >= 0 && (size_t)m < nsig && sigs[m].role == NSR_INFO))
			fail_msg("benign line matched: %s", benign[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows_well_formed),
		cmocka_unit_test(test_every_row_tested),
		cmocka_unit_test(test_each_case),
		cmocka_unit_test(test_all_signatures_of_a_line),
		cmocka_unit_test(test_no_false_matches),
		cmocka_unit_test(test_rm_status_table),
		cmocka_unit_test(test_not_matched),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
