#!/usr/bin/env bash
# No input can hang `logs` or `kernel` (issue 10 item 3): a FIFO with no
# writer ends within the input timeout, /dev/zero and /dev/urandom (as a path
# and through a pipe), a FIFO fed binary data, a 2 GB sparse file and
# compressed data on a stream are refused at once with one line, by one rule
# for both commands; a compressed file is read through its decompressor;
# --input-timeout is checked.
. "$(dirname "$0")/lib.sh"
timed() { local t0; t0=$(date +%s%N); run_nd "$@"; ELAPSED_MS=$((($(date +%s%N) - t0) / 1000000)); }
# within_ms LIMIT DESC: ELAPSED_MS against LIMIT ms scaled by the load (lib.sh)
within_ms() { within "$1" "$ELAPSED_MS" "$2 ended in time (ms)"; }
# piped CMD DESC LIMIT_MS PRODUCER...: the producer's output on stdin
piped() {
  local cmd=$1 desc=$2 lim=$3; shift 3
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
  local t0; t0=$(date +%s%N)
  "$@" 2>/dev/null | timeout 60 "$ND_BIN" "$cmd" - >"$OUT" 2>"$ERR"; RC=${PIPESTATUS[1]}
  ELAPSED_MS=$((($(date +%s%N) - t0) / 1000000)); within_ms "$lim" "$desc"
}
fifo="$ND_TMP/fifo"; mkfifo "$fifo"
truncate -s 2G "$ND_TMP/sparse.log"
printf 'NCCL INFO Bootstrap : Using eth0\n' >"$ND_TMP/sparse-text.log"; truncate -s 2G "$ND_TMP/sparse-text.log"
# text both commands read (a dmesg stamp: kernel says "cannot tell" on text
# that is no kernel log, which is not what these cases test)
printf '[    1.000000] hello nccl\n' | gzip >"$ND_TMP/log.gz"
for cmd in logs kernel; do
  timed $cmd --input-timeout 1 "$fifo"
  expect_rc 3 "$cmd: FIFO without a writer"; within_ms 4000 "$cmd: FIFO, --input-timeout 1"
  expect_err "no data from '$fifo' in 1 s" "$cmd: FIFO says no data"
  expect_err_lines 1 "$cmd: FIFO: one line"
  timed $cmd "$fifo"
  expect_rc 3 "$cmd: FIFO, default timeout"; within_ms 8000 "$cmd: FIFO, default 5 s"
  expect_err "no data from '$fifo' in 5 s" "$cmd: default is 5 s"
  for dev in /dev/zero /dev/urandom; do
    timed $cmd "$dev"
    expect_rc 3 "$cmd $dev"; within_ms 4000 "$cmd $dev"
    expect_err "cannot read '$dev': a character device .*, not a log" "$cmd $dev: refused"
  done
  piped $cmd "$cmd: /dev/zero through a pipe" 10000 cat /dev/zero
  expect_rc 3 "$cmd: zeros on stdin"; expect_err "binary data, not a text log" "$cmd: zeros on stdin: binary"
  piped $cmd "$cmd: a text line, then zeros for ever" 10000 sh -c 'printf "host:1:1 [0] NCCL INFO x\n"; cat /dev/zero'
  expect_rc 3 "$cmd: text then endless zeros"; expect_err "MiB of NUL bytes in a row" "$cmd: endless zeros after text: binary"
  piped $cmd "$cmd: /dev/urandom through a pipe" 10000 cat /dev/urandom
  expect_rc 3 "$cmd: random bytes on stdin"; expect_err "cannot read 'stdin': binary data, not a text log" "$cmd: random bytes: binary"
  (head -c 200000 /dev/urandom >"$fifo" 2>/dev/null &)
  timed $cmd "$fifo"
  expect_rc 3 "$cmd: FIFO fed random bytes"; within_ms 4000 "$cmd: FIFO with random bytes"
  expect_err "binary data" "$cmd: FIFO with random bytes: binary"
  for f in sparse.log sparse-text.log; do
    timed $cmd "$ND_TMP/$f"
    expect_rc 3 "$cmd: 2 GB $f"; within_ms 3000 "$cmd: 2 GB $f rejected early"
    expect_err "a sparse file \(2 GiB long" "$cmd: $f: says sparse"
  done
  run_nd $cmd "$ND_TMP/log.gz"
  if [ "$RC" -le 2 ]; then ok "$cmd: a gzip file is decompressed (exit $RC)"; else not_ok "$cmd: gzip file: exit $RC"; sed 's/^/    err: /' "$ERR"; fi
  head -c 100000 /dev/urandom | gzip >"$ND_TMP/rand.gz"
  run_nd $cmd "$ND_TMP/rand.gz"; expect_rc 3 "$cmd: gzip of random bytes"; expect_err "binary data" "$cmd: the binary rule runs on what gzip gives"
  piped $cmd "$cmd: gzip on stdin" 5000 cat "$ND_TMP/log.gz"
  expect_rc 3 "$cmd: gzip on stdin"; expect_err "gzip-compressed: decompress it first \(zcat FILE \| nccl-doctor $cmd -\)" "$cmd: gzip on stdin: hint"
  run_nd $cmd --input-timeout nan "$fifo"; expect_rc 64 "$cmd: --input-timeout nan"
  run_nd $cmd --input-timeout -1 "$fifo"; expect_rc 64 "$cmd: --input-timeout -1"
  run_nd $cmd --input-timeout 1e30 "$fifo"; expect_rc 64 "$cmd: --input-timeout 1e30"
  # a slow writer within the timeout is read whole
  ( (sleep 0.5; printf '[    0.500000] NCCL INFO a\n'; sleep 0.5; printf '[    1.000000] NCCL INFO b\n') >"$fifo" & )
  timed $cmd --input-timeout 3 "$fifo"
  if [ "$RC" -le 2 ]; then ok "$cmd: a slow writer is read (exit $RC)"; else not_ok "$cmd: slow writer: exit $RC"; sed 's/^/    err: /' "$ERR"; fi
done
# kernel takes the same arguments as logs: a quoted glob, and one that matches nothing
run_nd kernel "$ND_FIXTURES/kernel/dmar-*.dmesg"
if [ "$RC" -le 2 ]; then ok "kernel: a quoted glob is expanded (exit $RC)"; else not_ok "kernel glob: exit $RC"; fi
expect_out "^Kernel log: [1-9][0-9]* lines read" "kernel glob: lines read"
run_nd kernel "$ND_TMP/nothing-*.log"; expect_rc 3 "kernel: a glob without match"; expect_err "no file matches" "kernel: glob without match: says so"
# a log of a crashed node: text, then NUL blocks to the end, is still a log
{ printf 'host:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n'; head -c 30000 /dev/zero; } >"$ND_TMP/crashed.log"
run_nd logs "$ND_TMP/crashed.log"
if [ "$RC" -le 2 ]; then ok "logs: text followed by NUL blocks is read (exit $RC)"; else not_ok "logs: crashed log refused: exit $RC"; sed 's/^/    err: /' "$ERR"; fi
# a directory walk skips FIFOs and devices quietly
mkdir -p "$ND_TMP/dir"; mkfifo "$ND_TMP/dir/a.fifo"; printf 'x:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n' >"$ND_TMP/dir/r0.log"
timed logs "$ND_TMP/dir"
within_ms 3000 "logs DIR with a FIFO inside"
expect_no_out "a.fifo" "the FIFO in the directory is not an input"
finish
