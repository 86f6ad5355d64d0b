#!/usr/bin/env bash
# How long `nccl-doctor sys` takes over recorded sysroots (goal: under 50 ms
# over the recorded H200 machine). Prints the median of N runs per tree and
# its ratio to the goal (below 1.0 meets it).
#   bench/sys-speed.sh [BINARY] [RUNS]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/nccl-doctor}
runs=${2:-21}
goal_ms=50
[ -x "$bin" ] || { echo "build first: $bin not found" >&2; exit 3; }
printf '%-28s %10s %8s\n' sysroot median_ms vs_goal
for tree in "$here"/tests/fixtures/sysroot/*/; do
  name=$(basename "$tree")
  python3 - "$bin" "$tree" "$runs" "$goal_ms" "$name" <<'PY'
import subprocess, sys, time, statistics
bin, tree, runs, goal, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
t = []
for _ in range(runs):
    s = time.perf_counter()
    subprocess.run([bin, "sys", "--json", "--sysroot", tree], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t.append((time.perf_counter() - s) * 1000)
m = statistics.median(t)
print("%-28s %10.2f %8.2f" % (name, m, m / goal))
PY
done
