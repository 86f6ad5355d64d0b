#!/usr/bin/env bash
# nccl-doctor watch at a stall, beyond the logs (t700): GPU memory and
# utilisation per rank process from the NVML worker on the fake stack
# (spinning vs idle; a hung NVML does not hold the diagnosis or the job's
# output), the kernel log since the start (--kernel-log FILE: an Xid written
# during the run is found and ranked first, one written before is not), NCCL's
# RAS STATUS from a fake RAS server speaking NCCL's protocol (dead process;
# RAS off; NCCL too old; a server that never answers), --nccl-diag gated
# on the version of the libnccl the job loads (--retry-with-fix: t702).
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the whole report (evidence, fixes, notes)
# watch's private log directories stay in ours (t700 counts those in /tmp)
export TMPDIR="$ND_TMP"
F="$ND_BUILD/tests/fakegpu"
SC="$ND_TMP/scenario.json"
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"

# A job: the fake rank launcher with 2 of 4 ranks (they wait in bootstrap);
# once they run, the job writes the scenario NVML reads, listing the rank
# processes on GPUs 0 and 1 with the utilisation given ($1: "100", "0", or
# per GPU "100,0": repeated over the GPUs).
cat >"$ND_TMP/ranks.sh" <<'JOB'
util=$1; shift
"$@" &
launcher=$!
for _ in $(seq 100); do
  pids=$(for s in /proc/[0-9]*/stat; do read -r p _ _ pp _ 2>/dev/null <"$s" && [ "$pp" = "$launcher" ] && echo "$p"; done)
  [ "$(echo $pids | wc -w)" -ge 2 ] && break
  sleep 0.1
done
procs="" g=0
for p in $launcher $pids; do
  procs="$procs${procs:+,}{\"gpu\": $((g % 2)), \"pid\": $p, \"used_mib\": $((1000 + g))}"; g=$((g + 1))
done
python3 - "$NCCL_DOCTOR_FAKEGPU_SCENARIO" "$procs" "$util" <<'PY'
import json, sys, os
path, procs, util = sys.argv[1], json.loads("[" + sys.argv[2] + "]"), [int(u) for u in sys.argv[3].split(",")]
d = json.load(open(path))
d["processes"] = procs
d["utilization"] = (util * len(d["gpus"]))[:len(d["gpus"])]
json.dump(d, open(path + ".tmp", "w")); os.rename(path + ".tmp", path)
PY
echo "job: ranks $launcher $pids"
wait
JOB
FAKE=(env NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC"
  NCCL_DOCTOR_FAKEGPU_SHM_TAG="t701-$$" NCCL_RAS_ENABLE=0)
ranks_cmd=("$ND_BIN" __worker ranks --nranks 4 --start 2 --deadline 60)

# 1. spinning: the ranks' GPUs at 100 %
cp "$ND_FIXTURES/fakegpu/nvlink8.json" "$SC"
t0=$(date +%s)
timeout 60 "${FAKE[@]}" "$ND_BIN" watch --stall 2 --on-stall kill -- sh "$ND_TMP/ranks.sh" 100 "${ranks_cmd[@]}" >"$OUT" 2>"$ERR"
RC=$?; t1=$(date +%s)
expect_rc 143 "spinning ranks: stopped at the stall"
# the ranks would run 60 s: stopped well before that is stopped at the stall
# (watch's own clock sets when; a loaded machine stretches the start)
if [ $((t1 - t0)) -le 30 ]; then ok "spinning ranks: stopped at the stall, not at the job's end ($((t1 - t0)) s)"; else not_ok "took $((t1 - t0)) s"; fi
expect_err 'GPUs of the job \(NVML\)' "the GPU section"
launcher=$(sed -n 's/^job: ranks \([0-9]*\).*/\1/p' "$OUT")
if grep -qE "^    0 +100 +.* $launcher \(1000 MiB\)" "$ERR"; then ok "GPU 0 at 100 % with the launcher's pid and memory"; else
  not_ok "GPU 0 row"; grep -A4 'GPUs of the job' "$ERR" | sed 's/^/    err: /'; fi
