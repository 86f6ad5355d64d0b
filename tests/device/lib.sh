# Shared by the tests/device scripts (sourced): the nccl-doctor binary they
# validate. nd_binary DIR [BUILD_SECONDS]: when ND_BIN is unset, builds the
# tree into DIR (Release-like, no tests; log in $OUT/build.log) and sets
# ND_BIN to it; returns 1 when there is still no binary to run.
nd_binary() {
  local dir=$1 secs=${2:-200}
  if [ -z "${ND_BIN:-}" ]; then
    { timeout 120 cmake -S . -B "$dir" -DNCCL_DOCTOR_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
        timeout "$secs" cmake --build "$dir" -j"$(nproc)"; echo "## build exit $?"; } >"$OUT/build.log" 2>&1
    ND_BIN=$PWD/$dir/nccl-doctor
  fi
  [ -x "$ND_BIN" ]
}

# nd_summary FILE: the scripts' PASS/FAIL summary. Empties FILE, counts in
# pass/fail; say TEXT appends a line (and prints it); check DESCRIPTION
# COMMAND... runs COMMAND and records PASS or FAIL. A script that defines
# its own say or check before sourcing this keeps it.
nd_summary() {
  ND_SUMMARY=$1
  : >"$ND_SUMMARY"
  pass=0 fail=0
}
declare -F say >/dev/null || say() { echo "$*" | tee -a "$ND_SUMMARY"; }
declare -F check >/dev/null || check() { # DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then pass=$((pass + 1)); say "PASS: $what"; else fail=$((fail + 1)); say "FAIL: $what"; fi
}

# nd_fault_setup SUBDIR: the set-up of the scripts that record injected
# faults (record-user-faults.sh, record-config-faults.sh): F=$OUT/SUBDIR,
# the binary (nd_binary), the summary, NCCL_DEBUG=INFO without NVLink
# multicast, PY; returns 1 without a binary.
nd_fault_setup() {
  F=$OUT/$1
  mkdir -p "$F"
  nd_binary build-dev || { echo "no nccl-doctor binary" >&2; return 1; }
  nd_summary "$OUT/summary.txt"
  export NCCL_NVLS_ENABLE=0 NCCL_MNNVL_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NCCL_DEBUG=INFO
  PY=${PY:-python3}
}

# nd_first_causes FILE...: `logs --json`'s verdict and first three causes
# with their confidence, on one line.
nd_first_causes() {
  "$ND_BIN" --json logs "$@" 2>/dev/null | ${PY:-python3} -c 'import json, sys
d = json.load(sys.stdin)
c = d["causes"]
print((d.get("verdict") or "?") + " " + (" ".join("%s:%.2f" % (x["cause"], x["confidence"]) for x in c[:3]) if c else "none"))'
}
