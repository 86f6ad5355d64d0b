#!/usr/bin/env bash
# nccl-doctor watch follows NCCL RAS's MONITOR stream (NCCL 2.29+) during the
# whole run, against a fake RAS server in Python speaking NCCL's protocol
# (NVIDIA/nccl v2.30.7-1 src/ras/client_support.cc: CLIENT PROTOCOL ->
# SERVER PROTOCOL, MONITOR GROUPS -> OK, then "[time] EVENT: peer details"
# lines): a rank that dies -> the PEER_DEAD event is said at once, named with
# its pid, node, GPU and rank in the stall diagnosis, the exit summary and
# --json; a server that only starts listening later is reached by the
# retries; a server that closes at once, answers garbage, sends garbage
# between events, never answers, or refuses MONITOR (NCCL before 2.29): watch
# goes on, says why, and never hangs; NCCL 2.28: no monitor, the STATUS query
# at the stall as before; NCCL_RAS_ENABLE=0: nothing is sent; no listener
# after the job's init: it gives up quietly. The server is started by the
# job itself, as NCCL's RAS runs inside the job's processes: watch asks only
# a listener the job holds (t140 has one that is not the job's).
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the reports (notes, evidence)
export TMPDIR="$ND_TMP"
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"

cat >"$ND_TMP/ras.py" <<'PY'
# fake NCCL RAS service: ras.py MODE PORT DELAY PIDFILE REPORT LOG
import os, socket, sys, threading, time
mode, port, delay, pidfile, report, logf = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4], open(sys.argv[5]).read(), open(sys.argv[6], "w")
lock = threading.Lock()
def log(s):
    with lock:
        logf.write(s + "\n"); logf.flush()
def now():
    return time.strftime("[%Y-%m-%d %H:%M:%S]")
def events(c):
    # the peer that dies: the job writes its pid, the event follows its death
    for _ in range(300):
        if os.path.exists(pidfile) and os.path.getsize(pidfile) > 0: break
        time.sleep(0.1)
    pid = int(open(pidfile).read())
    c.sendall(("%s PEER_NEW: Process %d on node 127.0.0.1 managing GPU 1 \n" % (now(), pid)).encode())
    for _ in range(300):
        if not os.path.exists("/proc/%d" % pid): break
        time.sleep(0.1)
    c.sendall(("%s PEER_DISCONNECTED: 127.0.0.1<41234> peer closed connection during receive operation\n" % now()).encode())
    if mode == "garbage-between":
        c.sendall(b"\x00\xff\xfe binary\n" + b"[" + b"x" * 20000 + b"\nnot an event at all\n")
    c.sendall(("%s PEER_DEAD: Process %d on node 127.0.0.1 managing GPU 1 \n" % (now(), pid)).encode())
    log("sent PEER_DEAD %d" % pid)
def serve(c):
    if mode == "close":
        log("closed"); c.close(); return
    if mode == "silent":
        log("silent"); time.sleep(60); return
    f = c.makefile("rb")
    for line in f:
        cmd = line.decode(errors="replace").rstrip("\r\n"); log(cmd)
        u = cmd.upper()
        if mode == "badproto":
            # open a moment, as a server is while it answers: one that closes
            # at once cannot be told to be the job's and is dropped unread
            c.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n"); time.sleep(2); break
        if u.startswith("CLIENT PROTOCOL "): c.sendall(b"SERVER PROTOCOL 2\n")
        elif u.startswith("TIMEOUT "): c.sendall(b"OK\n")
        elif u == "STATUS": c.sendall(report.encode()); break
        elif u.startswith("MONITOR") and mode == "old":
            c.sendall(("ERROR: Unknown command %s\n" % cmd).encode())
        elif u.startswith("MONITOR"):
            c.sendall(b"OK\n"); events(c); time.sleep(60); break
        else: c.sendall(("ERROR: Unknown command %s\n" % cmd).encode())
    c.close()
