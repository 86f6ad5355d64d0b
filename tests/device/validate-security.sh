#!/bin/bash
# Device validation of issue 10 items 1-5 on a real GPU machine: what the
# fake GPU stack cannot show. Run from the repository root:
#
#   OUT=/some/dir bash tests/device/validate-security.sh          # builds build-dev/
#   OUT=/some/dir ND_BIN=/path/nccl-doctor bash tests/device/validate-security.sh
#
# 1. snapshot as root with secrets in the environment: none in the archive,
#    the NCCL variables kept, the kernel log recorded, sys reads the tree;
# 2. kernel on the live ring buffer (no FILE, and /dev/kmsg named as FILE);
# 3. SIGINT to topo while its NVML and CUDA workers run on the real driver,
#    and SIGTERM to a 2-rank communicator stuck in ncclCommInitRank (one rank
#    never starts): exit 130 / 143 within the grace period, no nccl-doctor
#    process and no compute app left on the GPU;
# 4. a FIFO without a writer given to logs and kernel ends within 1 s.
# Writes summary.txt (PASS/FAIL per check) and at most 6 other files under
# $OUT; every command has a timeout, the whole script stays under 4 minutes.
# It never changes the system. NCCL_NVLS_ENABLE=0 stays exported.
set -u
set -m   # background jobs keep SIGINT, so the signal tests can send it
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-/tmp/nd-validate-security}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
check() { if eval "$1"; then say "PASS: $2"; else say "FAIL: $2"; fi; }
say "# nccl-doctor security validation, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(hostname), uid $(id -u)"
unset NCCL_DOCTOR_LIBRARY_PATH NCCL_DOCTOR_LIBRARY_PATH_ONLY NCCL_DOCTOR_FAKEGPU_SCENARIO

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
ND_BIN=$(readlink -f "$ND_BIN")
say "binary: $ND_BIN ($("$ND_BIN" --version 2>&1))"
TMP=$(mktemp -d /tmp/nd-sec.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# processes running our binary (workers included), by /proc/PID/exe
ours() {
  local p out=""
  for p in /proc/[0-9]*; do
    [ "$(readlink "$p/exe" 2>/dev/null)" = "$ND_BIN" ] && out="$out ${p#/proc/}"
  done
  echo "$out"
}
apps() { timeout 20 nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | tr -d ' ' | tr '\n' ' '; }

# --- 1. snapshot with secrets -------------------------------------------
{
  cd "$TMP" && env AWS_SECRET_ACCESS_KEY=leakcheck-aws-1 HF_TOKEN=hf_leakcheckQ7xP3vR9tK2mW8nB4zH6 \
    VLLM_API_KEY=leakcheck-vllm NCCL_DEBUG=INFO NCCL_IB_HCA=mlx5_0 \
    timeout 120 "$ND_BIN" snapshot -o "$TMP/snap.tar.gz"
  echo "## snapshot exit $?"
  cd - >/dev/null
} >"$OUT/snapshot.txt" 2>&1
gzip -dc "$TMP/snap.tar.gz" >"$TMP/snap.tar" 2>/dev/null
check '! grep -aq leakcheck "$TMP/snap.tar"' "snapshot: no secret value in the archive"
mkdir -p "$TMP/un" && tar -xf "$TMP/snap.tar" -C "$TMP/un" 2>>"$OUT/snapshot.txt"
cat "$TMP"/un/proc/*/environ 2>/dev/null | tr '\0' '\n' >"$OUT/snapshot-environ.txt"
check 'grep -qx "NCCL_IB_HCA=mlx5_0" "$OUT/snapshot-environ.txt"' "snapshot: NCCL variables kept"
check 'grep -qx "VLLM_API_KEY=<redacted>" "$OUT/snapshot-environ.txt"' "snapshot: a kept name with a secret value is redacted"
check '[ -s "$TMP/un/dev/kmsg" ] || [ "$(id -u)" -ne 0 ]' "snapshot: kernel log recorded (as root)"
timeout 60 "$ND_BIN" sys --json --sysroot "$TMP/un" >"$TMP/sys.json" 2>>"$OUT/snapshot.txt"
check 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if d[\"command\"]==\"sys\" else 1)" "$TMP/sys.json"' \
  "snapshot: sys reads the unpacked tree"

# --- 2. the live kernel log ------------------------------------------------
{
  timeout 60 "$ND_BIN" kernel; echo "## kernel exit $?"
  timeout 60 "$ND_BIN" kernel /dev/kmsg; echo "## kernel /dev/kmsg exit $?"
} >"$OUT/kernel.txt" 2>&1
check 'grep -q "^## kernel exit [012]$" "$OUT/kernel.txt"' "kernel: the live ring buffer is read"
check 'grep -q "^## kernel /dev/kmsg exit [012]$" "$OUT/kernel.txt"' "kernel: /dev/kmsg named as FILE is read as records"

# --- 3. signals with the real driver ---------------------------------------
{
  echo "## before: ours [$(ours)] compute apps [$(apps)]"
  "$ND_BIN" topo >/dev/null 2>&1 </dev/null &
  nd=$!
  # wait for a worker (a second process of our binary), then interrupt
  for _ in $(seq 1 200); do [ "$(ours | wc -w)" -ge 2 ] && break; sleep 0.01; done
  echo "## topo running, ours [$(ours)]"
  s=$(date +%s%N); kill -INT "$nd"; wait "$nd"; rc=$?
  echo "## topo SIGINT exit $rc after $(( ($(date +%s%N) - s) / 1000000 )) ms"
  sleep 1
  echo "## after topo: ours [$(ours)]"
  "$ND_BIN" __worker ranks --nranks 2 --start 1 --deadline 60 >/dev/null 2>&1 </dev/null &
  nd=$!
  for _ in $(seq 1 40); do [ -n "$(apps)" ] && break; sleep 0.5; done
  sleep 2
  echo "## ranks running, ours [$(ours)] compute apps [$(apps)]"
  s=$(date +%s%N); kill -TERM "$nd"; wait "$nd"; rc=$?
  echo "## ranks SIGTERM exit $rc after $(( ($(date +%s%N) - s) / 1000000 )) ms"
  for _ in 1 2 3 4 5 6 7 8 9 10; do [ -z "$(apps)" ] && break; sleep 1; done
  echo "## after ranks: ours [$(ours)] compute apps [$(apps)]"
  left=$(ours)
  [ -n "$left" ] && kill -KILL $left 2>/dev/null   # only our own binary's processes
} >"$OUT/signals.txt" 2>&1
check 'grep -q "^## topo SIGINT exit 130 " "$OUT/signals.txt"' "topo: SIGINT exits 130"
check 'grep -q "^## after topo: ours \[\]$" "$OUT/signals.txt"' "topo: no process left after SIGINT"
check 'grep -q "^## ranks SIGTERM exit 143 " "$OUT/signals.txt"' "ranks: SIGTERM exits 143"
check 'grep -q "^## after ranks: ours \[\] compute apps \[\]$" "$OUT/signals.txt"' "ranks: no process and no GPU app left after SIGTERM"

# --- 4. a FIFO without a writer --------------------------------------------
mkfifo "$TMP/fifo"
for cmd in logs kernel; do
  s=$(date +%s%N); timeout 20 "$ND_BIN" $cmd --input-timeout 1 "$TMP/fifo" >/dev/null 2>"$TMP/err"; rc=$?
  ms=$(( ($(date +%s%N) - s) / 1000000 ))
  check "[ $rc -eq 3 ] && [ $ms -lt 3000 ] && grep -q 'no data from' '$TMP/err'" "$cmd: FIFO without a writer ends in $ms ms (exit $rc)"
done
say "# done; details in $OUT"
