#!/usr/bin/env bash
# Every command's --help and its option table agree: each option the parser
# accepts (the table, printed by NCCL_DOCTOR_DEBUG_OPTIONS=1 after the help)
# is named in --help, and each --option the help names is one the command
# or the global options accept. An option named in a help line as another
# command's ("p2p --quick", fix's search options in watch's
# --retry-fix-args) is checked against that command's table instead.
. "$(dirname "$0")/lib.sh"

# the checker first proves it catches both directions on made-up input
check() { # HELP_FILE LIST_FILE CMD -> the disagreements on stdout
  python3 - "$@" <<'PY'
import re, sys
help_text = open(sys.argv[1]).read()
tables = {}
for line in open(sys.argv[2]):
    m = re.match(r"nccl-doctor(?: (\S+))?: (?:global )?options: ?(.*)$", line.rstrip("\n"))
    if m:
        tables[m.group(1) or ""] = m.group(2).split()
cmd = sys.argv[3]
mine, glob = set(tables.get(cmd, [])), set(tables.get("", []))
others = {c: set(v) for c, v in tables.items() if c not in ("", cmd)}
bad = []
word = lambda o: re.search(r"(?<![A-Za-z0-9_-])" + re.escape(o) + r"(?![A-Za-z0-9_-])", help_text)
for o in sorted(mine):
    if o in ("-h", "--help"):  # every command has them; the main help says so once
        continue
    if not word(o):
        bad.append("%s: %s is accepted but not in --help" % (cmd, o))
entry = ""  # the option entry a line belongs to: "  -x, --name ..." and its indented continuation lines
for line in help_text.splitlines():
    entry = line if re.match(r" {0,4}-", line) or not line.startswith(" ") else entry + "\n" + line
    before = entry[:len(entry) - len(line)]
    for m in re.finditer(r"(?<![A-Za-z0-9_-])--[a-z][a-z0-9-]*", line):
        o = m.group(0)
        if o in mine or o in glob:
            continue
        # another command's option: "p2p --quick", "fix's search options: ... --all"
        ctx = before + line[:m.start()]
        named = [c for c in others if re.search(r"(?<![A-Za-z0-9_-])" + re.escape(c) + r"(?:'s)?(?![A-Za-z0-9_-])", ctx)]
        if named and any(o in others[c] for c in named):
            continue
        bad.append("%s: --help names %s, which is not accepted: %s" % (cmd, o, line.strip()))
for b in bad:
    print(b)
PY
}
printf 'usage: x [--alpha] [--gone]\n  see p2p --quick and fix --nope\n  --alpha   fix'"'"'s options:\n            --all, --json\n' >"$ND_TMP/h"
printf 'nccl-doctor: global options: --json\nnccl-doctor x: options: --alpha -b --beta -h --help\nnccl-doctor p2p: options: --quick\nnccl-doctor fix: options: --all\n' >"$ND_TMP/l"
check "$ND_TMP/h" "$ND_TMP/l" x >"$ND_TMP/bad"
grep -q '^x: -b is accepted but not in --help' "$ND_TMP/bad" && ok "checker: an undocumented option is caught" || not_ok "checker missed -b: $(cat "$ND_TMP/bad")"
grep -q '^x: --help names --gone, which is not accepted' "$ND_TMP/bad" && ok "checker: a documented option the parser refuses is caught" || not_ok "checker missed --gone"
grep -q 'names --all' "$ND_TMP/bad" && not_ok "checker: a cross reference on a continuation line is refused" || ok "checker: a cross reference holds for the entry's continuation lines"
grep -q 'names --nope' "$ND_TMP/bad" && ok "checker: another command's option is checked against its table" || not_ok "checker missed fix --nope"
grep -q 'names --quick\|names --json\|names --alpha\|--alpha is\|x: -h is\|x: --help is' "$ND_TMP/bad" && not_ok "checker: false alarm: $(cat "$ND_TMP/bad")" || ok "checker: documented, global and cross-referenced options pass"

# every command of the real binary
run_nd --help
cmds=$(awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { on = 0 }' "$OUT")
[ -n "$cmds" ] && ok "commands listed by --help: $(echo $cmds)" || { not_ok "no command found in --help"; cat "$OUT"; }
: >"$ND_TMP/tables"
for c in $cmds; do
  NCCL_DOCTOR_DEBUG_OPTIONS=1 run_nd "$c" --help
  [ "$RC" -eq 0 ] || not_ok "$c --help: exit $RC"
  cp "$OUT" "$ND_TMP/help-$c"
  grep -E '^nccl-doctor( [a-z0-9_]+)?: (global )?options:' "$ERR" >>"$ND_TMP/tables"
  grep -q "^nccl-doctor $c: options: " "$ERR" && ok "$c: its option table is listed" || not_ok "$c: no option table listed: $(head -3 "$ERR")"
done
sort -u "$ND_TMP/tables" -o "$ND_TMP/tables"
# the global options: each named in the main --help
NCCL_DOCTOR_DEBUG_OPTIONS=1 run_nd --help
missing=""
for o in $(sed -n 's/^nccl-doctor: global options: //p' "$ERR"); do
  grep -qE -- "(^|[^a-z0-9-])$o([^a-z0-9-]|\$)" "$OUT" || missing="$missing $o"
done
[ -z "$missing" ] && ok "the main --help names every global option" || not_ok "the main --help lacks:$missing"
# a global option's values: --format names each form it takes
grep -qE -- '--format FORMAT .*text.*json.*markdown|--format FORMAT  the result as text \(the default\), json or markdown' "$OUT" &&
  ok "the main --help names the forms of --format" || not_ok "the main --help does not name text, json and markdown for --format"
for c in $cmds; do
  check "$ND_TMP/help-$c" "$ND_TMP/tables" "$c" >"$ND_TMP/bad"
  if [ -s "$ND_TMP/bad" ]; then not_ok "$c: --help and the option table disagree"; sed 's/^/    /' "$ND_TMP/bad"
  else ok "$c: --help names every option of its table, and only options it accepts"; fi
done
finish
