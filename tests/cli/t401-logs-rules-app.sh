#!/bin/bash
# nccl-doctor logs: the rules of the application and its framework (app.c),
# each on small constructed lines in the real formats, once where it fires and
# once where it must not (docs/logs.md says which public cases motivated
# each):
#  - collective mismatches a transport reports (NET/Socket, NET/IB pasted
#    bare);
#  - a failed assertion is a rank that died;
#  - PyTorch's "Some NCCL operations have failed or timed out" after an NCCL
#    error is its echo, not a timeout;
#  - a launcher's exit code after nccl-tests: failed (1-3, 6), not a hang;
#    testTimeout (4) is one.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

absent() { json_check "not any(c['cause'] == '$1' for c in d['causes'])" "$2"; }
# nccl-tests' GPU lines: N GPUs of model M on host h1
gpus() {
	local i
	echo "# Using devices"
	for i in $(seq 0 $(($1 - 1))); do
		printf '#  Rank %2d Group  0 Pid    500 on         h1 device %2d [0000:%02x:00] %s\n' "$i" "$i" $((16 + i)) "$2"
	done
}
title_has() { json_check "any(f['id'] == '$1' and '$2' in f['title'] for f in d['findings'])" "$3"; }

echo "node1:4242:4300 [0] transport/net_socket.cc:410 NCCL WARN NET/Socket : peer 10.0.0.2<41877> message truncated : receiving 1048576 bytes instead of 65536" >"$ND_TMP/ns.log"
run_nd logs --json "$ND_TMP/ns.log"
first collective_mismatch_app_bug "NET/Socket message truncated: still a collective mismatch"

# NET/IB collective mismatch pasted bare
echo "Run multi-worker with nccl error: NET/IB : collective mismatch error" >"$ND_TMP/ibmm.log"
run_nd logs --json "$ND_TMP/ibmm.log"
first collective_mismatch_app_bug "bare IB collective mismatch: the message's own class first"
top3 version_mismatch "bare IB collective mismatch: different NCCL versions among the first three"
top3 nccl_config_error "bare IB collective mismatch: settings among the first three"

# a failed assertion
{ echo "[Usage] Multi-GPU training hangs: Watchdog caught collective operation timeout"
  echo '../aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [44,0,0], thread: [70,0,0] Assertion `index >= -sizes[i] && index < sizes[i] && "index out of bounds"` failed.'; } >"$ND_TMP/assert.log"
run_nd logs --json "$ND_TMP/assert.log"
first peer_died_or_oom "a device-side assert beside a watchdog timeout: the rank that died"
echo "AssertionError: shapes differ" >"$ND_TMP/pyassert.log"
run_nd logs --json "$ND_TMP/pyassert.log"
absent peer_died_or_oom "Python's AssertionError alone: not a dead rank"

# PyTorch's "Some NCCL operations have failed or timed out" after an NCCL error
e='[rank0]:[E1203 08:11:35.9 ProcessGroupNCCL.cpp:612] [Rank 0] Collective WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=20000) raised the following async exception: NCCL error: remote process exited or there was a network error, NCCL version 2.28.9'
s='[rank0]:[E1203 08:12:40.3 ProcessGroupNCCL.cpp:750] [Rank 0] Some NCCL operations have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.'
printf '%s\n' "$e" "$s" >"$ND_TMP/t5.log"
run_nd logs --json "$ND_TMP/t5.log"
sev_of LOG_WATCHDOG_TIMEOUT warning "the line after a remote error: no timeout (a warning)"
first peer_died_or_oom "the remote error explains the run"
no_cause collective_mismatch_app_bug "no collective-timeout candidates"
printf '%s\n' "$s" "$e" >"$ND_TMP/t5n.log"
run_nd logs --json "$ND_TMP/t5n.log"
sev_of LOG_WATCHDOG_TIMEOUT error "the line before any error stays a timeout marker"
printf '%s\n' '[rank0]:[E1203 08:12:39 ProcessGroupNCCL.cpp:1200] NCCL communicator was aborted on rank 0.' "$s" >"$ND_TMP/t5a.log"
run_nd logs --json "$ND_TMP/t5a.log"
sev_of LOG_WATCHDOG_TIMEOUT error "an abort before it is no NCCL error that explains it: still a timeout marker"
printf '%s\n' "$e" "$s" '[rank0]:[E1203 08:12:41 ProcessGroupNCCL.cpp:632] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=2, OpType=ALLREDUCE, Timeout(ms)=20000) ran for 20001 milliseconds before timing out.' >"$ND_TMP/t5t.log"
run_nd logs --json "$ND_TMP/t5t.log"
sev_of LOG_WATCHDOG_TIMEOUT error "a real timeout line keeps the timeout"

