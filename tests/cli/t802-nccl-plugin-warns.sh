#!/usr/bin/env bash
# tools/nccl-plugin-warns: the table of NCCL's network plugins' failure
# messages (aws-ofi-nccl, nccl-rdma-sharp-plugins) extracted from their
# source is current (src/kb/nccl_plugin_warns_gen.def is the generator's
# output), every row is classified, and `logs` names the plugin for a
# warning of its table. The checks against the plugins' source run where
# their mirrors are found (AWS_OFI_NCCL_MIRROR, SHARP_PLUGIN_MIRROR, default
# /work/.mirror/...); they are reported skipped otherwise.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}
t="$ND_SRC/tools/nccl-plugin-warns"

if python3 "$t/gen_c.py" --check >"$ND_TMP/gen" 2>&1; then
  ok "src/kb/nccl_plugin_warns_gen.def is the generator's output"
else
  not_ok "src/kb/nccl_plugin_warns_gen.def is stale"; sed 's/^/    /' "$ND_TMP/gen"
fi
if python3 "$t/classify.py" --out "$ND_TMP/classified.tsv" >"$ND_TMP/cls" 2>&1 &&
   cmp -s "$ND_TMP/classified.tsv" "$t/classified.tsv"; then
  ok "every plugin message classified, classified.tsv current ($(head -1 "$ND_TMP/cls"))"
else
  not_ok "classify.py"; grep -E "UNCLASSIFIED|UNUSED|classify" "$ND_TMP/cls" | head -20 | sed 's/^/    /'
fi
if python3 "$t/test_nccl_plugin_warns.py" -v >"$ND_TMP/out" 2>&1; then
  ok "tools/nccl-plugin-warns tests ($(grep -E '^Ran ' "$ND_TMP/out"))"
else
  not_ok "tools/nccl-plugin-warns tests"; tail -20 "$ND_TMP/out" | sed 's/^/    /'
fi
if grep -q "skipped 'plugin mirrors absent'" "$ND_TMP/out"; then
  skip "check.py against the plugins' source: mirrors absent"
else
  ok "check.py: every literal found in its first and last release of the plugin's source"
fi

# `logs`: an aws-ofi-nccl warning no hand-written row knows is the plugin's
# (its class, its releases, its name in the title and the evidence)
cat >"$ND_TMP/ofi.log" <<'LOG'
ip-10-0-1-17:3382:3382 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 1000 commId 0x5 - Init START
ip-10-0-1-17:3382:3382 [0] nccl_net_ofi_create_plugin:1056 NCCL WARN NET/OFI EFA provider requires at least libfabric version 1.18.0.
ip-10-0-1-17:3382:3382 [0] NCCL INFO net.cc:626 -> 2
LOG
"$ND_BIN" logs --json "$ND_TMP/ofi.log" >"$ND_TMP/ofi.json" 2>"$ND_TMP/ofi.err"
rc=$?
if [ "$rc" -lt 3 ] && grep -q "aws-ofi-nccl printed a warning of class version_mismatch (aws-ofi-nccl's message table)" "$ND_TMP/ofi.json" &&
   grep -q "aws-ofi-nccl's message (src/nccl_ofi_net.c, aws-ofi-nccl 1.8-1.12, version_mismatch)" "$ND_TMP/ofi.json" &&
   grep -q "by aws-ofi-nccl's source" "$ND_TMP/ofi.json"; then
  ok "logs names aws-ofi-nccl's message, its releases and its class"
else
  not_ok "logs on an aws-ofi-nccl warning (rc $rc)"; head -c 3000 "$ND_TMP/ofi.json" | sed 's/^/    /'; sed 's/^/    /' "$ND_TMP/ofi.err"
fi
finish
