#!/bin/bash
# nccl-doctor check --log FILE...: the job's log analysed with the facts the
# check gathered (one cause table, analyze/logs/rules/host.c), its verdict
# joined with the check's findings:
#  - the log that stops after its P2P/IPC channels, on two GPUs of the fake PCIe box
#    with the facts of pcie-4gpu-acs (the GPUs' P2P measured working, so the
#    check alone names only the risk): BROKEN, and the headline names
#    p2p_pcie_acs_iommu, above both the log alone and the check alone, with
#    the log's line, the machine's fact and the check's finding; ACS stays an
#    error although the GPU pairs measured working (without a log, t604);
#  - the SIGBUS after SHM channels on docker-small-shm's 64 MiB /dev/shm: one
#    strong shm_too_small, the log's findings not ranked a second time;
#  - the P2P log where nothing blocks P2P (hgx-fm-healthy): the cause goes,
#    with the reason, and the headline says the cause is unknown;
#  - a log that cannot be read ends the check before any stage: one error
#    line, exit 3; a stray argument without --log is still refused.
. "$(dirname "$0")/lib.sh"
use_fake_gpus
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4.json"
L="$ND_FIXTURES/logs/joined/p2p-setup-stop.log"

# two of the four GPUs (a check of all four costs twice the time and tests nothing more here)
run_nd --json --gpus 0,1 check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --max-bytes 1M --log "$L"
expect_rc 2 "check --log: the log's failure makes it BROKEN"
cp "$OUT" "$ND_TMP/joined.json"
python3 - "$ND_TMP/joined.json" <<'PY' >"$ND_TMP/res"
import json, sys
d = json.load(open(sys.argv[1]))
top = d["causes"][0]
src = lambda s: [e for e in top["evidence"] if e.get("source") == s]
for good, desc in [
    (d["verdict"] == "BROKEN" and "most likely cause p2p_pcie_acs_iommu" in d["headline"], "the headline names the joined cause"),
    (top["cause"] == "p2p_pcie_acs_iommu" and top["confidence"] > 0.6, "p2p_pcie_acs_iommu first, above 0.6 (what an error of sys alone gives; the log alone: 0.14)"),
    (any("via P2P/IPC" in e["text"] and e["file"].endswith("p2p-setup-stop.log") for e in src("log")), "the log's channel line"),
    (any(e["text"].startswith("the machine of sysroot") and "ACS redirect is on" in e["text"] for e in src("machine")), "the machine's fact, from the log analysis"),
    ("ACS_REDIRECT_ENABLED" in top["finding_ids"] and "LOG_HANG_INIT_CONNECT" in top["finding_ids"], "the check's finding and the log's, one cause"),
    (sum(c["cause"] == "p2p_pcie_acs_iommu" for c in d["causes"]) == 1, "one entry for the class, not two weak ones"),
    (all(e["text"].startswith("the machine of sysroot") or e["text"] in {f["title"] for f in d["findings"] if not f["id"].startswith("LOG_")}
         for c in d["causes"] for e in c["evidence"] if e.get("source") == "machine"),
     "evidence said to come from the machine is the machine's: no finding of the log counted twice"),
    (any(r["stage"] == "T7" for r in d["ranks"]), "the log's ranks in the report"),
    (any(f["id"] == "ACS_REDIRECT_ENABLED" and f["severity"] == "error" and any("the job's log (--log) stopped in P2P" in e["text"] for e in f["evidence"]) for f in d["findings"]),
     "P2P measured working, but the job stopped there: ACS stays an error (t604 lowers it without a log)"),
]:
    print(("ok - " if good else "not ok - ") + desc)
PY
cat "$ND_TMP/res"
ND_PASS=$((ND_PASS + $(grep -c '^ok - ' "$ND_TMP/res"))); ND_FAIL=$((ND_FAIL + $(grep -c '^not ok - ' "$ND_TMP/res")))

