#!/bin/bash
# nccl-doctor logs on NCCL Inspector dumps and ncclras operation counts
# (issue 14 item 7): Inspector JSON lines and Prometheus files detected by
# content; per communicator the ranks with no record, the ranks behind the
# others, different collectives or sizes at the same point, and a
# communicator (or GPU) far slower than its peers; ncclras -f json and text
# counts through the same "behind the others" rule. Fixtures:
# tests/fixtures/logs/inspector (constructed from NCCL's source, see README).
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
F="$ND_FIXTURES/logs/inspector"

run_nd --json logs "$F/healthy"
expect_rc 0 "healthy dumps: 4 ranks, equal counts"
json_check 'any(f["id"] == "LOG_INSPECTOR_SUMMARY" and "4 ranks of 1 communicator" in f["title"] for f in d["findings"])' "summary: 4 ranks of 1 communicator"
json_check 'not any(f["id"] == "LOG_NO_NCCL_LINES" for f in d["findings"])' "dumps are not logs without NCCL lines"
json_check 'not d["causes"]' "healthy: no cause"

run_nd --json logs "$F/stopped-rank"
expect_rc 2 "a rank stopped 9 all-reduces before the others"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom"' "stopped rank: peer_died_or_oom first"
json_check 'any(f["id"] == "LOG_RANKS_BEHIND" and "rank 2 " in f["title"] and "#30" in f["title"] and "#39" in f["title"] for f in d["findings"])' "stopped rank: rank 2 and both counts named"
json_check 'any("30.0 s before" in e["text"] for f in d["findings"] if f["id"] == "LOG_RANKS_BEHIND" for e in f["evidence"])' "stopped rank: its dumps ended earlier"

run_nd --json logs "$F/missing-rank"
expect_rc 2 "dumps of 3 of 4 ranks"
json_check 'any(f["id"] == "LOG_INSPECTOR_MISSING_RANKS" and "rank 3 " in f["title"] for f in d["findings"])' "missing rank: rank 3 named"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom"' "missing rank: peer_died_or_oom first"

run_nd --json logs "$F/size-mismatch"
expect_rc 2 "the same all-reduce with 16 MiB on one rank, 8 MiB on the other"
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug"' "size mismatch: collective_mismatch_app_bug first"
json_check 'any(f["id"] == "LOG_INSPECTOR_SIZE_MISMATCH" and "#7" in f["title"] and "8388608" in f["title"] for f in d["findings"])' "size mismatch: sequence number and sizes named"

run_nd --json logs "$F/crossed"
expect_rc 2 "an all-reduce on one rank where the other ran a broadcast"
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug" and d["causes"][0]["confidence"] >= 0.8' "crossed counts: collective_mismatch_app_bug"
json_check 'any(f["id"] == "LOG_OPCOUNTS_CROSSED" and "AllReduce vs Broadcast" in f["title"] for f in d["findings"])' "crossed counts: both collectives named"
json_check 'not any(f["id"] == "LOG_RANKS_BEHIND" for f in d["findings"])' "crossed counts: not called a straggler"

run_nd --json logs "$F/slow-host"
expect_rc 1 "one of three 2-rank communicators at a ninth of the others' bandwidth"
json_check 'any(f["id"] == "LOG_INSPECTOR_SLOW" and "host-c" in f["title"] and "TP Group 2" in f["title"] for f in d["findings"])' "slow: host-c and its communicator named"
json_check 'sum(f["id"] == "LOG_INSPECTOR_SLOW" for f in d["findings"]) == 1' "slow: only the slow one"
json_check 'd["causes"][0]["cause"] == "gpu_hardware"' "slow (one node): the GPU first"

run_nd --json logs "$F/prom-2.29"
expect_rc 1 "Prometheus 2.29 (per collective, with rank and coll_sn): rank 1 three behind"
json_check 'any(f["id"] == "LOG_RANKS_BEHIND" and "rank 1 " in f["title"] and "#8" in f["title"] for f in d["findings"])' "prom 2.29: rank 1 at #8 named"

run_nd --json logs "$F/prom-2.30"
expect_rc 1 "Prometheus 2.30 (aggregated per GPU): one GPU far below"
json_check 'any(f["id"] == "LOG_INSPECTOR_SLOW" and "GPU3 of node-g" in f["title"] for f in d["findings"])' "prom 2.30: GPU3 of node-g named"
json_check 'not any(f["id"] in ("LOG_RANKS_BEHIND", "LOG_INSPECTOR_MISSING_RANKS") for f in d["findings"])' "prom 2.30: no rank claims without ranks"

# ncclras: -f json counts and the text report's outlier lines, one rule
run_nd --json logs "$F/ras/ncclras-2.30-json-behind.json"
expect_rc 2 "ncclras -f json: rank 2 launched one all-reduce fewer"
json_check 'any(f["id"] == "LOG_RANKS_BEHIND" and "rank 2 " in f["title"] and "10.0.0.11" in f["title"] and "4119" in f["title"] for f in d["findings"])' "ras json: rank 2, its node and count named"
run_nd --json logs "$F/ras/ncclras-2.30-json-crossed.json"
expect_rc 2 "ncclras -f json: ahead in all-reduce, behind in broadcast"
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug" and any(f["id"] == "LOG_OPCOUNTS_CROSSED" for f in d["findings"])' "ras json crossed: collective mismatch"
run_nd --json logs "$ND_FIXTURES/logs/constructed/ncclras-2.30-opcount-mismatch.txt"
expect_rc 2 "ncclras text report with an outlier rank"
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug"' "ras text: still collective_mismatch_app_bug first"
json_check 'any(f["id"] == "LOG_RANKS_BEHIND" and "rank 6 " in f["title"] and "gpu-node-3" in f["title"] and "4119" in f["title"] for f in d["findings"])' "ras text: rank 6 on gpu-node-3 named"

