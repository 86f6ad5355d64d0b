#!/usr/bin/env bash
# README's Quick start and .ci/run agree: CI runs exactly the README's test command,
# and installs every package the README's first command installs.
. "$(dirname "$0")/lib.sh"
: "${ND_SRC:?}"
python3 - "$ND_SRC/README.md" "$ND_SRC/.ci/run" >"$ND_TMP/r" 2>&1 <<'PY'
import re, sys
readme, ci = open(sys.argv[1]).read(), open(sys.argv[2]).read()
blocks = re.findall(r"```sh\n(.*?)\n```", readme, re.S)
assert len(blocks) >= 2, "README has fewer than two sh blocks"
assert blocks[1] in ci.splitlines(), "CI does not run the README test command verbatim"
pkgs = re.search(r"apt-get install -y ([^&]*)&&", blocks[0]).group(1).split()
missing = [p for p in pkgs if p not in ci]
assert not missing, "CI does not install %s" % missing
print("ok")
PY
if [ "$(cat "$ND_TMP/r")" = ok ]; then ok "README and .ci/run agree"; else not_ok "README and .ci/run differ: $(cat "$ND_TMP/r" | tail -1)"; fi
finish
