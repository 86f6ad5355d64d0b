#!/bin/bash
# Device validation of the user's own NCCL variables as suspects (check and
# fix name the variable NCCL's own output implicates and recommend the
# environment without it) on the H200 machine. Run from the repository root:
#
#   OUT=/some/dir bash tests/device/validate-uservars.sh            # builds build-dev/
#   OUT=/some/dir ND_BIN=/path/nccl-doctor bash tests/device/validate-uservars.sh
#
# 1. `nccl-doctor check` on the clean machine (text and --json);
# 2. the same with NCCL_NET=IB (no InfiniBand on the H200 VM: NCCL fails
#    with "Failed to initialize any NET plugin", ncclInvalidUsage):
#    expected BROKEN, nccl_config_error first, "unset NCCL_NET" recommended;
# 3. with NCCL_SOCKET_IFNAME=bogus0 ("Bootstrap : no socket interface
#    found"): bootstrap_network, "unset NCCL_SOCKET_IFNAME";
# 4. with NCCL_TOPO_FILE=<a topology XML cut short> (NCCL's "XML Parse"
#    error): nccl_config_error, "unset NCCL_TOPO_FILE"; and with an
#    NCCL_TOPO_FILE that does not exist (NCCL 2.27+ skips it: DEGRADED,
#    NCCL_IGNORES_USER_VAR, no search);
# 5. `nccl-doctor fix` with NCCL_NET=IB: FIX FOUND (exit 1), --json's
#    recommendation.unset == ["NCCL_NET"];
# 6. afterwards: no GPU process and no nccl-doctor worker left.
# Each writes `check --json` and text under $OUT (summary.txt first, at most
# 20 files). Every command has a timeout; the whole script ends within 8
# minutes. It never changes the system (the XML files go to $OUT).
# NCCL_NVLS_ENABLE=0 stays exported in every run.
set -u
export NCCL_NVLS_ENABLE=0
OUT=${OUT:-/tmp/nd-validate-uservars}
mkdir -p "$OUT"
SUMMARY="$OUT/summary.txt"
. tests/device/lib.sh
nd_summary "$SUMMARY"
say "# nccl-doctor user-variable validation, $(date -u '+%Y-%m-%d %H:%M:%S UTC'), host $(hostname)"
unset NCCL_DOCTOR_LIBRARY_PATH NCCL_DOCTOR_LIBRARY_PATH_ONLY NCCL_DOCTOR_FAKEGPU_SCENARIO NCCL_DEBUG
unset NCCL_NET NCCL_SOCKET_IFNAME NCCL_TOPO_FILE NCCL_GRAPH_FILE
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader >"$OUT/gpu.txt" 2>&1
say "gpu: $(head -1 "$OUT/gpu.txt")"
if ! nd_binary build-dev 200; then
  say "FAIL: no nccl-doctor binary (see build.log)"
  exit 1
fi
say "binary: $ND_BIN ($("$ND_BIN" --version 2>&1))"
PY=$(command -v python3 || true)

# jq-free JSON questions: jget FILE EXPR (python over d), empty on error
jget() { [ -n "$PY" ] && "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2" 2>/dev/null; }

# run_check NAME [VAR=VALUE]: text and --json of check under $OUT/NAME.*
run_check() {
  local name=$1; shift
  local t0 t1 rc
  t0=$(date +%s)
  timeout 150 env "$@" "$ND_BIN" check >"$OUT/$name.txt" 2>"$OUT/$name.stderr"
  rc=$?
  t1=$(date +%s)
  timeout 150 env "$@" "$ND_BIN" --json check >"$OUT/$name.json" 2>>"$OUT/$name.stderr"
  say "$name ($*): exit $rc in $((t1 - t0)) s: $(head -1 "$OUT/$name.txt")"
  sed -n '/^  Trials/,/^   each trial/p' "$OUT/$name.txt" | cut -c1-160 | tee -a "$SUMMARY" >/dev/null
  CHECK_RC=$rc
}

# 1. clean
run_check clean
check "clean: a verdict" grep -qE '^(HEALTHY|DEGRADED|INCOMPLETE|BROKEN):' "$OUT/clean.txt"
check "clean: no user-variable finding" bash -c "! grep -qE 'USER_ENV|USER_BOOTSTRAP|IGNORES_USER_VAR' '$OUT/clean.txt'"

