#!/usr/bin/env bash
# Each fact is gathered once per run (collect/, the machine model): one
# `check` reads the PCI tree once and starts one NVML worker (nvml-topo) and
# one CUDA worker (cuda-info), although sys, topo, kernel, p2p, bench and fix
# all use what they found. The binary counts what it did when
# NCCL_DOCTOR_DEBUG_COUNTS=1 (a switch for tests only) and says so on stderr
# at exit: "collect: pci-scan N, worker nvml N, worker cuda N".
. "$(dirname "$0")/lib.sh"
F="$ND_BUILD/tests/fakegpu"
S="$ND_FIXTURES/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
TAG="t170-$$"
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG"
export NCCL_DOCTOR_DEBUG_COUNTS=1

# run_long ARGS...: run_nd for a whole check (8 GPUs under the sanitizers on
# a loaded machine take over run_nd's 60 s; the counts are the point here)
LONG=120; [ -n "${ND_SANITIZE:-}" ] && LONG=240
run_long() {
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
  timeout "$LONG" "$ND_BIN" "$@" >"$OUT" 2>"$ERR" </dev/null
  RC=$?
}

# expect_counts PCI NVML CUDA DESCRIPTION: the counts of the last run
expect_counts() {
  local want="collect: pci-scan $1, worker nvml $2, worker cuda $3" got
  got=$(grep -E '^collect: pci-scan' "$ERR" | tail -1)
  if [ "$got" = "$want" ]; then ok "$4: $want"; else
    not_ok "$4: got '${got:-no count line}', wanted '$want'"; fi
}

# healthy 8 x NVLink on a clean host (the H200 record with one NCCL copy):
# every stage runs, through bench
cp -r "$ND_FIXTURES/sysroot/h200-vm" "$ND_TMP/clean"
python3 - "$ND_TMP/clean/.nccl-doctor/libraries.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["libraries"] = d["libraries"][:1]; d["torch"] = []
json.dump(d, open(p, "w"))
PY
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/nvlink8.json" run_long check --driver --sysroot "$ND_TMP/clean" --max-bytes 1M
expect_out '^HEALTHY: 8 GPUs' "healthy check"
expect_out '^ *p2p +[0-9.]+ s' "the p2p stage ran"
expect_out '^ *bench +[0-9.]+ s' "the bench stage ran"
expect_counts 1 1 1 "healthy check: the PCI tree read once, one NVML and one CUDA worker"

# the classic ACS case: the fix stage runs as well
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json" run_long check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --timeout 3 --budget 60 --max-bytes 1M
expect_rc 2 "ACS case: BROKEN"
expect_out '^ *fix +[0-9.]+ s' "the fix stage ran"
expect_counts 1 1 1 "ACS case with fix: once each"

# each command alone gathers what it needs, once
NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/nolib" run_nd --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" sys
expect_counts 1 0 0 "sys: the tree once, no worker"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4.json" run_nd --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" topo --driver
expect_counts 1 1 1 "topo --driver"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-p2p.json" run_nd --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" p2p --quick --driver --timeout 5
expect_counts 1 1 1 "p2p --quick --driver"
run_nd --sysroot "$ND_FIXTURES/sysroot/kernel-p2p" kernel
expect_counts 1 0 0 "kernel"

# the switch is for tests: without it nothing is said
unset NCCL_DOCTOR_DEBUG_COUNTS
run_nd --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" sys
if grep -q '^collect:' "$ERR"; then not_ok "counts printed without NCCL_DOCTOR_DEBUG_COUNTS"; else ok "no counts without the switch"; fi
sleep 0.5
left=$(ls /dev/shm 2>/dev/null | grep -c "fakenccl-$TAG" || true)
if [ "$left" -eq 0 ]; then ok "no /dev/shm segment left"; else not_ok "$left segments left"; rm -f /dev/shm/fakenccl-$TAG-*; fi
finish
