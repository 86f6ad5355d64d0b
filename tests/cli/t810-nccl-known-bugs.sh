#!/usr/bin/env bash
# tools/nccl-known-bugs: NCCL's known bugs by version, from its release notes
# (the messages of its release commits). The parser and classification tests
# and the consistency of the committed files (notes.tsv, classified.tsv and
# the generated src/kb/nccl_known_bugs_gen.def) run everywhere; the check of
# every row against NCCL's own history (check.py, a negative check and a
# re-extraction) needs a mirror of NVIDIA/nccl (NCCL_MIRROR, default
# /work/.mirror/NVIDIA+nccl/repo): without one the script passes what it
# could check and then reports a skip (exit 77), never a pass.
. "$(dirname "$0")/lib.sh"
t="$ND_SRC/tools/nccl-known-bugs/test_nccl_known_bugs.py"
if python3 "$t" Parser Classification Committed >"$ND_TMP/out" 2>&1; then
  ok "tools/nccl-known-bugs: parser, classification, committed files ($(grep -E '^Ran ' "$ND_TMP/out"))"
else
  not_ok "tools/nccl-known-bugs: parser, classification, committed files"; tail -20 "$ND_TMP/out" | sed 's/^/    /'
fi
mirror=${NCCL_MIRROR:-/work/.mirror/NVIDIA+nccl/repo}
if [ ! -d "$mirror" ]; then
  finish || exit 1
  skip_all "no NCCL mirror at $mirror: the rows were not checked against NCCL's release commits"
fi
if NCCL_MIRROR="$mirror" python3 "$t" Source >"$ND_TMP/out" 2>&1 && ! grep -q 'skipped' "$ND_TMP/out"; then
  ok "tools/nccl-known-bugs: every row in its release commit, wrong rows rejected, extraction reproducible ($(grep -E '^Ran ' "$ND_TMP/out"))"
else
  not_ok "tools/nccl-known-bugs: against the mirror"; tail -20 "$ND_TMP/out" | sed 's/^/    /'
fi
finish