expect_err 'WATCH_GPU_SPINNING .*GPU 0, 1 busy' "spinning named for GPUs 0 and 1"
rm -f /dev/shm/fakenccl-t701-$$-* 2>/dev/null

# 2. idle: the same at 0 %
cp "$ND_FIXTURES/fakegpu/nvlink8.json" "$SC"
timeout 60 "${FAKE[@]}" "$ND_BIN" watch --stall 2 --on-stall kill -- sh "$ND_TMP/ranks.sh" 0 "${ranks_cmd[@]}" >"$OUT" 2>"$ERR"
RC=$?
expect_err 'WATCH_GPU_IDLE .*GPU 0, 1 idle' "idle GPUs named"
if grep -q WATCH_GPU_SPINNING "$ERR"; then not_ok "idle GPUs called spinning"; else ok "idle is not spinning"; fi
rm -f /dev/shm/fakenccl-t701-$$-* 2>/dev/null

# 2b. GPU 0 busy, GPU 1 idle: the rank on GPU 1 did not enter the collective
cp "$ND_FIXTURES/fakegpu/nvlink8.json" "$SC"
timeout 60 "${FAKE[@]}" "$ND_BIN" watch --stall 2 --on-stall kill -- sh "$ND_TMP/ranks.sh" 100,0 "${ranks_cmd[@]}" >"$OUT" 2>"$ERR"
RC=$?
expect_err 'WATCH_GPU_SPINNING .*GPU 0 busy, GPU 1 idle' "one GPU spinning, the other idle: named"
rm -f /dev/shm/fakenccl-t701-$$-* 2>/dev/null

# 3. a hung NVML: the diagnosis comes anyway, output keeps flowing, no worker left
python3 - "$ND_FIXTURES/fakegpu/nvlink8.json" "$SC" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.setdefault("faults", {})["nvml_hang"] = "nvmlDeviceGetCount"
json.dump(d, open(sys.argv[2], "w"))
PY
cat >"$ND_TMP/hang.sh" <<'JOB'
"$@" &
sleep 4.5; echo "job: still writing"; sleep 30
JOB
t0=$(date +%s)
timeout 60 "${FAKE[@]}" "$ND_BIN" watch --stall 1 -- sh "$ND_TMP/hang.sh" "${ranks_cmd[@]}" >"$OUT" 2>"$ERR" &
wpid=$!
# The fake NVML never answers: a diagnosis at all proves it was not waited
# for, and "no answer yet" (below) that it came at watch's own 3 s bound,
# not at the worker's 8 s deadline. The wall clock only guards against a
# diagnosis held for good (a loaded machine can stretch the start by seconds)
for _ in $(seq 300); do grep -q 'the job looks stuck' "$ERR" 2>/dev/null && break; sleep 0.1; done
t1=$(date +%s)
if grep -q 'the job looks stuck' "$ERR"; then ok "hung NVML: the diagnosis came ($((t1 - t0)) s)"; else not_ok "hung NVML: no diagnosis in $((t1 - t0)) s"; fi
for _ in $(seq 80); do grep -q 'still writing' "$OUT" 2>/dev/null && break; sleep 0.1; done
expect_out '^job: still writing$' "hung NVML: the job's output still passes through"
kill -TERM $wpid; wait $wpid
expect_err 'NVML +unknown \(no answer yet' "hung NVML: said, not waited for"
sleep 0.5
left=0
for d in /proc/[0-9]*; do
  tr '\0' ' ' 2>/dev/null <"$d/cmdline" | grep -q '__worker p2p-procs' && tr '\0' '\n' <"$d/environ" 2>/dev/null | grep -qx "NCCL_DOCTOR_FAKEGPU_SHM_TAG=t701-$$" && left=$((left + 1))
done
if [ $left -eq 0 ]; then ok "no NVML worker left behind"; else not_ok "$left NVML workers of watch left"; fi
rm -f /dev/shm/fakenccl-t701-$$-* 2>/dev/null

