#!/bin/bash
# Long libFuzzer runs of every harness at once on a machine with many cores
# (the lent GPU machine has 16 and nothing else to do while it is held):
#   FZ=DIR OUT=DIR SECS=480 bash tests/device/fuzz-long.sh [TARGET:JOBS ...]
# FZ holds the fuzz-TARGET programs built on the development machine
# (cmake -DCMAKE_C_COMPILER=clang -DNCCL_DOCTOR_FUZZ=ON; ASan+UBSan and
# libFuzzer are linked in statically) and, optionally, FZ/long/TARGET corpora
# from earlier runs (or FZ/long.tar.xz of them). Each target runs JOBS independent fuzzing processes for
# SECS seconds on its corpus (seeded from fuzz/corpus/TARGET); OUT gets
# summary.txt (executions summed over the jobs, exec/s, crashes) and every
# crash reproducer. Nothing on the GPU is touched.
set -u
: "${FZ:?}" "${OUT:?}"
SECS=${SECS:-480}
FZ=$(cd "$FZ" && pwd) || exit 2
[ -f "$FZ/long.tar.xz" ] && { mkdir -p /tmp/nd-fuzz-long && tar -C /tmp/nd-fuzz-long -xJf "$FZ/long.tar.xz"; }
specs=${*:-logs:5 elf:3 kernel:2 manifest:2 procfs:1 ldcache:1 sxid:1}
W=$(mktemp -d /tmp/nd-fuzz.XXXXXX)
for sp in $specs; do
  t=${sp%%:*} j=${sp##*:}
  mkdir -p "$W/$t/corpus" "$OUT/crash-$t"
  cp -r fuzz/corpus/"$t"/. "$W/$t/corpus/" 2>/dev/null
  [ -d "/tmp/nd-fuzz-long/$t" ] && cp -r "/tmp/nd-fuzz-long/$t"/. "$W/$t/corpus/"
  ( cd "$W/$t" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
      timeout $((SECS + 60)) "$FZ/fuzz-$t" -jobs="$j" -workers="$j" -max_total_time="$SECS" -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 -artifact_prefix="$OUT/crash-$t/" corpus \
      >"$W/$t/main.log" 2>&1 ) &
done
wait
{
  echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(nproc) cores, $SECS s per job"
  printf '%-9s %5s %14s %10s %8s %8s\n' target jobs executions exec/s crashes corpus
  for sp in $specs; do
    t=${sp%%:*} j=${sp##*:}
    ex=$(cat "$W/$t"/fuzz-*.log 2>/dev/null | sed -n 's/^stat::number_of_executed_units: *//p' | awk '{s+=$1} END {print s+0}')
    cr=$(find "$OUT/crash-$t" -type f | wc -l)
    printf '%-9s %5s %14s %10s %8s %8s\n' "$t" "$j" "$ex" "$(( ex / SECS ))" "$cr" "$(ls "$W/$t/corpus" | wc -l)"
  done
} >"$OUT/summary.txt"
tail -5 "$W"/*/fuzz-0.log >"$OUT/tails.txt" 2>&1
cat "$OUT/summary.txt"
# the grown corpora come back as OUT/long.tar.xz (same layout as FZ/long.tar.xz)
# so the next run starts where this one stopped; targets not run keep theirs
mkdir -p "$W/c"
for sp in $specs; do t=${sp%%:*}; mv "$W/$t/corpus" "$W/c/$t"; done
for d in /tmp/nd-fuzz-long/*/; do
  [ -d "$d" ] && [ ! -e "$W/c/$(basename "$d")" ] && cp -r "$d" "$W/c/"
done
XZ_OPT=-T0 tar -C "$W/c" -cJf "$OUT/long.tar.xz" .
rm -rf "$W"
