#!/usr/bin/env bash
# nccl-doctor explain: Xid codes in every spelling, finding ids, variables,
# symptoms, causes, word search, --list, JSON, and bad usage; every Xid code
# and every variable of the tables answers with exit 0.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the reports (tables, evidence, fixes)
export COLUMNS=1000 # each finding on one line, for grep

run_nd explain --help
expect_rc 0 "explain --help"
run_nd explain
expect_rc 64 "explain without a topic"
run_nd explain --list 79
expect_rc 64 "--list with a topic"
run_nd explain --list --kind bogus
expect_rc 64 "--kind with a bad kind"

for t in 79 XID_79 xid79 "Xid 79" xid-79; do
  run_nd explain "$t"
  expect_rc 0 "explain '$t'"
  expect_out 'ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS' "'$t': the catalog name"
done
run_nd explain 79
expect_out 'immediate action +RESTART_BM \(reboot the node' "Xid 79: action and its meaning"
expect_out 'class +BUS' "Xid 79: class"
run_nd explain 45
expect_out 'secondary' "Xid 45: says it is secondary after a killed job"
run_nd explain 5
expect_rc 3 "an Xid code not in the catalog"
expect_err "Xid 5 is not in the catalog" "unknown Xid: message"

run_nd explain NCCL_P2P_LEVEL
expect_rc 0 "explain NCCL_P2P_LEVEL"
expect_out 'values +LOC, NVL, NVB, C2C, PIX, PXB' "variable: values"
expect_out 'default +auto' "variable: default"
expect_out 'since NCCL +2.3.4' "variable: version"
run_nd explain nccl_socket_ifname
expect_rc 0 "variable name in lower case"

run_nd explain P2P_IOMMU_FAULT
expect_rc 0 "explain a finding"
expect_out 'cause class +P2P over PCIe blocked \(ACS / IOMMU\) \[p2p_pcie_acs_iommu\]' "finding: cause in words, with its id"
expect_out 'what it means' "finding: meaning"
expect_out 'fix +Put the IOMMU in passthrough' "finding: fix"
run_nd explain SYSROOT_INCOMPLETE
expect_rc 0 "a finding of another area"

run_nd explain "hang at init"
expect_rc 0 "word search"
expect_out '^HANG_AT_INIT: hang at NCCL init' "hang at init: the quick-reference row first"
expect_out 'NCCL_P2P_DISABLE=1' "hang at init: the guide's fix"
expect_out "nccl-doctor check. ranks the configurations" "hang at init: the configurations to try"
run_nd explain hang at init
expect_out '^HANG_AT_INIT' "unquoted words are joined"
run_nd explain memory used but no response
expect_out '^MEMORY_USED_NO_RESPONSE' "memory used but no response -> driver deadlock row"
expect_out 'upgrade the driver or restart' "driver deadlock: the guide's fix"
run_nd explain some GPUs not working
expect_out '^SOME_GPUS_NOT_WORKING' "some GPUs not working -> NUMA row"
expect_out 'numactl' "NUMA: numactl"
run_nd explain throughput fluctuating
expect_out '^THROUGHPUT_FLUCTUATING' "throughput fluctuating -> network row"
expect_out 'ibstatus' "network: ibstatus"
run_nd explain occasional crashes
expect_out '^OCCASIONAL_CRASHES' "occasional crashes -> ECC row"
expect_out 'nvidia-smi -e 0. DISABLES ECC' "ECC: explains why -e 0 hides the problem"
run_nd explain p2p_pcie_acs_iommu
expect_out 'P2P_IOMMU_FAULT' "cause class lists its findings"
expect_out 'first step.*nccl-doctor check' "cause class: its first step"
run_nd explain zzzzqqqq
expect_rc 3 "nothing matches"
expect_err "nothing in the knowledge base matches 'zzzzqqqq'" "no match: message"
expect_err_lines 1 "no match: one line"

run_nd --json explain 79
json_check 'd["command"] == "explain" and d["entries"][0]["kind"] == "xid" and d["entries"][0]["code"] == 79' "JSON: the Xid entry"
json_check 'd["entries"][0]["name"] == "ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS" and d["entries"][0]["class"] == "BUS"' "JSON: name and class"
run_nd --json explain "hang at init"
json_check 'd["query"] == "hang at init" and d["entries"][0]["id"] == "HANG_AT_INIT" and len(d["matches"]) >= 1' "JSON: search result and matches"
run_nd --json explain --list
expect_rc 0 "--list"
json_check 'set(e["kind"] for e in d["entries"]) >= {"xid", "finding", "variable", "symptom", "cause"}' "--list covers every kind"
json_check 'sum(1 for e in d["entries"] if e["kind"] == "symptom") == 5' "--list: five symptoms"

# every Xid and every variable of the tables answers
run_nd --json explain --list --kind xid
python3 -c 'import json,sys; [print(e["id"]) for e in json.load(open(sys.argv[1]))["entries"]]' "$OUT" >"$ND_TMP/xids"
n=$(wc -l <"$ND_TMP/xids"); bad=0
while read -r id; do "$ND_BIN" explain "$id" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "    failed: $id"; }
  "$ND_BIN" explain "${id#XID_}" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "    failed: ${id#XID_}"; }; done <"$ND_TMP/xids"
if [ "$n" -ge 120 ] && [ "$bad" -eq 0 ]; then ok "all $n Xid codes explained"; else not_ok "Xid codes: $n listed, $bad failed"; fi
run_nd --json explain --list --kind variable
python3 -c 'import json,sys; [print(e["id"]) for e in json.load(open(sys.argv[1]))["entries"]]' "$OUT" >"$ND_TMP/vars"
n=$(wc -l <"$ND_TMP/vars"); bad=0
while read -r id; do "$ND_BIN" explain "$id" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "    failed: $id"; }; done <"$ND_TMP/vars"
if [ "$n" -ge 70 ] && [ "$bad" -eq 0 ]; then ok "all $n variables explained"; else not_ok "variables: $n listed, $bad failed"; fi
# the knowledge base file itself, where this checkout has it: every NCCL_* name in nccl-env.md
KB="${ND_SRC:-.}/../shared/kb/nccl-env.md"
if [ -f "$KB" ]; then
  bad=0
  for v in $(grep -oE '\b(NCCL|TORCH|CUDA|VLLM|GLOO)_[A-Z0-9_]*[A-Z0-9]\b' "$KB" | sort -u); do
    case "$v" in NCCL_MIN|NCCL_MAX|NCCL_MIN_CTAS|NCCL_MAX_CTAS) continue;; esac  # "NCCL_MIN/MAX_..." abbreviations
    "$ND_BIN" explain "$v" >/dev/null 2>&1 || { bad=$((bad + 1)); echo "    missing: $v"; }
  done
  if [ "$bad" -eq 0 ]; then ok "every variable named in nccl-env.md is explained"; else not_ok "$bad variables of nccl-env.md missing"; fi
fi
# the README's signature count is the table's (issue 10 item 13)
n=$("$ND_BIN" explain --list 2>/dev/null | grep -c '^    signature ')
r=$(grep -o '[0-9]* hand-written signatures' "$ND_SRC/README.md" | grep -o '^[0-9]*')
[ -n "$r" ] && [ "$n" = "$r" ] && ok "README says $r hand-written signatures: the table has $n" ||
  not_ok "README says '${r:-nothing}' hand-written signatures, the table has $n"

finish
