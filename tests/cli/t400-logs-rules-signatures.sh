#!/bin/bash
# nccl-doctor logs: the rules of the matched signatures (signatures.c and the
# rows of kb/nccl_signatures.c), each on small constructed lines in the real
# formats, once where it fires and once where it must not (docs/logs.md says
# which public cases motivated each):
#  - NCCL lines pasted without their host:pid:tid [dev] header are NCCL lines
#    of one process "unknown host";
#  - NCCL's result strings as frameworks print them (Caffe's NCCL_CHECK,
#    nccl-tests' first form, the words run together);
#  - a warning NCCL's own message table classifies takes that class;
#  - PyTorch's watchdog frames: checkTimeout's frame is a timeout;
#  - a root warning its process outlived (later start-up lines, no error
#    returned from it) is context, not the failure (rule warn-went-on);
#    with a back-trace, followed only by the communicator's abort, or from
#    a thread beside the main one (IB's async events), it stays the failure.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

# headerless NCCL lines
printf '%s\n' 'graph/xml.h:77 NCCL WARN Attribute arch of node cpu not found' \
	'NCCL INFO graph/topo.cc:380 -> 3' 'NCCL INFO init.cc:581 -> 3' >"$ND_TMP/hl.log"
run_nd logs --json "$ND_TMP/hl.log"
json_check "len(d['ranks']) == 1 and d['ranks'][0]['host'] == 'unknown host'" "headerless lines: one process of 'unknown host'"
json_check "any(e['chain'].startswith('graph/topo.cc:380 -> 3') for e in d['ranks'][0]['events'])" "headerless back-trace joins its WARN"

printf '%s\n' 'INFO 04-13 19:52:24 [multiproc_executor.py:749] Parent process exited' 'some text NCCL INFO without a header' >"$ND_TMP/hl3.log"
run_nd logs --json "$ND_TMP/hl3.log"
json_check "len(d['ranks']) == 0" "vLLM's INFO lines and prose are not NCCL lines"

echo 'F0404 10:13:40.1 12760 nccl.cpp:12] Check failed: result == ncclSuccess (1 vs. 0)  unhandled cuda error' >"$ND_TMP/caffe.log"
run_nd logs --json "$ND_TMP/caffe.log"
has_finding LOG_NCCL_ERROR "Caffe's NCCL_CHECK is an NCCL error"

echo "NCCL failure all_reduce.cu:95 'unhandled cuda error'" >"$ND_TMP/old.log"
run_nd logs --json "$ND_TMP/old.log"
json_check 'any(f["id"] == "LOG_NCCL_ERROR" for f in d["findings"])' "nccl-tests' first error form is an NCCL error"

# a warning NCCL's own table classifies
echo "vm:590:639 [0] ras/ras.cc:429 NCCL WARN NCCL version mismatch with remote peer 192.0.2.2<53518> (local: 22809, remote 22803)" >"$ND_TMP/ras.log"
run_nd logs --json "$ND_TMP/ras.log"
json_check "any(f['id'] == 'LOG_NCCL_WARNING' and f['cause'] == 'version_mismatch' and 'does not know' not in f['title'] for f in d['findings'])" "RAS version warning: its finding takes NCCL's class"
first version_mismatch "RAS version warning where a hang is possible: its class above the stage's weak priors"
json_check "next(f for f in d['findings'] if f['id'] == 'LOG_NCCL_WARNING')['fixes'][0]['text'].startswith('Compare the NCCL, CUDA and driver versions')" \
  "RAS version warning: its next step is the class's first step, not 'read the line'"
echo "node1:4242:4300 [0] graph/paths.cc:80 NCCL WARN Failed to find reverse path from remNode 0/5f000 nlinks 4 to node 0/cb000" >"$ND_TMP/ctx.log"
run_nd logs --json "$ND_TMP/ctx.log"
json_check "any(f['id'] == 'LOG_NCCL_WARNING' and f['cause'] == 'unknown' for f in d['findings'])" "a warning NCCL's table calls context: no class"

