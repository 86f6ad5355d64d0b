#!/usr/bin/env bash
# nccl-doctor watch and the signals that used to leave the job unsupervised:
# SIGQUIT is passed to the job's group; SIGTSTP stops the job and watch
# together and SIGCONT continues both (SIGCONT alone is passed on too); and
# SIGKILL of watch (which nothing can catch) stops the job's whole process
# group, a grandchild and a main process that ignores SIGTERM included, and
# removes the private log directory: a guard process in the job's group
# does it when watch is gone. The guard is not one of the job's processes in
# the diagnosis.
. "$(dirname "$0")/lib.sh"
export TMPDIR="$ND_TMP"
state() { sed 's/^.*) \(.\).*$/\1/' "/proc/$1/stat" 2>/dev/null; } # R, S, T, Z or "" when gone
wait_state() { # PID REGEX: waits up to 5 s for the state of PID to match
  for _ in $(seq 100); do [[ "$(state "$1")" =~ $2 ]] && return 0; sleep 0.05; done; return 1
}
wait_file() { for _ in $(seq 200); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }
# the live members of process group $1 as "pid comm" lines
group_members() {
  local f
  for f in /proc/[0-9]*/stat; do
    awk -v g="$1" '{ s = $0; sub(/^.*\) /, "", s); split(s, a, " "); c = $0; sub(/^[^(]*\(/, "", c); sub(/\).*$/, "", c)
      if (a[3] == g && a[1] != "Z") print substr($1, 1), c }' "$f" 2>/dev/null
  done
}
WATCHES=() # watch processes started here: killed at exit if a check failed
trap 'for p in "${WATCHES[@]}"; do kill -9 "$p" 2>/dev/null; done; rm -rf "$ND_TMP"' EXIT
wait_watch() { # SECONDS: waits that long at most for watch ($W) to end; RC
  # its status, 124 when it did not end (it is killed then)
  local i
  for ((i = 0; i < $1 * 20; i++)); do [[ "$(state "$W")" =~ ^(Z|)$ ]] && break; sleep 0.05; done
  if ! [[ "$(state "$W")" =~ ^(Z|)$ ]]; then kill -9 "$W"; { wait "$W"; } 2>/dev/null; RC=124; return; fi
  wait "$W"; RC=$?
}
start_watch() { # ARGS...: watch in the background (not under timeout(1): the
  # signals go to watch itself); W its pid, JP the job's main pid
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"; rm -f "$ND_TMP/jp" "$ND_TMP/gc"
  "$ND_BIN" watch "$@" >"$OUT" 2>"$ERR" </dev/null &
  W=$!
  WATCHES+=("$W")
  wait_file "$ND_TMP/jp"; JP=$(cat "$ND_TMP/jp" 2>/dev/null)
}

# 1. SIGQUIT reaches the job (it was: watch died of it, the job went on)
start_watch -- sh -c 'trap "echo got-QUIT; exit 3" QUIT; echo $$ >"$1"; while :; do sleep 0.1; done' sh "$ND_TMP/jp"
kill -QUIT $W
wait_watch 10
expect_rc 3 "SIGQUIT to watch: passed to the job, whose status watch returns"
expect_out '^got-QUIT$' "the job handled SIGQUIT"

