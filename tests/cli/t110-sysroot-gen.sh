#!/usr/bin/env bash
# The committed constructed fixtures are exactly what gen.py writes.
. "$(dirname "$0")/lib.sh"
python3 "$ND_FIXTURES/sysroot/gen.py" "$ND_TMP/gen" || not_ok "gen.py failed"
for d in "$ND_TMP/gen"/*/; do
  name=$(basename "$d")
  if diff -r --no-dereference "$d" "$ND_FIXTURES/sysroot/$name" >"$ND_TMP/diff" 2>&1; then ok "$name matches gen.py"
  else not_ok "$name differs from gen.py output"; head -10 "$ND_TMP/diff" | sed 's/^/    /'; fi
done
finish
