#!/usr/bin/env bash
# nccl-doctor kernel: every fixture format, the recorded sysroot end to end
# (BDF -> GPU, P2P fault between two GPUs, AER on a bridge), --since, JSON,
# stdin, and bad input (missing, directory, binary, compressed, FIFO, no
# permission) with a one-line error and a non-zero exit.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the reports (tables, evidence, fixes)
export COLUMNS=1000 # each finding on one line, for grep
K="$ND_FIXTURES/kernel"
SR="$ND_FIXTURES/sysroot/kernel-p2p"
mkdir -p "$ND_TMP/empty"
E="--sysroot $ND_TMP/empty"   # no PCI facts: only the log

run_nd kernel --help
expect_rc 0 "kernel --help"
expect_out '^usage: nccl-doctor kernel' "help text"
run_nd kernel --since
expect_rc 64 "--since without a value"
expect_err "option .--since. requires a value" "--since without a value: message"
run_nd kernel --since 5y "$K/xid-current.dmesg"
expect_rc 64 "--since with a bad duration"
expect_err "duration" "names the problem"
run_nd kernel --bogus
expect_rc 64 "unknown option"

# --- recorded sysroot, end to end ---
run_nd --sysroot "$SR" kernel
expect_rc 2 "sysroot kmsg: problem found"
expect_out 'ERROR P2P_IOMMU_FAULT +GPU 0 \(0000:03:00.0, NVIDIA H200\) -> GPU 1 \(0000:04:00.0, NVIDIA H200\)' "P2P fault names both GPUs"
expect_out 'ERROR XID_79 +GPU 1 \(0000:04:00.0' "Xid 79 mapped to GPU 1 (no function digit in the log)"
expect_out 'XID_45 .*secondary' "Xid 45 after Xid 79 is secondary"
expect_out 'PCIE_AER_CORRECTABLE .*above GPU 1' "AER on the bridge maps to the GPU below"
expect_out 'IOMMU default domain \(boot\) +Translated' "IOMMU default domain fact"
expect_out 'KMSG_RECORDS_LOST' "sequence gap reported"
run_nd --sysroot "$SR" --json kernel
expect_rc 2 "sysroot kmsg --json"
json_check 'd["command"] == "kernel" and d["summary"]["exit_code"] == 2' "JSON document"
json_check '[g["name"] for g in d["facts"]["kernel"]["gpus"]] == ["NVIDIA H200", "NVIDIA H200"]' "GPU names from /proc/driver/nvidia"
json_check 'any(e["kind"] == "dmar" and e["gpu"] == 0 and e["peer_gpu"] == 1 and e["count"] == 2 for e in d["facts"]["kernel"]["events"])' "events table: DMAR on GPU 0 into GPU 1, twice"
json_check 'any(e["kind"] == "aer" and e["gpus_below"] == "1" for e in d["facts"]["kernel"]["events"])' "events table: AER gpus_below"
json_check 'any(e["kind"] == "xid" and e["first_ts"] > 4200 and e["time_kind"] == "boot" for e in d["facts"]["kernel"]["events"])' "events carry numeric times"
json_check 'next(f for f in d["findings"] if f["id"] == "P2P_IOMMU_FAULT")["cause"] == "p2p_pcie_acs_iommu"' "P2P finding cause class"
json_check 'd["facts"]["input"]["lost_records"] == 5' "lost record count"
# --since against the recorded /proc/uptime (5000 s): the last 13 min (from 4220 s) keep only Xid 45 at 4230
run_nd --sysroot "$SR" --json kernel --since 13m
json_check '[f["id"] for f in d["findings"] if f["id"].startswith("XID")] == ["XID_45"]' "--since 13m keeps the last events only"
run_nd --sysroot "$SR" --json kernel --since 1h
json_check 'any(f["id"] == "P2P_IOMMU_FAULT" for f in d["findings"])' "--since 1h keeps the P2P faults"

