#!/usr/bin/env bash
# Every finding id used anywhere in src/ (a string literal in the id argument
# of result_add_finding(), possibly on the next line or in a ?: choice) has a
# catalog entry: `nccl-doctor explain ID` answers with exit 0.
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?ND_SRC must name the source tree}"
python3 - "$ND_SRC/src" >"$ND_TMP/ids" <<'PY'
import os, re, sys
ids = set()
lit = re.compile(r'"([A-Z][A-Z0-9_]*)"')
for root, _, files in os.walk(sys.argv[1]):
    for name in files:
        if not name.endswith(".c"):
            continue
        text = open(os.path.join(root, name), encoding="utf-8", errors="replace").read()
        # drop comments so that prose does not count
        text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
        for m in re.finditer(r'\bresult_add_finding\s*\(', text):
            i, depth, arg, args = m.end(), 1, "", []
            while i < len(text) and depth > 0:
                c = text[i]
                if c == '"':
                    j = i + 1
                    while j < len(text) and text[j] != '"':
                        j += 2 if text[j] == '\\' else 1
                    arg += text[i:j + 1]; i = j + 1; continue
                if c in "([{": depth += 1
                elif c in ")]}": depth -= 1
                if depth == 1 and c == ',':
                    args.append(arg); arg = ""
                    if len(args) > 1: break
                elif depth > 0:
                    arg += c
                i += 1
            if len(args) >= 2:
                for x in lit.findall(args[1]):
                    ids.add(x)
for x in sorted(ids):
    print(x)
PY
n=$(wc -l <"$ND_TMP/ids")
if [ "$n" -ge 5 ]; then ok "found $n finding ids used in src/"; else not_ok "only $n finding ids found: the scan is broken"; fi
grep -qx P2P_IOMMU_FAULT "$ND_TMP/ids" && ok "the scan sees kernel's P2P_IOMMU_FAULT" || not_ok "the scan misses P2P_IOMMU_FAULT"
grep -qx EDAC_CE "$ND_TMP/ids" && ok "the scan sees ids inside ?: choices" || not_ok "the scan misses EDAC_CE"
bad=0
while read -r id; do
  if ! "$ND_BIN" explain "$id" >/dev/null 2>"$ND_TMP/err1"; then
    bad=$((bad + 1)); echo "    no catalog entry: $id ($(head -1 "$ND_TMP/err1"))"
  fi
done <"$ND_TMP/ids"
if [ "$bad" -eq 0 ]; then ok "every finding id used in src/ has an explain entry"; else not_ok "$bad finding ids without an entry"; fi
finish