# a launcher's exit code after nccl-tests
tests_tail() {
	printf '%s\n' '#       size         count    type   redop     time   algbw   busbw  error     time   algbw   busbw  error' \
		'h1:500:500 [0] NCCL INFO Launch mode Parallel' \
		'mpirun detected that one or more processes exited with non-zero status, thus causing' \
		'the job to be terminated. The first process to do so was:' '' \
		'  Process name: [[11192,1],8]' "  Exit code:    $1"
}
tests_tail 3 >"$ND_TMP/t3.log"
run_nd logs --json "$ND_TMP/t3.log"
sev_of LOG_NCCL_TESTS_EXIT error "exit code 3 after nccl-tests: testNcclError, the run failed"
sev_of LOG_HANG_STAGE_UNKNOWN info "and the stop is no possible hang"
title_has LOG_HANG_STAGE_UNKNOWN 'not a hang' "the stage finding says why"
expect_rc 2 "a failed run: problem found"
tests_tail 4 >"$ND_TMP/t3t.log"
run_nd logs --json "$ND_TMP/t3t.log"
no_finding LOG_NCCL_TESTS_EXIT "exit code 4 is testTimeout: no 'did not hang'"
sev_of LOG_HANG_STAGE_UNKNOWN error "testTimeout: the stop is a hang"
tests_tail 3 | grep -v size >"$ND_TMP/t3n.log"
run_nd logs --json "$ND_TMP/t3n.log"
no_finding LOG_NCCL_TESTS_EXIT "an exit code with no nccl-tests output says nothing of nccl-tests' codes"
{ gpus 2 'Tesla V100-SXM2-32GB'; echo 'srun: error: node12: task 1: Exited with exit code 2'; } >"$ND_TMP/t3s.log"
run_nd logs --json "$ND_TMP/t3s.log"
title_has LOG_NCCL_TESTS_EXIT 'testCudaError' "Slurm's exit code 2 after nccl-tests' GPU lines: a CUDA error"
# nccl-tests' own error lines (src/common.h NCCLCHECK / CUDACHECK: 'Test NCCL
# failure FILE:LINE 'TEXT'', 'Test CUDA failure ...') map through the NCCL and
# CUDA catalogs by the text they quote
nt_err() { # LINE CAUSE-OR-FINDING DESC
	printf '%s\n' "$1" >"$ND_TMP/nterr.log"
	run_nd logs --json "$ND_TMP/nterr.log"
	case $2 in
	LOG_*) has_finding "$2" "$3" ;;
	*) first "$2" "$3" ;;
	esac
}
nt_err "node1: Test CUDA failure common.cu:892 'out of memory'" peer_died_or_oom "Test CUDA failure 'out of memory': a rank out of GPU memory"
nt_err "test: Test CUDA failure common.cu:941 'system not yet initialized'" fabric_manager_nvswitch "Test CUDA failure 'system not yet initialized': the fabric manager"
nt_err "Test CUDA failure common.cu:1007 'CUDA-capable device(s) is/are busy or unavailable'" LOG_CUDA_FAILURE "Test CUDA failure: CUDA's catalog names it"
nt_err "  pid 1: Test NCCL failure common.cu:1012 'remote process exited or there was a network error'" LOG_NCCL_REMOTE_ERROR "Test NCCL failure: ncclRemoteError by its text"
nt_err "fastmoe: Test NCCL failure common.cu:777 'unhandled system error'" LOG_NCCL_ERROR "Test NCCL failure: an NCCL error by its text"

finish
