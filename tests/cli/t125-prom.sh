#!/usr/bin/env bash
# --prom FILE (report/prom.c, docs/prometheus.md): the metrics of sys on
# recorded machines, and of check, topo, p2p, bench and merge on the fake GPU
# stack, read by a strict text-format reader (promcheck.py: names, labels,
# escapes, HELP and TYPE once per family before its samples, no time stamp,
# no series twice, also across the files of one textfile directory) and by
# the official client's parser where it is installed; the
# values say what the JSON says (verdict, exit status, findings, pairs,
# busbw per size, PCIe links, dcgm-exporter's labels); no temporary is left
# behind (test_outfile: the FILE.tmp.PID name and the rename); a directory that
# cannot be written is one line on stderr and exit 3, before the run when it
# is known then; a command without --prom refuses it (64).
. "$(dirname "$0")/lib.sh"
use_fake_gpus
S="$ND_FIXTURES/fakegpu"
SR="$ND_FIXTURES/sysroot"
PC="$ND_SRC/tests/cli/promcheck.py"
D="$ND_TMP/textfile"
mkdir -p "$D"

# sys on recorded machines: each file alone (each is another host)
for m in pcie-4gpu-acs hgx-fm-healthy no-driver; do
  run_nd sys --sysroot "$SR/$m" --prom "$ND_TMP/sys-$m.prom"
  [ -s "$ND_TMP/sys-$m.prom" ] && ok "sys $m: file written (exit $RC)" || not_ok "sys $m: no file (exit $RC)"
done
# (the reader's self-test first: it refuses the faults it must)
if python3 -S "$PC" --self-test --each --dump "$ND_TMP"/sys-*.prom >"$ND_TMP/dump-sys"; then ok "sys on 3 machines: valid text format"
else not_ok "sys: $(grep -v '^nccl_doctor_' "$ND_TMP/dump-sys")"; fi
cp "$ND_TMP/dump-sys" "$ND_TMP/dump"
has() { if grep -qxF -- "$1" "$ND_TMP/dump"; then ok "$2"; else not_ok "$2: no '$1'"; grep -F -- "${1%%\{*}" "$ND_TMP/dump" | head -3 | sed 's/^/    /'; fi; }
has 'nccl_doctor_verdict{Hostname="pcie-box",command="sys"} 2.0' "sys: BROKEN is 2"
has 'nccl_doctor_verdict_state{Hostname="pcie-box",command="sys",verdict="BROKEN"} 1.0' "sys: the state set marks BROKEN"
has 'nccl_doctor_exit_code{Hostname="pcie-box",command="sys"} 2.0' "sys: the exit status"
has 'nccl_doctor_finding{Hostname="pcie-box",cause="p2p_pcie_acs_iommu",command="sys",id="ACS_REDIRECT_ENABLED",severity="error"} 1.0' "sys: the finding by id, severity and cause"
has 'nccl_doctor_findings{Hostname="pcie-box",command="sys",severity="error"} 1.0' "sys: findings by severity"
has 'nccl_doctor_pcie_link_speed_transfers_per_second{Hostname="pcie-box",UUID="",command="sys",gpu="2",pci_bus_id="00000000:13:00.0"} 32000000000.0' "sys: PCIe speed in transfers per second, dcgm-exporter's pci_bus_id form"
has 'nccl_doctor_pcie_link_max_width{Hostname="pcie-box",UUID="",command="sys",gpu="0",pci_bus_id="00000000:03:00.0"} 16.0' "sys: PCIe maximum width"
has 'nccl_doctor_versions_info{Hostname="pcie-box",command="sys",cuda="",driver="580.95.05",nccl=""} 1.0' "sys: the driver in the versions info"
grep -q '^nccl_doctor_verdict{command="sys",Hostname="fresh-install"} [0-4]$' "$ND_TMP/sys-no-driver.prom" &&
  ok "sys without a driver: a verdict too" || not_ok "sys no-driver: $(grep verdict "$ND_TMP/sys-no-driver.prom" | head -2)"
