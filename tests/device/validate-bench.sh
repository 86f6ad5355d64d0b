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
#    bench loads, and the transports bench reports;
# 4. the result check on the GPU (PTX kernels JIT-compiled by the driver):
#    every op, -d all -o all, must report 0 wrong and say "results checked on
#    the GPU"; the same with --host-check (the two checkers agree); the time
#    the check adds per row;
# 5. -G 10 (CUDA graph launches) beside nccl-tests' -G 10 (ratios as in 2);
# 6. 8 B latency: nccl-tests and four bench variants (default; NCCL_DEBUG=WARN;
#    --comm-blocking; both), 3 runs each of -n 1000 -w 100, medians in the
#    summary, to see which default costs the 8 B time.
# Logs under $OUT (at most 40 files, summary.txt first). Every command has a
# timeout; the whole script ends within 9.5 minutes. It never changes the
# system. NCCL_NVLS_ENABLE=0 stays exported.
#
# PARTS=23456 (the default) picks the parts after the build: PARTS=456 runs
# only the GPU check, -G and the 8 B matrix (about 4 minutes), PARTS=23 the
# earlier comparisons; two calls stay under the 10-minute limit of one.
set -u
export NCCL_NVLS_ENABLE=0
PARTS=${PARTS:-23456}
part() { case $PARTS in *"$1"*) return 0 ;; esac; return 1; }
OUT=${OUT:-/tmp/nd-validate-bench}
mkdir -p "$OUT"
T0=$(date +%s)
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
left() { echo $(( 560 - ($(date +%s) - T0) )); }
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
  part 2 || break
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
  part 2 || break
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
if part 3 && [ "$(left)" -gt 30 ]; then
  NCCL_DEBUG=INFO timeout 90 python3 "$OUT/torch_one_rank.py" >"$OUT/torch.log" 2>&1
  say "torch one rank: exit $?, $(grep '^torch ' "$OUT/torch.log")"
  timeout 60 "$ND_BIN" --json bench all_reduce -b 8 -e 1M -f 4 -g 1 >"$OUT/bench.json" 2>"$OUT/bench-json.err"
  say "bench --json: exit $?, $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d["facts"]["bench"]["ranks"][0]; print("NCCL", r["nccl"], "init", r["init_s"], "s, transports", repr(r["transports"]))' "$OUT/bench.json" 2>&1)"
  timeout 30 "$ND_BIN" logs "$OUT/torch.log" >"$OUT/torch-logs.txt" 2>&1
  say "torch log through 'logs': exit $? ($(grep -m1 -i 'version' "$OUT/torch-logs.txt"))"
fi
# --- 4. the result check on the GPU ------------------------------------------------
chk_pass=0 chk_fail=0
for op in all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv; do
  part 4 || break
  [ "$(left)" -lt 150 ] && { say "SKIP check $op: out of time"; continue; }
  for mode in gpu host; do
    extra=; [ "$mode" = host ] && extra=--host-check
    timeout 60 "$ND_BIN" bench "$op" -b 8 -e 4M -f 64 -d all -o all -n 2 -w 1 -c 1 $extra \
      >"$OUT/check-$op-$mode.txt" 2>&1
    rc=$?
    oob=$(sed -n 's/^# Out of bounds values : \([0-9]*\) .*/\1/p' "$OUT/check-$op-$mode.txt")
    if [ $rc -eq 0 ] && [ "$oob" = 0 ] && grep -q "results checked on the $( [ $mode = gpu ] && echo GPU || echo host)" "$OUT/check-$op-$mode.txt"; then
      chk_pass=$((chk_pass + 1))
    else
      chk_fail=$((chk_fail + 1))
      say "FAIL check $op ($mode): exit $rc, out of bounds '$oob', $(grep -m1 'results checked\|nccl-doctor: FAILED\|HANG' "$OUT/check-$op-$mode.txt")"
    fi
  done
done
part 4 && say "check on the GPU and on the host, 7 ops x every type and reduction: $chk_pass passed, $chk_fail failed"
if part 4 && [ "$(left)" -gt 120 ]; then
  # what checking costs (outside the timed region): -c 0 against -c 1, wall clock
  for c in 0 1; do
    t0=$(date +%s%N)
    timeout 90 "$ND_BIN" bench all_reduce -b 1M -e 512M -f 8 -c $c >"$OUT/check-cost-c$c.txt" 2>&1
    say "bench all_reduce 1M..512M -c $c: $(( ($(date +%s%N) - t0) / 1000000 )) ms wall, $(grep -m1 'results checked' "$OUT/check-cost-c$c.txt")"
  done
fi

# --- 5. -G: CUDA graph launches ------------------------------------------------------
if part 5 && [ "$(left)" -gt 90 ] && [ -x "$NT/build/all_reduce_perf" ]; then
  timeout 90 "$NT/build/all_reduce_perf" -b 8 -e 512M -f 8 -g 1 -G 10 >"$OUT/nccl-tests-all_reduce-G10.txt" 2>&1
  timeout 90 "$ND_BIN" bench all_reduce -b 8 -e 512M -f 8 -g 1 -G 10 >"$OUT/bench-all_reduce-G10.txt" 2>&1
  say "bench -G 10: exit $?, $(grep 'graph:' "$OUT/bench-all_reduce-G10.txt" | grep -o 'graph: [0-9]*'), $(grep 'Avg bus' "$OUT/bench-all_reduce-G10.txt")"
  bash bench/bench-vs-nccl-tests.sh "$OUT/nccl-tests-all_reduce-G10.txt" "$OUT/bench-all_reduce-G10.txt" "all_reduce -G 10" \
    >"$OUT/ratio-all_reduce-G10.txt" 2>&1
  say "all_reduce -G 10: $(tail -1 "$OUT/ratio-all_reduce-G10.txt")"
fi

# --- 6. 8 B latency: which default costs it ---------------------------------------------
t8() { sed -n 's/^ *8  *2  *float  *sum  *-1  *\([0-9.]*\) .*/\1/p' "$1" | head -1; }
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR ? a[int((NR+1)/2)] : "?")}'; }
L8="-b 8 -e 8 -g 1 -n 1000 -w 100"
if part 6 && [ "$(left)" -gt 60 ] && [ -x "$NT/build/all_reduce_perf" ]; then
  v=; for k in 1 2 3; do timeout 30 "$NT/build/all_reduce_perf" $L8 >"$OUT/lat-nccl-tests.txt" 2>&1; v="$v $(t8 "$OUT/lat-nccl-tests.txt")"; done
  say "8 B all_reduce, median of 3 (-n 1000): nccl-tests $(echo $v | median) us ($v)"
  for variant in default warn blocking warn+blocking; do
    [ "$(left)" -lt 20 ] && break
    envs=; flags=
    case $variant in warn) envs=NCCL_DEBUG=WARN ;; blocking) flags=--comm-blocking ;;
      warn+blocking) envs=NCCL_DEBUG=WARN; flags=--comm-blocking ;; esac
    v=; for k in 1 2 3; do env $envs timeout 30 "$ND_BIN" bench all_reduce $L8 $flags >"$OUT/lat-bench-$variant.txt" 2>&1; v="$v $(t8 "$OUT/lat-bench-$variant.txt")"; done
    say "8 B all_reduce, median of 3: bench $variant $(echo $v | median) us ($v)"
  done
fi
say "comparisons: $pass passed, $fail failed; $(( $(date +%s) - T0 )) s"
