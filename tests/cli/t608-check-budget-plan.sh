#!/usr/bin/env bash
# check keeps its budget on the 8-GPU version of the classic case (8 A100
# PCIe on two switches, ACS redirect, copies and NCCL hanging across the
# switches), with default options: the planner gives p2p what bench and the
# fix search leave, spreads it over the rounds of disjoint pairs, tests NCCL
# on one pair per link class, gives pairs of a class that already hung a
# short deadline and says so; bench and the fix search still run; the whole
# check ends within 5 % of its budget (the tool's own clock: it keeps its
# budget however loaded the machine is).
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the plan of the whole report
use_fake_gpus

ND_RUN_TIMEOUT=150 NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie8-acs-hang.json" \
	run_nd --json check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-8gpu-acs"
expect_rc 2 "8-GPU classic case: a problem"
json_check 'd["verdict"] == "BROKEN" and d["causes"][0]["cause"] == "p2p_pcie_acs_iommu"' "BROKEN, p2p_pcie_acs_iommu first"
json_check 'd["elapsed_s"] <= 90 * 1.05' "within 5 % of the 90 s budget"
json_check '[s["stage"] for s in d["facts"]["check"]["stages"]] == ["sys", "topo", "kernel", "p2p", "bench", "fix"]' "bench and the fix search ran (not skipped for want of budget)"
json_check 'not any(s["result"].startswith("skipped") for s in d["facts"]["check"]["stages"] if s["stage"] in ("bench", "fix"))' "neither was skipped"
json_check 'd["p2p_test"]["plan"]["budget_s"] <= 50 and d["p2p_test"]["plan"]["rounds"] == 7' "p2p planned within what bench and fix leave: 7 rounds"
json_check 'd["p2p_test"]["plan"]["nccl_per_class"] and d["p2p_test"]["plan"]["nccl_skipped"] == 26' "NCCL on one pair per link class (PIX, PXB): 26 pairs left out"
# the short deadline is 3x the slowest pair that worked: on a loaded machine
# it can reach the rounds' own deadline, and then nothing is shortened
json_check 'd["p2p_test"]["plan"]["short_deadline_s"] > 0 and (d["p2p_test"]["plan"]["shortened"] > 0 or d["p2p_test"]["plan"]["short_deadline_s"] >= d["p2p_test"]["plan"]["first_deadline_s"])' "pairs of the class that hung got a shorter deadline"
json_check 'sum(1 for p in d["p2p_test"]["pairs"] if p["status"] == "HANG") == 32 and all(p["status"] == "OK" for p in d["p2p_test"]["pairs"] if p["status"] != "HANG")' "the 32 ordered pairs across the switches hang, the 24 within work"
json_check 'next(s for s in d["facts"]["check"]["stages"] if s["stage"] == "bench")["seconds"] < 16' "as given: a short deadline, since NCCL already failed across the switches in p2p"
json_check 'd["facts"]["fix"]["recommended"] == "NCCL_P2P_LEVEL=PIX"' "the fix search measured a configuration that works: NCCL_P2P_LEVEL=PIX"

ND_RUN_TIMEOUT=150 NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie8-acs-hang.json" \
	run_nd check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-8gpu-acs" --budget 60 --max-bytes 1M
expect_out '^BROKEN: 8 GPUs, ([0-9]|[1-5][0-9]|6[0-2])\.[0-9] s' "--budget 60 is kept too"
expect_out 'NCCL tested on one pair per link class \(26 pairs left out\)' "the report says what the plan left out"
expect_out 'pairs of a link class that already hung got [0-9.]+ s' "and what it shortened"
finish
