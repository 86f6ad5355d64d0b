#!/bin/bash
# nccl-doctor logs --sysroot DIR: the log's causes weighed with the facts of the
# machine recorded in DIR (analyze/logs/rules/host.c, the one cause table):
#  - a log that stops right after its P2P/IPC channels (a weak prior alone) on
#    a machine with ACS redirect on, or a translating IOMMU: one strong
#    p2p_pcie_acs_iommu, above both the log alone and the machine's 0.6, with
#    the channel line (source log) and the bridge's ACS bits (source machine);
#    on a machine where nothing blocks P2P the cause goes, with the reason,
#    and with only priors left the cause is unknown (LOG_CAUSE_UNKNOWN: what
#    to collect for the stage the log reached);
#  - "Failed to initialize any NET plugin" (the real H200 capture, NCCL_NET=IB)
#    on a machine without RDMA devices whose environment sets NCCL_NET=IB:
#    certain (0.97), each fact as evidence; without NCCL_NET it stays as the
#    log alone says;
#  - a SIGBUS after SHM channels on a machine with a 64 MiB /dev/shm: stronger
#    than alone, the size as evidence;
#  - an empty sysroot knows nothing: the report is the log's alone.
. "$(dirname "$0")/lib.sh"
J="$ND_FIXTURES/logs/joined"
S="$ND_FIXTURES/sysroot"
# One python3 for many checks (each start costs): keep NAME saves the last
# JSON as NAME; checks EXPR DESC ... evaluates each EXPR over d (the last
# JSON) with saved(NAME) and conf(doc, CAUSE) (its confidence, 0 absent).
keep() { cp "$OUT" "$ND_TMP/$1.json"; }
checks() {
	local res
	res=$(python3 - "$OUT" "$ND_TMP" "$@" <<'PY'
import json, os, sys
out, tmp, args = sys.argv[1], sys.argv[2], sys.argv[3:]
d = json.load(open(out))
def saved(n): return json.load(open(os.path.join(tmp, n + ".json")))
def conf(doc, cause): return next((c["confidence"] for c in doc["causes"] if c["cause"] == cause), 0)
def ev(doc, src): return [e for e in doc["causes"][0]["evidence"] if e.get("source") == src]
for expr, desc in zip(args[0::2], args[1::2]):
    try:
        good = bool(eval(expr))
    except Exception as x:
        good, desc = False, "%s: %s" % (desc, x)
    print(("ok - " if good else "not ok - ") + desc + ("" if good else ": " + expr))
PY
)
	echo "$res"
	ND_PASS=$((ND_PASS + $(grep -c '^ok - ' <<<"$res")))
	ND_FAIL=$((ND_FAIL + $(grep -c '^not ok - ' <<<"$res")))
}

# P2P: alone, then on each machine
run_nd --json logs "$J/p2p-setup-stop.log"
keep p2p
checks 'd.get("cause_unknown") is True and d["causes"][0]["cause"] == "p2p_pcie_acs_iommu"' "P2P stop alone: a weak prior first, the cause unknown" \
	'all("source" not in e for c in d["causes"] for e in c["evidence"])' "alone: no evidence says a source"
for sr in pcie-4gpu-acs iommu-translated; do
	run_nd --json --sysroot "$S/$sr" logs "$J/p2p-setup-stop.log"
	expect_rc 2 "P2P stop on $sr: a problem"
	checks 'd["causes"][0]["cause"] == "p2p_pcie_acs_iommu"' "$sr: p2p_pcie_acs_iommu first" \
		'conf(d, "p2p_pcie_acs_iommu") > max(0.6, conf(saved("p2p"), "p2p_pcie_acs_iommu"))' "$sr: above the log alone and the machine's 0.6" \
		'"cause_unknown" not in d and not any(f["id"] == "LOG_CAUSE_UNKNOWN" for f in d["findings"])' "$sr: a cause, not unknown" \
		'any(e["file"].endswith("p2p-setup-stop.log") and "via P2P/IPC" in e["text"] for e in ev(d, "log"))' "$sr: the channel line from the log" \
		'any(e["file"] is None and "the machine of sysroot" in e["text"] for e in ev(d, "machine"))' "$sr: the machine's fact"
	case $sr in
	pcie-4gpu-acs) checks 'any("bridge 0000:02:08.0" in e["text"] and "ReqRedir+ CmpltRedir+" in e["text"] for e in ev(d, "machine"))' "$sr: the bridge and its ACS bits" ;;
	*) checks 'any("IOMMU" in e["text"] for e in ev(d, "machine"))' "$sr: the IOMMU named" ;;
	esac