# 2. NCCL_NET=IB
run_check net-ib NCCL_NET=IB
check "NCCL_NET=IB: BROKEN" grep -q '^BROKEN' "$OUT/net-ib.txt"
check "NCCL_NET=IB: nccl_config_error first" [ "$(jget "$OUT/net-ib.json" 'd["causes"][0]["cause"]')" = nccl_config_error ]
check "NCCL_NET=IB: NCCL's own line quoted" grep -qE "NCCL's own line: NCCL WARN (Failed to initialize any NET plugin|Error: network IB not found)" "$OUT/net-ib.txt"
check "NCCL_NET=IB: named as set by you" grep -q 'NCCL_NET=IB is set by you' "$OUT/net-ib.txt"
check "NCCL_NET=IB: unset NCCL_NET recommended" [ "$(jget "$OUT/net-ib.json" 'd["recommendation"]["unset"]')" = "['NCCL_NET']" ]

# 3. NCCL_SOCKET_IFNAME=bogus0
run_check ifname-bogus NCCL_SOCKET_IFNAME=bogus0
check "NCCL_SOCKET_IFNAME=bogus0: bootstrap_network first" [ "$(jget "$OUT/ifname-bogus.json" 'd["causes"][0]["cause"]')" = bootstrap_network ]
check "NCCL_SOCKET_IFNAME=bogus0: NCCL's line" grep -q 'Bootstrap : no socket interface found' "$OUT/ifname-bogus.txt"
check "NCCL_SOCKET_IFNAME=bogus0: unset recommended" [ "$(jget "$OUT/ifname-bogus.json" 'd["recommendation"]["unset"]')" = "['NCCL_SOCKET_IFNAME']" ]

# 4. NCCL_TOPO_FILE cut short, and missing
printf '<system version="1">\n  <cpu numaid="0" affinity="ffff" arch="x86_64" vendor="GenuineIntel">\n    <pci busid="0000:1' >"$OUT/topo-cut.xml"
run_check topo-cut NCCL_TOPO_FILE="$OUT/topo-cut.xml"
check "NCCL_TOPO_FILE cut short: nccl_config_error first" [ "$(jget "$OUT/topo-cut.json" 'd["causes"][0]["cause"]')" = nccl_config_error ]
check "NCCL_TOPO_FILE cut short: NCCL's XML error" grep -q 'XML Parse' "$OUT/topo-cut.txt"
check "NCCL_TOPO_FILE cut short: unset recommended" [ "$(jget "$OUT/topo-cut.json" 'd["recommendation"]["unset"]')" = "['NCCL_TOPO_FILE']" ]
run_check topo-missing NCCL_TOPO_FILE="$OUT/no-such-topo.xml"
say "topo-missing: verdict $(jget "$OUT/topo-missing.json" 'd["verdict"]') (NCCL 2.27+ skips the file: DEGRADED expected, before 2.27 a WARN)"
check "NCCL_TOPO_FILE missing: NCCL_IGNORES_USER_VAR" grep -q 'NCCL_IGNORES_USER_VAR' "$OUT/topo-missing.txt"

# 5. fix with NCCL_NET=IB
timeout 200 env NCCL_NET=IB "$ND_BIN" fix >"$OUT/fix-net-ib.txt" 2>"$OUT/fix-net-ib.stderr"
rc=$?
say "fix NCCL_NET=IB: exit $rc: $(head -1 "$OUT/fix-net-ib.txt")"
check "fix NCCL_NET=IB: FIX FOUND (exit 1)" [ "$rc" -eq 1 ]
check "fix NCCL_NET=IB: remove NCCL_NET (set by you)" grep -q 'remove NCCL_NET (set by you' "$OUT/fix-net-ib.txt"

# 6. nothing left
sleep 1
left=$(nvidia-smi --query-compute-apps=pid --format=csv,noheader 2>/dev/null | grep -c . || true)
check "no GPU process left" [ "$left" -eq 0 ]
# [_] so that the pattern does not match the shell that runs pgrep
check "no nccl-doctor worker left" bash -c "! pgrep -f '[_]_worker' >/dev/null"
say "# $pass passed, $fail failed"
[ "$fail" -eq 0 ]
