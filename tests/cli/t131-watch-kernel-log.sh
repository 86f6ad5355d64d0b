#!/usr/bin/env bash
# nccl-doctor watch --kernel-log FILE follows the input rules of `logs` and
# `kernel`: a regular file or a FIFO (opened and read without blocking); a
# device (other than the kernel's own /dev/kmsg), a directory or a socket is
# refused at the start with one line, exit 3 as `logs` gives for the same
# input (before: /dev/zero made watch spin at 100 % CPU for ever, deaf to
# SIGTERM, the job's output no longer passed on).
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the whole report (evidence, fixes, notes)
export TMPDIR="$ND_TMP"
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# 1. /dev/zero: refused at once; the job never starts
t0=$(now_ms)
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
timeout -k 5 20 "$ND_BIN" watch --stall 1 --on-stall kill --kernel-log /dev/zero -- sh -c 'echo job ran; sleep 5' >"$OUT" 2>"$ERR"
RC=$?; ms=$(( $(now_ms) - t0 ))
expect_rc 3 "--kernel-log /dev/zero: cannot run (as logs /dev/zero)"
expect_err "^nccl-doctor watch: --kernel-log: cannot read '/dev/zero': a character device \\(1:5\\), not a kernel log$" "one line says why"
expect_err_lines 1 "and nothing else"
expect_no_out 'job ran' "the job was not started"
within 5000 "$ms" "--kernel-log refused in time (ms)"

# 2. other devices and a directory
run_nd watch --kernel-log /dev/null -- true
expect_rc 3 "--kernel-log /dev/null refused (a device)"
expect_err "'/dev/null': a character device \\(1:3\\)" "it says so"
run_nd watch --kernel-log "$ND_TMP" -- true
expect_rc 3 "--kernel-log DIR refused"
expect_err "a directory, not a kernel log" "it says so"
# a file that cannot be opened stays a note of the diagnosis (t701)
run_nd watch --kernel-log "$ND_TMP/no-such" -- true
expect_rc 0 "a missing --kernel-log file does not stop a healthy job"

# 3. a FIFO: opened without a writer (no blocking), the Xid the job writes
# into it during the run is in the stall's diagnosis
mkfifo "$ND_TMP/kfifo"
t0=$(now_ms)
timeout -k 5 30 "$ND_BIN" watch --stall 1 --on-stall kill --kernel-log "$ND_TMP/kfifo" -- sh -c \
  'echo "[  200.500000] NVRM: Xid (PCI:0000:2a:00): 79, pid=$$, name=python3, GPU has fallen off the bus." >"$1"; echo written; sleep 30' \
  sh "$ND_TMP/kfifo" >"$OUT" 2>"$ERR"
RC=$?; ms=$(( $(now_ms) - t0 ))
expect_rc 143 "a FIFO as --kernel-log: the stalled job stopped"
expect_out '^written$' "the job wrote into the FIFO (watch held it open for reading)"
expect_err 'XID_79' "the Xid written into the FIFO is in the diagnosis"
within 15000 "$ms" "ended in time (ms)"

# 4. a FIFO nobody writes to: no blocking at the start or at a stall
t0=$(now_ms)
timeout -k 5 30 "$ND_BIN" watch --stall 1 --on-stall kill --kernel-log "$ND_TMP/kfifo" -- sh -c 'echo hello; sleep 30' >"$OUT" 2>"$ERR"
RC=$?; ms=$(( $(now_ms) - t0 ))
expect_rc 143 "a FIFO without a writer: the stalled job stopped"
expect_out '^hello$' "the job's output passed through"
expect_err "source +$ND_TMP/kfifo" "the FIFO is the kernel log's source"
within 15000 "$ms" "ended in time (ms)"

# 5. a FIFO fed without end (zeros, no newline): each look is bounded in
# bytes and time; the stall is still diagnosed and the job's output passed on
( exec head -c 2000000000 /dev/zero >"$ND_TMP/kfifo" ) 2>/dev/null &
feeder=$!
t0=$(now_ms)
timeout -k 5 60 "$ND_BIN" watch --stall 1 --on-stall kill --kernel-log "$ND_TMP/kfifo" -- sh -c 'echo hello; sleep 30' >"$OUT" 2>"$ERR"
RC=$?; ms=$(( $(now_ms) - t0 ))
kill $feeder 2>/dev/null; wait $feeder 2>/dev/null
expect_rc 143 "an endless FIFO: the stalled job stopped"
expect_out '^hello$' "the job's output passed through"
expect_err 'the job looks stuck' "the stall diagnosed"
within 20000 "$ms" "ended in time (ms)"
finish
