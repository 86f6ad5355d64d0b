#!/bin/bash
# nccl-doctor logs: the rules of the cross-domain priors (priors.c), each on
# small constructed lines in the real formats, once where it fires and once
# where it must not (docs/logs.md says which public cases motivated each):
#  - a framework's NCCL result code with nothing more specific: the code's
#    usual causes, `unknown` behind them; the libnccl build first for
#    programs that load the system's libnccl (PaddlePaddle fluid too) and
#    for vLLM's pynccl; 'unknown result code': a header/library skew;
#  - ncclRemoteError: the network below a dead peer (IB, or the sockets when
#    NCCL used NET/Socket or named no transport), not on one host;
#  - a transport switched off where the run was started: that transport's
#    fallback causes go, a cause a line names stays.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

absent() { json_check "not any(c['cause'] == '$1' for c in d['causes'])" "$2"; }
# the head of one process's NCCL log on one host, cut at T2 (no hang marker)
head_t2() {
	printf '%s\n' \
		"h1:500:500 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>" \
		"h1:500:500 [0] NCCL INFO cudaDriverVersion 12040" \
		"h1:500:500 [0] NCCL INFO NCCL version ${1:-2.26.5}+cuda12.4" \
		"h1:500:510 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin."
}
not_top3() { json_check "not any(c['cause'] == '$1' for c in d['causes'][:3])" "$2"; }
nothing_out() { json_check "not any('taken out' in e.get('text', '') for f in d['findings'] for e in f['evidence'])" "$1"; }
present() { json_check "any(c['cause'] == '$1' for c in d['causes'])" "$2"; }

# result-code priors
echo "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)" >"$ND_TMP/cuda.log"
run_nd logs --json "$ND_TMP/cuda.log"
first driver_or_kernel_bug "unhandled cuda error alone: a bug of the NCCL or driver version first (the corpus's base rate)"
json_check "next(c for c in d['causes'] if c['cause'] == 'driver_or_kernel_bug')['confidence'] <= 0.25" "unhandled cuda error alone: a weak prior, not evidence"
top3 gpu_hardware "unhandled cuda error: the GPU among the first three"
present p2p_virtualization "unhandled cuda error: P2P in a VM a candidate"
present p2p_pcie_acs_iommu "unhandled cuda error: P2P on bare metal a candidate"
not_top3 unknown "unhandled cuda error: unknown steps back below the code's priors"
json_check "any(c['cause'] == 'version_mismatch' for c in d['causes'])" "unhandled cuda error: a libnccl for another CUDA is a candidate"
echo "[rank0]: RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)" >"$ND_TMP/usage.log"
run_nd logs --json "$ND_TMP/usage.log"
top3 version_mismatch "invalid usage: mixed libnccl versions among the first three"
not_top3 unknown "invalid usage: unknown steps back"

echo "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, internal error - please report this issue to the NCCL developers, NCCL version 2.18.5" >"$ND_TMP/internal.log"
run_nd logs --json "$ND_TMP/internal.log"
top3 nccl_config_error "internal error: a topology/graph file NCCL cannot read among the first three"

# ncclRemoteError
cat >"$ND_TMP/remote.log" <<'LOG'
torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5
ncclRemoteError: A call failed possibly due to a network error or a remote process exiting prematurely.
Last error:
socketProgressOpt: Call to recv from 10.1.2.3<33759> failed : Connection reset by peer
LOG
run_nd logs --json "$ND_TMP/remote.log"
first peer_died_or_oom "remote error: a dead peer first"
top3 ib_rdma_config "remote error: the IB network among the first three"
{ echo "node1:4242:4242 [0] NCCL INFO NET/Socket : Using [0]eth0:10.1.2.2<0>"; cat "$ND_TMP/remote.log"; } >"$ND_TMP/remote-sock.log"
run_nd logs --json "$ND_TMP/remote-sock.log"
present bootstrap_network "remote error where NCCL used NET/Socket: the sockets' network"
absent ib_rdma_config "remote error where NCCL used NET/Socket: not IB"
sed 's/10\.1\.2\.3/127.0.0.1/' "$ND_TMP/remote.log" >"$ND_TMP/remote-lo.log"
run_nd logs --json "$ND_TMP/remote-lo.log"
absent ib_rdma_config "remote error from a loopback peer: no network between the ranks"
cat >"$ND_TMP/remote-onehost.log" <<'LOG'
gpu1:100:100 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 commId 0xabc - Init COMPLETE
gpu1:101:101 [1] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 1 busId 2000 commId 0xabc - Init COMPLETE
gpu1:100:120 [0] misc/socket.cc:49 NCCL WARN socketProgressOpt: Call to recv from 10.1.2.3<33759> failed : Connection reset by peer
[rank0]: torch.distributed.DistBackendError: NCCL error in: NCCLUtils.hpp:268, remote process exited or there was a network error, NCCL version 2.21.5
LOG
run_nd logs --json "$ND_TMP/remote-onehost.log"
absent ib_rdma_config "remote error with every rank on one host: no network prior"

