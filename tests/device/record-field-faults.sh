#!/usr/bin/env bash
# Twenty more failures, none captured before, put in on purpose on a
# machine with one GPU (two ranks as two NCCL nodes through NCCL_HOSTID,
# NET/Socket between them, PyTorch with its own NCCL), and what `logs`
# names first for each: capture batches R5 (the first ten) and R6 (the last
# ten) of docs/logs.md ("Capture batches R5 and R6: how they are scored").
# The expected class of each (and an alternative where the fault has two
# honest readings) was written here and committed before the first run; a
# fault that does not make the job fail is not a case. Chosen to spread
# over the classes one GPU can show, at most four of a batch the
# application's own.
# R5:
#   stub-libcuda      rank 1 finds the CUDA toolkit's stub libcuda first
#                     (a stubs directory left on LD_LIBRARY_PATH by a build
#                     step) -> version_mismatch; dropped if the machine has
#                     no stub library
#   network-none      both ranks in a network namespace with no interface up
#                     (a container run with --network none) ->
#                     bootstrap_network; dropped if no namespace can be made
#   rank-exit-early   rank 1 returns after init_process_group, before the
#                     first collective (a code path that exits on one rank)
#                     -> peer_died_or_oom (alternative collective_mismatch_app_bug)
#   send-to-self      rank 1 sends a tensor to its own rank ->
#                     collective_mismatch_app_bug
#   algo-tree-allgather NCCL_ALGO=Tree copied from a tuning guide, the job
#                     also calls all_gather_into_tensor -> nccl_config_error
#   host-memerror     rank 1's data step cannot allocate host memory (an
#                     address-space limit, as ulimit -v or a container's)
#                     after the first all_reduce -> peer_died_or_oom
#   firewall-ports    both ranks in a network namespace whose firewall lets
#                     new TCP connections reach MASTER_PORT only ->
#                     bootstrap_network; dropped without a namespace or iptables
#   topo-file-other   NCCL_TOPO_FILE names another machine's topology (eight
#                     GPUs at bus ids this machine lacks) -> nccl_config_error;
#                     dropped if the job still passes
#   destroy-then-use  rank 1 destroys the process group after a step and
#                     calls all_reduce again -> collective_mismatch_app_bug
#   rank0-dies-before-init rank 0 cannot open its checkpoint
#                     (FileNotFoundError) before init_process_group; rank 1
#                     waits for the store -> peer_died_or_oom (alternative
#                     collective_mismatch_app_bug)
# R6:
#   cvd-nodevfiles    rank 1 starts with CUDA_VISIBLE_DEVICES=NoDevFiles (what
#                     Slurm sets when the job asked for no GPU) ->
#                     duplicate_gpu_or_device_mapping
#   init-file-stale   init_method=file:// names a file an earlier run that
#                     crashed left behind -> bootstrap_network (alternative
#                     nccl_config_error); dropped if the job passes
#   device-mesh-too-big init_device_mesh("cuda", (2, 2)) in a world of two ->
#                     collective_mismatch_app_bug
#   master-addr-url   MASTER_ADDR=tcp://127.0.0.1 (the init_method URL put in
#                     the address) -> bootstrap_network
#   pickle-object     rank 1 passes all_gather_object an object pickle cannot
#                     take (a lambda) -> collective_mismatch_app_bug
#                     (alternative peer_died_or_oom)
#   nccl-so-truncated rank 1's LD_LIBRARY_PATH holds a truncated libnccl.so.2
#                     (a copy cut short) -> version_mismatch; dropped if the
#                     job passes (the library not loaded from there)
#   graph-capture-sync both ranks capture a CUDA graph around all_reduce and
#                     read a value inside the capture ->
#                     collective_mismatch_app_bug (alternative
#                     custom_allreduce_or_cumem)
#   reduce-scatter-size rank 1 passes reduce_scatter_tensor an output one
#                     element longer than input/world -> collective_mismatch_app_bug
#   rank-sigterm      rank 1 is stopped by SIGTERM (a preemption) after the
#                     first all_reduce -> peer_died_or_oom
#   timeout-short-big-op a group with a 1 s timeout runs an 8 GiB all_reduce
#                     over sockets (slow, not hung) -> collective_mismatch_app_bug
#                     (alternative nccl_config_error)
# Each capture is $OUT/field/<name>.log (both ranks' output), with the job's
# exit status and `logs --json`'s first causes in $OUT/summary.txt.
#   OUT=DIR ND_BIN=build/nccl-doctor bash tests/device/record-field-faults.sh [NAME...]
# Several runs at once (one OUT each) need ND_PORT_BASE apart by 2 per name.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
# shellcheck source=tests/device/lib.sh
. tests/device/lib.sh
OUT=${OUT:-/tmp/field-faults}
nd_fault_setup field || exit 2

