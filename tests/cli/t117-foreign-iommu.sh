#!/usr/bin/env bash
# Issue 10 item 8: IOMMU faults (AMD-Vi, Intel DMAR) of an NVIDIA device in
# a saved dmesg whose GPU is not on this machine are findings, as Xids of
# such a GPU are; a fault of a device the log never names as NVIDIA is no
# GPU finding, but one this run cannot identify is not healthy either
# (IOMMU_FAULT_UNIDENTIFIED, t304).
. "$(dirname "$0")/lib.sh"
K="$ND_FIXTURES/kernel"
mkdir -p "$ND_TMP/empty"

# AMD-Vi lines printed by the nvidia driver ("nvidia 0000:41:00.0: AMD-Vi: ...")
run_nd --sysroot "$ND_TMP/empty" kernel "$K/amdvi.dmesg"
expect_rc 1 "AMD-Vi faults of an absent NVIDIA GPU: warnings, not healthy"
expect_out "WARN +GPU_IOMMU_FAULT +NVIDIA GPU at 0000:41:00.0 \(not on this machine\): AMD-Vi IO_PAGE_FAULT" "AMD-Vi: finding names the GPU as absent"
expect_no_out "Verdict: HEALTHY" "AMD-Vi: no healthy verdict"

# DMAR faults whose requester the same log names as a GPU through an Xid line
cat >"$ND_TMP/dmar-xid.dmesg" <<'LOG'
[  699.000000] NVRM: Xid (PCI:0000:3b:00): 31, pid=4242, name=python3, Ch 00000008, intr 00000000. MMU Fault: ENGINE GRAPHICS GPCCLIENT_T1_0 faulted @ 0x7f6a_00000000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ
[  700.000000] DMAR: DRHD: handling fault status reg 3
[  700.000001] DMAR: [DMA Read NO_PASID] Request device [3b:00.0] fault addr 0x7f6a0000 [fault reason 0x06] PTE Read access is not set
[  700.000003] DMAR: [INTR-REMAP] Request device [00:1f.0] fault index 0x18 [fault reason 0x25] Blocked a compatibility format interrupt request
LOG
run_nd --sysroot "$ND_TMP/empty" kernel "$ND_TMP/dmar-xid.dmesg"
expect_out "GPU_IOMMU_FAULT +NVIDIA GPU at 0000:3b:00.0 \(not on this machine\): DMAR DMA Read fault" "DMAR: requester named by an Xid line of the same log"
expect_no_out "GPU_IOMMU_FAULT .*00:1f.0" "DMAR: the chipset's interrupt-remap fault is no GPU finding"
run_nd --sysroot "$ND_TMP/empty" --json kernel "$ND_TMP/dmar-xid.dmesg"
json_check "any(f['id'] == 'GPU_IOMMU_FAULT' and '0000:3b:00.0' in f['title'] for f in d['findings'])" "DMAR: in --json too"

# the same DMAR lines without anything naming 3b:00 as NVIDIA, and no PCI
# tree to look the device up in: not a GPU finding, but not healthy either
# (IOMMU_FAULT_UNIDENTIFIED, a warning; t304)
grep -v NVRM "$ND_TMP/dmar-xid.dmesg" >"$ND_TMP/dmar-only.dmesg"
run_nd --sysroot "$ND_TMP/empty" kernel "$ND_TMP/dmar-only.dmesg"
expect_rc 1 "DMAR of an unknown device: a warning"
expect_out "IOMMU_FAULT_UNIDENTIFIED +0000:3b:00.0 \(no PCI tree to identify it\)" "DMAR of an unknown device: unidentified, said"
expect_no_out "GPU_IOMMU_FAULT" "DMAR of an unknown device: not called a GPU"
expect_out "0000:3b:00.0 +DMAR DMA Read fault" "DMAR of an unknown device: still in the event table"
finish
