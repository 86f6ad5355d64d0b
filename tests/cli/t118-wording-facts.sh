#!/usr/bin/env bash
# Issue 10 item 9: what sys says when it could not read something is what
# happened, and its advice can be followed. On a copy of a fixture sysroot:
# an ACS config space nobody may read, a GPU whose sysfs directory is
# unreadable, an unreadable mountinfo (all read by an unprivileged user:
# root reads through mode 000), a symbolic link loop in sys/class/net, a low
# open-files limit under a low hard limit, a downtrained GPU link.
. "$(dirname "$0")/lib.sh"
SR="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
S="$ND_TMP/sr"
cp -a "$SR" "$S"
chmod 755 "$ND_TMP"
chmod -R a+rX "$S"
D="$S/sys/devices/pci0000:00"

# run_user ARGS: as an unprivileged user (setpriv from root; as is otherwise)
can_drop=1
run_user() {
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
  if [ "$(id -u)" -ne 0 ]; then timeout 60 "$ND_BIN" "$@" >"$OUT" 2>"$ERR" </dev/null
  else timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$ND_BIN" "$@" >"$OUT" 2>"$ERR" </dev/null; fi
  RC=$?
}
if [ "$(id -u)" -eq 0 ] && ! setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then can_drop=0; fi

# 1. a bridge's config space unreadable; 2. a GPU's sysfs directory
# unreadable; 3. mountinfo unreadable
chmod 000 "$D/0000:00:03.0/0000:11:00.0/config" "$D/0000:00:03.0/0000:11:00.0/0000:12:10.0/0000:14:00.0" \
  "$S/proc/self/mountinfo"
if [ $can_drop -eq 1 ]; then
  run_user --sysroot "$S" sys
  expect_out "0000:11:00.0/config: config space unreadable \(permission denied: needs root\)" "ACS: unreadable config named as such"
  expect_no_out "-[0-9]+ bytes readable" "ACS: no errno shown as a byte count"
  expect_out "ACS_UNKNOWN_NEEDS_ROOT +ACS state of 1 bridge above the GPUs is unknown: reading it needs root" "ACS: refused read: needs root"
  expect_out "NVIDIA GPUs +3" "unreadable GPU directory: three GPUs identified"
  expect_out "1 PCI device could not be identified \(sysfs: permission denied: needs root\) and is not counted: 0000:14:00.0 may be a GPU" \
    "unreadable GPU directory: a note names it"
  expect_out "/dev/shm filesystem +unknown \(mountinfo unreadable: permission denied, needs root\)" "mountinfo: unreadable, not 'not in mountinfo'"
  expect_no_out "SHM_NOT_MOUNTED" "mountinfo unreadable: /dev/shm not called unmounted"
  run_user --sysroot "$S" --json sys
  json_check "any('could not be identified' in n for n in d['facts']['gpus'].get('notes', []))" "unreadable GPU directory: the note in --json"
else
  echo "# skipped: no way to drop root"
fi
chmod 755 "$D/0000:00:03.0/0000:11:00.0/0000:12:10.0/0000:14:00.0"
chmod 644 "$D/0000:00:03.0/0000:11:00.0/config" "$S/proc/self/mountinfo"

# 4. a symbolic link loop in sys/class/net is not an interface that is up
ln -s eth9 "$S/sys/class/net/eth9"
# 5. a low open-files limit under a hard limit of 4096
sed -i 's/^Max open files .*/Max open files            1024                 4096                 files     /' "$S/proc/self/limits"
# 6. GPU0 trained at x8 of x16
echo 8 >"$D/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0/current_link_width"
run_nd --sysroot "$S" sys
expect_out "eth9 +unreadable \(too many levels of symbolic links\)" "net: link loop shown as unreadable"
expect_no_out "eth9 +(up|unknown)" "net: link loop not up"
run_nd --sysroot "$S" --json sys
json_check "[r['state'] for r in d['facts']['network']['interfaces'] if r['name'] == 'eth9'] == ['unreadable (too many levels of symbolic links)']" "net: --json state"
json_check "not any(f['id'] == 'SOCKET_IFNAME_AMBIGUOUS' and 'eth9' in json.dumps(f) for f in d['findings'])" "net: the loop is no candidate"
json_check "[x['text'] for f in d['findings'] if f['id'] == 'NOFILE_LOW' for x in f['fixes'] if x['kind'] == 'shell'] == ['ulimit -n 4096', \"echo '* - nofile 1048576' | sudo tee /etc/security/limits.d/99-nofile.conf\"]" \
  "NOFILE_LOW: up to the hard limit without root, then the root command"
json_check "any('needs root' in (x.get('note') or '') for f in d['findings'] if f['id'] == 'NOFILE_LOW' for x in f['fixes'])" "NOFILE_LOW: says needs root"
json_check "[f['cause'] for f in d['findings'] if f['id'] == 'PCIE_LINK_DOWNTRAINED'] == ['pcie_link']" "downtrained: one finding, a PCIe link cause"
json_check "{x['kind'] for f in d['findings'] if f['id'] == 'PCIE_LINK_DOWNTRAINED' for x in f['fixes']} >= {'shell', 'note', 'bios'}" "downtrained: lspci, physical and BIOS checks"
expect_out "reseat the GPU and its riser or cable" "downtrained: reseat"
expect_out "move the GPU to a slot wired x16" "downtrained: another slot"
expect_out "bifurcation \(x16\) and its PCIe link speed" "downtrained: BIOS link settings"
# the hard limit high enough: the plain ulimit, no root
sed -i 's/^Max open files .*/Max open files            1024                 1048576              files     /' "$S/proc/self/limits"
run_nd --sysroot "$S" --json sys
json_check "[(x['text'], x.get('note')) for f in d['findings'] if f['id'] == 'NOFILE_LOW' for x in f['fixes'] if x['kind'] == 'shell'] == [('ulimit -n 1048576', 'raises the soft limit within the hard limit: no root needed')]" \
  "NOFILE_LOW: high hard limit: ulimit alone"
finish
