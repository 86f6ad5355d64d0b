#!/usr/bin/env bash
# An IOMMU fault by a device this run cannot identify (a saved dmesg from
# another machine, or no PCI tree) is a warning that says so and what to
# check, never HEALTHY; a fault by a device of this machine that is not a
# GPU stays in the table only; a GPU's fault is reported as before.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the whole report (evidence, fixes, notes)
ACS="$ND_FIXTURES/sysroot/pcie-4gpu-acs"
dmar() { # BDF: a DMAR fault of that requester
  printf '[  100.000000] DMAR: DRHD: handling fault status reg 2\n[  100.000001] DMAR: [DMA Write NO_PASID] Request device [%s] fault addr 0x3a0000000 [fault reason 0x05] PTE Write access is not set\n' "$1" >"$ND_TMP/dmar.log"
}

# 1. a requester that is not on the machine of the sysroot: a warning
dmar 3b:00.0
run_nd kernel --sysroot "$ACS" "$ND_TMP/dmar.log"
expect_rc 1 "unknown requester: warnings"
expect_no_out 'HEALTHY' "unknown requester: not HEALTHY"
expect_out 'WARN +IOMMU_FAULT_UNIDENTIFIED +0000:3b:00\.0 \(not a device of this machine\): DMAR DMA Write fault' "the warning names the device and the fault"
expect_out 'evidence: the log may come from another machine' "and says the log may come from elsewhere"
expect_out 'lspci -s 3b:00\.0' "and what to check: lspci -s 3b:00.0"
expect_out -- '--sysroot DIR FILE' "or --sysroot of that machine"
run_nd --json kernel --sysroot "$ACS" "$ND_TMP/dmar.log"
json_check 'any(f["id"] == "IOMMU_FAULT_UNIDENTIFIED" and f["severity"] == "warning" for f in d["findings"])' "JSON: IOMMU_FAULT_UNIDENTIFIED, a warning"

# 2. no PCI tree at all (an empty sysroot): the same warning, saying why
mkdir -p "$ND_TMP/empty"
run_nd kernel --sysroot "$ND_TMP/empty" "$ND_TMP/dmar.log"
expect_rc 1 "no PCI tree: warnings"
expect_out 'IOMMU_FAULT_UNIDENTIFIED +0000:3b:00\.0 \(no PCI tree to identify it\)' "no PCI tree: said"

# 3. a bridge of this machine (not a GPU): in the table, no finding
dmar 02:08.0
run_nd kernel --sysroot "$ACS" "$ND_TMP/dmar.log"
expect_out '0000:02:08\.0 +DMAR DMA Write fault' "a bridge's fault is in the table"
expect_no_out 'IOMMU_FAULT_UNIDENTIFIED|GPU_IOMMU_FAULT' "and is no finding"
finish
