#!/usr/bin/env bash
# merge: the per-node JSON of four "nodes" (sys on four recorded sysroots,
# each written by --out DIR/%h.json under its own host name) joined into
# one report: worst node first, the missing node of --expect-nodes as its
# own state, the fabric manager versions that differ within the HGX class
# (the odd node named; the PCIe node's other driver is no difference), findings grouped by cause class, the drain/cordon lines of
# the broken nodes only (printed, never run), exit status the worst node's;
# two files of one node make one row; a directory and a quoted pattern work.
. "$(dirname "$0")/lib.sh"
SR="$ND_FIXTURES/sysroot"
R="$ND_TMP/r"; mkdir "$R"
for s in hgx-fm-healthy hgx-fm-stopped hgx-fm-version-mismatch pcie-4gpu-acs; do
  run_nd --json --out "$R/%h.json" sys --sysroot "$SR/$s"
  [ -s "$R/$(cat "$SR/$s/proc/sys/kernel/hostname").json" ] || not_ok "sys --out %h: no file for $s"
done
[ "$(ls "$R")" = "$(printf 'hgx-a.json\nhgx-b.json\nhgx-c.json\npcie-box.json')" ] && ok "--out DIR/%h.json: one file per node, named by its host name" || not_ok "files: $(ls "$R")"

run_nd --json merge "$R"
expect_rc 2 "a broken node: exit 2"
json_checks \
  "d['command'] == 'merge' and d['verdict'] == 'BROKEN' and d['summary']['exit_code'] == 2" "verdict BROKEN, exit_code 2" \
  "[n['node'] for n in d['facts']['nodes']['nodes']] == ['hgx-b', 'hgx-c', 'pcie-box', 'hgx-a']" "worst first: the broken nodes by name, then the healthy one" \
  "[n['state'] for n in d['facts']['nodes']['nodes']] == ['BROKEN', 'BROKEN', 'BROKEN', 'HEALTHY']" "each node's own verdict" \
  "d['facts']['nodes']['nodes'][0]['class'] == '8x H100 SXM5 80GB' and d['facts']['nodes']['nodes'][2]['class'] == '4x H100 PCIe'" "hardware class: GPU count and model" \
  "{(x['component'], x['class'], x['value'], x['count']) for x in d['facts']['differences']['differences']} == {('fabric_manager', '8x H100 SXM5 80GB', '570.86.15', 2), ('fabric_manager', '8x H100 SXM5 80GB', '570.124.06', 1)}" "the fabric manager versions that differ within the HGX class, with their counts; pcie-box's other driver is another class's" \
  "'fabric_manager 570.124.06 (most nodes: 570.86.15)' in d['facts']['nodes']['nodes'][1]['reason']" "the odd node's version named in its row" \
  "any(x['cause'] == 'fabric_manager_nvswitch' and x['finding'] == 'FABRIC_MANAGER_NOT_RUNNING' and x['count'] == 2 and x['nodes'] == 'hgx-b, hgx-c' for x in d['facts']['by_cause']['by_cause'])" "grouped by cause: one finding on two nodes" \
  "sorted({a['node'] for a in d['actions']}) == ['hgx-b', 'hgx-c', 'pcie-box']" "actions for the broken nodes only" \
  "any(a['command'] == 'scontrol update nodename=hgx-b state=drain reason=\"nccl-doctor: BROKEN FABRIC_MANAGER_NOT_RUNNING: the fabric manager is not running (4 NVSwitches)\"' for a in d['actions'])" "the Slurm drain line with its one-line reason" \
  "{a['command'] for a in d['actions'] if a['node'] == 'pcie-box' and a['scheduler'] == 'kubernetes'} == {'kubectl cordon pcie-box', 'kubectl taint nodes pcie-box nccl-doctor=broken:NoSchedule --overwrite'}" "the Kubernetes cordon and taint lines" \
  "any(f['id'] == 'FLEET_NODE_BROKEN' and f['cause'] == 'p2p_pcie_acs_iommu' and f['title'].startswith('pcie-box: BROKEN: ACS_REDIRECT_ENABLED') for f in d['findings'])" "a broken node's finding carries its own cause class"

# text: the node table and the actions, printed
run_nd merge "$R"
expect_out '^  ! hgx-b +BROKEN +8x H100 SXM5 80GB' "text: the node table, worst first"
expect_out 'kubectl cordon hgx-c' "text: the cordon line printed"
expect_out '^Verdict: BROKEN' "text: the verdict"

# --expect-nodes: the node that sent nothing is its own state; one more
# expected name than files; a node not expected is said
run_nd --json merge --expect-nodes 'hgx-a,hgx-b,hgx-c,hgx-d,pcie-box' "$R"
expect_rc 2 "a missing node beside broken ones: still 2 (a problem found outranks unknown)"
json_checks \
  "[(n['node'], n['state']) for n in d['facts']['nodes']['nodes']][3] == ('hgx-d', 'missing')" "hgx-d: missing, after the broken nodes" \
  "d['facts']['fleet']['missing'] == 1 and d['facts']['fleet']['expected'] == 5" "counts: 5 expected, 1 missing" \
  "any(f['id'] == 'FLEET_NODE_MISSING' and f['title'].startswith('hgx-d') for f in d['findings'])" "FLEET_NODE_MISSING names it" \
  "'missing: hgx-d' in d['headline']" "the headline names it" \
  "not any(a['node'] == 'hgx-d' for a in d['actions'])" "a missing node is looked at, not drained"

# only healthy and missing: exit 3 (unknown); only healthy: 0
run_nd --json merge --expect-nodes 'hgx-a,gpu[01-02]' "$R/hgx-a.json"
expect_rc 3 "healthy and missing: exit 3"
json_check "d['verdict'] == 'INCOMPLETE' and [n['node'] for n in d['facts']['nodes']['nodes']] == ['gpu01', 'gpu02', 'hgx-a']" "INCOMPLETE; the missing ones first"
run_nd merge "$R/hgx-a.json"
expect_rc 0 "one healthy node: exit 0"
run_nd --json merge --expect-nodes 'pcie-box' "$R/hgx-a.json" "$R/pcie-box.json"
json_check "'not in --expect-nodes' in d['facts']['nodes']['nodes'][1]['reason'] and d['facts']['fleet']['unexpected'] == 1" "a node not expected is said"

# a quoted pattern, and two files of one node (sys and a check-like copy) make one row
run_nd --json merge "$R/hgx-*.json"
json_check "len(d['facts']['nodes']['nodes']) == 3" "a quoted pattern expanded by merge"
python3 - "$R/hgx-a.json" "$ND_TMP/hgx-a-bench.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d['command'] = 'bench'
d['verdict'] = 'DEGRADED'; d['summary']['exit_code'] = 1
d['findings'] = [{'id': 'BENCH_SLOW', 'severity': 'warning', 'cause': 'unknown', 'title': 'slow', 'evidence': [], 'fixes': []}]
json.dump(d, open(sys.argv[2], 'w'))
PY
run_nd --json merge "$R/hgx-a.json" "$ND_TMP/hgx-a-bench.json"
json_check "len(d['facts']['nodes']['nodes']) == 1 and d['facts']['nodes']['nodes'][0]['state'] == 'DEGRADED' and d['facts']['nodes']['nodes'][0]['commands'] == 'sys, bench'" "two files of one node: one row, the worse verdict, both commands"
expect_rc 1 "exit 1: the node's worse file"
finish
