#!/bin/bash
# nccl-doctor logs: the rules of configuration and device mapping (config.c),
# each on small constructed lines in the real formats, once where it fires and
# once where it must not (docs/logs.md says which public cases motivated
# each):
#  - a framework's "no CUDA-capable device" is a device mapping error;
#  - a topology file loaded by a run that stopped.
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
finish
