#!/usr/bin/env bash
# nccl-doctor kernel on NVSwitch SXid lines from real logs: each fatal SXid
# is an SXID_FATAL finding on its switch, with the catalog's meaning and
# action; non-fatal ones are SXID_NONFATAL warnings or notes.
. "$(dirname "$0")/lib.sh"
K="$ND_FIXTURES/kernel"
S="$ND_FIXTURES/sysroot/no-driver"
run_nd --json --sysroot "$S" kernel "$K/sxid-ltssm-offbus.dmesg"
expect_rc 2 "fatal SXids are a problem"
json_check 'sum(1 for f in d["findings"] if f["id"] == "SXID_FATAL") == 5' "five fatal SXid 20034 findings (one per switch link)"
json_check 'all(f["cause"] == "nvlink_fabric" for f in d["findings"] if f["id"].startswith("SXID"))' "cause nvlink_fabric (an NVSwitch SXid is a fault of the NVLink fabric)"
json_check 'any(f["id"] == "XID_79" for f in d["findings"])' "the Xid 79 before them is kept"
run_nd --json --sysroot "$S" kernel "$K/sxid-h100-dlreq.dmesg"
json_check 'any(f["id"].startswith("SXID_") for f in d["findings"])' "the H100 excerpt gives SXid findings"
run_nd --sysroot "$S" kernel "$K/sxid-shapes.dmesg"
expect_out 'SXid' "every constructed shape is read"
finish
