#!/usr/bin/env bash
# merge's outliers within a hardware class: five nodes of one class (sys of
# the same recorded HGX, --node-name n1..n5) with a bench each (the JSON of
# a real bench run on the fake stack, its busbw set per node), one of them
# far below the others, and a node of another class whose low busbw is no
# outlier (a class of one). The slow node is DEGRADED with the median and
# MAD said; it is drained only under --fail-on warning; exit 1, 0 under
# --fail-on error, 1 (problem) under --exit-style npd. Then one node with
# another driver and NCCL is named as the odd one (driver within its class,
# NCCL across all nodes).
. "$(dirname "$0")/lib.sh"
use_fake_gpus
SR="$ND_FIXTURES/sysroot"
R="$ND_TMP/r"; mkdir "$R"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4.json" run_nd --json --node-name bench0 --out "$ND_TMP/bench.json" bench -g 2 -b 1M -e 1M
[ "$RC" -eq 0 ] && ok "a bench run on the fake stack" || not_ok "bench: exit $RC: $(head -3 "$ERR")"
for n in 1 2 3 4 5; do
  "$ND_BIN" --json --node-name "n$n" --out "$R/n$n-sys.json" sys --sysroot "$SR/hgx-fm-healthy" 2>/dev/null
done
"$ND_BIN" --json --node-name other1 --out "$R/other1-sys.json" sys --sysroot "$SR/h200-vm" 2>/dev/null
python3 - "$ND_TMP/bench.json" "$R" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d['bench']['complete'] and d['hostname'] == 'bench0'
for name, bw in (('n1', 180.2), ('n2', 181.0), ('n3', 179.4), ('n4', 96.5), ('n5', 180.6), ('other1', 20.0)):
    d['hostname'] = name
    d['bench']['avg_busbw'] = bw
    json.dump(d, open('%s/%s-bench.json' % (sys.argv[2], name), 'w'))
PY

run_nd --json merge "$R"
expect_rc 1 "an outlier: exit 1"
json_checks \
  "d['verdict'] == 'DEGRADED'" "verdict DEGRADED" \
  "[(o['node'], o['metric'], o['value'], o['median'], o['nodes']) for o in d['facts']['outliers']['outliers']] == [('n4', 'busbw_gbs', 96.5, 180.2, 5)]" "n4 alone, against the median of its class of 5" \
  "d['facts']['outliers']['outliers'][0]['class'] == '8x H100 SXM5 80GB'" "its class named" \
  "[(n['node'], n['state']) for n in d['facts']['nodes']['nodes']][0] == ('n4', 'DEGRADED')" "n4 DEGRADED, first" \
  "all(n['state'] == 'HEALTHY' for n in d['facts']['nodes']['nodes'][1:])" "the others, other1's 20 GB/s too (a class of one), healthy" \
  "any(f['id'] == 'FLEET_OUTLIER' and f['title'].startswith('n4: bench busbw') and '46 % below the median 180.20 of 5 nodes' in f['title'] for f in d['findings'])" "FLEET_OUTLIER: how far below" \
  "d['actions'] == []" "no drain for a warning by default" \
  "d['facts']['nodes']['nodes'][0]['busbw_gbs'] == 96.5 and d['facts']['nodes']['nodes'][0]['commands'] == 'bench, sys'" "the node row: its busbw, both files (read in name order)"
run_nd --json --fail-on warning merge "$R"
expect_rc 1 "--fail-on warning: exit 1"
json_checks \
  "[a['command'] for a in d['actions'] if a['scheduler'] == 'slurm'] == ['scontrol update nodename=n4 state=drain reason=\"nccl-doctor: DEGRADED: busbw_gbs 96.5, class median 180.2\"']" "--fail-on warning: n4 drained, the reason says why" \
  "any(a['command'] == 'kubectl taint nodes n4 nccl-doctor=degraded:NoSchedule --overwrite' for a in d['actions'])" "and tainted degraded"
run_nd --fail-on error merge "$R"
expect_rc 0 "--fail-on error: exit 0"
run_nd --exit-style npd merge "$R"
expect_rc 1 "--exit-style npd: 1 (a problem)"

# one node with another driver and NCCL: named as the odd one of each
python3 - "$R" <<'PY'
import json, sys
r = sys.argv[1]
s = json.load(open(r + '/n5-sys.json')); s['facts']['driver']['version'] = '575.57.08'
json.dump(s, open(r + '/n5-sys.json', 'w'))
b = json.load(open(r + '/n5-bench.json')); b['facts']['bench']['ranks'][0]['nccl'] = '2.26.2'
json.dump(b, open(r + '/n5-bench.json', 'w'))
PY
run_nd --json merge "$R"
json_checks \
  "[n['reason'] for n in d['facts']['nodes']['nodes'] if n['node'] == 'n5'] == ['driver 575.57.08 (most nodes: 570.86.15); nccl 2.26.2 (most nodes: 2.28.3)']" "n5: its driver and NCCL named against the others'" \
  "[n['state'] for n in d['facts']['nodes']['nodes'] if n['node'] == 'n5'] == ['DEGRADED']" "n5 DEGRADED" \
  "{(x['component'], x['class'], x['value'], x['count']) for x in d['facts']['differences']['differences']} == {('driver', '8x H100 SXM5 80GB', '570.86.15', 4), ('driver', '8x H100 SXM5 80GB', '575.57.08', 1), ('nccl', 'all nodes', '2.28.3', 5), ('nccl', 'all nodes', '2.26.2', 1)}" "the driver within the class, NCCL across all nodes" \
  "sum(f['id'] == 'FLEET_VERSION_DIFFERS' and f['cause'] == 'version_mismatch' for f in d['findings']) == 2" "FLEET_VERSION_DIFFERS, version_mismatch, once for each"
finish
