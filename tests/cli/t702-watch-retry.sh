#!/usr/bin/env bash
# nccl-doctor watch --retry-with-fix on the fake GPU stack: at the first
# stall the job is stopped, the fix search (the trials of `fix`) runs on the
# job's GPUs, and the job runs once more with the configuration measured to
# work:
#  (a) the classic ACS case (pcie4-nccl-p2p-hang.json): the job's ranks (a
#      bench run) hang in their first all_reduce; the search finds
#      NCCL_P2P_LEVEL=PIX; the relaunched ranks run with it (their NCCL
#      lines show SHM between the switches), the job succeeds, watch exits 0;
#      --json=FILE holds the retry (trials, winner, relaunched, status);
#  (a2) SIGTERM during the search; (a3) GPUs left wedged by the job: no
#      search, the reset command;
#  (b) a missing rank: no search, no relaunch;
#  (c) nothing works (GPU 2 corrupts every result), on the GPUs NVML showed
#      the job's processes on (2 and 3): no relaunch, said so;
#  (d) NCCL works as given on the job's CUDA_VISIBLE_DEVICES (0,1): no
#      relaunch, the stall is not NCCL's configuration, the job's status;
#  and the usage errors of --retry-budget and --retry-fix-args.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the whole report (evidence, fixes, notes)
: "${ND_SRC:?ND_SRC must name the source tree}"
# watch's private log directories stay in ours (t700 counts those in /tmp)
export TMPDIR="$ND_TMP"
F="$ND_BUILD/tests/fakegpu"
S="$ND_FIXTURES/fakegpu"
TAG="t702-$$"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1 NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG" NCCL_RAS_ENABLE=0
unset CUDA_VISIBLE_DEVICES NCCL_P2P_LEVEL NCCL_P2P_DISABLE
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-$TAG-* 2>/dev/null' EXIT
W="$ND_TMP/watch.json"
validate() { # FILE DESCRIPTION: the document validates against docs/schema/watch.json
  if python3 "$ND_SRC/tests/tools/validate_json.py" "$ND_SRC/docs/schema" "$1" >"$ND_TMP/v" 2>&1; then ok "$2"
  else not_ok "$2: $(head -3 "$ND_TMP/v")"; fi
}
wjson() { # PYEXPR DESCRIPTION over r = the "retry" member of watch's --json
  if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); r=d.get("retry"); sys.exit(0 if eval(sys.argv[2]) else 1)' "$W" "$1" 2>"$ND_TMP/pyerr"
  then ok "$2"; else not_ok "$2: $1"; python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])).get("retry"))[:600])' "$W" 2>&1 | sed 's/^/    json: /'; fi
}

# (a) the classic case: the job's ranks hang in their first all_reduce
cat >"$ND_TMP/bench.sh" <<'JOB'
echo "run: NCCL_P2P_LEVEL=${NCCL_P2P_LEVEL:-unset}"
# the relaunched run keeps watch's --json document as it is while it runs
if [ "${NCCL_P2P_LEVEL:-}" = PIX ] && [ -n "${ND_W:-}" ]; then sleep 1; cp "$ND_W" "$ND_W.mid"; fi
exec "$ND_BIN" bench -g 4 -b 1M -e 1M -n 2 -T 100 --deadline-init 100
JOB
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json"
mkdir "$ND_TMP/logs"
t0=$(date +%s)
# the user's own NCCL_P2P_LEVEL=SYS (P2P on every path) is what hangs: the winner replaces it
ND_W="$W" NCCL_P2P_LEVEL=SYS run_nd --timeout 3 watch --stall 2 --retry-with-fix --retry-budget 60 --retry-fix-args "--max-bytes 1M" \
  --log-dir "$ND_TMP/logs" --json="$W" -- sh "$ND_TMP/bench.sh"
