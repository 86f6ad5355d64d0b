#!/usr/bin/env bash
# nccl-doctor explain: NVSwitch SXid codes (kb/sxid.def) in every spelling,
# the guide's classes, an unknown code, --kind sxid, JSON; every SXid of the
# table answers with exit 0.
. "$(dirname "$0")/lib.sh"

for t in 20034 SXID_20034 sxid20034 "SXid 20034" sxid-20034; do
  run_nd explain "$t"
  expect_rc 0 "explain '$t'"
  expect_out 'NVSWITCH_ERR_HW_DLPL_LTSSM_FAULT_UP' "'$t': the driver's name"
done
run_nd explain 20034
expect_out 'class +fatal to the port' "SXid 20034: the guide's class"
expect_out 'action +RESET_FABRIC \(' "SXid 20034: action and its meaning"
expect_out 'with NCCL' "SXid 20034: what it does to NCCL"
run_nd explain 22013
expect_out 'class +non-fatal' "SXid 22013: non-fatal"
expect_out 'action +IGNORE' "SXid 22013: ignore"
run_nd explain 23001
expect_out 'class +always fatal' "SXid 23001: always fatal"
run_nd explain 26006
expect_out 'class +undocumented' "SXid 26006: in the driver only"
expect_out 'LINE_SEVERITY' "SXid 26006: the line's word decides"
run_nd explain 79
expect_out 'ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS' "Xid codes still win below 10000"
run_nd explain 29999
expect_rc 3 "an SXid code not in the catalog"
expect_err "SXid 29999 is not in the catalog" "unknown SXid: message"
run_nd explain sxid5
expect_rc 3 "sxid with an Xid-sized number"

run_nd --json explain 12028
expect_rc 0 "--json explain 12028"
json_check 'd["entries"][0]["kind"] == "sxid" and d["entries"][0]["code"] == 12028 and d["entries"][0]["class"] == "non-fatal"' "JSON: the SXid entry"

run_nd --json explain --list --kind sxid
expect_rc 0 "--list --kind sxid"
python3 -c 'import json,sys; [print(e["id"]) for e in json.load(open(sys.argv[1]))["entries"]]' "$OUT" >"$ND_TMP/sxids"
n=$(wc -l <"$ND_TMP/sxids"); bad=0
[ "$n" -ge 390 ] && ok "--list --kind sxid lists the table ($n)" || not_ok "--list --kind sxid lists $n entries"
while read -r id; do
  "$ND_BIN" explain "${id#SXID_}" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "    failed: ${id#SXID_}"; }; done <"$ND_TMP/sxids"
[ "$bad" -eq 0 ] && ok "every SXid of the table explains with exit 0" || not_ok "$bad SXids fail"

# the driver's GPU-fatal RM statuses (kb/rm_status.def), by name and by code
for t in NV_ERR_RESET_REQUIRED nv_err_reset_required 0x62 0x00000062; do
  run_nd explain "$t"
  expect_rc 0 "explain '$t'"
  expect_out 'Reset required' "'$t': the driver's text"
done
run_nd explain NV_ERR_RESET_REQUIRED
expect_out 'cause class +GPU hardware' "NV_ERR_RESET_REQUIRED: its cause class"
expect_out 'logs signature +K03' "NV_ERR_RESET_REQUIRED: the logs signature"
run_nd explain --list --kind rm_status
expect_rc 0 "--kind rm_status"
expect_out 'NV_ERR_GPU_IS_LOST' "--kind rm_status lists the table"
finish
