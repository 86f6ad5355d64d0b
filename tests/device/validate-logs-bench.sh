#!/bin/bash
# Device measurement of issue 14 item 10 (`logs` throughput against
# `grep -c 'NCCL WARN'`) on the GPU machine's CPU. Run from the repository
# root:
#
#   OUT=/some/dir bash tests/device/validate-logs-bench.sh          # builds build-bench/ (Release)
#   OUT=/some/dir ND_BIN=/path/nccl-doctor bash tests/device/validate-logs-bench.sh
#
# For each line mix (COLL, the default, and init, issue 14's init-heavy mix)
# it builds a file of ND_BENCH_MB MiB (1024) in /tmp with bench/logs-bench.sh's
# generator, then runs bench/logs-bench.sh with one thread (the single-thread
# path), the default thread count and 8 threads, and checks that the reports
# of 1 and the default are byte-identical (`logs --json`). Logs under $OUT: summary.txt first, one
# file per bench run, cpu.txt (lscpu). It never changes the system and needs
# no GPU; every command has a timeout; about 5 minutes for 1 GiB.
set -u
OUT=${OUT:-/tmp/nd-validate-logs-bench}
mkdir -p "$OUT"
. tests/device/lib.sh
nd_summary "$OUT/summary.txt"
if [ -z "${ND_BIN:-}" ]; then
  { timeout 120 cmake -S . -B build-bench -DNCCL_DOCTOR_TESTS=OFF -DCMAKE_BUILD_TYPE=Release &&
      timeout 200 cmake --build build-bench -j"$(nproc)" --target nccl-doctor; echo "## build exit $?"; } >"$OUT/build.log" 2>&1
  ND_BIN=$PWD/build-bench/nccl-doctor
fi
[ -x "$ND_BIN" ] || { say "FAIL: no nccl-doctor binary (see build.log)"; exit 3; }
lscpu >"$OUT/cpu.txt" 2>&1
say "binary $ND_BIN; $(nproc) CPUs; $(grep -m1 'Model name' "$OUT/cpu.txt" | sed 's/  */ /g')"
mb=${ND_BENCH_MB:-1024}
for mix in coll init; do
  f=$(ND_BENCH_MIX=$mix ND_BENCH_MB=$mb ND_BENCH_GEN_ONLY=1 timeout 200 bench/logs-bench.sh "$ND_BIN" 2>/dev/null)
  [ -s "$f" ] || { say "FAIL: $mix: no bench file"; continue; }
  for t in 1 default 8; do
    env_t=(); [ "$t" = default ] || env_t=(ND_LOGS_THREADS=$t)
    env "${env_t[@]}" ND_BENCH_MIX=$mix ND_BENCH_FILE="$f" timeout 240 bench/logs-bench.sh "$ND_BIN" >"$OUT/bench-$mix-$t.txt" 2>&1
    say "$mix, threads $t: $(grep -E '^throughput' "$OUT/bench-$mix-$t.txt") | $(grep -E '^peak RSS' "$OUT/bench-$mix-$t.txt")"
  done
  timeout 120 env ND_LOGS_THREADS=1 "$ND_BIN" --json logs "$f" >"/tmp/nd-$mix-1.json" 2>/dev/null
  timeout 120 "$ND_BIN" --json logs "$f" >"/tmp/nd-$mix-n.json" 2>/dev/null
  check "$mix: logs --json identical with 1 thread and the default" cmp -s "/tmp/nd-$mix-1.json" "/tmp/nd-$mix-n.json"
  rm -f "$f"
done
say "passed $pass, failed $fail"
[ "$fail" = 0 ]