# 2. SIGTSTP stops the job and watch; SIGCONT continues both. The job
# passes on the lines this script writes into a FIFO (every 0.5 s while it
# runs): with --stall 2.5, the 3 s it is stopped must not count as a stall
# (the first line after SIGCONT comes 1 s later)
mkfifo "$ND_TMP/ticks"
start_watch --stall 2.5 -- sh -c 'echo $$ >"$1"; exec cat "$2"' sh "$ND_TMP/jp" "$ND_TMP/ticks"
exec 7>"$ND_TMP/ticks"
tick() { for _ in $(seq "$1"); do echo tick >&7; sleep 0.5; done; }
tick 2
kill -TSTP $W
if wait_state "$JP" '^T$'; then ok "SIGTSTP to watch: the job is stopped"; else not_ok "the job is in state '$(state "$JP")'"; fi
if wait_state "$W" '^T$'; then ok "and watch itself"; else not_ok "watch is in state '$(state "$W")'"; fi
sleep 3
kill -CONT $W
if wait_state "$JP" '^[RS]$'; then ok "SIGCONT to watch: the job runs again"; else not_ok "the job is in state '$(state "$JP")'"; fi
if wait_state "$W" '^[RS]$'; then ok "and watch"; else not_ok "watch is in state '$(state "$W")'"; fi
sleep 1
tick 4
# 3. SIGCONT alone is passed on: the job stopped by someone else continues
kill -STOP -- "-$JP"
wait_state "$JP" '^T$'
kill -CONT $W
if wait_state "$JP" '^[RS]$'; then ok "SIGCONT to watch continues a job stopped from outside"; else not_ok "the job is in state '$(state "$JP")'"; fi
tick 2
exec 7>&-
wait_watch 10
expect_rc 0 "the job ended when its input ended"
if [ "$(grep -c '^tick$' "$OUT")" -eq 8 ]; then ok "all its lines passed through"; else not_ok "$(grep -c '^tick$' "$OUT") of 8 lines"; fi
if grep -q 'looks stuck' "$ERR"; then not_ok "the time stopped was taken for a stall"; else ok "no stall reported for the time stopped"; fi

# 4. SIGKILL of watch: the job's group goes (SIGTERM, then SIGKILL for a
# main process that ignores SIGTERM), the grandchild too, and the private
# log directory is removed
mkdir "$ND_TMP/k"
TMPDIR="$ND_TMP/k" start_watch -- sh -c 'trap "" TERM; echo $$ >"$1"; sleep 300 & echo $! >"$2"; touch "${NCCL_DEBUG_FILE%/*}/nccl.x.1"; while :; do sleep 1; done' \
  sh "$ND_TMP/jp" "$ND_TMP/gc"
wait_file "$ND_TMP/gc"; GC=$(cat "$ND_TMP/gc")
if ls -d "$ND_TMP/k"/nccl-doctor-watch.* >/dev/null 2>&1; then ok "the private log directory exists while watch runs"; else not_ok "no private log directory"; fi
guard=$(group_members "$JP" | awk '$2 == "nd-job-guard" {print $1}')
if [ -n "$guard" ]; then ok "a guard process is in the job's group"; else not_ok "no guard in the job's group"; fi
kill -KILL $W
{ wait $W; } 2>/dev/null
gone=0
for _ in $(seq 200); do
  [ -z "$(state "$JP")" ] && [ -z "$(state "$GC")" ] && { gone=1; break; }
  [ "$(state "$JP")" = Z ] && [ -z "$(state "$GC")" ] && { gone=1; break; }
  sleep 0.05
done
if [ $gone = 1 ]; then ok "SIGKILL of watch: the job's main process (ignoring SIGTERM) and its grandchild are gone within 10 s"
else not_ok "still there: main $JP '$(state "$JP")', grandchild $GC '$(state "$GC")'"; kill -9 -- "-$JP" 2>/dev/null; fi
for _ in $(seq 100); do ls -d "$ND_TMP/k"/nccl-doctor-watch.* >/dev/null 2>&1 || break; sleep 0.05; done
if ls -d "$ND_TMP/k"/nccl-doctor-watch.* >/dev/null 2>&1; then not_ok "the private log directory is left"; else ok "the private log directory is removed"; fi
for _ in $(seq 100); do [ -z "$guard" ] || [ -z "$(state "$guard")" ] && break; sleep 0.05; done
if [ -n "$guard" ] && [ -n "$(state "$guard")" ]; then not_ok "the guard is left"; kill -9 "$guard"; else ok "the guard ended"; fi

# 5. a job that ends normally: the guard goes with it; the guard is not
# listed among the job's processes at a stall
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
timeout -k 5 60 "$ND_BIN" watch --stall 1 --on-stall kill -- sh -c 'echo $$ >"$1"; sleep 30' sh "$ND_TMP/jp" >"$OUT" 2>"$ERR"
RC=$?
expect_rc 143 "a stalled job stopped"
expect_err 'Processes of the job' "its processes listed"
if grep -q 'nd-job-guard' "$ERR"; then not_ok "the guard is listed as a process of the job"; else ok "the guard is not listed"; fi
JP=$(cat "$ND_TMP/jp")
left=$(group_members "$JP")
if [ -z "$left" ]; then ok "nothing left in the job's group"; else not_ok "left in the group: $(echo $left)"; fi
finish
