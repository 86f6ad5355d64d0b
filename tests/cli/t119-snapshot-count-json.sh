#!/usr/bin/env bash
# Issue 10 item 9: snapshot reports the entries its archive really holds
# (files, directories, links: the count of `tar tf`), and --json prints one
# JSON document (docs/schema/snapshot.json), also for an error; --json with
# the archive on stdout is a usage error.
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?}"
SR="$ND_FIXTURES/sysroot/h200-vm"
run_nd --sysroot "$SR" snapshot -o "$ND_TMP/s.tar"
expect_rc 0 "snapshot written"
n=$(tar tf "$ND_TMP/s.tar" | wc -l)
nf=$(tar tvf "$ND_TMP/s.tar" | grep -c '^-')
nd=$(tar tvf "$ND_TMP/s.tar" | grep -c '^d')
nl=$(tar tvf "$ND_TMP/s.tar" | grep -c '^l')
expect_err "wrote $ND_TMP/s.tar \($n entries: $nf files, $nd directories, $nl links, kernel log included\)" "stderr counts what tar lists ($n)"
[ "$n" -gt 150 ] && ok "the count is the archive's, not the probes' reads ($n)" || not_ok "only $n entries"
[ ! -s "$OUT" ] && ok "nothing on stdout without --json" || not_ok "stdout not empty without --json"

run_nd --sysroot "$SR" --json snapshot -o "$ND_TMP/s2.tar.gz"
expect_rc 0 "--json: written"
json_check "d['command'] == 'snapshot' and d['facts']['archive']['entries'] == $n and d['facts']['archive']['files'] == $nf" "--json: one document with the same counts"
json_check "d['facts']['archive']['kernel_log'] is True and d['facts']['archive']['path'].endswith('s2.tar.gz')" "--json: kernel log and path"
n2=$(tar tzf "$ND_TMP/s2.tar.gz" | wc -l)
[ "$n2" -eq "$n" ] && ok "the compressed archive holds the same $n entries" || not_ok "compressed: $n2 entries, wanted $n"
cp "$OUT" "$ND_TMP/ok.json"

run_nd --sysroot "$SR" --json snapshot -o "$ND_TMP/no/such/dir/s.tar"
expect_rc 3 "--json: unwritable output"
json_check "d['command'] == 'snapshot' and 'cannot write' in d['error']" "--json: the error as one document"
cp "$OUT" "$ND_TMP/err.json"
if python3 "$ND_SRC/tests/tools/validate_json.py" "$ND_SRC/docs/schema" "$ND_TMP/ok.json" "$ND_TMP/err.json" >"$ND_TMP/v" 2>&1
then ok "both documents validate against docs/schema/snapshot.json"; else not_ok "schema: $(head -3 "$ND_TMP/v")"; fi

run_nd --sysroot "$SR" --json snapshot -o -
expect_rc 64 "--json with the archive on stdout: usage error"
expect_err "both want stdout" "--json -o -: says why"
finish
