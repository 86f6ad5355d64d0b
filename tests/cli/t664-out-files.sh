#!/usr/bin/env bash
# --out PATH on every command: %h is the node's name (the sysroot's host
# name, or --node-name), %% a %; the file is written through a temporary
# beside it and a rename (no temporary left, the previous file replaced
# whole); nothing on stdout; a run that prints nothing writes no file; a usage error leaves the previous file as it
# was; a bad pattern, an unknown host name or a missing directory is one
# line and no file; the exit status is the command's.
. "$(dirname "$0")/lib.sh"
SR="$ND_FIXTURES/sysroot"
D="$ND_TMP/results"; mkdir "$D"
run_nd --json --out "$D/%h.json" sys --sysroot "$SR/hgx-fm-stopped"
expect_rc 2 "the command's exit status"
[ ! -s "$OUT" ] && ok "nothing on stdout" || not_ok "stdout has $(wc -c <"$OUT") bytes"
[ "$(ls -A "$D")" = "hgx-b.json" ] && ok "%h: the sysroot's host name; no temporary left" || not_ok "files: $(ls -A "$D")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(d["hostname"] != "hgx-b" or d["verdict"] != "BROKEN")' "$D/hgx-b.json" &&
  ok "the file is the whole JSON result" || not_ok "hgx-b.json: $(head -c 200 "$D/hgx-b.json")"
[ "$(stat -c %a "$D/hgx-b.json")" = 644 ] && ok "mode 0644" || not_ok "mode $(stat -c %a "$D/hgx-b.json")"

# the same node again: the file replaced whole (another inode: a rename)
ino=$(stat -c %i "$D/hgx-b.json")
run_nd --out "$D/%h.json" sys --sysroot "$SR/hgx-fm-stopped"
[ "$(stat -c %i "$D/hgx-b.json")" != "$ino" ] && ok "rewritten through a rename" || not_ok "same inode: written in place"
grep -q '^Verdict: BROKEN' "$D/hgx-b.json" && ok "text goes to the file too" || not_ok "no text report in the file"

# --node-name, %% and text to a fixed name
run_nd --node-name gpu-07 --out "$D/100%%-%h.txt" sys --sysroot "$SR/hgx-fm-healthy"
expect_rc 0 "healthy"
[ -s "$D/100%-gpu-07.txt" ] && ok "%% is a %, %h the --node-name" || not_ok "files: $(ls -A "$D")"

# a usage error of the command: the last result stays as it was
cp "$D/hgx-b.json" "$ND_TMP/before"
run_nd --out "$D/%h.json" sys --sysroot "$SR/hgx-fm-stopped" --no-such-option
expect_rc 64 "a usage error"
cmp -s "$D/hgx-b.json" "$ND_TMP/before" && [ "$(ls -A "$D" | wc -l)" -eq 2 ] && ok "the previous file is untouched, no temporary left" || not_ok "changed: $(ls -A "$D")"

# a run that says nothing on stdout (watch: its report goes to stderr;
# bench's ranks but rank 0 under mpirun) leaves no empty file behind
run_nd --out "$D/quiet.txt" watch -- true
expect_rc 0 "watch of a job that exits 0"
[ ! -e "$D/quiet.txt" ] && [ "$(ls -A "$D" | wc -l)" -eq 2 ] && ok "nothing said: no file, no temporary" || not_ok "files: $(ls -A "$D")"

# bad --out values: one line, no file
run_nd --out "$D/%x.json" sys --sysroot "$SR/hgx-fm-healthy"
expect_rc 64 "%x: a usage error"
expect_err "^nccl-doctor: --out '.*/%x.json': '%x' is neither %h nor %%$" "said"
run_nd --out "$D/%h.json" sys --sysroot "$ND_FIXTURES/sysroot/kernel-p2p"
expect_rc 64 "%h without a host name: a usage error"
expect_err "%h, but this host's name is unknown: give --node-name$" "said"
run_nd --out "$ND_TMP/absent/x.json" sys --sysroot "$SR/hgx-fm-healthy"
expect_rc 3 "a missing directory: exit 3"
expect_err "^nccl-doctor: --out: cannot write '.*/absent/x.json'" "said, before any work"
run_nd --node-name 'a/b' sys --sysroot "$SR/hgx-fm-healthy"
expect_rc 64 "--node-name with a slash: a usage error"
expect_err "option '--node-name' expects a name of letters, digits" "said"
[ "$(ls -A "$D" | wc -l)" -eq 2 ] && ok "no file written by the refused runs" || not_ok "files: $(ls -A "$D")"

# --json-out FILE: the text on stdout and, from the same run, the bytes
# --json prints; the commands of --prom only; its directory checked first
J="$ND_TMP/jo"; mkdir "$J"
run_nd --json-out "$J/r.json" sys --sysroot "$SR/hgx-fm-stopped"
expect_rc 2 "--json-out: the command's exit status"
expect_out '^Verdict: BROKEN' "--json-out: the text report on stdout"
"$ND_BIN" --json sys --sysroot "$SR/hgx-fm-stopped" >"$J/plain.json" 2>/dev/null
cmp -s "$J/r.json" "$J/plain.json" && ok "--json-out: the same bytes as --json" ||
  not_ok "--json-out differs from --json: $(diff "$J/r.json" "$J/plain.json" | head -5)"
[ "$(ls -A "$J")" = "plain.json
r.json" ] && ok "--json-out: no temporary left" || not_ok "files: $(ls -A "$J")"
run_nd --json-out "$J/l.json" logs "$ND_FIXTURES/logs/real-h200"
expect_rc 64 "--json-out on logs: a usage error"
expect_err "--json-out does not apply to this command" "said"
run_nd --json-out "$ND_TMP/absent/r.json" sys --sysroot "$SR/hgx-fm-healthy"
expect_rc 3 "--json-out into a missing directory: exit 3"
expect_err "^nccl-doctor: --json-out: cannot write '.*/absent/r.json'" "said, before any work"
[ ! -e "$J/l.json" ] && ok "--json-out: no file from a refused run" || not_ok "l.json written"
finish
