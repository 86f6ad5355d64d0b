#!/usr/bin/env bash
# tools/framework-errors: the error texts of PyTorch, vLLM, XLA and the CUDA
# error names, from the frameworks' own sources. The tools' unit tests (the
# pattern of a literal, the ordered class rules, the check of a literal in a
# made-up checkout) and the consistency of the committed files: classified.tsv
# is classify.py's output of sources.tsv and classes.tsv, the generated
# src/kb/framework_errors_gen.def is gen_c.py's with one row per classified
# row, and classify.py rejects a class that does not exist. The C matcher and
# its crosscheck with the hand-written signatures: tests/unit/test_framework_errors.c.
# scanned.tsv (every error literal of whole files, scan.py) is re-read from
# the fetched mirrors where they are at hand, skipped with a reason otherwise.
. "$(dirname "$0")/lib.sh"
d="$ND_SRC/tools/framework-errors"
if python3 "$d/test_framework_errors.py" >"$ND_TMP/out" 2>&1; then
  ok "tools/framework-errors: pattern, classification, extraction check, committed files ($(grep -E '^Ran ' "$ND_TMP/out"))"
else
  not_ok "tools/framework-errors: unit tests"; tail -20 "$ND_TMP/out" | sed 's/^/    /'
fi
if python3 "$d/classify.py" --check -q --out "$d/classified.tsv" >"$ND_TMP/out" 2>&1; then
  ok "classified.tsv is classify.py's output"
else
  not_ok "classified.tsv is not current"; sed 's/^/    /' "$ND_TMP/out"
fi
if python3 "$d/gen_c.py" --check >"$ND_TMP/out" 2>&1; then
  ok "src/kb/framework_errors_gen.def is gen_c.py's output"
else
  not_ok "src/kb/framework_errors_gen.def is not current"; sed 's/^/    /' "$ND_TMP/out"
fi
# a stale or broken input fails: a class that does not exist
sed 's/\tbootstrap_network\tPyTorch'"'"'s TCPStore/\tno_such_class\tPyTorch'"'"'s TCPStore/' "$d/classes.tsv" >"$ND_TMP/classes.tsv"
if python3 "$d/classify.py" --classes "$ND_TMP/classes.tsv" --out "$ND_TMP/c.tsv" -q 2>"$ND_TMP/err"; then
  not_ok "classify.py accepts an unknown class"
else
  grep -q "unknown class 'no_such_class'" "$ND_TMP/err" && ok "classify.py rejects an unknown class" ||
    { not_ok "classify.py: the wrong message"; cat "$ND_TMP/err"; }
fi
# column 3 (kept): "-" for a row of the generated table, else why it stays out
rows=$(awk -F'\t' '!/^#/ && $3 == "-"' "$d/classified.tsv" | wc -l)
n=$(grep -c '^FE(' "$ND_SRC/src/kb/framework_errors_gen.def")
[ "$rows" = "$n" ] && ok "one generated row per classified row not kept out ($n)" ||
  not_ok "classified.tsv has $rows rows to generate, the .def $n"
# scanned.tsv is what scan.py lists from the whole files scan.tsv names, where
# the bare mirrors are at hand (FW_MIRROR, default /work/.mirror: `fetch`);
# the files copied whole from the source index too when FW_ROOT names the copies
mirror=${FW_MIRROR:-/work/.mirror}
have=0
while IFS=$'\t' read -r fw repo commit source globs; do
  [ "$source" = mirror ] && [ -d "$mirror/${repo/\//+}/repo" ] && have=$((have + 1))
done < <(grep -v '^#' "$d/scan.tsv" | tail -n +2)
if [ "$have" = 0 ]; then
  skip "no mirror of the repositories of scan.tsv under $mirror: scanned.tsv was not re-read from the sources"
elif python3 "$d/scan.py" --mirror "$mirror" ${FW_ROOT:+--root "$FW_ROOT"} --check >"$ND_TMP/out" 2>&1; then
  ok "scanned.tsv is scan.py's listing of the files at their commits ($(tail -1 "$ND_TMP/out"))"
else
  not_ok "scanned.tsv differs from the sources"; sed 's/^/    /' "$ND_TMP/out" | head -20
fi
finish
