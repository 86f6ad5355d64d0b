#!/usr/bin/env bash
# nccl-doctor check (the default command) on the fake GPU stack:
#  - no GPU and no driver: only "nothing to check", exit 3;
#  - the classic case: 4 GPUs on PCIe behind two switches, ACS redirect on the
#    bridges between them, NCCL and copies hanging across the switches:
#    BROKEN within the budget, cause p2p_pcie_acs_iommu from ACS, the hanging
#    pairs and the hanging all_reduce; the fix stage tries NCCL_P2P_LEVEL=PIX
#    for real and recommends it, with the setpci and kernel-parameter fixes;
#    no process or /dev/shm segment left;
#  - healthy 8 x NVLink on a clean host: HEALTHY, well under 30 s;
#  - a GPU held by another process: INCOMPLETE, and says so;
#  - /dev/shm too small in a container: the shm cause is named.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the reports (tables, evidence, fixes)
export COLUMNS=200 # a table row on one line
F="$ND_BUILD/tests/fakegpu"
S="$ND_FIXTURES/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
TAG="t520-$$"
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG"

# no GPU, no driver: a PCI bus with a host bridge only, no NVIDIA library
nogpu="$ND_TMP/nogpu"
mkdir -p "$nogpu/sys/bus/pci/devices/0000:00:00.0" "$nogpu/proc" "$ND_TMP/nolib"
printf '0x8086\n' >"$nogpu/sys/bus/pci/devices/0000:00:00.0/vendor"
printf '0x060000\n' >"$nogpu/sys/bus/pci/devices/0000:00:00.0/class"
NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/nolib" run_nd --sysroot "$nogpu" check --driver
expect_rc 3 "no GPU and no driver"
expect_err "no NVIDIA GPU or driver here: nothing to check" "says there is nothing to check"
expect_no_out "Host|Findings" "and prints no host report"
NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/nolib" run_nd --sysroot "$nogpu"
expect_rc 3 "no command runs check"
expect_err "nccl-doctor check: no NVIDIA GPU" "(the same words)"

# the classic case
t0=$(date +%s)
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json" run_nd check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --timeout 3 --budget 60 --max-bytes 1M
t1=$(date +%s)
expect_rc 2 "classic ACS case: a problem"
expect_out '^BROKEN: 4 GPUs' "verdict BROKEN"
expect_out '! P2P over PCIe blocked \(ACS / IOMMU\) +0\.[5-9]' "cause p2p_pcie_acs_iommu first, in words"
expect_out 'ACS_REDIRECT_ENABLED,P2P_HANG|P2P_HANG,ACS_REDIRECT_ENABLED' "evidence from sys (ACS) and p2p (the hang)"
expect_out 'ALLREDUCE_P2P_FAILS' "evidence from the bench stage: all_reduce as given hangs"
expect_out 'bench +[0-9.]+ s +HANG at size 8 of op all_reduce' "the bench stage names where it hung"
expect_out 'NCCL_P2P_LEVEL=PIX +~[0-9]+% +[0-9.]+ .* OK$' "the fix stage tried NCCL_P2P_LEVEL=PIX for real: OK"
expect_out 'not tried \(a faster one works\): NCCL_P2P_DISABLE=1' "and stopped there: NCCL_P2P_DISABLE=1 not tried"
expect_out 'recommended +NCCL_P2P_LEVEL=PIX' "recommends it"
expect_out 'export NCCL_P2P_LEVEL=PIX' "the shell form of the recommendation"
expect_out 'docker run -e NCCL_P2P_LEVEL=PIX' "the docker form"
expect_out -- '--disable-custom-all-reduce' "vLLM: custom all-reduce off while P2P is broken"
expect_out 'setpci -s 0000:02:08.0' "the setpci fix for a bridge on the path"
expect_out 'pci=disable_acs_redir=' "the permanent kernel parameter"
within 40 $((t1 - t0)) "within its budget (s)"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-nccl-p2p-hang.json" run_nd --json check --driver --sysroot "$ND_FIXTURES/sysroot/pcie-4gpu-acs" --timeout 3 --max-bytes 1M --html "$ND_TMP/check.html"
# the HTML page of the same run (docs/html.md): the JSON inside, 12 pair
# cells, the stages and the fix search drawn, the winner
html_check "$ND_TMP/check.html" --json "$OUT" --pairs 12 --text "Stages: " --text "Fix search: configurations tried" \
	--text "Do this now: NCCL_P2P_LEVEL=PIX" --text "Most likely cause: P2P over PCIe blocked (ACS / IOMMU)"
