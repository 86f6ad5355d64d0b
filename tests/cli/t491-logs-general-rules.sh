#!/bin/bash
# nccl-doctor logs: the general rules of issue 14's third accuracy round
# (docs/logs.md "The analysis", 4c-4f), on small constructed logs in the
# real formats, each with a case where the rule must not fire:
#  - result-code priors: "unhandled cuda error" names P2P (bare metal and
#    VM) and the GPU, then the builds; "invalid usage" names mixed libnccl
#    versions; `unknown` steps back below a code's priors;
#  - "internal error" names configuration (an unreadable topology XML) too;
#  - CUDA's "named symbol not found" / "no kernel image" is a build without
#    this GPU's kernels (version_mismatch);
#  - NCCL 1.x (nccl-tests' header) is the first suspect of its failure;
#  - a bus error while vLLM loads libnccl is a damaged library, not /dev/shm;
#  - ENODEV in NCCL's verbs wording is the IB set-up; Gloo's is not;
#  - NET/IB "collective mismatch error" pasted bare is a size mismatch that
#    also names different NCCL versions;
#  - a stop after NCCL routed over NVLink keeps the NVLink among the suspects;
#  - bare watchdog timeouts: a late SeqNum, the first collective, a Ray
#    worker on another node (and a SeqNum wrapped onto the next line);
#  - ranks missing at init on other hosts: unreachable before dead;
#  - what the log shows of the machine: a hypervisor (P2P in a VM), two
#    different libnccl files or NCCL wheels (version_mismatch).
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

not_top3() { json_check "not any(c['cause'] == '$1' for c in d['causes'][:3])" "$2"; }
finding() { json_check "any(f['id'] == '$1' for f in d['findings'])" "$2"; }

# result-code priors
echo "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)" >"$ND_TMP/cuda.log"
run_nd logs --json "$ND_TMP/cuda.log"
top3 p2p_virtualization "unhandled cuda error: P2P in a VM among the first three"
top3 hardware_xid_nvlink "unhandled cuda error: the GPU among the first three"
top3 p2p_pcie_acs_iommu "unhandled cuda error: P2P on bare metal among the first three"
not_top3 unknown "unhandled cuda error: unknown steps back below the code's priors"
json_check "any(c['cause'] == 'version_mismatch' for c in d['causes'])" "unhandled cuda error: a libnccl for another CUDA is a candidate"
echo "[rank0]: RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)" >"$ND_TMP/usage.log"
run_nd logs --json "$ND_TMP/usage.log"
top3 version_mismatch "invalid usage: mixed libnccl versions among the first three"
not_top3 unknown "invalid usage: unknown steps back"

echo "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:275, internal error - please report this issue to the NCCL developers, NCCL version 2.18.5" >"$ND_TMP/internal.log"
run_nd logs --json "$ND_TMP/internal.log"
top3 nccl_config_error "internal error: a topology/graph file NCCL cannot read among the first three"

# a build without this GPU's kernels
echo "gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure 'named symbol not found'" >"$ND_TMP/sym500.log"
run_nd logs --json "$ND_TMP/sym500.log"
first version_mismatch "'named symbol not found': a libnccl without this GPU's kernels"
echo "gcn75:2336636:2336906 [0] enqueue.cc:58 NCCL WARN Cuda failure 'out of memory'" >"$ND_TMP/oom.log"
run_nd logs --json "$ND_TMP/oom.log"
no_finding LOG_NCCL_NO_KERNEL_IMAGE "another CUDA error is no missing kernel"

# NCCL 1.x
printf '%s\n' "# NCCL Tests compiled with NCCL 1.0" "# Using devices" "NCCL failure all_reduce.cu:95 'unhandled cuda error'" >"$ND_TMP/nccl1.log"
run_nd logs --json "$ND_TMP/nccl1.log"
first driver_or_kernel_bug "NCCL 1.x: the obsolete NCCL first"
finding LOG_NCCL_OBSOLETE "NCCL 1.x: its finding"
printf '%s\n' "# NCCL Tests compiled with NCCL 2.4" "NCCL failure all_reduce.cu:95 'unhandled cuda error'" >"$ND_TMP/nccl2.log"
run_nd logs --json "$ND_TMP/nccl2.log"
no_finding LOG_NCCL_OBSOLETE "NCCL 2.4 is not obsolete"

