#!/usr/bin/env bash
# Text fits the terminal (COLUMNS, or the tty's width; 100 columns when
# stdout is no terminal and COLUMNS is unset): the last prose column of a
# table wraps in place, other long prose columns move below the table,
# other cells are cut with "…", never silently; --json is the same whatever
# the width.
. "$(dirname "$0")/lib.sh"
unset COLUMNS # the tool's own width: 100 columns without a terminal
ND_FULL=1 # the rank and cause tables of the whole report
L="$ND_FIXTURES/logs/constructed/pcie-p2p-watchdog.log"
SR="$ND_FIXTURES/sysroot/pcie-4gpu-acs"

# widest table line: the lines from a header (HEADER_RE) to the next line
# that is not a row ("  X " with X a mark or blank)
table_width() { # FILE HEADER_RE
  python3 - "$1" "$2" <<'PY'
import re, sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
w, inside = 0, False
for l in lines:
    if re.match(sys.argv[2], l):
        inside = True
    elif inside and not re.match(r"^  [ *!] \S", l):
        inside = False
    if inside:
        w = max(w, len(l))
print(w)
PY
}

for cols in 60 80; do
  COLUMNS=$cols run_nd logs "$L"
  expect_rc 2 "logs COLUMNS=$cols: runs"
  w=$(table_width "$OUT" '^    rank( |$)')
  [ "$w" -gt 0 ] && [ "$w" -le "$cols" ] && ok "logs COLUMNS=$cols: rank table $w wide" || not_ok "logs COLUMNS=$cols: rank table $w wide"
  w=$(table_width "$OUT" '^    cause( |$)')
  [ "$w" -gt 0 ] && [ "$w" -le "$cols" ] && ok "logs COLUMNS=$cols: cause table $w wide" || not_ok "logs COLUMNS=$cols: cause table $w wide"
  expect_out "^    last NCCL line, by rank:" "logs COLUMNS=$cols: the last-line column moved below"
  expect_out "watchdog.log:72:( |$)" "logs COLUMNS=$cols: the moved text is there (a path wider than the line breaks after a separator)"
  expect_out "…" "logs COLUMNS=$cols: cut cells are marked"
  COLUMNS=$cols run_nd --sysroot "$SR" sys
  w=$(table_width "$OUT" '^    BRIDGE +ID')
  [ "$w" -le "$cols" ] && ok "sys COLUMNS=$cols: bridge table $w wide" || not_ok "sys COLUMNS=$cols: bridge table $w wide"
  w=$(table_width "$OUT" '^    # +BDF')
  [ "$w" -le "$cols" ] && ok "sys COLUMNS=$cols: GPU table $w wide" || not_ok "sys COLUMNS=$cols: GPU table $w wide"
done

# the fixture's path is wherever the clone is (CI's differs from ours): a path
# wider than the line breaks between directories whatever its length, never
# inside "watchdog.log:72:" (CI saw "watchdog." / "log:72:")
bad=0
for n in 1 20 38 40 55 70; do
  d="$ND_TMP/p/$(printf '%*s' "$n" '' | tr ' ' x)"; mkdir -p "$d"; cp "$L" "$d/"
  COLUMNS=80 run_nd logs "$d/pcie-p2p-watchdog.log"
  grep -qE "(/| )pcie-p2p-watchdog\.log:72:( |$)" "$OUT" || { bad=1; echo "# path of $n: $(grep -A1 'by rank:' "$OUT" | tail -1)"; }
done
[ $bad = 0 ] && ok "a long path breaks after a '/' at any clone depth" || not_ok "a path broke inside its file name"

# a cut inside a cell is marked: no rank line ends a bus id short without "…"
# (one line per cell: nothing wraps)
COLUMNS=1000 run_nd logs "$L"
expect_no_out "busId [0-9a-f]+ *$" "no bus id silently cut (was 'busId 1b')"
expect_out "busId 1…" "the 60-character last-line cut is marked"
cp "$OUT" "$ND_TMP/wide.txt"

# no COLUMNS and no terminal: 100 columns
run_nd logs "$L"; cp "$OUT" "$ND_TMP/wide.txt"
COLUMNS=100 run_nd logs "$L"
cmp -s "$OUT" "$ND_TMP/wide.txt" && ok "no terminal: 100 columns" || not_ok "no terminal differs from COLUMNS=100"
# --json ignores the width
run_nd --json logs "$L"; cp "$OUT" "$ND_TMP/a.json"
COLUMNS=60 run_nd --json logs "$L"
cmp -s "$OUT" "$ND_TMP/a.json" && ok "--json is the same at COLUMNS=60" || not_ok "--json changes with COLUMNS"
# a terminal's own width when COLUMNS is unset (script(1) gives a pty)
if command -v script >/dev/null && script -qec true /dev/null >/dev/null 2>&1; then
  env -u COLUMNS script -qec "stty cols 70; $ND_BIN --no-color logs $L" /dev/null </dev/null | tr -d '\r' >"$ND_TMP/tty.txt"
  w=$(table_width "$ND_TMP/tty.txt" '^    rank +host:pid')
  [ "$w" -gt 0 ] && [ "$w" -le 70 ] && ok "a 70-column terminal: rank table $w wide" || not_ok "a 70-column terminal: rank table $w wide"
else
  echo "# skipped: no script(1) for a pty"
fi
finish