# SHM: the SIGBUS after SHM channels on Docker's 64 MiB /dev/shm: one strong
# cause with the log's line, the machine's size and sys's SHM_TOO_SMALL; the
# log's own finding (LOG_SHM_SIGBUS, an error of class shm_too_small) counted
# once, in the log's table, not again by check as if the machine said it
run_nd --json --gpus 0,1 check --driver --sysroot "$ND_FIXTURES/sysroot/docker-small-shm" --max-bytes 1M --log "$ND_FIXTURES/logs/joined/shm-sigbus.log"
expect_rc 2 "check --log, SHM: BROKEN"
python3 - "$OUT" <<'PY' >"$ND_TMP/res"
import json, sys
d = json.load(open(sys.argv[1]))
top = d["causes"][0]
titles = {f["title"] for f in d["findings"] if not f["id"].startswith("LOG_")}
for good, desc in [
    (top["cause"] == "shm_too_small" and top["confidence"] > 0.8 and "most likely cause shm_too_small" in d["headline"], "shm_too_small first, above 0.8, named by the headline"),
    (any(e.get("source") == "log" and "Bus error" in e["text"] for e in top["evidence"]), "the log's SIGBUS"),
    (any(e.get("source") == "machine" and "64 MiB" in e["text"] for e in top["evidence"]), "the machine's /dev/shm size"),
    ("SHM_TOO_SMALL" in top["finding_ids"] and "LOG_SHM_SIGBUS" in top["finding_ids"], "sys's finding and the log's, one cause"),
    (all(e["text"].startswith("the machine of sysroot") or e["text"] in titles for c in d["causes"] for e in c["evidence"] if e.get("source") == "machine"),
     "no finding of the log ranked again as the machine's"),
]:
    print(("ok - " if good else "not ok - ") + desc)
PY
cat "$ND_TMP/res"
ND_PASS=$((ND_PASS + $(grep -c '^ok - ' "$ND_TMP/res"))); ND_FAIL=$((ND_FAIL + $(grep -c '^not ok - ' "$ND_TMP/res")))

# the same P2P log on two GPUs of the fake HGX board whose facts show nothing
# that blocks P2P (hgx-fm-healthy): the cause goes with the reason, nothing of
# the machine leads, and the headline says the cause is unknown
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/hgx8-healthy.json" \
	run_nd --json --gpus 0,1 check --driver --sysroot "$ND_FIXTURES/sysroot/hgx-fm-healthy" --max-bytes 1M --log "$L"
python3 - "$OUT" <<'PY' >"$ND_TMP/res"
import json, sys
d = json.load(open(sys.argv[1]))
for good, desc in [
    (not any(c["cause"] == "p2p_pcie_acs_iommu" for c in d["causes"]), "ACS off: the P2P cause goes"),
    (any(e.get("source") == "analysis" and "dropped p2p_pcie_acs_iommu" in e["text"] and "ACS redirect is off" in e["text"] for c in d["causes"] for e in c["evidence"]), "with the reason"),
    (d.get("cause_unknown") is True and "cause unknown" in d["headline"] and "LOG_CAUSE_UNKNOWN" in d["headline"], "the headline says the cause is unknown, where to look"),
]:
    print(("ok - " if good else "not ok - ") + desc)
PY
cat "$ND_TMP/res"
ND_PASS=$((ND_PASS + $(grep -c '^ok - ' "$ND_TMP/res"))); ND_FAIL=$((ND_FAIL + $(grep -c '^not ok - ' "$ND_TMP/res")))

run_nd check --log "$ND_TMP/nonexistent.log"
expect_rc 3 "an unreadable log: exit 3"
expect_out "^Could not complete: --log: cannot read '.*nonexistent\.log': no such file" "one line says which"
expect_no_out 'Check|stages' "no stage ran"
run_nd check --log - --log -
expect_rc 64 "standard input twice is a usage error"
run_nd check stray
expect_rc 64 "a stray argument without --log is still a usage error"
finish
