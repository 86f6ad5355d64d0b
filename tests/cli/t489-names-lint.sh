#!/bin/bash
# Names say what, never when (DESIGN.md "Layers"): no two scripts of
# tests/cli share a test number, and no file or folder in src/, tests/cli or
# tests/unit is named after a batch, a round, an issue or a date (history
# lives in commit messages and docs/logs.md). Fixtures are not checked: the
# public corpus's folders and READMEs may name the batch a case came from.
# First proves both checks on a made-up tree.
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"

# dup_numbers DIR: the numbers two or more tNNN-*.sh of DIR share, one a line
dup_numbers() {
  find "$1" -maxdepth 1 -name 't[0-9]*-*.sh' -printf '%f\n' | sed -E 's/^t([0-9]+)-.*/\1/' | sort | uniq -d
}
# marked ROOT DIR...: the paths (relative to ROOT) under each DIR whose file
# or folder name carries a batch/round/issue/date marker, one a line
MARK='(^|[_.-])[br][0-9]+([_.-]|$)|batch|round[0-9_-]|heldout|issue[0-9_-]*[0-9]|(19|20)[0-9]{2}-?[01][0-9]-?[0-3][0-9]'
marked() {
  local root=$1 d; shift
  for d in "$@"; do
    [ -d "$root/$d" ] || continue
    (cd "$root" && find "$d" -mindepth 1) | while IFS= read -r p; do
      basename -- "$p" | grep -qiE "$MARK" && echo "$p"
    done
  done
  return 0
}

# a made-up tree: two t12 scripts, batch-named files
T="$ND_TMP/tree"; mkdir -p "$T/tests/cli" "$T/tests/unit" "$T/src/analyze/logs" "$T/src/kb"
touch "$T/tests/cli/t12-a.sh" "$T/tests/cli/t12-b.sh" "$T/tests/cli/t120-c.sh" "$T/tests/cli/t13-logs-b7-rules.sh" \
  "$T/tests/cli/t14-logs-round5.sh" "$T/tests/unit/test_batch.c" "$T/src/analyze/nccllog_b10.c" \
  "$T/src/kb/findings_logs_r5.def" "$T/src/analyze/logs/p2p.c" "$T/src/kb/xid.def" "$T/src/analyze/sys_2024-05-01.c"
[ "$(dup_numbers "$T/tests/cli")" = 12 ] && ok "made-up tree: the shared number 12 is found (t120 is another number)" ||
  not_ok "made-up tree: duplicate numbers found: '$(dup_numbers "$T/tests/cli" | tr '\n' ' ')', wanted 12"
marked "$T" src tests/cli tests/unit | sort >"$ND_TMP/marked"
want=$(printf '%s\n' src/analyze/nccllog_b10.c src/analyze/sys_2024-05-01.c src/kb/findings_logs_r5.def \
  tests/cli/t13-logs-b7-rules.sh tests/cli/t14-logs-round5.sh tests/unit/test_batch.c | sort)
[ "$(cat "$ND_TMP/marked")" = "$want" ] && ok "made-up tree: every batch/round/date name is found, and nothing else" ||
  { not_ok "made-up tree: marked names differ"; diff <(echo "$want") "$ND_TMP/marked" | sed 's/^/    /'; }

# the real tree
d=$(dup_numbers "$ND_SRC/tests/cli")
[ -z "$d" ] && ok "no two scripts of tests/cli share a number" ||
  not_ok "tests/cli numbers used twice: $(echo "$d" | tr '\n' ' ')($(cd "$ND_SRC/tests/cli" && for n in $d; do ls t"$n"-*.sh; done | tr '\n' ' '))"
n=$(find "$ND_SRC/tests/cli" -maxdepth 1 -name 't[0-9]*-*.sh' | wc -l)
[ "$n" -ge 50 ] && ok "$n numbered scripts read" || not_ok "only $n numbered scripts in tests/cli: the scan is broken"
marked "$ND_SRC" src tests/cli tests/unit >"$ND_TMP/real"
[ ! -s "$ND_TMP/real" ] && ok "no file in src/, tests/cli, tests/unit is named after a batch, round, issue or date" ||
  { not_ok "names that say when, not what: $(tr '\n' ' ' <"$ND_TMP/real")"; }
finish