t1=$(date +%s)
expect_rc 0 "ACS case: relaunched with the winner, the job succeeds, watch exits with its status"
if [ "$(grep -c '^run: ' "$OUT")" -eq 2 ] && grep -q '^run: NCCL_P2P_LEVEL=SYS$' "$OUT" && grep -q '^run: NCCL_P2P_LEVEL=PIX$' "$OUT"; then
  ok "the job ran as given (the user's NCCL_P2P_LEVEL=SYS), then once with NCCL_P2P_LEVEL=PIX"; else not_ok "the runs"; sed 's/^/    out: /' "$OUT" | head; fi
expect_out '^# Out of bounds values : 0 OK' "the relaunched job's all_reduce completed with correct results"
expect_err 'the fix search on all GPUs' "the search runs on the job's GPUs (no list from the job: all)"
expect_err 'as given +- +[0-9.]+ .* HANG at size 8' "the trial table: as given HANGs"
expect_err 'NCCL_P2P_LEVEL=PIX +~[0-9]+% +[0-9.]+ +[0-9.]+ .* OK$' "the trial table: PIX works, with its busbw"
expect_err 'relaunching the job once with NCCL_P2P_LEVEL=PIX \(measured by the fix search: OK, busbw [0-9.]+ GB/s\)' "the relaunch names the measured winner"
expect_err "the winner's variables replace your NCCL_P2P_LEVEL=SYS" "it says which of the user's variables it replaced"
expect_err 'the fix search measured NCCL_P2P_LEVEL=PIX working' "the summary"
if grep -l 'via SHM' "$ND_TMP/logs"/nccl.* >/dev/null 2>&1; then
  ok "the relaunched ranks applied it: their NCCL lines show SHM between the switches"
else not_ok "no rank log shows SHM"; ls "$ND_TMP/logs" | head -3 | sed 's/^/    log: /'; fi
within 45 $((t1 - t0)) "stall, search and relaunch (s)"
wjson 'r["searched"] and r["relaunched"] and r["winner"] == "NCCL_P2P_LEVEL=PIX" and r["winner_env"] == {"NCCL_P2P_LEVEL": "PIX"}' "JSON: searched, the winner and its variables, relaunched"
wjson '[(t["configuration"], t["status"]) for t in r["trials"][:2]] == [("as given", "hang"), ("NCCL_P2P_LEVEL=PIX", "ok")] and r["trials"][1]["busbw"] > 0' "JSON: the trials with status and busbw"
wjson 'r["first_exit_code"] == 143 and r["relaunch_exit_code"] == 0 and r["gpus_from"] == "all"' "JSON: the stopped run's status, the relaunched run's status"
wjson 'r["overridden"] == ["NCCL_P2P_LEVEL=SYS"]' "JSON: the user's variable it replaced"
if python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["retry"]; sys.exit(not (r["relaunched"] and r["relaunch_exit_code"] is None and r["winner"] == "NCCL_P2P_LEVEL=PIX"))' "$W.mid" 2>/dev/null
then ok "JSON while the relaunched job runs: relaunched, its status still null"; else not_ok "the document during the relaunched run: $(head -c 300 "$W.mid" 2>&1)"; fi
validate "$W" "the document validates against docs/schema/watch.json"
rm -f /dev/shm/fakenccl-$TAG-* 2>/dev/null

# (a2) SIGTERM while the search runs (its "as given" trial hangs): watch ends
# at once with 143, and none of the search's workers is left
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
timeout 60 "$ND_BIN" --timeout 3 watch --stall 2 --retry-with-fix --retry-fix-args "--max-bytes 1M" -- sh "$ND_TMP/bench.sh" >"$OUT" 2>"$ERR" &
wpid=$!
for _ in $(seq 150); do grep -q 'fix: trying as given' "$ERR" && break; sleep 0.1; done
sleep 0.5
t0=$(date +%s)
kill -TERM $wpid
wait $wpid; RC=$?
t1=$(date +%s)
expect_rc 143 "SIGTERM during the search: watch ends with 143"
within 5 $((t1 - t0)) "SIGTERM during the search: ended in time (s)"
sleep 0.5
left=$(own_workers)
if [ -z "$left" ]; then ok "no worker of the search left"; else not_ok "workers left: $left"; kill -KILL $left 2>/dev/null; fi
if [ "$(grep -c '^run: ' "$OUT")" -eq 1 ]; then ok "the job was not relaunched"; else not_ok "the job ran $(grep -c '^run: ' "$OUT") times"; fi
rm -f /dev/shm/fakenccl-$TAG-* 2>/dev/null
unset NCCL_DOCTOR_FAKEGPU_SCENARIO

