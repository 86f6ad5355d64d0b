#!/bin/bash
# nccl-doctor logs on PyTorch flight-recorder dumps (issue 14 item 7): JSON
# and pickle dumps detected by content, the ranks of each process group
# matched (mismatched collective, missing rank, all stuck in one started
# collective), and pickles the reader must refuse (code, damage) refused
# with exit 3 and no crash. Fixtures: tests/fixtures/logs/flight-recorder
# (constructed from PyTorch's documented format, see its README).
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
F="$ND_FIXTURES/logs/flight-recorder"

run_nd --json logs "$F/mismatch"
expect_rc 2 "JSON dumps, rank 0 issued an extra all_reduce"
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug"' "mismatch: collective_mismatch_app_bug first"
json_check 'any(f["id"] == "LOG_FR_MISMATCH" and "[[4,5]]" in f["title"] and "[[3,4]]" in f["title"] for f in d["findings"])' "mismatch: both sizes named"
json_check 'not any(f["id"] == "LOG_NO_NCCL_LINES" for f in d["findings"])' "dumps are not logs without NCCL lines"
json_check 'len([e for f in d["findings"] if f["id"] == "LOG_FR_SUMMARY" for e in f["evidence"]]) == 2' "summary: one line per rank and group"

run_nd --json logs "$F/missing-rank"
expect_rc 2 "JSON dumps of 3 of 4 ranks"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom"' "missing rank: peer_died_or_oom first"
json_check 'any(f["id"] == "LOG_FR_STRAGGLER" and "rank 2" in f["title"] for f in d["findings"])' "missing rank: rank 2 named"

run_nd --json logs "$F/all-stuck"
expect_rc 2 "JSON dumps, every rank started the same broadcast"
json_check 'any(f["id"] == "LOG_FR_ALL_STUCK" for f in d["findings"]) and d["causes"][0]["cause"] in ("p2p_pcie_acs_iommu", "gpu_hardware", "nvlink_fabric")' "all stuck: the data path, not the application"
json_check 'not any(c["cause"] == "collective_mismatch_app_bug" for c in d["causes"])' "all stuck: no mismatch claimed"

run_nd --json logs "$F/pickle"
expect_rc 2 "pickle dumps (protocol 2 and 5, torch.jit._pickle list builders)"
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug"' "pickle: the same verdict as its JSON"

# one rank's dump alone: nothing to compare, no mismatch claimed
run_nd --json logs "$F/mismatch/trace_1"
json_check 'not any(f["id"] in ("LOG_FR_MISMATCH", "LOG_FR_ALL_STUCK") for f in d["findings"])' "one dump: no cross-rank claim"
json_check 'any(f["id"] == "LOG_FR_STRAGGLER" and "rank 0" in f["title"] for f in d["findings"])' "one dump of two: the other rank has no dump"

# a compact (one-line) dump longer than --max-line is named, not misread
python3 - "$ND_TMP/big_0.json" <<'PY'
import json, sys
e = [{"collective_seq_id": i, "process_group": ["0", "default_pg"], "profiling_name": "nccl:all_reduce",
      "input_sizes": [[1024]], "input_dtypes": ["Float"], "state": "completed", "is_p2p": False} for i in range(1, 3000)]
json.dump({"version": "2.5", "pg_config": {"0": {"desc": "default_pg", "ranks": "[0, 1]"}}, "entries": e}, open(sys.argv[1], "w"))
PY
run_nd --json logs "$ND_TMP/big_0.json"
json_check 'any("--max-line" in e["text"] for f in d["findings"] if f["id"] == "LOG_FR_SUMMARY" for e in f["evidence"])' "cut JSON dump: says --max-line"
run_nd --json logs --max-line 67108864 "$ND_TMP/big_0.json"
json_check 'any(f["id"] == "LOG_FR_SUMMARY" and "1 flight-recorder dump" in f["title"] for f in d["findings"])' "--max-line: the compact dump is read"

# pickles that are refused
python3 - "$ND_TMP" <<'PY'
import os, pickle, sys
d = sys.argv[1]
class Run:
    def __reduce__(self): return (os.system, ("true",))
open(d + "/code.pkl", "wb").write(pickle.dumps({"entries": [Run()], "version": "2.5"}, protocol=2))
good = pickle.dumps({"version": "2.5", "entries": [{"collective_seq_id": 1, "state": "completed"}]}, protocol=4)
open(d + "/cut.pkl", "wb").write(good[:-7])
open(d + "/other.pkl", "wb").write(pickle.dumps({"a": [1, 2.5, None, True]}, protocol=3))
open(d + "/noise.bin", "wb").write(bytes(range(256)) * 4)
PY
run_nd logs "$ND_TMP/code.pkl"
expect_rc 3 "a pickle holding code is refused"
expect_err "posix.system.*not loaded" "it names the object and does not load it"
run_nd logs "$ND_TMP/cut.pkl"
expect_rc 3 "a truncated pickle is refused"
expect_err "truncated Python pickle" "it says truncated"
run_nd logs "$ND_TMP/other.pkl"
expect_rc 3 "a pickle that is no dump is refused"
expect_err "no flight-recorder dump" "it says so"
run_nd logs "$ND_TMP/noise.bin"
expect_rc 3 "other binary data: as before"
expect_err "binary data, not a text log" "the binary-input message"

