#!/usr/bin/env bash
# nccl-doctor watch -- CMD: output passed through intact (checksum of a large
# binary stream on both pipes), exit status and signals passed on, no word
# from watch when the job is healthy; a stalled start diagnosed per rank from
# the NCCL log files the job writes (NCCL_DEBUG_FILE), a rendezvous port that
# nobody reached, --on-stall kill, --json; usage errors.
. "$(dirname "$0")/lib.sh"
# watch's private log directories go under this test's own folder, so that
# another run of the suite on the machine cannot be counted as a leftover
export TMPDIR="$ND_TMP"
MB=${ND_WATCH_MB:-1024}
[ -n "${ASAN_OPTIONS+x}${ND_SANITIZE:-}" ] && MB=128

# 1. passthrough: MB of random bytes on stdout, a quarter of that on stderr
src="$ND_TMP/src.bin"
head -c $((MB * 1024 * 1024)) /dev/urandom >"$src"
head -c $((MB * 256 * 1024)) /dev/urandom >"$src.err"
timeout 250 "$ND_BIN" watch -- sh -c 'cat "$1"; cat "$2" >&2' sh "$src" "$src.err" >"$ND_TMP/o.bin" 2>"$ND_TMP/e.bin"
RC=$?; ERR="$ND_TMP/e.bin"
expect_rc 0 "a ${MB} MB job"
if cmp -s "$src" "$ND_TMP/o.bin"; then ok "stdout byte for byte ($(md5sum <"$src" | cut -c1-12))"; else not_ok "stdout differs"; fi
if cmp -s "$src.err" "$ND_TMP/e.bin"; then ok "stderr byte for byte, nothing added by watch"; else not_ok "stderr differs"; fi
rm -f "$src" "$src.err" "$ND_TMP/o.bin" "$ND_TMP/e.bin"

# 2. exit status, environment, quiet on a healthy run
run_nd watch -- sh -c 'echo "debug=$NCCL_DEBUG file=${NCCL_DEBUG_FILE##*/} py=$PYTHONUNBUFFERED"; exit 7'
expect_rc 7 "the job's exit status"
expect_out '^debug=INFO file=nccl\.%h\.%p py=1$' "NCCL_DEBUG, NCCL_DEBUG_FILE and PYTHONUNBUFFERED set for the job"
OUT="$ND_TMP/out"
timeout 20 env NCCL_DEBUG=WARN "$ND_BIN" watch -- sh -c 'echo "debug=$NCCL_DEBUG"' >"$OUT" 2>"$ND_TMP/err"; RC=$?; ERR="$ND_TMP/err"
expect_out '^debug=WARN$' "the user's NCCL_DEBUG wins"
expect_err_lines 0 "nothing from watch on a healthy run"
run_nd watch -- sh -c 'kill -9 $$'
expect_rc 137 "a job killed by SIGKILL: 128+9"

# 3. signals reach the job's process group
timeout 20 "$ND_BIN" watch -- sh -c 'trap "echo got-TERM; exit 143" TERM; echo ready; while :; do sleep 0.1; done' >"$ND_TMP/out" 2>"$ND_TMP/err" &
wpid=$!
for _ in $(seq 50); do grep -q ready "$ND_TMP/out" 2>/dev/null && break; sleep 0.1; done
kill -TERM $wpid; wait $wpid; RC=$?; OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
expect_rc 143 "SIGTERM to watch: forwarded, the job's status returned"
expect_out '^got-TERM$' "the job received SIGTERM"

