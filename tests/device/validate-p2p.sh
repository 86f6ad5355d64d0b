#!/bin/bash
# Device validation of issue 11 (`p2p`) on a real GPU machine (the lent one:
# one H200, so no pair: the per-GPU numbers are what is validated). Run from
# the repository root:
#
#   OUT=/some/dir bash tests/device/validate-p2p.sh          # builds build-dev/
#   OUT=/some/dir ND_BIN=/path/nccl-doctor bash tests/device/validate-p2p.sh
#
# Steps, each with its own timeout, about 3 minutes in all:
#   1. build (cmake, as validate-gpu.sh)
#   2. the PTX kernels on this GPU: `__worker p2p-gpu` (fill, verify, copies
#      by the copy engine, the SMs and across PCIe, every word checked)
#   3. `p2p` full (text and --json) and `p2p --quick`: one GPU, no pair
#   4. bench/p2p-bandwidth.sh: local device copy, pinned H2D and D2H against
#      PyTorch copies timed with CUDA events in the same run (and nvbandwidth
#      if installed); PASS when within 2 %
#   5. nothing left: no worker process, GPU memory back to where it was
# Files under $OUT (at most 8): summary.txt, build.log, worker.txt, p2p.txt,
# p2p.json, bench.txt, bench/ (the bench's own files), after.txt.
# NCCL_NVLS_ENABLE=0 stays exported. It never changes the system.
set -u
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-/tmp/nd-validate-p2p}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
say "# nccl-doctor p2p device validation, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(hostname)"
unset NCCL_DOCTOR_LIBRARY_PATH NCCL_DOCTOR_LIBRARY_PATH_ONLY NCCL_DOCTOR_FAKEGPU_SCENARIO

# --- 1. the binary ----------------------------------------------------------
if [ -z "${ND_BIN:-}" ]; then
  {
    timeout 120 cmake -S . -B build-dev -DNCCL_DOCTOR_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
      timeout 150 cmake --build build-dev -j"$(nproc)"
    echo "## build exit $?"
  } >"$OUT/build.log" 2>&1
  ND_BIN=$PWD/build-dev/nccl-doctor
fi
if [ ! -x "$ND_BIN" ]; then
  say "FAIL: no nccl-doctor binary (see build.log); give one with ND_BIN=..."
  exit 1
fi
say "binary: $ND_BIN ($("$ND_BIN" --version 2>&1))"
timeout 30 nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id,memory.used --format=csv >"$OUT/after.txt" 2>&1
MEM_BEFORE=$(timeout 30 nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1)

# --- 2. the kernels on this GPU ----------------------------------------------
timeout 120 "$ND_BIN" __worker p2p-gpu --device 0 --size 268435456 --reps 5 >"$OUT/worker.txt" 2>&1
rc=$?
python3 - "$OUT/worker.txt" <<'PY' | tee -a "$SUMMARY"
import json, sys
ver = bw = err = None
for line in open(sys.argv[1]):
    try:
        m = json.loads(line)
    except ValueError:
        continue
    if m.get("type") == "error":
        err = m
    d = m.get("data") or {}
    if d.get("step") == "verify":
        ver = d
    if d.get("step") == "bandwidth":
        bw = d
if err:
    print("FAIL: p2p-gpu worker error at '%s': %s" % (err.get("stage"), err.get("message")))
if ver:
    ok = all(ver.get(k) is True for k in ("fill", "ce_copy", "sm_copy", "h2d", "d2h"))
    print("%s: PTX kernels JIT-compiled and verified (fill, CE copy, SM copy, H2D, D2H) on 256 MiB" % ("PASS" if ok else "FAIL"))
if bw:
    print("worker numbers: local CE %.1f GB/s, local SM %.1f GB/s, H2D %.1f GB/s, D2H %.1f GB/s (%d SMs)" % (
        bw["local_copy_ce_gbs"], bw["local_copy_sm_gbs"], bw["h2d_gbs"], bw["d2h_gbs"], bw.get("sms", 0)))
PY
say "p2p-gpu worker: exit $rc"

# --- 3. p2p itself -------------------------------------------------------------
{
  echo "## nccl-doctor p2p"; timeout 300 "$ND_BIN" p2p --no-color; echo "## exit $?"
  echo; echo "## nccl-doctor p2p --quick"; timeout 120 "$ND_BIN" p2p --quick --no-color; echo "## exit $?"
} >"$OUT/p2p.txt" 2>&1
timeout 300 "$ND_BIN" p2p --json >"$OUT/p2p.json" 2>>"$OUT/p2p.txt"
rc=$?
python3 - "$OUT/p2p.json" "$rc" <<'PY' | tee -a "$SUMMARY"
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print("FAIL: p2p --json gave no JSON: %s" % e); sys.exit(0)
gpus = [g for g in d["gpus"] if g["state"] == "tested"]
print("p2p --json: exit %s, %d GPU(s) tested, %d pair(s); headline: %s" % (sys.argv[2], len(gpus), len(d["pairs"]), d.get("headline")))
for g in gpus:
    print("  GPU %d %s: local CE %s, SM %s, H2D %s, D2H %s GB/s, status %s" % (g["index"], g["name"], g["local_copy_ce_gbs"],
          g["local_copy_sm_gbs"], g["h2d_gbs"], g["d2h_gbs"], g["status"]))
if len(gpus) == 1:
    print("%s: one GPU, no pair, and the report says so" % ("PASS" if not d["pairs"] and "no GPU pair" in (d.get("headline") or "") else "FAIL"))
bad = [p for p in d["pairs"] if p["status"] not in ("OK", "NO_P2P")]
print("pairs not OK: %d" % len(bad))
PY

# --- 4. bandwidth against the reference ---------------------------------------
timeout 900 bash bench/p2p-bandwidth.sh "$ND_BIN" "$OUT/bench" >"$OUT/bench.txt" 2>&1
rc=$?
cat "$OUT/bench.txt" | tee -a "$SUMMARY" >/dev/null
say "bench/p2p-bandwidth.sh: exit $rc ($( [ $rc -eq 0 ] && echo 'PASS: within 2 %' || echo 'FAIL or no reference'))"
grep -E "PASS|FAIL|no reference" "$OUT/bench.txt" | sed 's/^/  /' | tee -a "$SUMMARY" >/dev/null

# --- 5. nothing left --------------------------------------------------------------
sleep 1
if pgrep -f "$ND_BIN __worker" >/dev/null; then say "FAIL: workers left: $(pgrep -af "$ND_BIN __worker" | head -3)"; else say "PASS: no worker left"; fi
MEM_AFTER=$(timeout 30 nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1)
say "GPU 0 memory used before/after: ${MEM_BEFORE:-?} / ${MEM_AFTER:-?} MiB"
timeout 30 nvidia-smi >>"$OUT/after.txt" 2>&1
say "done in ${SECONDS}s"
