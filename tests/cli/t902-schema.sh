#!/usr/bin/env bash
# The --json output of every command on every fixture (the golden JSON of
# tests/golden/CASES, which t900 compares with the binary's, and the outputs
# of tests/golden/SCHEMA-CASES, which hold times and are not golden) and
# watch's --json=FILE documents (at a stall and at the exit of a small job
# writing NCCL log lines) validate against their JSON Schema in docs/schema/
# (tests/tools/validate_json.py, python3's
# jsonschema: Debian's python3-jsonschema). Then proves the schemas are
# strict: documents with a fact repeated, a number as a string or a member
# that does not exist fail.
# A missing jsonschema module is a failure, never a skip.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cases.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
: "${ND_BUILD:?ND_BUILD must name the build tree}"
V="$ND_SRC/tests/tools/validate_json.py"
S="$ND_SRC/docs/schema"
cd "$ND_SRC" || exit 1

if ! python3 -c 'import jsonschema' 2>/dev/null; then
  not_ok "the python3 module jsonschema is missing: apt-get install python3-jsonschema (pip install jsonschema)"
  finish; exit 1
fi
ok "python3 has jsonschema"
# every command of the table in src/main.c (__worker is internal) is in this
# list; snapshot's document (what the archive holds) is validated in t119
table=$(sed -n 's/^\t{ "\([a-z0-9]*\)", cmd_.*/\1/p' "$ND_SRC/src/main.c" | sort | tr '\n' ' ')
[ "$table" = "bench check explain fix kernel logs merge p2p snapshot sys topo watch " ] && ok "the schema list covers the command table" ||
  not_ok "the command table has '$table': give each a schema and a case here"
for cmd in sys topo kernel logs explain p2p check watch bench fix snapshot merge; do
  [ -f "$S/$cmd.json" ] && ok "docs/schema/$cmd.json exists" || not_ok "docs/schema/$cmd.json is missing"
done

mkdir -p "$ND_TMP/docs"
save_json() {
  local name=$1 sc=$2; shift 2
  case_run "$sc" --json "$@" >"$ND_TMP/docs/$name.json"
  n=$((n + 1))
}
# the cases of tests/golden/CASES are not run again: t900 proves the binary
# writes their golden JSON byte for byte, so the goldens are what is
# validated (its times, written N there, read back as numbers)
n=0
for f in "$ND_SRC/tests/golden/"*.json; do
  sed -E 's/("(elapsed_s|elapsed_ms|wall_ms|ms)": )N\b/\10/g' "$f" >"$ND_TMP/docs/$(basename "$f")"
  n=$((n + 1))
done
[ "$n" -ge 50 ] && ok "$n golden JSON documents" || not_ok "only $n golden JSON documents: tests/golden is damaged"
# two at a time: the cases with a hang wait out their deadlines (some 25 s
# of waiting in all, little CPU); not more, as their verdicts count the
# pairs that hung within 2 to 3 s deadlines
n=0 running=0
save_json_bg() {
  if [ "$running" -ge 2 ]; then wait -n; running=$((running - 1)); fi
  save_json "$@" &
  running=$((running + 1)) n=$((n + 1))
}
case_each save_json_bg "$ND_SRC/tests/golden/SCHEMA-CASES"
wait
[ "$n" -ge 10 ] && ok "$n schema-only cases run with --json" || not_ok "only $n cases: tests/golden/SCHEMA-CASES is damaged"
# the schema-only cases show what they are there for (not an error document)
if python3 - "$ND_TMP/docs" <<'PY'
import json, os, sys
def doc(name):
    return json.load(open(os.path.join(sys.argv[1], name + ".json")))
full, hang, one = doc("p2p-pcie4-full"), doc("p2p-pcie4-hang"), doc("p2p-one-gpu")
assert len(full["pairs"]) == 12 and full["matrices"]["ce_unidir_gbs"][0][1] > 0
assert hang["status_counts"]["HANG"] == 8 and one["pairs"] == [] and "matrices" not in one
assert doc("p2p-pcie4-busy")["gpus"][1]["state"] == "busy: skipped" and "error" in doc("p2p-no-driver")
acs = doc("check-pcie4-acs-hang")
assert acs["verdict"] == "BROKEN" and acs["p2p_test"]["status_counts"]["HANG"] == 8 and isinstance(acs["p2p"], list)
assert doc("check-no-gpu")["verdict"] == doc("check-default-no-gpu")["verdict"] == "NOTHING TO CHECK" and doc("fix-no-gpu")["verdict"] == "NOTHING TO CHECK" and doc("fix-no-gpu")["search_outcome"] == "COULD NOT RUN"
spent = doc("check-budget-spent")
assert "p2p_test" not in spent and isinstance(spent["p2p"], list) and "budget" in spent["facts"]["check"]["stages"][3]["result"]
assert doc("sys-empty-tree")["facts"]["gpus"]["pci"] is None
PY
then ok "the schema-only cases: p2p bandwidth, hang, busy, one GPU, no driver; check BROKEN, nothing to check, budget spent"
else not_ok "a schema-only case does not show what it is there for"; fi

