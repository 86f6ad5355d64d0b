#!/usr/bin/env bash
# A sysroot is untrusted input (issue 10 item 2): a device node, FIFO or
# socket inside it is refused with a clear message, never read: `kernel` on a
# tree whose dev/kmsg is /dev/zero-like or a FIFO ends at once; `sys` and
# `snapshot` on a tree with FIFOs in /proc end and name nothing they hung on.
. "$(dirname "$0")/lib.sh"
fx="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
mk() { rm -rf "$1"; mkdir -p "$1"; cp -r "$fx/." "$1/"; mkdir -p "$1/dev"; rm -f "$1/dev/kmsg"; }
# timed ARGS: run_nd with the time it took in ELAPSED_MS
timed() { local t0; t0=$(date +%s%N); run_nd "$@"; ELAPSED_MS=$((($(date +%s%N) - t0) / 1000000)); }
fast() { within 10000 "$ELAPSED_MS" "$1 ended in time (ms)"; }

root="$ND_TMP/fifo"; mk "$root"; mkfifo "$root/dev/kmsg"
timed kernel --sysroot "$root"
expect_rc 3 "kernel: dev/kmsg a FIFO in the sysroot"; fast "kernel on a FIFO dev/kmsg"
expect_err "cannot read '/dev/kmsg' in the sysroot '.*': a device node, FIFO or socket, not a file: not read" "kernel names the FIFO"

if mknod "$ND_TMP/probe-node" c 1 5 2>/dev/null; then
  rm -f "$ND_TMP/probe-node"
  root="$ND_TMP/chr"; mk "$root"; mknod "$root/dev/kmsg" c 1 5   # /dev/zero
  timed kernel --sysroot "$root"
  expect_rc 3 "kernel: dev/kmsg a /dev/zero node in the sysroot"; fast "kernel on a /dev/zero node"
  expect_err "a device node, FIFO or socket" "kernel names the device node"
  # through a link inside the tree as well
  root="$ND_TMP/chr2"; mk "$root"; mknod "$root/dev/zero" c 1 5; ln -s zero "$root/dev/kmsg"
  timed kernel --sysroot "$root"
  expect_rc 3 "kernel: dev/kmsg a link to a device node"; fast "kernel on a link to a node"
  timed snapshot --sysroot "$root" -o "$ND_TMP/c.tar"
  expect_rc 0 "snapshot of a tree with a device node for dev/kmsg"; fast "snapshot with a device node"
  expect_err "no kernel log" "snapshot leaves the node out"
else
  ok "# skip: mknod needs root"
fi

# FIFOs where sys reads /proc files
root="$ND_TMP/procfifo"; mk "$root"
for f in proc/cmdline proc/cpuinfo; do rm -f "$root/$f"; mkfifo "$root/$f"; done
timed sys --json --sysroot "$root"
fast "sys with FIFOs in /proc"
json_check 'd["command"] == "sys"' "sys still reports"
json_check 'd["facts"]["sysroot"]["special_files_refused"] >= 2' "sys: the refused special files are counted"
run_nd sys --sysroot "$root"
expect_out "not read \(first: /proc/c[a-z]*\): only regular files and directories are read in a sysroot" "sys: says what it did not read"
timed snapshot --sysroot "$root" -o "$ND_TMP/p.tar"
expect_rc 0 "snapshot with FIFOs in /proc"; fast "snapshot with FIFOs in /proc"
expect_err "device nodes, FIFOs or sockets of the sysroot left out \(first: /proc/c" "snapshot: says what it left out"
# a socket
root="$ND_TMP/sock"; mk "$root"
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])' "$root/dev/kmsg"
timed kernel --sysroot "$root"
expect_rc 3 "kernel: dev/kmsg a socket"; fast "kernel on a socket"
# a regular recorded dev/kmsg still works
root="$ND_TMP/reg"; mk "$root"; printf '6,1,1000,-;hello\n' >"$root/dev/kmsg"
run_nd kernel --sysroot "$root"; expect_rc 0 "kernel: a recorded dev/kmsg file is read"
finish