grep -q '^nccl_doctor_nvswitch_fabric{command="sys",Hostname="hgx-a"} 1$' "$ND_TMP/sys-hgx-fm-healthy.prom" &&
  ok "sys on an HGX: the NVSwitch fabric" || not_ok "sys hgx: no nvswitch_fabric 1"

# one fake host: the files of five commands in one textfile directory
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/hgx8-healthy.json" run_nd --sysroot "$SR/hgx-fm-healthy" topo --driver --prom "$D/topo.prom"
expect_rc 0 "topo on a healthy HGX"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-p2p-corrupt.json" run_nd --json p2p --quick --gpus 1,3 --driver --sysroot "$SR/pcie-4gpu-acs" --timeout 5 --prom "$D/p2p.prom"
cp "$OUT" "$ND_TMP/p2p.json"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/nvlink8.json" run_nd bench all_reduce -b 8 -e 8K -f 32 -g 2 -n 2 -w 0 --prom "$D/bench.prom"
expect_rc 0 "bench: text output and a file"
expect_out '^# Verdict: HEALTHY' "bench: its nccl-tests text unchanged"
NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/nolib" run_nd check --driver --sysroot "$SR/pcie-4gpu-acs" --prom "$D/check.prom"
run_nd merge "$ND_FIXTURES"/fleet/*.json --prom "$D/merge.prom"
expect_rc 2 "merge: the worst node's status"
if python3 -S "$PC" --dump "$D"/*.prom >"$ND_TMP/dump"; then ok "topo, p2p, bench, check, merge: valid, and joined as one directory"
else not_ok "joined: $(grep -v '^nccl_doctor_' "$ND_TMP/dump")"; fi
# the official client's parser (python3-prometheus-client, Debian's python)
# reads the same samples: the reader above is not alone in its reading
PYD=python3; [ -x /usr/bin/python3 ] && PYD=/usr/bin/python3
"$PYD" - "$D"/*.prom "$ND_TMP"/sys-*.prom >"$ND_TMP/official" 2>&1 <<'PY'
import sys
try:
    from prometheus_client.parser import text_string_to_metric_families
except ImportError:
    sys.exit(77)
n = 0
for path in sys.argv[1:]:
    for fam in text_string_to_metric_families(open(path).read()):
        assert fam.name.startswith("nccl_doctor_") and fam.type == "gauge" and fam.documentation, fam.name
        n += len(fam.samples)
print(n)
PY
rc=$?
mine=$(cat "$ND_TMP/dump-sys" "$ND_TMP/dump" | grep -c '^nccl_doctor_')
if [ "$rc" = 77 ]; then skip "no prometheus_client (python3-prometheus-client) for the official parser"
elif [ "$rc" = 0 ] && [ "$(cat "$ND_TMP/official")" = "$mine" ]; then ok "the official parser reads the same $mine samples"
else not_ok "official parser: rc $rc, $(tail -2 "$ND_TMP/official"), the reader: $mine"; fi
has 'nccl_doctor_fabric_state{Hostname="hgx-a",UUID="GPU-fa4e0000-0000-4000-8000-000000000007",command="topo",gpu="7",pci_bus_id="00000000:DB:00.0"} 3.0' "topo: fabric state completed, with the GPU's UUID and bus id"
has 'nccl_doctor_nvlink_active{Hostname="hgx-a",UUID="GPU-fa4e0000-0000-4000-8000-000000000000",command="topo",gpu="0",link="17",pci_bus_id="00000000:18:00.0"} 1.0' "topo: NVLinks"
has 'nccl_doctor_pcie_link_generation{Hostname="hgx-a",UUID="GPU-fa4e0000-0000-4000-8000-000000000000",command="topo",gpu="0",pci_bus_id="00000000:18:00.0"} 5.0' "topo: PCIe generation (NVML)"
python3 -S - "$ND_TMP/p2p.json" "$ND_TMP/dump" <<'PY' && ok "p2p: one state per pair, its JSON status (CORRUPT between GPUs 1 and 3)" || not_ok "p2p: states differ from the JSON"
import json, re, sys
words = ["OK", "SLOW", "NO_P2P", "ERROR", "CORRUPT", "HANG", "SKIPPED", "VOID"]
want = {(str(p["src"]), str(p["dst"])): float(next(i for i, w in enumerate(words) if p["status"].startswith(w)))
        for p in json.load(open(sys.argv[1]))["pairs"]}
got = {}
for line in open(sys.argv[2]):
    if line.startswith("nccl_doctor_p2p_pair_state{"):
        g = re.search(r'[{,]gpu="(\d+)"', line).group(1); pg = re.search(r'peer_gpu="(\d+)"', line).group(1)
        got[(g, pg)] = float(line.rsplit(" ", 1)[1])
print("# p2p: states %s, JSON %s" % (got, want))
sys.exit(0 if got == want and 4.0 in want.values() else 1)
PY
n=$(grep -c '^nccl_doctor_bench_bus_bandwidth_bytes_per_second{.*op="all_reduce".*placement="\(in\|out_of\)_place"' "$ND_TMP/dump")
[ "$n" = 6 ] && ok "bench: busbw per size (8 B, 256 B, 8 KiB) and placement" || not_ok "bench: $n busbw samples, wanted 6"
grep -q '^nccl_doctor_bench_wrong_elements{.*size_bytes="8192".*} 0.0$' "$ND_TMP/dump" && ok "bench: #wrong per size" || not_ok "bench: no wrong_elements"
grep -q '^nccl_doctor_check_stage_duration_seconds{.*stage="sys"} ' "$ND_TMP/dump" && ok "check: stage durations" || not_ok "check: no stage durations"
grep -q '^nccl_doctor_run_duration_seconds{Hostname="pcie-box",command="check"} ' "$ND_TMP/dump" && ok "check: the run's duration" || not_ok "check: no duration"
now=$(date +%s)
awk -v now="$now" '/^nccl_doctor_last_run_timestamp_seconds/ { n++; if ($2 < now - 600 || $2 > now + 5) bad++ } END { exit !(n == 5 && !bad) }' "$ND_TMP/dump" &&
  ok "every file: a last-run time stamp of now (seconds)" || not_ok "last-run time stamps: $(grep last_run "$ND_TMP/dump")"
has 'nccl_doctor_node_verdict{Hostname="3f2a9c1b7d10",command="merge"} 2.0' "merge: each node's verdict under its own Hostname"
has 'nccl_doctor_fleet_nodes{Hostname="vm",command="merge",state="broken"} 4.0' "merge: nodes by state"
left=$(ls -A "$D" | grep -v '\.prom$' || true)
[ -z "$left" ] && ok "no temporary left in the directory" || not_ok "left: $left"

# what cannot be written
run_nd sys --sysroot "$SR/pcie-4gpu-acs" --prom "$ND_TMP/none/x.prom"
expect_rc 3 "a missing directory: exit 3"
expect_err_lines 1 "one line on stderr"
expect_err "^nccl-doctor: --prom: cannot write '.*none/x.prom': its directory" "saying which file and why"
expect_no_out "Host" "before the run (no report)"
ln -s "$ND_TMP/victim" "$D/link.prom"
run_nd sys --sysroot "$SR/pcie-4gpu-acs" --prom "$D/link.prom"
expect_rc 3 "a symbolic link at FILE is refused"
[ ! -e "$ND_TMP/victim" ] && ok "and not written through" || not_ok "wrote through the link"
# known only at the end (a directory where nothing can be created): the run's report, then one line
run_nd sys --sysroot "$SR/pcie-4gpu-acs" --prom /proc/nccl-doctor-test.prom
expect_rc 3 "a directory that refuses the temporary: exit 3"
expect_err_lines 1 "one line on stderr"
expect_err "^nccl-doctor sys: --prom: cannot write '/proc/nccl-doctor-test.prom'" "naming the file"
run_nd logs --prom "$D/k.prom" "$ND_TMP/dump"
expect_rc 64 "logs does not take --prom"
expect_err "--prom does not apply to this command" "and says so"
finish