time.sleep(delay)
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port)); s.listen(8)
log("listening")
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
# free_ports N: N distinct free ports (held open together while asked)
free_ports() { python3 -c 'import socket, sys
ss = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in ss: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in ss))' "$1"; }
# start_ras MODE [DELAY]: the server the next job starts (ras_serve.sh, in
# the job) on the case's port ($RASPORT), its log $RASLOG, its pid in
# $RASPIDF; the case's files are in $C (see bg_case)
start_ras() {
  RASLOG="$C/ras-$1.log"; : >"$RASLOG"; rm -f "$C/pid1" "$RASPIDF"
  export RAS_SERVE="python3 $ND_TMP/ras.py $1 $RASPORT ${2:-0} $C/pid1 $ND_FIXTURES/ras/status-dead.txt $RASLOG"
  export RAS_LOG="$RASLOG" RAS_PIDF="$RASPIDF" RAS_WAIT=$([ "${2:-0}" = 0 ] && echo 1 || echo 0)
}
stop_ras() {
  [ -s "$RASPIDF" ] && kill "$(cat "$RASPIDF")" 2>/dev/null
  unset RAS_SERVE RAS_LOG RAS_PIDF RAS_WAIT
}
# what a job runs first: the RAS server as its own child (waiting until it
# listens unless it starts late)
cat >"$ND_TMP/ras_serve.sh" <<'SERVE'
if [ -n "${RAS_SERVE:-}" ]; then
  $RAS_SERVE </dev/null >/dev/null 2>&1 &
  echo $! >"$RAS_PIDF"
  if [ "$RAS_WAIT" = 1 ]; then for _ in $(seq 50); do grep -q listening "$RAS_LOG" && break; sleep 0.1; done; fi
fi
SERVE