# check on a healthy 8 x NVLink host (the H200 record with one NCCL copy, as
# in t520): HEALTHY, no causes
cp -r "$ND_SRC/tests/fixtures/sysroot/h200-vm" "$ND_TMP/clean"
python3 - "$ND_TMP/clean/.nccl-doctor/libraries.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["libraries"] = d["libraries"][:1]; d["torch"] = []
json.dump(d, open(p, "w"))
PY
case_run nvlink8 --json check --driver --sysroot "$ND_TMP/clean" --max-bytes 1M >"$ND_TMP/docs/check-healthy.json"
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); sys.exit(not (d["verdict"] == "HEALTHY" and "causes" not in d))' "$ND_TMP/docs/check-healthy.json" 2>/dev/null
then ok "check on a healthy host: HEALTHY without causes"; else not_ok "check on the healthy host is not HEALTHY"; fi

# watch: a 2-rank NCCL start where rank 1 never gets past bootstrap, with
# rank 0's rendezvous store listening (world of 2); the job copies the stall
# document while it still runs, then ends with status 1 (the exit document)
cat >"$ND_TMP/job.sh" <<'JOB'
dir=${NCCL_DEBUG_FILE%/*}
# the store first: the job prints while Python starts (seconds on a loaded
# machine), so the stall is counted from when the store listens
RANK=0 WORLD_SIZE=2 MASTER_PORT=$3 python3 -c '
import os, socket, sys, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(os.environ["MASTER_PORT"]))); s.listen(8)
c = socket.create_connection(("127.0.0.1", int(os.environ["MASTER_PORT"])))
open(sys.argv[1], "w").close()
time.sleep(30)' "$1.ready" &
store=$!
for _ in $(seq 300); do [ -e "$1.ready" ] && break; echo "job: waiting for the store"; sleep 0.2; done
for r in 0 1; do
  p=$((2000 + r))
  {
    echo "node1:$p:$p [$r] NCCL INFO cudaDriverVersion 13000"
    echo "node1:$p:$p [$r] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>"
    echo "node1:$p:$p [$r] NCCL INFO NCCL version 2.28.9+cuda13.0"
    [ $r -eq 0 ] && echo "node1:$p:$p [$r] NCCL INFO ncclCommInitRankConfig comm 0x555500 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 10000 commId 0xabc - Init START"
  } >"$dir/nccl.node1.$p"
done
echo "job: ranks started"
for _ in $(seq 300); do [ -s "$1" ] && break; sleep 0.1; done
sleep 0.3
cp "$1" "$2"
kill $store 2>/dev/null
exit 1
JOB
W="$ND_TMP/docs/watch-exit.json"
port=$((20000 + ($$ + 7) % 20000))
# TMPDIR: watch's private log directory stays in ours (t700 runs beside this
# and counts those left in /tmp)
TMPDIR="$ND_TMP" timeout 60 "$ND_BIN" watch --stall 1 --on-stall keep --json="$W" -- sh "$ND_TMP/job.sh" "$W" "$ND_TMP/docs/watch-stall.json" "$port" >/dev/null 2>&1
[ -s "$ND_TMP/docs/watch-stall.json" ] && ok "watch wrote the stall document" || not_ok "no watch document at the stall"
TMPDIR="$ND_TMP" timeout 20 "$ND_BIN" watch --json="$ND_TMP/docs/watch-no-nccl.json" -- sh -c 'exit 3' >/dev/null 2>&1
if python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); e = json.load(open(sys.argv[2])); sys.exit(not (d["stalls"] == 1 and d["hostname"] == e["hostname"] and d["reason"].startswith("nccl-doctor: ") and {"WATCH_STALL", "WATCH_RANKS_NOT_STARTED"} <= {f["id"] for f in d["findings"]} and d["facts"]["sockets"]["listening"] and "causes" in e))' "$ND_TMP/docs/watch-stall.json" "$W" 2>/dev/null
then ok "watch documents: the stall (stall count, its findings, the store's socket) and the exit, each with the node's name and reason"
else not_ok "the watch documents lack the stall, its findings, the listening socket, the node's name or the reason"; fi
[ -s "$ND_TMP/docs/watch-no-nccl.json" ] && ok "watch wrote the document of a failed job without NCCL" || not_ok "no watch document for a failed job"

for cmd in sys topo kernel logs explain p2p check watch bench fix merge; do

  grep -l "\"command\": \"$cmd\"" "$ND_TMP/docs/"*.json >/dev/null && ok "the cases include $cmd" || not_ok "no case runs $cmd"
done
if python3 "$V" "$S" "$ND_TMP/docs/"*.json >"$ND_TMP/v" 2>&1; then ok "every document validates ($(tail -1 "$ND_TMP/v"))"
else not_ok "documents that do not validate:"; head -20 "$ND_TMP/v" | sed 's/^/    /'; fi

# the schemas are strict: each of these changed documents must fail.
# mutate NAME SOURCE PYTHON-STATEMENT (over d) lists a change; mutated
# makes every document in one python3 and validates them in one call
# (jsonschema's import is most of a call's CPU), then each must be named
# among the invalid ones.
MUTS=()
mutate() { MUTS+=("$1" "$ND_TMP/docs/$2.json" "$3"); }
mutated() {
  local name made
  made=$(python3 - "$ND_TMP" "${MUTS[@]}" <<'PY'
import json, sys
for i in range(2, len(sys.argv), 3):
    name, src, stmt = sys.argv[i:i + 3]
    try:
        d = json.load(open(src))
        exec(stmt)
        json.dump(d, open("%s/bad-%s.json" % (sys.argv[1], name), "w"))
        print(name)
    except Exception as e:
        print("cannot make %s from %s: %s" % (name, src, e), file=sys.stderr)
PY
)
  python3 "$V" "$S" $(printf "$ND_TMP/bad-%s.json " $made) >"$ND_TMP/vb" 2>&1
  local rc=$?
  for ((i = 0; i < ${#MUTS[@]}; i += 3)); do
    name=${MUTS[i]}
    if ! grep -qx -- "$name" <<<"$made"; then not_ok "cannot make $name from $(basename "${MUTS[i + 1]}" .json)"
    elif [ $rc -ne 1 ] && [ $rc -ne 0 ]; then not_ok "validator broke on $name: $(head -1 "$ND_TMP/vb")"
    elif grep -q "^$ND_TMP/bad-$name.json: " "$ND_TMP/vb"; then ok "schema rejects $name"
    else not_ok "schema accepts $name"; fi
  done
}
mutate confidence-string logs-version-mismatch-both 'd["causes"][0]["confidence"] = "0.80"'
mutate causes-in-facts logs-version-mismatch-both 'd["facts"]["causes"] = {"table": []}'
mutate ranks-in-facts logs-version-mismatch-both 'd["facts"]["ranks"] = {"table": []}'
mutate logs-without-ranks logs-version-mismatch-both 'del d["ranks"]'
mutate topo-gpus-in-facts topo-nvlink8-faults 'd["facts"]["gpus"] = {"gpus": d["gpus"]}'
mutate topo-bad-matrix-cell topo-nvlink8-faults 'd["matrix"][0][1] = "NV"'
mutate unknown-member sys-pcie-4gpu-acs 'd["extra"] = 1'
mutate unknown-cause-class sys-pcie-4gpu-acs 'd["findings"][0]["cause"] = "cosmic_rays"'
mutate bad-exit-code kernel-xid-current 'd["summary"]["exit_code"] = 5'
mutate old-schema-version explain-79 'd["schema_version"] = 1'
mutate explain-entry-in-facts explain-79 'd["facts"]["entry"] = {"kind": "xid"}'
mutate sys-gpus-empty sys-empty-tree 'd["facts"]["gpus"] = {}'
mutate p2p-gbs-string p2p-pcie4-full 'd["pairs"][0]["ce_gbs"] = "%.1f" % d["pairs"][0]["ce_gbs"]'
mutate p2p-pairs-in-facts p2p-pcie4-full 'd["facts"]["pairs"] = {"pairs": []}'
mutate p2p-bad-status p2p-pcie4-hang 'd["matrices"]["status"][0][2] = "STUCK"'
mutate p2p-without-workers p2p-no-driver 'del d["workers"]'
mutate check-p2p-overwritten check-pcie4-acs-hang 'd["p2p"] = d["p2p_test"]'
mutate check-bad-verdict check-pcie4-acs-hang 'd["verdict"] = "FINE"'
mutate check-p2p-gpus-in-facts check-pcie4-acs-hang 'd["facts"]["p2p.gpus"] = {"gpus": []}'
mutate check-nothing-with-facts check-no-gpu 'd["facts"]["host"] = {"hostname": "x"}'
mutate fix-bad-verdict fix-pcie4-nccl-hang 'd["verdict"] = "FINE"'
mutate fix-busbw-as-text fix-pcie4-nccl-hang 'd["facts"]["fix"]["trials"][1]["busbw_1m"] = "8.2"'
mutate watch-stalls-string watch-stall 'd["stalls"] = str(d["stalls"])'
mutate watch-pid-string watch-stall 'd["facts"]["processes"]["processes"][0]["pid"] = "1"'
mutate watch-without-stalls watch-exit 'del d["stalls"]'
mutate merge-bad-state merge-fleet 'd["facts"]["nodes"]["nodes"][0]["state"] = "gone"'
mutate merge-action-not-a-scheduler merge-fleet-fail-on-warning 'd["actions"][0]["command"] = "reboot"'
mutate reason-with-a-quote sys-pcie-4gpu-acs 'd["reason"] = "nccl-doctor: BROKEN \"x\""'
mutate hostname-with-a-slash sys-pcie-4gpu-acs 'd["hostname"] = "a/b"'
mutated
finish
