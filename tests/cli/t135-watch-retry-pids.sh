#!/usr/bin/env bash
# nccl-doctor watch --retry-with-fix stops what is left of the job after its
# group: the processes noted at the stall that left the group (setsid) get
# SIGTERM seconds later. A noted process that ended meanwhile and whose pid
# went to another process must not be signalled: the pid, the command AND
# the start time must still match (and the signal goes through a pidfd
# opened before that check). Checked in a private PID namespace, where the
# next pid can be chosen (/proc/sys/kernel/ns_last_pid): the job's main
# process ignores SIGTERM (watch then waits 5 s before SIGKILL), a `sleep 4`
# it started in its own session ends during that wait, and a new `sleep 60`
# gets its pid; it must survive. No GPU library is found (the search cannot
# run: no relaunch, which is not what this tests).
. "$(dirname "$0")/lib.sh"
export TMPDIR="$ND_TMP"

if [ -z "${ND_T135_PIDNS:-}" ]; then
  need_root
  unshare --pid --fork --mount-proc true 2>/dev/null || skip_all "unshare --pid --fork --mount-proc does not work here"
  ND_T135_PIDNS=1 unshare --pid --fork --mount-proc bash "$0"
  exit $?
fi

mkdir "$ND_TMP/nolib"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/nolib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
"$ND_BIN" watch --stall 1 --retry-with-fix -- sh -c 'trap "" TERM; setsid sleep 4 & echo $! >"$1"; echo started; sleep 60' \
  sh "$ND_TMP/left" >"$OUT" 2>"$ERR" </dev/null &
W=$!
for _ in $(seq 200); do [ -s "$ND_TMP/left" ] && break; sleep 0.05; done
L=$(cat "$ND_TMP/left" 2>/dev/null)
[ -n "$L" ] || { not_ok "the job did not start"; kill -9 $W; finish; exit 1; }
# the leftover ends (its parent, the job's shell, reaps it) while watch waits
# for the job's main process, which ignores SIGTERM
for _ in $(seq 200); do [ -e "/proc/$L" ] || break; sleep 0.05; done
[ -e "/proc/$L" ] && { not_ok "the leftover $L did not end"; kill -9 $W; finish; exit 1; }
grep -q 'stopping the job for the configuration search' "$ERR" && ok "the stall stopped the job for the search (before the leftover ended)" \
  || not_ok "the job was not being stopped when the leftover ended"
echo $((L - 1)) >/proc/sys/kernel/ns_last_pid 2>/dev/null || skip_all "cannot write /proc/sys/kernel/ns_last_pid"
setsid sleep 60 &
S=$!
[ "$S" = "$L" ] || { kill "$S"; kill -9 $W; skip_all "the new sleep got pid $S, not the leftover's $L"; }
ok "a new sleep has the leftover's pid $L"
ended() { [[ "$(sed 's/^.*) \(.\).*$/\1/' /proc/$W/stat 2>/dev/null)" =~ ^(Z|)$ ]]; }
for _ in $(seq 400); do ended && break; sleep 0.05; done
if ended; then wait $W; RC=$?; else kill -9 $W; { wait $W; } 2>/dev/null; RC=124; fi
expect_rc 137 "watch ended with the stopped job's status (SIGKILL after 5 s of ignored SIGTERM)"
expect_err 'not relaunched' "no relaunch (no GPU library)"
if kill -0 "$S" 2>/dev/null; then ok "the process that got the leftover's pid was not signalled"
else not_ok "the new sleep with the leftover's old pid was killed"; fi
kill "$S" 2>/dev/null
finish
