#!/bin/bash
# Device validation of watch and NCCL's RAS (issue 15, item 2) on one GPU
# with PyTorch (its NCCL is 2.28.x: no MONITOR stream there). Run from the
# repository root with OUT=DIR (ND_BIN=/path/nccl-doctor, else the tree is
# built into build-device-ras with tests/device/lib.sh's nd_binary):
#   1. a real one-rank torch.distributed job (all_reduce, then it sleeps
#      without output) under watch --stall 10 --on-stall kill: watch must find
#      the job's NCCL (2.28), say "monitor needs NCCL >= 2.29" and not try
#      it, and ask RAS for its STATUS at the stall (what it parsed is in the
#      diagnosis and watch-ras.json);
#   2. while the job sleeps, this script speaks to the same RAS port itself
#      (python, NCCL's client protocol) and keeps the raw answers under $OUT:
#      STATUS, VERBOSE STATUS, and what NCCL 2.28 answers to "MONITOR
#      lifecycle,trace" (expected: "ERROR: Unknown command ...").
# Writes ras-summary.txt (ok/FAIL per check) first, watch-ras.{out,txt,json},
# ras-status.txt, ras-verbose-status.txt, ras-monitor-answer.txt. About 40 s
# once the binary exists. NCCL_NVLS_ENABLE=0 stays set.
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-/tmp/nd-validate}
mkdir -p "$OUT"
. "$(dirname "$0")/lib.sh"
S="$OUT/ras-summary.txt"
: >"$S"
say() { echo "$*" | tee -a "$S"; }
check() { if eval "$1"; then say "ok   $2"; else say "FAIL $2"; FAILS=$((FAILS + 1)); fi; }
FAILS=0
nd_binary build-device-ras || { say "FAIL no nccl-doctor binary (see $OUT/build.log)"; exit 1; }
RASPORT=28123 # our own, so that no other job's RAS answers
cat >/tmp/nd_ras_job.py <<'PY'
import os, time, torch, torch.distributed as dist
torch.cuda.set_device(0)
dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
x = torch.ones(1 << 20, device="cuda")
dist.all_reduce(x); torch.cuda.synchronize()
print("ready nccl", ".".join(map(str, torch.cuda.nccl.version())), flush=True)
time.sleep(60)   # no output, no NCCL progress: a stall for watch
PY
# a raw RAS client: ras.py PORT COMMAND... -> the answers, as received
cat >/tmp/nd_ras_client.py <<'PY'
import socket, sys
port, cmds = int(sys.argv[1]), sys.argv[2:]
c = socket.create_connection(("127.0.0.1", port), timeout=10)
f = c.makefile("rb")
out = []
for cmd in cmds:
    c.sendall((cmd + "\n").encode())
    if cmd.upper().endswith("STATUS"):
        out.append(f.read().decode(errors="replace"))          # NCCL closes after the report
        break
    out.append(f.readline().decode(errors="replace"))
    if cmd.upper().startswith("MONITOR"):
        c.settimeout(2)
        try: out.append(c.recv(4096).decode(errors="replace"))  # events, if any
        except (socket.timeout, OSError): pass
        break
sys.stdout.write("".join(out))
PY
t0=$(date +%s.%N)
timeout 80 env RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=29631 \
  NCCL_RAS_ADDR=127.0.0.1:$RASPORT \
  "$ND_BIN" watch --stall 10 --on-stall kill --json="$OUT/watch-ras.json" -- python3 /tmp/nd_ras_job.py \
  >"$OUT/watch-ras.out" 2>"$OUT/watch-ras.txt" &
wpid=$!
for _ in $(seq 300); do grep -q '^ready' "$OUT/watch-ras.out" 2>/dev/null && break; sleep 0.1; done
sleep 1
timeout 20 python3 /tmp/nd_ras_client.py $RASPORT "CLIENT PROTOCOL 2" "TIMEOUT 2" STATUS >"$OUT/ras-status.txt" 2>&1
timeout 20 python3 /tmp/nd_ras_client.py $RASPORT "CLIENT PROTOCOL 2" "TIMEOUT 2" "VERBOSE STATUS" >"$OUT/ras-verbose-status.txt" 2>&1
timeout 20 python3 /tmp/nd_ras_client.py $RASPORT "CLIENT PROTOCOL 2" "MONITOR lifecycle,trace" >"$OUT/ras-monitor-answer.txt" 2>&1
wait $wpid
rc=$?
t1=$(date +%s.%N)
say "job: $(head -1 "$OUT/watch-ras.out"); watch exit $rc after $(awk "BEGIN{printf \"%.1f\", $t1 - $t0}") s (stall 10 s)"
check '[ $rc -eq 143 ]' "the stalled job was stopped at the stall (exit 143)"
check 'grep -q "the job looks stuck" "$OUT/watch-ras.txt"' "a stall diagnosis was printed"
check 'grep -qE "monitor +unknown \(monitor needs NCCL >= 2\.29 \(the job runs 2\.28" "$OUT/watch-ras.txt"' "watch says: monitor needs NCCL >= 2.29 (the job runs 2.28)"
check '! grep -qE "monitor +(following|not answering|reconnecting)" "$OUT/watch-ras.txt"' "and did not try the monitor"
check 'grep -qE "queried +127\.0\.0\.1:$RASPORT" "$OUT/watch-ras.txt"' "the STATUS query went to the job's NCCL_RAS_ADDR"
check 'grep -qE "NCCL \(RAS\) +2\.28" "$OUT/watch-ras.txt"' "NCCL 2.28's RAS answered STATUS (its version parsed)"
check 'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); r=d.get(\"last_stall\", d)[\"facts\"][\"ras\"]; sys.exit(not (r.get(\"monitor\") is None and \"monitor_events\" not in r and r.get(\"communicators\", 0) >= 1))" "$OUT/watch-ras.json"' "--json: no monitor, one communicator group or more from STATUS"
check 'grep -q "^SERVER PROTOCOL" "$OUT/ras-status.txt" && grep -q "NCCL version" "$OUT/ras-status.txt"' "the raw STATUS answer was recorded (ras-status.txt)"
say "NCCL 2.28 answers MONITOR with: $(sed -n 2p "$OUT/ras-monitor-answer.txt")"
check 'sed -n 2p "$OUT/ras-monitor-answer.txt" | grep -qi "^ERROR"' "NCCL 2.28 refuses MONITOR (what watch's version gate avoids)"
say "--- watch's RAS section"
grep -A14 -E "^NCCL RAS" "$OUT/watch-ras.txt" | tee -a "$S"
say "--- $FAILS failed"
[ $FAILS -eq 0 ]
