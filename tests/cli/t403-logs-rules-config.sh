#!/bin/bash
# nccl-doctor logs: the rules of configuration and device mapping (config.c),
# each on small constructed lines in the real formats, once where it fires and
# once where it must not (docs/logs.md says which public cases motivated
# each):
#  - a framework's "no CUDA-capable device" is a device mapping error;
#  - a topology file loaded by a run that stopped;
#  - a slow run (a health check's bandwidth below its threshold) started with
#    NCCL_TOPO_FILE set in a command (past NL_TEXT_MAX: the evidence keeps it).
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

echo "RuntimeError: CUDA error: no CUDA-capable device is detected" >"$ND_TMP/nodev.log"
run_nd logs --json "$ND_TMP/nodev.log"
first duplicate_gpu_or_device_mapping "a framework's 'no CUDA-capable device': device mapping"

# a topology file loaded by a run that stopped (S23t)
printf '%s\n' 'NCCL version 2.18.5+cuda12.2' 'h:1:2 [1] NCCL INFO Loading topology file /opt/image/topo.xml' 'h:1:2 [1] NCCL INFO Loading unnamed topology' >"$ND_TMP/topo.log"
run_nd logs --json "$ND_TMP/topo.log"
first nccl_config_error "a topology file loaded by a run that stopped"
has_finding LOG_TOPO_FILE_RUN_STOPPED "a topology file loaded by a run that stopped: its finding"
printf '%s\n' 'h:1:2 [1] NCCL INFO Loading topology file /opt/image/topo.xml' \
	'h:1:2 [1] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 1 nvmlDev 1 busId 1000 commId 0x5 - Init COMPLETE' >"$ND_TMP/topo2.log"
run_nd logs --json "$ND_TMP/topo2.log"
no_finding LOG_TOPO_FILE_RUN_STOPPED "a topology file in a run that completed init is no lead"
no_cause nccl_config_error "a topology file in a healthy run names no cause"

# a slow run started with a topology file (Azure NHC's check, EV02 + NH01)
nhc='ERROR:  nhc:  Health check failed:  check_nccl_allreduce: NCCL allreduce, BUS BW (expected >=431.0 GB/s, but measured 15.1043 GB/s). FaultCode: NHC2010'
pad=$(printf -- '-x PAD%02d=1 ' $(seq 1 40))
printf '%s\n' "root@vm:/nhc# mpirun -np 8 $pad -x NCCL_TOPO_FILE=/nhc/topofiles/ndv5-topo.xml /opt/nccl-tests/build/all_reduce_perf -b 16G" "$nhc" >"$ND_TMP/slow.log"
run_nd logs --json "$ND_TMP/slow.log"
first nccl_config_error "a slow run started with NCCL_TOPO_FILE: the file first"
json_check "any('NCCL_TOPO_FILE=/nhc/topofiles' in e['text'] for f in d['findings'] if f['id'] == 'LOG_TOPO_FILE_SLOW_RUN' for e in f['evidence'])" "the command line's evidence keeps the variable past the first 300 bytes"
printf '%s\n' "$nhc" >"$ND_TMP/slow2.log"
run_nd logs --json "$ND_TMP/slow2.log"
has_finding LOG_BANDWIDTH_CHECK_LOW "a bandwidth check below its threshold: its finding"
no_cause nccl_config_error "a slow run with no topology file names no configuration cause"
printf '%s\n' "hint: the check passes if you set NCCL_TOPO_FILE=/nhc/topofiles/ndv5-topo.xml to another file" "$nhc" >"$ND_TMP/slow3.log"
run_nd logs --json "$ND_TMP/slow3.log"
no_cause nccl_config_error "advice text that names the variable is no setting"
# CUDA error 46: the GPU held by another process (exclusive-process mode)
echo "RuntimeError: CUDA error: CUDA-capable device(s) is/are busy or unavailable" >"$ND_TMP/busy.log"
run_nd logs --json "$ND_TMP/busy.log"
first duplicate_gpu_or_device_mapping "a GPU busy or unavailable: another process holds it"
has_finding LOG_CUDA_DEVICE_BUSY "a GPU busy or unavailable: its finding"
echo "slurmstepd: error: Detected 1 oom-kill event(s) in StepId=1234.0. Some of your processes may have been killed by the cgroup out-of-memory handler." >"$ND_TMP/soom.log"
run_nd logs --json "$ND_TMP/soom.log"
first peer_died_or_oom "Slurm's cgroup OOM kill: a rank killed"
echo "torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: device >= 0 && device < num_gpus INTERNAL ASSERT FAILED" >"$ND_TMP/ngpu.log"
run_nd logs --json "$ND_TMP/ngpu.log"
first duplicate_gpu_or_device_mapping "PyTorch's device index check: more ranks than visible GPUs"
# NCCL_BUFFSIZE of a GiB or more (config.c buffsize_extreme)
printf '%s\n' 'h:1:1 [0] NCCL INFO NCCL_BUFFSIZE set by environment to 68719476736.' \
  'h:1:1 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 0' >"$ND_TMP/buf.log"
run_nd logs --json "$ND_TMP/buf.log"
has_finding LOG_BUFFSIZE_EXTREME "NCCL_BUFFSIZE=64 GiB: its finding"
first nccl_config_error "NCCL_BUFFSIZE=64 GiB in a run that stopped: the setting first"
printf '%s\n' 'h:1:1 [0] NCCL INFO NCCL_BUFFSIZE set by environment to 8388608.' \
  'h:1:1 [0] NCCL INFO Connected all rings, use ring PXN 0 GDR 0' >"$ND_TMP/buf2.log"
run_nd logs --json "$ND_TMP/buf2.log"
no_finding LOG_BUFFSIZE_EXTREME "NCCL_BUFFSIZE=8 MiB is an ordinary tuning"

finish
