#!/usr/bin/env bash
# Sixteen more failures of a training job and its launch, none captured
# before, put in on purpose on a machine with one GPU (two ranks as two
# NCCL nodes through NCCL_HOSTID, NET/Socket between them, PyTorch with its
# own NCCL), and what `logs` names first for each: capture batches R3 (the
# first eight) and R4 (the last eight) of docs/logs.md ("Capture batches
# R3 and R4: how they are scored"). The expected class of each (and an
# alternative where the fault has two honest readings) was written here and
# committed before the first run; a fault that does not make the job fail
# is not a case.
# R3:
#   cvd-empty         rank 1 starts with CUDA_VISIBLE_DEVICES= (an empty
#                     value a launch script left) -> duplicate_gpu_or_device_mapping
#   rank-segv         rank 1 dies of SIGSEGV (a crash in a native extension)
#                     after the first all_reduce -> peer_died_or_oom
#   ddp-unused-param  DDP over a model one of whose layers forward() never
#                     uses, find_unused_parameters left False ->
#                     collective_mismatch_app_bug
#   net-ib-no-hca     NCCL_NET=IB copied from a cluster's launch script onto a
#                     machine without InfiniBand -> ib_rdma_config
#                     (alternative nccl_config_error); dropped if it has IB
#   init-twice        the script calls init_process_group a second time (a
#                     library already did) -> collective_mismatch_app_bug
#   uneven-steps      rank 1 has one batch more than rank 0: rank 0 leaves
#                     after its last step, rank 1 waits in one more
#                     all_reduce -> collective_mismatch_app_bug
#   cpu-tensor        all_reduce of a tensor left on the CPU on the NCCL group
#                     -> collective_mismatch_app_bug
#   socket-family-v6  NCCL_SOCKET_FAMILY=AF_INET6 on a machine whose
#                     interfaces have IPv4 only -> nccl_config_error
#                     (alternative bootstrap_network); dropped if it works
# R4:
#   netns-localhost   rank 1 runs in its own network namespace (a container
#                     without host networking) and MASTER_ADDR=127.0.0.1 is
#                     its own loopback -> bootstrap_network; dropped if no
#                     network namespace can be made
#   rank-sigkill      rank 1 is killed by SIGKILL (as the OOM killer does)
#                     after the first all_reduce -> peer_died_or_oom
#   ddp-model-differs rank 1 builds its model with another layer width (a
#                     config file that differs) -> collective_mismatch_app_bug
#   fork-after-cuda   rank 1 starts a forked worker pool after CUDA is up and
#                     a worker touches CUDA -> collective_mismatch_app_bug
#                     (alternative peer_died_or_oom)
#   group-order       both ranks create two groups, then rank 0 all_reduces
#                     on the first and rank 1 on the second ->
#                     collective_mismatch_app_bug
#   alltoall-splits   all_to_all_single whose split sizes the ranks do not
#                     agree on -> collective_mismatch_app_bug
#   subgroup-skip     rank 1 skips a new_group call rank 0 makes ->
#                     collective_mismatch_app_bug
#   master-addr-port  MASTER_ADDR=127.0.0.1:PORT (the port written into the
#                     address) -> bootstrap_network
# Each capture is $OUT/training/<name>.log (both ranks' output), with the
# job's exit status and `logs --json`'s first causes in $OUT/summary.txt.
#   OUT=DIR ND_BIN=build/nccl-doctor bash tests/device/record-training-faults.sh [NAME...]
# Several runs at once (one OUT each) need ND_PORT_BASE apart by 2 per name.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
# shellcheck source=tests/device/lib.sh
. tests/device/lib.sh
OUT=${OUT:-/tmp/training-faults}
nd_fault_setup training || exit 2

cat >"$F/job.py" <<'PYEOF'
import os, sys, signal
from datetime import timedelta
import torch, torch.distributed as dist
rank = int(os.environ["RANK"])
mode = os.environ["ND_MODE"]
os.environ["NCCL_HOSTID"] = "nd-node%d" % rank  # one GPU: each rank its own NCCL node
if mode == "master-addr-port":  # the launch wrote the port into the address as well
    os.environ["MASTER_ADDR"] += ":" + os.environ["MASTER_PORT"]
