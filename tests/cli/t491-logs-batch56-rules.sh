#!/bin/bash
# nccl-doctor logs: the rules added after scoring the held-out public
# batches 5 and 6 (tests/fixtures/logs/public 079-104, docs/logs.md), on
# small constructed logs in the real formats:
#  - NCCL lines pasted without the host:pid:tid [dev] header are NCCL lines
#    of one process "unknown host" (WARN with its source file, INFO
#    back-traces, a bare "INFO NET/Socket : Using");
#  - CUDA error text decides before the generic "Cuda failure" row: 'named
#    symbol not found' is a libnccl without kernels for the GPU, 'operation
#    not supported' at init a VM / vGPU without the memory feature;
#  - the fabric manager's failure (systemctl, its version check), Gloo's
#    connectFullMesh, Caffe's NCCL_CHECK; glibc's heap corruption aborts;
#  - a link-local 169.254/16 address in NCCL's socket lists; Docker bridges
#    and veth pairs in NET/Socket's list of a failed run;
#  - a stop inside NVLS set-up, an nvidia-smi topo -m matrix of PCIe paths.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}


# 1. headerless NCCL lines
printf '%s\n' 'graph/xml.h:77 NCCL WARN Attribute arch of node cpu not found' \
	'NCCL INFO graph/topo.cc:380 -> 3' 'NCCL INFO init.cc:581 -> 3' >"$ND_TMP/hl.log"
run_nd logs --json "$ND_TMP/hl.log"
json_check "len(d['ranks']) == 1 and d['ranks'][0]['host'] == 'unknown host'" "headerless lines: one process of 'unknown host'"
json_check "any(e['chain'].startswith('graph/topo.cc:380 -> 3') for e in d['ranks'][0]['events'])" "headerless back-trace joins its WARN"
echo '`[0] misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not supported`' >"$ND_TMP/hl2.log"
run_nd logs --json "$ND_TMP/hl2.log"
first ib_rdma_config "headerless verbs WARN in backticks with its device field"
json_check "d['ranks'] and d['ranks'][0]['host'] == 'unknown host'" "headerless WARN with [dev] is an NCCL line"
printf '%s\n' 'INFO 04-13 19:52:24 [multiproc_executor.py:749] Parent process exited' 'some text NCCL INFO without a header' >"$ND_TMP/hl3.log"
run_nd logs --json "$ND_TMP/hl3.log"
json_check "len(d['ranks']) == 0" "vLLM's INFO lines and prose are not NCCL lines"

# 2. CUDA error text decides
echo "gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'" >"$ND_TMP/sym.log"
run_nd logs --json "$ND_TMP/sym.log"
first version_mismatch "named symbol not found: a libnccl without kernels for this GPU"
has_finding LOG_NCCL_NO_KERNEL_IMAGE "named symbol not found: its finding"
printf '%s\n' "h:508:508 [0] init.cc:426 NCCL WARN Cuda failure 'operation not supported'" 'h:508:508 [0] NCCL INFO init.cc:1437 -> 1' >"$ND_TMP/ons.log"
run_nd logs --json "$ND_TMP/ons.log"
first p2p_virtualization "operation not supported at init: a VM or vGPU without the memory feature"
echo "h:9:9 [0] transport/nvls.cc:120 NCCL WARN Cuda failure 'operation not supported'" >"$ND_TMP/onsn.log"
run_nd logs --json "$ND_TMP/onsn.log"
first fabric_manager_nvswitch "operation not supported in NVLS set-up stays NVLS"
echo "h:9:9 [0] transport/p2p.cc:1 NCCL WARN Cuda failure 'invalid argument'" >"$ND_TMP/inv.log"
run_nd logs --json "$ND_TMP/inv.log"
no_finding LOG_NCCL_NO_KERNEL_IMAGE "another CUDA error is no missing kernel image"

# 3. other components
printf '%s\n' '● nvidia-fabricmanager.service - NVIDIA fabric manager service' \
	'     Active: failed (Result: exit-code) since Mon 2024-07-01 14:43:57 UTC; 5s ago' \
	'    Process: 444114 ExecStart=/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg (code=exited, status=1/FAILURE)' >"$ND_TMP/fm.log"
run_nd logs --json "$ND_TMP/fm.log"
first fabric_manager_nvswitch "systemctl status of a failed fabric manager"
echo '     Process: 4441 ExecStart=/usr/bin/nv-fabricmanager -c /usr/share/nvidia/nvswitch/fabricmanager.cfg (code=exited, status=0/SUCCESS)' >"$ND_TMP/fmok.log"
run_nd logs --json "$ND_TMP/fmok.log"
no_finding LOG_FABRIC_MANAGER_FAILED "a fabric manager that exited with success is no failure"
echo '`NVIDIA GPU driver interface version 550.90.07 don'"'"'t match with driver version 550.54.15`' >"$ND_TMP/fmv.log"
run_nd logs --json "$ND_TMP/fmv.log"
first fabric_manager_nvswitch "the fabric manager's driver version check"
has_finding FABRIC_MANAGER_VERSION_MISMATCH "the fabric manager's driver version check: its finding"
echo 'RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error' >"$ND_TMP/gloo.log"
run_nd logs --json "$ND_TMP/gloo.log"
first bootstrap_network "Gloo connectFullMesh: the CPU bootstrap's network"
echo 'F0404 10:13:40.1 12760 nccl.cpp:12] Check failed: result == ncclSuccess (1 vs. 0)  unhandled cuda error' >"$ND_TMP/caffe.log"
run_nd logs --json "$ND_TMP/caffe.log"
has_finding LOG_NCCL_ERROR "Caffe's NCCL_CHECK is an NCCL error"

