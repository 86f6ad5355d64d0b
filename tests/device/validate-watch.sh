#!/bin/bash
# Device validation of `watch` (issue 15) on a real GPU machine with PyTorch.
# Run from the repository root with ND_BIN=/path/nccl-doctor and OUT=DIR:
#   1. torch.distributed with world size 2 where only rank 0 starts: it waits
#      in the TCPStore rendezvous and prints nothing; watch must name the
#      missing rank and the store's port within stall + 5 s;
#   2. a real one-rank NCCL all-reduce that finishes: exit status passed
#      through, no diagnosis printed;
#   3. a job that exits 3 after NCCL init: status 3 passed through.
#   4. two ranks where rank 1 skips an all_reduce: GPU 0 spins, GPU 1 idles
#      (NVML per process), the RAS STATUS of NCCL 2.28, the kernel log;
#   5. rank 0 alone with GPU memory allocated: its GPU idles in the rendezvous.
# Writes watch-*.txt under $OUT; about three minutes. NCCL_NVLS_ENABLE=0 stays set.
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

# 4. (issue 15, second part) GPU use per process at a stall, NCCL RAS, the
#    kernel log since the start. Two ranks on GPUs 0 and 1 finish init; rank 0
#    enters an all_reduce that rank 1 never calls (it sleeps): rank 0's GPU
#    spins in NCCL's kernel, rank 1's stays idle. watch must show both GPUs
#    with the ranks' pids and memory, GPU 0 busy and GPU 1 idle
#    (WATCH_GPU_SPINNING), ask NCCL's RAS (2.24+; the H200's 2.28 has it) for
#    its STATUS, and say how far it read the kernel log.
cat >/tmp/nd_skip.py <<'PY'
import os, time, torch, torch.distributed as dist
r = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(r)
dist.init_process_group("nccl", device_id=torch.device("cuda", r))
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x); torch.cuda.synchronize()          # both ranks: init done
print("rank", r, "ready", flush=True)
if r == 0:
    dist.all_reduce(x); torch.cuda.synchronize()      # waits for rank 1 for ever
else:
    time.sleep(600)                                   # never calls it
PY
# with one GPU: a single process whose kernel spins (torch.cuda._sleep) while
# it prints nothing: the same NVML view, busy, without NCCL
cat >/tmp/nd_spin.py <<'PY'
import torch
x = torch.ones(1 << 20, device="cuda")
print("spinning", flush=True)
torch.cuda._sleep(1 << 40)                             # minutes of GPU cycles
torch.cuda.synchronize()
PY
ngpu=$(python3 -c 'import torch; print(torch.cuda.device_count())' 2>/dev/null || echo 0)
t0=$(date +%s.%N)
if [ "$ngpu" -ge 2 ]; then
  timeout 200 env MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port + 3)) \
    "$ND_BIN" watch --stall 15 --on-stall kill --json="$OUT/watch-skip.json" -- \
    python3 -m torch.distributed.run --nproc-per-node 2 /tmp/nd_skip.py \
    >"$OUT/watch-skip.out" 2>"$OUT/watch-skip.txt"
else
  say "4. one GPU: the spinning kernel instead of the skipped all_reduce"
  timeout 200 "$ND_BIN" watch --stall 10 --on-stall kill --json="$OUT/watch-skip.json" -- python3 /tmp/nd_spin.py \
    >"$OUT/watch-skip.out" 2>"$OUT/watch-skip.txt"
fi
rc=$?
t1=$(date +%s.%N)
say "4. $ngpu GPUs, a GPU that spins with no progress: exit $rc after $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s"
grep -A6 -E "^GPUs of the job" "$OUT/watch-skip.txt" | tee -a "$S"
grep -E "WATCH_GPU_|WATCH_RAS_|torchrun" "$OUT/watch-skip.txt" | head -6 | tee -a "$S"
grep -A12 -E "^NCCL RAS" "$OUT/watch-skip.txt" | tee -a "$S"
grep -A4 -E "^Kernel log" "$OUT/watch-skip.txt" | tee -a "$S"

# 5. only rank 0 of 2 with a CUDA context (memory allocated before the
#    rendezvous): its GPU is idle while it waits (WATCH_GPU_IDLE)
cat >/tmp/nd_idle.py <<'PY'
import os, torch, torch.distributed as dist
torch.cuda.set_device(0)
keep = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")   # 256 MiB held
print("memory allocated", flush=True)
dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
PY
timeout 120 env RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 LOCAL_WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$((port + 4)) \
  "$ND_BIN" watch --stall 10 --on-stall kill -- python3 /tmp/nd_idle.py >"$OUT/watch-idle.out" 2>"$OUT/watch-idle.txt"
rc=$?
say "5. rank 0 alone with 256 MiB allocated: exit $rc"
grep -A4 -E "^GPUs of the job" "$OUT/watch-idle.txt" | tee -a "$S"
grep -E "WATCH_GPU_|WATCH_RANKS_NOT_STARTED" "$OUT/watch-idle.txt" | head -4 | tee -a "$S"
