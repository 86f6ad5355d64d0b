#!/bin/bash
# topo on the fake GPU stack (tests/fakegpu): an 8-GPU NVLink machine, a
# 4-GPU PCIe machine with two switches, a VM whose NVML and PCI tree
# disagree, hardware faults, no driver, a missing symbol, cuInit failing,
# NVML hanging (deadline kept, nothing left running) and a GPU lost mid-query.
. "$(dirname "$0")/lib.sh"
SC="$ND_FIXTURES/fakegpu"
SR="$ND_FIXTURES/sysroot"
FAKE="$ND_BUILD/tests/fakegpu/lib"
export NCCL_DOCTOR_LIBRARY_PATH="$FAKE" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export ND_T200_TAG="t200-$$"   # marks our processes, to find strays
scenario() { export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/$1.json"; }

run_nd topo --help
expect_rc 0 "topo --help"
expect_out 'usage: nccl-doctor topo' "help text"
run_nd topo --bogus
expect_rc 64 "unknown option is a usage error"

# 8 x H100 behind NVSwitch
scenario nvlink8
run_nd topo --json
expect_rc 0 "nvlink8: healthy"
json_check 'd["matrix_source"] == "nvml" and len(d["matrix"]) == 8' "nvlink8: 8x8 matrix from NVML"
json_check 'all(d["matrix"][i][j] == ("X" if i == j else "NV18") for i in range(8) for j in range(8))' "nvlink8: NV18 between every pair"
json_check 'len(d["nvlinks"]) == 144 and all(l["active"] and l["remote_type"] == "switch" for l in d["nvlinks"])' "nvlink8: 18 active NVSwitch links per GPU"
json_check 'd["nvml_matrix"][0][4] == "NV18"' "nvlink8: NVML matrix keeps NV#"
run_nd topo
expect_out 'GPU0 +X +NV18 +NV18' "nvlink8: text matrix row"
expect_out 'NV# = # bonded NVLinks' "text legend"
expect_out '0000:db:00.0 +1 +48-95,144-191' "GPU 7: BDF, NUMA node, CPU affinity"
run_nd --gpus 1,3 topo --json
json_check 'len(d["matrix"]) == 2 and d["matrix"][0][1] == "NV18"' "--gpus 1,3 selects two GPUs"

# 4 x H100 PCIe under two switches, compared with the same machine's sysfs
scenario pcie4
run_nd topo --json --driver --sysroot "$SR/pcie-4gpu-acs"
expect_rc 0 "pcie4: healthy"
json_check 'd["matrix"] == [["X","PIX","PHB","PHB"],["PIX","X","PHB","PHB"],["PHB","PHB","X","PIX"],["PHB","PHB","PIX","X"]]' "pcie4: PIX within a switch, PHB across"
json_check 'd["sysfs_matrix"] == d["nvml_matrix"]' "pcie4: NVML and sysfs agree"
json_check 'len(d["findings"]) == 0' "pcie4: no findings"

# the recorded tree alone: no driver asked
run_nd topo --json --sysroot "$SR/pcie-4gpu-acs"
expect_rc 0 "recorded sysroot"
json_check 'd["matrix_source"] == "sysfs" and d["workers"] == [] and d["matrix"][0][1] == "PIX" and d["matrix"][1][2] == "PHB"' "recorded sysroot: matrix from sysfs, no workers"

# sysfs classes beyond PIX/PHB: two switch levels, other host bridges, another node
run_nd topo --json --sysroot "$SC/sysroot-pxb"
expect_rc 1 "sysroot-pxb: a downtrained link"
json_check 'd["matrix"] == [["X","PXB","NODE","SYS"],["PXB","X","NODE","SYS"],["NODE","NODE","X","SYS"],["SYS","SYS","SYS","X"]]' "sysfs: PXB, NODE and SYS"
json_check '[f["id"] for f in d["findings"]] == ["PCIE_LINK_DOWNTRAINED"] and "GPU 3" in d["findings"][0]["title"]' "sysfs: GPU 3 at x8 of x16"
json_check 'd["gpus"][3]["numa_node"] == 1 and d["gpus"][3]["cpu_affinity"] == "16-31" and d["gpus"][0]["bar1_bytes"] == 128 << 30' "sysfs: NUMA, CPUs, BAR1"

# the lent H200 VM as recorded: BAR1 is on resource line 2 there
run_nd topo --json --sysroot "$SR/h200-vm"
expect_rc 0 "h200-vm sysroot"
json_check 'd["gpus"][0]["bdf"] == "0000:00:06.0" and d["gpus"][0]["bar1_bytes"] == 256 << 30 and d["gpus"][0]["pcie_max_gen"] == 5' "h200-vm: BDF, 256 GiB BAR1, gen5"

# a VM: NVML says SYS and no P2P, the guest's PCI tree says PIX/PHB
scenario pcie4-vm
run_nd topo --json --driver --sysroot "$SR/pcie-4gpu-acs"
expect_rc 1 "VM: warnings"
json_check '"TOPO_SOURCES_DISAGREE" in [f["id"] for f in d["findings"]]' "VM: NVML and sysfs disagree"
json_check '"P2P_NOT_SUPPORTED" in [f["id"] for f in d["findings"]]' "VM: P2P not supported"

# hardware faults
scenario nvlink8-faults
run_nd topo --json
expect_rc 2 "faults: problem found"
json_check 'set(["NVLINK_DOWN","PCIE_LINK_DOWNTRAINED","REMAPPED_ROWS_PENDING","MIG_ENABLED","P2P_NOT_SUPPORTED"]) <= set(f["id"] for f in d["findings"])' "faults: NVLink down, downtrained, remap pending, MIG, P2P"
json_check 'd["matrix"][3][0] == "NV17" and d["matrix"][0][1] == "NV18"' "faults: GPU 3 has NV17"
json_check 'len(d["p2p"]) == 56 and [(x["a"], x["b"], x["read"], x["nvlink"], x["cuda_can_access_peer"]) for x in d["p2p"] if x["write"] != "OK"] == [(2, 5, "IOH_TOPOLOGY_NOT_SUPPORTED", "OK", False), (5, 2, "IOH_TOPOLOGY_NOT_SUPPORTED", "OK", False)]' "faults: P2P per ordered pair, with CUDA's answer"
json_check '[f for f in d["findings"] if f["id"] == "NVLINK_DOWN"][0]["title"].startswith("GPU 3")' "faults: the down link is GPU 3's"
run_nd topo
expect_out '^  \* GPU2 +OK +OK +X +OK +OK +TNS' "faults: P2P matrix with nvidia-smi codes"

# no driver at all: no libraries, GPUs on the bus
export NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/empty"
mkdir -p "$ND_TMP/empty"
run_nd topo --json --driver --sysroot "$SR/no-driver"
expect_rc 2 "no driver: problem found"
json_check '[f["id"] for f in d["findings"]] == ["NVML_NOT_AVAILABLE"]' "no driver: one finding, NVML_NOT_AVAILABLE"
json_check 'd["matrix_source"] == "sysfs" and len(d["matrix"]) >= 1' "no driver: matrix from sysfs"
run_nd topo --driver --sysroot "$SR/no-driver"
expect_out 'libnvidia-ml.so.1 \(NVML, part of the NVIDIA driver\) is not installed .*: the GPUs and the matrix below come from the PCI tree in sysfs' "no driver: says what is missing and where the matrix came from"

# a required symbol missing from libnvidia-ml
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib-nosym:$FAKE"
scenario pcie4
run_nd topo --json --driver --sysroot "$SR/pcie-4gpu-acs"
expect_rc 2 "missing symbol: problem found"
json_check 'any(f["id"] == "VENDOR_SYMBOL_MISSING" and any("nvmlDeviceGetP2PStatus" in e["text"] and "lib-nosym" in e["text"] for e in f["evidence"]) for f in d["findings"])' "missing symbol named with the library path"
export NCCL_DOCTOR_LIBRARY_PATH="$FAKE"

# cuInit error
scenario cuinit-error
run_nd topo --json
expect_rc 2 "cuInit error: problem found"
json_check 'any(f["id"] == "CUDA_INIT_FAILED" and "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" in f["title"] for f in d["findings"])' "cuInit error named with its code"
json_check 'd["matrix_source"] == "nvml"' "cuInit error: NVML still answers"

# cuInit hangs: NVML still answers, the CUDA worker is killed at the deadline
scenario cuinit-hang
run_nd --timeout 1 topo --json
expect_rc 2 "cuInit hang: problem found"
json_check 'any(f["id"] == "CUDA_HANG" and "cuInit" in f["title"] for f in d["findings"]) and d["matrix_source"] == "nvml"' "cuInit hang reported, matrix from NVML"

# NVML hangs in nvmlInit: the deadline holds and nothing is left behind
scenario nvml-hang
t0=$(date +%s%N)
run_nd --timeout 2 topo --json --driver --sysroot "$SR/pcie-4gpu-acs"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc 2 "NVML hang: problem found"
within 4500 "$ms" "NVML hang: finished in time, deadline 2 s + grace 1 s (ms)"
json_check 'any(f["id"] == "NVML_HANG" and "nvmlInit" in f["title"] for f in d["findings"])' "NVML hang at nvmlInit"
json_check 'd["workers"][0]["status"] == "hang" and d["workers"][0]["stage"] == "nvmlInit"' "worker reported as hang with its stage"
json_check 'd["matrix_source"] == "sysfs" and d["matrix"][0][1] == "PIX"' "NVML hang: matrix from sysfs"
# every process of this test carries ND_T200_TAG; the checkers drop it
env -u ND_T200_TAG grep -l "ND_T200_TAG=$ND_T200_TAG" /proc/[0-9]*/environ 2>/dev/null >"$ND_TMP/strays"
env -u ND_T200_TAG grep -v "^/proc/$$/" "$ND_TMP/strays" >"$ND_TMP/strays2"
strays=$(env -u ND_T200_TAG wc -l <"$ND_TMP/strays2")
if [ "$strays" -eq 0 ]; then ok "no worker left running"; else not_ok "$strays processes left running"; fi

# a GPU lost in the middle of the queries
scenario gpu-lost
run_nd topo --json
expect_rc 2 "GPU lost: problem found"
json_check 'any(f["id"] == "GPU_LOST" and f["title"].startswith("GPU 2") for f in d["findings"])' "GPU 2 reported lost"
json_check 'len(d["matrix"]) == 4' "GPU lost: the others still shown"

finish
