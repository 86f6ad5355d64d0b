#!/usr/bin/env bash
# Per-GPU bandwidth of `nccl-doctor p2p` against a reference measured in the
# same run: PyTorch copies timed with CUDA events (a device-to-device copy of
# a large buffer, bytes counted once; pinned host-to-device and
# device-to-host), and nvbandwidth's device_local_copy /
# host_to_device_memcpy_ce / device_to_host_memcpy_ce when nvbandwidth is on
# the PATH. Prints one line per GPU and quantity: ours, the reference, the
# ratio, PASS when within 2 % (the issue's bar); exits 1 if any failed, 2
# when there was no reference to compare with.
#
#   bench/p2p-bandwidth.sh [BINARY] [OUTDIR]
#   PYTHON=/opt/torch/.venv/bin/python GPUS=0 SIZE_MIB=512 REPS=10 bench/p2p-bandwidth.sh
#
# Needs a GPU. It only reads: the copies run in scratch buffers.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/build/nccl-doctor}
out=${2:-$(mktemp -d /tmp/nd-p2p-bw.XXXXXX)}
size_mib=${SIZE_MIB:-512}
reps=${REPS:-10}
gpus=${GPUS:-all}
export NCCL_NVLS_ENABLE=0
mkdir -p "$out"
[ -x "$bin" ] || { echo "build first: $bin not found" >&2; exit 3; }
py=${PYTHON:-}
if [ -z "$py" ]; then
  for c in /opt/torch/.venv/bin/python python3; do
    if { [ -x "$c" ] || command -v "$c" >/dev/null 2>&1; } && timeout 120 "$c" -c 'import torch' 2>/dev/null; then py=$c; break; fi
  done
fi

# 1. ours: the per-GPU numbers of a full run restricted to the per-GPU part
#    (--quick would skip them; --gpus picks the GPUs; pairs are cheap here)
sel=()
[ "$gpus" != all ] && sel=(--gpus "$gpus")
# --force: the comparison is wanted even if another process holds the GPU
timeout 600 "$bin" p2p --json --force "${sel[@]}" --gpu-size "${size_mib}M" --reps "$reps" --no-nccl \
  >"$out/p2p.json" 2>"$out/p2p.stderr"
echo "nccl-doctor p2p: exit $? ($out/p2p.json)"

# 2. the PyTorch reference, same sizes, same method (events, median of REPS
#    repetitions of 4 copies)
if [ -n "$py" ]; then
  timeout 600 "$py" - "$size_mib" "$reps" "$gpus" >"$out/torch.json" 2>"$out/torch.stderr" <<'PY'
import json, statistics, sys, torch
size = int(sys.argv[1]) << 20
reps, sel = int(sys.argv[2]), sys.argv[3]
inner = 4
devs = range(torch.cuda.device_count()) if sel == "all" else [int(x) for x in sel.split(",")]
res = {}
def timed(fn, stream):
    fn(); torch.cuda.synchronize()
    t = []
    for _ in range(reps):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        e0.record(stream)
        for _ in range(inner):
            fn()
        e1.record(stream)
        e1.synchronize()
        t.append(e0.elapsed_time(e1))
    return size * inner / (statistics.median(t) * 1e-3) / 1e9
for d in devs:
    with torch.cuda.device(d):
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            a = torch.empty(size, dtype=torch.uint8, device=d)
            b = torch.empty(size, dtype=torch.uint8, device=d)
            h = torch.empty(size, dtype=torch.uint8, pin_memory=True)
            a.fill_(1)
            res[str(d)] = {
                "local_copy_ce_gbs": timed(lambda: b.copy_(a), s),
                "h2d_gbs": timed(lambda: a.copy_(h, non_blocking=True), s),
                "d2h_gbs": timed(lambda: h.copy_(a, non_blocking=True), s),
                "torch": torch.__version__,
            }
print(json.dumps(res))
PY
  echo "pytorch reference: exit $? ($out/torch.json)"
else
  echo "pytorch reference: no python with torch found" | tee "$out/torch.stderr"
  echo '{}' >"$out/torch.json"
fi

# 3. nvbandwidth, when installed
if command -v nvbandwidth >/dev/null 2>&1; then
  timeout 600 nvbandwidth -t device_local_copy host_to_device_memcpy_ce device_to_host_memcpy_ce >"$out/nvbandwidth.txt" 2>&1
  echo "nvbandwidth: exit $? ($out/nvbandwidth.txt)"
else
  echo "nvbandwidth: not installed" >"$out/nvbandwidth.txt"
fi

# 4. ratios
python3 - "$out/p2p.json" "$out/torch.json" "$out/nvbandwidth.txt" <<'PY'
import json, re, sys
try:
    ours = json.load(open(sys.argv[1]))
except Exception as e:
    print("FAIL: no JSON from nccl-doctor p2p: %s" % e); sys.exit(1)
ref = json.load(open(sys.argv[2]))
# nvbandwidth prints a matrix per test; for one GPU per row the value after "0"
nvb = {}
cur = None
names = {"device_local_copy": "local_copy_ce_gbs", "host_to_device_memcpy_ce": "h2d_gbs", "device_to_host_memcpy_ce": "d2h_gbs"}
for line in open(sys.argv[3]):
    m = re.match(r"Running (\S+)\.", line)
    if m:
        cur = names.get(m.group(1))
        continue
    m = re.match(r"\s*(\d+)\s+([\d.]+)(\s+[\d.]+)*\s*$", line)
    if cur and m:
        vals = [float(x) for x in line.split()[1:]]
        nvb.setdefault(cur, vals)
bad = compared = 0
print("%-4s %-18s %12s %12s %8s %s" % ("GPU", "quantity", "ours GB/s", "ref GB/s", "ratio", "verdict (ref)"))
for g in ours.get("gpus", []):
    if g.get("local_copy_ce_gbs") is None:
        continue
    for q in ("local_copy_ce_gbs", "h2d_gbs", "d2h_gbs"):
        o = g[q]
        refs = []
        r = ref.get(str(g["index"]), {}).get(q)
        if r:
            refs.append(("pytorch", r))
        if q in nvb and g["index"] < len(nvb[q]):
            refs.append(("nvbandwidth", nvb[q][g["index"]]))
        if not refs:
            print("%-4d %-18s %12.1f %12s %8s no reference" % (g["index"], q, o, "-", "-"))
            continue
        for name, r in refs:
            ratio = o / r
            ok = abs(ratio - 1) <= 0.02
            bad += not ok
            compared += 1
            print("%-4d %-18s %12.1f %12.1f %8.3f %s (%s)" % (g["index"], q, o, r, ratio, "PASS" if ok else "FAIL", name))
if not compared:
    print("no reference measured: nothing compared")
sys.exit(1 if bad else 0 if compared else 2)
PY
