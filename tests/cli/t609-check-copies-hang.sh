#!/usr/bin/env bash
# The classic case where NCCL works: 4 PCIe GPUs with PHB between the two
# switches (NCCL does not use P2P there by default) and ACS redirect, so
# direct copies between {0,1} and {2,3} hang while NCCL as given works. The
# headline says what is true and what to turn off; every form printed is
# non-empty (only the vLLM one here), and no expected number stands beside
# "no comparison with a healthy machine"; fix says the same and exits 1.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the forms and tables of the whole report
F="$ND_BUILD/tests/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="t609-$$"
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-p2p-hang.json"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-t609-$$-*' EXIT
scrub_user_nccl_env
ACS="$ND_FIXTURES/sysroot/pcie-4gpu-acs"

run_nd check --driver --sysroot "$ACS" --max-bytes 1M
expect_rc 2 "copies hang: a problem"
expect_out '^BROKEN: 4 GPUs, [0-9.]+ s; NCCL works as given, but direct GPU-to-GPU copies hang on 4 of 6 GPU pairs' "the headline: NCCL works, the copies hang"
expect_out -- 'turn off what uses them \(vLLM or SGLang: --disable-custom-all-reduce; CUDA IPC, cudaMemcpyPeer\) or clear ACS' "and what to turn off"
expect_no_out 'most likely cause' "not a bare cause"
expect_no_out '^   (shell|docker|kubernetes) \(as given\):' "no empty shell, docker or kubernetes form"
expect_out '^   vllm \(as given\):' "the vLLM form is there"
expect_out -- '--tensor-parallel-size 4 --disable-custom-all-reduce' "with the GPUs tested and custom all-reduce off"
expect_no_out 'healthy machine \(expected\)' "no expected number beside 'no comparison with a healthy machine'"

run_nd --json fix --driver --sysroot "$ACS" --max-bytes 1M
expect_rc 1 "fix: exit 1, not 0 with errors"
json_check 'd["search_outcome"] == "NCCL WORKS, COPIES HANG" and d["verdict"] in ("BROKEN", "DEGRADED") and d["exit_code"] == 1' "fix: the search's outcome says it"
json_check 'list(d["recommendation"]["forms"]) == ["vllm"]' "fix: only the vLLM form"
json_check '"direct GPU-to-GPU copies hang on 4 of 6 GPU pairs" in d["headline"]' "fix: the headline says it"
cp "$OUT" "$ND_TMP/fix.json"
if python3 "$ND_SRC/tests/tools/validate_json.py" "$ND_SRC/docs/schema" "$ND_TMP/fix.json" >"$ND_TMP/v" 2>&1; then
  ok "fix: JSON valid against docs/schema"
else not_ok "fix: JSON does not validate"; head -5 "$ND_TMP/v" | sed 's/^/    /'; fi
finish
