#!/usr/bin/env bash
# The committed constructed fixtures are exactly what gen.py writes.
. "$(dirname "$0")/lib.sh"
python3 "$ND_FIXTURES/sysroot/gen.py" "$ND_TMP/gen" || not_ok "gen.py failed"
for d in "$ND_TMP/gen"/*/; do
  name=$(basename "$d")
  if diff -r --no-dereference "$d" "$ND_FIXTURES/sysroot/$name" >"$ND_TMP/diff" 2>&1; then ok "$name matches gen.py"
  else not_ok "$name differs from gen.py output"; head -10 "$ND_TMP/diff" | sed 's/^/    /'; fi
done
# git drops empty directories, and an absent directory changes a report
# (/sys/module/nvidia_uvm, /sys/devices/system/node/node0): none may be empty
empty=$(find "$ND_FIXTURES/sysroot" -type d -empty | head -5)
if [ -z "$empty" ]; then ok "no empty directory in the fixtures"; else not_ok "empty directories (git drops them):"; echo "$empty" | sed 's/^/    /'; fi
finish
