#!/usr/bin/env bash
# `nccl-doctor bench` beside nccl-tests, every operation, on this machine's
# GPUs (issue: bench parity). Builds nccl-tests from .nccl-tests/ (a copy of
# its public source, git-ignored) when its binaries are missing, then runs
# both tools alternately, ROUNDS rounds (the order flips each round), over
# the operations and nccl-tests' size sweep, and prints per operation:
#   small  geometric mean over 8 B..64 KiB of ours / nccl-tests' out-of-place
#          time (each size's median over the rounds); criterion <= 1.05
#   <=2M   the same over 8 B..2 MiB (the issue's first table)
#   bw>=1M the worst per-size ratio of median algbw at >= 1 MiB, out-of-place
#          and in-place (on one GPU in place moves nothing: out-of-place
#          only); criterion >= 0.98
#   top    the algbw ratio at the largest size
#   wrong  the #wrong counts of both (must be 0 and 0)
# and exits 0 when every operation meets both criteria, 1 when not, 2 when a
# tool gave no rows. Needs a GPU. Always NCCL_NVLS_ENABLE=0.
#   ND_BIN=build/nccl-doctor bench/side-by-side.sh [ROUNDS] [GPUS] [OP...]
# FLAGS (default "-b 8 -e 512M -f 4 -n 20 -w 5") are given to both tools;
# ND_ARGS adds arguments to ours only; RAW=DIR keeps the outputs there;
# ANALYZE_ONLY=1 with RAW=DIR prints the table of outputs made before;
# NTB=DIR takes nccl-tests' binaries from DIR instead of .nccl-tests/build;
# PIN="taskset -c 2-3" runs both tools under that prefix (on a VM, a run's
# launch latency depends on where its threads land: 4.3 or 6.1 us per call
# from one process to the next, for both tools alike).
set -u
export NCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${ND_BIN:-$here/build/nccl-doctor}
rounds=${1:-5} g=${2:-1}
shift $(($# < 2 ? $# : 2))
ops=("$@")
[ ${#ops[@]} -gt 0 ] || ops=(all_reduce all_gather reduce_scatter broadcast reduce alltoall sendrecv gather scatter alltoallv hypercube)
read -r -a flags <<<"${FLAGS:--b 8 -e 512M -f 4 -n 20 -w 5}"
read -r -a extra <<<"${ND_ARGS:-}"
read -r -a pin <<<"${PIN:-}"
ntb=${NTB:-$here/.nccl-tests/build}
need=0
for op in "${ops[@]}"; do [ -x "$ntb/${op}_perf" ] || need=1; done
[ -n "${ANALYZE_ONLY:-}" ] && need=0
if [ $need = 1 ]; then
  [ -d "$here/.nccl-tests/src" ] || { echo "no nccl-tests source in $here/.nccl-tests (fetch it and copy the tree there)" >&2; exit 2; }
  echo "# building nccl-tests ($(sed -n 's/.*NCCL_TESTS_VERSION "\(.*\)"/\1/p' "$here/.nccl-tests/src/common.h"))" >&2
  (cd "$here/.nccl-tests" && make -j"$(nproc)" NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda \
    NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" src.build >/tmp/nt-build.log 2>&1) ||
    { echo "nccl-tests build failed: /tmp/nt-build.log" >&2; tail -5 /tmp/nt-build.log >&2; exit 2; }
fi
W=${RAW:-$(mktemp -d /tmp/sbs.XXXXXX)}
mkdir -p "$W"
one() { # TOOL OP ROUND
  if [ "$1" = nt ]; then
    "${pin[@]}" timeout 300 "$ntb/${2}_perf" "${flags[@]}" -g "$g" >"$W/nt.$2.$3" 2>&1
  else
    "${pin[@]}" timeout 300 "$bin" bench "$2" "${flags[@]}" -g "$g" "${extra[@]}" >"$W/nd.$2.$3" 2>&1
  fi
}
[ -n "${ANALYZE_ONLY:-}" ] && rounds_run=0 || rounds_run=$rounds # ANALYZE_ONLY=1 RAW=DIR: the outputs already there
for r in $(seq "$rounds_run"); do
  for op in "${ops[@]}"; do
    if [ $((r % 2)) = 1 ]; then one nt "$op" "$r"; one nd "$op" "$r"
    else one nd "$op" "$r"; one nt "$op" "$r"; fi
  done
done
python3 - "$W" "$rounds" "$g" "${ops[@]}" <<'PY'
import math, statistics, sys
w, rounds, gpus, ops = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]

def rows(path):
    """size -> (oop time, oop algbw, ip time, ip algbw, wrong) of a 13-column row"""
    out = {}
    try:
        lines = open(path, errors="replace").read().splitlines()
    except OSError:
        return out
    for line in lines:
        f = line.split()
        if line.startswith("#") or len(f) not in (12, 13):  # 12: hypercube's empty redop
            continue
        c = f[-8:]  # out-of-place and in-place: time algbw busbw #wrong
        try:
            size = int(f[0])
            wrong = sum(int(x) for x in (c[3], c[7]) if x.isdigit())
            out.setdefault(size, (float(c[0]), float(c[1]), float(c[4]), float(c[5]), wrong))
        except ValueError:
            continue
    return out

def medians(tool, op):
    per = {}
    wrong = 0
    for r in range(1, rounds + 1):
        for s, v in rows("%s/%s.%s.%d" % (w, tool, op, r)).items():
            per.setdefault(s, []).append(v)
            wrong += v[4]
    return {s: tuple(statistics.median(x[k] for x in v) for k in range(4)) for s, v in per.items()}, wrong

def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")

print("# nccl-doctor bench / nccl-tests, median of %d alternating rounds (1.000 = equal)" % rounds)
print("%-15s %7s %7s %8s %7s %9s  %s" % ("op", "small", "<=2M", "bw>=1M", "top", "wrong", "criteria"))
status = 0
for op in ops:
    nd, ndw = medians("nd", op)
    nt, ntw = medians("nt", op)
    common = sorted(set(nd) & set(nt))
    if not common:
        print("%-15s no common rows (%s)" % (op, "ours" if not nd else "nccl-tests" if not nt else "sizes"))
        status = max(status, 2)
        continue
    small = [nd[s][0] / nt[s][0] for s in common if s <= 65536 and nt[s][0] > 0]
    upto2m = [nd[s][0] / nt[s][0] for s in common if s <= 2 << 20 and nt[s][0] > 0]
    # on one rank every in-place call has its source as its destination
    # and moves nothing (0.3-5 us whatever the size): those cells' ratios
    # are the timer's noise, left out
    cells = (1,) if gpus == 1 else (1, 3)
    bw = [nd[s][k] / nt[s][k] for s in common if s >= 1 << 20 for k in cells if nt[s][k] > 0]
    top = common[-1]
    topr = nd[top][1] / nt[top][1] if nt[top][1] > 0 else float("nan")
    gs, g2 = gmean(small), gmean(upto2m)
    worst = min(bw) if bw else float("nan")
    miss = []
    if small and gs > 1.05:
        miss.append("small time %.3f > 1.05" % gs)
    if bw and worst < 0.98:
        miss.append("algbw %.3f < 0.98" % worst)
    if ndw or ntw:
        miss.append("wrong results")
    if miss:
        status = max(status, 1)
    print("%-15s %7.3f %7.3f %8.3f %7.3f %4d/%-4d  %s" % (op, gs, g2, worst, topr, ndw, ntw, "; ".join(miss) or "met"))
sys.exit(status)
PY
rc=$?
echo "# raw outputs: $W"
exit $rc
