#!/usr/bin/env bash
# watch asks NCCL's RAS only when the listener is the job's: a fake RAS
# server run by another local user on the port the job's NCCL_RAS_ADDR
# names (as anyone could, before NCCL binds it) forges a dead peer in its
# MONITOR stream and its STATUS report, with terminal escape codes in both.
# It must never be connected to (its log stays empty), the diagnosis says
# "RAS listener on 127.0.0.1:PORT belongs to pid N (not the job's): not
# asked", no dead peer is reported, and no escape code reaches stderr. The
# same server started by the job itself is followed, and the escape codes
# of its lines are shown as \x1b, never written raw.
. "$(dirname "$0")/lib.sh"
other_user
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
ESC=$(printf '\033')

cat >"$ND_TMP/ras.py" <<'PY'
# a RAS server that forges a dead peer: ras.py PORT LOG PIDFILE
import os, socket, sys, threading, time
port, logf = int(sys.argv[1]), open(sys.argv[2], "a")
open(sys.argv[3], "w").write("%d\n" % os.getpid())
E = "\x1b"
def log(s):
    logf.write(s + "\n"); logf.flush()
REPORT = ("NCCL version 2.29.2+cuda13.0 compiled with CUDA 13.0\n\nErrors\n======\n\nDEAD\n"
          "  1 job process is considered dead (unreachable via the RAS network)\n"
          "  Process 4242 on node 10.0.0.2 managing GPU 1 " + E + "]0;owned" + "\x07" + E + "[2J\n")
def serve(c):
    log("connected")
    for line in c.makefile("rb"):
        cmd = line.decode(errors="replace").rstrip("\r\n"); log(cmd)
        u = cmd.upper()
        if u.startswith("CLIENT PROTOCOL "): c.sendall(b"SERVER PROTOCOL 2\n")
        elif u.startswith("TIMEOUT "): c.sendall(b"OK\n")
        elif u == "STATUS": c.sendall(REPORT.encode()); break
        elif u.startswith("MONITOR"):
            c.sendall(b"OK\n")
            c.sendall(("[2026-01-01 00:00:00] PEER_DEAD: Process 4242 on node 10.0.0.2 managing GPU 1 "
                       + E + "[31mforged" + E + "[0m\n").encode())
            time.sleep(60); break
    c.close()
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port)); s.listen(8)
log("listening")
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
chmod 0644 "$ND_TMP/ras.py"
# a python the other user may run (root's own may live under /root)
OPY=
for py in "$(command -v python3)" /usr/bin/python3 /usr/local/bin/python3; do
  [ -x "$py" ] && as_other "$py" -c 'pass' </dev/null >/dev/null 2>&1 && { OPY=$py; break; }
done
[ -n "$OPY" ] || skip_all "no python3 that $OTHER may run"
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# the other user's server by its own pid (as_other may leave a shell between
# it and $!), else the user could not be removed at exit
stop_server() {
  [ -s "$pidf" ] && kill "$(cat "$pidf")" 2>/dev/null
  kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
  for _ in $(seq 50); do [ -s "$pidf" ] && [ -d "/proc/$(cat "$pidf")" ] || break; sleep 0.1; done
}
wait_listening() { for _ in $(seq 100); do grep -q listening "$1" 2>/dev/null && return 0; sleep 0.1; done; return 1; }

# the job: NCCL 2.29.2 (MONITOR and, at the stall, STATUS) or 2.28.9 (STATUS
# only); with SERVE set it starts the RAS server itself first
cat >"$ND_TMP/job.sh" <<'JOB'
if [ -n "${SERVE:-}" ]; then
  python3 "${0%/*}/ras.py" $SERVE </dev/null >/dev/null 2>&1 &
  for _ in $(seq 100); do grep -q listening "${SERVE#* }" 2>/dev/null && break; echo "job: waiting"; sleep 0.1; done
