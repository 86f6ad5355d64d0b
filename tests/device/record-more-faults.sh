#!/usr/bin/env bash
# Sixteen failures a user makes or meets, none captured before, put in on
# purpose on a machine with one GPU (two ranks as two NCCL nodes through
# NCCL_HOSTID, NET/Socket between them, PyTorch with its own NCCL), and
# what `logs` names first for each: capture batches R1 (the first eight)
# and R2 (the last eight) of docs/logs.md ("Capture batches R1 and R2: how
# they are scored"). The expected class of each (and an alternative where
# the fault has two honest readings) was written here and committed before
# the first run; a fault that does not make the job fail is not a case.
# R1:
#   buffsize-huge     NCCL_BUFFSIZE=64 GiB left from a tuning guide ->
#                     nccl_config_error (alternative peer_died_or_oom)
#   proto-differs     NCCL_PROTO=Simple on rank 0, NCCL_PROTO=LL on rank 1
#                     (two launch scripts) -> nccl_config_error
#   gloo-ifname       GLOO_SOCKET_IFNAME=nosuch0 and a Gloo group beside the
#                     NCCL one (as vLLM and DeepSpeed make) ->
#                     bootstrap_network (alternative nccl_config_error)
#   port-differs      rank 1 is given MASTER_PORT+1 -> bootstrap_network
#   rank-exception    rank 1 raises KeyError in its data step after the first
#                     all_reduce; rank 0 goes on -> peer_died_or_oom
#   device-assert     rank 1 indexes out of bounds on the GPU (device-side
#                     assert) after the first all_reduce -> peer_died_or_oom
#                     (alternative collective_mismatch_app_bug)
#   send-unmatched    rank 0 sends to rank 1, which never posts the receive
#                     and goes on to an all_reduce -> collective_mismatch_app_bug
#   straggler         a 10 s group timeout and a rank 1 whose step takes 30 s
#                     (a slow load, not a hang) -> collective_mismatch_app_bug
# R2:
#   dtype-mismatch    rank 1 all_reduces float16, rank 0 float32, same
#                     number of elements -> collective_mismatch_app_bug
#   root-differs      each rank calls broadcast with itself as the source ->
#                     collective_mismatch_app_bug
#   allgather-size    rank 1 passes all_gather_into_tensor an output 1024
#                     elements short -> collective_mismatch_app_bug
#                     (alternative peer_died_or_oom)
#   shm-tiny          both ranks in a container-like 1 MiB /dev/shm (a mount
#                     namespace), a DataLoader with two workers ->
#                     shm_too_small; dropped if no mount namespace can be made
#   cvd-uuid-wrong    rank 1 has CUDA_VISIBLE_DEVICES=GPU-<a UUID of another
#                     machine> -> duplicate_gpu_or_device_mapping
#   nofile-low        rank 1's open-file limit is a few above what it holds
#                     when it starts the process group -> bootstrap_network
#   rank-duplicate    both processes start with RANK=0 (the launch forgot to
#                     set it) -> collective_mismatch_app_bug (alternative
#                     bootstrap_network)
#   held-memory       another process (a server left running) holds all but
#                     200 MiB of the GPU when the job starts -> peer_died_or_oom
# Each capture is $OUT/more/<name>.log (both ranks' output), with the job's
# exit status and `logs --json`'s first causes in $OUT/summary.txt.
#   OUT=DIR ND_BIN=build/nccl-doctor bash tests/device/record-more-faults.sh [NAME...]
# Several runs at once (one OUT each) need ND_PORT_BASE apart by 2 per name.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
# shellcheck source=tests/device/lib.sh
. tests/device/lib.sh
OUT=${OUT:-/tmp/more-faults}
nd_fault_setup more || exit 2

cat >"$F/job.py" <<'PYEOF'
import os, sys, time
from datetime import timedelta
import torch, torch.distributed as dist
rank = int(os.environ["RANK"])
mode = os.environ["ND_MODE"]
os.environ["NCCL_HOSTID"] = "nd-node%d" % rank  # one GPU: each rank its own NCCL node
if mode == "port-differs" and rank == 1:
    os.environ["MASTER_PORT"] = str(int(os.environ["MASTER_PORT"]) + 1)
if mode == "rank-duplicate":
    os.environ["RANK"] = "0"
torch.cuda.set_device(0)
x = torch.ones(1 << 20, device="cuda")
if mode == "nofile-low" and rank == 1:
    import resource
    held = len(os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (held + 6, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))