# the recorded H200 VM (a real kernel log): no GPU events; Translated without an IOMMU unit is harmless
run_nd --sysroot "$ND_FIXTURES/sysroot/h200-vm" --json kernel
expect_rc 0 "recorded H200 VM: healthy"
json_check 'd["facts"]["input"]["lines"] > 400 and d["facts"]["input"]["formats"] == "kmsg"' "H200 VM: real kmsg records read"
json_check '[g["bdf"] for g in d["facts"]["kernel"]["gpus"]] == ["0000:00:06.0"] and d["facts"]["kernel"]["event_count"] == 0' "H200 VM: one GPU, no events"
json_check 'd["facts"]["kernel"]["iommu_default_domain"] == "Translated" and any("no IOMMU unit" in n for n in d["facts"]["kernel"]["notes"]) and not d["findings"]' "H200 VM: Translated but no IOMMU unit: no finding"

# the driver's GPU-fatal RM statuses (kb/rm_status.def): one finding per GPU,
# by PCI address (GPU 1 of the sysroot), by the driver's instance, or none
run_nd --sysroot "$SR" kernel --prom "$ND_TMP/rm.prom" "$K/rm-status.dmesg"
expect_rc 2 "RM statuses: problem found"
expect_out 'ERROR GPU_RM_FATAL_STATUS +GPU 1 \(0000:04:00.0, NVIDIA H200\): the driver returned NV_ERR_RISCV_ERROR \(0x79, Generic RISC-V assert or halt\), once, at boot\+400.000s; NV_ERR_ECC_ERROR' "RM statuses of GPU 1 in one finding"
expect_out 'GPU_RM_FATAL_STATUS +the driver.s GPU5 .*NV_ERR_GPU_IS_LOST' "the driver's instance number when the line has no PCI address"
expect_out 'sudo nvidia-smi -r -i 1' "the fix resets GPU 1"
expect_no_out 'FULLCHIP' "a status the driver compared against is no event"
if grep -q '^nccl_doctor_kernel_events{.*gpu="1",.*kind="rm_status"} 2$' "$ND_TMP/rm.prom"; then ok "prom: rm_status events of GPU 1"; else not_ok "prom: rm_status events of GPU 1"; fi
run_nd --sysroot "$SR" --json kernel "$K/rm-status.dmesg"
cp "$OUT" "$ND_TMP/rm.json"
json_checks '[f["cause"] for f in d["findings"] if f["id"] == "GPU_RM_FATAL_STATUS"] == ["gpu_hardware"] * 3' "three GPU_RM_FATAL_STATUS findings, gpu_hardware" \
  'sorted(e["event"].split()[0] for e in d["facts"]["kernel"]["events"] if e["kind"] == "rm_status") == ["NV_ERR_ECC_ERROR", "NV_ERR_GPU_IS_LOST", "NV_ERR_RESET_REQUIRED", "NV_ERR_RISCV_ERROR"]' "events of kind rm_status" \
  'any(e["kind"] == "rm_status" and e["count"] == 2 and e["gpu"] is None for e in d["facts"]["kernel"]["events"])' "two NV_ERR_RESET_REQUIRED lines without an address"
if python3 "$ND_SRC/tests/tools/validate_json.py" "$ND_SRC/docs/schema" "$ND_TMP/rm.json" >"$ND_TMP/v" 2>&1
then ok "RM statuses: the document validates against docs/schema"; else not_ok "RM statuses: schema: $(head -3 "$ND_TMP/v")"; fi

