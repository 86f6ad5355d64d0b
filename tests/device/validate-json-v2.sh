#!/bin/bash
# Device check of issue 9's result model (schema_version 2) on a real GPU
# machine: the --json of topo, sys, kernel, logs and explain on the live
# machine validates against docs/schema/ (the CI fixtures cannot show real
# NVML answers), topo's JSON and text agree (GPU count, matrix cells), and
# topo carries each fact once. Run from the repository root:
#
#   OUT=/some/dir bash tests/device/validate-json-v2.sh            # builds build-json/
#   OUT=/some/dir ND_BIN=/path/nccl-doctor bash tests/device/validate-json-v2.sh
#
# Needs python3 with the jsonschema module (Debian: python3-jsonschema; pip
# install jsonschema). Writes under $OUT: build.log, <command>.json and .txt,
# validate.txt, summary.txt. Each command has its own timeout; the whole
# script stays under 3 minutes. Read-only. NCCL_NVLS_ENABLE=0 stays exported.
set -u
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-/tmp/nd-json-v2}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
: >"$SUMMARY"
fails=0
say() { echo "$*" | tee -a "$SUMMARY"; }
pass() { say "ok   $*"; }
fail() { say "FAIL $*"; fails=$((fails + 1)); }
unset NCCL_DOCTOR_LIBRARY_PATH NCCL_DOCTOR_LIBRARY_PATH_ONLY NCCL_DOCTOR_FAKEGPU_SCENARIO NCCL_DOCTOR_SYSROOT
say "# nccl-doctor JSON v2 device check, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(hostname)"

. tests/device/lib.sh
nd_binary build-json 150 || { fail "no nccl-doctor binary (see build.log)"; exit 1; }
python3 -c 'import jsonschema' 2>/dev/null || { fail "python3 has no jsonschema module (python3-jsonschema / pip install jsonschema)"; exit 1; }
say "binary: $ND_BIN ($("$ND_BIN" --version 2>&1)), GPU: $(timeout 20 nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"

# command words, as NAME ARGS...
run() {
  local name=$1; shift
  timeout 60 "$ND_BIN" --json "$@" >"$OUT/$name.json" 2>>"$OUT/stderr.txt"; local rj=$?
  timeout 60 "$ND_BIN" --no-color "$@" >"$OUT/$name.txt" 2>>"$OUT/stderr.txt"; local rt=$?
  if [ "$rj" -eq "$rt" ] && [ "$rj" -le 3 ]; then pass "$name: exit $rj as text and JSON"
  else fail "$name: exit $rj with --json, $rt as text"; fi
}
run topo topo
run sys sys
run kernel kernel            # /dev/kmsg: may need root; exit 3 then, still valid JSON
run logs logs tests/fixtures/logs/real-h200/torch-bad-ifname.log
run explain explain 79

if python3 tests/tools/validate_json.py docs/schema "$OUT"/{topo,sys,kernel,logs,explain}.json >"$OUT/validate.txt" 2>&1; then
  pass "every document validates against docs/schema ($(tail -1 "$OUT/validate.txt"))"
else
  fail "schema validation:"; head -20 "$OUT/validate.txt" | tee -a "$SUMMARY"
fi

# topo: JSON and text agree, and facts hold the source alone
python3 - "$OUT/topo.json" "$OUT/topo.txt" >>"$SUMMARY" 2>&1 <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1])); txt = open(sys.argv[2]).read()
bad = 0
def check(ok, what):
    global bad
    print(("ok   " if ok else "FAIL ") + "topo: " + what); bad += 0 if ok else 1
check(list(d["facts"].keys()) in ([], ["source"]), "facts hold the source alone: %s" % list(d["facts"].keys()))
n = len(d.get("gpus", []))
check(n >= 1 and d.get("matrix_source") == "nvml", "%d GPU(s), matrix from %s" % (n, d.get("matrix_source")))
check(re.search(r"^%d GPUs?" % n, txt) is not None, "the text headline counts the same GPUs")
for i, row in enumerate(d.get("matrix", [])):
    cells = [c if c is not None else "unknown" for c in row]
    # the first row labelled GPU<i> that is not the header (GPU0 GPU1 ...)
    rows = [m.group(1) for m in re.finditer(r"^\s*[*!]?\s*GPU%d\s+(.*)$" % d["gpus"][i]["index"], txt, re.M)
            if not m.group(1).startswith("GPU")]
    check(bool(rows) and rows[0].split()[:len(cells)] == cells,
          "matrix row %d as in the text: %s" % (i, " ".join(cells)))
sys.exit(1 if bad else 0)
PY
[ $? -eq 0 ] || fails=$((fails + 1))
command -v nvidia-smi >/dev/null && timeout 20 nvidia-smi topo -m >"$OUT/nvsmi-topo.txt" 2>&1
say "# $fails failure(s); outputs in $OUT"
[ "$fails" -eq 0 ]
