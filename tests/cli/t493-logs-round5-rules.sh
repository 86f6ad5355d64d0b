#!/bin/bash
# nccl-doctor logs: the general rules of issue 14's fifth accuracy round
# (docs/logs.md "Round 5"), on small constructed logs in the real formats,
# each with a case where the rule must not fire:
#  - a bare watchdog timeout follows PyTorch's own reading (collectives used
#    differently across ranks) unless its SeqNum or prefix says more; a late
#    one in vLLM names its custom all-reduce (not when vLLM reported it off,
#    nor for a group that spans nodes);
#  - ncclRemoteError names the network below a dead peer (IB, or sockets when
#    NCCL used NET/Socket), not on one host or for a loopback peer;
#  - an unhandled CUDA error from nccl-tests, Caffe or Horovod (the system's libnccl)
#    puts the libnccl build for another CUDA first; Caffe's "(N vs. 0)" names
#    the code when the text is garbled;
#  - ncclInvalidUsage through vLLM's pynccl (NCCL in CUDA graphs) puts the
#    libnccl build first;
#  - a warning NCCL's own table classifies takes that class in its finding;
#  - a failed assertion (CUDA device-side assert, assert()) is a rank that died.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

absent() { json_check "not any(c['cause'] == '$1' for c in d['causes'])" "$2"; }
present() { json_check "any(c['cause'] == '$1' for c in d['causes'])" "$2"; }

wd() { # wd PREFIX SEQ: one watchdog line
  echo "$1[rank1]:[E511 21:37:10.112405891 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=$2, OpType=GATHER, NumelIn=8000, NumelOut=0, Timeout(ms)=600000) ran for 600327 milliseconds before timing out."
}

# bare watchdog timeouts
echo "[rank0]: Watchdog caught collective operation timeout" >"$ND_TMP/noseq.log"
run_nd logs --json "$ND_TMP/noseq.log"
first collective_mismatch_app_bug "watchdog without a SeqNum: PyTorch's reading (the application) first"
present unknown "watchdog without a SeqNum: unknown (what to collect) among the candidates"
json_check "any('PyTorch' in e['text'] for f in d['findings'] if f['id'] == 'LOG_HANG_DATA_PATH' for e in f['evidence'])" "watchdog: the finding says whose reading it is"
wd "" 5 >"$ND_TMP/late.log"
run_nd logs --json "$ND_TMP/late.log"
first collective_mismatch_app_bug "late watchdog timeout: the application first"
absent custom_allreduce_or_cumem "late watchdog timeout without vLLM: no custom all-reduce"
wd "" 1 >"$ND_TMP/first.log"
run_nd logs --json "$ND_TMP/first.log"
first p2p_pcie_acs_iommu "first-collective timeout on one host: the P2P path first"
wd "(RayWorkerWrapper pid=2376582) " 50404 >"$ND_TMP/vllm.log"
run_nd logs --json "$ND_TMP/vllm.log"
first custom_allreduce_or_cumem "late timeout of a vLLM worker: its custom all-reduce first"
top3 collective_mismatch_app_bug "late timeout of a vLLM worker: the application next"
json_check "any('disable-custom-all-reduce' in e['text'] for f in d['findings'] if f['id'] == 'LOG_HANG_DATA_PATH' for e in f['evidence'])" "vLLM: the finding names the flag that tests it"
{ echo "(VllmWorkerProcess pid=351) WARNING 02-28 12:00:41 custom_all_reduce.py:136] Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs."
  wd "(VllmWorkerProcess pid=351) " 50404; } >"$ND_TMP/vllm-off.log"
run_nd logs --json "$ND_TMP/vllm-off.log"
absent custom_allreduce_or_cumem "vLLM said its custom all-reduce is off: not a candidate"
wd "(RayWorkerWrapper pid=144878, ip=10.52.51.35) " 1 >"$ND_TMP/vllm-ray.log"
run_nd logs --json "$ND_TMP/vllm-ray.log"
absent custom_allreduce_or_cumem "a vLLM group that spans nodes: no custom all-reduce"
top3 version_mismatch "a Ray worker on another node: per-host builds among the first three"

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

# a warning NCCL's own table classifies
echo "vm:590:639 [0] ras/ras.cc:429 NCCL WARN NCCL version mismatch with remote peer 192.0.2.2<53518> (local: 22809, remote 22803)" >"$ND_TMP/ras.log"
run_nd logs --json "$ND_TMP/ras.log"
json_check "any(f['id'] == 'LOG_NCCL_WARNING' and f['cause'] == 'version_mismatch' and 'does not know' not in f['title'] for f in d['findings'])" "RAS version warning: its finding takes NCCL's class"
first version_mismatch "RAS version warning where a hang is possible: its class above the stage's weak priors"
echo "node1:4242:4300 [0] graph/paths.cc:80 NCCL WARN Failed to find reverse path from remNode 0/5f000 nlinks 4 to node 0/cb000" >"$ND_TMP/ctx.log"
run_nd logs --json "$ND_TMP/ctx.log"
json_check "any(f['id'] == 'LOG_NCCL_WARNING' and f['cause'] == 'unknown' for f in d['findings'])" "a warning NCCL's table calls context: no class"

# a failed assertion
{ echo "[Usage] Multi-GPU training hangs: Watchdog caught collective operation timeout"
  echo '../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [44,0,0], thread: [70,0,0] Assertion `index >= -sizes[i] && index < sizes[i] && "index out of bounds"` failed.'; } >"$ND_TMP/assert.log"
run_nd logs --json "$ND_TMP/assert.log"
first peer_died_or_oom "a device-side assert beside a watchdog timeout: the rank that died"
echo "AssertionError: shapes differ" >"$ND_TMP/pyassert.log"
run_nd logs --json "$ND_TMP/pyassert.log"
absent peer_died_or_oom "Python's AssertionError alone: not a dead rank"

finish
