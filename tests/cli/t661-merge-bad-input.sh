#!/usr/bin/env bash
# merge's bad input: a file that is not JSON, JSON that is not a result of
# nccl-doctor, another schema version, a merge's own output, a host name
# that is not a node name, an empty file, a FIFO, a missing file, an empty
# directory, a pattern that matches nothing; each one line naming the file
# and exit 3, never a partial report; usage errors (no file, a bad
# --expect-nodes) exit 64.
. "$(dirname "$0")/lib.sh"
SR="$ND_FIXTURES/sysroot"
G="$ND_TMP/good.json"
"$ND_BIN" --json --out "$G" sys --sysroot "$SR/hgx-fm-healthy" 2>/dev/null
printf 'not json\n' >"$ND_TMP/text.json"
printf '{"a": 1}\n' >"$ND_TMP/other.json"
: >"$ND_TMP/empty.json"
python3 - "$G" "$ND_TMP" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = sys.argv[2]
json.dump(dict(d, schema_version=3), open(t + '/old.json', 'w'))
json.dump(dict(d, hostname='x;reboot'), open(t + '/evil.json', 'w'))
e = dict(d); del e['hostname']; e['facts'] = {}
json.dump(e, open(t + '/nohost.json', 'w'))
PY
"$ND_BIN" --json merge "$G" >"$ND_TMP/merged.json" 2>/dev/null
mkfifo "$ND_TMP/fifo.json"
mkdir "$ND_TMP/none"

bad() { # FILE REGEX DESCRIPTION
  run_nd merge "$G" "$1"
  if [ "$RC" -eq 3 ] && [ ! -s "$OUT" ] && [ "$(wc -l <"$ERR")" -eq 1 ] && grep -qE -- "$2" "$ERR"; then ok "$3: $(cat "$ERR")"
  else not_ok "$3: exit $RC, stdout $(wc -c <"$OUT") bytes, stderr: $(head -3 "$ERR")"; fi
}
bad "$ND_TMP/text.json" "^nccl-doctor: merge: '.*/text.json': not JSON \(line 1: " "not JSON"
bad "$ND_TMP/other.json" "'.*/other.json': no schema_version: not a result of nccl-doctor --json$" "JSON of something else"
bad "$ND_TMP/old.json" "'.*/old.json': schema_version 3, this merge reads 4$" "another schema version"
bad "$ND_TMP/merged.json" "a result of 'merge', not of one node$" "a merge's own output"
bad "$ND_TMP/evil.json" "hostname 'x;reboot' is not a node name" "a host name a shell line would run"
bad "$ND_TMP/nohost.json" "no hostname: written without a node name \(give --node-name\)$" "no host name anywhere"
bad "$ND_TMP/empty.json" "'.*/empty.json': empty$" "an empty file"
bad "$ND_TMP/fifo.json" "'.*/fifo.json': not a regular file$" "a FIFO (not waited on)"
bad "$ND_TMP/absent.json" "cannot read '.*/absent.json': No such file or directory$" "a missing file"
bad "$ND_TMP/none" "'.*/none': a directory without \*.json files$" "an empty directory"
bad "$ND_TMP/nothing-*.json" "'.*/nothing-\*.json': no file matches$" "a pattern that matches nothing"

run_nd merge
expect_rc 64 "no file: a usage error"
expect_err "^nccl-doctor merge: no file to merge" "said"
run_nd merge --expect-nodes 'gpu[3-1]' "$G"
expect_rc 64 "a range that runs backwards: a usage error"
expect_err "^nccl-doctor merge: --expect-nodes: 'gpu\[3-1\]': a range that runs backwards$" "named"
finish
