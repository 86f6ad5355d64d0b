#!/usr/bin/env bash
# Finding ids are an enum (kb/findings.h, FID_<ID>, generated from the
# findings_*.def catalog), so a wrong id does not compile. This test proves
# that (a file naming a real id compiles, one naming a made-up id does not),
# that every FID_ used in src/ is answered by `nccl-doctor explain ID`, and
# that findings are only made through finding_add() (the catalog's way): the
# raw model call result_add_findingv() appears in kb/findings.c alone.
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
CC=${ND_CC:-cc}

# compile-time check of ids
cat >"$ND_TMP/good.c" <<'C'
#include "kb/findings.h"
struct finding *f(struct result *r) { return finding_add(r, FID_ACS_REDIRECT_ENABLED, SEV_ERROR, "x"); }
C
sed 's/FID_ACS_REDIRECT_ENABLED/FID_ACS_REDIRECT_ENABLEDX/' "$ND_TMP/good.c" >"$ND_TMP/bad.c"
if "$CC" -std=c11 -D_GNU_SOURCE -fsyntax-only -I"$ND_SRC/src" "$ND_TMP/good.c" 2>"$ND_TMP/cc1"; then
  ok "a catalog id compiles"
  if "$CC" -std=c11 -D_GNU_SOURCE -fsyntax-only -Werror -I"$ND_SRC/src" "$ND_TMP/bad.c" 2>"$ND_TMP/cc2"; then
    not_ok "a made-up finding id compiles"
  else
    grep -q 'FID_ACS_REDIRECT_ENABLEDX' "$ND_TMP/cc2" && ok "a made-up finding id does not compile (the compiler names it)" ||
      { not_ok "the made-up id failed for another reason"; head -3 "$ND_TMP/cc2" | sed 's/^/    cc: /'; }
  fi
else
  not_ok "the control file does not compile with $CC"; head -5 "$ND_TMP/cc1" | sed 's/^/    cc: /'
fi

# every id used in src/ has an explain entry
# (FID_X everywhere, and F(X) in the log signature table, which makes both
# the enum and the name of a row)
{ grep -rhoE '\bFID_[A-Z][A-Z0-9_]*' "$ND_SRC/src" --include='*.c' --include='*.h' | sed 's/^FID_//'
  grep -hoE '\bF\([A-Z][A-Z0-9_]*\)' "$ND_SRC/src/kb/nccl_signatures.c" "$ND_SRC/src/kb/nccl_signatures_frameworks.def" | sed 's/^F(//; s/)$//'
} | grep -vx 'COUNT' | sort -u >"$ND_TMP/ids"
n=$(wc -l <"$ND_TMP/ids")
if [ "$n" -ge 100 ]; then ok "found $n finding ids used in src/"; else not_ok "only $n finding ids found: the scan is broken"; fi
grep -qx P2P_IOMMU_FAULT "$ND_TMP/ids" && ok "the scan sees kernel's P2P_IOMMU_FAULT" || not_ok "the scan misses P2P_IOMMU_FAULT"
grep -qx EDAC_CE "$ND_TMP/ids" && ok "the scan sees ids inside ?: choices" || not_ok "the scan misses EDAC_CE"
grep -qx LOG_CUDA_OOM "$ND_TMP/ids" && ok "the scan sees the log signature table's ids" || not_ok "the scan misses LOG_CUDA_OOM"
bad=0
while read -r id; do
  if ! "$ND_BIN" explain "$id" >/dev/null 2>"$ND_TMP/err1"; then
    bad=$((bad + 1)); echo "    no explain entry: $id ($(head -1 "$ND_TMP/err1"))"
  fi
done <"$ND_TMP/ids"
if [ "$bad" -eq 0 ]; then ok "every finding id used in src/ has an explain entry"; else not_ok "$bad finding ids without an entry"; fi

# one way in: the raw model call only in kb/findings.c, the old string API gone
grep -rln 'result_add_findingv' "$ND_SRC/src" | sed "s#^$ND_SRC/src/##" | sort >"$ND_TMP/raw"
if [ "$(cat "$ND_TMP/raw" | tr '\n' ' ')" = "kb/findings.c model/result.c model/result.h " ]; then
  ok "result_add_findingv is called by kb/findings.c alone"
else not_ok "result_add_findingv used in: $(tr '\n' ' ' <"$ND_TMP/raw")"; fi
grep -rn '\bresult_add_finding\b' "$ND_SRC/src" "$ND_SRC/tests/unit" >"$ND_TMP/old" && not_ok "the string-id call result_add_finding remains: $(head -1 "$ND_TMP/old")" || ok "no string-id finding call left"
finish
