#!/usr/bin/env bash
# nccl-doctor watch ends when the job's main process ends, even when
# processes it started keep its output open (`setsid x &`, `tensorboard &`):
# what the pipes hold is passed on for a short while (at most 2 s), the
# processes left running are named in one line, the status is the job's; a
# signal during that drain ends watch; --on-stall kill does not linger
# either. And a signal to watch never reaches a process that got the job's
# old pid or group id (checked in a private PID namespace, where the next pid
# can be chosen: /proc/sys/kernel/ns_last_pid).
. "$(dirname "$0")/lib.sh"
export TMPDIR="$ND_TMP"
LEFT=() # processes the jobs leave behind: killed at exit
trap 'for p in "${LEFT[@]}"; do kill "$p" 2>/dev/null; done; rm -rf "$ND_TMP"' EXIT
elapsed() { echo $(( $(date +%s%N) / 1000000 - $1 )); } # ms since $1 (ms)
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

# 5 (the part run inside the PID namespace; see below)
if [ -n "${ND_T130_PIDNS:-}" ]; then
  cat >"$ND_TMP/writer.py" <<'PY'
import sys, time
while True:
    print("tick", flush=True)
    time.sleep(0.05)
PY
  "$ND_BIN" watch -- sh -c 'echo $$ >"$1"; setsid python3 "$2" & exit 0' sh "$ND_TMP/jp" "$ND_TMP/writer.py" >"$ND_TMP/o" 2>"$ND_TMP/e" &
  W=$!
  for _ in $(seq 200); do [ -s "$ND_TMP/jp" ] && break; sleep 0.05; done
  jp=$(cat "$ND_TMP/jp" 2>/dev/null)
  [ -n "$jp" ] || { not_ok "the job did not start"; finish; exit 1; }
  # the job's pid is free again once its main process is reaped
  for _ in $(seq 300); do [ -e "/proc/$jp" ] || break; sleep 0.05; done
  [ -e "/proc/$jp" ] && { not_ok "pid $jp of the job never freed"; kill -9 $W; finish; exit 1; }
  echo $((jp - 1)) >/proc/sys/kernel/ns_last_pid 2>/dev/null || skip_all "cannot write /proc/sys/kernel/ns_last_pid"
  setsid sleep 60 &
  S=$!
  [ "$S" = "$jp" ] || { kill $S; kill -9 $W 2>/dev/null; skip_all "the sleep got pid $S, not the job's old $jp"; }
  ok "a sleep now has the job's old pid $jp and group id (watch $(kill -0 $W 2>/dev/null && echo still runs || echo has ended))"
  kill -INT $W 2>/dev/null; sleep 0.3; kill -INT $W 2>/dev/null; sleep 0.5
  if kill -0 "$S" 2>/dev/null; then ok "two SIGINTs to watch did not reach it"; else not_ok "the sleep with the job's old pid was killed"; fi
  kill -9 $W 2>/dev/null; kill "$S" 2>/dev/null
  finish
  exit
fi

# 1. a job that leaves a setsid'd process holding its output: watch ends
# within a few seconds (was: when that process ended, 20 s) with the job's
# status, naming the process
t0=$(now_ms)
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
timeout -k 5 60 "$ND_BIN" watch -- sh -c 'setsid sleep 20 & echo $! >"$1"; echo job done; exit 3' sh "$ND_TMP/bg" >"$OUT" 2>"$ERR"
RC=$?; ms=$(elapsed "$t0"); bg=$(cat "$ND_TMP/bg" 2>/dev/null); LEFT+=("$bg")
expect_rc 3 "the job's status, not the leftover's"
within 10000 "$ms" "ended after the start, not when the leftover sleep 20 ends (ms)"
expect_out '^job done$' "the job's output passed through"
expect_err "the job's main process ended \\(status 3\\); 1 process it started still runs and holds its output \\(pid $bg\\): no longer followed" \
  "the process left holding the output is named, in one line"
