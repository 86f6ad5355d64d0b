#!/usr/bin/env bash
# Broken trees: missing files, a directory or a FIFO where a file should be,
# binary garbage, a 10 MB line, an empty tree. sys must finish with facts
# marked unknown, never crash or hang.
. "$(dirname "$0")/lib.sh"
mkdir -p "$ND_TMP/empty"
run_nd sys --json --sysroot "$ND_TMP/empty"
if [ "$RC" -le 2 ]; then ok "empty tree: exit $RC"; else not_ok "empty tree: exit $RC"; fi
json_check 'd["facts"]["gpus"]["pci"] is None and d["facts"]["gpus"]["unknown"]["pci"] == "missing"' "empty tree: PCI devices unknown (missing)"
json_check 'any(f["id"] == "SYSROOT_INCOMPLETE" for f in d["findings"])' "empty tree: says the tree is incomplete"

t="$ND_TMP/broken"; cp -r "$ND_FIXTURES/sysroot/pcie-4gpu-acs/." "$t/"
rm -f "$t/proc/cpuinfo"; mkfifo "$t/proc/cpuinfo"                  # a FIFO nobody writes
rm -f "$t/proc/self/limits"; mkdir "$t/proc/self/limits"             # a directory
head -c 20000 /dev/urandom >"$t/proc/self/mountinfo"                 # garbage
head -c 10485760 /dev/zero | tr '\0' 'a' >"$t/proc/cmdline"          # a 10 MB line
printf '\377\376garbage\0\0' >"$t/sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:08.0/0000:03:00.0/class"
head -c 100 /dev/urandom >"$t/proc/driver/nvidia/version"
printf 'not json' >"$t/.nccl-doctor/live.json"
run_nd sys --json --sysroot "$t"
if [ "$RC" -le 2 ]; then ok "broken tree: exit $RC, no crash"; else not_ok "broken tree: exit $RC"; cat "$ERR" | head -5; fi
json_check 'd["facts"]["limits"]["memlock"] is None' "limits that are a directory: unknown"
json_check 'd["facts"]["host"]["cpus"] is None' "cpuinfo FIFO: unknown, no hang"
run_nd sys --sysroot "$t"
expect_out '^Verdict' "broken tree: text report completes"
# a sysfs attribute loop: a link pointing at itself
t2="$ND_TMP/loop"; mkdir -p "$t2/sys/bus/pci/devices"; ln -s "0000:00:01.0" "$t2/sys/bus/pci/devices/0000:00:01.0"
run_nd sys --json --sysroot "$t2"
# (no GPU and no driver in that tree: exit 3, "nothing to check", not a crash)
if [ "$RC" -le 2 ] || { [ "$RC" -eq 3 ] && grep -q "nothing to check" "$OUT"; }; then ok "link loop: exit $RC"; else not_ok "link loop: exit $RC"; fi
finish
