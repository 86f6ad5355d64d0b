#!/usr/bin/env bash
# Text from outside reaches the terminal with its control characters shown,
# never raw: a saved kernel log (dmesg text and a /dev/kmsg copy, whose \xNN
# escapes decode to raw bytes) with ESC sequences, a C1 CSI as UTF-8 and a
# raw 0x9b byte; an NCCL log's WARN line; file names with an ESC in error
# messages and in logs' "skipping" note. The JSON keeps the strings as they
# are (escaped by the JSON writer).
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the whole report (evidence, fixes, notes)
ESC=$(printf '\033')
no_raw() { # FILE DESC: no ESC, no C1 CSI (UTF-8 or raw), no BEL
  if LC_ALL=C grep -q "$ESC"$'\|\xc2\x9b\|\x9b\|\x07' "$1"; then not_ok "$2: a control character was written raw"; LC_ALL=C grep -n "$ESC"$'\|\x9b\|\x07' "$1" | cat -v | head -3
  else ok "$2: no raw control character"; fi
}

# 1. dmesg text: an Xid whose process name carries escape sequences
printf '[  100.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=\033]0;owned\033\\py\033[2J\xc2\x9b6n\x9bx, GPU has fallen off the bus.\n' >"$ND_TMP/esc.dmesg"
run_nd kernel "$ND_TMP/esc.dmesg"
expect_rc 2 "kernel: the Xid is found"
no_raw "$OUT" "kernel, dmesg text"
expect_out 'evidence: .*esc\.dmesg:1: .*name=\\x1b\]0;owned\\x1b\\py\\x1b\[2J\\u009b6n\\x9bx, GPU has fallen' "kernel: the escapes are shown in the evidence"
run_nd --json kernel "$ND_TMP/esc.dmesg"
json_check 'any("name=\x1b]0;owned" in e["text"] for f in d["findings"] for e in f["evidence"])' "kernel --json: the string is kept as it is"

# 2. a /dev/kmsg copy: \x1b in a record is an ESC once decoded
printf '6,1001,100000002,-;NVRM: Xid (PCI:0000:3b:00): 79, pid=1, name=\\x1b[2Jpy\\x07, GPU has fallen off the bus.\n' >"$ND_TMP/kmsg.txt"
run_nd kernel "$ND_TMP/kmsg.txt"
expect_rc 2 "kernel on a kmsg copy: the Xid is found"
no_raw "$OUT" "kernel, kmsg copy"
expect_out 'name=\\x1b\[2Jpy' "kmsg copy: the decoded ESC is shown"

# 3. an NCCL log whose WARN line carries escape sequences: logs' reader
# removes colour codes and blanks raw control bytes itself; a C1 CSI in
# UTF-8 passed through to the report
{
  echo "node1:77:77 [0] NCCL INFO NCCL version 2.21.5+cuda12.4"
  printf 'node1:77:77 [0] enqueue.cc:1500 NCCL WARN Cuda failure 2 \047out of memory\047 \033[2J\xc2\x9b2J end\n'
} >"$ND_TMP/nccl.log"
run_nd logs "$ND_TMP/nccl.log"
no_raw "$OUT" "logs"
expect_out "Cuda failure 2 'out of memory' +\\\\u009b2J end" "logs: the C1 CSI of the WARN line is shown"

# 4. file names with an ESC: in error messages of both commands
bad="$ND_TMP/x$(printf '\033')[2Jy.log"
for cmd in logs kernel; do
  run_nd $cmd "$bad"
  expect_rc 3 "$cmd: a missing file with an ESC in its name"
  no_raw "$ERR" "$cmd: its error on stderr"
  no_raw "$OUT" "$cmd: its report"
  expect_err "(cannot read|no file matches) '.*/x\\\\x1b\\[2Jy\\.log'" "$cmd: the name is shown with \\x1b"
done
mkdir "$ND_TMP/dir"
cp "$ND_TMP/nccl.log" "$ND_TMP/dir/a.log"
head -c 4096 /dev/urandom >"$ND_TMP/dir/bin$(printf '\033')]0;t$(printf '\007').dat"
run_nd logs "$ND_TMP/dir"
no_raw "$ERR" "logs DIR: the note on a binary file"
expect_err 'skipping .*bin\\x1b\]0;t\\x07\.dat' "logs DIR: the skipped file's name is shown visibly"

# 5. text without control characters prints as before (UTF-8 included)
printf '[  100.000000] NVRM: Xid (PCI:0000:3b:00): 79, pid=1234, name=pythön, GPU has fallen off the bus.\n' >"$ND_TMP/utf8.dmesg"
run_nd kernel "$ND_TMP/utf8.dmesg"
expect_out 'name=pythön, GPU' "UTF-8 text is left as it is"
finish
