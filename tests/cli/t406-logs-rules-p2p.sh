#!/bin/bash
# nccl-doctor logs: the rules of P2P between the GPUs of a host (p2p.c), each
# on small constructed lines in the real formats, once where it fires and once
# where it must not (docs/logs.md says which public cases motivated each):
#  - CUDA's 'operation not supported' at init: a VM or vGPU;
#  - an nvidia-smi topo -m matrix of PCIe paths only in a hang report;
#  - a hypervisor in the log: P2P in a VM;
#  - nccl-tests output that ends at its result table's header;
#  - nccl-tests rows with #wrong > 0, its "Out of bounds values : N FAILED";
#  - NCCL 2.4-2.7's CUDA IPC warnings, classed by NCCL's own table.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

printf '%s\n' "h:508:508 [0] init.cc:426 NCCL WARN Cuda failure 'operation not supported'" 'h:508:508 [0] NCCL INFO init.cc:1437 -> 1' >"$ND_TMP/ons.log"
run_nd logs --json "$ND_TMP/ons.log"
first p2p_virtualization "operation not supported at init: a VM or vGPU without the memory feature"

printf '%s\n' '        GPU0    GPU1    CPU Affinity    NUMA Affinity' 'GPU0     X      NODE    0-63            0' \
	'GPU1    NODE     X      0-63            0' >"$ND_TMP/topo.log"
run_nd logs --json "$ND_TMP/topo.log"
first p2p_pcie_acs_iommu "a PCIe-only topo matrix in a hang report"
has_finding LOG_TOPO_MATRIX_PCIE_ONLY "a PCIe-only topo matrix: its finding"
printf '%s\n' '        GPU0    GPU1    CPU Affinity    NUMA Affinity' 'GPU0     X      NV4     0-63            0' \
	'GPU1    NV4      X      0-63            0' >"$ND_TMP/topo2.log"
run_nd logs --json "$ND_TMP/topo2.log"
no_finding LOG_TOPO_MATRIX_PCIE_ONLY "an NVLink matrix is no PCIe-only lead"

# a virtual machine
printf '%s\n' "[    0.000000] Hypervisor detected: KVM" "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)" >"$ND_TMP/vm.log"
run_nd logs --json "$ND_TMP/vm.log"
first p2p_virtualization "a hypervisor and a CUDA failure: P2P in a VM first"
printf '%s\n' "    Virtualization Mode                   : None" "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)" >"$ND_TMP/novm.log"
run_nd logs --json "$ND_TMP/novm.log"
no_finding LOG_VM_HINT "nvidia-smi's 'Virtualization Mode : None' is bare metal"
echo "[    0.000000] Hypervisor detected: KVM" >"$ND_TMP/vmok.log"
run_nd logs --json "$ND_TMP/vmok.log"
json_check "not d['causes'] or d['causes'][0]['cause'] != 'p2p_virtualization'" "a VM in a run that did not fail names no cause"

# nccl-tests output that ends at its result table's header (TB01)
printf '%s\n' '# Using devices' '#   Rank  0 uses device  0 [0x05] Tesla M40 24GB' '#   Rank  1 uses device  1 [0x08] Tesla M40 24GB' \
	'#      bytes             N    type      op     time  algbw  busbw      res' '' >"$ND_TMP/nt.log"
run_nd logs --json "$ND_TMP/nt.log"
first p2p_pcie_acs_iommu "a test that printed its table header and no result: a stall between GPUs of one host"
has_finding LOG_NCCL_TESTS_NO_RESULT "a test with no result row: its finding"
printf '%s\n' '#      bytes             N    type      op     time  algbw  busbw      res' \
	'           8             2   float     sum    0.041   0.00   0.00    0e+00' >"$ND_TMP/nt2.log"
run_nd logs --json "$ND_TMP/nt2.log"
no_finding LOG_NCCL_TESTS_NO_RESULT "a result row after the header: the collective finished"
no_cause p2p_pcie_acs_iommu "a test with results names no P2P cause"

# nccl-tests rows with #wrong > 0 (logs/read/teststab.c) and the footer's
# "Out of bounds values : N FAILED" (TB02): data corrupted, which collective,
# size and placement; behind an Open MPI --tag-output prefix too
H1='#                                                              out-of-place                       in-place'
H2='#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong'
R1='           8             2     float     sum      -1    18.03    0.00    0.00      0    17.88    0.00    0.00      0'
R2='     1048576        262144     float     sum      -1    45.10   23.25   23.25     12    44.90   23.35   23.35      0'
R3='     2097152        524288     float     sum      -1    60.10   34.89   34.89      0    59.90   35.01   35.01      3'
printf '%s\n' '# Collective test starting: all_reduce_perf' "$H1" "$H2" "$R1" "$R2" "$R3" '# Out of bounds values : 15 FAILED' >"$ND_TMP/wrong.log"
run_nd logs --json "$ND_TMP/wrong.log"
first p2p_pcie_acs_iommu "nccl-tests rows with wrong elements: corrupted P2P data first"
json_checks 'next(f for f in d["findings"] if f["id"] == "LOG_NCCL_TESTS_WRONG_DATA")["title"].startswith("nccl-tests counted wrong elements in 2 of 3 rows: all_reduce_perf at 1048576 B (float sum) has 12 wrong out of place")' "the title names the collective, size and placement" \
	'sum("0 wrong out of place, 3 in place" in e["text"] for f in d["findings"] for e in f["evidence"]) == 1' "the in-place row is evidence"