cat >"$F/job.py" <<'PYEOF'
import os, sys, signal
from datetime import timedelta
import torch, torch.distributed as dist
rank = int(os.environ["RANK"])
mode = os.environ["ND_MODE"]
os.environ["NCCL_HOSTID"] = "nd-node%d" % rank  # one GPU: each rank its own NCCL node
if mode == "master-addr-url":  # the init_method URL put in the address
    os.environ["MASTER_ADDR"] = "tcp://" + os.environ["MASTER_ADDR"]
if mode == "rank0-dies-before-init" and rank == 0:
    torch.load("/nonexistent/checkpoints/step-4000/model.pt")
torch.cuda.set_device(0)
x = torch.ones(1 << 20, device="cuda")
init = {}
if mode in ("init-file-stale", "init-file-crash"):
    init["init_method"] = "file://" + os.environ["ND_STORE_FILE"]
    init["rank"], init["world_size"] = rank, 2
dist.init_process_group("nccl", timeout=timedelta(seconds=15), device_id=torch.device("cuda", 0), **init)
if mode == "init-file-crash":  # the earlier run: dies without cleaning up
    os._exit(1)
if mode == "rank-exit-early" and rank == 1:
    sys.exit(0)
dist.all_reduce(x)
if mode == "send-to-self" and rank == 1:
    dist.send(x, dst=1)
if mode == "algo-tree-allgather":
    out = torch.empty(2 << 20, device="cuda")
    dist.all_gather_into_tensor(out, x)
if mode == "host-memerror" and rank == 1:
    import resource
    vm = [int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmSize:")][0] * 1024
    resource.setrlimit(resource.RLIMIT_AS, (vm + (256 << 20), resource.RLIM_INFINITY))
    batch = torch.empty(8 << 30, dtype=torch.uint8)  # a batch the data step loads
if mode == "destroy-then-use" and rank == 1:
    dist.destroy_process_group()
if mode == "device-mesh-too-big":
    from torch.distributed.device_mesh import init_device_mesh
    mesh = init_device_mesh("cuda", (2, 2))
if mode == "pickle-object":
    objs = [None, None]
    dist.all_gather_object(objs, {"step": 1} if rank == 0 else (lambda: 1))
if mode == "graph-capture-sync":
    g = torch.cuda.CUDAGraph()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        dist.all_reduce(x)
    torch.cuda.current_stream().wait_stream(s)
    with torch.cuda.graph(g):
        dist.all_reduce(x)
        norm = x.sum().item()
if mode == "reduce-scatter-size":
    n = x.numel() // 2 + (1 if rank == 1 else 0)
    dist.reduce_scatter_tensor(torch.empty(n, device="cuda"), x)
if mode == "rank-sigterm" and rank == 1:
    os.kill(os.getpid(), signal.SIGTERM)
if mode == "timeout-short-big-op":
    g = dist.new_group([0, 1], timeout=timedelta(seconds=1))
    dist.all_reduce(x, group=g)
    torch.cuda.synchronize()
    big = torch.ones(2 << 30, device="cuda")  # 8 GiB of float32
    dist.all_reduce(big, group=g)
    torch.cuda.synchronize()
for _ in range(3):
    dist.all_reduce(x)
torch.cuda.synchronize()
dist.destroy_process_group()
print("rank %d done" % rank, flush=True)
PYEOF

# another machine's topology: eight H100s behind four switches, at bus ids
# this machine does not have
{
  echo '<system version="1">'
  echo '  <cpu numaid="0" affinity="0000ffff" arch="x86_64" vendor="GenuineIntel" familyid="6" modelid="143">'
  for b in 18 2a 3a 5d; do
    echo "    <pci busid=\"0000:$b:00.0\" class=\"0x060400\" vendor=\"0x1000\" device=\"0xc030\" subsystem_vendor=\"0x1000\" subsystem_device=\"0x100b\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">"
    for d in 1 2; do
      echo "      <pci busid=\"0000:$b:0$d.0\" class=\"0x030200\" vendor=\"0x10de\" device=\"0x2330\" subsystem_vendor=\"0x10de\" subsystem_device=\"0x16c1\" link_speed=\"32.0 GT/s PCIe\" link_width=\"16\">"
      echo "        <gpu dev=\"$d\" sm=\"90\" rank=\"$d\" gdr=\"1\"><nvlink target=\"0000:c0:00.0\" count=\"18\" tclass=\"0x068000\"/></gpu>"
      echo "      </pci>"
    done
    echo "    </pci>"
  done
  echo '  </cpu>'
  echo '</system>'
} >"$F/other-topo.xml"

nd_rank_env() { # NAME RANK
  echo "ND_MODE=$1"
  case $1 in
    stub-libcuda) [ "$2" = 1 ] && echo "LD_LIBRARY_PATH=$F/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
    algo-tree-allgather) echo NCCL_ALGO=Tree ;;
    topo-file-other) echo "NCCL_TOPO_FILE=$F/other-topo.xml" ;;
    cvd-nodevfiles) [ "$2" = 1 ] && echo CUDA_VISIBLE_DEVICES=NoDevFiles ;;
    init-file-stale|init-file-crash) echo "ND_STORE_FILE=$F/store" ;;
    nccl-so-truncated) [ "$2" = 1 ] && echo "LD_LIBRARY_PATH=$F/trunc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
  esac
  return 0
}

