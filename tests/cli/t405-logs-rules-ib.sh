#!/bin/bash
# nccl-doctor logs: the rules of InfiniBand and GPUDirect RDMA (ib.c), each on
# small constructed lines in the real formats, once where it fires and once
# where it must not (docs/logs.md says which public cases motivated each):
#  - verbs errors (also pasted without a header), ENODEV in NCCL's verbs
#    wording (not Gloo's);
#  - network connection lines without NCCL's header: GPUDirect RDMA on one
#    side of a connection only, or only GDRDMA connections;
#  - GPUDirect RDMA disabled in a run that stopped before Init COMPLETE;
#  - an IB memory registration out of memory: the buffer size a candidate.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

echo '`[0] misc/ibvwrap.cc:288 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not supported`' >"$ND_TMP/hl2.log"
run_nd logs --json "$ND_TMP/hl2.log"
first ib_rdma_config "headerless verbs WARN in backticks with its device field"
json_check "d['ranks'] and d['ranks'][0]['host'] == 'unknown host'" "headerless WARN with [dev] is an NCCL line"

# ENODEV
echo "with error No such device --NCCL 2.7.8" >"$ND_TMP/enodev.log"
run_nd logs --json "$ND_TMP/enodev.log"
first ib_rdma_config "NCCL's 'with error No such device': the IB set-up"
echo "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != nullptr. Unable to find address for: eth9 with error No such device" >"$ND_TMP/gloo.log"
run_nd logs --json "$ND_TMP/gloo.log"
no_finding LOG_IB_ERROR "Gloo's ENODEV (no NCCL) is no IB error"

# network connection lines without NCCL's header (CH01)
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

# GPUDirect RDMA disabled in a run that stopped before Init COMPLETE
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

# an IB memory registration out of memory: NCCL's buffer size is a candidate
w='h:318:3584 [5] misc/ibvwrap.cc:183 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Cannot allocate memory'
printf '%s\n' "$w" >"$ND_TMP/t3.log"
run_nd logs --json "$ND_TMP/t3.log"
has_finding LOG_IB_REG_NO_MEMORY "ENOMEM of ibv_reg_dmabuf_mr: its finding"
top3 nccl_config_error "ENOMEM of a registration: the buffer size among the candidates"
json_check "any(c['cause'] == 'nccl_config_error' and abs(c['confidence'] - 0.3) < 0.01 for c in d['causes'])" "no buffer variable seen: 0.3"
printf '%s\n' 'h:318:3584 [5] NCCL INFO NCCL_BUFFSIZE set by environment to 1073741824.' "$w" >"$ND_TMP/t3b.log"
run_nd logs --json "$ND_TMP/t3b.log"
json_check "any(c['cause'] == 'nccl_config_error' and c['confidence'] >= 0.5 for c in d['causes'])" "NCCL_BUFFSIZE set in the log: 0.5"
printf '%s\n' 'h:318:3584 [5] misc/ibvwrap.cc:183 NCCL WARN Call to ibv_reg_dmabuf_mr failed with error Operation not supported' >"$ND_TMP/t3n.log"
run_nd logs --json "$ND_TMP/t3n.log"
no_finding LOG_IB_REG_NO_MEMORY "EOPNOTSUPP of a registration is no memory shortage"
no_cause nccl_config_error "EOPNOTSUPP: no buffer-size candidate"
echo "ip-172-31-3-90:1929:1937 [0] nccl_net_ofi_rdma_init:7978 NCCL WARN NET/OFI OFI fi_getinfo() call failed: No data available" >"$ND_TMP/ofi.log"
run_nd logs --json "$ND_TMP/ofi.log"
first ib_rdma_config "aws-ofi-nccl finds no provider: the fabric devices"
has_finding LOG_OFI_NO_PROVIDER "aws-ofi-nccl finds no provider: its finding"
# NET/Socket on an IPoIB interface in a process without libibverbs (case 509)
printf '%s\n' 'h1:1:2 [0] NCCL INFO Failed to open libibverbs.so[.1]' 'h1:1:2 [0] NCCL INFO NET/Socket : Using [0]ib0:10.1.0.5<0>' \
	'h1:1:2 [0] NCCL INFO Using network Socket' >"$ND_TMP/ipoib.log"
run_nd logs --json "$ND_TMP/ipoib.log"
first ib_rdma_config "NET/Socket over ib0 with no libibverbs: IPoIB instead of RDMA"
has_finding LOG_IB_IPOIB_FALLBACK "IPoIB fallback: its finding"
printf '%s\n' 'h1:1:2 [0] NCCL INFO Failed to open libibverbs.so[.1]' 'h1:1:2 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.0.5<0>' >"$ND_TMP/ipoib2.log"
run_nd logs --json "$ND_TMP/ipoib2.log"
no_finding LOG_IB_IPOIB_FALLBACK "no libibverbs on a machine whose sockets use eth0: no IPoIB lead"
no_finding LOG_IBVERBS_NOT_LOADED "no libibverbs on one host: not even a note"
printf '%s\n' 'h1:1:2 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.' 'h1:1:2 [0] NCCL INFO Failed to open libibverbs.so[.1]' \
	'h1:1:2 [0] NCCL INFO NET/Socket : Using [0]ibp3s0:10.1.0.5<0>' >"$ND_TMP/ipoib3.log"
run_nd logs --json "$ND_TMP/ipoib3.log"
no_finding LOG_IB_IPOIB_FALLBACK "sockets on IPoIB with NCCL_IB_DISABLE=1: what the user asked for"

finish
