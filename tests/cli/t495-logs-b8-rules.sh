#!/bin/bash
# nccl-doctor logs: the rules added after scoring the held-out public batch 8
# (tests/fixtures/logs/public 118-126, docs/logs.md), each on small
# constructed lines in the real formats, once where it fires and once where
# it must not:
#  - PyTorch's watchdog stack frames alone (WorkNCCL::checkTimeout, PT02f):
#    a collective timed out;
#  - a network device that is not on PCI (S23u) and NCCL's
#    'Attribute busid of node nic not found': NCCL's topology bug;
#  - a GeForce RTX 50-series GPU (S50r) with NCCL before 2.26.2;
#  - a bootstrap hang said of one-rank communicators only.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}


# 1. the watchdog's stack frames alone (PT02f)
printf '%s\n' 'frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::duration<long, std::ratio<1l, 1000l> > >) + 0x1d2 (0x1 in libtorch_cuda.so)' \
	'frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x2 in libtorch_cuda.so)' \
	'Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1521 (most recent call first):' >"$ND_TMP/wd.log"
run_nd logs --json "$ND_TMP/wd.log"
has_finding LOG_WATCHDOG_TIMEOUT "WorkNCCL::checkTimeout's frame: a collective timed out"
first collective_mismatch_app_bug "the watchdog's frames alone: the collective-timeout candidates"
printf '%s\n' 'frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 (0x2 in libtorch_cuda.so)' \
	'Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1521 (most recent call first):' >"$ND_TMP/wd2.log"
run_nd logs --json "$ND_TMP/wd2.log"
no_finding LOG_WATCHDOG_TIMEOUT "a watchdog exception without checkTimeout's frame is no timeout (an NCCL error also ends there)"

# 2. a NIC that is not on PCI and NCCL's busid warning (S23u)
u='h:1:2 [0] NCCL INFO Topology detection: network path /sys/devices/pci0000:2b/0000:2b:08.1/0000:2e:00.3/usb1/1-1/1-1.2/1-1.2:2.0 is not a PCI device (usb). Attaching to first CPU'
printf '%s\n' "$u" 'h:1:2 [0] graph/xml.h:85 NCCL WARN Attribute busid of node nic not found' >"$ND_TMP/usb.log"
run_nd logs --json "$ND_TMP/usb.log"
first driver_or_kernel_bug "a USB NIC then 'busid of node nic not found': NCCL's topology bug"
has_finding LOG_TOPO_NIC_NO_BUSID "a USB NIC then the busid warning: its finding"
printf '%s\n' "$u" 'h:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0 MNNVL 0' 'h:1:2 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 commId 0x1 - Init COMPLETE' >"$ND_TMP/usb2.log"
run_nd logs --json "$ND_TMP/usb2.log"
has_finding LOG_TOPO_NIC_NOT_PCI "the USB NIC line alone is a note"
no_finding LOG_TOPO_NIC_NO_BUSID "a USB NIC without the busid warning is no failure"
no_cause driver_or_kernel_bug "a USB NIC in a run that completed init names no cause"
printf '%s\n' 'h:1:2 [0] graph/xml.h:85 NCCL WARN Attribute busid of node nic not found' >"$ND_TMP/usb3.log"
run_nd logs --json "$ND_TMP/usb3.log"
no_finding LOG_TOPO_NIC_NO_BUSID "the busid warning without a non-PCI NIC stays NCCL's message class"

# 3. an RTX 50-series GPU with NCCL before 2.26.2 (S50r)
g='#  Rank  0 Group  0 Pid  12225 on       node device  0 [0000:16:00] NVIDIA GeForce RTX 5090'
mk() { printf '%s\n' "$g" "node:12225:12225 [0] NCCL INFO NCCL version $1+cuda12.8" \
	'node:12225:12255 [0] NCCL INFO ncclCommInitAll comm 0x55 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 16000 commId 0x1c - Init START' >"$2"; }
mk 2.25.1 "$ND_TMP/b1.log"
run_nd logs --json "$ND_TMP/b1.log"
first driver_or_kernel_bug "an RTX 5090 with NCCL 2.25.1 that stopped in init: NCCL's sm_120 bug"
has_finding LOG_NCCL_OLD_FOR_SM120 "an RTX 5090 with NCCL 2.25.1: its finding"
mk 2.26.2 "$ND_TMP/b2.log"
run_nd logs --json "$ND_TMP/b2.log"
no_finding LOG_NCCL_OLD_FOR_SM120 "NCCL 2.26.2 on an RTX 5090 is the fixed release"
sed 's/RTX 5090/RTX 4090/' "$ND_TMP/b1.log" >"$ND_TMP/b3.log"
run_nd logs --json "$ND_TMP/b3.log"
no_finding LOG_NCCL_OLD_FOR_SM120 "NCCL 2.25.1 on an RTX 4090 (sm_89) is no sm_120 case"

# 4. a bootstrap hang of one-rank communicators
sed 's/nranks 2/nranks 1/' "$ND_TMP/b3.log" >"$ND_TMP/one.log"
run_nd logs --json "$ND_TMP/one.log"
sev_of LOG_HANG_BOOTSTRAP warning "one-rank communicators: the bootstrap hang drops to a warning"
json_check "any(f['id'] == 'LOG_HANG_BOOTSTRAP' and any('no other rank' in (e.get('text') or '') for e in f['evidence']) for f in d['findings'])" "one-rank communicators: the finding says there is no other rank"
run_nd logs --json "$ND_TMP/b3.log"
sev_of LOG_HANG_BOOTSTRAP error "two-rank communicators: the bootstrap hang stays an error"
finish
