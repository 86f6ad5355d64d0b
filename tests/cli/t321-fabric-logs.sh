#!/bin/bash
# logs on NVSwitch fabric failures (issue 16): CUDA error 401 of NVLS multicast
# (with its NVLS context and bare, as PyTorch repeats it), multi-node NVLink
# without IMEX, the fabric state NCCL prints, and the fabric manager's own log
# rank fabric_manager_nvswitch first, with NCCL_NVLS_ENABLE=0 among the fixes.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
L="$ND_FIXTURES/logs/fabric"
first='d["causes"][0]["cause"] == "fabric_manager_nvswitch"'
ids='sorted(set(f["id"] for f in d["findings"]))'

run_nd logs --json "$L/nvls-401-2.26.log"
expect_rc 2 "nvls 401: problem found"
json_check "$first" "nvls 401: the fabric first"
json_check '"LOG_NVLS_FAILED" in '"$ids" "nvls 401: LOG_NVLS_FAILED"
json_check 'any("401" in e["text"] for e in d["causes"][0]["evidence"])' "nvls 401: the CUDA error line as evidence"

run_nd logs --json "$L/torch-401-no-debug.log"
json_check "$first" "bare 401 after 'Last error:': still the fabric first"
json_check 'len(d["causes"]) < 2 or d["causes"][0]["confidence"] > d["causes"][1]["confidence"]' "bare 401: ahead of the generic CUDA failure"

run_nd logs --json "$L/mnnvl-imex-2.27.log"
json_check "$first" "MNNVL without IMEX: the fabric first"
json_check '"LOG_MNNVL_UNAVAILABLE" in '"$ids" "MNNVL: LOG_MNNVL_UNAVAILABLE"

run_nd logs --json "$L/fabric-not-started-2.23.log"
json_check "$first" "fabric state 2 in NCCL's MNNVL line: the fabric first"
json_check '"LOG_CUDA_FABRIC_NOT_READY" in '"$ids" "state 2: LOG_CUDA_FABRIC_NOT_READY"
# state 3 (completed) is no finding: the healthy line of nvls-401 made none
run_nd logs --json "$L/nvls-401-2.26.log"
json_check '"LOG_CUDA_FABRIC_NOT_READY" not in '"$ids" "state 3: no fabric-not-ready finding"

run_nd logs --json "$L/fabricmanager.log"
json_check "$first" "fabric manager log: the fabric first"
json_check '"FABRIC_MANAGER_VERSION_MISMATCH" in '"$ids" "fabric manager log: version mismatch"

# explain shows the rows
run_nd explain NV01
expect_rc 0 "explain NV01"
expect_out 'present state' "explain NV01: its literal"
finish
