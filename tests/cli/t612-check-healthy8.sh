#!/usr/bin/env bash
# A healthy 8-GPU HGX machine (fake: 8 SXM GPUs on NVSwitches, fabric
# manager running, a clean kernel log) with default options (no --budget,
# no --max-bytes): every stage runs and passes, the verdict is HEALTHY with
# exit 0, no cause is named and no fix is searched for, and the check keeps
# its 90 s budget (the tool's own clock). How fast it is on an idle 2-core
# machine (the goal: under 60 s) is measured by bench/check-fake-speed.sh,
# not here.
. "$(dirname "$0")/lib.sh"
use_fake_gpus

ND_RUN_TIMEOUT=150 NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/hgx8-healthy.json" \
	run_nd --json check --driver --sysroot "$ND_FIXTURES/sysroot/hgx-fm-healthy" --html "$ND_TMP/check.html"
expect_rc 0 "healthy 8-GPU machine: exit 0"
json_check 'd["verdict"] == "HEALTHY"' "HEALTHY"
json_check '[s["stage"] for s in d["facts"]["check"]["stages"]] == ["sys", "topo", "kernel", "p2p", "bench"]' "every stage ran; no fix search"
json_check 'all(s["result"] == "ok" or s["result"].startswith("OK") for s in d["facts"]["check"]["stages"])' "every stage passed"
python3 -c 'import json,sys; [print("# stage %s %.1f s: %s" % (s["stage"], s["seconds"], s["result"])) for s in json.load(open(sys.argv[1]))["facts"]["check"]["stages"]]' "$OUT"
json_check 'not d.get("causes")' "no cause named"
json_check 'd["elapsed_s"] <= 90 * 1.05' "within its 90 s budget"
json_check 'd["p2p_test"]["pairs"] and all(p["status"] == "OK" for p in d["p2p_test"]["pairs"])' "every pair tested is OK"
# its HTML page (docs/html.md): the JSON inside, one cell per pair of 8 GPUs
html_check "$ND_TMP/check.html" --json "$OUT" --pairs 56 --text "nccl-doctor check: HEALTHY" --text "Stages: "

# (the text report of the same machine: tests/cli/t613, with --max-bytes 1M)
finish
