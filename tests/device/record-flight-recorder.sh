#!/bin/bash
# Records real PyTorch flight-recorder dumps on the GPU machine, for
# tests/fixtures/logs/flight-recorder (issue 14: "flight-recorder JSON and
# pickle dumps from a real PyTorch run ... a missing rank; a mismatched
# collective"), and runs `nccl-doctor logs` on each set.
#
# NCCL refuses two ranks on one GPU of one host ("Duplicate GPU detected",
# init.cc), but it tells hosts apart by a hash of the hostname and boot id that
# NCCL_HOSTID replaces (misc/utils.cc getHostHashOnce, 2.4-2.28). With one GPU
# each rank gets its own NCCL_HOSTID: NCCL sees two one-GPU nodes and connects
# them through its network transport (NET/Socket or NET/IB), so the scenarios
# run on one GPU as they would across two nodes. With 2+ GPUs no NCCL_HOSTID
# is set.
#
# Scenarios (2 ranks, process-group timeout 20 s, TORCH_NCCL_DUMP_ON_TIMEOUT=1):
#   mismatch  rank 0 issues an extra all_reduce of a (4, 5) tensor, rank 1
#             goes on with (3, 4): both wait at seq 3 with different sizes
#   missing   rank 1 exits after two all_reduce; rank 0 waits in the third
#             (no dump from rank 1)
#   straggler rank 1 sleeps after two all_reduce (alive, never issues the
#             third); rank 0 waits in it
# Each scenario writes $OUT/<scenario>/nccl_trace_rank_<r> (pickle, written by
# the watchdog on timeout), fr_json_rank_<r>.json (JSON dumped by a helper
# thread in each rank 8 s after the hang started, so the stuck state), the
# ranks' stderr, and nccl-doctor's report (report.txt, report.json).
#
# usage (repository root; python3 with torch; CUDA GPUs):
#   OUT=DIR [ND_BIN=build/nccl-doctor] bash tests/device/record-flight-recorder.sh [SCENARIO...]
set -u
: "${OUT:?set OUT to the output folder}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
export TORCH_NCCL_TRACE_BUFFER_SIZE=2000 TORCH_NCCL_DUMP_ON_TIMEOUT=1 TORCH_NCCL_ENABLE_TIMING=1
export NCCL_DEBUG=INFO
ND_BIN=${ND_BIN:-build/nccl-doctor}
python3 -c 'import torch' 2>/dev/null || { echo "record-flight-recorder: python3 cannot import torch" >&2; exit 3; }
ngpu=$(python3 -c 'import torch; print(torch.cuda.device_count())')
echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') torch $(python3 -c 'import torch; print(torch.__version__, torch.cuda.nccl.version())') gpus $ngpu" | tee "$OUT/summary.txt"

W=$(mktemp -d /tmp/nd-fr.XXXXXX)
cat >"$W/fr.py" <<'PY'
import os, sys, threading, time
from datetime import timedelta
import torch
import torch.distributed as dist

scenario, rank, world, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
os.environ["TORCH_NCCL_DEBUG_INFO_TEMP_FILE"] = os.path.join(out, "nccl_trace_rank_")
dev = torch.device("cuda", rank % max(1, torch.cuda.device_count()))
torch.cuda.set_device(dev)
dist.init_process_group("nccl", rank=rank, world_size=world, timeout=timedelta(seconds=20),
                        init_method="tcp://127.0.0.1:%s" % os.environ.get("FR_PORT", "29533"))
c10d = torch._C._distributed_c10d

def dump_json(tag):
    fn = getattr(c10d, "_dump_nccl_trace_json", None)
    if fn is None:
        return
    data = fn(includeCollectives=True, onlyActive=False)
    with open(os.path.join(out, "fr_json_%s_rank_%d.json" % (tag, rank)), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())  # bytes since torch 2.11

def later(tag, secs):
    t = threading.Timer(secs, dump_json, args=(tag,))
    t.daemon = True
    t.start()

a = torch.full((3, 4), float(rank), device=dev)
for _ in range(2):
    dist.all_reduce(a)
torch.cuda.synchronize()
if scenario == "format":
    pk = getattr(c10d, "_dump_nccl_trace", None)
    if pk is not None:
        open(os.path.join(out, "nccl_trace_rank_%d" % rank), "wb").write(pk(includeCollectives=True, onlyActive=False))
    dump_json("format")
    dist.destroy_process_group()
    sys.exit(0)
if scenario == "missing" and rank == 1:
    os._exit(0)
if scenario == "straggler" and rank == 1:
    time.sleep(90)
    os._exit(0)
if scenario == "mismatch" and rank == 0:
    b = torch.full((4, 5), float(rank), device=dev)
    dist.all_reduce(b)
later("hang", 8)
dist.all_reduce(a)
torch.cuda.synchronize()
time.sleep(40)  # the watchdog ends the process (timeout 20 s) and dumps
PY

run_scenario() {
  local s=$1 world=$2 d="$OUT/$1"
  mkdir -p "$d"
  local pids=() r
  for ((r = 0; r < world; r++)); do
    local hostid=()
    [ "$ngpu" -lt 2 ] && [ "$world" -gt 1 ] && hostid=(env "NCCL_HOSTID=nd-fr-node$r")
    FR_PORT=${port} timeout 120 "${hostid[@]}" python3 "$W/fr.py" "$s" "$r" "$world" "$d" >"$d/rank$r.out" 2>"$d/rank$r.err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p"; done
  # the pickles as JSON too (python's pickle, for cross-checking the reader)
  for p in "$d"/nccl_trace_rank_*; do
    [ -f "$p" ] || continue
    python3 -c 'import json,pickle,sys; json.dump(pickle.load(open(sys.argv[1],"rb")),open(sys.argv[1]+".converted.json","w"),default=str,indent=1)' "$p" \
      2>>"$d/convert.err"
  done
  if [ -x "$ND_BIN" ]; then
    "$ND_BIN" logs --max-line 67108864 "$d"/nccl_trace_rank_? >"$d/report.txt" 2>&1; echo "exit $?" >>"$d/report.txt"
    "$ND_BIN" --json logs --max-line 67108864 "$d"/nccl_trace_rank_? >"$d/report.json" 2>/dev/null
    ls "$d"/fr_json_*rank_*.json >/dev/null 2>&1 &&
      "$ND_BIN" logs --max-line 67108864 "$d"/fr_json_*rank_*.json >"$d/report-json.txt" 2>&1
  fi
  {
    echo
    echo "## $s: $(ls "$d" | tr '\n' ' ')"
    head -1 "$d/report.txt" 2>/dev/null
    head -1 "$d/report-json.txt" 2>/dev/null
  } | tee -a "$OUT/summary.txt"
}

port=$((29533 + $$ % 2000))
[ "$ngpu" -ge 1 ] || { echo "record-flight-recorder: no CUDA GPU" >&2; exit 3; }
[ "$ngpu" -ge 2 ] || echo "# one GPU: each rank gets its own NCCL_HOSTID (two one-GPU nodes to NCCL)" | tee -a "$OUT/summary.txt"
for s in ${*:-format mismatch missing straggler}; do
  port=$((port + 1))
  run_scenario "$s" 2
done
rm -rf "$W"
