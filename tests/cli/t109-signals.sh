#!/usr/bin/env bash
# SIGINT/SIGTERM while a worker runs a hostile vendor library (issue 10
# item 5): the fake libnvidia-ml forks a helper deaf to SIGTERM and SIGINT in
# nvmlInit, then hangs. nccl-doctor must forward the signal to the worker's
# process group, wait the grace period, kill it, reap, and exit 130 / 143 /
# 129, leaving no process behind; without workers a signal still ends it
# with the same status.
. "$(dirname "$0")/lib.sh"
set -m   # background jobs keep SIGINT (a script without job control ignores it there)
FAKE="$ND_BUILD/tests/fakegpu/lib"
export NCCL_DOCTOR_LIBRARY_PATH="$FAKE" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
# alive PID: running (not gone, not a zombie)
alive() {
  [ -r "/proc/$1/stat" ] || return 1
  local st; st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
  [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]
}
for sig in TERM INT HUP; do
  case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
  pidfile="$ND_TMP/helper-$sig.pid"; rm -f "$pidfile"
  python3 - "$ND_FIXTURES/fakegpu/nvml-hang.json" "$ND_TMP/sc-$sig.json" "$pidfile" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.setdefault("faults", {})["nvml_init_fork"] = sys.argv[3]
json.dump(d, open(sys.argv[2], "w"))
PY
  export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/sc-$sig.json"
  "$ND_BIN" topo --timeout 60 >"$ND_TMP/out" 2>"$ND_TMP/err" </dev/null &
  nd=$!
  for _ in $(seq 1 100); do [ -s "$pidfile" ] && break; sleep 0.05; done
  helper=$(cat "$pidfile" 2>/dev/null)
  if [ -n "$helper" ] && alive "$helper"; then ok "SIG$sig: the hostile helper $helper runs"; else not_ok "SIG$sig: no helper started"; fi
  worker=$(ps -o pid= --ppid "$nd" | tr -d ' ' | head -1)
  t0=$(date +%s%N)
  kill -s "$sig" "$nd"
  wait "$nd"; rc=$?
  ms=$((($(date +%s%N) - t0) / 1000000))
  if [ "$rc" -eq "$want" ]; then ok "SIG$sig: exit $rc"; else not_ok "SIG$sig: exit $rc, wanted $want"; sed 's/^/    err: /' "$ND_TMP/err" | head -5; fi
  within 5000 "$ms" "SIG$sig: ended in time, grace 1 s (ms)"
  sleep 0.2
  if [ -n "$helper" ] && alive "$helper"; then not_ok "SIG$sig: helper $helper still runs"; kill -KILL "$helper" 2>/dev/null
  else ok "SIG$sig: the helper is gone"; fi
  if [ -n "$worker" ] && alive "$worker"; then not_ok "SIG$sig: worker $worker still runs"; kill -KILL "$worker" 2>/dev/null
  else ok "SIG$sig: the worker is gone"; fi
done
# no worker at all: a signal while reading a FIFO ends it with 143 too
mkfifo "$ND_TMP/fifo"
"$ND_BIN" logs --input-timeout 30 "$ND_TMP/fifo" >/dev/null 2>&1 </dev/null &
nd=$!; sleep 0.3; kill -TERM "$nd"; wait "$nd"; rc=$?
if [ "$rc" -eq 143 ]; then ok "SIGTERM without workers: exit 143"; else not_ok "SIGTERM without workers: exit $rc"; fi
finish
