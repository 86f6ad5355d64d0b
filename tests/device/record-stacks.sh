#!/usr/bin/env bash
# Real stack dumps of stuck NCCL/PyTorch processes for `logs`' stack-frame
# reader (docs/logs.md "Stack frames"), on a machine with one GPU:
#   A. NCCL bootstrap: two ranks join PyTorch's store; rank 0 creates its
#      NCCL communicator eagerly (device_id), rank 1 never calls NCCL: rank 0
#      waits in NCCL's bootstrap for a rank that never comes;
#   B. PyTorch's store: rank 0 of two alone: it waits in the TCPStore
#      rendezvous for rank 1.
# Each stuck rank 0 is dumped with gdb (thread apply all bt) and py-spy
# --native where the machine has them, and always by Python's faulthandler
# (dump_traceback_later); then `logs` reads each dump alone.
#   OUT=DIR ND_BIN=build/nccl-doctor bash tests/device/record-stacks.sh
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
# shellcheck source=tests/device/lib.sh
. tests/device/lib.sh
OUT=${OUT:-/tmp/stacks}
mkdir -p "$OUT/stacks"
nd_binary build-dev || { echo "no nccl-doctor binary" >&2; exit 2; }
nd_summary "$OUT/summary.txt"
export NCCL_NVLS_ENABLE=0 NCCL_MNNVL_ENABLE=0 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo
PY=${PY:-python3}
say "gdb: $(command -v gdb || echo none); py-spy: $(command -v py-spy || echo none); torch: $($PY -c 'import torch; print(torch.__version__, torch.cuda.nccl.version())' 2>&1 | tail -1)"
cat >"$OUT/stuck.py" <<'PYEOF'
import faulthandler, os, sys, time, datetime, torch, torch.distributed as dist
rank, world, mode, port = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
faulthandler.dump_traceback_later(int(os.environ.get("DUMP_AFTER", "20")), repeat=False, file=sys.stderr)
kw = dict(backend="nccl", init_method="tcp://127.0.0.1:" + port, rank=rank, world_size=world,
          timeout=datetime.timedelta(seconds=300))
if mode == "eager" and rank == 0:
    kw["device_id"] = torch.device("cuda:0")
print("rank", rank, "pid", os.getpid(), "init", flush=True)
dist.init_process_group(**kw)
print("rank", rank, "init returned", flush=True)
time.sleep(120)
PYEOF

# dump PID NAME: gdb and py-spy dumps of a stuck process, where available
dump() {
  local pid=$1 name=$2
  if command -v gdb >/dev/null; then
    timeout 60 gdb -p "$pid" -batch -ex 'thread apply all bt' >"$OUT/stacks/$name.gdb.txt" 2>&1
  fi
  if command -v py-spy >/dev/null; then
    timeout 60 py-spy dump --native --pid "$pid" >"$OUT/stacks/$name.py-spy.txt" 2>&1
  fi
}

# A: NCCL bootstrap
DUMP_AFTER=25 NCCL_DEBUG=INFO timeout 90 $PY "$OUT/stuck.py" 0 2 eager 29731 >"$OUT/stacks/A.rank0.out" 2>"$OUT/stacks/A.rank0.err" &
r0=$!
sleep 1
DUMP_AFTER=200 timeout 90 $PY "$OUT/stuck.py" 1 2 eager 29731 >"$OUT/stacks/A.rank1.out" 2>"$OUT/stacks/A.rank1.err" &
r1=$!
sleep 15
pid0=$(pgrep -f "stuck.py 0 2 eager" | head -1)
say "A: rank 0 pid ${pid0:-none}"
[ -n "$pid0" ] && dump "$pid0" A
sleep 15 # faulthandler's dump at 25 s
kill "$r0" "$r1" 2>/dev/null; pkill -f "stuck.py" 2>/dev/null; wait 2>/dev/null
# faulthandler's dump alone (the stderr of rank 0 from its "Timeout" header on)
sed -n '/^Timeout (/,$p' "$OUT/stacks/A.rank0.err" >"$OUT/stacks/A.faulthandler.txt"