sed 's/^/[1,0]<stdout>:/' "$ND_TMP/wrong.log" | grep -v 'Out of bounds' >"$ND_TMP/wrong-mpi.log"
run_nd logs --json "$ND_TMP/wrong-mpi.log"
has_finding LOG_NCCL_TESTS_WRONG_DATA "rows behind a launcher prefix, no footer: still wrong data"
printf '%s\n' "$H2" "$R1" "${R2/     12 /    N\/A }" '# Out of bounds values : 0 OK' "$R2" >"$ND_TMP/right.log"
sed -i 's/      0$/    N\/A/' "$ND_TMP/right.log"
run_nd logs --json "$ND_TMP/right.log"
no_finding LOG_NCCL_TESTS_WRONG_DATA "#wrong 0 or N/A (-c 0), 'Out of bounds values : 0 OK', and text after the footer: no wrong data"
no_cause p2p_pcie_acs_iommu "a clean table names no P2P cause"

# NCCL 2.4-2.7's CUDA IPC warnings (transport/p2p.cc), classed by the generated table
printf '%s\n' 'h:1:2 [0] transport/p2p.cc:159 NCCL WARN rank 0 failed to get CUDA IPC handle to device 1(=3b000) : 1 invalid argument' \
	'h:1:2 [0] NCCL INFO transport.cc:34 -> 3' >"$ND_TMP/t6.log"
run_nd logs --json "$ND_TMP/t6.log"
first p2p_virtualization "cudaIpcGetMemHandle on NCCL's own buffer failed: legacy CUDA IPC missing"
no_cause custom_allreduce_or_cumem "NCCL 2.4-2.7's IPC handle of its P2P buffer is no cuMem"
printf '%s\n' 'h:1:2 [0] transport/p2p.cc:237 NCCL WARN failed to open CUDA IPC handle : 33 invalid resource handle' \
	'h:1:2 [0] NCCL INFO transport.cc:163 -> 1' >"$ND_TMP/t6o.log"
run_nd logs --json "$ND_TMP/t6o.log"
no_cause custom_allreduce_or_cumem "opening the peer's IPC handle is no cuMem either"
no_cause p2p_virtualization "opening a peer's handle: the message alone does not say a VM"
# kernel lines pasted with the job's output: IOMMU DMA faults are P2P's (AMD-Vi, Intel DMAR)
printf '%s\n' "[Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600003 milliseconds before timing out." \
	"[  312.404410] nvidia 0000:41:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x0027 address=0xfc8f0000 flags=0x0020]" >"$ND_TMP/t6io.log"
run_nd logs --json "$ND_TMP/t6io.log"
first p2p_pcie_acs_iommu "a timeout beside AMD-Vi page faults: the IOMMU blocks P2P"
has_finding LOG_IOMMU_FAULT "AMD-Vi IO_PAGE_FAULT: its finding"
echo "[ 1021.1] DMAR: [DMA Write NO_PASID] Request device [b1:00.0] fault addr 0x3bfe0000 [fault reason 0x05] PTE Write access is not set" >"$ND_TMP/t6dm.log"
run_nd logs --json "$ND_TMP/t6dm.log"
first p2p_pcie_acs_iommu "an Intel DMAR fault: the IOMMU"
echo "[    0.512] DMAR: IOMMU enabled" >"$ND_TMP/t6dm2.log"
run_nd logs --json "$ND_TMP/t6dm2.log"
no_finding LOG_IOMMU_FAULT "the IOMMU's boot line is no fault"
# the P2P transport's CUDA call failing with 'invalid argument': the legacy IPC import (cuMem off, another namespace)
echo "node1:9:9 [0] transport/p2p.cc:298 NCCL WARN Cuda failure 'invalid argument'" >"$ND_TMP/ipc.log"
run_nd logs --json "$ND_TMP/ipc.log"
first custom_allreduce_or_cumem "p2p.cc's invalid argument: the IPC import, cuMem"
has_finding LOG_P2P_IPC_OPEN_FAILED "p2p.cc's invalid argument: its finding"
echo "node1:9:9 [0] enqueue.cc:1 NCCL WARN Cuda failure 'invalid argument'" >"$ND_TMP/ipc2.log"
run_nd logs --json "$ND_TMP/ipc2.log"
no_finding LOG_P2P_IPC_OPEN_FAILED "invalid argument elsewhere is no IPC import"
finish
