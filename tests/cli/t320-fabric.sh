#!/bin/bash
# The NVSwitch fabric in topo (issue 16) on the fake HGX boards
# (tests/fixtures/fakegpu/hgx8-*.json): each GPU's fabric state from NVML,
# multicast from CUDA, NVLink counts, speeds and error counters, and the
# findings they give; a machine without NVSwitch says "no NVSwitch fabric"
# and makes no fabric finding. sys's side (the fabric manager) is in t100.
. "$(dirname "$0")/lib.sh"
SC="$ND_FIXTURES/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
scenario() { export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/$1.json"; }
ids='sorted(f["id"] for f in d["findings"])'

scenario hgx8-healthy
run_nd topo --json
expect_rc 0 "healthy: exit 0"
json_check 'd["fabric"]["nvswitch_fabric"] is True and len(d["fabric"]["gpus"]) == 8' "healthy: a fabric of 8 GPUs"
json_check 'all(g["state"] == "completed" and g["status"] == "NVML_SUCCESS" and g["clique_id"] == 1 for g in d["fabric"]["gpus"])' "healthy: every GPU registered, clique 1"
json_check 'all(g["multicast"] is True and g["nvlinks_active"] == 18 and g["nvlinks_expected"] == 18 for g in d["fabric"]["gpus"])' "healthy: multicast, 18 of 18 links"
json_check 'all(l["speed_mbps"] == 26562 and l["version"] == 6 and not l["downtrained"] for l in d["nvlinks"])' "healthy: every link at 26562 MB/s, NVLink 4.0"
json_check 'all(l["errors"] == {"replay": 0, "recovery": 0, "crc_flit": 0, "crc_data": 0} for l in d["nvlinks"])' "healthy: error counters read, all zero"
json_check 'not any("errors_grew" in l for l in d["nvlinks"])' "healthy: zero counters are not read twice"
json_check '[f for f in d["findings"] if f["cause"] == "fabric_manager_nvswitch" or f["id"].startswith("NVLINK")] == []' "healthy: no fabric or NVLink finding"
run_nd topo
expect_out '^NVSwitch fabric' "healthy: text section"
expect_out '0 +completed +SUCCESS +1 +yes +18/18/18 +26562' "healthy: text row of GPU 0"

scenario hgx8-fm-not-started
run_nd topo --json
expect_rc 2 "fabric manager not started: problem found"
json_check 'all(g["state"] == "not started" for g in d["fabric"]["gpus"])' "not started: the state of every GPU"
json_check '"GPU_FABRIC_NOT_READY" in '"$ids"' and "CUDA_INIT_FAILED" in '"$ids" "not started: the fabric finding beside cuInit's"
json_check '[f for f in d["findings"] if f["id"] == "GPU_FABRIC_NOT_READY"][0]["cause"] == "fabric_manager_nvswitch"' "not started: cause fabric_manager_nvswitch"
json_check '[f for f in d["findings"] if f["id"] == "GPU_FABRIC_NOT_READY"][0]["title"] == "8 GPUs are not registered with the NVLink fabric"' "not started: one finding for the 8 GPUs"
json_check 'any("CUDA_ERROR_SYSTEM_NOT_READY (802)" in e["text"] for f in d["findings"] if f["id"] == "GPU_FABRIC_NOT_READY" for e in f["evidence"])' "not started: cuInit's 802 tied to it"
json_check '[x["text"] for f in d["findings"] if f["id"] == "GPU_FABRIC_NOT_READY" for x in f["fixes"]][-1] == "export NCCL_NVLS_ENABLE=0"' "not started: NCCL_NVLS_ENABLE=0 as the work-around"
json_check 'all(g["multicast"] is None for g in d["fabric"]["gpus"])' "not started: multicast unknown (CUDA did not start)"
json_check '[f["cause"] for f in d["findings"] if f["id"] == "CUDA_INIT_FAILED"] == ["fabric_manager_nvswitch"]' "not started: cuInit's 802 ranked with the fabric, not as a driver fault"
run_nd check --json
json_check 'd["causes"][0]["cause"] == "fabric_manager_nvswitch"' "not started: check ranks the fabric first"

scenario hgx8-fabric-failed
run_nd topo --json
expect_rc 2 "fabric failed: problem found"
json_check '[f["title"] for f in d["findings"] if f["id"] == "GPU_FABRIC_FAILED"] == ["GPU 2 (0000:3a:00.0): fabric registration failed (NVML_ERROR_UNKNOWN)"]' "failed: GPU 2 and its status named"
json_check '[f["title"] for f in d["findings"] if f["id"] == "GPU_FABRIC_DEGRADED"] == ["GPU 5 (0000:ab:00.0): fabric health: bandwidth degraded"]' "failed: GPU 5's health mask decoded"
json_check 'd["fabric"]["gpus"][5]["health_mask"] == 1' "failed: the raw health mask kept"

scenario hgx8-link-faults
run_nd topo --json
expect_rc 2 "link faults: problem found"
json_check "$ids"' == ["NVLINK_DOWN", "NVLINK_DOWNTRAINED", "NVLINK_ERRORS_GROWING", "NVLINK_ERRORS_SEEN", "NVLINK_MISSING"]' "link faults: down, slow, rising, old, missing"
json_check '[(l["gpu"], l["link"], l["speed_mbps"]) for l in d["nvlinks"] if l["downtrained"]] == [(4, 7, 13281)]' "link faults: GPU 4 link 7 downtrained"
json_check '[l["errors_grew"]["replay"] for l in d["nvlinks"] if l["gpu"] == 1 and l["link"] == 2] == [3]' "link faults: replay counter rose by 3"
json_check '[l["errors_grew"]["crc_data"] for l in d["nvlinks"] if l["gpu"] == 0 and l["link"] == 0] == [0]' "link faults: old CRC errors read again, did not rise"
json_check '[f for f in d["findings"] if f["id"] == "NVLINK_ERRORS_SEEN"][0]["severity"] == "info"' "link faults: old errors are a note"
json_check 'd["fabric"]["gpus"][6]["nvlinks_listed"] == 16 and d["fabric"]["gpus"][6]["nvlinks_expected"] == 18' "link faults: GPU 6 lists 16 of 18"
# every link of every GPU at one lower rate: the platform's rate, no finding, a note
python3 - "$SC/hgx8-healthy.json" "$ND_TMP/hgx8-slow.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for g in d["gpus"]:
    g["nvlink_speed_mbps"] = 25781
json.dump(d, open(sys.argv[2], "w"))
PY
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/hgx8-slow.json" run_nd topo --json
json_check 'not any(f["id"] == "NVLINK_DOWNTRAINED" for f in d["findings"])' "all links alike below the table's rate: no downtrained finding"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/hgx8-slow.json" run_nd topo
expect_out 'runs at 25781 MB/s, a trained link of that model at 26562 MB/s' "all links alike below the table's rate: a note"
run_nd --gpus 4 topo --json
json_check "$ids"' == ["NVLINK_DOWNTRAINED"] and len(d["fabric"]["gpus"]) == 1' "--gpus 4: only GPU 4's fabric and finding"

scenario hgx8-nvls-off
run_nd topo --json
expect_rc 0 "no multicast: a note only"
json_check 'all(g["state"] == "completed" and g["multicast"] is False for g in d["fabric"]["gpus"])' "no multicast: fabric read through the v2 struct, multicast 0"
json_check "$ids"' == ["NVLS_UNSUPPORTED"]' "no multicast: NVLS_UNSUPPORTED"

# no NVSwitch: a single H200 (the validation machine's shape) and a PCIe box
scenario h200-1gpu
run_nd topo --json
json_check 'd["fabric"]["nvswitch_fabric"] is False and d["fabric"]["gpus"][0]["state"] == "not supported"' "h200: not supported, no fabric"
json_check 'not any(f["cause"] == "fabric_manager_nvswitch" or f["id"].startswith("NVLINK") for f in d["findings"])' "h200: no fabric or NVLink finding"
run_nd topo
expect_out 'no NVSwitch fabric: NVML reports fabric state .not supported. for every GPU' "h200: says no NVSwitch fabric"
# a GPU of an NVSwitch board alone in a VM whose NVML says "not started" while
# CUDA works and no switch is in sight: a warning that says so, no NVLINK_MISSING
python3 - "$SC/h200-1gpu.json" "$ND_TMP/h200-alone.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); d["gpus"][0]["fabric"] = {"state": "not_started"}
json.dump(d, open(sys.argv[2], "w"))
PY
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/h200-alone.json"
run_nd topo --json
json_check '[(f["id"], f["severity"]) for f in d["findings"] if f["cause"] == "fabric_manager_nvswitch" or f["id"].startswith("NVLINK")] == [("GPU_FABRIC_NOT_READY", "warning")]' "state without a switch: a warning only"
json_check 'any("without its switches" in e["text"] for f in d["findings"] if f["id"] == "GPU_FABRIC_NOT_READY" for e in f["evidence"])' "state without a switch: says why it is only a warning"
scenario pcie4
run_nd topo --json --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --driver
json_check 'd["fabric"]["nvswitch_fabric"] is False and d["fabric"]["nvswitches"] == 0' "pcie4: no NVSwitch on its bus, no fabric"
finish
