#!/bin/bash
# nccl-doctor logs: the rules added after scoring the held-out public batch 7
# (tests/fixtures/logs/public 105-117, docs/logs.md), each on small
# constructed lines in the real formats, once where it fires and once where
# it must not:
#  - NCCL's own "Cuda failure 'CUDA driver version is insufficient ...'": a
#    libnccl built for a newer CUDA than the driver (S53r);
#  - aws-ofi-nccl's "NET/OFI Unable to register memory" (OF01);
#  - network connection lines outside NCCL's header (CH01): GDRDMA on one
#    side of a connection only, or only GDRDMA connections and nothing else;
#  - GPUDirect RDMA disabled in a run that stopped before Init COMPLETE;
#  - a topology file loaded by a run that stopped (S23t);
#  - "internal error" from NCCL 2.18 (network errors in that release);
#  - nccl-tests output that ends at its result table's header (TB01).
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}


# 1. NCCL's CUDA runtime older than the driver needs (S53r)
printf '%s\n' 'NCCL version 2.1.4+cuda9.1' "h:7:7 [0] init.cu:674 WARN Cuda failure 'CUDA driver version is insufficient for CUDA runtime version'" >"$ND_TMP/drv.log"
run_nd logs --json "$ND_TMP/drv.log"
first version_mismatch "NCCL's Cuda failure 'driver version is insufficient': a libnccl for a newer CUDA"
has_finding LOG_NCCL_CUDA_NEWER_THAN_DRIVER "NCCL's Cuda failure 'driver version is insufficient': its finding"
echo 'RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version' >"$ND_TMP/drv2.log"
run_nd logs --json "$ND_TMP/drv2.log"
no_finding LOG_NCCL_CUDA_NEWER_THAN_DRIVER "the framework's own CUDA error is not NCCL's runtime"
first driver_or_kernel_bug "the framework's own CUDA error stays the driver's"

# 2. aws-ofi-nccl's memory registration (OF01)
echo 'register_mr_buffers:544 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -22, Error: Invalid argument' >"$ND_TMP/ofi.log"
run_nd logs --json "$ND_TMP/ofi.log"
first version_mismatch "NET/OFI cannot register memory: plugin, libfabric and NCCL not made for one another"
has_finding LOG_OFI_REGISTER_MR_FAILED "NET/OFI cannot register memory: its finding"
echo 'h:1:1 [0] NCCL INFO NET/OFI Selected Provider is efa (found 4 nics)' >"$ND_TMP/ofi2.log"
run_nd logs --json "$ND_TMP/ofi2.log"
no_finding LOG_OFI_REGISTER_MR_FAILED "the plugin's provider line is no registration failure"

# 3. network connection lines without NCCL's header (CH01)
printf '%s\n' '9[1a000] -> 2[6b000] [send] via NET/IB/0/GDRDMA' '9[1a000] -> 2[6b000] [receive] via NET/IB/1' >"$ND_TMP/ch.log"
run_nd logs --json "$ND_TMP/ch.log"
first ib_rdma_config "GDRDMA on one side of a connection and not on the other"
has_finding LOG_GDR_DIFFERS "GDRDMA on one side of a connection only: its finding"
printf '%s\n' 'hostA:6213:6213 [4] INFO 3 -> 12 via NET/IB/0/GDRDMA' 'hostA:6201:6201 [2] INFO 7 -> 10 via NET/IB/1/GDRDMA' >"$ND_TMP/ch2.log"
run_nd logs --json "$ND_TMP/ch2.log"
no_finding LOG_GDR_DIFFERS "NCCL 2.2 lines all over GDRDMA differ in nothing"
first ib_rdma_config "a log of GDRDMA connections and nothing else: the GDR path is the lead"
printf '%s\n' '9[1a000] -> 2[6b000] [send] via NET/IB/0' '9[1a000] -> 2[6b000] [receive] via NET/IB/1' >"$ND_TMP/ch3.log"
run_nd logs --json "$ND_TMP/ch3.log"
no_cause ib_rdma_config "connections without GDRDMA alone name no cause"
printf '%s\n' '9[1a000] -> 2[6b000] [send] via NET/IB/0/GDRDMA' '3[3d000] -> 12[1b000] [send] via NET/IB/1' >"$ND_TMP/ch5.log"
run_nd logs --json "$ND_TMP/ch5.log"
no_finding LOG_GDR_DIFFERS "GDRDMA on one connection and not on another (GPU-NIC distance) is no lead"
printf '%s\n' 'hostA:6213:6213 [4] INFO 3 -> 12 via NET/IB/0/GDRDMA' 'RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1, unhandled cuda error' >"$ND_TMP/ch4.log"
run_nd logs --json "$ND_TMP/ch4.log"
json_check "not any(c['cause'] == 'ib_rdma_config' and c['confidence'] >= 0.2 for c in d['causes'])" "GDRDMA lines next to a failure add no prior"

