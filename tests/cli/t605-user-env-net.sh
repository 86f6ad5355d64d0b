#!/usr/bin/env bash
# The user's own NCCL_NET as the suspect, on a healthy fake machine (the
# fake NCCL has no InfiniBand and fails NCCL_NET=IB as real NCCL does):
#  - check with its default options (an H200 alone, as the validation
#    machine): BROKEN, nccl_config_error first, NCCL's own line and
#    "NCCL_NET=IB ... set by you" as the evidence, "unset NCCL_NET" tried
#    and recommended, "remove NCCL_NET (set by you ...)";
#  - check --json on two NVLink GPUs: p2p's NCCL step is not blamed on the
#    pairs (P2P_NCCL_USER_ENV, no P2P_ERROR), recommendation.unset/remove,
#    valid against docs/schema;
#  - fix: search: fix found (exit 1), the shell form unsets it; --all: the clean
#    environment is the last candidate and works;
#  - NCCL before 2.27 words it "Error: network IB not found.": the same.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the whole report (evidence, fixes, notes)
F="$ND_BUILD/tests/fakegpu"
S="$ND_FIXTURES/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
TAG="t605-$$"
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG"
# the caller's own NCCL_* and CUDA_* variables would be suspects too
scrub_user_nccl_env

# a clean host: the H200 record with one NCCL copy
clean="$ND_TMP/clean"
cp -r "$ND_FIXTURES/sysroot/h200-vm" "$clean"
python3 - "$clean/.nccl-doctor/libraries.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["libraries"] = d["libraries"][:1]; d["torch"] = []
json.dump(d, open(p, "w"))
PY

# check, default options, one GPU
t0=$(date +%s)
NCCL_NET=IB NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/h200-1gpu.json" run_nd check --driver --sysroot "$clean"
t1=$(date +%s)
expect_rc 2 "NCCL_NET=IB on a host without IB: a problem"
expect_out '^BROKEN: 1 GPU, .*most likely cause NCCL configuration error \(variables / topology files\) \[nccl_config_error\] \(0\.[0-9]+\); works with unset NCCL_NET' "BROKEN, nccl_config_error first, works without NCCL_NET"
expect_out 'ALLREDUCE_USER_ENV_FAILS' "the bench stage's finding names the user's variable"
expect_out "evidence: NCCL's own line: NCCL WARN Failed to initialize any NET plugin" "NCCL's own line as the evidence"
expect_out 'evidence: NCCL_NET=IB is set by you' "NCCL_NET=IB named as set by the user"
expect_out 'unset NCCL_NET +~100% +[0-9.]+ .* OK$' "the fix stage tried the environment without NCCL_NET: OK"
expect_out 'recommended +unset NCCL_NET' "and recommends it"
expect_out 'remove NCCL_NET \(set by you: NCCL_NET=IB\)' "says to remove NCCL_NET (set by you)"
expect_no_out 'FIX_NOTHING_WORKS' "not FIX_NOTHING_WORKS"
within 40 $((t1 - t0)) "default options, NCCL_NET=IB (s)"

# check --json, two NVLink GPUs: p2p's NCCL step too
NCCL_NET=IB NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/nvlink8.json" run_nd --json --gpus 0,1 check --driver --sysroot "$clean" --max-bytes 1M
expect_rc 2 "JSON: a problem"
json_check 'd["verdict"] == "BROKEN" and d["causes"][0]["cause"] == "nccl_config_error"' "JSON: BROKEN, nccl_config_error first"
json_check 'set(d["causes"][0]["finding_ids"]) >= {"P2P_NCCL_USER_ENV", "ALLREDUCE_USER_ENV_FAILS"}' "JSON: the cause's findings from p2p and bench"
json_check 'not any(f["id"] in ("P2P_ERROR", "P2P_HANG", "ALLREDUCE_FAILS", "FIX_NOTHING_WORKS") for f in d["findings"])' "JSON: no pair blamed, no unknown failure"
json_check 'any(f["id"] == "ALLREDUCE_USER_ENV_FAILS" and any("NCCL WARN Failed to initialize any NET plugin" in e["text"] for e in f["evidence"]) for f in d["findings"])' "JSON: NCCL's line in the evidence"
json_check 'd["recommendation"]["configuration"] == "unset NCCL_NET" and d["recommendation"]["unset"] == ["NCCL_NET"]' "JSON: recommendation.unset"
json_check 'd["recommendation"]["remove"] == [{"name": "NCCL_NET", "value": "IB", "set_by": "you"}]' "JSON: recommendation.remove says who set it"
json_check '[t["configuration"] for t in d["facts"]["fix"]["trials"]][:2] == ["as given", "unset NCCL_NET"]' "JSON: unset NCCL_NET right after as given"
json_check 'd["recommendation"]["forms"]["shell"] == "unset NCCL_NET\n"' "JSON: the shell form unsets it"
cp "$OUT" "$ND_TMP/check-net-ib.json"
if python3 "$ND_SRC/tests/tools/validate_json.py" "$ND_SRC/docs/schema" "$ND_TMP/check-net-ib.json" >"$ND_TMP/v" 2>&1; then
  ok "JSON: valid against docs/schema (recommendation.unset, .remove)"
else not_ok "JSON: does not validate"; head -5 "$ND_TMP/v" | sed 's/^/    /'; fi

# fix: a fix found; --all shows the clean environment last, working
NCCL_NET=IB NCCL_P2P_LEVEL=NVL NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/nvlink8.json" run_nd --gpus 0,1 fix --driver --sysroot "$clean" --max-bytes 1M --all
expect_rc 1 "fix: a fix found"
expect_out '^[A-Z]+: 2 GPUs, [0-9.]+ s; search: unset NCCL_NET works \(fix found\)$' "fix's headline"
expect_out '^ +export NCCL_P2P_LEVEL|unset NCCL_NET$' "the shell form"
expect_out 'unset every NCCL_\*/CUDA_\* of yours +~100% +[0-9.]+ .* OK$' "the clean environment works"
last=$(sed -n '/Trials (all_reduce/,/each trial:/p' "$OUT" | grep -E '^  [ !*] ' | tail -1)
case "$last" in *"unset every NCCL_*/CUDA_* of yours"*) ok "the clean environment is the last candidate" ;;
  *) not_ok "the last candidate is not the clean environment: $last" ;; esac
expect_no_out 'unset NCCL_P2P_LEVEL' "NCCL_P2P_LEVEL (not implicated) is not a candidate of its own"

# NCCL before 2.27: "Error: network IB not found."
python3 - "$S/h200-1gpu.json" "$ND_TMP/old.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["nccl_version"] = 22304
json.dump(d, open(sys.argv[2], "w"))
PY
NCCL_NET=IB NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/old.json" run_nd check --driver --sysroot "$clean" --max-bytes 1M
expect_out "NCCL's own line: NCCL WARN Error: network IB not found\." "NCCL 2.23: its own words"
expect_out 'recommended +unset NCCL_NET' "NCCL 2.23: unset NCCL_NET recommended"

sleep 0.3
left=$(ls /dev/shm 2>/dev/null | grep -c "fakenccl-$TAG" || true)
if [ "$left" -eq 0 ]; then ok "no /dev/shm segment left"; else not_ok "$left segments left"; rm -f /dev/shm/fakenccl-$TAG-*; fi
procs=$(own_workers | wc -l)
if [ "$procs" -eq 0 ]; then ok "no worker process left"; else not_ok "$procs worker processes left"; fi
finish
