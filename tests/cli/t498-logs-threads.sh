#!/bin/bash
# nccl-doctor logs with threads (--threads, ND_LOGS_THREADS; the block
# reader of analyze/logs/read/threads.c): the report is byte-identical whatever
# the thread count, on every fixture directory, on lines placed at awkward
# block boundaries (ND_LOGS_BLOCK forces tiny blocks and threads for any
# regular file), and on both benchmark mixes (24 MiB, bench/logs-bench.sh's
# generator) with the default blocks.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
T="$ND_TMP"
unset ND_LOGS_THREADS ND_LOGS_BLOCK

run_nd logs --help
expect_out '--threads N' "-h lists --threads"
run_nd logs --threads 0 "$ND_FIXTURES/logs/real-h200"
expect_rc 64 "--threads 0 is a usage error"
run_nd logs --threads many "$ND_FIXTURES/logs/real-h200"
expect_rc 64 "--threads many is a usage error"
ND_LOGS_THREADS=x run_nd logs "$ND_FIXTURES/logs/real-h200"
expect_rc 64 "ND_LOGS_THREADS=x is a usage error"
expect_err "ND_LOGS_THREADS wants a number" "ND_LOGS_THREADS=x: says so"

# same MSG ARGS...: logs --json with one thread and with the thread and
# block settings of CFGS ("threads:block", block empty: the default)
same() {
  local what=$1 cfg t b bad=0
  shift
  ND_LOGS_THREADS=1 timeout 120 "$ND_BIN" logs --json "$@" >"$T/one.json" 2>"$T/one.err"
  local rc1=$?
  for cfg in $CFGS; do
    t=${cfg%%:*} b=${cfg#*:}
    ND_LOGS_THREADS=$t ND_LOGS_BLOCK=$b timeout 120 "$ND_BIN" logs --json "$@" >"$T/n.json" 2>"$T/n.err"
    local rc=$?
    if [ $rc -ne $rc1 ] || ! cmp -s "$T/one.json" "$T/n.json" || ! cmp -s "$T/one.err" "$T/n.err"; then
      not_ok "$what: threads $t, block ${b:-default}: exit $rc (one thread: $rc1), output differs"
      diff "$T/one.json" "$T/n.json" | head -10 | sed 's/^/    /'
      bad=1
    fi
  done
  [ $bad = 0 ] && ok "$what: same report with threads and blocks $CFGS (exit $rc1)"
}

# every fixture directory but the public corpus's cases, blocks of a few
# bytes to 256 KiB: each directory against one thread and block setting in
# turn (every setting meets a dozen directories; all settings on all of
# them cost 5 runs a directory); the public corpus's cases (a few hundred
# small pastes) as one file against every setting: the same texts at the
# blocks' ends for 5 runs instead of two a case
ALL="2:4096 3:61 8:1000 2:262144"
[ "${ND_SANITIZE:-0}" = 1 ] && ALL="2:4096 3:61 8:1000"
read -r -a ALLA <<<"$ALL"
n=0
while IFS= read -r d; do
  ls "$d" | grep -q . || continue
  CFGS=${ALLA[$((n % ${#ALLA[@]}))]}
  same "fixture ${d#"$ND_FIXTURES"/}" "$d" >"$T/same.out"
  grep -q '^not ok' "$T/same.out" && cat "$T/same.out" # counted by not_ok
  n=$((n + 1))
done < <(find "$ND_FIXTURES/logs" -mindepth 1 -type d -not -path "*/public/*" | sort)
ok "$n fixture directories compared"
find "$ND_FIXTURES/logs/public" -mindepth 2 -type f -print0 | LC_ALL=C sort -z | xargs -0 -r cat >"$T/public-all.log"
[ "$(wc -c <"$T/public-all.log")" -gt 100000 ] && ok "the public corpus's pastes as one file ($(wc -c <"$T/public-all.log") bytes)" ||
  not_ok "the public corpus's pastes: only $(wc -c <"$T/public-all.log") bytes"
CFGS="$ALL"
same "the public corpus's pastes as one file" "$T/public-all.log"

# awkward lines: a WARN and its back-trace on both sides of many block
# ends, NUL and ESC bytes, CRLF, a 10 MB line, lines of max-line bytes and
# one more, blank lines, no final newline
python3 - "$T/awk.log" "$ND_FIXTURES/logs/real-h200" <<'PY'
import os, random, sys
out, src = sys.argv[1], sys.argv[2]
rnd = random.Random(3)
lines = []
for f in sorted(os.listdir(src)):
    p = os.path.join(src, f)
    if os.path.isfile(p):
        lines += open(p, "rb").read().split(b"\n")[:400]
warn = [b"host1:100:100 [0] init.cc:1406 NCCL WARN Cuda failure 'out of memory'",
        b"host1:100:100 [0] NCCL INFO init.cc:1406 -> 1",
        b"host1:100:100 [0] NCCL INFO init.cc:1500 -> 1"]
extra = [b"host1:100:100 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\r",
         b"\x1b[31mRuntimeError: NCCL error in: ProcessGroupNCCL.cpp:1191, unhandled system error\x1b[0m",
         b"[rank0]: torch.distributed.DistBackendError: NCCL error\x00\x00 in nul",
         b"", b"   ", b"host1:100:100 [0] NCCL INFO " + b"x" * 300,
         b"y" * 255, b"z" * 256, b"w" * 257]
with open(out, "wb") as fo:
    for i in range(3000):
        fo.write(rnd.choice(lines) + b"\n")
        if i % 97 == 0:
            fo.write(b"\n".join(warn) + b"\n")
        if i % 41 == 0:
            fo.write(rnd.choice(extra) + b"\n")
    fo.write(b"host1:100:100 [0] NCCL INFO no final newline")
PY
CFGS="2:1 3:7 2:4096 8:65536 3:"
same "awkward lines" "$T/awk.log"
same "awkward lines, --max-line 256" --max-line 256 "$T/awk.log"
# and a 10 MB line in the middle: one block reads it, the blocks over it are empty
head -c 150000 "$T/awk.log" >"$T/big.log"
{ printf 'host1:100:100 [0] NCCL WARN '; head -c $((10 << 20)) /dev/zero | tr '\0' L; printf '\n'; cat "$T/awk.log"; } >>"$T/big.log"
CFGS="2:4096 8:65536 4:1048576 3:"
same "a 10 MB line" "$T/big.log"
same "a 10 MB line, --max-line 256" --max-line 256 "$T/big.log"
printf 'a\r\nb\r\n' >"$T/crlf.log"
same "two CRLF lines" "$T/crlf.log"
printf 'one line, no newline' >"$T/nonl.log"
same "one line without newline" "$T/nonl.log"
printf '\n\n\n' >"$T/blank.log"
same "blank lines" "$T/blank.log"

# many short lines: blocks of more than 8192 lines are fed by the calling
# thread one line at a time (feed_dense), the records stay bounded
python3 - "$T/dense.log" <<'PY'
import random, sys
r = random.Random(5)
with open(sys.argv[1], "w") as f:
    for i in range(300000):
        k = r.random()
        if k < 0.6: f.write("a\n")
        elif k < 0.7: f.write("\n")
        elif k < 0.9: f.write("h:1:1 [0] NCCL INFO x\n")
        elif k < 0.99: f.write("h:%d:1 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.%d<0>\n" % (r.randrange(4), r.randrange(9)))
        else: f.write("h:1:1 [0] init.cc:1 NCCL WARN Cuda failure 'out of memory'\n")
PY
CFGS="2:262144 3:262144 8:100000 3:65536"
same "300000 short lines" "$T/dense.log"

# both benchmark mixes, the default blocks (a 24 MiB file is read with
# threads without ND_LOGS_BLOCK)
if [ "${ND_SANITIZE:-0}" = 1 ]; then mb=17; else mb=24; fi
for mix in coll init; do
  f=$(ND_BENCH_GEN_ONLY=1 ND_BENCH_MB=$mb ND_BENCH_MIX=$mix ND_BENCH_FILE="$T/bench-$mix.log" \
      bash "$ND_SRC/bench/logs-bench.sh" "$ND_BIN" 2>/dev/null)
  CFGS="2: 3: 8: 3:65536"
  same "bench mix $mix, $mb MiB" "$f"
  [ $mix = init ] || rm -f "$f"
done

# a file truncated while the threads read it: no signal (pread, no
# mapping), a report of what was read or an error, exit 0-3
for delay in 0.01 0.05 0.15; do
  cp "$T/bench-init.log" "$T/trunc.log"
  ND_LOGS_THREADS=3 timeout 60 "$ND_BIN" logs --json "$T/trunc.log" >"$T/trunc.out" 2>"$T/trunc.err" &
  pid=$!
  sleep $delay
  truncate -s 1000000 "$T/trunc.log"
  wait $pid
  rc=$?
  if [ $rc -le 3 ]; then ok "truncated after ${delay}s while read with threads: exit $rc"; else
    not_ok "truncated after ${delay}s while read with threads: exit $rc"; head -3 "$T/trunc.err"; fi
done
rm -f "$T/bench-init.log" "$T/trunc.log"
finish