# damaged pickles: every cut and many byte flips of a real one end cleanly
crash=0
for p in "$F/pickle/nccl_trace_rank_0" "$F/pickle/nccl_trace_rank_1"; do
  python3 - "$p" "$ND_TMP/fz" <<'PY'
import random, sys
b = open(sys.argv[1], "rb").read()
r = random.Random(14)
for i in range(40):
    x = bytearray(b)
    if i < 20:
        x = x[:r.randrange(3, len(x))]
    else:
        for _ in range(4):
            x[r.randrange(2, len(x))] = r.randrange(256)
    open("%s%02d" % (sys.argv[2], i), "wb").write(bytes(x))
PY
  for f in "$ND_TMP"/fz*; do
    timeout 20 "$ND_BIN" logs "$f" >/dev/null 2>&1
    rc=$?
    case $rc in 0|1|2|3) ;; *) crash=$((crash + 1)); echo "    $f: exit $rc" ;; esac
  done
  rm -f "$ND_TMP"/fz*
done
if [ "$crash" -eq 0 ]; then ok "80 damaged pickles end with 0-3"; else not_ok "$crash damaged pickles crashed or hung"; fi
# a real dump (PyTorch 2.11 on the H200, one rank, two all_reduce of (3, 4))
run_nd --json logs "$F/real-h200-format/nccl_trace_rank_0"
expect_rc 0 "real torch 2.11 pickle dump: read, nothing stuck"
json_check 'any(f["id"] == "LOG_FR_SUMMARY" and any("last completed nccl:all_reduce seq 2 sizes [[3,4]]" in e["text"] for e in f["evidence"]) for f in d["findings"])' "real dump: last completed all_reduce seq 2 of (3, 4)"
json_check '"cannot tell" not in d["headline"]' "real dump: the headline does not say there is nothing to tell"
# real hangs (PyTorch 2.11 / NCCL 2.28.9 on the H200, two ranks on one GPU,
# each its own NCCL_HOSTID; fixtures README): the watchdog's pickles and the
# JSON dumps taken during the hang give the same verdict
R="$F/real-h200-mismatch"
run_nd --json logs "$R/nccl_trace_rank_0" "$R/nccl_trace_rank_1"
expect_rc 2 "real mismatch (pickles)"
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug"' "real mismatch pickles: collective_mismatch_app_bug first"
json_check 'any(f["id"] == "LOG_FR_MISMATCH" and "seq 3" in f["title"] and "[[4,5]]" in f["title"] and "[[3,4]]" in f["title"] for f in d["findings"])' "real mismatch pickles: seq 3, both sizes named"
run_nd --json logs "$R/fr_json_hang_rank_0.json" "$R/fr_json_hang_rank_1.json"
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug" and any(f["id"] == "LOG_FR_MISMATCH" for f in d["findings"])' "real mismatch JSON: the same verdict"
R="$F/real-h200-missing"
run_nd --json logs "$R/nccl_trace_rank_0"
json_check 'any(f["id"] == "LOG_FR_STRAGGLER" and "no dump from rank 1" in f["title"] for f in d["findings"])' "real missing rank, its dump alone: rank 1 named as without a dump"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom"' "real missing rank, dump alone: peer_died_or_oom first"
run_nd --json logs "$R/nccl_trace_rank_0" "$R/rank0.err"
expect_rc 2 "real missing rank with rank 0's stderr"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom" and d["causes"][0]["confidence"] >= 0.7' "real missing rank + stderr: peer_died_or_oom first, strong (socket closed by the peer)"
json_check 'any(f["id"] == "LOG_PEER_CONNECTION_LOST" for f in d["findings"]) and any(f["id"] == "LOG_FR_STRAGGLER" for f in d["findings"])' "real missing rank + stderr: both the lost connection and the missing dump"
# both files of real-h200-missing/ are rank 0's (the watchdog's pickle and
# the JSON dump): one rank, not two
run_nd --json logs "$R/nccl_trace_rank_0" "$R/fr_json_hang_rank_0.json"
json_check 'any("dumps from 1; missing: 1" in e["text"] for f in d["findings"] if f["id"] == "LOG_FR_STRAGGLER" for e in f["evidence"])' "two dumps of rank 0: 'dumps from 1', not 2"
json_check 'any(e["text"].startswith("two dumps of rank 0") for f in d["findings"] if f["id"] == "LOG_FR_SUMMARY" for e in f["evidence"])' "two dumps of rank 0: said as a note"
R="$F/real-h200-straggler"
run_nd --json logs "$R/nccl_trace_rank_0" "$R/nccl_trace_rank_1"
expect_rc 2 "real straggler (rank 1 alive, never issued seq 3)"
json_check 'any(f["id"] == "LOG_FR_STRAGGLER" and "rank 1 never issued" in f["title"] and "seq 3" in f["title"] for f in d["findings"])' "real straggler: rank 1 never issued seq 3"
json_check 'not any(f["id"] in ("LOG_FR_MISMATCH", "LOG_FR_ALL_STUCK") for f in d["findings"])' "real straggler: no mismatch, not all stuck"
finish