secs = 10 if mode == "straggler" else 15
dist.init_process_group("nccl", timeout=timedelta(seconds=secs), device_id=torch.device("cuda", 0))
world = dist.get_world_size()
if mode == "gloo-ifname":
    g = dist.new_group(backend="gloo")
    dist.barrier(group=g)
if mode == "dtype-mismatch" and rank == 1:
    x = torch.ones(1 << 20, device="cuda", dtype=torch.float16)
if mode == "shm-tiny":
    class DS(torch.utils.data.Dataset):
        def __len__(self): return 64
        def __getitem__(self, i): return torch.ones(1 << 20)
    for batch in torch.utils.data.DataLoader(DS(), batch_size=4, num_workers=2):
        x.add_(batch.sum().cuda() * 0)
dist.all_reduce(x)
if mode == "rank-exception" and rank == 1:
    sample = {"input_ids": [1, 2, 3]}
    labels = sample["labels"]
if mode == "device-assert" and rank == 1:
    idx = torch.tensor([5], device="cuda")
    torch.zeros(2, device="cuda")[idx].sum().item()
if mode == "send-unmatched":
    if rank == 0:
        dist.send(x, 1)
if mode == "straggler" and rank == 1:
    time.sleep(30)
if mode == "root-differs":
    x = torch.full((1 << 20,), float(rank + 1), device="cuda")
    dist.broadcast(x, src=rank)
    if x[0].item() != 1.0:
        raise RuntimeError("broadcast gave %g on rank %d, expected rank 0's 1.0" % (x[0].item(), rank))
if mode == "allgather-size":
    n = x.numel() * world - (1024 if rank == 1 else 0)
    out = torch.empty(n, device="cuda", dtype=x.dtype)
    dist.all_gather_into_tensor(out, x)
before = x.float().sum().item()
for _ in range(2):
    dist.all_reduce(x)
torch.cuda.synchronize()
want = before * world * world
got = x.float().sum().item()
if mode in ("proto-differs", "dtype-mismatch") and abs(got - want) > 1e-3 * want:
    raise RuntimeError("all_reduce gave %g on rank %d, expected %g" % (got, rank, want))
dist.destroy_process_group()
print("rank %d done" % rank, flush=True)
PYEOF

cat >"$F/shm.sh" <<'SHEOF'
#!/bin/sh
# a 1 MiB /dev/shm, as a container started without --shm-size or --ipc=host
exec unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec "$0" "$@"' "$@"
SHEOF
chmod +x "$F/shm.sh"

nd_rank_env() { # NAME RANK
  echo "ND_MODE=$1"
  case $1 in
    buffsize-huge) echo NCCL_BUFFSIZE=68719476736 ;;
    proto-differs) if [ "$2" = 0 ]; then echo NCCL_PROTO=Simple; else echo NCCL_PROTO=LL; fi ;;
    gloo-ifname) echo GLOO_SOCKET_IFNAME=nosuch0 ;;
    cvd-uuid-wrong) [ "$2" = 1 ] && echo CUDA_VISIBLE_DEVICES=GPU-4f6b1e2a-7c3d-4e8f-9a0b-1c2d3e4f5a6b ;;
  esac
  return 0
}
port=${ND_PORT_BASE:-29900}
for name in ${*:-buffsize-huge proto-differs gloo-ifname port-differs rank-exception device-assert send-unmatched straggler \
  dtype-mismatch root-differs allgather-size shm-tiny cvd-uuid-wrong nofile-low rank-duplicate held-memory}; do
  port=$((port + 2))
  hog=
  ND_PREFIX=
  case $name in
    shm-tiny)
      if ! unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm' 2>/dev/null; then
        say "$name: dropped, no mount namespace can be made here ($(id -un))"
        continue
      fi
      ND_PREFIX=$F/shm.sh ;;
    held-memory)
      $PY -c 'import time, torch
free, _ = torch.cuda.mem_get_info()
hog = torch.empty(free - (200 << 20), dtype=torch.uint8, device="cuda")
print("holding", hog.numel() >> 20, "MiB", flush=True)
time.sleep(120)' >"$F/hog.out" 2>&1 &
      hog=$!
      for _ in $(seq 60); do grep -q holding "$F/hog.out" && break; sleep 1; done ;;
  esac
  nd_two_ranks "$name" "$port"
  if [ -n "$hog" ]; then kill "$hog" 2>/dev/null; wait "$hog" 2>/dev/null; fi
done
rm -f "$F/job.py" "$F/shm.sh" "$F/hog.out"
