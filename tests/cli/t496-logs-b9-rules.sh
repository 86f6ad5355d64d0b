#!/bin/bash
# nccl-doctor logs: the rules added after scoring the held-out public batch 9
# (tests/fixtures/logs/public 127-133, docs/logs.md), each on small
# constructed lines in the real formats, once where it fires and once where
# it must not:
#  - NCCL's error strings alone (S68c): a title with the words run together;
#  - NCCL 2.3's /dev/shm allocation: EINTR (S52e, an NCCL bug) against
#    ENOSPC (S52u, a full /dev/shm), also pasted without header or tag;
#  - an IB memory registration out of memory: the buffer size a candidate;
#  - a connection closed during bootstrap: an NCCL bug before 2.27.3 or the
#    network;
#  - PyTorch's "Some NCCL operations have failed or timed out" after an
#    NCCL error is no timeout;
#  - NCCL 2.4-2.7's CUDA IPC messages of its own P2P buffers (generated
#    table): getting a handle is legacy IPC missing (p2p_virtualization),
#    opening one depends on the CUDA error; neither is cuMem.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}


# 1. NCCL's error string with the framework's words run together (S68c)
printf '%s\n' 'Serving : NCCLerror: unhandled system error (run withNCCL DEBUG=INFo for details)' >"$ND_TMP/t1.log"
run_nd logs --json "$ND_TMP/t1.log"
has_finding LOG_NCCL_ERROR "NCCL's 'unhandled system error' read without its usual prefix"
first shm_too_small "a bare ncclSystemError: the result code's priors, /dev/shm first"
printf '%s\n' 'the handler logs unhandled system events (run with DEBUG for details)' >"$ND_TMP/t1n.log"
run_nd logs --json "$ND_TMP/t1n.log"
no_finding LOG_NCCL_ERROR "other 'unhandled ... error' text is no NCCL error"
no_cause shm_too_small "other text: no /dev/shm prior"
echo 'UnknownError (see above for traceback): ncclCommInitRank failed: unhandled cuda error' >"$ND_TMP/t1h.log"
run_nd logs --json "$ND_TMP/t1h.log"
first version_mismatch "Horovod's own row still speaks for its line (S68c comes last)"

# 2. /dev/shm allocation of NCCL 2.3: EINTR is NCCL's bug, ENOSPC a full /dev/shm
printf '%s\n' 'WARN Unable to allocate shared memory (4214784 bytes) : Interrupted system call' >"$ND_TMP/t2.log"
run_nd logs --json "$ND_TMP/t2.log"
first driver_or_kernel_bug "EINTR from posix_fallocate: NCCL 2.3's missing retry"
has_finding LOG_SHM_ALLOC_INTERRUPTED "EINTR: its finding"
no_cause shm_too_small "EINTR is not a full /dev/shm"
printf '%s\n' 'h:1:2 [0] include/shm.h:26 NCCL WARN Unable to allocate shared memory (4214784 bytes) : No space left on device' >"$ND_TMP/t2n.log"
run_nd logs --json "$ND_TMP/t2n.log"
first shm_too_small "ENOSPC from posix_fallocate: /dev/shm full"
no_finding LOG_SHM_ALLOC_INTERRUPTED "ENOSPC is not the EINTR bug"

# 3. an IB memory registration out of memory: NCCL's buffer size is a candidate
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

# 4. a connection closed during bootstrap (S08 with bootstrap.cc in its back-trace)
bt() {
	printf '%s\n' "[0] misc/socket.cc:71 NCCL WARN socketProgress: Connection closed by remote peer 10.10.1.3<36138>" \
		'[0] NCCL INFO misc/socket.cc:80 -> 6' "[0] NCCL INFO $1 -> 6" '[0] NCCL INFO init.cc:1402 -> 6'
}
bt bootstrap.cc:701 >"$ND_TMP/t4.log"
run_nd logs --json "$ND_TMP/t4.log"
has_finding LOG_BOOTSTRAP_PEER_CLOSED "a closed connection in bootstrap: its finding"
top3 driver_or_kernel_bug "no version 2.27.3+: NCCL's bootstrap bug a candidate"
top3 bootstrap_network "a closed connection in bootstrap: the network a candidate"
{ echo '[0] NCCL INFO NCCL version 2.28.3+cuda12.9'; bt bootstrap.cc:701; } >"$ND_TMP/t4v.log"
run_nd logs --json "$ND_TMP/t4v.log"
has_finding LOG_BOOTSTRAP_PEER_CLOSED "2.28.3: the finding stays"
json_check "not any(c['cause'] == 'driver_or_kernel_bug' and 'LOG_BOOTSTRAP_PEER_CLOSED' in c.get('findings', []) for c in d['causes'])" "2.28.3 has the fix: no NCCL-bug weight from this rule"
bt transport/net.cc:1508 >"$ND_TMP/t4n.log"
run_nd logs --json "$ND_TMP/t4n.log"
no_finding LOG_BOOTSTRAP_PEER_CLOSED "a closed connection in the data path is not bootstrap's"
first peer_died_or_oom "a closed connection in the data path: a dead peer"

# 5. PyTorch's "Some NCCL operations have failed or timed out" after an NCCL error
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

# 6. NCCL 2.4-2.7's CUDA IPC warnings (transport/p2p.cc), classed by the generated table
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
finish
