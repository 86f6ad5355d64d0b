#!/usr/bin/env bash
# The include graph of src/ follows DESIGN.md's layers (tests/tools/layers.py):
# no include from a lower folder to a higher one, no two folders including
# each other. First proves the checker catches both on a made-up tree.
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
L="$ND_SRC/tests/tools/layers.py"

# a made-up tree: util includes model (upward), kb and model include each other
T="$ND_TMP/src"; mkdir -p "$T/util" "$T/model" "$T/kb" "$T/cmd"
printf '#include "model/a.h"\n' >"$T/util/u.c"
printf '#include "kb/k.h"\n#include "util/u.h"\n' >"$T/model/a.c"
printf '#include "model/a.h"\n' >"$T/kb/k.c"
printf '#include "kb/k.h"\n#include "b.h"\n' >"$T/cmd/c.c"
python3 "$L" "$T" >"$ND_TMP/bad"; rc=$?
[ "$rc" -eq 1 ] && ok "made-up tree: violations found (exit 1)" || not_ok "made-up tree: exit $rc, wanted 1"
grep -q '^util/u.c:1 .*: util includes model, a higher layer' "$ND_TMP/bad" && ok "an upward include is named with file and line" || not_ok "upward include not reported"
grep -q 'folders kb and model include each other' "$ND_TMP/bad" && ok "a folder cycle is reported" || not_ok "folder cycle not reported"
grep -q 'cmd' "$ND_TMP/bad" && not_ok "downward includes reported as violations" || ok "downward and same-folder includes pass"
python3 "$L" --graph "$T" >/dev/null; printf '#include "extra/x.h"\n' >"$T/cmd/d.c"
python3 "$L" "$T" | grep -q "folder 'extra' is not in the layer list" && ok "an unknown folder is reported" || not_ok "unknown folder not reported"

# the real tree
if python3 "$L" "$ND_SRC/src" >"$ND_TMP/real"; then ok "src/ include graph follows the layers"
else not_ok "src/ include graph has $(wc -l <"$ND_TMP/real") violations"; sed 's/^/    /' "$ND_TMP/real"; fi
python3 "$L" --graph "$ND_SRC/src" >"$ND_TMP/graph"
grep -q '^cmd ' "$ND_TMP/graph" && ok "the graph sees cmd's includes" || not_ok "the scan found no includes of cmd/: it is broken"

# one place each: findings are ordered by cmd_finish alone, and only report/
# turns the typed members into text or JSON
grep -rln 'result_sort_findings *(' "$ND_SRC/src" --include='*.c' | sed "s#^$ND_SRC/src/##" | sort >"$ND_TMP/sorts"
[ "$(tr '\n' ' ' <"$ND_TMP/sorts")" = "cmd/common.c model/result.c " ] && ok "findings are sorted in cmd/common.c only (cmd_order)" ||
  not_ok "result_sort_findings called in: $(tr '\n' ' ' <"$ND_TMP/sorts")"
grep -rlnE 'report_(causes|ranks|topo)_(json|table)|report_first_failure_json' "$ND_SRC/src" --include='*.c' |
  sed "s#^$ND_SRC/src/##" | grep -v '^report/' >"$ND_TMP/typed" && not_ok "typed members rendered outside report/: $(tr '\n' ' ' <"$ND_TMP/typed")" ||
  ok "typed members are rendered by report/ alone"
finish
