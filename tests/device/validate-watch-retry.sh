#!/bin/bash
# Device validation of `watch --retry-with-fix` (issue 15 item 5) on one GPU
# with PyTorch and the system's NCCL. Run from the repository root:
#
#   OUT=/some/dir bash tests/device/validate-watch-retry.sh           # builds build-dev/
#   OUT=/some/dir ND_BIN=/path/nccl-doctor bash tests/device/validate-watch-retry.sh
#
# 1. works as given: a one-rank torch.distributed job initialises NCCL on
#    GPU 0, all-reduces once, then (first run only: a marker file) sleeps
#    without output while it holds the communicator. watch stalls, stops it,
#    waits for its GPU memory to be released, runs the fix search on GPU 0
#    (the GPU NVML showed the job on) and finds NCCL working as given: no
#    relaunch, the stopped job's status (143);
# 2. a relaunch: the user's environment names an interface that does not
#    exist (NCCL_SOCKET_IFNAME=nd_bogus0); the first run stalls before NCCL
#    (it sleeps); the search's "as given" trial fails in bootstrap, the
#    NCCL_SOCKET_IFNAME candidate (an interface that is up) works, the job
#    runs once more with it (replacing the user's value), initialises NCCL,
#    all-reduces and exits 0: watch exits 0.
# 3. afterwards: no compute process left on the GPU.
# Logs under $OUT (summary.txt first, retry-*.txt, retry-*.json). About
# 80 s after the build; every command has a timeout. NCCL_NVLS_ENABLE=0 stays
# exported. PYTHON=/path/python when python3 has no torch.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/nd-validate-retry}
PY=${PYTHON:-python3}
mkdir -p "$OUT"
S="$OUT/summary.txt"
. tests/device/lib.sh
nd_summary "$S"
unset NCCL_DOCTOR_LIBRARY_PATH NCCL_DOCTOR_LIBRARY_PATH_ONLY NCCL_DOCTOR_FAKEGPU_SCENARIO NCCL_DEBUG NCCL_SOCKET_IFNAME
say "# watch --retry-with-fix validation, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(hostname)"
say "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
if ! nd_binary build-dev 200; then
  say "FAIL: no nccl-doctor binary (see build.log)"
  exit 1
fi
say "binary: $ND_BIN"
W="$OUT/retry-work"
rm -rf "$W"; mkdir -p "$W"
cat >"$W/job.py" <<'PYJOB'
import os, sys, time, torch, torch.distributed as dist
marker = sys.argv[1]
first = not os.path.exists(marker)
open(marker, "a").close()
torch.cuda.set_device(0)
dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x); torch.cuda.synchronize()
print("init done, all_reduce ok, NCCL_SOCKET_IFNAME=%s" % os.environ.get("NCCL_SOCKET_IFNAME", "unset"), flush=True)
if first:
    time.sleep(600)          # holds the communicator, prints nothing: the stall
print("finished", flush=True)
dist.destroy_process_group()
PYJOB
# the second case stalls before NCCL on its first run
cat >"$W/job2.sh" <<'SHJOB'
if [ ! -e "$1" ]; then : >"$1"; echo "first run: waiting before NCCL"; sleep 600; fi
exec "$PY" "$(dirname "$0")/job.py" "$1"
SHJOB
export PY
validate() { # FILE
  if "$PY" -c 'import jsonschema' 2>/dev/null || python3 -c 'import jsonschema' 2>/dev/null; then
    python3 tests/tools/validate_json.py docs/schema "$1" >>"$S" 2>&1
  else
    say "(no jsonschema module: $1 not validated)"; return 0
  fi
}
retry() { "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["retry"]; print(eval(sys.argv[2]))' "$@" 2>&1; }

# --- 1. works as given --------------------------------------------------------
t0=$(date +%s.%N)
timeout 110 env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29631 \
  "$ND_BIN" watch --stall 15 --retry-with-fix --retry-budget 60 --retry-fix-args "--max-bytes 64M" \
  --json="$OUT/retry-asgiven.json" -- "$PY" "$W/job.py" "$W/marker1" >"$OUT/retry-asgiven.out" 2>"$OUT/retry-asgiven.txt"
rc=$?
t1=$(date +%s.%N)
say "1. works as given: exit $rc after $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s"
grep -E "the fix search on|GPUs tried|as given  |not relaunched|NVML still lists|stopping the job" "$OUT/retry-asgiven.txt" | head -8 | tee -a "$S"
check "1: the stopped job's status passed through (143)" [ "$rc" -eq 143 ]
check "1: the search ran on GPU 0 (as NVML showed the job there; 'all GPUs' when NVML does not list its pid)" \
  grep -qE "the fix search on (GPU 0 \((nvml|CUDA_VISIBLE_DEVICES)\)|all GPUs)" "$OUT/retry-asgiven.txt"
check "1: one GPU tried" grep -qE "GPUs tried +1$" "$OUT/retry-asgiven.txt"
check "1: the job's GPU memory was released before the search" bash -c "! grep -q 'NVML still lists' '$OUT/retry-asgiven.txt'"
check "1: works as given, not relaunched" grep -q "not relaunched: NCCL works as given" "$OUT/retry-asgiven.txt"
check "1: the job ran once" [ "$(grep -c 'init done' "$OUT/retry-asgiven.out")" -eq 1 ]
say "   json: $(retry "$OUT/retry-asgiven.json" '(r["searched"], r["relaunched"], r.get("winner"), r.get("gpus"), [(t["configuration"], t["status"], t["busbw"]) for t in r.get("trials", [])][:3], r.get("why_not"))')"
check "1: --json validates" validate "$OUT/retry-asgiven.json"

# --- 2. a relaunch with the measured winner -----------------------------------
t0=$(date +%s.%N)
timeout 110 env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29632 NCCL_SOCKET_IFNAME=nd_bogus0 \
  "$ND_BIN" watch --stall 5 --retry-with-fix --retry-budget 60 --retry-fix-args "--max-bytes 1M" \
  --json="$OUT/retry-relaunch.json" -- sh "$W/job2.sh" "$W/marker2" >"$OUT/retry-relaunch.out" 2>"$OUT/retry-relaunch.txt"
rc=$?
t1=$(date +%s.%N)
say "2. relaunch: exit $rc after $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s"
grep -E "the fix search on|as given  |NCCL_SOCKET_IFNAME|relaunching|replace your|not relaunched" "$OUT/retry-relaunch.txt" | head -10 | tee -a "$S"
check "2: as given failed (the bogus interface)" grep -qE "^  ! as given .*(ERROR|HANG)" "$OUT/retry-relaunch.txt"
check "2: relaunched with the NCCL_SOCKET_IFNAME winner" grep -q "relaunching the job once with NCCL_SOCKET_IFNAME=" "$OUT/retry-relaunch.txt"
check "2: it says the user's value was replaced" grep -q "replace your NCCL_SOCKET_IFNAME=nd_bogus0" "$OUT/retry-relaunch.txt"
check "2: the relaunched job initialised NCCL and finished" grep -q "^finished" "$OUT/retry-relaunch.out"
check "2: its status passed through (0)" [ "$rc" -eq 0 ]
say "   json: $(retry "$OUT/retry-relaunch.json" '(r.get("winner"), r.get("overridden"), r["relaunched"], r["relaunch_exit_code"], r.get("why_not"))')"
check "2: --json validates" validate "$OUT/retry-relaunch.json"

# --- 3. nothing left ---------------------------------------------------------
sleep 1
apps=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -c '[0-9]')
check "3: no compute process left on the GPU ($apps)" [ "$apps" -eq 0 ]
say "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
