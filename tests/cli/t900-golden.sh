#!/usr/bin/env bash
# Golden outputs: the text and the JSON of every command on every fixture,
# compared byte for byte with tests/golden/ (the proof that refactoring left
# the output unchanged). Cases are listed in tests/golden/CASES, one a line:
#   NAME|SCENARIO|ARGS...
# SCENARIO names a tests/fixtures/fakegpu/*.json for the fake GPU stack, "-"
# for none (no driver libraries at all), "nosym" for the stack with a symbol
# missing. Each case runs twice, as text and with --json; the exit statuses go
# into tests/golden/EXIT. Paths are relative to the source tree, which is the
# working directory, and every case runs on an empty sysroot unless it names
# one (tests/golden/sysroot-empty), so the outputs depend neither on where the
# tree lives nor on the machine that runs the tests.
#
# ND_GOLDEN_UPDATE=1 rewrites the goldens from the current binary instead of
# comparing (then review the diff with git before committing it).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/cases.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
: "${ND_BUILD:?ND_BUILD must name the build tree}"
G="$ND_SRC/tests/golden"
# The whole text report (--full: the short one is a view of it, with the
# same first screen), one line per fact: COLUMNS=1000, as the checkout's
# path (in a sysroot's name) must not move where a line wraps
# (tests/cli/t622 renders every case at 80, 100 and 200 columns).
export ND_FULL=1 COLUMNS=1000
update=${ND_GOLDEN_UPDATE:-0}
cd "$ND_SRC" || exit 1
mkdir -p "$ND_TMP/got"

# What differs between runs and checkouts: elapsed times, the build tree (the
# fake libraries' paths) written BUILD, and the source tree (a sysroot's real
# path) written SRC. Everything else must be identical.
SRC_REAL=$(cd "$ND_SRC" && pwd -P)
BUILD_REAL=$(cd "$ND_BUILD" && pwd -P)
normalize() {
  sed -E -e 's/("(elapsed_s|elapsed_ms|wall_ms|ms)": )[0-9.e+-]+/\1N/g' \
         -e 's/(after )[0-9]+(\.[0-9]+)? ?(ms|s)\b/\1N \3/g' \
         -e "s#$BUILD_REAL/#BUILD/#g" -e "s#$ND_BUILD/#BUILD/#g" \
         -e "s#$SRC_REAL/#SRC/#g" -e "s#$ND_SRC/#SRC/#g"
}

# run_case NAME SCENARIO ARGS...: writes $ND_TMP/got/NAME.{txt,json} and a line to EXIT
run_case() {
  local name=$1 sc=$2 rct rcj; shift 2
  case_run "$sc" "$@" | normalize >"$ND_TMP/got/$name.txt"
  rct=${PIPESTATUS[0]}
  case_run "$sc" --json "$@" | normalize >"$ND_TMP/got/$name.json"
  rcj=${PIPESTATUS[0]}
  echo "$name $rct $rcj" >>"$ND_TMP/got/EXIT"
  n=$((n + 1))
}

[ -f "$G/CASES" ] || { not_ok "tests/golden/CASES is missing"; finish; exit 1; }
n=0
case_each run_case

if [ "$update" = 1 ]; then
  find "$G" -maxdepth 1 \( -name '*.txt' -o -name '*.json' -o -name EXIT \) -delete
  cp "$ND_TMP/got/"* "$G/"
  ok "rewrote $n golden cases in tests/golden"
  finish
  exit
fi

[ "$n" -ge 50 ] && ok "$n golden cases run" || not_ok "only $n golden cases: CASES is damaged"
bad=0
for f in "$ND_TMP/got/"*; do
  b=$(basename "$f")
  if [ ! -f "$G/$b" ]; then bad=$((bad + 1)); echo "    no golden for $b (ND_GOLDEN_UPDATE=1 creates it)"; continue; fi
  if ! diff -u "$G/$b" "$f" >"$ND_TMP/diff"; then
    bad=$((bad + 1)); echo "    $b differs:"; head -30 "$ND_TMP/diff" | sed 's/^/      /'
  fi
done
for f in "$G/"*.txt "$G/"*.json; do
  [ -f "$ND_TMP/got/$(basename "$f")" ] || { bad=$((bad + 1)); echo "    stale golden $(basename "$f"): no case makes it"; }
done
if [ "$bad" -eq 0 ]; then ok "text, JSON and exit status of every case as in tests/golden"
else not_ok "$bad golden files differ"; fi
finish