# --gpus: only events of those GPUs (and events of no GPU)
run_nd --sysroot "$SR" --json --gpus 1 kernel
json_check 'set(f["id"] for f in d["findings"]) >= {"XID_79", "PCIE_AER_CORRECTABLE"} and not any(f["id"] in ("P2P_IOMMU_FAULT", "XID_45") for f in d["findings"])' "--gpus 1: GPU 1's events and the bridge above it only"
run_nd --sysroot "$SR" --json --gpus 0 kernel
json_check 'any(f["id"] == "XID_45" and f["severity"] == "info" for f in d["findings"]) and not any(f["id"] == "XID_79" for f in d["findings"])' "--gpus 0: Xid 45 still secondary to GPU 1's Xid 79"
run_nd --gpus 0,x kernel
expect_rc 64 "--gpus malformed"

# --- every fixture format ---
for f in xid-current.dmesg xid-mig.dmesg xid-legacy.dmesg xid-oldest.txt offbus-probe.dmesg aer-new.dmesg \
         aer-old.dmesg dmar-new.dmesg dmar-5x.dmesg dmar-4x.dmesg dmar-517.dmesg dmar-old.dmesg amdvi.dmesg \
         edac.dmesg iommu-hung.dmesg fmt-dmesg-T.txt fmt-journal.txt fmt-journal-iso.txt fmt-journal-mono.txt \
         fmt-kernlog.txt fmt-dmesg-x.txt fmt-kmsg.txt torn-kmsg.txt; do
  run_nd $E --json kernel "$K/$f"
  if [ "$RC" -le 2 ] && python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$OUT" 2>/dev/null; then
    ok "$f: exit $RC, valid JSON"; else not_ok "$f: exit $RC"; head -3 "$ERR"; fi
done
run_nd $E kernel "$K/xid-current.dmesg"
expect_rc 2 "Xid 79 is an error"
expect_out 'XID_79 +device 0000:5d:00.0: Xid 79 ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS' "Xid finding with the catalog name"
expect_out 'catalog action RESTART_BM' "catalog action"
expect_out 'WARN  XID_45 +device 0000:10:1c.0' "a lone Xid 45 is a warning"
expect_out 'info  XID_45 +device 0000:5d:00.0.*secondary' "Xid 45 15 s after Xid 79 is secondary"
expect_out 'recovery action required: Node Reboot Required' "Xid 154: the recovery action"
run_nd $E kernel "$K/xid-oldest.txt"
expect_out 'XID_UNKNOWN .*Xid 999' "an unknown code"
run_nd $E kernel "$K/xid-mig.dmesg"
expect_out 'MIG GPU-I 2 GPU-CI 0' "MIG instance shown"
run_nd $E kernel "$K/offbus-probe.dmesg"
expect_out 'GPU_FALLEN_OFF_BUS +device 0000:b3:00.0 has fallen off the bus \(probe time\)' "probe-time fallen off the bus"
run_nd $E kernel "$K/aer-new.dmesg"
expect_out 'PCIE_ACS_VIOLATION' "ACSViol bit gives an ACS finding"
expect_out 'PCIE_AER_FATAL' "fatal AER"
expect_out 'BadTLP,Timeout' "status bits listed"
run_nd $E kernel "$K/edac.dmesg"
expect_out 'EDAC_UE .*MC1 UE' "EDAC UE"
expect_out 'EDAC_CE .*4 errors' "EDAC CE counts summed"
run_nd $E kernel "$K/iommu-hung.dmesg"
expect_out "HUNG_TASK_NVIDIA +task 'nccl-proxy'" "hung NCCL thread"
expect_out "HUNG_TASK_NVIDIA +task 'python3'" "hung task with an nvidia stack"
expect_no_out "kworker" "unrelated hung task left out"
run_nd $E kernel "$K/fmt-dmesg-T.txt" "$K/fmt-journal.txt"
expect_out 'fmt-journal.txt:3: \[2026-12-01 11:05:00\]' "several files: evidence names file and line"
run_nd $E --json kernel --since 30m "$K/fmt-dmesg-T.txt"
json_check '[f["id"] for f in d["findings"]] == ["XID_48"]' "--since on wall-clock stamps: relative to the newest line"
# stdin
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
timeout 60 "$ND_BIN" $E kernel - <"$K/xid-legacy.dmesg" >"$OUT" 2>"$ERR"; RC=$?
expect_rc 2 "stdin"
expect_out 'XID_79' "stdin parsed"
# a clean log
printf '[    0.000000] Linux version 6.8.0\n[    1.0] iommu: Default domain type: Passthrough (set via kernel command line)\n' >"$ND_TMP/clean.txt"
run_nd $E kernel "$ND_TMP/clean.txt"
expect_rc 0 "clean log: healthy"
: >"$ND_TMP/empty.txt"
run_nd $E kernel "$ND_TMP/empty.txt"
expect_rc 3 "empty log: nothing was read, not healthy"
expect_err "nothing was read: '.*empty.txt' is empty" "empty log: says nothing was read"

