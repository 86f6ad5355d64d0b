#!/usr/bin/env bash
# NCCL settings a user carries into a job without knowing it, put in on
# purpose on a machine with one GPU (two ranks as two NCCL nodes through
# NCCL_HOSTID, NET/Socket between them), and what `logs` names first for
# each. Taken from kb/nccl-env.md and kb/system-checks.md (C22, the config
# files) without looking at how `logs` reads them; the expected answer of
# each was written here before the first capture (docs/logs.md, "Real
# captures of settings carried into a job"):
#   conf-file-ifname  an /etc/nccl.conf-style file (NCCL_CONF_FILE) left from
#                     another cluster: NCCL_SOCKET_IFNAME=ib0, no such
#                     interface here -> nccl_config_error (alternative
#                     bootstrap_network)
#   net-typo          NCCL_NET=Socketz -> nccl_config_error
#   algo-typo         NCCL_ALGO=Rign -> nccl_config_error
#   proto-typo        NCCL_PROTO=LL1024 -> nccl_config_error
#   ib-conflict       NCCL_IB_DISABLE=1 together with NCCL_NET=IB ->
#                     nccl_config_error
#   comm-id-stale     NCCL_COMM_ID=10.255.255.1:23456 left in the environment
#                     (it replaces the bootstrap root PyTorch hands NCCL) ->
#                     bootstrap_network (alternative nccl_config_error)
#   topo-file-missing NCCL_TOPO_FILE=/nonexistent/topo.xml -> if the job
#                     passes: no cause above 0.3 and no BROKEN verdict; if
#                     it fails: nccl_config_error
#   plugin-missing    NCCL_NET_PLUGIN=/nonexistent/libnccl-net-x.so -> the
#                     same rule as topo-file-missing
# Each capture is $OUT/config/<name>.log (both ranks' output), with the
# job's exit status and `logs --json`'s first causes in $OUT/summary.txt.
#   OUT=DIR ND_BIN=build/nccl-doctor bash tests/device/record-config-faults.sh [NAME...]
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
# shellcheck source=tests/device/lib.sh
. tests/device/lib.sh
OUT=${OUT:-/tmp/config-faults}
nd_fault_setup config || exit 2

cat >"$F/job.py" <<'PYEOF'
import os, sys
from datetime import timedelta
import torch, torch.distributed as dist
rank = int(os.environ["RANK"])
os.environ["NCCL_HOSTID"] = "nd-node%d" % rank  # one GPU: each rank its own NCCL node
torch.cuda.set_device(0)
dist.init_process_group("nccl", timeout=timedelta(seconds=30), device_id=torch.device("cuda", 0))
x = torch.ones(1 << 20, device="cuda")
for _ in range(3):
    dist.all_reduce(x)
torch.cuda.synchronize()
dist.destroy_process_group()
print("rank %d done" % rank, flush=True)
PYEOF
printf 'NCCL_SOCKET_IFNAME=ib0\nNCCL_IB_TIMEOUT=22\n' >"$F/nccl.conf"

nd_rank_env() { # NAME RANK
  case $1 in
    conf-file-ifname) echo "NCCL_CONF_FILE=$F/nccl.conf" ;;
    net-typo) echo NCCL_NET=Socketz ;;
    algo-typo) echo NCCL_ALGO=Rign ;;
    proto-typo) echo NCCL_PROTO=LL1024 ;;
    ib-conflict) printf '%s\n' NCCL_IB_DISABLE=1 NCCL_NET=IB ;;
    comm-id-stale) echo NCCL_COMM_ID=10.255.255.1:23456 ;;
    topo-file-missing) echo NCCL_TOPO_FILE=/nonexistent/topo.xml ;;
    plugin-missing) echo NCCL_NET_PLUGIN=/nonexistent/libnccl-net-x.so ;;
  esac
}
port=29840
for name in ${*:-conf-file-ifname net-typo algo-typo proto-typo ib-conflict comm-id-stale topo-file-missing plugin-missing}; do
  port=$((port + 1))
  nd_two_ranks "$name" "$port"
done
rm -f "$F/job.py"