# the watchdog's stack frames alone (PT02f)
printf '%s\n' 'frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x1 in libtorch_cuda.so)' \
	'frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x2 in libtorch_cuda.so)' \
	'Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1521 (most recent call first):' >"$ND_TMP/wd.log"
run_nd logs --json "$ND_TMP/wd.log"
has_finding LOG_WATCHDOG_TIMEOUT "WorkNCCL::checkTimeout's frame: a collective timed out"
first collective_mismatch_app_bug "the watchdog's frames alone: the collective-timeout candidates"
printf '%s\n' 'frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x2 in libtorch_cuda.so)' \
	'Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1521 (most recent call first):' >"$ND_TMP/wd2.log"
run_nd logs --json "$ND_TMP/wd2.log"
no_finding LOG_WATCHDOG_TIMEOUT "a watchdog exception without checkTimeout's frame is no timeout (an NCCL error also ends there)"

# NCCL's error string with the framework's words run together (S68c)
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
# a warning the process went on after (rules/went_on.c): NCCL 2.13-2.19
# discard cudawrap's init result and run on the CUDA runtime
w='h:7:7 [0] misc/cudawrap.cc:90 NCCL WARN Failed to find CUDA library in /usr/local/cuda (NCCL_CUDA_PATH=/usr/local/cuda)'
printf '%s\n' 'h:7:7 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>' "$w" 'NCCL version 2.14.3+cuda11.7' \
	'h:7:9 [0] NCCL INFO NET/IB : No device found.' 'h:7:9 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>' \
	'h:7:9 [0] NCCL INFO Using network Socket' >"$ND_TMP/went.log"
run_nd logs --json "$ND_TMP/went.log"
not_first driver_or_kernel_bug "a warning the process went on after: not the failure"
json_check "any('went on after line 2' in e['text'] for f in d['findings'] if f['id'] == 'LOG_CUDA_FAILURE' for e in f['evidence'])" "its finding says the process went on"
run_nd logs "$ND_TMP/went.log"
expect_out '^Next \(for LOG_CAUSE_UNKNOWN\):' "the first screen's step: what to collect (the cause is unknown), not the demoted warning's fix"
printf '%s\n' 'h:7:7 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>' "$w" 'h:7:7 [0] NCCL INFO init.cc:1170 -> 2' \
	'h:7:9 [0] NCCL INFO Using network Socket' >"$ND_TMP/went2.log"
run_nd logs --json "$ND_TMP/went2.log"
first driver_or_kernel_bug "the same warning with an error back-trace: the failure"
printf '%s\n' 'h:7:7 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>' "$w" \
	'h:7:7 [0] NCCL INFO comm 0x55d0c8a0 rank 0 nranks 2 cudaDev 0 busId 1000 - Init START' \
	'h:7:7 [0] NCCL INFO comm 0x55d0c8a0 rank 0 nranks 2 cudaDev 0 busId 1000 - Abort COMPLETE' >"$ND_TMP/went3.log"
run_nd logs --json "$ND_TMP/went3.log"
first driver_or_kernel_bug "the same warning, then the communicator's abort: the failure"
# init completed after the warning, then the job's own destroy: it went on
# (a completed job tears its communicators down; went_on.c)
printf '%s\n' 'h:7:7 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>' "$w" \
	'h:7:7 [0] NCCL INFO comm 0x55d0c8a0 rank 0 nranks 2 cudaDev 0 busId 1000 - Init START' \
	'h:7:7 [0] NCCL INFO comm 0x55d0c8a0 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x1 - Init COMPLETE' \
	'h:7:7 [0] NCCL INFO comm 0x55d0c8a0 rank 0 nranks 2 cudaDev 0 busId 1000 - Destroy COMPLETE' >"$ND_TMP/went5.log"
