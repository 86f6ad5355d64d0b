#!/bin/bash
# Device validation of issue 3 (vendor loading, workers, topo) on a real GPU
# machine. Run from the repository root:
#
#   OUT=/some/dir bash tests/device/validate-gpu.sh          # builds build-dev/
#   OUT=/some/dir ND_BIN=/path/nccl-doctor bash tests/device/validate-gpu.sh
#
# Writes at most 8 files under $OUT: build.log, topo.txt, topo.json,
# nvsmi.txt, libs.txt, ranks.txt, compare.txt, summary.txt. Every command has
# its own timeout and the whole script stays under 5 minutes. It never
# changes the system. NCCL_NVLS_ENABLE=0 stays exported (NVLink SHARP must stay
# off on the lent machines).
set -u
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-/tmp/nd-validate}
mkdir -p "$OUT"
T0=$(date +%s)
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
say() { echo "$*" | tee -a "$SUMMARY"; }
elapsed() { echo $(( $(date +%s) - T0 )); }
say "# nccl-doctor device validation, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(hostname)"
unset NCCL_DOCTOR_LIBRARY_PATH NCCL_DOCTOR_LIBRARY_PATH_ONLY NCCL_DOCTOR_FAKEGPU_SCENARIO

# --- 1. the binary --------------------------------------------------------
if [ -z "${ND_BIN:-}" ]; then
  {
    echo "## cmake $(cmake --version | head -1), $(gcc --version | head -1)"
    ls /usr/lib/x86_64-linux-gnu/libjansson.a /usr/local/lib/libjansson.a 2>&1
    timeout 120 cmake -S . -B build-dev -DNCCL_DOCTOR_TESTS=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo &&
      timeout 150 cmake --build build-dev -j"$(nproc)"
    echo "## build exit $?"
  } >"$OUT/build.log" 2>&1
  ND_BIN=$PWD/build-dev/nccl-doctor
fi
if [ ! -x "$ND_BIN" ]; then
  say "FAIL: no nccl-doctor binary (see build.log); give one with ND_BIN=..."
  exit 1
fi
say "binary: $ND_BIN ($("$ND_BIN" --version 2>&1))"
ND() { timeout "${TMO:-60}" "$ND_BIN" "$@"; }

# --- 2. topo and nvidia-smi ------------------------------------------------
{
  echo "## nccl-doctor topo"; TMO=60 ND topo --no-color; echo "## exit $?"
  echo; echo "## nccl-doctor topo --sysfs"; TMO=30 ND topo --sysfs --no-color; echo "## exit $?"
} >"$OUT/topo.txt" 2>&1
TMO=60 ND topo --json >"$OUT/topo.json" 2>>"$OUT/topo.txt"
say "topo: exit $? (text and --json)"
{
  echo "## nvidia-smi topo -m"; timeout 30 nvidia-smi topo -m
  echo; echo "## nvidia-smi topo -p2p rw"; timeout 30 nvidia-smi topo -p2p rw
  echo; echo "## nvidia-smi nvlink -s"; timeout 30 nvidia-smi nvlink -s
  echo; echo "## nvidia-smi -q"; timeout 60 nvidia-smi -q
} >"$OUT/nvsmi.txt" 2>&1

# --- 3. topo against nvidia-smi -q ----------------------------------------
timeout 30 python3 - "$OUT/topo.json" "$OUT/nvsmi.txt" >"$OUT/compare.txt" 2>&1 <<'PY'
import json, re, sys
topo = json.load(open(sys.argv[1]))
text = open(sys.argv[2]).read()
q = text.split("## nvidia-smi -q", 1)[1] if "## nvidia-smi -q" in text else ""
m = text.split("## nvidia-smi topo -m", 1)[1].split("## ", 1)[0] if "## nvidia-smi topo -m" in text else ""
gpu_blocks = re.split(r"\n(?=GPU [0-9A-Fa-f]{8}:)", q)[1:]
rows = topo.get("gpus", [])
def field(block, name):
    mm = re.search(r"^\s*" + re.escape(name) + r"\s*:\s*(.+)$", block, re.M)
    return mm.group(1).strip() if mm else None
def sub(block, title):
    i = block.find(title)
    return block[i:i + 1200] if i >= 0 else ""