# in_netns NAME PORT SETUP: nd_two_ranks inside one new network namespace
# (both ranks share it), after the shell commands SETUP ran there
in_netns() {
  unshare -n bash -c "$3
    . tests/device/lib.sh
    $(declare -f nd_rank_env)
    F='$F' PY='$PY' ND_BIN='$ND_BIN' ND_SUMMARY='$ND_SUMMARY'
    nd_two_ranks '$1' '$2'"
}

port=${ND_PORT_BASE:-29800}
for name in ${*:-stub-libcuda network-none rank-exit-early send-to-self algo-tree-allgather host-memerror \
  firewall-ports topo-file-other destroy-then-use rank0-dies-before-init \
  cvd-nodevfiles init-file-stale device-mesh-too-big master-addr-url pickle-object nccl-so-truncated \
  graph-capture-sync reduce-scatter-size rank-sigterm timeout-short-big-op}; do
  port=$((port + 2))
  ND_PREFIX=
  case $name in
    stub-libcuda)
      stub=$(ls /usr/local/cuda/lib64/stubs/libcuda.so /usr/local/cuda/targets/*/lib/stubs/libcuda.so 2>/dev/null | head -1)
      if [ -z "$stub" ]; then say "$name: dropped, no stub libcuda.so here"; continue; fi
      mkdir -p "$F/stub" && ln -sf "$stub" "$F/stub/libcuda.so.1" ;;
    nccl-so-truncated)
      so=$($PY -c 'import glob, os, nvidia.nccl as n; print(glob.glob(os.path.join(list(n.__path__)[0], "lib", "libnccl.so*"))[0])' 2>/dev/null)
      if [ -z "$so" ]; then so=$(ldconfig -p | awk '/libnccl.so.2 /{print $NF; exit}'); fi
      if [ -z "$so" ]; then say "$name: dropped, no libnccl.so.2 found to cut"; continue; fi
      mkdir -p "$F/trunc" && head -c $((16 << 20)) "$so" >"$F/trunc/libnccl.so.2" ;;
    init-file-stale)
      rm -f "$F/store"
      ( nd_summary "$F/earlier.summary"; nd_two_ranks init-file-crash "$port" ) >/dev/null 2>&1
      rm -f "$F/init-file-crash.log" "$F/init-file-crash.report.txt"
      port=$((port + 2))
      if [ ! -e "$F/store" ]; then say "$name: dropped, the crashed run left no store file"; continue; fi ;;
    network-none|firewall-ports)
      if ! unshare -n true 2>/dev/null; then say "$name: dropped, no network namespace can be made here"; continue; fi
      if [ "$name" = network-none ]; then
        in_netns "$name" "$port" ":"
      else
        if ! command -v iptables >/dev/null || ! unshare -n sh -c 'iptables -A INPUT -p tcp --syn -j DROP' 2>/dev/null; then
          say "$name: dropped, no iptables in a namespace here"; continue
        fi
        in_netns "$name" "$port" "ip link set lo up 2>/dev/null || ifconfig lo up
          iptables -A INPUT -p tcp --syn ! --dport $port -j DROP"
      fi
      continue ;;
  esac
  nd_two_ranks "$name" "$port"
done
rm -rf "$F/job.py" "$F/stub" "$F/trunc" "$F/store" "$F/other-topo.xml" "$F/earlier.summary"