# (a3) the job wedges its GPUs (pcie4-nccl-wedge.json: the GPUs of the
# hanging pairs stay at 100 % with no process): no search, the reset command
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-wedge.json"
run_nd --timeout 3 watch --stall 2 --retry-with-fix --retry-fix-args "--max-bytes 1M" --json="$W" -- sh "$ND_TMP/bench.sh"
expect_rc 143 "wedged GPUs: not relaunched, the stopped job's status"
expect_err 'GPU 0 stays busy with no process after the job was stopped: wedged; reset it .*sudo nvidia-smi -r -i 0' "the wedged GPU and its reset command"
expect_err 'not relaunched: a GPU of the job is wedged' "it says why"
if grep -q 'the fix search on' "$ERR"; then not_ok "a search ran on wedged GPUs"; else ok "no search on wedged GPUs"; fi
wjson 'not r["searched"] and not r["relaunched"] and r["wedged_gpus"] == [0, 1, 2, 3]' "JSON: the wedged GPUs, not searched"
validate "$W" "the document validates"
rm -f /dev/shm/fakenccl-$TAG-* 2>/dev/null
unset NCCL_DOCTOR_FAKEGPU_SCENARIO

# (b) a missing rank: no NCCL variable helps, no search, no relaunch
cat >"$ND_TMP/rdzv.py" <<'PY'
import os, socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(os.environ["MASTER_PORT"]))); s.listen(8)
c = socket.create_connection(("127.0.0.1", int(os.environ["MASTER_PORT"])))
print("store up", flush=True)
time.sleep(30)
PY
port=$((20000 + ($$ + 11) % 20000))
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
timeout 60 env RANK=0 WORLD_SIZE=2 MASTER_ADDR=127.0.0.1 MASTER_PORT=$port "$ND_BIN" watch --stall 3 --on-stall kill \
  --retry-with-fix --json="$W" -- python3 "$ND_TMP/rdzv.py" >"$OUT" 2>"$ERR"; RC=$?
expect_rc 143 "a missing rank: stopped (--on-stall kill), not run again"
expect_err 'not relaunched: a rank is missing or dead.*no configuration search' "it says why"
if grep -q 'the fix search on\|relaunching' "$ERR"; then not_ok "a search ran or the job was relaunched"; else ok "no search, no relaunch"; fi
if [ "$(grep -c '^store up$' "$OUT")" -eq 1 ]; then ok "the job ran once"; else not_ok "the job ran $(grep -c '^store up$' "$OUT") times"; fi
wjson 'not r["searched"] and not r["relaunched"] and "dead" in r["why_not"] and r["relaunch_exit_code"] is None' "JSON: not searched, not relaunched, why"
validate "$W" "the document validates"

