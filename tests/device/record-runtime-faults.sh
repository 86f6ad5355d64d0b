#!/usr/bin/env bash
# Failures that happen once the ranks have started, put in on purpose on a
# machine with one GPU (two ranks as two NCCL nodes through NCCL_HOSTID,
# NET/Socket between them), and what `logs` names first for each. The
# expected answer of each was written here and committed before the first
# capture (docs/logs.md, "Real captures of failures at run time"):
#   gpu-mem-full    rank 1 fills the GPU's memory (all but 16 MiB) before
#                   NCCL's first collective allocates its buffers, as a
#                   server with a memory fraction near 1 does ->
#                   peer_died_or_oom (the out-of-memory class)
#   libnccl-mixed   rank 1 runs with LD_PRELOAD of the system libnccl (another
#                   patch release than PyTorch's own) -> version_mismatch
#                   first, and a verdict other than HEALTHY whether or not
#                   NCCL stops
#   size-mismatch   the ranks all_reduce tensors of different sizes with
#                   TORCH_DISTRIBUTED_DEBUG=DETAIL (PyTorch compares the
#                   collectives' fingerprints) -> collective_mismatch_app_bug
#   skipped-collective
#                   rank 0 calls a third all_reduce that rank 1 never calls
#                   (rank 1 sleeps past the group's 20 s timeout) ->
#                   collective_mismatch_app_bug (a watchdog time-out at a
#                   late SeqNum)
# Each capture is $OUT/runtime/<name>.log (both ranks' output), with the
# job's exit status and `logs --json`'s first causes in $OUT/summary.txt.
#   OUT=DIR ND_BIN=build/nccl-doctor bash tests/device/record-runtime-faults.sh [NAME...]
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
# shellcheck source=tests/device/lib.sh
. tests/device/lib.sh
OUT=${OUT:-/tmp/runtime-faults}
nd_fault_setup runtime || exit 2

cat >"$F/job.py" <<'PYEOF'
import os, sys, time
from datetime import timedelta
import torch, torch.distributed as dist
rank = int(os.environ["RANK"])
mode = os.environ["ND_MODE"]
os.environ["NCCL_HOSTID"] = "nd-node%d" % rank  # one GPU: each rank its own NCCL node
torch.cuda.set_device(0)
x = torch.ones(1 << 20, device="cuda")
if mode == "gpu-mem-full" and rank == 1:
    free, _ = torch.cuda.mem_get_info()
    hog = torch.empty(free - (16 << 20), dtype=torch.uint8, device="cuda")
dist.init_process_group("nccl", timeout=timedelta(seconds=20))
if mode == "size-mismatch" and rank == 1:
    x = torch.ones(1 << 10, device="cuda")
n = 3 if (mode != "skipped-collective" or rank == 0) else 2
for _ in range(n):
    dist.all_reduce(x)
torch.cuda.synchronize()
if mode == "skipped-collective" and rank == 1:
    time.sleep(45)
dist.destroy_process_group()
print("rank %d done" % rank, flush=True)
PYEOF

syslib=$(ldconfig -p 2>/dev/null | awk '/libnccl\.so\.2 /{print $NF; exit}')
nd_rank_env() { # NAME RANK
  echo "ND_MODE=$1"
  case $1 in
    libnccl-mixed) [ "$2" = 1 ] && echo "LD_PRELOAD=$syslib" ;;
    size-mismatch) echo "TORCH_DISTRIBUTED_DEBUG=DETAIL" ;;
  esac
  return 0
}
port=29870
for name in ${*:-gpu-mem-full libnccl-mixed size-mismatch skipped-collective}; do
  port=$((port + 1))
  nd_two_ranks "$name" "$port"
done
say "system libnccl for libnccl-mixed: ${syslib:-none found}"
rm -f "$F/job.py"