# 4. the kernel log since the start
KL="$ND_TMP/kern.log"
echo "[  100.000001] NVRM: Xid (PCI:0000:18:00): 13, pid=1, name=old, Graphics Exception: before the job" >"$KL"
cat >"$ND_TMP/xid.sh" <<JOB
dir=\${NCCL_DEBUG_FILE%/*}
p=\$\$
{ echo "node1:\$p:\$p [0] NCCL INFO NCCL version 2.28.9+cuda13.0"
  echo "node1:\$p:\$p [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0xabc - Init START"; } >"\$dir/nccl.node1.\$p"
echo "[  200.500000] NVRM: Xid (PCI:0000:2a:00): 79, pid=\$p, name=python3, GPU has fallen off the bus." >>"$KL"
sleep 30
JOB
timeout 60 env NCCL_RAS_ENABLE=0 "$ND_BIN" watch --stall 1 --on-stall kill --kernel-log "$KL" -- sh "$ND_TMP/xid.sh" >"$OUT" 2>"$ERR"
RC=$?
expect_err 'XID_79' "an Xid 79 during the run is in the diagnosis"
if grep -q 'XID_13' "$ERR"; then not_ok "an Xid from before the start was read"; else ok "what the log held before the start is not read"; fi
first=$(grep -E '^  ERROR ' "$ERR" | head -1)
case "$first" in *XID_79*) ok "the Xid 79 is the first error of the diagnosis";; *) not_ok "first error: $first";; esac
expect_err "lines since the start +1\$" "one kernel line since the start"
run_nd watch --stall 1 --on-stall kill --kernel-log "$ND_TMP/no-such-log" -- sh -c 'sleep 5'
expect_err "source +unknown \\(cannot read '$ND_TMP/no-such-log': no such file" "an unreadable --kernel-log is said in the diagnosis"

# 5. NCCL RAS: a fake RAS server speaking NCCL's protocol (src/ras/client_support.cc);
# NCCL 2.28, which has no MONITOR (t703 tests that stream). The job starts
# it, as NCCL's RAS runs inside the job: watch asks only a listener the job
# holds (t140 has one that is not the job's).
cat >"$ND_TMP/ras.py" <<'PY'
import socket, sys, time
mode, report, logf, port = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3], "a"), int(sys.argv[4])
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port)); s.listen(4)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept(); f = c.makefile("rb")
    if mode == "silent":
        time.sleep(60); continue
    for line in f:
        cmd = line.decode().rstrip("\n"); logf.write(cmd + "\n"); logf.flush()
        if cmd.upper().startswith("CLIENT PROTOCOL "): c.sendall(b"SERVER PROTOCOL 2\n")
        elif cmd.upper().startswith("TIMEOUT "): c.sendall(b"OK\n")
        elif cmd.upper() == "STATUS": c.sendall(report.encode()); break
        else: c.sendall(("ERROR: Unknown command %s\n" % cmd).encode())
    f.close(); c.close()
PY
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# start_ras MODE: the server each later job starts (RAS_SERVE) on $RASPORT
start_ras() {
  RASPORT=$(free_port); : >"$ND_TMP/ras-$1.log"
  export RAS_SERVE="python3 $ND_TMP/ras.py $1 $ND_FIXTURES/ras/status-dead.txt $ND_TMP/ras-$1.log $RASPORT"
  export RAS_READY="$ND_TMP/ras-ready"
}
stop_ras() { unset RAS_SERVE RAS_READY; }
cat >"$ND_TMP/nccljob.sh" <<'JOB'
dir=${NCCL_DEBUG_FILE%/*}
if [ -n "${RAS_SERVE:-}" ]; then
  rm -f "$RAS_READY"; $RAS_SERVE </dev/null >"$RAS_READY" 2>/dev/null &
  # output while the server starts: no stall before it listens
  for _ in $(seq 100); do [ -s "$RAS_READY" ] && break; echo "job: waiting for RAS"; sleep 0.1; done
fi
p=$$
echo "node1:$p:$p [0] NCCL INFO NCCL version $1+cuda13.0" >"$dir/nccl.node1.$p"
sleep 30
JOB
start_ras talk
run_ras() { OUT="$ND_TMP/out"; ERR="$ND_TMP/err"; timeout 60 env "$@" "$ND_BIN" watch --stall 1 --on-stall kill -- sh "$ND_TMP/nccljob.sh" "$V" >"$OUT" 2>"$ERR"; RC=$?; }
V=2.28.9; run_ras NCCL_RAS_ADDR="127.0.0.1:$RASPORT"
expect_err "queried +127\\.0\\.0\\.1:$RASPORT" "RAS queried at the job's NCCL_RAS_ADDR"
expect_err 'WATCH_RAS_PEER_DEAD .*1 process considered dead' "the dead process from RAS is a finding"
expect_err 'Process 4242 on node 10\.0\.0\.2 managing GPU 1' "and its RAS line is quoted"
if [ "$(tr '\n' '|' <"$ND_TMP/ras-talk.log")" = "CLIENT PROTOCOL 2|TIMEOUT 2|STATUS|" ]; then ok "the client sent NCCL's handshake, TIMEOUT and STATUS"; else
  not_ok "RAS commands: $(tr '\n' '|' <"$ND_TMP/ras-talk.log")"; fi
: >"$ND_TMP/ras-talk.log"
V=2.28.9; run_ras NCCL_RAS_ADDR="127.0.0.1:$RASPORT" NCCL_RAS_ENABLE=0
expect_err 'RAS +unknown \(off in the job' "NCCL_RAS_ENABLE=0: not queried"
V=2.23.4; run_ras NCCL_RAS_ADDR="127.0.0.1:$RASPORT"
expect_err 'RAS +unknown \(NCCL before 2\.24' "NCCL 2.23: no RAS"
if [ -s "$ND_TMP/ras-talk.log" ]; then not_ok "RAS was asked although off or absent"; else ok "nothing was sent to RAS then"; fi
stop_ras
start_ras silent
t0=$(date +%s)
V=2.28.9; run_ras NCCL_RAS_ADDR="127.0.0.1:$RASPORT"
t1=$(date +%s)
expect_err 'answer +unknown \(.*no complete answer in time' "a RAS server that never answers: said"
if [ $((t1 - t0)) -le 12 ]; then ok "and the stall diagnosis still came ($((t1 - t0)) s)"; else not_ok "silent RAS took $((t1 - t0)) s"; fi
stop_ras

# 6. --nccl-diag: NCCL_RUN_DIAGNOSTICS only for a libnccl of 2.31 or newer
if command -v cc >/dev/null 2>&1; then
  for v in 2.31.2 2.28.3; do
    mkdir -p "$ND_TMP/n$v"
    echo "const char nccl_version_string[] = \"NCCL version $v+cuda13.0\";" | cc -shared -fPIC -x c - -o "$ND_TMP/n$v/libnccl.so.2"
  done
  run_nd --nccl "$ND_TMP/n2.31.2/libnccl.so.2" watch --nccl-diag -- sh -c 'echo "diag=${NCCL_RUN_DIAGNOSTICS:-unset}"'
  expect_out '^diag=1$' "--nccl-diag with NCCL 2.31.2: NCCL_RUN_DIAGNOSTICS=1"
  run_nd --nccl "$ND_TMP/n2.28.3/libnccl.so.2" watch --nccl-diag -- sh -c 'echo "diag=${NCCL_RUN_DIAGNOSTICS:-unset}"'
  expect_out '^diag=unset$' "--nccl-diag with NCCL 2.28.3: not set"
  expect_err 'not available: the job loads NCCL 2\.28\.3\+cuda13\.0 .*needs 2\.31' "and it says why"
else
  ok "# skip --nccl-diag: no C compiler to build a versioned library"
fi
# 7. --retry-with-fix (the fix search on the job's GPUs, the relaunch, a
# missing rank): tests/cli/t702-watch-retry.sh
finish
