#!/usr/bin/env bash
# One long libFuzzer run of one harness of fuzz/ (docs/FUZZING.md):
#   bench/fuzz.sh TARGET MINUTES [JOBS]
# Builds build-fuzz (clang, -DNCCL_DOCTOR_FUZZ=ON) when the fuzzer is missing
# or older than the sources, runs it at nice 10 for MINUTES (fractions work)
# on a corpus kept in build-fuzz/fuzz/long/TARGET (seeded from
# fuzz/corpus/TARGET; grows from run to run) and prints executions, exec/s,
# coverage, peak RSS and the crashes found. A crash leaves its reproducer as
# build-fuzz/fuzz/long/TARGET-crash-*: copy it to
# tests/fixtures/fuzz-regress/TARGET/ with the fix. Exit 0 no crash, 1 a
# crash or sanitizer report, 2 bad usage or build failure.
set -u
cd "$(dirname "$0")/.." || exit 2
targets=$(sed -n 's/^set(ND_FUZZ_TARGETS \(.*\))$/\1/p' fuzz/CMakeLists.txt)
usage() { echo "usage: $0 TARGET MINUTES   (TARGET: $targets)" >&2; exit 2; }
[ $# -ge 2 ] || usage
t=$1 min=$2
case " $targets " in *" $t "*) ;; *) echo "fuzz.sh: unknown target '$t'" >&2; usage ;; esac
secs=$(awk -v m="$min" 'BEGIN { if (m + 0 <= 0) exit 1; printf "%d", m * 60 + 0.5 }') || usage
B=${ND_FUZZ_BUILD:-build-fuzz}
fz=$B/fuzz/fuzz-$t
if [ ! -x "$fz" ] || [ -n "$(find src fuzz -newer "$fz" -name '*.[ch]' -print -quit)" ]; then
  command -v clang >/dev/null || { echo "fuzz.sh: clang is needed" >&2; exit 2; }
  { cmake -S . -B "$B" -DCMAKE_C_COMPILER=clang -DNCCL_DOCTOR_FUZZ=ON -DNCCL_DOCTOR_TESTS=OFF \
      -DNCCL_DOCTOR_WERROR=OFF >/dev/null &&
    nice -n 10 cmake --build "$B" -j"$(nproc)" --target "fuzz-$t" >/dev/null; } ||
    { echo "fuzz.sh: build of fuzz-$t failed" >&2; exit 2; }
fi
work=$B/fuzz/long
mkdir -p "$work/$t"
log=$work/$t.log
before=$(ls "$work/$t" | wc -l)
start=$(date +%s)
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
nice -n 10 "$fz" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -print_final_stats=1 -artifact_prefix="$work/$t-" "$work/$t" "fuzz/corpus/$t" >"$log" 2>&1
rc=$?
wall=$(( $(date +%s) - start ))
execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
rss=$(sed -n 's/^stat::peak_rss_mb: *//p' "$log" | tail -1)
cov=$(grep -Eo 'cov: [0-9]+ ft: [0-9]+' "$log" | tail -1)
crashes=$(ls "$work" | grep -E "^$t-(crash|leak|timeout|oom|slow-unit)-" || true)
echo "target      $t"
echo "time        ${wall} s"
echo "executions  ${execs:-?}"
echo "exec/s      ${eps:-?}"
echo "coverage    ${cov:-?} (edges, features)"
echo "peak rss    ${rss:-?} MB"
echo "corpus      $before -> $(ls "$work/$t" | wc -l) inputs ($work/$t)"
if [ $rc -ne 0 ]; then
  echo "crashes     libFuzzer exit $rc; reproducers: ${crashes:-none written}"
  grep -E 'ERROR: |SUMMARY: |runtime error' "$log" | head -10
  echo "log         $log"
  exit 1
fi
echo "crashes     0"
