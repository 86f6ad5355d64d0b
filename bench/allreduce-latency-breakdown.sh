#!/usr/bin/env bash
# Where the small-message time of `bench all_reduce` goes, beside nccl-tests
# (issue: small-message parity). Runs nccl-tests' all_reduce_perf (built from
# .nccl-tests/ when its binary is missing: make -j NCCL_HOME=/usr
# CUDA_HOME=/usr/local/cuda) and `nccl-doctor bench` in several variants
# (NCCL_DEBUG=INFO as by default or WARN, blocking (the default) or nonblocking
# communicator, processes or threads), alternating, ROUNDS rounds, and prints
# per variant the geometric mean over 8 B..64 KiB of the out-of-place time
# and its ratio to nccl-tests'. Needs a GPU.
#   ND_BIN=build/nccl-doctor bench/allreduce-latency-breakdown.sh [ROUNDS] [GPUS]
set -u
export NCCL_NVLS_ENABLE=0
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${ND_BIN:-$here/build/nccl-doctor}
rounds=${1:-3} g=${2:-1}
nt=$here/.nccl-tests/build/all_reduce_perf
if [ ! -x "$nt" ] && [ -d "$here/.nccl-tests" ]; then
  (cd "$here/.nccl-tests" && make -j"$(nproc)" NCCL_HOME=/usr CUDA_HOME=/usr/local/cuda NVCC_GENCODE="-gencode=arch=compute_90,code=sm_90" src.build >/tmp/nt-build.log 2>&1) ||
    { echo "nccl-tests build failed: /tmp/nt-build.log" >&2; tail -5 /tmp/nt-build.log >&2; }
fi
flags=(-b 8 -e 64K -f 4 -g "$g" -n 200 -w 20)
W=$(mktemp -d)
variants=("nccl-tests" "ours" "ours NCCL_DEBUG=WARN" "ours --comm-nonblocking" "ours --comm-nonblocking NCCL_DEBUG=WARN"
  "ours --threads NCCL_DEBUG=WARN" "ours -c 0 NCCL_DEBUG=WARN" "ours --timer event")
run() { # VARIANT OUTFILE
  local v=$1 args=() envs=()
  for w in $v; do case $w in nccl-tests|ours) ;; NCCL_*=*) envs+=("$w") ;; *) args+=("$w") ;; esac; done
  if [ "$v" = nccl-tests ]; then timeout 120 env "${envs[@]}" "$nt" "${flags[@]}" >"$2" 2>&1
  else timeout 120 env "${envs[@]}" "$bin" bench all_reduce "${flags[@]}" "${args[@]}" >"$2" 2>&1; fi
}
for r in $(seq "$rounds"); do
  for i in "${!variants[@]}"; do run "${variants[$i]}" "$W/$i.$r"; done
done
python3 - "$W" "$rounds" "${variants[@]}" <<'PY'
import math, sys, statistics, glob
w, rounds, variants = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def times(path):
    t = {}
    for line in open(path, errors="replace"):
        f = line.split()
        if len(f) >= 8 and f[0].isdigit() and f[2] == "float":
            try: t[int(f[0])] = float(f[5])
            except ValueError: pass
    return t
res = {}
for i, v in enumerate(variants):
    per = {}
    for r in range(1, rounds + 1):
        for s, x in times("%s/%d.%d" % (w, i, r)).items():
            per.setdefault(s, []).append(x)
    med = {s: statistics.median(x) for s, x in per.items()}
    res[v] = med
base = res.get("nccl-tests") or {}
print("%-48s %9s %9s %9s" % ("variant (median of %d rounds)" % rounds, "8 B us", "geomean", "vs nt"))
for v in variants:
    m = res[v]
    sizes = sorted(s for s in m if s in base) if base else sorted(m)
    if not sizes:
        print("%-48s no rows (see %s)" % (v, w)); continue
    gm = math.exp(sum(math.log(m[s]) for s in sizes) / len(sizes))
    gb = math.exp(sum(math.log(base[s]) for s in sizes) / len(sizes)) if base else float("nan")
    print("%-48s %9.2f %9.2f %9.3f" % (v, m.get(8, float("nan")), gm, gm / gb))
PY
echo "raw outputs: $W"
