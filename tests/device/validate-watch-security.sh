#!/bin/bash
# Device validation of the robustness of the active commands under root
# (watch ends and its job dies with it, --user, killed workers' /dev/shm)
# with the real driver, NCCL and PyTorch. Run from the repository root with
# OUT=DIR (ND_BIN=/path/nccl-doctor, else the tree is built into
# build-device-sec with tests/device/lib.sh's nd_binary):
#   1. SIGKILL of watch while its job (a 2-rank communicator of which one
#      rank started: stuck in NCCL init with GPU memory allocated) runs: the
#      guard ends the job's group, the GPU has no compute app left and the
#      private log directory is gone within 10 s;
#   2. watch --user nobody runs a PyTorch job that uses the GPU as uid 65534;
#   3. watch of a job whose main process exits while a background child
#      (setsid sleep) holds its output ends within a few seconds;
#   4. bench and p2p interrupted by SIGINT during NCCL set-up, five times
#      each: /dev/shm holds no new nccl-* segment afterwards;
#   5. as root, NCCL_DOCTOR_LIBRARY_PATH naming a directory another user
#      can write is ignored (said on stderr) and the real driver is used.
# Writes sec-summary.txt (PASS/FAIL per check) and a few logs under $OUT;
# about 2 minutes once the binary exists. NCCL_NVLS_ENABLE=0 stays set.
set -u
set -m
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/nd-validate}
mkdir -p "$OUT"
. "$(dirname "$0")/lib.sh"
nd_summary "$OUT/sec-summary.txt"
nd_binary build-device-sec || { say "FAIL: no nccl-doctor binary (see $OUT/build.log)"; exit 1; }
ND_BIN=$(readlink -f "$ND_BIN")
say "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(hostname) uid $(id -u); $("$ND_BIN" --version 2>&1)"
say "# $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1)"
unset NCCL_DOCTOR_LIBRARY_PATH NCCL_DOCTOR_LIBRARY_PATH_ONLY NCCL_DOCTOR_FAKEGPU_SCENARIO
TMP=$(mktemp -d /tmp/nd-vsec.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
apps() { timeout 20 nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | tr -d ' ' | tr '\n' ' '; }
ours() { local p out=""; for p in /proc/[0-9]*; do [ "$(readlink "$p/exe" 2>/dev/null)" = "$ND_BIN" ] && out="$out ${p#/proc/}"; done; echo "$out"; }
watchdirs() { ls -d "${TMPDIR:-/tmp}"/nccl-doctor-watch.* 2>/dev/null | tr '\n' ' '; }
shmlist() { ls /dev/shm 2>/dev/null | grep -E '^(nccl|fakenccl)-' | sort; }

# --- 1. SIGKILL of watch: the job dies with it ------------------------------
{
  echo "## before: apps [$(apps)] watch dirs [$(watchdirs)]"
  TMPDIR=/tmp "$ND_BIN" watch --stall 300 -- "$ND_BIN" __worker ranks --nranks 2 --start 1 --deadline 120 \
    >/dev/null 2>"$TMP/w1.err" </dev/null &
  nd=$!
  for _ in $(seq 1 60); do [ -n "$(apps)" ] && break; sleep 0.5; done
  sleep 2
  echo "## job running: apps [$(apps)] ours [$(ours)] watch dirs [$(watchdirs)]"
  kill -KILL "$nd"; wait "$nd" 2>/dev/null
  t0=$(date +%s)
  for _ in $(seq 1 20); do [ -z "$(apps)" ] && [ -z "$(ours)" ] && break; sleep 0.5; done
  echo "## $(( $(date +%s) - t0 )) s after SIGKILL: apps [$(apps)] ours [$(ours)] watch dirs [$(watchdirs)]"
  left=$(ours); [ -n "$left" ] && kill -KILL $left 2>/dev/null
} >"$OUT/sec-kill.txt" 2>&1
check "SIGKILL of watch: its NCCL job (stuck in init, GPU memory held) is gone, no compute app left" \
  grep -q '^## [0-9]* s after SIGKILL: apps \[\] ours \[\]' "$OUT/sec-kill.txt"
check "SIGKILL of watch: the private log directory is removed" grep -q 'after SIGKILL: .* watch dirs \[\]$' "$OUT/sec-kill.txt"

# --- 2. --user nobody with PyTorch on the GPU ------------------------------
timeout 120 "$ND_BIN" watch --user nobody -- python3 -c \
  'import os, torch; x = torch.ones(4, device="cuda"); print("uid", os.getuid(), "sum", float(x.sum()), flush=True)' \
  >"$OUT/sec-user.txt" 2>&1; rc=$?
echo "## exit $rc" >>"$OUT/sec-user.txt"
check "watch --user nobody: the PyTorch job ran on the GPU as uid 65534 (exit $rc)" grep -q '^uid 65534 sum 4.0$' "$OUT/sec-user.txt"

# --- 3. the main process ends, a background child keeps the output ----------
s=$(date +%s%N)
timeout 60 "$ND_BIN" watch -- sh -c 'setsid sleep 30 & echo job done; exit 5' >"$OUT/sec-ends.txt" 2>&1; rc=$?
ms=$(( ($(date +%s%N) - s) / 1000000 ))
echo "## exit $rc after $ms ms" >>"$OUT/sec-ends.txt"
check "watch ends with the job's main process ($ms ms, exit $rc) although a child holds its output" \
  test "$rc" -eq 5 -a "$ms" -lt 10000
pkill -f '^sleep 30$' 2>/dev/null

# --- 4. SIGINT during NCCL set-up: no /dev/shm segment left -----------------
shmlist >"$TMP/shm.before"
{
  for i in 1 2 3 4 5; do
    "$ND_BIN" bench all_reduce -g 1 -b 8 -e 64M >/dev/null 2>&1 </dev/null &
    nd=$!; sleep "0.$((3 + i))"; kill -INT "$nd"; wait "$nd"; echo "## bench SIGINT $i: exit $?"
    "$ND_BIN" p2p >/dev/null 2>&1 </dev/null &
    nd=$!; sleep "1.$i"; kill -INT "$nd"; wait "$nd"; echo "## p2p SIGINT $i: exit $?"
  done
  sleep 1
  echo "## ours [$(ours)] apps [$(apps)]"
} >"$OUT/sec-shm.txt" 2>&1
shmlist >"$TMP/shm.after"
new=$(comm -13 "$TMP/shm.before" "$TMP/shm.after" | tr '\n' ' ')
echo "## new segments [$new]; before $(wc -l <"$TMP/shm.before"), after $(wc -l <"$TMP/shm.after")" >>"$OUT/sec-shm.txt"
check "bench and p2p interrupted during set-up x5: no new /dev/shm segment [$new]" test -z "$new"
check "no process of ours and no compute app left after the interrupts" grep -q '^## ours \[\] apps \[\]$' "$OUT/sec-shm.txt"

# --- 5. a user-writable NCCL_DOCTOR_LIBRARY_PATH as root --------------------
mkdir -m 0777 "$TMP/libs"
NCCL_DOCTOR_LIBRARY_PATH="$TMP/libs" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 timeout 120 "$ND_BIN" topo >"$OUT/sec-libpath.txt" 2>&1; rc=$?
echo "## exit $rc" >>"$OUT/sec-libpath.txt"
check "as root a world-writable NCCL_DOCTOR_LIBRARY_PATH is ignored, said, and the real NVML answers (exit $rc)" \
  sh -c "grep -q 'ignoring NCCL_DOCTOR_LIBRARY_PATH' '$OUT/sec-libpath.txt' && grep -q 'H200' '$OUT/sec-libpath.txt'"
say "# $pass passed, $fail failed"