# The job: rank 0 (this shell) and rank 1 (a child that dies after 1 s),
# each with its NCCL log file; $1 the NCCL version, $2 the pid file, $3
# "complete" to write Init COMPLETE lines.
cat >"$ND_TMP/job.sh" <<'JOB'
. "${0%/*}/ras_serve.sh"
dir=${NCCL_DEBUG_FILE%/*}
line() { echo "node1:$1:$1 [$2] NCCL INFO $3"; }
init() {
  line "$1" "$2" "NCCL version $V+cuda13.0"
  line "$1" "$2" "ncclCommInitRankConfig comm 0x$2 rank $2 nranks 2 cudaDev $2 nvmlDev $2 busId $((18 + $2))000 commId 0xabc - Init START"
  [ "$C" = complete ] && line "$1" "$2" "ncclCommInitRankConfig comm 0x$2 rank $2 nranks 2 cudaDev $2 nvmlDev $2 busId $((18 + $2))000 commId 0xabc localSize 2 used 1234 bytes on core 0 - Init COMPLETE"
}
V=$1 C=$3
init $$ 0 >"$dir/nccl.node1.$$"
sh -c 'echo "job: rank 1 is $$"; sleep 1' &
r1=$!
init $r1 1 >"$dir/nccl.node1.$r1"
echo $r1 >"$2.tmp"; mv "$2.tmp" "$2"
wait $r1
echo "job: rank 1 ended"
sleep "${4:-30}"
echo "job: done"
JOB
# run_watch STALL ENV... -- JOBARGS: watch with --on-stall kill and --json
run_watch() {
  local stall=$1; shift
  local envs=(); while [ "$1" != -- ]; do envs+=("$1"); shift; done; shift
  T0=$(date +%s)
  timeout 90 env "${envs[@]}" "$ND_BIN" watch --stall "$stall" --on-stall kill --json="$C/w.json" -- sh "$ND_TMP/job.sh" "$@" >"$C/out" 2>"$C/err"
  RC=$?; T1=$(date +%s)
  echo "$RC $((T1 - T0))" >"$C/rc"
}
first_line() { grep -n -m1 -E -- "$1" "$ERR" | cut -d: -f1; }
# The cases wait for their stalls (4 to 16 s, about a minute together) and
# use little CPU: they run four at a time, each in its own directory
# $ND_TMP/NAME with its own port, and are checked one after another below.
# (Not all at once: a job is silent until its server listens, and ten
# Python servers starting together on a loaded machine could take longer
# than a stall.) slot: waits for one of the four to end.
slot() { while [ "$(jobs -pr | wc -l)" -ge 4 ]; do wait -n; done; }
# bg_case NAME PORT MODE|- DELAY STALL ENV... -- JOBARGS: in the background,
# the server MODE (- none) listening on PORT after DELAY s, then run_watch
# with NCCL_RAS_ADDR at PORT; JOBARGS' word PID1 is the case's pid file
bg_case() {
  local name=$1 port=$2 mode=$3 delay=$4 stall=$5 a args=(); shift 5
  for a in "$@"; do args+=("${a//PID1/$ND_TMP/$name/pid1}"); done
  slot
  (
    C="$ND_TMP/$name"; RASPORT=$port; RASPIDF="$C/raspid"; mkdir -p "$C"
    [ "$mode" = - ] || start_ras "$mode" "$delay"
    run_watch "$stall" NCCL_RAS_ADDR="127.0.0.1:$port" "${args[@]}"
    [ "$mode" = - ] || stop_ras
  ) &
}
# use_case NAME MODE: the checks below read case NAME's files: OUT, ERR,
# RC, T1 - T0, RASLOG (the server MODE's), RASPORT, $ND_TMP/pid1
use_case() {
  C="$ND_TMP/$1"; OUT="$C/out"; ERR="$C/err"; RASLOG="$C/ras-$2.log"; RASPORT=${PORT[$1]}
  read -r RC secs <"$C/rc" || { RC=-1; secs=-1; }
  T0=0; T1=$secs
  rm -f "$ND_TMP/pid1" "$ND_TMP/w.json"
  [ -f "$C/pid1" ] && cp "$C/pid1" "$ND_TMP/pid1"
  [ -f "$C/w.json" ] && cp "$C/w.json" "$ND_TMP/w.json"
}
read -r -a ports <<<"$(free_ports 10)"
declare -A PORT=([dead]=${ports[0]} [garbage]=${ports[1]} [close]=${ports[2]} [badproto]=${ports[3]} [silent]=${ports[4]}
  [old]=${ports[5]} [v228]=${ports[6]} [off]=${ports[7]} [nolistener]=${ports[8]} [healthy]=${ports[9]})
# 1. a rank dies: the server starts listening 1.5 s after the job (the
# retries reach it), sends PEER_DEAD for rank 1's pid; stall after 4 s
bg_case dead "${PORT[dead]}" monitor 1.5 4 -- 2.29.2 PID1
# (the others start once watch follows this server: its retries reaching a
# server that starts late are timed, ten processes starting beside them
# on a loaded machine could make them miss it)
for _ in $(seq 150); do grep -q '^MONITOR' "$ND_TMP/dead/ras-monitor.log" 2>/dev/null && break; sleep 0.1; done
# the others, the longest stall first: 6. nobody ever listens, the job's
# init completed; 3. servers that do not follow; 2. garbage between the
# events; 4. NCCL 2.28; 5. RAS off
bg_case nolistener "${PORT[nolistener]}" - 0 16 -- 2.29.2 PID1 complete
for mode in close badproto silent old; do
  bg_case $mode "${PORT[$mode]}" $mode 0 7 -- 2.29.2 PID1
done
bg_case garbage "${PORT[garbage]}" garbage-between 0 6 -- 2.29.2 PID1
bg_case v228 "${PORT[v228]}" monitor 0 6 -- 2.28.9 PID1
bg_case off "${PORT[off]}" monitor 0 5 NCCL_RAS_ENABLE=0 -- 2.29.2 PID1
# 7. a healthy job with a monitor
slot
(
  C="$ND_TMP/healthy"; RASPORT=${PORT[healthy]}; RASPIDF="$C/raspid"; mkdir -p "$C"
  start_ras monitor
  timeout 60 env NCCL_RAS_ADDR="127.0.0.1:$RASPORT" "$ND_BIN" watch --stall 30 -- sh -c '. "$0"; dir=${NCCL_DEBUG_FILE%/*}; echo "node1:$$:$$ [0] NCCL INFO NCCL version 2.29.2+cuda13.0" >"$dir/nccl.node1.$$"; sleep 2; echo ok' "$ND_TMP/ras_serve.sh" >"$C/out" 2>"$C/err"
  echo "$? 0" >"$C/rc"
  stop_ras
) &
wait

# 1. a rank dies: the server starts listening 1.5 s after the job (the
# retries reach it), sends PEER_DEAD for rank 1's pid; stall after 4 s
use_case dead monitor
pid1=$(cat "$ND_TMP/pid1" 2>/dev/null)
expect_rc 143 "a rank died: the job was stopped at the stall"
if grep -q "sent PEER_DEAD $pid1" "$RASLOG"; then ok "the server sent the event (after it began listening late)"; else not_ok "no event sent"; cat "$RASLOG" | sed 's/^/    ras: /'; fi
expect_err "^nccl-doctor watch: NCCL's RAS reports process $pid1 on node 127\\.0\\.0\\.1 \\(GPU 1, rank 1\\) dead \\(PEER_DEAD at 20[0-9-]+ [0-9:]+\\)\$" "the dead peer is said at once, with its pid, node, GPU and rank"
said=$(first_line "NCCL's RAS reports process"); stuck=$(first_line 'the job looks stuck')
if [ -n "$said" ] && [ -n "$stuck" ] && [ "$said" -lt "$stuck" ]; then ok "said before the stall's diagnosis (line $said < $stuck)"; else not_ok "said at line '$said', diagnosis at '$stuck'"; fi
expect_err "ERROR +WATCH_RAS_PEER_DEAD +NCCL's RAS: process $pid1 on node 127\\.0\\.0\\.1 \\(GPU 1, rank 1\\) died \\(PEER_DEAD at " "the stall diagnosis names the dead peer from the monitor"
expect_err "RAS monitor of 127\\.0\\.0\\.1:$RASPORT: \\[20[0-9-]+ [0-9:]+\\] PEER_DEAD: process $pid1" "its evidence quotes the event"
expect_err "RAS STATUS from 127\\.0\\.0\\.1:$RASPORT: 1 process considered dead" "the STATUS at the stall joins the same finding"
if [ "$(grep -c 'ERROR *WATCH_RAS_PEER_DEAD' "$ERR")" -eq 1 ]; then ok "one finding, not two"; else not_ok "$(grep -c 'ERROR *WATCH_RAS_PEER_DEAD' "$ERR") WATCH_RAS_PEER_DEAD findings"; fi
expect_err "monitor +following 127\\.0\\.0\\.1:$RASPORT" "the section says the monitor is followed"
expect_err "PEER_DISCONNECTED" "the trace event is listed"
expect_err "^  WATCH_RAS_PEER_DEAD: NCCL's RAS: process $pid1 " "the exit summary names it"
if [ "$(grep -c -E '^(CLIENT PROTOCOL 2|MONITOR lifecycle,trace)$' "$RASLOG")" -ge 2 ]; then ok "the client sent CLIENT PROTOCOL 2 and MONITOR lifecycle,trace"; else not_ok "commands:"; sed 's/^/    ras: /' "$RASLOG"; fi
if python3 - "$ND_TMP/w.json" "$pid1" <<'PY'
import json, sys
d, pid = json.load(open(sys.argv[1])), sys.argv[2]
f = [f for f in d["findings"] if f["id"] == "WATCH_RAS_PEER_DEAD"]
ras = d["facts"]["ras"]
ev = [e for e in ras["events"] if e["event"] == "PEER_DEAD"]
sys.exit(not (len(f) == 1 and f[0]["cause"] == "peer_died_or_oom" and ("process %s " % pid) in f[0]["title"]
              and ev and ev[0]["rank"] == 1 and ras["monitor_events"] >= 3))
PY
then ok "--json: the finding (peer_died_or_oom) and the events with the rank"; else not_ok "--json lacks the monitor's finding or events"; fi
if python3 "$ND_SRC/tests/tools/validate_json.py" "$ND_SRC/docs/schema" "$ND_TMP/w.json" >"$ND_TMP/v" 2>&1; then ok "the document validates against docs/schema/watch.json"; else not_ok "schema: $(head -3 "$ND_TMP/v")"; fi

# 2. garbage between the events: skipped and counted, the event still read
use_case garbage garbage-between
expect_err "WATCH_RAS_PEER_DEAD +NCCL's RAS: process [0-9]+ on node 127\\.0\\.0\\.1 \\(GPU 1, rank 1\\) died" "garbage between events: the dead peer still found"
expect_err "RAS monitor: 3 lines that are no event were skipped" "and the garbage lines counted"

# 3. servers that do not follow: watch goes on and says why
for mode in close badproto silent old; do
  use_case $mode $mode
  expect_rc 143 "$mode: the job ran until the stall"
  within 20 $((T1 - T0)) "$mode: no hang (s)"
  expect_out '^job: rank 1 ended$' "$mode: the job's output passed through"
  case $mode in
    close) expect_err "monitor +(unknown \\(127\\.0\\.0\\.1:$RASPORT closed the connection before MONITOR's answer 5 times|not answering yet)" "close: said"
      n=$(grep -c closed "$RASLOG"); if [ "$n" -le 6 ]; then ok "close: $n connections, no busy loop"; else not_ok "close: $n connections"; fi;;
    badproto) expect_err "monitor +unknown \\(127\\.0\\.0\\.1:$RASPORT is not a RAS monitor: it answered 'HTTP/1\\.1 400 Bad Request'\\)" "garbage answer: said";;
    silent) expect_err "monitor +unknown \\(127\\.0\\.0\\.1:$RASPORT: no answer in time\\)" "silent: gave up after its answer deadline";;
    old) expect_err "monitor +unknown \\(127\\.0\\.0\\.1:$RASPORT is not a RAS monitor: it answered 'ERROR: Unknown command MONITOR lifecycle,trace'\\)" "MONITOR refused: said"
      expect_err "WATCH_RAS_PEER_DEAD .*1 process considered dead" "MONITOR refused: the STATUS query at the stall still answers";;
  esac
  if grep -q 'WATCH_RAS_PEER_DEAD +NCCL.s RAS: process' "$ERR"; then not_ok "$mode: a dead peer from nowhere"; else ok "$mode: no dead peer invented"; fi
done

# 4. NCCL 2.28: no monitor, STATUS at the stall as before
use_case v228 monitor
expect_err 'monitor +unknown \(monitor needs NCCL >= 2\.29 \(the job runs 2\.28\.9\+cuda13\.0\); RAS STATUS is asked at a stall\)' "NCCL 2.28: the monitor is not tried, and it says so"
if [ "$(tr '\n' '|' <"$RASLOG")" = "listening|CLIENT PROTOCOL 2|TIMEOUT 2|STATUS|" ]; then ok "NCCL 2.28: only the STATUS query was sent"; else not_ok "NCCL 2.28: $(tr '\n' '|' <"$RASLOG")"; fi
expect_err 'WATCH_RAS_PEER_DEAD .*1 process considered dead' "NCCL 2.28: STATUS's dead process is the finding"

# 5. RAS off: nothing sent
use_case off monitor
expect_err 'monitor +unknown \(off in the job \(NCCL_RAS_ENABLE=0\)\)' "NCCL_RAS_ENABLE=0: said"
if [ "$(tr '\n' '|' <"$RASLOG")" = "listening|" ]; then ok "NCCL_RAS_ENABLE=0: nothing was sent"; else not_ok "RAS off: $(tr '\n' '|' <"$RASLOG")"; fi

# 6. nobody ever listens, the job's init completed: it gives up quietly
use_case nolistener -
expect_err "monitor +unknown \\(nothing answered at 127\\.0\\.0\\.1:$RASPORT after the job's init \\(Connection refused\\)\\)" "no listener after init: given up, said in the diagnosis"
if grep -q "NCCL's RAS reports" "$ERR"; then not_ok "something was said"; else ok "and nothing else was said"; fi

# 7. a healthy job with a monitor: nothing of watch's own, exit 0
use_case healthy monitor
expect_rc 0 "a healthy job under a monitor: its status"
if [ -s "$ERR" ]; then not_ok "watch printed something"; sed 's/^/    err: /' "$ERR" | head -5; else ok "nothing of watch's own on stderr"; fi
if grep -q '^MONITOR lifecycle,trace$' "$RASLOG"; then ok "and the monitor was followed"; else not_ok "no MONITOR sent"; fi
finish
