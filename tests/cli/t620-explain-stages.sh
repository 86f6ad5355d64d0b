#!/usr/bin/env bash
# explain knows the words of the reports: T0..T10, the stages of NCCL's
# start-up timeline that `logs` and `watch` show per rank, each explained
# (what the log shows there, what a run that stops there means), never a
# word-search hit on some signature; and a former cause class id
# (hardware_xid_nvlink, split in schema 3) is still accepted: explain says
# what it became, and the schemas keep it valid for JSON consumers.
. "$(dirname "$0")/lib.sh"

for i in 0 1 2 3 4 5 6 7 8 9 10; do
  run_nd explain "T$i"
  expect_rc 0 "explain T$i"
  expect_out "^stage T$i\$" "T$i: the stage itself, not a word search"
  expect_out "a run that stops here +stopped" "T$i: what a run that stops there means"
  run_nd --json explain "T$i"
  json_check "len(d['entries']) == 1 and d['entries'][0]['kind'] == 'stage' and d['entries'][0]['id'] == 'T$i' and 'matches' not in d" "T$i --json: one stage entry"
done
run_nd explain t7
expect_out 'transports connected' "t7: any case"
expect_out 'P2P, SHM \(/dev/shm\), proxy or cuMem' "T7: stopping there points at transport set-up"
run_nd explain T10
expect_out 'first collective' "T10: the first collective"
run_nd --json explain --list --kind stage
json_check '[e["id"] for e in d["entries"]] == ["T%d" % i for i in range(11)]' "--list --kind stage: T0..T10"
run_nd explain T11
expect_no_out '^stage T11' "T11 is no stage"

# the former class id
run_nd explain hardware_xid_nvlink
expect_rc 0 "explain hardware_xid_nvlink: still accepted"
expect_out '^cause hardware_xid_nvlink$' "hardware_xid_nvlink: an exact hit, not a word search"
expect_out 'GPU hardware fault \(Xid / ECC / off the bus\) \[gpu_hardware\]' "it names what it became, in words with the ids"
run_nd --json explain HARDWARE_XID_NVLINK
json_check 'd["entries"][0]["id"] == "hardware_xid_nvlink" and d["entries"][0]["now"] == "gpu_hardware, nvlink_fabric, pcie_link, host_memory"' "--json: the classes it was split into"
run_nd --json explain --list --kind cause
json_check '{"gpu_hardware", "nvlink_fabric", "pcie_link", "host_memory", "app_gpu_fault"} <= {e["id"] for e in d["entries"]}' "the new classes are listed"
python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["$defs"]["cause_class"]["enum"]; sys.exit(0 if "hardware_xid_nvlink" in e and "gpu_hardware" in e else 1)' \
  "${ND_SRC:-$(dirname "$0")/../..}/docs/schema/common.json" && ok "the schema still accepts hardware_xid_nvlink" || not_ok "the schema lost hardware_xid_nvlink"
# Xid 13 is the application's kernel, not a collective mismatch
run_nd --json explain 13
json_check 'd["entries"][0]["cause"] == "app_gpu_fault"' "Xid 13: an application fault on the GPU"
finish
