#!/bin/bash
# A large REAL NCCL log for the threaded `logs` path (issue 14 item 10): two
# torch ranks on one GPU (one NCCL_HOSTID each, as record-logs-2rank.sh),
# NCCL_DEBUG=INFO with NCCL_DEBUG_SUBSYS=INIT,ENV,NET,P2P,SHM,GRAPH,TUNING,COLL,
# both ranks' stderr appended to one file (interleaved lines). Each rank
# creates NCOMM process groups (one NCCL communicator init each, lazy at its
# first all_reduce) and runs NITER small all_reduce on the default group
# (one COLL line each). Then `nccl-doctor logs` with --threads 1 and the
# default: the reports must be byte-identical; wall times beside
# `grep -c 'NCCL WARN'`, best of 3. Writes $OUT/summary.txt, the two
# reports, and the first 2000 lines of the log. Needs python3 with torch and
# a GPU; never changes the system; about 4 minutes: over NET/Socket between two
# ranks on one GPU with COLL logging an all_reduce took ~4 ms on the H200 VM
# (48 700 in 200 s), so the log is ~20 MB, not hundreds; the ranks are
# stopped by a 240 s timeout if NITER is larger.
#
#   OUT=DIR ND_BIN=path/nccl-doctor [NCOMM=40] [NITER=40000] bash tests/device/record-big-log.sh
set -u
: "${OUT:?set OUT}"
ND_BIN=${ND_BIN:-build/nccl-doctor}
NCOMM=${NCOMM:-40} NITER=${NITER:-40000}
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1
mkdir -p "$OUT"
W=$(mktemp -d /tmp/nd-big.XXXXXX)
LOG=$W/big.log
cat >"$W/t.py" <<'PY'
import os, sys, torch, torch.distributed as dist
from datetime import timedelta
rank, ncomm, niter = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
torch.cuda.set_device(0)
dist.init_process_group("nccl", rank=rank, world_size=2, timeout=timedelta(seconds=60),
                        device_id=torch.device("cuda", 0))
x = torch.ones(1, device="cuda")
for _ in range(ncomm):
    g = dist.new_group([0, 1])
    dist.all_reduce(x, group=g)
    dist.destroy_process_group(g)
for _ in range(niter):
    dist.all_reduce(x)
torch.cuda.synchronize()
dist.destroy_process_group()
PY
t0=$(date +%s)
for r in 0 1; do
  env MASTER_ADDR=127.0.0.1 MASTER_PORT=29533 NCCL_HOSTID=nd-big$r NCCL_DEBUG=INFO \
    NCCL_DEBUG_SUBSYS=INIT,ENV,NET,P2P,SHM,GRAPH,TUNING,COLL \
    timeout 240 python3 "$W/t.py" $r "$NCOMM" "$NITER" >>"$LOG" 2>&1 &
done
wait
echo "log: $(stat -c %s "$LOG") bytes, $(wc -l <"$LOG") lines, $(grep -c 'Init COMPLETE' "$LOG") Init COMPLETE, $(( $(date +%s) - t0 )) s to record" | tee "$OUT/summary.txt"
head -2000 "$LOG" >"$OUT/big-head.log"
best() { # COMMAND...: best wall seconds of 3
  local b=999 s e
  for _ in 1 2 3; do
    s=$(date +%s.%N); "$@" >/dev/null 2>&1; e=$(date +%s.%N)
    b=$(python3 -c "print(min($b, $e - $s))")
  done
  echo "$b"
}
ND_LOGS_THREADS=1 timeout 120 "$ND_BIN" logs --json "$LOG" >"$OUT/report-1.json" 2>/dev/null; echo "rc threads 1: $?" | tee -a "$OUT/summary.txt"
timeout 120 "$ND_BIN" logs --json "$LOG" >"$OUT/report-default.json" 2>/dev/null; echo "rc default: $?" | tee -a "$OUT/summary.txt"
if cmp -s "$OUT/report-1.json" "$OUT/report-default.json"; then echo "PASS: report identical with 1 thread and the default" | tee -a "$OUT/summary.txt"
else echo "FAIL: reports differ" | tee -a "$OUT/summary.txt"; fi
timeout 60 "$ND_BIN" logs "$LOG" 2>&1 | head -30 >"$OUT/report.txt"
g=$(best grep -c 'NCCL WARN' "$LOG"); one=$(best env ND_LOGS_THREADS=1 "$ND_BIN" logs "$LOG"); def=$(best "$ND_BIN" logs "$LOG")
python3 -c "g,o,d=$g,$one,$def; print('wall, best of 3: grep -c %.2f s, nccl-doctor 1 thread %.2f s (%.2fx grep), default threads %.2f s (%.2fx grep)' % (g,o,g/o,d,g/d))" | tee -a "$OUT/summary.txt"
rm -rf "$W"
