#!/usr/bin/env bash
# nccl-doctor watch --retry-with-fix and a signal during the search, on the
# fake GPU stack (the ACS case of t702: the job's ranks hang, the search
# finds NCCL_P2P_LEVEL=PIX): SIGINT, SIGTERM and SIGHUP end the search's
# workers and watch (t702); a SIGQUIT (which the workers' handlers do not
# take) is honoured too: the search ends as it would, the job is not
# relaunched (the SIGQUIT must not reach a relaunched job), watch ends with
# the stopped job's status and says why.
. "$(dirname "$0")/lib.sh"
export TMPDIR="$ND_TMP"
F="$ND_BUILD/tests/fakegpu"
S="$ND_FIXTURES/fakegpu"
TAG="t136-$$"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG" NCCL_RAS_ENABLE=0
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json"
unset CUDA_VISIBLE_DEVICES NCCL_P2P_LEVEL NCCL_P2P_DISABLE
W=""
trap '[ -n "$W" ] && kill -9 "$W" 2>/dev/null; rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-$TAG-* 2>/dev/null' EXIT
cat >"$ND_TMP/bench.sh" <<'JOB'
echo "run: NCCL_P2P_LEVEL=${NCCL_P2P_LEVEL:-unset}"
exec "$ND_BIN" bench -g 4 -b 1M -e 1M -n 2 -T 100 --deadline-init 100
JOB
state() { sed 's/^.*) \(.\).*$/\1/' "/proc/$1/stat" 2>/dev/null; }
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
# not under timeout(1): the signal goes to watch itself
"$ND_BIN" --timeout 3 watch --stall 2 --retry-with-fix --retry-fix-args "--max-bytes 1M" -- sh "$ND_TMP/bench.sh" >"$OUT" 2>"$ERR" </dev/null &
W=$!
for _ in $(seq 300); do grep -q 'fix: trying as given' "$ERR" && break; sleep 0.1; done
grep -q 'fix: trying as given' "$ERR" && ok "the search started" || not_ok "the search did not start"
kill -QUIT $W
for _ in $(seq 1200); do [[ "$(state "$W")" =~ ^(Z|)$ ]] && break; sleep 0.05; done
if [[ "$(state "$W")" =~ ^(Z|)$ ]]; then wait $W; RC=$?; else kill -9 $W; { wait $W; } 2>/dev/null; RC=124; fi
W=""
expect_rc 143 "SIGQUIT during the search: watch ends with the stopped job's status"
if [ "$(grep -c '^run: ' "$OUT")" -eq 1 ]; then ok "the job was not relaunched"; else not_ok "the job ran $(grep -c '^run: ' "$OUT") times"; fi
expect_err 'not relaunched: watch received SIGQUIT during the search' "it says why"
left=$(ls -d "$ND_TMP"/nccl-doctor-watch.* 2>/dev/null | wc -l)
if [ "$left" -eq 0 ]; then ok "no private log directory left"; else not_ok "$left log directories left"; fi
finish
