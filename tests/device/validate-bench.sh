#!/bin/bash
# Device validation of issue 12 (`bench`) on the H200 machine. Run from the
# repository root, with nccl-tests' source tree placed at .nccl-tests/:
#
#   OUT=/some/dir bash tests/device/validate-bench.sh            # builds build-dev/
#   OUT=/some/dir ND_BIN=/path/nccl-doctor bash tests/device/validate-bench.sh
#
# 1. builds nccl-doctor (build-dev/) and nccl-tests (make in .nccl-tests/,
#    NCCL_HOME=/usr, for sm_90 only so that it builds in time);
# 2. runs nccl-tests and `nccl-doctor bench` one after the other for
#    all_reduce, all_gather, broadcast and sendrecv, -b 8 -e 512M -f 2 -g 1,
#    and bench/bench-vs-nccl-tests.sh on each pair (ratios, PASS/FAIL:
#    algbw/busbw within 2% at >= 1 MiB, time within 5% at 8 B); all_reduce
#    also with --comm-blocking and with --timer event, to see what the
#    nonblocking communicator and the clock change;
# 3. a one-rank torch.distributed program (NCCL_DEBUG=INFO) and `bench --json`
#    in the same environment: the NCCL version torch loads against the one
#    bench loads, and the transports bench reports.
# Logs under $OUT (at most 30 files, summary.txt first). Every command has a
# timeout; the whole script ends within 8 minutes. It never changes the
# system. NCCL_NVLS_ENABLE=0 stays exported.
set -u
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-/tmp/nd-validate-bench}
mkdir -p "$OUT"
T0=$(date +%s)
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
left() { echo $(( 470 - ($(date +%s) - T0) )); }
say "# nccl-doctor bench validation, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(hostname)"
unset NCCL_DOCTOR_LIBRARY_PATH NCCL_DOCTOR_LIBRARY_PATH_ONLY NCCL_DOCTOR_FAKEGPU_SCENARIO NCCL_DEBUG
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader >"$OUT/gpu.txt" 2>&1
say "gpu: $(head -1 "$OUT/gpu.txt")"

# --- 1. builds (in parallel) --------------------------------------------------
if [ -z "${ND_BIN:-}" ]; then
  ( timeout 120 cmake -S . -B build-dev -DNCCL_DOCTOR_TESTS=OFF -DCMAKE_BUILD_TYPE=Release &&
      timeout 150 cmake --build build-dev -j8; echo "## build exit $?" ) >"$OUT/build.log" 2>&1 &
  NDPID=$!
  ND_BIN=$PWD/build-dev/nccl-doctor
fi
NT=.nccl-tests
if [ -d "$NT" ]; then
  ( cd "$NT" && timeout 240 make -j16 NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda \
      NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90"; echo "## make exit $?" ) >"$OUT/nccl-tests-build.log" 2>&1
else
  say "FAIL: no nccl-tests source tree at $NT"
fi
[ -n "${NDPID:-}" ] && wait "$NDPID"
if [ ! -x "$ND_BIN" ]; then
  say "FAIL: no nccl-doctor binary (see build.log)"
  exit 1
fi
say "binary: $ND_BIN ($("$ND_BIN" --version 2>&1)); nccl-tests: $(ls $NT/build/*_perf 2>/dev/null | wc -l) binaries"

# --- 2. the four operations, one tool after the other --------------------------
ARGS="-b 8 -e 512M -f 2 -g 1"
pass=0 fail=0
for op in all_reduce all_gather broadcast sendrecv; do
  [ "$(left)" -lt 60 ] && { say "SKIP $op: out of time"; continue; }
  if [ -x "$NT/build/${op}_perf" ]; then
    timeout 90 "$NT/build/${op}_perf" $ARGS >"$OUT/nccl-tests-$op.txt" 2>&1
    say "nccl-tests $op: exit $?, $(grep 'Avg bus' "$OUT/nccl-tests-$op.txt")"
  fi
  timeout 120 "$ND_BIN" bench "$op" $ARGS >"$OUT/bench-$op.txt" 2>"$OUT/bench-$op.err"
  say "bench $op: exit $?, $(grep 'Avg bus' "$OUT/bench-$op.txt")"
  if [ -s "$OUT/nccl-tests-$op.txt" ]; then
    if bash bench/bench-vs-nccl-tests.sh "$OUT/nccl-tests-$op.txt" "$OUT/bench-$op.txt" "$op" >"$OUT/ratio-$op.txt" 2>&1; then
      pass=$((pass + 1)); say "PASS $op: $(tail -1 "$OUT/ratio-$op.txt")"
    else
      fail=$((fail + 1)); say "FAIL $op:"; grep '^# FAIL' "$OUT/ratio-$op.txt" | head -8 | tee -a "$SUMMARY"
    fi
  fi
done
for variant in "--comm-blocking" "--timer event"; do
  [ "$(left)" -lt 45 ] && break
  name=$(echo "$variant" | tr -d ' -')
  timeout 90 "$ND_BIN" bench all_reduce $ARGS $variant >"$OUT/bench-all_reduce-$name.txt" 2>&1
  if [ -s "$OUT/nccl-tests-all_reduce.txt" ]; then
    bash bench/bench-vs-nccl-tests.sh "$OUT/nccl-tests-all_reduce.txt" "$OUT/bench-all_reduce-$name.txt" "all_reduce $variant" \
      >"$OUT/ratio-all_reduce-$name.txt" 2>&1
    say "all_reduce $variant: $(tail -1 "$OUT/ratio-all_reduce-$name.txt")"
  fi
done

# --- 3. torch and bench in the same environment -------------------------------
cat >"$OUT/torch_one_rank.py" <<'PY'
import os, torch, torch.distributed as dist
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29533")
dist.init_process_group("nccl", rank=0, world_size=1, device_id=torch.device("cuda:0"))
t = torch.ones(1 << 20, device="cuda")
dist.all_reduce(t)
torch.cuda.synchronize()
print("torch", torch.__version__, "nccl", ".".join(map(str, torch.cuda.nccl.version())), "sum ok", bool((t == 1).all()))
dist.destroy_process_group()
PY
if [ "$(left)" -gt 30 ]; then
  NCCL_DEBUG=INFO timeout 90 python3 "$OUT/torch_one_rank.py" >"$OUT/torch.log" 2>&1
  say "torch one rank: exit $?, $(grep '^torch ' "$OUT/torch.log")"
  timeout 60 "$ND_BIN" --json bench all_reduce -b 8 -e 1M -f 4 -g 1 >"$OUT/bench.json" 2>"$OUT/bench-json.err"
  say "bench --json: exit $?, $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["facts"]["bench"]["ranks"][0]; print("NCCL", r["nccl"], "init", r["init_s"], "s, transports", repr(r["transports"]))' "$OUT/bench.json" 2>&1)"
  timeout 30 "$ND_BIN" logs "$OUT/torch.log" >"$OUT/torch-logs.txt" 2>&1
  say "torch log through 'logs': exit $? ($(grep -m1 -i 'version' "$OUT/torch-logs.txt"))"
fi
say "comparisons: $pass passed, $fail failed; $(( $(date +%s) - T0 )) s"
