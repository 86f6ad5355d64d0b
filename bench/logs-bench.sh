#!/bin/bash
# Benchmark of `nccl-doctor logs`: builds a synthetic log (1 GiB by default)
# from real NCCL line shapes (the H200 captures and constructed logs in
# tests/fixtures/logs: 8 ranks interleaved, INFO lines of every init stage,
# per-collective COLL lines, a few WARN lines with back-traces, PyTorch and
# vLLM lines), then prints our throughput as a ratio to `grep -c 'NCCL WARN'`
# on the same file, and our peak RSS. Goal: >= 0.5x grep, < 64 MiB.
# Both wall-clock time (what a user waits; nccl-doctor reads a large file
# with threads, docs/logs.md) and CPU time (user + sys) are compared, best
# of ND_BENCH_RUNS (3) runs alternated with grep's.
#
# usage: bench/logs-bench.sh [BINARY]   (env: ND_BENCH_MB=1024, ND_BENCH_FILE=path to reuse,
#        ND_LOGS_THREADS=N (nccl-doctor's threads; default: its own, up to 4),
#        ND_BENCH_GEN_ONLY=1 (only build the file, print its path),
#        ND_BENCH_MIX=coll (55% COLL lines, the default) or init (no COLL line: the
#        init INFO, WARN and framework lines of the fixtures only, issue 14's
#        init-heavy mix))
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/nccl-doctor}
mb=${ND_BENCH_MB:-1024}
mix=${ND_BENCH_MIX:-coll}
case $mix in coll|init) ;; *) echo "logs-bench: ND_BENCH_MIX is coll or init, not '$mix'" >&2; exit 64 ;; esac
sfx=$([ "$mix" = init ] && echo "-init" || true)
file=${ND_BENCH_FILE:-${TMPDIR:-/tmp}/nd-logs-bench-${mb}m$sfx.log}
[ -x "$bin" ] || { echo "logs-bench: no binary '$bin' (build first, or pass its path)" >&2; exit 3; }

if [ ! -s "$file" ]; then
  echo "building $file ($mb MiB) ..." >&2
  python3 - "$here/tests/fixtures/logs" "$file" "$mb" "$mix" <<'PY'
import os, random, sys
src, out, mb, mix = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
coll_share = 0.55 if mix == "coll" else 0.0
rnd = random.Random(7)
shapes = []
for d, _, fs in os.walk(src):
    if "flight-recorder" in d or "inspector" in d:
        continue  # JSON and pickle dumps, no log lines
    for f in sorted(fs):
        if f.endswith(".md") or f == "EXPECTED":
            continue
        for l in open(os.path.join(d, f), errors="replace").read().splitlines():
            if " NCCL " in l and "[" in l:
                # keep the message, re-host it per rank below
                i = l.find("] ", l.find(" [")) if " [" in l else -1
                if i > 0:
                    shapes.append(l[i + 2:])
            elif l.strip():
                shapes.append(None if "NCCL" in l else "#" + l)
coll = ["NCCL INFO AllReduce: opCount %x sendbuff 0x7f%08x recvbuff 0x7f%08x count 1048576 datatype 7 op 0 root 0 comm 0x55d0c8a0 [nranks=8] stream 0x5610a2c0",
        "NCCL INFO Broadcast: opCount %x sendbuff 0x7f%08x recvbuff 0x7f%08x count 4096 datatype 0 op 0 root 0 comm 0x55d0c8a0 [nranks=8] stream 0x5610a2c0"]
target = mb * 1024 * 1024
size = 0
op = 0
with open(out, "w") as fo:
    buf = []
    while size < target:
        r = rnd.randrange(8)
        pid = 4100 + r
        k = rnd.random()
        if k < coll_share:
            line = "gpu-node:%d:%d [%d] " % (pid, pid, r) + coll[op % 2] % (op, rnd.getrandbits(32), rnd.getrandbits(32))
            op += 1
        else:
            s = rnd.choice(shapes)
            if s is None:
                continue
            if s.startswith("#"):
                line = s[1:]
            else:
                line = "gpu-node:%d:%d [%d] %s" % (pid, pid + (rnd.randrange(3) * 17), r, s)
        buf.append(line)
        size += len(line) + 1
        if len(buf) >= 10000:
            fo.write("\n".join(buf) + "\n")
            buf = []
    if buf:
        fo.write("\n".join(buf) + "\n")
PY
fi
if [ "${ND_BENCH_GEN_ONLY:-0}" = 1 ]; then echo "$file"; exit 0; fi
bytes=$(stat -c %s "$file")
cat "$file" >/dev/null # warm the page cache for both runs

# best of ND_BENCH_RUNS (3) runs each, alternated; CPU time (user+sys) is
# what the goal compares (wall time depends on other load of the machine)
python3 - "$bin" "$file" "$mix" "$bytes" "${ND_BENCH_RUNS:-3}" <<'PY'
import os, resource, subprocess, sys, time
nd, path, mix, size, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
hwm = [0]
def run(argv):
    # the child's peak RSS is polled from /proc (VmHWM only grows): ru_maxrss
    # of children would count the forked Python before exec
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    # grep's one-line answer is read; nccl-doctor's report is thrown away
    # (a pipe nobody reads would block it)
    p = subprocess.Popen(argv, stdout=subprocess.PIPE if argv[0] == "grep" else subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    peak = 0
    while p.poll() is None:
        try:
            for l in open("/proc/%d/status" % p.pid):
                if l.startswith("VmHWM:"):
                    peak = max(peak, int(l.split()[1]))
        except (OSError, ValueError):
            pass
        time.sleep(0.005)
    out = p.stdout.read() if p.stdout else b""
    t1 = time.monotonic()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if argv[0] == nd:
        hwm[0] = max(hwm[0], peak)
    return t1 - t0, cpu, p.returncode, out
best = {"grep": [1e9, 1e9], "nd": [1e9, 1e9]}
warns, rc = "?", None
for _ in range(max(1, runs)):
    w, c, _, out = run(["grep", "-c", "NCCL WARN", path])
    warns = out.decode().strip()
    best["grep"] = [min(best["grep"][0], w), min(best["grep"][1], c)]
    w, c, rc, _ = run([nd, "logs", "--json", path])
    best["nd"] = [min(best["nd"][0], w), min(best["nd"][1], c)]
rss_mib = hwm[0] / 1024.0
mib = size / 1048576.0
g, n = best["grep"], best["nd"]
print("file            %s (%.0f MiB, mix %s, %s lines with NCCL WARN)" % (path, mib, mix, warns))
print("grep -c         %.2f s wall, %.2f s CPU  %.0f MiB/s" % (g[0], g[1], mib / max(g[0], 1e-9)))
print("nccl-doctor     %.2f s wall, %.2f s CPU  %.0f MiB/s  (exit %s)" % (n[0], n[1], mib / max(n[0], 1e-9), rc))
thr = os.environ.get("ND_LOGS_THREADS") or "default (CPUs it may use, at most 4)"
print("threads         %s (ND_LOGS_THREADS; %d CPUs usable here)" % (thr, len(os.sched_getaffinity(0))))
print("throughput      %.2fx grep by wall time, %.2fx by CPU time (goal >= 0.5; best of %d)" %
      (g[0] / max(n[0], 1e-9), g[1] / max(n[1], 1e-9), runs))
print("peak RSS        %.1f MiB (goal < 64; VmHWM polled every 5 ms)" % rss_mib)
PY