# a dump mixed with a normal NCCL log: both read
run_nd --json logs "$F/stopped-rank" "$ND_FIXTURES/logs/constructed/compose-healthy-2.26.log"
json_check 'any(f["id"] == "LOG_RANKS_BEHIND" for f in d["findings"]) and len(d["ranks"]) >= 1' "dump and log together: both read"

# one file holding a dump and then a log (concatenated): the log lines stay log lines
{ head -3 "$F/stopped-rank/node-a-pid4100.log"; cat "$ND_FIXTURES/logs/constructed/compose-healthy-2.26.log"; } >"$ND_TMP/mixed.log"
run_nd --json logs "$ND_TMP/mixed.log"
json_check 'len(d["ranks"]) == 2 and any(f["id"] == "LOG_INSPECTOR_SUMMARY" and "3 records" in f["title"] for f in d["findings"])' "dump then log in one file: both read"

# the same records spaced out (no longer NCCL's compact layout: read by
# jansson, not the fast reader) give the same verdict
mkdir -p "$ND_TMP/spaced"
for f in "$F"/stopped-rank/*.log; do sed 's/":/": /g; s/,"/, "/g' "$f" >"$ND_TMP/spaced/$(basename "$f")"; done
run_nd --json logs "$ND_TMP/spaced"
json_check 'any(f["id"] == "LOG_RANKS_BEHIND" and "rank 2 " in f["title"] and "#30" in f["title"] and "#39" in f["title"] for f in d["findings"]) and not any(f["id"] == "LOG_INSPECTOR_SUMMARY" and f["severity"] != "info" for f in d["findings"])' "spaced JSON: the same finding, no unread line"

# damaged dumps: cut and bit-flipped lines are counted, never a crash
python3 - "$F/stopped-rank/node-a-pid4100.log" "$ND_TMP/dmg" <<'PY'
import os, random, sys
b = open(sys.argv[1], "rb").read()
os.makedirs(sys.argv[2], exist_ok=True)
rnd = random.Random(47)
for i in range(40):
    x = bytearray(b[: rnd.randrange(1, len(b))])
    for _ in range(rnd.randrange(0, 6)):
        x[rnd.randrange(len(x))] = rnd.choice(b'{}":,0123456789\n x')
    open(os.path.join(sys.argv[2], "d%02d.log" % i), "wb").write(bytes(x))
PY
crash=0
for f in "$ND_TMP"/dmg/*.log; do
  timeout 60 "$ND_BIN" --json logs "$f" >/dev/null 2>"$ND_TMP/err"; rc=$?
  case $rc in 0|1|2|3) ;; *) crash=$((crash + 1)); echo "    $f: rc $rc"; head -3 "$ND_TMP/err";; esac
done
[ "$crash" = 0 ] && ok "40 damaged dumps: no crash" || not_ok "$crash damaged dumps crashed"
run_nd --json logs "$ND_TMP/dmg"
json_check 'any(f["id"] == "LOG_INSPECTOR_SUMMARY" for f in d["findings"])' "damaged dumps: still read as Inspector dumps"

# ncclras's communicator table: a REAL report of NCCL 2.28.9 (one rank on the
# H200, tests/fixtures/logs/ras-real) and a constructed one with a dead peer
run_nd --json logs "$ND_FIXTURES/logs/ras-real/ncclras-2.28.9-h200-one-rank.txt"
expect_rc 0 "real ncclras report (NCCL 2.28.9, one rank): healthy"
json_check 'any(f["id"] == "LOG_NCCLRAS_COMMS" and "1 of 1 communicator group RUNNING without errors" in f["title"] for f in d["findings"])' \
  "real ncclras report: its communicator table read (1 group RUNNING, OK)"
json_check 'not any(f["id"] == "LOG_NO_NCCL_LINES" for f in d["findings"])' "an ncclras report is not a log without NCCL lines"
run_nd --json logs "$ND_FIXTURES/logs/constructed/ncclras-2.30-peer-dead.txt"
json_check 'any(f["id"] == "LOG_NCCLRAS_COMMS" and "with a problem" in f["title"] and "INCOMPLETE" in f["evidence"][0]["text"] for f in d["findings"])' \
  "ncclras table with an INCOMPLETE group: said, with the group's status"

# real dumps (the plugin of NCCL 2.28.3 under PyTorch's NCCL 2.28.9 on the H200,
# two ranks on one GPU as two NCCL nodes; fixtures README)
run_nd --json logs "$ND_FIXTURES/logs/inspector/real-h200-healthy"
expect_rc 0 "real Inspector dumps of a healthy run"
json_check 'any(f["id"] == "LOG_INSPECTOR_SUMMARY" and "88 records from 2 ranks of 1 communicator" in f["title"] for f in d["findings"])' "real healthy: 88 records, 2 ranks, 1 communicator"
json_check 'not d["causes"]' "real healthy: no cause"
run_nd --json logs "$ND_FIXTURES/logs/inspector/real-h200-stopped"
expect_rc 0 "real Inspector dumps of a run whose rank 1 exited"
json_check 'any(f["id"] == "LOG_INSPECTOR_SUMMARY" and any("2 of 2 ranks on 2 nodes" in e["text"] and "on every rank" in e["text"] for e in f["evidence"]) for f in d["findings"])' "real stopped: both ranks end at the same collective (the Inspector records only completed ones)"
finish