# a bus error while loading libnccl
echo "[Bug]: bus error when Loading nccl from library /root/.config/vllm/nccl/cu12/libnccl.so.2.18.1" >"$ND_TMP/lib.log"
run_nd logs --json "$ND_TMP/lib.log"
first version_mismatch "SIGBUS while loading libnccl: a damaged library"
finding LOG_NCCL_LIB_LOAD_CRASH "SIGBUS while loading libnccl: its finding"
no_finding LOG_SHM_SIGBUS "SIGBUS while loading libnccl: not /dev/shm"
echo "INFO 04-14 06:28:59 pynccl.py:58] Loading nccl from library /root/.config/vllm/nccl/cu12/libnccl.so.2.18.1" >"$ND_TMP/libok.log"
run_nd logs --json "$ND_TMP/libok.log"
no_finding LOG_NCCL_LIB_LOAD_CRASH "loading libnccl without a bus error is no crash"

printf '%s\n' "INFO 04-14 06:28:59 pynccl.py:58] Loading nccl from library /root/.config/vllm/nccl/cu12/libnccl.so.2.18.1" \
  "Bus error (core dumped)" >"$ND_TMP/lib2.log"
run_nd logs --json "$ND_TMP/lib2.log"
first version_mismatch "bus error on the line after the libnccl load, no NCCL line between: a damaged library"
json_check "all(c['confidence'] <= 0.2 for c in d['causes'] if c['cause'] == 'shm_too_small')" "bus error right after the load: /dev/shm steps back"
printf '%s\n' "INFO 04-14 06:28:59 pynccl.py:58] Loading nccl from library /root/.config/vllm/nccl/cu12/libnccl.so.2.18.1" \
  "box:11:11 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>" "box:11:11 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct" \
  "Bus error (core dumped)" >"$ND_TMP/lib3.log"
run_nd logs --json "$ND_TMP/lib3.log"
first shm_too_small "bus error after NCCL ran (SHM connected): /dev/shm"
no_finding LOG_NCCL_LIB_LOAD_CRASH "bus error after NCCL ran: no library crash"

# ENODEV
echo "with error No such device --NCCL 2.7.8" >"$ND_TMP/enodev.log"
run_nd logs --json "$ND_TMP/enodev.log"
first ib_rdma_config "NCCL's 'with error No such device': the IB set-up"
echo "RuntimeError: [enforce fail at ../third_party/gloo/gloo/transport/tcp/device.cc:83] ifa != nullptr. Unable to find address for: eth9 with error No such device" >"$ND_TMP/gloo.log"
run_nd logs --json "$ND_TMP/gloo.log"
no_finding LOG_IB_ERROR "Gloo's ENODEV (no NCCL) is no IB error"

# NET/IB collective mismatch pasted bare
echo "Run multi-worker with nccl error: NET/IB : collective mismatch error" >"$ND_TMP/ibmm.log"
run_nd logs --json "$ND_TMP/ibmm.log"
first collective_mismatch_app_bug "bare IB collective mismatch: the message's own class first"
top3 version_mismatch "bare IB collective mismatch: different NCCL versions among the first three"
top3 nccl_config_error "bare IB collective mismatch: settings among the first three"

# NVLink in the graph, then the log stops
nvl() { # TYPE
cat <<LOG
box:5637:5671 [1] NCCL INFO Pattern 4, crossNic 0, nChannels 1, speed 21.000000/21.000000, type $1, sameChannels 1
box:5637:5671 [1] NCCL INFO  0 : GPU/0 GPU/1
box:5637:5670 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 1, speed 21.000000/21.000000, type $1, sameChannels 1
box:5637:5670 [0] NCCL INFO Channel 00/01 :    0   1
box:5637:5671 [1] NCCL INFO threadThresholds 8/8/64 | 16/8/64 | 8/8/64
box:5637:5671 [1] NCCL INFO Trees [0] -1/-1/-1->1->0|0->1->-1/-1/-1
box:5637:5670 [0] NCCL INFO threadThresholds 8/8/64 | 16/8/64 | 8/8/64
LOG
}
nvl NVL/PIX >"$ND_TMP/nvl.log"
run_nd logs --json "$ND_TMP/nvl.log"
first hardware_xid_nvlink "a stop after NCCL routed over NVLink: the NVLink first"
finding LOG_GRAPH_NVLINK "NVLink graph: its info finding"
nvl PIX/PIX >"$ND_TMP/pix.log"
run_nd logs --json "$ND_TMP/pix.log"
json_check "d['causes'] and d['causes'][0]['cause'] != 'hardware_xid_nvlink'" "a stop over PCIe does not put the NVLink first"

# bare watchdog timeouts
printf '%s\n' "[Rank 1] Watchdog caught collective operation timeout:" \
  "WorkNCCL(SeqNum=12590, OpType=_ALLGATHER_BASE, NumelIn=1404928, NumelOut=2809856," \
  "         Timeout(ms)=600000) ran for 600060 milliseconds before timing out." >"$ND_TMP/late.log"
