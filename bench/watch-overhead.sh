#!/usr/bin/env bash
# CPU used by `nccl-doctor watch` itself (its own thread's time from
# /proc/PID/schedstat, else utime+stime of /proc/PID/stat; not the job's,
# which is counted elsewhere) in two runs:
#   1. passthrough: the job writes SIZE_MB of log-like text lines on stdout
#      (every line goes through the logs parser too); CPU seconds per GB and
#      the share of one core during the transfer;
#   2. quiet: a job of 4 processes that wrote NCCL INFO lines to their
#      NCCL_DEBUG_FILE and then sleep QUIET_S seconds (watch polls the log
#      files every 0.5 s and the job's status every 0.2 s): the share of one
#      core, against the goal of 2 % (ratio below 1.0 meets it).
#   bench/watch-overhead.sh [BINARY] [SIZE_MB] [QUIET_S]     (defaults 1024 60)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/nccl-doctor}
size_mb=${2:-1024}
quiet_s=${3:-60}
[ -x "$bin" ] || { echo "build first: $bin not found" >&2; exit 3; }
python3 - "$bin" "$size_mb" "$quiet_s" <<'PY'
import os, subprocess, sys, time, tempfile
bin, size_mb, quiet_s = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
hz = os.sysconf("SC_CLK_TCK")

def own_cpu(pid):
    """CPU seconds of pid's own (single) thread: /proc/PID/schedstat (ns) where
    the kernel has it, else utime + stime of /proc/PID/stat (ticks); the job's
    time is not in either"""
    try:
        with open("/proc/%d/schedstat" % pid) as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, IndexError, ValueError):
        pass
    with open("/proc/%d/stat" % pid) as f:
        rest = f.read().rsplit(")", 1)[1].split()
    return (int(rest[11]) + int(rest[12])) / hz

def run(job, marker_wait, span):
    """starts watch -- job; measures its own CPU between the job's marker
    file appearing (start) and a second marker (end)"""
    d = tempfile.mkdtemp(prefix="nd-wo.")
    start_m, end_m = os.path.join(d, "start"), os.path.join(d, "end")
    env = dict(os.environ, WO_START=start_m, WO_END=end_m, WO_SPAN=str(span))
    p = subprocess.Popen([bin, "watch", "--stall", "86400", "--", "sh", "-c", job],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    while not os.path.exists(start_m):
        time.sleep(0.01)
    c0, t0 = own_cpu(p.pid), time.monotonic()
    while not os.path.exists(end_m):
        time.sleep(0.01)
    c1, t1 = own_cpu(p.pid), time.monotonic()
    p.wait()
    return c1 - c0, t1 - t0, p.returncode

line = "step 1234 | loss 2.3456 | lr 3.0e-04 | grad_norm 1.234 | tokens/s 123456 | mem 71.2 GiB\n"
# 1. passthrough of size_mb of text lines
job1 = ('touch "$WO_START"; yes "%s" | head -c %d; touch "$WO_END"; sleep 0.3'
        % (line.rstrip("\n"), size_mb << 20))
cpu, wall, rc = run(job1, True, 0)
gb = size_mb / 1024
print("passthrough: %d MB of text lines in %.2f s; watch used %.3f CPU s = %.3f CPU s per GB, %.1f %% of one core "
      "while it lasted (exit %d)" % (size_mb, wall, cpu, cpu / gb, 100 * cpu / wall, rc))
# 2. a quiet job with 4 NCCL processes
job2 = r'''
dir=${NCCL_DEBUG_FILE%/*}
for r in 0 1 2 3; do
  ( p=$(sh -c 'echo $PPID')
    for i in $(seq 40); do echo "node1:$p:$p [$r] NCCL INFO Channel $i/40 : $r[$r] -> $(( (r+1)%4 ))[$(( (r+1)%4 ))] via P2P/CUMEM"; done \
      >"$dir/nccl.node1.$p"
    exec sleep $(( ${WO_SPAN%.*} + 3 )) ) &
done
sleep 1; touch "$WO_START"; sleep "$WO_SPAN"; touch "$WO_END"; kill $(jobs -p) 2>/dev/null; wait
'''
cpu, wall, rc = run(job2, True, quiet_s)
share = 100 * cpu / wall
print("quiet job, 4 processes with NCCL log files, %.0f s: watch used %.3f CPU s = %.3f %% of one core; "
      "goal 2 %%: ratio %.3f (exit %d)" % (wall, cpu, share, share / 2.0, rc))
PY