# (c) nothing works: GPU 2 corrupts every result; the job holds GPUs 2 and 3
# (the fake NVML lists its pid there while it lives), so the search runs there
python3 - "$S/nvlink8.json" "$ND_TMP/corrupt.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d.setdefault("faults", {})["nccl_corrupt"] = [2]
json.dump(d, open(sys.argv[2], "w"))
PY
cat >"$ND_TMP/holds.sh" <<'JOB'
python3 - "$NCCL_DOCTOR_FAKEGPU_SCENARIO" $$ <<'PY'
import json, os, sys
path, pid = sys.argv[1], int(sys.argv[2])
d = json.load(open(path))
d["processes"] = [{"gpu": g, "pid": pid, "used_mib": 2000, "live": True} for g in (2, 3)]
json.dump(d, open(path + ".tmp", "w")); os.rename(path + ".tmp", path)
PY
echo "run: holding GPUs 2 and 3"
sleep 60
JOB
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/corrupt.json"
run_nd --timeout 3 watch --stall 2 --retry-with-fix --retry-fix-args "--max-bytes 1M" --json="$W" -- sh "$ND_TMP/holds.sh"
expect_rc 143 "nothing works: not relaunched, the stopped job's status"
expect_err 'the fix search on GPU 2,3 \(nvml\)' "the search runs on the GPUs NVML showed the job on"
expect_err 'GPUs tried +2' "two GPUs tried"
expect_err 'as given .*WRONG' "as given: wrong results"
expect_err 'not relaunched: no configuration tried made all_reduce work on GPU 2,3' "it says nothing works"
expect_err 'FIX_NOTHING_WORKS' "the search's finding"
if [ "$(grep -c '^run: ' "$OUT")" -eq 1 ]; then ok "the job ran once"; else not_ok "the job ran $(grep -c '^run: ' "$OUT") times"; fi
wjson 'r["searched"] and not r["relaunched"] and r["winner"] is None and r["fix_exit_code"] == 2 and r["gpus"] == "2,3" and all(t["status"] in ("wrong", "error", "hang") for t in r["trials"])' "JSON: searched on 2,3, every trial failed, no winner"
validate "$W" "the document validates"
rm -f /dev/shm/fakenccl-$TAG-* 2>/dev/null

# (d) NCCL works as given on the job's GPUs (its CUDA_VISIBLE_DEVICES): the
# stall is the application's; not relaunched
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/nvlink8.json"
CUDA_VISIBLE_DEVICES=0,1 run_nd --timeout 3 watch --stall 2 --retry-with-fix --retry-fix-args "--max-bytes 1M" --json="$W" -- sh -c 'echo "run: once"; sleep 60'
expect_rc 143 "works as given: not relaunched, the stopped job's status"
expect_err 'the fix search on GPU 0,1 \(CUDA_VISIBLE_DEVICES\)' "the search runs on the job's CUDA_VISIBLE_DEVICES"
expect_err 'GPUs tried +2' "two GPUs tried"
expect_err "not relaunched: NCCL works as given on these GPUs .*NCCL's configuration is not what stalled" "it says the cause is elsewhere"
if [ "$(grep -c '^run: once$' "$OUT")" -eq 1 ]; then ok "the job ran once"; else not_ok "the job ran $(grep -c '^run: ' "$OUT") times"; fi
wjson 'r["searched"] and not r["relaunched"] and r["winner"] == "as given" and r["fix_exit_code"] == 0 and r["gpus_from"] == "CUDA_VISIBLE_DEVICES"' "JSON: as given won, not relaunched"
validate "$W" "the document validates"
rm -f /dev/shm/fakenccl-$TAG-* 2>/dev/null
unset NCCL_DOCTOR_FAKEGPU_SCENARIO

# usage: every numeric option's bad value is 64, fix's own options are refused
for args in "--retry-budget 4" "--retry-budget soon" "--retry-fix-args --budget=30" "--retry-fix-args --max-bytes=1K" \
  "--retry-fix-args --command" "--retry-fix-args --nonsense"; do
  # shellcheck disable=SC2086
  run_nd watch --retry-with-fix $args -- true
  expect_rc 64 "watch --retry-with-fix $args: usage error"
done
run_nd watch --retry-budget 60 -- true
expect_rc 64 "--retry-budget without --retry-with-fix: usage error"
expect_err 'go with --retry-with-fix' "and it says so"
run_nd watch --retry-with-fix --retry-fix-args "--max-bytes 1M --all" -- sh -c 'exit 4'
expect_rc 4 "good fix options: the job runs, its status"
finish