echo 'nccl-tests hang and free(): invalid next size (fast) with NCCL 2.19.3' >"$ND_TMP/heap.log"
run_nd logs --json "$ND_TMP/heap.log"
first driver_or_kernel_bug "glibc's heap corruption abort: a memory bug of a library in the process"
echo 'free(): invalid pointer' >"$ND_TMP/heap2.log"
run_nd logs --json "$ND_TMP/heap2.log"
no_finding LOG_HEAP_CORRUPTION "an invalid pointer passed to free() is not a corrupted heap"

# 4. link-local socket addresses
printf '%s\n' 'NET/Socket : Using [0]enp73s0:10.1.216.156<0> [1]pod-id-link0:169.254.170.23<0>' \
	'socketPollConnect: connect to 169.254.170.23<...> returned Connection refused, retrying (13/34)' \
	'RuntimeError: NCCL error: remote process exited or there was a network error' >"$ND_TMP/ll.log"
run_nd logs --json "$ND_TMP/ll.log"
first bootstrap_network "a link-local address in NCCL's socket list"
has_finding LOG_SOCKET_LINK_LOCAL "a link-local address: its finding"
printf '%s\n' 'h:1:1 [0] NCCL INFO Bootstrap : Using eth0:169.254.3.4<0>' 'h:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4' >"$ND_TMP/ll2.log"
run_nd logs --json "$ND_TMP/ll2.log"
has_finding LOG_SOCKET_LINK_LOCAL "bootstrap from a link-local address"
printf '%s\n' 'h:1:1 [0] NCCL INFO Bootstrap : Using eth0:10.1.2.3<0>' 'h:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.2.3<0>' >"$ND_TMP/ll3.log"
run_nd logs --json "$ND_TMP/ll3.log"
no_finding LOG_SOCKET_LINK_LOCAL "routable addresses are not link-local"

# 4b. NET/Socket over Docker bridges and veth pairs (wrapped as pasted), in a failed run
printf '%s\n' 'ncclSystemError: System call (socket, malloc, munmap, etc) failed.' 'INFO NET/Socket : Using' \
	'[0]bond0:192.168.1.161<0>' '[1]br-05ab815fa14e:172.19.0.1<0>' '[2]veth6163fba:fe80::b878:6cff:fe52:abe2%veth6163fba<0>' >"$ND_TMP/br.log"
run_nd logs --json "$ND_TMP/br.log"
first bootstrap_network "sockets spread over Docker bridges and veth in a failed run"
json_check "not any(c['cause'] == 'unknown' for c in d['causes'])" "PyTorch's reading of a result code names no cause"
printf '%s\n' 'h:1:1 [0] NCCL INFO NET/Socket : Using' '[0]eth0:10.0.0.1<0>' '[1]br-05ab815fa14e:172.19.0.1<0>' 'h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 1000 commId 0x5 - Init COMPLETE' >"$ND_TMP/brok.log"
run_nd logs --json "$ND_TMP/brok.log"
json_check "not any(c['cause'] == 'bootstrap_network' for c in d['causes'])" "a bridge in the list of a healthy run names no cause"

# 5. a stop inside NVLS set-up; an nvidia-smi topo -m matrix of PCIe paths
echo 'c2ce1c877ea3:1023:1032 [0] NCCL INFO NVLS Bind mem 0xac0000000 UC handle 0x7f3310ccb240 MC handle 0x7f3310ccaa20 size 1073741824' >"$ND_TMP/nvls.log"
run_nd logs --json "$ND_TMP/nvls.log"
first fabric_manager_nvswitch "the log ends inside NVLS set-up"
has_finding LOG_HANG_NVLS_SETUP "the log ends inside NVLS set-up: its finding"
printf '%s\n' '        GPU0    GPU1    CPU Affinity    NUMA Affinity' 'GPU0     X      NODE    0-63            0' \
	'GPU1    NODE     X      0-63            0' >"$ND_TMP/topo.log"
run_nd logs --json "$ND_TMP/topo.log"
first p2p_pcie_acs_iommu "a PCIe-only topo matrix in a hang report"
has_finding LOG_TOPO_MATRIX_PCIE_ONLY "a PCIe-only topo matrix: its finding"
printf '%s\n' '        GPU0    GPU1    CPU Affinity    NUMA Affinity' 'GPU0     X      NV4     0-63            0' \
	'GPU1    NV4      X      0-63            0' >"$ND_TMP/topo2.log"
run_nd logs --json "$ND_TMP/topo2.log"
no_finding LOG_TOPO_MATRIX_PCIE_ONLY "an NVLink matrix is no PCIe-only lead"
finish
