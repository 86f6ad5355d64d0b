#!/usr/bin/env bash
# Issue 30 on a machine with ONE GPU: the multi-rank paths (launcher
# variables, our TCP rendezvous, NCCL's unique id through it, one
# communicator across "nodes", the pairwise sweep, check --across-nodes, a
# node that never joins, a real torchrun launch) with the real driver and
# the real libnccl. Each "node" is a process with its own NCCL_HOSTID, so
# NCCL takes the ranks for different hosts (its duplicate-GPU check compares
# host hash and bus id) and joins them through its NET transport over
# sockets on loopback; every rank drives GPU 0. What this does not show:
# NVLink/P2P/SHM between GPUs, or real NICs. (NCCL_DOCTOR_FAKEGPU_NODE is
# read by the fake stack only: the same script runs on it, for a dry run.)
#   OUT=DIR ND_BIN=build/nccl-doctor bash tests/device/validate-nodes-1gpu.sh
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
# shellcheck source=tests/device/lib.sh
. tests/device/lib.sh
OUT=${OUT:-/tmp/nodes1gpu}
mkdir -p "$OUT"
nd_binary build-dev || { echo "no nccl-doctor binary" >&2; exit 2; }
nd_summary "$OUT/summary.txt"
export NCCL_NVLS_ENABLE=0 NCCL_MNNVL_ENABLE=0 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo NCCL_NET=Socket
W=$OUT/nodes
mkdir -p "$W"
port=29617

# nodes NAME N ARGS...: N processes as an Indexed Job's pods (index i,
# NODE_NAME n<i>, NCCL_HOSTID n<i>), all on GPU 0, meeting at 127.0.0.1;
# each one's output in $W/NAME.<i>, exit status in $W/NAME.<i>.rc.
# START (default N) processes are started of the N.
nodes() {
  local name=$1 n=$2; shift 2
  local start=${START:-$n} i
  port=$((port + 3))
  for ((i = 0; i < start; i++)); do
    (
      env JOB_COMPLETION_INDEX=$i WORLD_SIZE=$n NODE_NAME=n$i NCCL_HOSTID=n$i NCCL_DOCTOR_FAKEGPU_NODE=n$i \
        timeout 240 "$ND_BIN" "$@" --rendezvous 127.0.0.1:$port >"$W/$name.$i" 2>&1
      echo $? >"$W/$name.$i.rc"
    ) &
  done
  wait
}
rc() { cat "$W/$1.rc" 2>/dev/null || echo none; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; } # no bc on every machine

say "## $(date -u '+%F %T UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
say "## nccl-doctor: $("$ND_BIN" --version 2>&1 | head -1)"

# 1. one all_reduce across two "nodes"
t0=$(date +%s.%N)
nodes ar2 2 bench all_reduce -b 8 -e 64M -f 4 -n 5 -w 2
t1=$(date +%s.%N)
say "ar2: rc $(rc ar2.0) $(rc ar2.1), $(secs "$t0" "$t1") s"
check "bench across 2 nodes: both ranks exit 0" test "$(rc ar2.0) $(rc ar2.1)" = "0 0"
check "bench across 2 nodes: rows, 0 wrong" awk '/^ +[0-9]+ +[0-9]+ +float/ {n++; if ($9 != 0 || $13 != 0) bad++} END {exit !(n >= 8 && !bad)}' "$W/ar2.0"
check "bench across 2 nodes: each node named" grep -q 'n1' "$W/ar2.0"

# 2. JSON of the same across three nodes
nodes ar3 3 bench all_reduce -b 1M -e 16M -f 4 -n 5 -w 2 --json
check "bench across 3 nodes --json: exit 0" test "$(rc ar3.0)" = 0
check "bench across 3 nodes --json: 3 ranks, nodes n0..n2, a launcher" python3 - "$W/ar3.0" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ranks = d["facts"]["bench"].get("ranks", [])
b = d["bench"]
nodes = sorted(n["node"] for n in b.get("nodes", []))
print("ranks", len(ranks), "nodes", nodes, "launcher", b.get("launcher", {}).get("name"),
      "networks", sorted({n.get("network") for n in b.get("nodes", [])}),
      "transports", sorted({r.get("transports") for r in ranks}), "nccl", sorted({r.get("nccl") for r in ranks}))
sys.exit(0 if len(ranks) == 3 and nodes == ["n0", "n1", "n2"] else 1)
PY

# 3. the pairwise sweep, every pair of three nodes
nodes pairs 3 bench --pairs all -b 1M -e 16M -f 4 -n 5 -w 2
check "bench --pairs all over 3 nodes: exit 0 or 1" test "$(rc pairs.0)" -le 1
check "bench --pairs: a node x node matrix" grep -q 'n2' "$W/pairs.0"

# 4. check across two nodes
nodes chk 2 check --across-nodes
check "check --across-nodes: a fleet verdict on rank 0" grep -Eq 'HEALTHY|DEGRADED|BROKEN' "$W/chk.0"
say "chk: rc $(rc chk.0) $(rc chk.1); $(head -1 "$W/chk.0")"

# 5. a node that never joins: 3 in the world, 2 started
t0=$(date +%s.%N)
START=2 nodes miss 3 bench all_reduce -b 8 -e 1M -f 4 -n 5 --deadline-init 10
t1=$(date +%s.%N)
say "miss: rc $(rc miss.0) $(rc miss.1), $(secs "$t0" "$t1") s"
check "a node never joins: rank 2 named within the 10 s deadline, non-zero exit" \
  bash -c "test $(rc miss.0) != 0 && grep -Eq 'rank 2|n2' '$W/miss.0' && awk 'BEGIN { exit !($t1 - $t0 < 30) }'"
tail -5 "$W/miss.0" | sed 's/^/  miss.0: /' | tee -a "$ND_SUMMARY"
check "nothing left running" bash -c '! pgrep -x nccl-doctor >/dev/null'

# 6. a real torchrun launch: two agents (node ranks 0 and 1), one process each
if command -v torchrun >/dev/null 2>&1 || python3 -c 'import torch' 2>/dev/null; then
  for r in 0 1; do
    (NCCL_HOSTID=t$r timeout 240 python3 -m torch.distributed.run --nnodes 2 --node-rank $r --nproc-per-node 1 \
      --master-addr 127.0.0.1 --master-port 29760 --no-python "$ND_BIN" bench all_reduce -b 8 -e 16M -f 4 -n 5 \
      >"$W/trun.$r" 2>&1; echo $? >"$W/trun.$r.rc") &
  done
  wait
  check "torchrun 2 nodes x 1: both exit 0, rows" bash -c "test '$(rc trun.0) $(rc trun.1)' = '0 0' && grep -Eq '^ +8388608 ' '$W/trun.0'"
  say "trun: rc $(rc trun.0) $(rc trun.1)"
  tail -8 "$W/trun.0" | sed 's/^/  trun.0: /' | tee -a "$ND_SUMMARY"
else
  say "SKIP: torchrun (no torch here)"
fi

say "## $pass passed, $fail failed"
[ "$fail" = 0 ]
