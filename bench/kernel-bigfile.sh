#!/usr/bin/env bash
# Bench: nccl-doctor kernel on a 1 GB kernel log (events and filler mixed):
# wall time and max RSS. Usage: bench/kernel-bigfile.sh [BIN] [MB]
set -eu
BIN=${1:-build/nccl-doctor}
MB=${2:-1024}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
log="$tmp/kern.log"
chunk="$tmp/chunk"
{ for i in $(seq 1 2000); do
    echo "[ $i.000001] audit: type=1400 audit(1700000000.123:456): apparmor=\"DENIED\" operation=\"open\" profile=\"snap.x\" pid=$i comm=\"x\""
    echo "[ $i.000002] EXT4-fs (nvme0n1p2): mounted filesystem with ordered data mode. Quota mode: none."
    echo "[ $i.000003] NVRM: Xid (PCI:0000:5d:00): 13, pid=$i, name=python3, Graphics Exception"
    echo "[ $i.000004] pcieport 0000:00:01.1: AER: Correctable error message received from 0000:01:00.0"
    echo "[ $i.000005] nvidia 0000:01:00.0: AER: PCIe Bus Error: severity=Correctable, type=Physical Layer, (Receiver ID)"
    echo "[ $i.000006] DMAR: [DMA Write NO_PASID] Request device [3b:00.0] fault addr 0x7f6a0000 [fault reason 0x05] PTE Write access is not set"
  done; } >"$chunk"
size=$(stat -c %s "$chunk")
n=$(( MB * 1024 * 1024 / size + 1 ))
for i in $(seq 1 "$n"); do cat "$chunk"; done >"$log"
echo "log: $(du -h "$log" | cut -f1)"
mkdir -p "$tmp/empty"
/usr/bin/time -f 'wall %e s, max RSS %M KiB' "$BIN" --sysroot "$tmp/empty" kernel "$log" | head -3