if kill -0 "$bg" 2>/dev/null; then ok "the leftover is not killed (it left the job's group)"; else not_ok "the leftover was killed"; fi

# 2. a leftover in the job's group that keeps writing: the output is passed
# on for at most about 2 s after the main process ended, then watch ends
t0=$(now_ms)
timeout -k 5 60 "$ND_BIN" watch -- sh -c '(while :; do echo tick; sleep 0.1; done) & echo $! >"$1"; echo started' sh "$ND_TMP/bg" >"$OUT" 2>"$ERR"
RC=$?; ms=$(elapsed "$t0"); LEFT+=("$(cat "$ND_TMP/bg" 2>/dev/null)")
expect_rc 0 "a writing leftover: the job's status"
within 10000 "$ms" "ended after the start, the drain bounded (ms)"
if [ "$(grep -c '^tick$' "$OUT")" -ge 1 ]; then ok "what the leftover wrote during the drain was passed on"; else not_ok "no tick passed on"; fi
expect_err 'still runs? and holds? its output' "the writing leftover is named"

# 3. SIGTERM during the drain ends watch (the leftover left the group and
# keeps writing: before, the SIGTERM went to the job's old group and watch
# stayed for as long as the leftover wrote)
timeout -k 5 60 "$ND_BIN" watch -- sh -c 'setsid sh -c "while :; do echo tick; sleep 0.05; done" & echo $! >"$1"; echo started' sh "$ND_TMP/bg" >"$OUT" 2>"$ERR" &
wpid=$!
for _ in $(seq 100); do grep -q started "$OUT" 2>/dev/null && break; sleep 0.05; done
LEFT+=("$(cat "$ND_TMP/bg" 2>/dev/null)")
t0=$(now_ms)
kill -TERM $wpid 2>/dev/null
wait $wpid; RC=$?; ms=$(elapsed "$t0")
expect_rc 0 "SIGTERM during the drain: watch ends with the job's status"
within 5000 "$ms" "ended after the SIGTERM (ms)"

# 4. --on-stall kill with a leftover holding the output: stopped, then ended
t0=$(now_ms)
timeout -k 5 60 "$ND_BIN" watch --stall 1 --on-stall kill -- sh -c 'setsid sleep 20 & echo $! >"$1"; echo started; sleep 30' sh "$ND_TMP/bg" >"$OUT" 2>"$ERR"
RC=$?; ms=$(elapsed "$t0"); LEFT+=("$(cat "$ND_TMP/bg" 2>/dev/null)")
expect_rc 143 "--on-stall kill: the job's status (SIGTERM)"
within 12000 "$ms" "--on-stall kill ended after the start (stall 1 s + diagnosis + drain) (ms)"

# 5. pid reuse: in a private PID namespace, the job's main process exits
# and leaves a writer holding the output (no fork in it: a python loop);
# once the job's pid is free again a `sleep` is started with exactly that
# pid, in its own group (setsid: group id = the old job's group id); two
# SIGINTs to watch must not reach it
if [ -z "${ND_T130_PIDNS:-}" ]; then
  if [ "$(id -u)" = 0 ] && unshare --pid --fork --mount-proc true 2>/dev/null; then
    ND_T130_PIDNS=1 unshare --pid --fork --mount-proc bash "$0" >"$ND_TMP/pidns.out" 2>&1
    rc=$?
    sed 's/^/  [pidns] /' "$ND_TMP/pidns.out"
    if [ $rc -eq 0 ]; then ok "pid reuse: signals to watch never reach the process that got the job's pid"
    elif [ $rc -eq 77 ]; then skip "pid reuse: $(grep -m1 SKIP "$ND_TMP/pidns.out")"
    else not_ok "pid reuse (in a PID namespace)"; fi
  else
    skip "pid reuse: needs root and unshare --pid --mount-proc"
  fi
fi
finish