# unhandled CUDA error from programs that load the system's libnccl
echo "Test NCCL failure common.cu:777 'unhandled cuda error'" >"$ND_TMP/tests.log"
run_nd logs --json "$ND_TMP/tests.log"
first version_mismatch "nccl-tests' unhandled cuda error: the libnccl build first"
echo "UnknownError (see above for traceback): ncclCommInitRank failed: unhandled cuda error" >"$ND_TMP/horovod.log"
run_nd logs --json "$ND_TMP/horovod.log"
first version_mismatch "Horovod's unhandled cuda error (built against the system libnccl): the build first"
echo "UnknownError (see above for traceback): ncclCommInitRank failed: unhandled system error" >"$ND_TMP/horovod2.log"
run_nd logs --json "$ND_TMP/horovod2.log"
first shm_too_small "Horovod's unhandled system error: the system error's priors"
echo "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)" >"$ND_TMP/torch.log"
run_nd logs --json "$ND_TMP/torch.log"
not_first version_mismatch "PyTorch's unhandled cuda error (its own libnccl): the build is not first"
echo "_Check_ failed: result == ncclSuccess (1 vs. 0)  unhandled cuda _error_" >"$ND_TMP/caffe.log"
run_nd logs --json "$ND_TMP/caffe.log"
first version_mismatch "Caffe's NCCL_CHECK, code 1 with garbled text: the libnccl build first"
json_check "not any(c['cause'] == 'unknown' for c in d['causes'][:3])" "Caffe's NCCL_CHECK: the code's priors above unknown"
echo "F0404 10:13:40.1 12760 nccl.hpp:30] Check failed: result == ncclSuccess (2 vs. 0)  unhandled system _error_" >"$ND_TMP/caffe2.log"
run_nd logs --json "$ND_TMP/caffe2.log"
first shm_too_small "Caffe's NCCL_CHECK, code 2: the system error's priors"
absent version_mismatch "Caffe's NCCL_CHECK, code 2: no CUDA build prior"

# ncclInvalidUsage raised through vLLM's pynccl (NCCL inside CUDA graphs)
cat >"$ND_TMP/pynccl.log" <<'LOG'
[rank0]:   File "/home/u/vllm/vllm/distributed/device_communicators/pynccl_wrapper.py", line 223, in NCCL_CHECK
[rank0]:     raise RuntimeError(f"NCCL error: {error_str}")
[rank0]: RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)
LOG
run_nd logs --json "$ND_TMP/pynccl.log"
first version_mismatch "invalid usage through vLLM's pynccl: the libnccl build first"
echo "[rank0]: RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)" >"$ND_TMP/usage.log"
run_nd logs --json "$ND_TMP/usage.log"
not_first version_mismatch "invalid usage without pynccl: the build is one prior among equals"

# a transport switched off where the run was started
{ echo 'root@h1:/nccl-tests# CUDA_VISIBLE_DEVICES=0,1 NCCL_P2P_DISABLE=1 NCCL_DEBUG=INFO ./build/all_reduce_perf -g 2'; head_t2; } >"$ND_TMP/t1.log"
run_nd logs --json "$ND_TMP/t1.log"
no_cause p2p_pcie_acs_iommu "NCCL_P2P_DISABLE=1 on the command line: P2P over PCIe out of the fallbacks"
no_cause p2p_virtualization "NCCL_P2P_DISABLE=1: P2P in a VM out too"
has_cause shm_too_small "the other intra-node paths stay"
has_finding LOG_ENV_TRANSPORT_SWITCH "the switch's finding says what was taken out"
{ echo 'if it hangs, try (NCCL_P2P_DISABLE=1) and rerun'; head_t2; } >"$ND_TMP/t1n.log"
run_nd logs --json "$ND_TMP/t1n.log"
has_cause p2p_pcie_acs_iommu "advice text in parentheses is no command line: P2P stays"
{ echo 'root@h1:/nccl-tests# NCCL_P2P_DISABLE=0 ./build/all_reduce_perf -g 2'; head_t2; } >"$ND_TMP/t1z.log"
run_nd logs --json "$ND_TMP/t1z.log"
has_cause p2p_pcie_acs_iommu "NCCL_P2P_DISABLE=0 does not disable P2P"
{ echo 'export NCCL_SHM_DISABLE=1'; head_t2; } >"$ND_TMP/t1s.log"
run_nd logs --json "$ND_TMP/t1s.log"
no_cause shm_too_small "export NCCL_SHM_DISABLE=1: /dev/shm out of the fallbacks"
has_cause p2p_pcie_acs_iommu "P2P stays when only SHM is off"
{ echo 'mpirun -np 2 -x NCCL_P2P_DISABLE=1 ./all_reduce_perf'; head_t2
  echo 'h1:500:510 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC'; } >"$ND_TMP/t1p.log"
