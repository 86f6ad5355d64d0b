#!/usr/bin/env bash
# Real failures a user makes when launching a torch.distributed job, put in
# on purpose on a machine with one GPU, and what `logs` names first for each
# (issue 28: "record failures on the H200 with injected faults ... missing
# devices"). The expected class of each was written here before the first
# capture, and the first run is scored at first sight (docs/logs.md, "Real
# captures of a user's launch mistakes"):
#   cvd-missing      torchrun --nproc-per-node 2 with CUDA_VISIBLE_DEVICES=1,2
#                    on a machine whose only GPU is 0: the job names GPUs
#                    that do not exist -> duplicate_gpu_or_device_mapping
#   device-ordinal   torchrun --nproc-per-node 2, each rank
#                    torch.cuda.set_device(LOCAL_RANK), one GPU: local rank 1
#                    has no GPU -> duplicate_gpu_or_device_mapping
#   rank-oom         torchrun --nproc-per-node 2 on the one GPU (two NCCL
#                    nodes by NCCL_HOSTID), rank 1 runs out of GPU memory
#                    after the first all_reduce -> peer_died_or_oom
#   master-unreach   a rank of a two-node job whose MASTER_ADDR is an address
#                    nothing answers on (10.255.255.1) -> bootstrap_network
#   master-unknown   the same with a MASTER_ADDR no resolver knows
#                    (gpu-master-01.invalid) -> bootstrap_network
#   port-in-use      torchrun --master-port P while another process holds P
#                    (a job left running) -> bootstrap_network
#   world-too-big    two ranks started with WORLD_SIZE=3: the third never
#                    comes (a launch that counts a node too many) ->
#                    collective_mismatch_app_bug (alternative bootstrap_network)
# Each capture is $OUT/faults/<name>.log (stdout and stderr of every process),
# with `logs --json`'s first cause in $OUT/summary.txt.
#   OUT=DIR ND_BIN=build/nccl-doctor bash tests/device/record-user-faults.sh [NAME...]
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
# shellcheck source=tests/device/lib.sh
. tests/device/lib.sh
OUT=${OUT:-/tmp/user-faults}
nd_fault_setup faults || exit 2

cat >"$F/job.py" <<'PYEOF'
import os, sys
from datetime import timedelta
import torch, torch.distributed as dist
how = sys.argv[1]
rank = int(os.environ["RANK"])
local = int(os.environ.get("LOCAL_RANK", "0"))
if how in ("rank-oom", "world-too-big"):
    os.environ["NCCL_HOSTID"] = "nd-node%d" % rank  # one GPU: each rank its own NCCL node
    local = 0
torch.cuda.set_device(local)              # what most training scripts do
dist.init_process_group("nccl", timeout=timedelta(seconds=30))
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
if how == "rank-oom" and rank == 1:
    free, total = torch.cuda.mem_get_info()
    w = torch.empty(int(total * 1.2), dtype=torch.uint8, device="cuda")  # a model too big for the card
dist.all_reduce(x)
torch.cuda.synchronize()
dist.destroy_process_group()
print("rank %d done" % rank, flush=True)
PYEOF

run_torchrun() { # NAME PORT [ENV...]
  local name=$1 port=$2; shift 2
  env "$@" timeout -k 5 90 $PY -m torch.distributed.run --nproc-per-node 2 --master-port "$port" \
    "$F/job.py" "$name" >"$F/$name.log" 2>&1
}
run_rank() { # NAME LOGSUFFIX ENV...
  local name=$1 suf=$2; shift 2
  env "$@" timeout -k 5 90 $PY "$F/job.py" "$name" >>"$F/$name.log$suf" 2>&1
}

for name in ${*:-cvd-missing device-ordinal rank-oom master-unreach master-unknown port-in-use world-too-big}; do
  : >"$F/$name.log"
  case $name in
    cvd-missing) run_torchrun "$name" 29811 CUDA_VISIBLE_DEVICES=1,2 ;;
    device-ordinal) run_torchrun "$name" 29812 ;;
    rank-oom) run_torchrun "$name" 29813 ;;
    master-unreach) run_rank "$name" "" MASTER_ADDR=10.255.255.1 MASTER_PORT=29500 RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 ;;
    master-unknown) run_rank "$name" "" MASTER_ADDR=gpu-master-01.invalid MASTER_PORT=29500 RANK=1 WORLD_SIZE=2 LOCAL_RANK=0 ;;
    port-in-use)
      $PY -c 'import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 29815)); s.listen(); time.sleep(120)' &
      holder=$!
      sleep 1
      run_torchrun "$name" 29815
      kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null ;;
    world-too-big)
      for r in 0 1; do
        run_rank "$name" ".$r" MASTER_ADDR=127.0.0.1 MASTER_PORT=29816 RANK=$r WORLD_SIZE=3 LOCAL_RANK=0 &
      done
      wait
      cat "$F/$name.log.0" "$F/$name.log.1" >"$F/$name.log"; rm -f "$F/$name.log.0" "$F/$name.log.1" ;;
    *) say "unknown scenario $name"; continue ;;
  esac
  say "$name: $(wc -l <"$F/$name.log") lines; logs: $(nd_first_causes "$F/$name.log")"
  timeout 60 "$ND_BIN" logs --no-color "$F/$name.log" >"$F/$name.report.txt" 2>&1
done
rm -f "$F/job.py"
