#!/bin/bash
# Every device validation in one call (the lent machine is held by the minute):
# builds nothing when ND_BIN is given, runs validate-gpu.sh (topo, workers),
# validate-p2p.sh, validate-bench.sh (with nccl-tests from .nccl-tests/),
# validate-watch.sh and the checkup itself (`nccl-doctor` with no command),
# each into its own folder, then packs them: $OUT/summary.txt (the summaries
# one after the other) and $OUT/all.tar.gz (every log). Run from the
# repository root: ND_BIN=/path/nccl-doctor OUT=DIR bash tests/device/validate-all.sh [STEP...]
# STEP: gpu p2p bench watch json-v2 check, or any NAME with a script
# tests/device/validate-NAME.sh or tests/device/NAME.sh (default: the six
# named, in that order).
set -u
export NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
: "${OUT:?}"
: "${ND_BIN:?}"
W=$(mktemp -d /tmp/nd-all.XXXXXX)
steps=${*:-gpu p2p bench watch json-v2 check}
{
  echo "# $(date -u '+%Y-%m-%d %H:%M:%S UTC') $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
  echo "# nccl-doctor $("$ND_BIN" --version 2>&1)"
} >"$OUT/summary.txt"
for s in $steps; do
  mkdir -p "$W/$s"
  t0=$(date +%s)
  case $s in
    check)
      ( timeout 120 "$ND_BIN" >"$W/$s/check.txt" 2>"$W/$s/check.err"; echo "exit $?" >>"$W/$s/check.txt"
        timeout 120 "$ND_BIN" --json check >"$W/$s/check.json" 2>/dev/null
        echo "summary: $(tail -3 "$W/$s/check.txt" | tr '\n' ' ')" >"$W/$s/summary.txt" ) ;;
    *)
      f=tests/device/validate-$s.sh
      [ -f "$f" ] || f=tests/device/$s.sh
      if [ -f "$f" ]; then
        OUT="$W/$s" ND_BIN="$ND_BIN" timeout 540 bash "$f" >"$W/$s/stdout.txt" 2>&1
      else
        echo "no script for step $s" >"$W/$s/stdout.txt"
      fi ;;
  esac
  {
    echo
    echo "## $s ($(( $(date +%s) - t0 )) s, exit $?)"
    cat "$W/$s/summary.txt" 2>/dev/null || tail -20 "$W/$s/stdout.txt"
  } >>"$OUT/summary.txt"
done
tar -C "$W" -czf "$OUT/all.tar.gz" .
rm -rf "$W"