run_nd logs --json "$ND_TMP/t1p.log"
nothing_out "a P2P connection in the log: the switch did not apply to this run, nothing taken out"
has_cause p2p_pcie_acs_iommu "and P2P stays a candidate"
printf '%s\n' 'h1:500:500 [0] NCCL INFO NCCL_P2P_DISABLE set by environment to 1.' >"$ND_TMP/t1e.log"
head_t2 >>"$ND_TMP/t1e.log"
run_nd logs --json "$ND_TMP/t1e.log"
no_cause p2p_pcie_acs_iommu "NCCL's own 'set by environment' line switches P2P off as well"
{ echo 'NCCL_P2P_DISABLE=1 python train.py'
  echo 'h1:500:510 [0] transport/p2p.cc:300 NCCL WARN failed to open CUDA IPC handle : 201 invalid device context'
  echo 'h1:500:510 [0] NCCL INFO transport.cc:163 -> 1'; } >"$ND_TMP/t1w.log"
run_nd logs --json "$ND_TMP/t1w.log"
nothing_out "a warning from NCCL's P2P transport: P2P ran, the switch was not this run's"

# ncclRemoteError with no transport named
r='torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, remote process exited or there was a network error, NCCL version 2.18.6'
echo "$r" >"$ND_TMP/t4.log"
run_nd logs --json "$ND_TMP/t4.log"
first bootstrap_network "the remote error alone: the sockets' connect first (most of socket.cc's ncclRemoteError returns)"
top3 peer_died_or_oom "the remote error alone: the dead peer among the first three"
printf '%s\n' "$r" 'Last error:' 'socketProgress: Connection closed by remote peer node2<42830>' >"$ND_TMP/t4c.log"
run_nd logs --json "$ND_TMP/t4c.log"
no_cause bootstrap_network "a connection that closed existed: no interface candidate from this rule"
printf '%s\n' 'h1:500:510 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>' "$r" >"$ND_TMP/t4ib.log"
run_nd logs --json "$ND_TMP/t4ib.log"
no_cause bootstrap_network "IB named: the IB reading stands"
# release age (nccl-release-age): a generic CUDA error and an old NCCL
echo "RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:32, unhandled cuda error, NCCL version 2.4.8" >"$ND_TMP/age.log"
run_nd logs --json "$ND_TMP/age.log"
first driver_or_kernel_bug "unhandled cuda error with NCCL 2.4.8: the upgrade first"
json_check "next(c for c in d['causes'] if c['cause'] == 'driver_or_kernel_bug')['confidence'] > 0.25" \
  "unhandled cuda error with NCCL 2.4.8: the release's age raises the bug above the code's prior"
has_finding LOG_NCCL_OLD_RELEASE "unhandled cuda error with NCCL 2.4.8: the release's age is a finding"
sed 's/2\.4\.8/2.27.3/' "$ND_TMP/age.log" >"$ND_TMP/age2.log"
run_nd logs --json "$ND_TMP/age2.log"
json_check "next(c for c in d['causes'] if c['cause'] == 'driver_or_kernel_bug')['confidence'] < 0.25" \
  "unhandled cuda error with NCCL 2.27.3: a recent release adds next to nothing to the code's prior"
sed 's/unhandled cuda error/unhandled system error/' "$ND_TMP/age.log" >"$ND_TMP/age3.log"
run_nd logs --json "$ND_TMP/age3.log"
json_check "not any(f['id'] == 'LOG_NCCL_OLD_RELEASE' for f in d['findings'])" "unhandled system error with NCCL 2.4.8: no release-age finding (a system call failed)"

# ncclGetErrorString's default case: a code the library does not know
echo "Failed, NCCL error /src/cpp/plugins/ncclPlugin/allreducePlugin.cpp:183 'unknown result code'" >"$ND_TMP/unk.log"
run_nd logs --json "$ND_TMP/unk.log"
first version_mismatch "'unknown result code': the caller's headers and the libnccl differ"
echo "Failed, NCCL error /src/cpp/plugins/ncclPlugin/allreducePlugin.cpp:183 'invalid argument'" >"$ND_TMP/unk2.log"
run_nd logs --json "$ND_TMP/unk2.log"
no_cause version_mismatch "a known result code is no skew by itself"
# PaddlePaddle fluid dlopens the system's libnccl: the build comes first
echo "paddle.fluid.core.EnforceNotMet: unhandled cuda error at [/ws/paddle/fluid/platform/nccl_helper.h:93]" >"$ND_TMP/paddle.log"
run_nd logs --json "$ND_TMP/paddle.log"
first version_mismatch "PaddlePaddle fluid's unhandled cuda error: the system libnccl's build first"
echo "EnforceNotMet: unhandled cuda error at [/ws/paddle/phi/core/distributed/nccl_comm_context.cc:93]" >"$ND_TMP/paddle2.log"
run_nd logs --json "$ND_TMP/paddle2.log"
json_check "d['causes'][0]['cause'] != 'version_mismatch' or d['causes'][0]['confidence'] < 0.3" "a source outside fluid's platform/: the code's priors alone"

finish