run_nd logs --json "$ND_TMP/went5.log"
not_first driver_or_kernel_bug "the same warning, then Init COMPLETE and the job's destroy: not the failure"
# IB's async thread: the main thread going on says nothing of it
printf '%s\n' 'h:7:7 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>' \
	'h:7:12 [0] transport/net_ib.cc:100 NCCL WARN NET/IB : mlx5_0:1 Got async event : port error' \
	'h:7:9 [0] NCCL INFO Using network IB' >"$ND_TMP/went4.log"
run_nd logs --json "$ND_TMP/went4.log"
first ib_rdma_config "IB's async event, then the main thread's lines: still the failure"

# a segment name NCCL never makes (mkstemp's nccl-XXXXXX): an NCCL bug,
# not /dev/shm (rules/shm.c shm_name_garbled; case 460)
printf '%s\n' $'[rank1]: Error while attaching to shared memory segment /dev/shm/nccl-\xd0\x8c (size 0), error: No such file or directory (2)' >"$ND_TMP/shmname.log"
run_nd logs --json "$ND_TMP/shmname.log"
first driver_or_kernel_bug "a /dev/shm name NCCL never makes: NCCL read another thing as its path"
printf '%s\n' '[rank1]: Error while attaching to shared memory segment /dev/shm/nccl-a1B2c3 (size 4194660), error: No such file or directory (2)' >"$ND_TMP/shmname2.log"
run_nd logs --json "$ND_TMP/shmname2.log"
first shm_too_small "the same line with a name NCCL makes: /dev/shm"
printf '%s\n' '[rank1]: Error while attaching to shared memory segment /dev/shm/nccl-... (size 4194660), error: No such file or directory (2)' >"$ND_TMP/shmname3.log"
run_nd logs --json "$ND_TMP/shmname3.log"
first shm_too_small "a name the user elided (nccl-...): /dev/shm, not a garbled name"
# wrong data in a run that forced LL128 (rules/config.c ll128_wrong_data)
for p in LL128 '^LL128'; do
  printf '%s\n' "mpirun -np 2 -x NCCL_PROTO=$p -x NCCL_IB_DISABLE=1 all_reduce_perf -b 8M -e 8M" \
    '# Out of bounds values : 2 FAILED' >"$ND_TMP/ll128.log"
  run_nd logs --json "$ND_TMP/ll128.log"
  if [ "$p" = LL128 ]; then first nccl_config_error "NCCL_PROTO=LL128 and wrong data: the forced protocol first"
  else not_first nccl_config_error "NCCL_PROTO=^LL128 (excluded) and wrong data: not the setting"; fi
done

# PyTorch's "Last error:" echoes NCCL's last WARN without its header
# (reader.c last_error_echo): looked up among NCCL's messages (case 541)
printf '%s\n' '[rank0]: torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268, unhandled cuda error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5' \
  '[rank0]: ncclUnhandledCudaError: Call to CUDA function failed.' '[rank0]: Last error:' '[rank0]: Failed to CUDA calloc async 136 bytes' >"$ND_TMP/lasterr.log"
run_nd logs --json "$ND_TMP/lasterr.log"
first peer_died_or_oom "NCCL's 'Failed to CUDA calloc' echoed after 'Last error:': out of GPU memory"
printf '%s\n' 'RuntimeError: NCCL error: unhandled cuda error, NCCL version 2.21.5' 'Last error: Failed to CUDA calloc 2097152 bytes' >"$ND_TMP/lasterr2.log"
run_nd logs --json "$ND_TMP/lasterr2.log"
first peer_died_or_oom "'Last error: <NCCL's message>' on one line"
printf '%s\n' '[rank0]: Last error:' '[rank0]: some text of the application' '[rank0]: Failed to CUDA calloc async 136 bytes' >"$ND_TMP/lasterr3.log"
run_nd logs --json "$ND_TMP/lasterr3.log"
no_cause peer_died_or_oom "a line two after 'Last error:' is not the echo"

finish