def num(s):
    mm = re.match(r"\s*(\d+)", s or "")
    return int(mm.group(1)) if mm else None
ok = bad = 0
def check(what, ours, theirs):
    global ok, bad
    good = ours is not None and theirs is not None and str(ours).lower() == str(theirs).lower()
    ok += good; bad += not good
    print(("PASS" if good else "FAIL") + f"  {what}: nccl-doctor {ours!r}, nvidia-smi {theirs!r}")
print(f"# {len(rows)} GPUs in topo --json, {len(gpu_blocks)} in nvidia-smi -q")
onoff = {"enabled": True, "disabled": False}
for blk, row in zip(gpu_blocks, rows):
    head = blk.split("\n", 1)[0].replace("GPU ", "").strip()
    dom, rest = head.split(":", 1)
    g = row.get("index")
    check(f"GPU {g} name", row.get("name"), field(blk, "Product Name"))
    check(f"GPU {g} BDF", row.get("bdf"), "%04x:%s" % (int(dom, 16), rest.lower()))
    check(f"GPU {g} UUID", row.get("uuid"), field(blk, "GPU UUID"))
    gen = sub(sub(blk, "GPU Link Info"), "PCIe Generation")
    wid = sub(sub(blk, "GPU Link Info"), "Link Width")
    check(f"GPU {g} PCIe max gen", row.get("pcie_max_gen"), num(field(gen, "Max")))
    check(f"GPU {g} PCIe current gen", row.get("pcie_cur_gen"), num(field(gen, "Current")))
    check(f"GPU {g} PCIe max width", row.get("pcie_max_width"), num(field(wid, "Max")))
    check(f"GPU {g} PCIe current width", row.get("pcie_cur_width"), num(field(wid, "Current")))
    check(f"GPU {g} memory MiB", (row.get("memory_bytes") or 0) >> 20, num(field(sub(blk, "FB Memory Usage"), "Total")))
    check(f"GPU {g} BAR1 MiB", (row.get("bar1_bytes") or 0) >> 20, num(field(sub(blk, "BAR1 Memory Usage"), "Total")))
    check(f"GPU {g} ECC", row.get("ecc"), onoff.get((field(sub(blk, "ECC Mode"), "Current") or "").lower()))
    check(f"GPU {g} persistence", row.get("persistence"), onoff.get((field(blk, "Persistence Mode") or "").lower()))
    mig = (field(sub(blk, "MIG Mode"), "Current") or "").lower()
    check(f"GPU {g} MIG", row.get("mig") if not (mig == "n/a" and row.get("mig") is None) else "n/a",
          {"enabled": True, "disabled": False, "n/a": "n/a"}.get(mig))
# NUMA and CPU affinity: the columns of nvidia-smi topo -m (tab separated)
lines = [l for l in m.splitlines() if l.strip()]
hdr = next((l for l in lines if "CPU Affinity" in l), None)
if hdr:
    cols = [c.strip() for c in hdr.split("\t")]
    for l in lines:
        mm = re.match(r"^GPU(\d+)\s*\t", l)
        if not mm or l is hdr: continue
        cells = [c.strip() for c in l.split("\t")]
        g = int(mm.group(1)); row = next((r for r in rows if r.get("index") == g), None)
        if row is None: continue
        cell = lambda name: cells[cols.index(name)] if name in cols and cols.index(name) < len(cells) else None
        numa = cell("NUMA Affinity")
        check(f"GPU {g} NUMA (topo -m)", row.get("numa_node") if row.get("numa_node") is not None else "N/A", numa)
        check(f"GPU {g} CPU affinity (topo -m)", row.get("cpu_affinity"), cell("CPU Affinity"))
print(f"# {ok} agree, {bad} differ")
print("# nccl-doctor matrix:", topo.get("matrix"), "source", topo.get("matrix_source"))
PY
say "compare: $(tail -2 "$OUT/compare.txt" | head -1)"

# --- 4. libraries: the default search, the system NCCL, PyTorch's NCCL ----
SYS_NCCL=$(ldconfig -p 2>/dev/null | awk '/libnccl\.so\.2 /{print $NF; exit}')
TORCH_NCCL=""
for py in /opt/torch/.venv/bin/python python3; do
  command -v "$py" >/dev/null 2>&1 || [ -x "$py" ] || continue
  d=$(timeout 60 "$py" -c 'import nvidia.nccl, os; print(list(nvidia.nccl.__path__)[0])' 2>/dev/null)
  [ -n "$d" ] && [ -e "$d/lib/libnccl.so.2" ] && { TORCH_NCCL="$d/lib/libnccl.so.2"; break; }