# B: the store, rank 1 never started (torch's import takes seconds before
# faulthandler is armed: wait well past DUMP_AFTER)
DUMP_AFTER=20 timeout 60 $PY "$OUT/stuck.py" 0 2 lazy 29741 >"$OUT/stacks/B.rank0.out" 2>"$OUT/stacks/B.rank0.err" &
sleep 12
pid0=$(pgrep -f "stuck.py 0 2 lazy" | head -1)
say "B: rank 0 pid ${pid0:-none}"
[ -n "$pid0" ] && dump "$pid0" B
sleep 25
pkill -f "stuck.py" 2>/dev/null; wait 2>/dev/null
sed -n '/^Timeout (/,$p' "$OUT/stacks/B.rank0.err" >"$OUT/stacks/B.faulthandler.txt"

# C: A's stop with PyTorch's C++ stack: a non-blocking NCCL init that
# PyTorch aborts at its 20 s timeout, TORCH_SHOW_CPP_STACKTRACES=1
cat >"$OUT/stuck_c.py" <<'PYEOF'
import os, sys, time, datetime, torch, torch.distributed as dist
rank, port = int(sys.argv[1]), sys.argv[2]
kw = dict(backend="nccl", init_method="tcp://127.0.0.1:" + port, rank=rank, world_size=2,
          timeout=datetime.timedelta(seconds=20))
if rank == 0:
    kw["device_id"] = torch.device("cuda:0")
dist.init_process_group(**kw)
if rank == 1:
    time.sleep(60)
else:
    t = torch.ones(1, device="cuda:0")
    dist.all_reduce(t)
    torch.cuda.synchronize()
PYEOF
TORCH_SHOW_CPP_STACKTRACES=1 TORCH_NCCL_USE_COMM_NONBLOCKING=1 timeout 75 $PY "$OUT/stuck_c.py" 0 29751 >"$OUT/stacks/C.rank0.out" 2>&1 &
c0=$!
sleep 1
timeout 75 $PY "$OUT/stuck_c.py" 1 29751 >"$OUT/stacks/C.rank1.out" 2>&1 &
wait "$c0"; say "C: rank 0 exit $?"
pkill -f "stuck_c.py" 2>/dev/null; wait 2>/dev/null
cp "$OUT/stacks/C.rank0.out" "$OUT/stacks/C.cpp-stack.txt"

# logs on each dump alone, and A's dump beside its NCCL lines
for f in "$OUT"/stacks/*.gdb.txt "$OUT"/stacks/*.py-spy.txt "$OUT"/stacks/*.faulthandler.txt "$OUT"/stacks/C.cpp-stack.txt; do
  [ -s "$f" ] || continue
  b=$(basename "$f" .txt)
  "$ND_BIN" --json logs "$f" >"$OUT/logs-$b.json" 2>"$OUT/logs-$b.err"
  "$ND_BIN" logs "$f" >"$OUT/logs-$b.txt" 2>&1
  say "$b: $($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print("; ".join("%s %.2f" % (c["cause"], c["confidence"]) for c in d["causes"][:3]), "| stack:", [f["title"] for f in d["findings"] if f["id"]=="LOG_STACK_STAGE"])' "$OUT/logs-$b.json" 2>&1)"
done
for f in "$OUT"/stacks/A.gdb.txt "$OUT"/stacks/A.py-spy.txt "$OUT"/stacks/A.faulthandler.txt; do
  [ -s "$f" ] || continue
  "$ND_BIN" --json logs "$f" "$OUT/stacks/A.rank0.out" >"$OUT/logs-A-with-nccl.json" 2>&1
  say "A with NCCL lines: $($PY -c 'import json,sys; d=json.load(open(sys.argv[1])); print("; ".join("%s %.2f" % (c["cause"], c["confidence"]) for c in d["causes"][:3]))' "$OUT/logs-A-with-nccl.json" 2>&1)"
  break
done
ls -la "$OUT/stacks" >>"$OUT/summary.txt"
tar -C "$OUT" -czf "$OUT/stacks.tar.gz" stacks && rm -rf "$OUT/stacks"
echo "pass $pass fail $fail"
