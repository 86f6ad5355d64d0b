#!/usr/bin/env bash
# No GPU and no driver (issue 10 item 6): sys and topo give the same verdict,
# "no NVIDIA GPU or driver here: nothing to check", with one exit status (3),
# in text and JSON; topo makes no driver finding there. GPUs on the bus
# without a driver are still a problem, not "nothing to check".
. "$(dirname "$0")/lib.sh"
MSG="no NVIDIA GPU or driver here: nothing to check"
nogpu="$ND_TMP/nogpu"
mkdir -p "$nogpu/sys/bus/pci/devices/0000:00:00.0" "$nogpu/proc"
printf '0x8086\n' >"$nogpu/sys/bus/pci/devices/0000:00:00.0/vendor"
printf '0x060000\n' >"$nogpu/sys/bus/pci/devices/0000:00:00.0/class"
printf 'BOOT_IMAGE=/vmlinuz root=/dev/sda1\n' >"$nogpu/proc/cmdline"
mkdir -p "$ND_TMP/nolib"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/nolib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
for cmd in "sys" "topo --driver"; do
  name=${cmd%% *}
  run_nd $cmd --sysroot "$nogpu"
  expect_rc 3 "$name: no GPU, no driver"
  expect_out "^Nothing to check: $MSG" "$name: says nothing to check"
  expect_out "^Verdict: NOTHING TO CHECK$" "$name: the verdict word"
  expect_err "^nccl-doctor $name: $MSG\$" "$name: one line on stderr"
  expect_no_out "NVML_NOT_AVAILABLE|driver_or_kernel_bug|HEALTHY" "$name: no driver finding, no HEALTHY"
  run_nd $cmd --json --sysroot "$nogpu"
  expect_rc 3 "$name --json: exit 3"
  json_check "d['error'] == '$MSG'" "$name --json: the same error"
done
# GPUs on the bus but no driver: a problem, not "nothing to check"
run_nd sys --sysroot "$ND_FIXTURES/sysroot/no-driver"
expect_rc 2 "sys: GPUs without a driver is a problem"
expect_no_out "nothing to check" "sys: GPUs without a driver are not 'nothing to check'"
run_nd topo --driver --sysroot "$ND_FIXTURES/sysroot/no-driver"
expect_no_out "nothing to check" "topo: GPUs without a driver are not 'nothing to check'"
expect_out "NVML_NOT_AVAILABLE" "topo: GPUs without a driver: NVML finding kept"
finish
