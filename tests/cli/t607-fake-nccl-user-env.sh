#!/usr/bin/env bash
# The fake NCCL fails on the user's variables with real NCCL's words and
# return codes (NVIDIA/nccl's source of each version; tests/fakegpu/README.md),
# seen through `bench` (one process per GPU, NCCL_DEBUG=INFO):
#  - NCCL_NET=IB (no IB here): "Failed to initialize any NET plugin",
#    ncclInvalidUsage; NCCL_NET=socket (any case) works;
#  - NCCL_SOCKET_IFNAME=bogus0: "Bootstrap : no socket interface found" from
#    ncclGetUniqueId, ncclInvalidUsage (2.24+), ncclInternalError (2.23);
#    a one-character value is ignored, as NCCL ignores it;
#  - NCCL_TOPO_FILE cut short: "XML Parse : Unexpected EOF", ncclInternalError;
#    one that cannot be opened: init works;
#  - NCCL_GRAPH_FILE that cannot be opened: ncclSystemError.
. "$(dirname "$0")/lib.sh"
F="$ND_BUILD/tests/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/nvlink8.json"
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="t607-$$"
scrub_user_nccl_env
bench() { run_nd bench -g 2 -b 8 -e 8 -T 10 --deadline-init 10; }

NCCL_NET=IB bench
expect_rc 2 "NCCL_NET=IB: bench fails"
expect_out 'init failed: invalid usage \(run with NCCL_DEBUG=WARN for details\): Failed to initialize any NET plugin' "ncclInvalidUsage with NCCL's last error"
expect_out "last NCCL line: .*NCCL WARN Failed to initialize any NET plugin" "NCCL's WARN line"
NCCL_NET=socket bench
expect_rc 0 "NCCL_NET=socket (case ignored): works"

NCCL_SOCKET_IFNAME=bogus0 bench
expect_rc 2 "NCCL_SOCKET_IFNAME=bogus0: bench fails"
expect_out 'ncclGetUniqueId failed: invalid usage .*Bootstrap : no socket interface found' "from ncclGetUniqueId, ncclInvalidUsage"
python3 - "$ND_FIXTURES/fakegpu/nvlink8.json" "$ND_TMP/old.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["nccl_version"] = 22304
json.dump(d, open(sys.argv[2], "w"))
PY
NCCL_SOCKET_IFNAME=bogus0 NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/old.json" bench
expect_out 'ncclGetUniqueId failed: internal error' "NCCL 2.23: ncclInternalError"
NCCL_SOCKET_IFNAME=b bench
expect_rc 0 "a one-character NCCL_SOCKET_IFNAME is ignored"
NCCL_SOCKET_IFNAME=lo bench
expect_rc 0 "NCCL_SOCKET_IFNAME=lo: works"

printf '<system version="1">\n  <cpu numaid="0"' >"$ND_TMP/cut.xml"
NCCL_TOPO_FILE="$ND_TMP/cut.xml" bench
expect_rc 2 "NCCL_TOPO_FILE cut short: bench fails"
expect_out 'init failed: internal error .*XML Parse : Unexpected EOF' "ncclInternalError, NCCL's parse error"
NCCL_TOPO_FILE="$ND_TMP/missing.xml" bench
expect_rc 0 "NCCL_TOPO_FILE that cannot be opened: skipped, works"

NCCL_GRAPH_FILE="$ND_TMP/missing.xml" bench
expect_rc 2 "NCCL_GRAPH_FILE that cannot be opened: bench fails"
expect_out 'init failed: unhandled system error .*Could not open XML graph file' "ncclSystemError, NCCL's line"
finish
