#!/usr/bin/env bash
# How long `nccl-doctor check` takes with default options on the fake
# 8-GPU machines (the fake GPU stack of tests/fakegpu: every rank's data is
# really reduced on the CPU), against the goals of the verdict: the healthy
# HGX box HEALTHY in under 60 s and the classic 8-GPU PCIe case (ACS,
# NCCL hanging across the switches) within its 90 s budget with a fix
# measured. Prints each run's seconds, verdict, recommendation and the
# ratio to its goal (below 1.0 meets it). Run on an idle machine.
#   bench/check-fake-speed.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
bin=$build/nccl-doctor
[ -x "$bin" ] && [ -d "$build/tests/fakegpu/lib" ] || { echo "build first (with tests): $bin or $build/tests/fakegpu/lib missing" >&2; exit 3; }
export NCCL_DOCTOR_LIBRARY_PATH=$build/tests/fakegpu/lib NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 NCCL_DOCTOR_FAKEGPU_SHM_TAG="speed-$$"
trap 'rm -f /dev/shm/fakenccl-speed-$$-*' EXIT
for v in $(env | sed -n 's/^\(\(NCCL\|CUDA\)_[A-Za-z0-9_]*\)=.*/\1/p' | grep -v '^NCCL_DOCTOR_'); do unset "$v"; done
printf '%-22s %8s %-10s %-24s %8s\n' machine seconds verdict recommended vs_goal
run() { # NAME SCENARIO SYSROOT GOAL_S
  NCCL_DOCTOR_FAKEGPU_SCENARIO=$here/tests/fixtures/fakegpu/$2 "$bin" --json check --driver \
	--sysroot "$here/tests/fixtures/sysroot/$3" 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin); goal = float(sys.argv[2])
rec = (d.get("facts", {}).get("fix") or {}).get("recommended") or "-"
print("%-22s %8.1f %-10s %-24s %8.2f" % (sys.argv[1], d["elapsed_s"], d["verdict"], rec, d["elapsed_s"] / goal))
' "$1" "$4"
}
run hgx8-healthy hgx8-healthy.json hgx-fm-healthy 60
run pcie8-acs-hang pcie8-acs-hang.json pcie-8gpu-acs 90
