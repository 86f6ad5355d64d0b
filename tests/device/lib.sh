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

# nd_two_ranks NAME PORT: runs $F/job.py as ranks 0 and 1 of a two-rank job
# (MASTER_ADDR 127.0.0.1:PORT, at most 90 s each), each with the variables
# `nd_rank_env NAME RANK` prints one per line (a function the script
# defines); their output, rank 0's then rank 1's, goes to $F/NAME.log,
# the summary gets the job's exit status and `logs`'s first causes, and
# $F/NAME.report.txt the text report. ND_PREFIX (words, optional) goes
# before the python command (a wrapper such as a mount namespace).
nd_two_ranks() {
  local name=$1 port=$2 r rc=0 p pids=() e
  for r in 0 1; do
    mapfile -t e < <(nd_rank_env "$name" "$r")
    env "${e[@]}" MASTER_ADDR=127.0.0.1 MASTER_PORT="$port" RANK=$r WORLD_SIZE=2 LOCAL_RANK=0 \
      timeout -k 5 90 ${ND_PREFIX:-} $PY "$F/job.py" >"$F/$name.rank$r" 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || rc=$?; done
  cat "$F/$name.rank0" "$F/$name.rank1" >"$F/$name.log"
  rm -f "$F/$name.rank0" "$F/$name.rank1"
  say "$name: exit $rc, $(grep -c 'done$' "$F/$name.log") ranks done, $(wc -l <"$F/$name.log") lines; logs: $(nd_first_causes "$F/$name.log")"
  timeout 60 "$ND_BIN" logs --no-color "$F/$name.log" >"$F/$name.report.txt" 2>&1
}
