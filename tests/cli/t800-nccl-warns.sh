#!/usr/bin/env bash
# tools/nccl-warns: the table of NCCL's failure messages extracted from its
# source (2.4 to the newest release) is current, classified and consistent.
# The checks against NCCL's own source run where a mirror of NVIDIA/nccl is
# found (NCCL_MIRROR, default /work/.mirror/NVIDIA+nccl/repo); the others always.
. "$(dirname "$0")/lib.sh"
if python3 "$ND_SRC/tools/nccl-warns/test_nccl_warns.py" >"$ND_TMP/out" 2>&1; then
  ok "tools/nccl-warns tests ($(grep -E '^Ran ' "$ND_TMP/out"))"
else
  not_ok "tools/nccl-warns tests"; tail -20 "$ND_TMP/out" | sed 's/^/    /'
fi
finish
