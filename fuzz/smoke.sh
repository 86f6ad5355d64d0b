#!/usr/bin/env bash
# One short libFuzzer run of a harness, for CI (ctest -L fuzz-smoke):
#   smoke.sh FUZZER TARGET SECONDS SEED_DIR WORK_DIR
# New inputs go to a scratch corpus under WORK_DIR (the seeds are only read);
# a crash, leak, sanitizer report, slow input (>10 s) or an input using over
# 2 GB fails the run: libFuzzer exits non-zero and the reproducer is kept as
# WORK_DIR/TARGET-crash-* with its stack in WORK_DIR/TARGET.log.
set -u
fuzzer=$1 target=$2 secs=$3 seeds=$4 work=$5
mkdir -p "$work/$target-corpus"
log=$work/$target.log
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
"$fuzzer" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/$target-" \
  "$work/$target-corpus" "$seeds" >"$log" 2>&1
rc=$?
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log" | tr '\n' ' '
grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1
if [ $rc -ne 0 ]; then
  echo "fuzz smoke: $target failed (exit $rc); last lines of $log:"
  grep -E 'ERROR|SUMMARY|runtime error|Test unit written' "$log" | head -20
  tail -30 "$log"
  exit 1
fi
echo "fuzz smoke: $target ok"
