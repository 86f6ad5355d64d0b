#!/usr/bin/env bash
# Real text of the failures the rules of docs/logs.md "What batches 28, 29
# and 30 showed" and "Launchers and the loader" read, captured on a machine
# with one GPU, and what `logs` makes of each:
#   A. rank 0 late: two processes of one process group; rank 0 sleeps past
#      the group's 20 s timeout before its first collective, rank 1 calls
#      all_reduce at once and waits for the NCCL unique id in rank 0's
#      store (PT07t: rank 0 late, not the network);
#   B. a rank killed by SIGKILL under torchrun (exit code -9: the OOM
#      killer's signal), and bash's own notice of a SIGKILLed command in a
#      script (the shell-kill-notice reader).
# Each capture is kept under $OUT/late and read by `logs --json`.
#   OUT=DIR ND_BIN=build/nccl-doctor bash tests/device/record-rank0-late.sh
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
cd "$here" || exit 2
# shellcheck source=tests/device/lib.sh
. tests/device/lib.sh
OUT=${OUT:-/tmp/rank0-late}
mkdir -p "$OUT/late"
nd_binary build-dev || { echo "no nccl-doctor binary" >&2; exit 2; }
nd_summary "$OUT/summary.txt"
export NCCL_NVLS_ENABLE=0 NCCL_MNNVL_ENABLE=0 NCCL_IB_DISABLE=1 NCCL_SOCKET_IFNAME=lo
PY=${PY:-python3}
L=$OUT/late
is_first() { [ "$(first_cause "$1" | cut -d' ' -f1)" = "$2" ]; }
first_cause() { "$ND_BIN" --json logs "$@" 2>/dev/null | $PY -c 'import json,sys; d=json.load(sys.stdin); c=d["causes"]; print(c[0]["cause"] if c else "none", c[0]["confidence"] if c else 0)'; }

# A: rank 0 late past the group's timeout
cat >"$L/late.py" <<'PYEOF'
import os, sys, time, datetime, torch, torch.distributed as dist
rank = int(sys.argv[1])
dist.init_process_group("nccl", init_method="tcp://127.0.0.1:29751", rank=rank, world_size=2,
                        timeout=datetime.timedelta(seconds=20))
torch.cuda.set_device(0)
if rank == 0:
    print("rank 0: preparing data alone", flush=True)
    time.sleep(45)
t = torch.ones(4, device="cuda")
dist.all_reduce(t)
print("rank", rank, "all_reduce done", flush=True)
PYEOF
timeout 90 $PY "$L/late.py" 0 >"$L/rank0.log" 2>&1 &
p0=$!
timeout 90 $PY "$L/late.py" 1 >"$L/rank1.log" 2>&1
r1=$?
kill "$p0" 2>/dev/null; wait "$p0" 2>/dev/null
cat "$L/rank1.log" "$L/rank0.log" >"$L/rank0-late.log"
say "A rank 1 exit $r1: $(grep -m1 -o 'retrieving ncclUniqueId.*' "$L/rank1.log" | cut -c1-200 || echo 'no store line')"
say "A logs: $(first_cause "$L/rank1.log")"
check "A: rank 1's paste names rank 0 late (collective_mismatch_app_bug first)" is_first "$L/rank1.log" collective_mismatch_app_bug

# B: SIGKILL under torchrun, and bash's notice in a script
cat >"$L/sigkill.py" <<'PYEOF'
import os, signal, time
if os.environ.get("LOCAL_RANK") == "1":
    time.sleep(2)
    os.kill(os.getpid(), signal.SIGKILL)
time.sleep(20)
PYEOF
timeout 90 torchrun --nproc_per_node 2 "$L/sigkill.py" >"$L/torchrun-sigkill.log" 2>&1
say "B torchrun exit $?: $(grep -m1 -o 'exitcode[^)]*' "$L/torchrun-sigkill.log" || echo 'no exitcode line')"
say "B torchrun logs: $(first_cause "$L/torchrun-sigkill.log")"
printf '#!/bin/bash\n%s -c "import os,signal; os.kill(os.getpid(), signal.SIGKILL)"\necho after\n' "$PY" >"$L/k.sh"
bash "$L/k.sh" >"$L/bash-sigkill.log" 2>&1
say "B bash notice: $(head -1 "$L/bash-sigkill.log")"
say "B bash logs: $(first_cause "$L/bash-sigkill.log")"
check "B: bash's SIGKILL notice reads as the OOM killer" is_first "$L/bash-sigkill.log" peer_died_or_oom
check "B: torchrun's exit code -9 reads as a dead rank" is_first "$L/torchrun-sigkill.log" peer_died_or_oom
say "pass $pass fail $fail"