done
run_nd --sysroot "$S/pcie-4gpu-acs" logs "$J/p2p-setup-stop.log"
expect_out '^    \[log .*p2p-setup-stop\.log:22\] Channel 00/0 : 0\[0\] -> 1\[1\] via P2P/IPC' "text: the log's line says it came from the log"
expect_out '^    \[machine\] the machine of sysroot .*pcie-4gpu-acs: ACS redirect is on' "text: the fact says it came from the machine"

run_nd --json --sysroot "$S/hgx-fm-healthy" logs "$J/p2p-setup-stop.log"
checks 'not any(c["cause"] == "p2p_pcie_acs_iommu" for c in d["causes"])' "ACS off on every bridge: the P2P cause goes" \
	'any(e["text"].startswith("dropped p2p_pcie_acs_iommu") and "ACS redirect is off on every bridge" in e["text"] for e in ev(d, "analysis"))' "with the reason" \
	'd.get("cause_unknown") is True and "cause unknown" in d["headline"] and "(T7)" in d["headline"]' "only priors left: the headline says the cause is unknown, at T7" \
	'any(f["id"] == "LOG_CAUSE_UNKNOWN" and any(e["text"].startswith("collect next: ") and "NCCL_DEBUG_SUBSYS=INIT,P2P,SHM,NET,GRAPH,ENV" in e["text"] and "nvidia-smi topo -m" in e["text"] and "nccl-doctor snapshot" in e["text"] for e in f["evidence"]) for f in d["findings"])' "what to collect for T7: the subsystems, topo -m, a snapshot"
run_nd --sysroot "$S/hgx-fm-healthy" logs "$J/p2p-setup-stop.log"
expect_out '^Cause unknown; first candidate: ' "text: no 'most likely' for a prior"
expect_out '^Collect next: every rank.s log with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=INIT,P2P' "text: what to collect next on the first screen"

# IB: NCCL_NET=IB on a machine without RDMA devices (a copy of the H200's tree)
cp -r "$S/h200-vm" "$ND_TMP/h200" && printf 'NCCL_NET=IB\0' >>"$ND_TMP/h200/proc/self/environ"
run_nd --json logs "$ND_FIXTURES/logs/real-h200-2rank/netib"
keep ib
run_nd --json --sysroot "$S/h200-vm" logs "$ND_FIXTURES/logs/real-h200-2rank/netib"
keep ib-nonet
run_nd --json --sysroot "$ND_TMP/h200" logs "$ND_FIXTURES/logs/real-h200-2rank/netib"
checks 'd["causes"][0]["cause"] == "nccl_config_error"' "no NET plugin, NCCL_NET=IB, no RDMA device: nccl_config_error first" \
	'conf(d, "nccl_config_error") >= 0.97 > conf(saved("ib"), "nccl_config_error")' "certain (0.97), above the log alone" \
	'any("Failed to initialize any NET plugin" in e["text"] for e in ev(d, "log"))' "IB: the NCCL warning from the log" \
	'any("no RDMA device" in e["text"] for e in ev(d, "machine"))' "IB: no RDMA device on the machine" \
	'any("NCCL_NET=IB in the environment" in e["text"] for e in ev(d, "machine"))' "IB: NCCL_NET=IB in the machine's environment" \
	'conf(saved("ib-nonet"), "nccl_config_error") == conf(saved("ib"), "nccl_config_error")' "no NCCL_NET in the machine's environment: as the log alone"

# SHM: a SIGBUS after SHM channels, then with Docker's 64 MiB /dev/shm
run_nd --json logs "$J/shm-sigbus.log"
keep shm
run_nd --json --sysroot "$S/docker-small-shm" logs "$J/shm-sigbus.log"
checks 'd["causes"][0]["cause"] == "shm_too_small"' "SIGBUS over SHM on a 64 MiB /dev/shm: shm_too_small first" \
	'conf(d, "shm_too_small") > max(0.8, conf(saved("shm"), "shm_too_small"))' "one strong cause, above the log alone" \
	'any("/dev/shm is only 64 MiB" in e["text"] for e in ev(d, "machine"))' "shm: the size as evidence"

# an empty tree knows nothing of the machine: the log's own report
mkdir -p "$ND_TMP/empty"
run_nd --json --sysroot "$ND_TMP/empty" logs "$J/shm-sigbus.log"
# (but for the host name: the tree has none, the machine running the tool does)
python3 -S -c 'import json,sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); [d.pop("hostname", None) for d in (a, b)]; sys.exit(a != b)' "$OUT" "$ND_TMP/shm.json" &&
  ok "an empty sysroot: the same report as the log alone" || not_ok "an empty sysroot changed the report"
finish
