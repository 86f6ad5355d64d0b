#!/usr/bin/env bash
# --gpus is parsed once (main.c, util/gpusel) and means the same in every
# command that honours it: indices and ranges, UUIDs (or a unique prefix) and
# PCI bus ids in any spelling select the same GPUs in topo (NVML on the fake
# stack) and kernel (the PCI tree of the sysroot); a bad list exits 64 before
# any work, in every command; a command that does not honour it says so.
. "$(dirname "$0")/lib.sh"
F="$ND_BUILD/tests/fakegpu"
ACS="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4.json"
sel() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(str(g["index"]) for g in d["gpus"]))' "$OUT"; }
for form in "1-2" "1,2" "GPU-fa4e0000-0000-4000-8000-000000000001,GPU-fa4e0000-0000-4000-8000-000000000002" \
            "0000:04:00.0,0000:13:00.0" "04:00.0,13:00.0" "00000000:04:00.0,13:00" "1,0000:13:00.0"; do
  run_nd --json --gpus "$form" topo --driver --sysroot "$ACS"
  got=$(sel)
  if [ "$got" = "1,2" ]; then ok "topo --gpus $form selects GPUs 1,2"; else not_ok "topo --gpus $form selects '$got'"; fi
done
# kernel: Xids of all four GPUs, kept only for the selected ones
log="$ND_TMP/xid.log"
for b in 03 04 13 14; do echo "[  10.0] NVRM: Xid (PCI:0000:$b:00): 79, pid=1, name=x, GPU has fallen off the bus."; done >"$log"
for form in "1-2" "0000:04:00.0,0000:13:00.0" "04:00.0,13:00"; do
  run_nd --json --gpus "$form" --sysroot "$ACS" kernel "$log"
  n=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(",".join(sorted(f["title"].split(" (")[0] for f in d["findings"] if f["id"] == "XID_79")))' "$OUT")
  if [ "$n" = "GPU 1,GPU 2" ]; then ok "kernel --gpus $form keeps GPUs 1 and 2's Xids"; else not_ok "kernel --gpus $form: '$n'"; fi
done
# bad lists: 64 before any work, in every command
for cmd in "check" "topo" "kernel /dev/null" "sys" "logs /dev/null" "p2p" "bench all_reduce" "watch -- true" "explain 79"; do
  run_nd --gpus abc $cmd
  expect_rc 64 "--gpus abc: $cmd"
done
run_nd --gpus 3-1 topo
expect_err "runs backwards" "--gpus 3-1 says why"
run_nd --gpus 1 --sysroot "$ACS" sys
expect_err "does not apply to this command" "sys says --gpus does not apply"
finish
