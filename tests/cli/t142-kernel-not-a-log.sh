#!/usr/bin/env bash
# kernel FILE on text that is no kernel log cannot tell anything: prose, an
# NCCL log (whose "[1]" rank prefix is no dmesg stamp), a container log with
# ISO stamps, stdin; each says "cannot tell: no kernel log records found in
# 'FILE'" and exits 3 (it said HEALTHY, exit 0). A kernel log with records
# and no event stays HEALTHY; events found in text without stamps (dmesg -t)
# still count; check's kernel stage on a recorded sysroot still reads.
. "$(dirname "$0")/lib.sh"
K="$ND_FIXTURES/kernel"
msg() { echo "cannot tell: no kernel log records found in '$1' \\(not the output of dmesg, journalctl -k, a syslog kern.log or /dev/kmsg\\)"; }

printf 'This is a note about the cluster.\nNothing here is a kernel message.\n' >"$ND_TMP/prose.txt"
run_nd kernel "$ND_TMP/prose.txt"
expect_rc 3 "two lines of prose: cannot tell"
expect_err "^nccl-doctor kernel: $(msg "$ND_TMP/prose.txt")\$" "prose: the message names the file"
expect_out "^Could not complete: $(msg "$ND_TMP/prose.txt")\$" "prose: the report says it too"
expect_no_out "HEALTHY" "prose: not HEALTHY"
run_nd --json kernel "$ND_TMP/prose.txt"
expect_rc 3 "prose, --json"
json_check 'd["error"].startswith("cannot tell: no kernel log records found in ")' "--json: the error says cannot tell"

# an NCCL log of a real H200 run, and one whose lines start with the rank ("[1] NCCL WARN")
for f in "$ND_FIXTURES/logs/real-h200-2rank/healthy/nccl.0.log" "$ND_FIXTURES/logs/public/136-trtllm-tp2-enqueue-invalid-argument-nccl-2.25.1/log.txt" \
         "$ND_FIXTURES/logs/constructed/k8s-remote-error-rank0.log"; do
  run_nd kernel "$f"
  expect_rc 3 "NCCL log $(basename "$(dirname "$f")")/$(basename "$f"): cannot tell"
  expect_err "$(msg "$f")" "NCCL log: says so"
done
# a big NCCL log (200000 lines)
awk 'BEGIN { for (i = 0; i < 100000; i++) { printf "node1:1234:1234 [0] NCCL INFO Channel %02d/0 : 0[0] -> 1[1] via P2P/CUMEM\n", i % 32; printf "[1] NCCL INFO group.cc:242 -> 1\n" } }' >"$ND_TMP/big-nccl.log"
run_nd kernel "$ND_TMP/big-nccl.log"
expect_rc 3 "a 200000-line NCCL log: cannot tell"
# stdin
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
printf 'prose on stdin\n' | timeout 60 "$ND_BIN" kernel - >"$OUT" 2>"$ERR"; RC=$?
expect_rc 3 "prose on stdin"
expect_err "$(msg stdin)" "stdin: named stdin"
# several inputs, none a kernel log
run_nd kernel "$ND_TMP/prose.txt" "$ND_TMP/big-nccl.log"
expect_rc 3 "two inputs without records"
expect_err "cannot tell: no kernel log records found in the 2 inputs" "two inputs: counted"

# a kernel log without events: HEALTHY as before
printf '[    0.000000] Linux version 6.8.0-45-generic\n[    1.234567] pci 0000:3b:00.0: [10de:2335] type 00 class 0x030200\n' >"$ND_TMP/quiet.dmesg"
run_nd kernel "$ND_TMP/quiet.dmesg"
expect_rc 0 "a kernel log with records and no events"
expect_out "^Verdict: HEALTHY" "quiet kernel log: HEALTHY"
printf 'Dec  2 10:00:00 host kernel: usb 1-1: new high-speed USB device\n' >"$ND_TMP/kern.log"
run_nd kernel "$ND_TMP/kern.log"; expect_rc 0 "a kern.log line without events"
# a prose file beside a kernel log: the kernel log tells
run_nd kernel "$ND_TMP/quiet.dmesg" "$ND_TMP/prose.txt"; expect_rc 0 "a kernel log and a prose file"
# dmesg -t (no stamps) with an Xid: the event is a kernel message
printf 'NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=python, GPU has fallen off the bus.\n' >"$ND_TMP/t.dmesg"
run_nd kernel "$ND_TMP/t.dmesg"; expect_rc 2 "dmesg -t with an Xid 79: the event counts"
# the recorded fixtures still read
for f in fmt-dmesg-T.txt fmt-journal.txt fmt-journal-iso.txt fmt-journal-mono.txt fmt-kernlog.txt fmt-dmesg-x.txt fmt-kmsg.txt dmar-4x.dmesg; do
  run_nd kernel "$K/$f"
  if [ "$RC" -le 2 ]; then ok "$f: read (exit $RC)"; else not_ok "$f: exit $RC"; sed 's/^/    err: /' "$ERR" | head -3; fi
done
# check's kernel stage on a recorded sysroot whose dev/kmsg holds records
S=$(find "$ND_FIXTURES/sysroot" -path '*/dev/kmsg' -type f | head -1)
if [ -n "$S" ]; then
  root=${S%/dev/kmsg}
  run_nd --sysroot "$root" kernel
  if [ "$RC" -le 2 ]; then ok "the recorded dev/kmsg of $(basename "$root") reads (exit $RC)"; else not_ok "recorded dev/kmsg: exit $RC"; sed 's/^/    err: /' "$ERR" | head -3; fi
else
  skip "no recorded dev/kmsg in the fixtures"
fi
finish