# 4. a stalled start: 4 ranks, ranks 2 and 3 stuck in bootstrap
cat >"$ND_TMP/job.sh" <<'JOB'
dir=${NCCL_DEBUG_FILE%/*}
for r in 0 1 2 3; do
  f="$dir/nccl.node1.$((1000 + r))"
  p=$((1000 + r))
  {
    echo "node1:$p:$p [$r] NCCL INFO cudaDriverVersion 13000"
    echo "node1:$p:$p [$r] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>"
    echo "node1:$p:$p [$r] NCCL INFO NCCL version 2.28.9+cuda13.0"
    if [ $r -lt 2 ]; then
      echo "node1:$p:$p [$r] NCCL INFO ncclCommInitRankConfig comm 0x55550$r rank $r nranks 4 cudaDev $r nvmlDev $r busId ${r}0000 commId 0xabc - Init START"
      echo "node1:$p:$p [$r] NCCL INFO comm 0x55550$r rank $r nRanks 4 nNodes 1 localRanks 4 localRank $r MNNVL 0"
    fi
  } >"$f"
done
echo "job: ranks started"
sleep 30
JOB
t0=$(date +%s)
run_nd watch --stall 1 --on-stall kill --json="$ND_TMP/diag.json" -- sh "$ND_TMP/job.sh"
t1=$(date +%s)
expect_rc 143 "--on-stall kill stops the job (SIGTERM)"
within 8 $((t1 - t0)) "diagnosed and stopped within stall + 5 s (s)"
expect_out '^job: ranks started$' "the job's output passed through"
expect_err 'the job looks stuck' "the stall is announced on stderr"
expect_err 'node1:1002 .*T1' "rank process 1002 shown stopped at T1"
expect_err 'node1:1000 .*T5' "rank 0 shown at T5"
expect_err 'Processes of the job' "the job's processes are listed"
OUT="$ND_TMP/diag.json"
json_check 'd["stalls"] == 1 and d["command"] == "watch"' "--json=FILE written with the stall count"
json_check 'any(f["id"] == "WATCH_STALL" for f in d["last_stall"]["findings"]) and d["last_stall"]["headline"]' \
  "the file written at exit keeps the stall's diagnosis (last_stall)"
run_nd watch --json "$ND_TMP/x.json" -- true
expect_rc 64 "the global --json flag: stdout is the job's"

# 5. a rendezvous that nobody reaches: world size 2, only rank 0 runs; its
# store listens and has only its own connection (as torch.distributed's does).
# --stall 4: a Python start takes over a second on a loaded machine, and a
# stall taken before the store is up would stop the job too early
cat >"$ND_TMP/rdzv.py" <<'PY'
import os, socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(os.environ["MASTER_PORT"]))); s.listen(8)
c = socket.create_connection(("127.0.0.1", int(os.environ["MASTER_PORT"])))
print("store on port", s.getsockname()[1], flush=True)
time.sleep(30)
PY
port=$((20000 + $$ % 20000))
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
timeout 60 env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$ND_BIN" watch --stall 4 --on-stall kill -- python3 "$ND_TMP/rdzv.py" >"$OUT" 2>"$ERR"; RC=$?
expect_out "^store on port $port\$" "the job's store is up"
expect_err "127\\.0\\.0\\.1:$port +1( |$)" "the store's listening port with its one connection"
expect_err 'WATCH_RANKS_NOT_STARTED .*1 of 2 ranks run on this node; rank 1 not running' "the missing rank is named"
expect_err 'python3' "the Python process is listed"

# 7. real rank processes on the fake GPU stack: a 4-rank communicator where
# only 2 ranks start; they wait in NCCL's bootstrap, writing their
# NCCL_DEBUG_FILE; the stage per rank and the libnccl they mapped are named
F="$ND_BUILD/tests/fakegpu"
t0=$(date +%s)
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
timeout 60 env NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 \
  NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/nvlink8.json" NCCL_DOCTOR_FAKEGPU_SHM_TAG="t700-$$" \
  "$ND_BIN" watch --stall 2 --on-stall kill -- "$ND_BIN" __worker ranks --nranks 4 --start 2 --deadline 60 >"$OUT" 2>"$ERR"
RC=$?; t1=$(date +%s)
expect_rc 143 "fake ranks: stopped at the stall"
within 7 $((t1 - t0)) "fake ranks: diagnosed within stall + 5 s (s)"
if [ "$(grep -cE '^  ! \? +[^ ]+:[0-9]+ .* T1 ' "$ERR")" -eq 2 ]; then ok "fake ranks: both started ranks shown stopped at T1 (bootstrap)"; else
  not_ok "fake ranks: stage per rank"; grep -E 'T[0-9]' "$ERR" | head -5 | sed 's/^/    err: /'; fi
expect_err 'fakegpu/lib/libnccl\.so\.2' "fake ranks: the libnccl each process mapped"
expect_err 'LOG_HANG_BOOTSTRAP' "fake ranks: the bootstrap hang named"
rm -f /dev/shm/fakenccl-t700-$$-* 2>/dev/null

# 6. usage
run_nd watch
expect_rc 64 "no command"
run_nd watch --stall abc -- true
expect_rc 64 "--stall abc"
run_nd watch --on-stall maybe -- true
expect_rc 64 "--on-stall maybe"
run_nd watch -- no-such-command-nccl-doctor
expect_rc 127 "a command that does not exist"
expect_err "cannot run 'no-such-command-nccl-doctor'" "and says so"
# the private log directory is gone afterwards
left=$(ls -d "${TMPDIR:-/tmp}"/nccl-doctor-watch.* 2>/dev/null | wc -l)
if [ "$left" -eq 0 ]; then ok "no private log directory left"; else not_ok "$left log directories left"; fi
finish