# --- bad input ---
run_nd $E kernel "$ND_TMP/nope.txt"
expect_rc 3 "missing file"
expect_err "cannot read '.*nope.txt': no such file" "missing file: one-line error"
expect_err_lines 1 "missing file: exactly one line"
run_nd $E kernel "$ND_TMP"
expect_rc 3 "a directory"
expect_err "is a directory" "directory: message"
run_nd $E kernel "$K/binary.bin"
expect_rc 3 "binary garbage"
expect_err "binary data, not a text log" "binary: message (the one rule of util/input.h)"
run_nd $E kernel "$K/dmesg.gz"
if [ "$RC" -le 2 ]; then ok "compressed file: decompressed and read (exit $RC)"; else not_ok "compressed file: exit $RC"; fi
expect_out "^Kernel log: [1-9][0-9]* lines read" "compressed file: lines read"
OUT="$ND_TMP/out"; ERR="$ND_TMP/err"; cat "$K/dmesg.gz" | timeout 60 "$ND_BIN" $E kernel - >"$OUT" 2>"$ERR"; RC=${PIPESTATUS[1]}
expect_rc 3 "compressed data on stdin"
expect_err "compressed" "compressed on stdin: message"
run_nd --sysroot "$ND_TMP/empty" kernel
expect_rc 3 "sysroot without dev/kmsg"
expect_err "missing" "no kmsg: message"
mkdir -p "$ND_TMP/fifo/dev"; mkfifo "$ND_TMP/fifo/dev/kmsg"
run_nd --sysroot "$ND_TMP/fifo" kernel
expect_rc 3 "kmsg FIFO in a sysroot: refused, no hang"
expect_err "a device node, FIFO or socket" "kmsg FIFO: message"
# permission denied: a kmsg nobody may read, read by an unprivileged user
mkdir -p "$ND_TMP/perm/dev"; cp "$SR/dev/kmsg" "$ND_TMP/perm/dev/kmsg"; chmod 000 "$ND_TMP/perm/dev/kmsg"
chmod 755 "$ND_TMP" "$ND_TMP/perm" "$ND_TMP/perm/dev"
if [ "$(id -u)" -ne 0 ]; then
  run_nd --sysroot "$ND_TMP/perm" kernel
elif command -v setpriv >/dev/null && setpriv --reuid=65534 --regid=65534 --clear-groups true 2>/dev/null; then
  timeout 60 setpriv --reuid=65534 --regid=65534 --clear-groups "$ND_BIN" --sysroot "$ND_TMP/perm" kernel >"$ND_TMP/out" 2>"$ND_TMP/err" </dev/null; RC=$?
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
else
  RC=3; echo "cannot read '/dev/kmsg': permission denied; run 'sudo nccl-doctor kernel'" >"$ERR"; echo "# skipped: no way to drop root"
fi
expect_rc 3 "kmsg permission denied: exit 3"
expect_err "cannot read '/dev/kmsg': permission denied; run 'sudo nccl-doctor kernel', or save the log" "permission: suggests sudo or a saved dmesg"
expect_err_lines 1 "permission: one line"
finish