done
[ -z "$TORCH_NCCL" ] && TORCH_NCCL=$(ls /opt/torch/.venv/lib/python3*/site-packages/nvidia/nccl/lib/libnccl.so.2 /opt/torch/.venv/lib/python3*/site-packages/torch/lib/libnccl.so.2 2>/dev/null | head -1)
say "system NCCL: ${SYS_NCCL:-none found}; PyTorch NCCL: ${TORCH_NCCL:-none found}"
{
  echo "## __worker libs (default search)"; TMO=60 ND __worker libs; echo "## exit $?"
  [ -n "$SYS_NCCL" ] && { echo "## --nccl $SYS_NCCL __worker libs"; TMO=60 ND --nccl "$SYS_NCCL" __worker libs; echo "## exit $?"; }
  [ -n "$TORCH_NCCL" ] && { echo "## --nccl $TORCH_NCCL __worker libs"; TMO=60 ND --nccl "$TORCH_NCCL" __worker libs; echo "## exit $?"; }
} >"$OUT/libs.txt" 2>&1
timeout 20 python3 - "$OUT/libs.txt" <<'PY' | tee -a "$SUMMARY"
import json, sys
for line in open(sys.argv[1]):
    if line.startswith('{"type":"result"'):
        d = json.loads(line)["data"]
        for k in ("cuda", "nvml", "nccl"):
            v = d[k]
            print(f"  {k}: loaded={v['loaded']} path={v['path']} version={v.get('version', v.get('driver_version'))} {v.get('error', '')}")
PY

# --- 5. communicators: one rank that works, two ranks of which one never starts
mem_used() { timeout 20 nvidia-smi --query-gpu=index,memory.used --format=csv,noheader 2>&1 | tr '\n' ' '; }
apps() { timeout 20 nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader 2>&1 | tr '\n' ' '; }
{
  echo "## GPU memory before: $(mem_used); compute apps: [$(apps)]"
  echo "## 1-rank communicator, default NCCL"
  TMO=90 ND __worker ranks --nranks 1 --deadline 60 --count 1048576; echo "## exit $?"
  if [ -n "$TORCH_NCCL" ]; then
    echo "## 1-rank communicator, --nccl $TORCH_NCCL"
    TMO=90 ND --nccl "$TORCH_NCCL" __worker ranks --nranks 1 --deadline 60; echo "## exit $?"
  fi
  echo "## 2-rank communicator, only rank 0 started, deadline 20 s"
  s=$(date +%s%N)
  NCCL_DEBUG=INFO TMO=60 ND __worker ranks --nranks 2 --start 1 --deadline 20; rc=$?
  echo "## exit $rc after $(( ($(date +%s%N) - s) / 1000000 )) ms"
  for i in 1 2 3 4 5 6 7 8 9 10; do
    [ -z "$(apps | tr -d ' ')" ] && break
    sleep 1
  done
  echo "## GPU memory after: $(mem_used); compute apps: [$(apps)]"
  echo "## nccl-doctor processes left: $(pgrep -c -f 'nccl-doctor __worker' || true)"
} >"$OUT/ranks.txt" 2>&1
grep -E '^## (GPU memory|exit|nccl-doctor processes)' "$OUT/ranks.txt" | sed 's/^## /  /' | tee -a "$SUMMARY"
timeout 20 python3 - "$OUT/ranks.txt" <<'PY' | tee -a "$SUMMARY"
import json, re, sys
text = open(sys.argv[1]).read()
for block in re.findall(r"^\{\n.*?^\}$", text, re.M | re.S):
    d = json.loads(block)
    for r in d["ranks"]:
        res = r.get("result", {})
        print(f"  nranks {d['nranks']} rank {r['rank']}: {r['status']} stage={r.get('stage')} "
              f"elapsed={r.get('elapsed_s', 0):.1f}s nccl={res.get('nccl_version')} wrong={res.get('wrong')} why={r.get('why', '')}")
PY
say "done in $(elapsed) s; files: $(ls "$OUT" | tr '\n' ' ')"