# 4. GPUDirect RDMA disabled in a run that stopped before Init COMPLETE
printf '%s\n' "h:1:2 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'" "h:1:2 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1'" >"$ND_TMP/gdr.log"
run_nd logs --json "$ND_TMP/gdr.log"
first ib_rdma_config "GDR disabled of a run that stopped"
has_finding LOG_GDR_DISABLED_RUN_STOPPED "GDR disabled: its finding"
printf '%s\n' "h:1:2 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'" \
	'h:1:2 [3] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 3 nvmlDev 3 busId 1000 commId 0x5 - Init COMPLETE' >"$ND_TMP/gdr2.log"
run_nd logs --json "$ND_TMP/gdr2.log"
no_finding LOG_GDR_DISABLED_RUN_STOPPED "GDR disabled in a run that completed init is no lead"
printf '%s\n' "h:1:2 [3] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'" \
	"h:1:2 [3] misc/shmutils.cc:72 NCCL WARN Error: failed to extend /dev/shm/nccl-x to 9637892 bytes" >"$ND_TMP/gdr3.log"
run_nd logs --json "$ND_TMP/gdr3.log"
no_finding LOG_GDR_DISABLED_RUN_STOPPED "GDR disabled next to a failure of its own is no lead"

# 5. a topology file loaded by a run that stopped (S23t)
printf '%s\n' 'NCCL version 2.18.5+cuda12.2' 'h:1:2 [1] NCCL INFO Loading topology file /opt/image/topo.xml' 'h:1:2 [1] NCCL INFO Loading unnamed topology' >"$ND_TMP/topo.log"
run_nd logs --json "$ND_TMP/topo.log"
first nccl_config_error "a topology file loaded by a run that stopped"
has_finding LOG_TOPO_FILE_RUN_STOPPED "a topology file loaded by a run that stopped: its finding"
printf '%s\n' 'h:1:2 [1] NCCL INFO Loading topology file /opt/image/topo.xml' \
	'h:1:2 [1] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 1 nvmlDev 1 busId 1000 commId 0x5 - Init COMPLETE' >"$ND_TMP/topo2.log"
run_nd logs --json "$ND_TMP/topo2.log"
no_finding LOG_TOPO_FILE_RUN_STOPPED "a topology file in a run that completed init is no lead"
no_cause nccl_config_error "a topology file in a healthy run names no cause"

# 6. "internal error" from NCCL 2.18
echo 'torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1333, internal error - please report this issue to the NCCL developers, NCCL version 2.18.1' >"$ND_TMP/ie.log"
run_nd logs --json "$ND_TMP/ie.log"
first bootstrap_network "internal error from NCCL 2.18: a network error in that release"
has_finding LOG_NCCL_218_INTERNAL_ERROR "internal error from NCCL 2.18: its finding"
echo 'torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1333, internal error - please report this issue to the NCCL developers, NCCL version 2.19.3' >"$ND_TMP/ie2.log"
run_nd logs --json "$ND_TMP/ie2.log"
no_finding LOG_NCCL_218_INTERNAL_ERROR "internal error from NCCL 2.19 is not 2.18's"
not_first bootstrap_network "internal error from NCCL 2.19 keeps the code's priors"

# 7. nccl-tests output that ends at its result table's header (TB01)
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
finish