run_nd logs --json "$ND_TMP/late.log"
top3 driver_or_kernel_bug "late timeout (SeqNum on the next line): an NCCL/driver bug among the first three"
not_top3 p2p_pcie_acs_iommu "late timeout: P2P worked for thousands of collectives"
echo "[rank1]:[E511 21:37:10.112405891 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=2052096, NumelOut=0, Timeout(ms)=600000) ran for 600074 milliseconds before timing out." >"$ND_TMP/first.log"
run_nd logs --json "$ND_TMP/first.log"
top3 p2p_pcie_acs_iommu "first-collective timeout on one host: P2P among the first three"
not_top3 version_mismatch "first-collective timeout on one host: no per-host builds"
echo "(RayWorkerWrapper pid=144878, ip=10.52.51.35) [rank12]:[E511 21:37:10.112405891 ProcessGroupNCCL.cpp:629] [Rank 12] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=GATHER, NumelIn=2052096, NumelOut=0, Timeout(ms)=600000) ran for 600074 milliseconds before timing out." >"$ND_TMP/ray.log"
run_nd logs --json "$ND_TMP/ray.log"
top3 version_mismatch "Ray worker on another node: per-host builds among the first three"
top3 ib_rdma_config "Ray worker on another node: the network among the first three"

# ranks missing at init
for r in 0 1 2; do
  echo "gpu2:4665$r:4665$r [$r] NCCL INFO comm 0x7f13240$r rank $r nranks 8 cudaDev $r nvmlDev $r busId ${r}1000 commId 0xabc - Init START"
done >"$ND_TMP/console.log"
run_nd logs --json "$ND_TMP/console.log"
first bootstrap_network "one host's console, ranks missing at init: unreachable first"
for r in 0 1 2; do
  echo "gpu2:4665$r:4665$r [$r] NCCL INFO comm 0x7f13240$r rank $r nranks 8 cudaDev $r nvmlDev $r busId ${r}1000 commId 0xabc - Init START" >"$ND_TMP/rank$r.log"
done
run_nd logs --json "$ND_TMP/rank0.log" "$ND_TMP/rank1.log" "$ND_TMP/rank2.log"
json_check "d['causes'] and d['causes'][0]['cause'] == 'peer_died_or_oom'" "one file per rank, one host: a missing rank may be a dead one here"
# a virtual machine
printf '%s\n' "[    0.000000] Hypervisor detected: KVM" "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)" >"$ND_TMP/vm.log"
run_nd logs --json "$ND_TMP/vm.log"
first p2p_virtualization "a hypervisor and a CUDA failure: P2P in a VM first"
printf '%s\n' "    Virtualization Mode                   : None" "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)" >"$ND_TMP/novm.log"
run_nd logs --json "$ND_TMP/novm.log"
no_finding LOG_VM_HINT "nvidia-smi's 'Virtualization Mode : None' is bare metal"
echo "[    0.000000] Hypervisor detected: KVM" >"$ND_TMP/vmok.log"
run_nd logs --json "$ND_TMP/vmok.log"
json_check "not d['causes'] or d['causes'][0]['cause'] != 'p2p_virtualization'" "a VM in a run that did not fail names no cause"

# two libnccl
printf '%s\n' "[pip3] nvidia-nccl-cu11==2.14.3" "[pip3] nvidia-nccl-cu12==2.27.3" "[rank0]: RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)" >"$ND_TMP/wheels.log"
run_nd logs --json "$ND_TMP/wheels.log"
finding LOG_LIBNCCL_SEVERAL "two NCCL wheels: their finding"
first version_mismatch "two NCCL wheels and an NCCL error: version mismatch first"
printf '%s\n' "lrwxrwxrwx 1 root root 17 Jul 17 19:02 /opt/nccl/lib/libnccl.so.2 -> libnccl.so.2.27.0" \
  "lrwxrwxrwx 1 root root 17 Sep 10  2024 /usr/lib/x86_64-linux-gnu/libnccl.so.2 -> libnccl.so.2.23.4" >"$ND_TMP/two.log"
run_nd logs --json "$ND_TMP/two.log"
finding LOG_LIBNCCL_SEVERAL "two libnccl files in other directories: their finding"
json_check "not any(c['cause'] == 'version_mismatch' and c['confidence'] >= 0.3 for c in d['causes'])" "two libnccl in a run that did not fail name no cause"
printf '%s\n' "INFO 07-22 03:07:02 utils.py:918] Found nccl from library libnccl.so.2" \
  " 5 0x00000000000489b1 ???()  /usr/lib/x86_64-linux-gnu/libnccl.so.2:0" "[pip3] nvidia-nccl-cu12==2.27.3" "nvidia-nccl-cu12 2.27.3" >"$ND_TMP/one.log"
run_nd logs --json "$ND_TMP/one.log"
no_finding LOG_LIBNCCL_SEVERAL "one libnccl named in several ways is one"
finish