json_check 'd["verdict"] == "BROKEN" and d["causes"][0]["cause"] == "p2p_pcie_acs_iommu"' "JSON: verdict and first cause"
json_check '[s["stage"] for s in d["facts"]["check"]["stages"]] == ["sys", "topo", "kernel", "p2p", "bench", "fix"]' "JSON: the six stages with their times"
json_check 'd["facts"]["fix"]["recommended"] == "NCCL_P2P_LEVEL=PIX"' "JSON: the measured winner"
sleep 0.5
left=$(ls /dev/shm 2>/dev/null | grep -c "fakenccl-$TAG" || true)
if [ "$left" -eq 0 ]; then ok "no /dev/shm segment left"; else not_ok "$left segments left"; rm -f /dev/shm/fakenccl-$TAG-*; fi
procs=$(own_workers | wc -l)
if [ "$procs" -eq 0 ]; then ok "no worker process left"; else not_ok "$procs worker processes left"; fi

# healthy 8 x NVLink on a clean host (the H200 record with one NCCL copy)
cp -r "$ND_FIXTURES/sysroot/h200-vm" "$ND_TMP/clean"
python3 - "$ND_TMP/clean/.nccl-doctor/libraries.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["libraries"] = d["libraries"][:1]; d["torch"] = []
json.dump(d, open(p, "w"))
PY
t0=$(date +%s)
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/nvlink8.json" run_nd check --driver --sysroot "$ND_TMP/clean" --max-bytes 1M
t1=$(date +%s)
expect_out '^HEALTHY: 8 GPUs' "8 x NVLink: HEALTHY"
expect_out 'bench +[0-9.]+ s +OK' "the bench stage ran all_reduce: OK"
expect_no_out '^Fix|Trials' "no configuration search on a healthy machine"
within 30 $((t1 - t0)) "healthy 8 GPUs (s)"

# a GPU held by another process
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4-p2p-busy.json" run_nd check --driver --sysroot "$ND_TMP/clean" --max-bytes 1M
expect_out '^INCOMPLETE' "a busy GPU: INCOMPLETE, not HEALTHY"
expect_out 'GPU_BUSY_SKIPPED' "and says which GPU was skipped"

# /dev/shm of 64 MB in a container
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/nvlink8.json" run_nd check --driver --sysroot "$ND_FIXTURES/sysroot/docker-small-shm" --max-bytes 1M
expect_out '/dev/shm too small, full or cleared \[shm_too_small\]' "small /dev/shm: the shm cause is named"
expect_out -- '--shm-size|SHM_TOO_SMALL' "with its fix"

# a hung NVML: topo ends at its deadline and p2p is skipped, not waited for again
t0=$(date +%s)
NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/nvml-hang.json" run_nd check --driver --sysroot "$ND_TMP/clean" --timeout 3
t1=$(date +%s)
expect_rc 2 "hung NVML: a problem"
expect_out 'p2p +- +skipped: the driver did not answer' "hung NVML: p2p skipped"
within 10 $((t1 - t0)) "hung NVML: over in time (s)"

# usage
run_nd check --budget 1
expect_rc 64 "--budget below 5 s"
run_nd check --budget nan
expect_rc 64 "--budget nan"
finish
