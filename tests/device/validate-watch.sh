#!/bin/bash
# Device validation of `watch` (issue 15) on a real GPU machine with PyTorch.
# Run from the repository root with ND_BIN=/path/nccl-doctor and OUT=DIR:
#   1. torch.distributed with world size 2 where only rank 0 starts: it waits
#      in the TCPStore rendezvous and prints nothing; watch must name the
#      missing rank and the store's port within stall + 5 s;
#   2. a real one-rank NCCL all-reduce that finishes: exit status passed
#      through, no diagnosis printed;
#   3. a job that exits 3 after NCCL init: status 3 passed through.
# Writes watch-*.txt under $OUT; about a minute. NCCL_NVLS_ENABLE=0 stays set.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/nd-validate}
mkdir -p "$OUT"
: "${ND_BIN:?give ND_BIN}"
S="$OUT/watch-summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
cat >/tmp/nd_dist.py <<'PY'
import os, torch, torch.distributed as dist
torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
dist.init_process_group("nccl", device_id=torch.device("cuda", int(os.environ.get("LOCAL_RANK", "0"))))
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x)
torch.cuda.synchronize()
print("all_reduce ok", x[0].item(), "nccl", torch.cuda.nccl.version(), flush=True)
dist.destroy_process_group()
raise SystemExit(int(os.environ.get("ND_EXIT", "0")))
PY
port=29611
t0=$(date +%s.%N)
timeout 120 env RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port \
  "$ND_BIN" watch --stall 10 --on-stall kill --json="$OUT/watch-missing.json" -- python3 /tmp/nd_dist.py \
  >"$OUT/watch-missing.out" 2>"$OUT/watch-missing.txt"
rc=$?
t1=$(date +%s.%N)
say "1. world size 2, only rank 0: exit $rc after $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s (stall 10 s)"
grep -E "WATCH_RANKS_NOT_STARTED|127\.0\.0\.1:$port|WATCH_STALL|python" "$OUT/watch-missing.txt" | head -8 | tee -a "$S"

timeout 120 env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port + 1)) \
  "$ND_BIN" watch --stall 30 -- python3 /tmp/nd_dist.py >"$OUT/watch-ok.out" 2>"$OUT/watch-ok.txt"
rc=$?
say "2. one rank that finishes: exit $rc; stdout: $(grep -c 'all_reduce ok' "$OUT/watch-ok.out") ok line; watch lines on stderr: $(grep -c 'nccl-doctor watch' "$OUT/watch-ok.txt")"
ls /tmp/nccl-doctor-watch.* >/dev/null 2>&1 && say "   LEFT a private log directory" || say "   no private log directory left"

timeout 120 env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port + 2)) ND_EXIT=3 \
  "$ND_BIN" watch --stall 30 -- python3 /tmp/nd_dist.py >"$OUT/watch-exit3.out" 2>"$OUT/watch-exit3.txt"
rc=$?
say "3. one rank that exits 3 after NCCL: exit $rc"
head -20 "$OUT/watch-exit3.txt" | tee -a "$S"
