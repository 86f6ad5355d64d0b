#!/usr/bin/env bash
# check calibrates severity by what a condition costs the job:
#  - the real H200's facts (a system libnccl 2.28.3 beside PyTorch's wheel
#    2.28.9, one GPU, everything works): HEALTHY, the two copies a note;
#  - ACS redirect or a translating IOMMU on the path while every pair and
#    all_reduce were measured working: a warning that says it was measured,
#    not BROKEN, and the headline names the risk instead of a "most likely
#    cause" (nothing failed or was slow).
. "$(dirname "$0")/lib.sh"
F="$ND_BUILD/tests/fakegpu"
S="$ND_FIXTURES/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="t604-$$"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-t604-$$-*' EXIT

NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/h200-1gpu.json" run_nd check --driver --sysroot "$ND_FIXTURES/sysroot/h200-vm"
expect_rc 0 "H200 facts, two libnccl copies: exit 0"
expect_out '^HEALTHY: 1 GPU' "HEALTHY"
expect_no_out 'most likely cause' "no cause named when nothing failed"
expect_out 'bench +[0-9.]+ s +OK, algbw [0-9.]+ GB/s' "one GPU: its bench stage gives algbw (nccl-tests' busbw is 0 for one rank)"
expect_out 'info +NCCL_MULTIPLE_VERSIONS +2 different NCCL versions on this host: 2\.28\.3, 2\.28\.9' "the two copies are a note"

for sr in pcie-4gpu-acs iommu-translated; do
	NCCL_DOCTOR_FAKEGPU_SCENARIO="$S/pcie4.json" run_nd --json check --driver --sysroot "$ND_FIXTURES/sysroot/$sr" --max-bytes 1M
	expect_rc 1 "$sr, P2P measured working: warnings, not a problem"
	json_check 'd["verdict"] != "BROKEN" and "most likely cause" not in d["headline"] and "nothing failed or was slow, but:" in d["headline"]' "$sr: not BROKEN; the headline names the risk, not a cause"
	json_check '[f["severity"] for f in d["findings"] if f["id"] in ("ACS_REDIRECT_ENABLED", "IOMMU_TRANSLATED")] == ["warning"]' "$sr: the PCI prediction is a warning"
	json_check 'any("measured: every pair of the 4 GPUs tested worked" in e["text"] for f in d["findings"] if f["id"] in ("ACS_REDIRECT_ENABLED", "IOMMU_TRANSLATED") for e in f["evidence"])' "$sr: with the measurement as evidence"
done
finish