fi
dir=${NCCL_DEBUG_FILE%/*}
echo "node1:$$:$$ [0] NCCL INFO NCCL version $1+cuda13.0" >"$dir/nccl.node1.$$"
echo "node1:$$:$$ [0] NCCL INFO ncclCommInitRankConfig comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 18000 commId 0xabc - Init START" >>"$dir/nccl.node1.$$"
echo "job: started"
sleep 30
JOB

# 1. another user's server on the job's port: never asked, never trusted
for v in 2.29.2 2.28.9; do
  port=$(free_port); log="$OTHER_DIR/ras-$v.log"; pidf="$OTHER_DIR/ras-$v.pid"
  as_other "$OPY" "$ND_TMP/ras.py" "$port" "$log" "$pidf" </dev/null >/dev/null 2>&1 &
  spid=$!
  if ! wait_listening "$log"; then not_ok "$v: the other user's server did not start"; stop_server; continue; fi
  rpid=$(cat "$pidf")
  if [ "$(stat -c %U "/proc/$rpid")" = "$OTHER" ]; then ok "$v: the fake server runs as $OTHER (pid $rpid)"; else not_ok "$v: server owner $(stat -c %U "/proc/$rpid")"; fi
  timeout 60 env NCCL_RAS_ADDR="127.0.0.1:$port" "$ND_BIN" watch --stall 4 --on-stall kill --json="$ND_TMP/w.json" \
    -- sh "$ND_TMP/job.sh" "$v" >"$OUT" 2>"$ERR"
  RC=$?
  stop_server
  expect_rc 143 "$v: the job ran until the stall"
  if [ "$(tr '\n' '|' <"$log")" = "listening|" ]; then ok "$v: the other user's server was never connected to"; else
    not_ok "$v: it was asked: $(tr '\n' '|' <"$log")"; fi
  msg="RAS listener on 127\\.0\\.0\\.1:$port belongs to pid $rpid \\(not the job's\\): not asked"
  expect_err "answer +unknown \\($msg\\)" "$v: the STATUS at the stall says whose listener it is"
  [ "$v" = 2.29.2 ] && expect_err "monitor +unknown \\($msg\\)" "$v: the monitor says it too"
  if grep -q 'WATCH_RAS_PEER_DEAD\|considered dead\|forged\|RAS reports' "$ERR"; then not_ok "$v: the forged dead peer was believed"; grep -n 'DEAD\|forged' "$ERR" | head -3; else
    ok "$v: no dead peer from it"; fi
  if grep -q "$ESC" "$ERR"; then not_ok "$v: an escape code reached stderr"; else ok "$v: no escape code on stderr"; fi
  # the document written at exit: the monitor's state (2.29+; STATUS is a stall's)
  [ "$v" = 2.29.2 ] || continue
  if python3 - "$ND_TMP/w.json" "$rpid" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); ras = d["facts"]["ras"]
want = "belongs to pid %s (not the job's): not asked" % sys.argv[2]
sys.exit(not (want in json.dumps(ras) and not any(f["id"] == "WATCH_RAS_PEER_DEAD" for f in d["findings"])))
PY
  then ok "$v: --json says it, without a dead peer"; else not_ok "$v: --json: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["facts"].get("ras"))' "$ND_TMP/w.json")"; fi
done

# 2. the same server started by the job: followed; its escape codes shown
port=$(free_port); log="$ND_TMP/ras-job.log"
timeout 60 env NCCL_RAS_ADDR="127.0.0.1:$port" SERVE="$port $log $ND_TMP/ras-job.pid" "$ND_BIN" watch --stall 4 --on-stall kill \
  -- sh "$ND_TMP/job.sh" 2.29.2 >"$OUT" 2>"$ERR"
RC=$?
kill "$(cat "$ND_TMP/ras-job.pid" 2>/dev/null)" 2>/dev/null
expect_rc 143 "the job's own server: the job ran until the stall"
if grep -q '^MONITOR lifecycle,trace$' "$log"; then ok "the job's own server was followed"; else not_ok "not followed: $(tr '\n' '|' <"$log")"; fi
expect_err "^nccl-doctor watch: NCCL's RAS reports process 4242 on node 10\\.0\\.0\\.2 \\(GPU 1\\) dead" "its dead peer is said"
expect_err 'PEER_DEAD: process 4242 .*\\x1b\[31mforged\\x1b\[0m' "the escape codes of its event are shown as \\x1b"
expect_err 'Process 4242 on node 10\.0\.0\.2 managing GPU 1 \\x1b\]0;owned\\x07\\x1b\[2J' "and those of its STATUS report"
if grep -q "$ESC" "$ERR"; then not_ok "an escape code reached stderr"; grep -n "$ESC" "$ERR" | cat -v | head -3; else ok "no escape code on stderr"; fi
finish
