#!/usr/bin/env bash
# watch weighs the hang priors of the log analysis with this machine's facts:
# a P2P hang on a PCIe-only box (no NVLink in NVML, no Xid since the start)
# drops the NVLink/Xid prior and, with ACS redirect (or a translating IOMMU)
# on the path in the facts of --sysroot, puts p2p_pcie_acs_iommu first with
# the machine's fact as evidence; on a machine whose facts show nothing that
# blocks P2P the ACS prior goes too, and the cause is left open.
. "$(dirname "$0")/lib.sh"
F="$ND_BUILD/tests/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$F/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="t704-$$"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-t704-$$-*' EXIT
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_FIXTURES/fakegpu/pcie4-nccl-p2p-hang.json"

hang() { # SYSROOT: a 4-rank job that hangs in its first all_reduce
	timeout 60 "$ND_BIN" --sysroot "$1" watch --stall 2 --on-stall kill --json="$ND_TMP/w.json" \
		-- "$ND_BIN" __worker ranks --nranks 4 --deadline 60 >"$ND_TMP/out" 2>"$ND_TMP/err"
	RC=$?
	OUT="$ND_TMP/w.json"
}

for sr in pcie-4gpu-acs iommu-translated; do
	hang "$ND_FIXTURES/sysroot/$sr"
	expect_rc 143 "$sr: the job stopped at the stall"
	json_check 'd["last_stall"]["causes"][0]["cause"] == "p2p_pcie_acs_iommu"' "$sr: p2p_pcie_acs_iommu first"
	json_check 'any(e["text"].startswith("this machine: ") for e in d["last_stall"]["causes"][0]["evidence"])' "$sr: with the machine's fact as evidence"
	json_check 'all(c["cause"] not in ("gpu_hardware", "nvlink_fabric") for c in d["last_stall"]["causes"])' "$sr: no NVLink/Xid cause on a PCIe box without an Xid"
done
grep -qE 'dropped (GPU hardware fault \(Xid / ECC / off the bus\)|NVLink / NVSwitch link fault)( \[(gpu_hardware|nvlink_fabric)\])? .*no active NVLink on this machine' "$ND_TMP/err" && ok "the drop is said with its reason" || not_ok "the drop is said with its reason"

# facts where nothing blocks P2P (hgx-fm-healthy: ACS redirect off on every
# bridge, read as root; IOMMU passthrough): the ACS prior goes too
hang "$ND_FIXTURES/sysroot/hgx-fm-healthy"
expect_rc 143 "nothing blocks P2P: stopped at the stall"
json_check 'all(c["cause"] not in ("p2p_pcie_acs_iommu", "gpu_hardware", "nvlink_fabric") for c in d["last_stall"]["causes"])' "nothing blocks P2P: neither the ACS nor the NVLink prior is a cause"
grep -qE 'dropped P2P over PCIe blocked \(ACS / IOMMU\)( \[p2p_pcie_acs_iommu\])? .*this machine: ACS redirect is off on every bridge between its 8 GPUs' "$ND_TMP/err" && ok "and says why the ACS prior went" || not_ok "and says why the ACS prior went"

"$ND_BIN" --sysroot "$ND_TMP/nonexistent" watch -- true >/dev/null 2>"$ND_TMP/err"
RC=$?
expect_rc 3 "a missing --sysroot is refused before the job starts"
finish
