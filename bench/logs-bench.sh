#!/bin/bash
# Benchmark of `nccl-doctor logs`: builds a synthetic log (1 GiB by default)
# from real NCCL line shapes (the H200 captures and constructed logs in
# tests/fixtures/logs: 8 ranks interleaved, INFO lines of every init stage,
# per-collective COLL lines, a few WARN lines with back-traces, PyTorch and
# vLLM lines), then prints our throughput as a ratio to `grep -c 'NCCL WARN'`
# on the same file, and our peak RSS. Goal: >= 0.5x grep, < 64 MiB.
#
# usage: bench/logs-bench.sh [BINARY]   (env: ND_BENCH_MB=1024, ND_BENCH_FILE=path to reuse,
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
bytes=$(stat -c %s "$file")
cat "$file" >/dev/null # warm the page cache for both runs

now() { date +%s.%N; }
t0=$(now); warns=$(grep -c 'NCCL WARN' "$file" || true); t1=$(now)
grep_s=$(echo "$t1 - $t0" | bc -l)

rss_file=$(mktemp)
t0=$(now)
set +e
if [ -x /usr/bin/time ]; then
  /usr/bin/time -f '%M' -o "$rss_file.t" "$bin" logs --json "$file" >/dev/null
  rc=$?
  t1=$(now)
  rss_kb=$(tail -n 1 "$rss_file.t"); rm -f "$rss_file.t"
else
  # fallback: RUSAGE_CHILDREN also counts the forked Python before exec
  python3 - "$bin" "$file" "$rss_file" <<'PY'
import resource, subprocess, sys
rc = subprocess.call([sys.argv[1], "logs", "--json", sys.argv[2]], stdout=subprocess.DEVNULL)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
open(sys.argv[3], "w").write("%d %d\n" % (ru.ru_maxrss, rc))
PY
  t1=$(now)
  read -r rss_kb rc <"$rss_file"
fi
set -e
rm -f "$rss_file"
nd_s=$(echo "$t1 - $t0" | bc -l)

mib=$(echo "$bytes / 1048576" | bc -l)
printf 'file            %s (%.0f MiB, mix %s, %s lines with NCCL WARN)\n' "$file" "$mib" "$mix" "$warns"
printf 'grep -c         %.2f s  %.0f MiB/s\n' "$grep_s" "$(echo "$mib / $grep_s" | bc -l)"
printf 'nccl-doctor     %.2f s  %.0f MiB/s  (exit %s)\n' "$nd_s" "$(echo "$mib / $nd_s" | bc -l)" "$rc"
printf 'throughput      %.2fx grep (goal >= 0.5)\n' "$(echo "$grep_s / $nd_s" | bc -l)"
printf 'peak RSS        %.1f MiB (goal < 64)\n' "$(echo "$rss_kb / 1024" | bc -l)"
