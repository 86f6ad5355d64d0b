#!/bin/bash
# Real failing torch.distributed jobs with injected faults, and what `logs` and
# `check --log` say of them (tests/fixtures/logs/real-h100-faults/): two ranks
# on one GPU, and NCCL_SOCKET_IFNAME naming no interface. Needs a GPU and
# PyTorch. Run from the repository root:
#   ND_BIN=/path/nccl-doctor OUT=DIR bash tests/device/record-injected-faults.sh
set -u
: "${OUT:?}" "${ND_BIN:?}"
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
W=$(mktemp -d)
cat >"$W/job.py" <<'PY'
import os, sys, torch, torch.distributed as dist, torch.multiprocessing as mp
def run(rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.cuda.set_device(0)  # every rank on GPU 0: the duplicate-GPU fault when world > 1
    dist.init_process_group("nccl", rank=rank, world_size=world, device_id=torch.device("cuda", 0))
    t = torch.ones(4, device="cuda")
    dist.all_reduce(t)
    torch.cuda.synchronize()
    dist.destroy_process_group()
if __name__ == "__main__":
    world = int(sys.argv[1])
    mp.spawn(run, args=(world, int(sys.argv[2])), nprocs=world)
PY
NCCL_DEBUG=INFO timeout 60 python3 "$W/job.py" 2 29555 >"$OUT/duplicate-gpu-2ranks-1gpu.log" 2>&1
NCCL_DEBUG=INFO NCCL_SOCKET_IFNAME=nosuch0 timeout 60 python3 "$W/job.py" 1 29556 >"$OUT/socket-ifname-nosuch0.log" 2>&1
for l in duplicate-gpu-2ranks-1gpu socket-ifname-nosuch0; do
  { echo "=== logs"; timeout 30 "$ND_BIN" logs "$OUT/$l.log"; echo "exit $?"
    echo "=== check --log"; timeout 45 "$ND_BIN" check --profile prolog --log "$OUT/$l.log"; echo "exit $?"; } >"$OUT/$l.out" 2>&1
done
rm -rf "$W"
