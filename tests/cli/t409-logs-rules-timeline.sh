#!/bin/bash
# nccl-doctor logs: the rules of the timeline (timeline.c), each on small
# constructed lines in the real formats, once where it fires and once where it
# must not (docs/logs.md says which public cases motivated each):
#  - bare watchdog timeouts: PyTorch's own reading unless the SeqNum, a Ray
#    worker's prefix or vLLM's custom all-reduce says more;
#  - ranks missing at init on other hosts: unreachable before dead;
#  - a bootstrap hang of one-rank communicators, a bootstrap stop on one
#    host with no hang marker: warnings that say why.
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

absent() { json_check "not any(c['cause'] == '$1' for c in d['causes'])" "$2"; }
# nccl-tests' GPU lines: N GPUs of model M on host h1
gpus() {
	local i
	echo "# Using devices"
	for i in $(seq 0 $(($1 - 1))); do
		printf '#  Rank %2d Group  0 Pid    500 on         h1 device %2d [0000:%02x:00] %s\n' "$i" "$i" $((16 + i)) "$2"
	done
}
# the head of one process's NCCL log on one host, cut at T2 (no hang marker)
head_t2() {
	printf '%s\n' \
		"h1:500:500 [0] NCCL INFO Bootstrap: Using eth0:10.0.0.1<0>" \
		"h1:500:500 [0] NCCL INFO cudaDriverVersion 12040" \
		"h1:500:500 [0] NCCL INFO NCCL version ${1:-2.26.5}+cuda12.4" \
		"h1:500:510 [0] NCCL INFO NET/Plugin: Could not find: libnccl-net.so. Using internal net plugin."
}
not_top3() { json_check "not any(c['cause'] == '$1' for c in d['causes'][:3])" "$2"; }
present() { json_check "any(c['cause'] == '$1' for c in d['causes'])" "$2"; }
title_has() { json_check "any(f['id'] == '$1' and '$2' in f['title'] for f in d['findings'])" "$3"; }
wd() { # wd PREFIX SEQ: one watchdog line
  echo "$1[rank1]:[E511 21:37:10.112405891 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=$2, OpType=GATHER, NumelIn=8000, NumelOut=0, Timeout(ms)=600000) ran for 600327 milliseconds before timing out."
}

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

# bare watchdog timeouts
echo "[rank0]: Watchdog caught collective operation timeout" >"$ND_TMP/noseq.log"
run_nd logs --json "$ND_TMP/noseq.log"
first collective_mismatch_app_bug "watchdog without a SeqNum: PyTorch's reading (the application) first"
present unknown "watchdog without a SeqNum: unknown (what to collect) among the candidates"
json_check "any('PyTorch' in e['text'] for f in d['findings'] if f['id'] == 'LOG_HANG_DATA_PATH' for e in f['evidence'])" "watchdog: the finding says whose reading it is"
wd "" 5 >"$ND_TMP/late.log"
run_nd logs --json "$ND_TMP/late.log"
first collective_mismatch_app_bug "late watchdog timeout: the application first"
absent custom_allreduce_or_cumem "late watchdog timeout without vLLM: no custom all-reduce"
wd "" 1 >"$ND_TMP/first.log"
run_nd logs --json "$ND_TMP/first.log"
first p2p_pcie_acs_iommu "first-collective timeout on one host: the P2P path first"
wd "(RayWorkerWrapper pid=2376582) " 50404 >"$ND_TMP/vllm.log"
run_nd logs --json "$ND_TMP/vllm.log"
first custom_allreduce_or_cumem "late timeout of a vLLM worker: its custom all-reduce first"
top3 collective_mismatch_app_bug "late timeout of a vLLM worker: the application next"
json_check "any('disable-custom-all-reduce' in e['text'] for f in d['findings'] if f['id'] == 'LOG_HANG_DATA_PATH' for e in f['evidence'])" "vLLM: the finding names the flag that tests it"
{ echo "(VllmWorkerProcess pid=351) WARNING 02-28 12:00:41 custom_all_reduce.py:136] Custom allreduce is disabled because it's not supported on more than two PCIe-only GPUs."
  wd "(VllmWorkerProcess pid=351) " 50404; } >"$ND_TMP/vllm-off.log"
run_nd logs --json "$ND_TMP/vllm-off.log"
absent custom_allreduce_or_cumem "vLLM said its custom all-reduce is off: not a candidate"
wd "(RayWorkerWrapper pid=144878, ip=10.52.51.35) " 1 >"$ND_TMP/vllm-ray.log"
run_nd logs --json "$ND_TMP/vllm-ray.log"
absent custom_allreduce_or_cumem "a vLLM group that spans nodes: no custom all-reduce"
top3 version_mismatch "a Ray worker on another node: per-host builds among the first three"

# a bootstrap hang of one-rank communicators
printf '%s\n' '#  Rank  0 Group  0 Pid  12225 on       node device  0 [0000:16:00] NVIDIA GeForce RTX 4090' \
	'node:12225:12225 [0] NCCL INFO NCCL version 2.25.1+cuda12.8' \
	'node:12225:12255 [0] NCCL INFO ncclCommInitAll comm 0x55 rank 0 nranks 2 cudaDev 0 nvmlDev 0 busId 16000 commId 0x1c - Init START' >"$ND_TMP/two.log"
sed 's/nranks 2/nranks 1/' "$ND_TMP/two.log" >"$ND_TMP/one.log"
run_nd logs --json "$ND_TMP/one.log"
sev_of LOG_HANG_BOOTSTRAP warning "one-rank communicators: the bootstrap hang drops to a warning"
json_check "any(f['id'] == 'LOG_HANG_BOOTSTRAP' and any('no other rank' in (e.get('text') or '') for e in f['evidence']) for f in d['findings'])" "one-rank communicators: the finding says there is no other rank"
run_nd logs --json "$ND_TMP/two.log"
sev_of LOG_HANG_BOOTSTRAP error "two-rank communicators: the bootstrap hang stays an error"

# a bootstrap stop on one host with no hang marker
{ gpus 4 'Tesla V100-SXM2-32GB'; head_t2; } >"$ND_TMP/t5.log"
run_nd logs --json "$ND_TMP/t5.log"
sev_of LOG_HANG_BOOTSTRAP warning "one host, no marker: the bootstrap stop is a warning"
title_has LOG_HANG_BOOTSTRAP 'possible hang' "and says the log may just stop"
json_check "any(f['id'] == 'LOG_HANG_BOOTSTRAP' and any('NCCL_SOCKET_IFNAME rarely matters' in e.get('text', '') for e in f['evidence']) for f in d['findings'])" "one process drives every GPU: the interface rarely matters"
{ gpus 4 'Tesla V100-SXM2-32GB'; head_t2; echo 'rc=124'; } >"$ND_TMP/t5k.log"
run_nd logs --json "$ND_TMP/t5k.log"
sev_of LOG_HANG_BOOTSTRAP error "killed by timeout(1): a hang marker, the bootstrap stop stays an error"
# Gloo's own time-out without NCCL lines (GL05, case 500): a collective a
# peer never reached, read as a watchdog time-out, not a hang before NCCL
printf '%s\n' 'RuntimeError: Application timeout caused pair closure' \
  '[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 1800000ms for recv operation to complete' >"$ND_TMP/gloo-to.log"
run_nd logs --json "$ND_TMP/gloo-to.log"
first collective_mismatch_app_bug "a Gloo time-out alone: a peer that never reached the call, the application first"
no_finding LOG_HANG_BEFORE_NCCL "a Gloo time-out is no hang before NCCL"

finish