torch.cuda.set_device(0)
x = torch.ones(1 << 20, device="cuda")
dist.init_process_group("nccl", timeout=timedelta(seconds=15), device_id=torch.device("cuda", 0))
world = dist.get_world_size()
if mode == "init-twice":
    dist.init_process_group("nccl", timeout=timedelta(seconds=15))
if mode == "cpu-tensor":
    dist.all_reduce(torch.ones(4))
if mode == "subgroup-skip":
    if rank == 0:
        g = dist.new_group([0, 1])
        dist.all_reduce(x, group=g)
if mode == "group-order":
    g1 = dist.new_group([0, 1])
    g2 = dist.new_group([0, 1])
    dist.all_reduce(x, group=g1 if rank == 0 else g2)
    dist.all_reduce(x, group=g2 if rank == 0 else g1)
if mode in ("ddp-unused-param", "ddp-model-differs"):
    from torch.nn.parallel import DistributedDataParallel as DDP
    width = 9 if mode == "ddp-model-differs" and rank == 1 else 8
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(16, width)
            self.b = torch.nn.Linear(width, 4)  # never used by forward()
        def forward(self, t):
            return self.a(t)
    model = DDP(Net().cuda(), device_ids=[0])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(3):
        opt.zero_grad()
        model(torch.randn(32, 16, device="cuda")).sum().backward()
        opt.step()
dist.all_reduce(x)
if mode == "rank-segv" and rank == 1:
    os.kill(os.getpid(), signal.SIGSEGV)
if mode == "rank-sigkill" and rank == 1:
    os.kill(os.getpid(), signal.SIGKILL)
if mode == "fork-after-cuda" and rank == 1:
    import multiprocessing as mp
    def work(i):
        return torch.ones(1, device="cuda").item() + i
    with mp.get_context("fork").Pool(2) as pool:
        print(pool.map(work, range(4)), flush=True)
if mode == "alltoall-splits":
    inp = torch.ones(1024, device="cuda")
    ins = [512, 512] if rank == 0 else [256, 768]
    out = torch.empty(1024, device="cuda")
    dist.all_to_all_single(out, inp, output_split_sizes=[512, 512], input_split_sizes=ins)
steps = 3 + (1 if mode == "uneven-steps" and rank == 1 else 0)
for _ in range(steps):
    dist.all_reduce(x)
torch.cuda.synchronize()
dist.destroy_process_group()
print("rank %d done" % rank, flush=True)
PYEOF

cat >"$F/netns.sh" <<'SHEOF'
#!/bin/sh
# rank 1 in a network namespace of its own, its loopback up: a container
# without host networking, where 127.0.0.1 is the container itself
if [ "$RANK" = 1 ]; then
  exec unshare -n sh -c 'ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null; exec "$0" "$@"' "$@"
fi
exec "$@"
SHEOF
chmod +x "$F/netns.sh"

nd_rank_env() { # NAME RANK
  echo "ND_MODE=$1"
  case $1 in
    cvd-empty) [ "$2" = 1 ] && echo CUDA_VISIBLE_DEVICES= ;;
    net-ib-no-hca) echo NCCL_NET=IB ;;
    socket-family-v6) echo NCCL_SOCKET_FAMILY=AF_INET6 ;;
  esac
  return 0
}
port=${ND_PORT_BASE:-29700}
for name in ${*:-cvd-empty rank-segv ddp-unused-param net-ib-no-hca init-twice uneven-steps cpu-tensor socket-family-v6 \
  netns-localhost rank-sigkill ddp-model-differs fork-after-cuda group-order alltoall-splits subgroup-skip master-addr-port}; do
  port=$((port + 2))
  ND_PREFIX=
  case $name in
    net-ib-no-hca)
      if [ -n "$(ls /sys/class/infiniband 2>/dev/null)" ]; then
        say "$name: dropped, this machine has InfiniBand devices ($(ls /sys/class/infiniband | tr '\n' ' '))"
        continue
      fi ;;
    netns-localhost)
      if ! unshare -n true 2>/dev/null; then
        say "$name: dropped, no network namespace can be made here ($(id -un))"
        continue
      fi
      ND_PREFIX=$F/netns.sh ;;
  esac
  nd_two_ranks "$name" "$port"
done
rm -f "$F/job.py" "$F/netns.sh"
