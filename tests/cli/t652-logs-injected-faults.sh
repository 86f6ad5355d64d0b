#!/bin/bash
# logs and check --log on real failures with injected faults (H100 captures,
# tests/fixtures/logs/real-h100-faults/README.md): two ranks on one GPU,
# and a NCCL_SOCKET_IFNAME naming no interface.
. "$(dirname "$0")/lib.sh"
F="$ND_FIXTURES/logs/real-h100-faults"
run_nd --json logs "$F/duplicate-gpu-2ranks-1gpu.log"
expect_rc 2 "duplicate GPU: a problem"
json_check "d['causes'][0]['cause'] == 'duplicate_gpu_or_device_mapping' and d['causes'][0]['confidence'] >= 0.9" "duplicate GPU: the GPU mapping, certain"
run_nd --json logs "$F/socket-ifname-nosuch0.log"
expect_rc 2 "bad NCCL_SOCKET_IFNAME: a problem"
json_check "d['causes'][0]['cause'] == 'bootstrap_network' and d['causes'][0]['confidence'] >= 0.9" "bad NCCL_SOCKET_IFNAME: the bootstrap network, certain"
run_nd logs "$F/socket-ifname-nosuch0.log"
expect_out "NCCL_SOCKET_IFNAME" "bad NCCL_SOCKET_IFNAME: the action names the variable"
finish
