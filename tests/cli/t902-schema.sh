#!/usr/bin/env bash
# The --json output of every command on every fixture (the cases of
# tests/golden/CASES) validates against its JSON Schema in docs/schema/
# (tests/tools/validate_json.py, python3's jsonschema: Debian's
# python3-jsonschema). First proves the schemas are strict: documents with a
# fact repeated, a number as a string or a member that does not exist fail.
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
for cmd in sys topo kernel logs explain; do
  [ -f "$S/$cmd.json" ] && ok "docs/schema/$cmd.json exists" || not_ok "docs/schema/$cmd.json is missing"
done

mkdir -p "$ND_TMP/docs"
save_json() {
  local name=$1 sc=$2; shift 2
  case_run "$sc" --json "$@" >"$ND_TMP/docs/$name.json"
  n=$((n + 1))
}
n=0
case_each save_json
[ "$n" -ge 50 ] && ok "$n cases run with --json" || not_ok "only $n cases: tests/golden/CASES is damaged"
for cmd in sys topo kernel logs explain; do
  grep -l "\"command\": \"$cmd\"" "$ND_TMP/docs/"*.json >/dev/null && ok "the cases include $cmd" || not_ok "no case runs $cmd"
done
if python3 "$V" "$S" "$ND_TMP/docs/"*.json >"$ND_TMP/v" 2>&1; then ok "every document validates ($(tail -1 "$ND_TMP/v"))"
else not_ok "documents that do not validate:"; head -20 "$ND_TMP/v" | sed 's/^/    /'; fi

# the schemas are strict: each of these changed documents must fail
mutate() { # NAME SOURCE PYTHON-STATEMENT (over d)
  python3 - "$ND_TMP/docs/$2.json" "$ND_TMP/bad-$1.json" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))
PY
  if python3 "$V" "$S" "$ND_TMP/bad-$1.json" >"$ND_TMP/vb" 2>&1; then not_ok "schema accepts $1"
  elif [ $? -eq 1 ]; then ok "schema rejects $1"
  else not_ok "validator broke on $1: $(head -1 "$ND_TMP/vb")"; fi
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
finish
