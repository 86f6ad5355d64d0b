#!/usr/bin/env bash
# Real text of the host facts and framework errors that docs/logs.md "Host
# facts in a paste" reads (kb/nccl_signatures_host.def, the framework
# catalog's application bugs), captured on a machine with one GPU, and what
# `logs` makes of each:
#   A. nvidia-smi -q's Virtualization Mode, lspci -vvv's ACS lines, the
#      kernel's IOMMU and DMI lines, bash's ulimit -a (the literals of VM01,
#      VM02, ACS01, IOM01, VM03, MEM01, as this machine prints them);
#   B. PyTorch DDP with a parameter the forward pass does not use
#      (find_unused_parameters=False): the reducer's "Expected to have
#      finished reduction in the prior iteration" (fwcat5);
#   C. an NCCL collective on a CPU tensor (a caller's argument error).
# Each capture is kept under $OUT/facts and read by `logs --json`.
#   OUT=DIR ND_BIN=build/nccl-doctor bash tests/device/record-host-facts.sh
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
# shellcheck source=tests/device/lib.sh
. tests/device/lib.sh
OUT=${OUT:-/tmp/host-facts}
mkdir -p "$OUT/facts"
nd_binary build-dev || { echo "no nccl-doctor binary" >&2; exit 2; }
nd_summary "$OUT/summary.txt"
export NCCL_NVLS_ENABLE=0 NCCL_MNNVL_ENABLE=0 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo
PY=${PY:-python3}
F=$OUT/facts

# A: the machine's own lines
{ nvidia-smi -q 2>&1 | grep -i -E "Virtualization|Product Name|Driver Version" | head -8; } >"$F/nvidia-smi-q.txt"
{ command -v lspci >/dev/null && timeout 30 lspci -vvv 2>/dev/null | grep -E "ACSCap|ACSCtl" | head -8; } >"$F/lspci-acs.txt"
{ timeout 10 dmesg 2>&1 | grep -i -E "Default domain type|DMI:|Hypervisor detected|iommu" | head -12; } >"$F/dmesg-iommu.txt"
bash -c 'ulimit -a' >"$F/ulimit.txt" 2>&1
for f in nvidia-smi-q lspci-acs dmesg-iommu ulimit; do
  say "A $f: $(wc -l <"$F/$f.txt") lines"
done

# B: DDP with an unused parameter, one rank
cat >"$F/ddp_unused.py" <<'PYEOF'
import os, torch, torch.distributed as dist, torch.nn as nn
dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29741", rank=0, world_size=1)
torch.cuda.set_device(0)
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.used = nn.Linear(8, 8)
        self.unused = nn.Linear(8, 8)
    def forward(self, x):
        return self.used(x)
m = nn.parallel.DistributedDataParallel(M().cuda(), device_ids=[0])
for step in range(3):
    m(torch.randn(4, 8, device="cuda")).sum().backward()
    print("step", step, "done", flush=True)
dist.destroy_process_group()
PYEOF
timeout 120 $PY "$F/ddp_unused.py" >"$F/ddp-unused.log" 2>&1
say "B ddp_unused exit $?: $(grep -m1 -o 'Expected to[^.]*' "$F/ddp-unused.log" || echo 'no reducer error')"

# C: an NCCL collective on a CPU tensor
cat >"$F/cpu_tensor.py" <<'PYEOF'
import torch, torch.distributed as dist
dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29742", rank=0, world_size=1)
torch.cuda.set_device(0)
dist.all_reduce(torch.ones(4))
PYEOF
timeout 120 $PY "$F/cpu_tensor.py" >"$F/cpu-tensor.log" 2>&1
say "C cpu_tensor exit $?: $(grep -m1 -E 'Error' "$F/cpu-tensor.log" | cut -c1-200)"

# what logs makes of each capture (the facts alone: a run that did not fail
# names no cause; the errors: their class)
first() { "$ND_BIN" --json logs "$1" 2>/dev/null | $PY -c 'import json,sys
d=json.load(sys.stdin); c=d.get("causes") or []
print(" ".join("%s:%.2f" % (x["cause"], x["confidence"]) for x in c[:3]) or "-")
print(" ".join(f["id"] for f in d.get("findings", [])))'; }
for f in nvidia-smi-q lspci-acs dmesg-iommu ulimit ddp-unused cpu-tensor; do
  [ -s "$F/$f.txt" ] || [ -s "$F/$f.log" ] || continue
  p=$F/$f.txt; [ -f "$p" ] || p=$F/$f.log
  say "logs $f: $(first "$p" | tr '\n' '|')"
done
if grep -q "Expected to have finished reduction" "$F/ddp-unused.log"; then
  check "B: the reducer's error is an application bug, first" sh -c "$(declare -f first); ND_BIN='$ND_BIN' PY='$PY' first '$F/ddp-unused.log' | head -1 | grep -q '^collective_mismatch_app_bug:'"
fi
say "passed $pass, failed $fail"
