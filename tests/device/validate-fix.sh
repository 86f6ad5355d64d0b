#!/bin/bash
# Device validation of issue 13 (`fix`, and `check` with its bench and fix
# stages) on the H200 machine (one GPU: each trial is a 1-rank all_reduce).
# Run from the repository root:
#
#   OUT=/some/dir bash tests/device/validate-fix.sh            # builds build-dev/
#   OUT=/some/dir ND_BIN=/path/nccl-doctor bash tests/device/validate-fix.sh
#
# 1. builds nccl-doctor (build-dev/, Release, no tests);
# 2. `nccl-doctor` (check, the default command) with its timing: text and
#    --json, the verdict, every stage's seconds (the issue asks well under 30 s);
# 3. `nccl-doctor fix` with the default sizes (8 B .. 256 MiB): the trials
#    table, the recommendation, exit status (0 expected: as given works),
#    --json validated against docs/schema/fix.json when python3 has jsonschema;
#    `fix --all --max-bytes 64M` (every candidate tried, the table people fill
#    by hand); `fix --write-env $OUT/nccl.env`; `fix --command -- sh -c ...`
#    with a command that fails unless NCCL_P2P_DISABLE is set (the trial
#    NCCL_P2P_DISABLE=1 must be the one recommended);
# 4. afterwards: no GPU process left (nvidia-smi), no nccl-doctor worker left.
# Logs under $OUT (summary.txt first). Every command has a timeout; the whole
# script ends within 8 minutes. It never changes the system (the env file
# goes to $OUT). NCCL_NVLS_ENABLE=0 stays exported.
set -u
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-/tmp/nd-validate-fix}
mkdir -p "$OUT"
T0=$(date +%s)
SUMMARY="$OUT/summary.txt"
. tests/device/lib.sh
nd_summary "$SUMMARY"
say "# nccl-doctor fix/check validation, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(hostname)"
unset NCCL_DOCTOR_LIBRARY_PATH NCCL_DOCTOR_LIBRARY_PATH_ONLY NCCL_DOCTOR_FAKEGPU_SCENARIO NCCL_DEBUG
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader >"$OUT/gpu.txt" 2>&1
say "gpu: $(head -1 "$OUT/gpu.txt")"

if ! nd_binary build-dev 200; then
  say "FAIL: no nccl-doctor binary (see build.log)"
  exit 1
fi
say "binary: $ND_BIN ($("$ND_BIN" --version 2>&1))"

# --- 2. check (the default command) -----------------------------------------------
t0=$(date +%s.%N)
timeout 120 "$ND_BIN" --progress >"$OUT/check.txt" 2>"$OUT/check.stderr"
rc=$?
t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" "BEGIN{printf \"%.1f\", b-a}")
say "check: exit $rc in $secs s: $(head -1 "$OUT/check.txt")"
sed -n '/^  Stages/,/^$/p' "$OUT/check.txt" | tee -a "$SUMMARY"
check "check ends within 30 s" awk -v s="$secs" 'BEGIN{exit !(s < 30)}'
check "check has a verdict line" grep -qE '^(HEALTHY|DEGRADED|INCOMPLETE|BROKEN):' "$OUT/check.txt"
check "check ran the bench stage" grep -qE '^ +bench +[0-9.]+ s' "$OUT/check.txt"
timeout 120 "$ND_BIN" --json check >"$OUT/check.json" 2>"$OUT/check-json.stderr"
say "check --json: exit $?"

# --- 3. fix -----------------------------------------------------------------------
t0=$(date +%s.%N)
timeout 200 "$ND_BIN" fix --progress >"$OUT/fix.txt" 2>"$OUT/fix.stderr"
rc=$?
t1=$(date +%s.%N)
say "fix: exit $rc in $(awk -v a="$t0" -v b="$t1" "BEGIN{printf \"%.1f\", b-a}") s: $(head -1 "$OUT/fix.txt")"
sed -n '/^  Trials/,/^   each trial/p' "$OUT/fix.txt" | tee -a "$SUMMARY"
check "fix: the configuration as given works (exit 0)" [ "$rc" -eq 0 ]
check "fix: as given measured at 256 MiB" grep -qE '^ +as given +~100% +ok +[0-9.]+ +OK +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+' "$OUT/fix.txt"
timeout 200 "$ND_BIN" --json fix >"$OUT/fix.json" 2>"$OUT/fix-json.stderr"
say "fix --json: exit $?"
if python3 -c 'import jsonschema' 2>/dev/null; then
  check "check and fix --json validate against docs/schema" python3 tests/tools/validate_json.py docs/schema "$OUT/check.json" "$OUT/fix.json"
else
  say "note: python3 has no jsonschema: the documents were not validated"
fi
timeout 240 "$ND_BIN" fix --all --max-bytes 64M --progress >"$OUT/fix-all.txt" 2>"$OUT/fix-all.stderr"
say "fix --all --max-bytes 64M: exit $?"
sed -n '/^  Trials/,/^   each trial/p' "$OUT/fix-all.txt" | tee -a "$SUMMARY"
rm -f "$OUT/nccl.env"
timeout 200 "$ND_BIN" fix --max-bytes 1M --write-env "$OUT/nccl.env" >"$OUT/fix-env.txt" 2>&1
check "fix --write-env wrote the env file" grep -q '^# nccl-doctor fix' "$OUT/nccl.env"
cat >"$OUT/job.sh" <<'JOB'
#!/bin/sh
# fails unless NCCL_P2P_DISABLE=1 (a stand-in for a job that needs it)
[ "${NCCL_P2P_DISABLE:-}" = 1 ] && { echo "job: ok"; exit 0; }
echo "job: P2P not disabled"; exit 1
JOB
timeout 200 "$ND_BIN" fix --max-bytes 1M --command -- sh "$OUT/job.sh" >"$OUT/fix-command.txt" 2>&1
rc=$?
say "fix --command: exit $rc: $(head -1 "$OUT/fix-command.txt")"
check "fix --command recommends NCCL_P2P_DISABLE=1 (exit 1)" sh -c "[ $rc -eq 1 ] && grep -qE 'recommended +NCCL_P2P_DISABLE=1' '$OUT/fix-command.txt'"

# --- 4. nothing left behind -----------------------------------------------------------
sleep 1
nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader >"$OUT/apps-after.txt" 2>&1
check "no GPU process left" sh -c "! grep -q . '$OUT/apps-after.txt'"
check "no nccl-doctor worker left" sh -c "! pgrep -f '[_]_worker' >/dev/null"
say "total: $pass passed, $fail failed, $(( $(date +%s) - T0 )) s"
[ "$fail" -eq 0 ]
