#!/bin/bash
# nccl-doctor logs: the general rules of issue 14 on small constructed logs.
#  - a hang counts fully only with a marker; a log that merely ends is a weak
#    prior (<= 0.2); a process with only mid-init lines has no known stage;
#    one host ranks the intra-node paths first, several hosts the network;
#  - an unknown NCCL WARN followed by a back-trace that returned an error is
#    a failure, classified by its text, then its source file, then the code;
#  - every signature of a line counts (a watchdog line naming the OOM killer).
. "$(dirname "$0")/lib.sh"
export ASAN_OPTIONS=${ASAN_OPTIONS:-exitcode=99} UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:exitcode=99:print_stacktrace=1}

# an excerpt: mid-init lines only, one host, no marker
cat >"$ND_TMP/frag1.log" <<'LOG'
box:11:11 [0] NCCL INFO Setting affinity for GPU 0 to ff00ff
box:11:11 [1] NCCL INFO Setting affinity for GPU 1 to ff00ff
LOG
run_nd logs --json "$ND_TMP/frag1.log"
json_check 'd["causes"] and d["causes"][0]["confidence"] <= 0.2' "excerpt without a marker: weak prior only"
json_check 'd["causes"][0]["cause"] in ("p2p_pcie_acs_iommu", "shm_too_small", "gpu_hardware", "nvlink_fabric")' "one host: an intra-node path first"
json_check 'any(f["id"] == "LOG_HANG_STAGE_UNKNOWN" for f in d["findings"])' "stage unknown, not T0"
# the same on two hosts
cat >"$ND_TMP/frag2.log" <<'LOG'
nodeA:11:11 [0] NCCL INFO Setting affinity for GPU 0 to ff00ff
nodeB:21:21 [0] NCCL INFO Setting affinity for GPU 0 to ff00ff
LOG
run_nd logs --json "$ND_TMP/frag2.log"
json_check 'd["causes"][0]["cause"] == "bootstrap_network" and d["causes"][0]["confidence"] <= 0.2' "two hosts: the network first, weakly"
# a marker makes it a hang at full weight
cp "$ND_TMP/frag2.log" "$ND_TMP/frag3.log"
echo "Killed" >>"$ND_TMP/frag3.log"
run_nd logs --json "$ND_TMP/frag3.log"
json_check 'd["causes"][0]["confidence"] > 0.3' "with a kill marker: a hang at full weight"

# an unknown WARN with a failing back-trace: classified by text, then file, then code
cat >"$ND_TMP/warn.log" <<'LOG'
box:11:30 [0] transport/p2p.cc:512 NCCL WARN something this version says for the first time
box:11:30 [0] NCCL INFO transport/p2p.cc:520 -> 1
box:11:30 [0] NCCL INFO init.cc:1200 -> 1
LOG
run_nd logs --json "$ND_TMP/warn.log"
json_check 'd["causes"][0]["cause"] == "p2p_pcie_acs_iommu" and d["causes"][0]["confidence"] >= 0.5' "unknown WARN in p2p.cc with '-> 1': a P2P failure"
sed -i 's/something this version says/shared memory segment not ready/' "$ND_TMP/warn.log"
run_nd logs --json "$ND_TMP/warn.log"
json_check 'd["causes"][0]["cause"] == "shm_too_small"' "the message text decides before the source file"
cat >"$ND_TMP/warn2.log" <<'LOG'
box:11:30 [0] misc/newthing.cc:10 NCCL WARN a brand new complaint
box:11:30 [0] NCCL INFO misc/newthing.cc:12 -> 6
LOG
run_nd logs --json "$ND_TMP/warn2.log"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom"' "else the result code (6 remote error)"
cat >"$ND_TMP/warn3.log" <<'LOG'
box:11:30 [0] transport/p2p.cc:512 NCCL WARN something this version says for the first time
box:11:11 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 1000 commId 0x9 - Init COMPLETE
LOG
run_nd logs --json "$ND_TMP/warn3.log"
json_check 'not any(c["cause"] == "p2p_pcie_acs_iommu" and c["confidence"] >= 0.5 for c in d["causes"])' "the same WARN without a failing back-trace is no failure"

# a watchdog line that also names the OOM killer (Ray)
cat >"$ND_TMP/ray.log" <<'LOG'
(pid=7) The actor is dead because its worker process has died. (1) The process is killed by SIGKILL by OOM killer due to high memory usage. [rank9]:[E416 ProcessGroupNCCL.cpp:1834] Timeout at NCCL work: 876319, last enqueued NCCL work: 876319
LOG
run_nd logs --json "$ND_TMP/ray.log"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom"' "watchdog + OOM killer on one line: the dead rank first"
# a graph file forced by the environment in a run that stopped
cp "$ND_TMP/frag1.log" "$ND_TMP/graph.log"
echo "box:11:11 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /opt/graph.xml" >>"$ND_TMP/graph.log"
run_nd logs --json "$ND_TMP/graph.log"
json_check 'd["causes"][0]["cause"] == "nccl_config_error" and d["causes"][0]["confidence"] <= 0.3' "NCCL_GRAPH_FILE in a stopped run: a weak config suspect"
cat >"$ND_TMP/graph-ok.log" <<'LOG'
box:11:11 [0] NCCL INFO NCCL version 2.21.5+cuda12.4
box:11:11 [0] NCCL INFO NCCL_GRAPH_FILE set by environment to /opt/graph.xml
box:11:11 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 1000 commId 0x9 - Init START
box:11:11 [0] NCCL INFO ncclCommInitRank comm 0x1 rank 0 nranks 1 cudaDev 0 nvmlDev 0 busId 1000 commId 0x9 - Init COMPLETE
step 1 loss 2.0
LOG
run_nd logs --json "$ND_TMP/graph-ok.log"
json_check 'd["causes"] == []' "the same variable in a healthy run names no cause"
# an address of no family: with no interface printed, the interface; with
# a good local interface printed, a peer's different libnccl
echo "ncclSocketInit: connecting to address  with family 59936 is neither AF_INET(2) nor AF_INET6(10)" >"$ND_TMP/fam1.log"
run_nd logs --json "$ND_TMP/fam1.log"
json_check 'd["causes"][0]["cause"] == "bootstrap_network"' "bad address family, no interface known: bootstrap"
cat >"$ND_TMP/fam2.log" <<'LOG'
box:11:11 [0] NCCL INFO Bootstrap : Using ens7:10.128.0.30<0>
ncclSocketInit: connecting to address with family 0 is neither AF_INET(2) nor AF_INET6(10)
LOG
run_nd logs --json "$ND_TMP/fam2.log"
json_check 'd["causes"][0]["cause"] == "version_mismatch" and any(c["cause"] == "bootstrap_network" for c in d["causes"])' "bad address family, local interface fine: version mismatch first"
# case does not matter
echo "RuntimeError: CUDA ERROR: PEER ACCESS IS NOT SUPPORTED BETWEEN THESE TWO DEVICES" >"$ND_TMP/upper.log"
run_nd logs --json "$ND_TMP/upper.log"
json_check 'd["causes"][0]["cause"] == "custom_allreduce_or_cumem"' "literals match whatever the case"
# a transport size mismatch: inconsistent calls first, settings that differ between ranks next (nccl#626)
echo "node1:4242:4300 [0] transport/net_socket.cc:410 NCCL WARN NET/Socket : peer 10.0.0.2<41877> message truncated : receiving 1048576 bytes instead of 65536" >"$ND_TMP/trunc.log"
run_nd logs --json "$ND_TMP/trunc.log"
json_check '[c["cause"] for c in d["causes"]][:2] == ["collective_mismatch_app_bug", "nccl_config_error"]' "message truncated: mismatch, then settings"
json_check 'any(f["id"] == "LOG_TRANSPORT_SIZE_MISMATCH" for f in d["findings"])' "message truncated: the size finding"
# a bare watchdog timeout (SeqNum 7): PyTorch's own reading first (collectives
# used differently across ranks), unknown among the candidates, and the report
# says what to collect
echo "[rank1]:[E511 21:37:10.112405891 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=8, NumelOut=8, Timeout(ms)=600000) ran for 600074 milliseconds before timing out." >"$ND_TMP/bare.log"
run_nd logs --json "$ND_TMP/bare.log"
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug" and any(c["cause"] == "unknown" for c in d["causes"])' "bare watchdog timeout: the application first, unknown a candidate"
json_check 'any("flight recorder" in e["text"] for f in d["findings"] if f["id"] == "LOG_HANG_DATA_PATH" for e in f["evidence"])' "bare watchdog timeout: names what to collect"
# an unknown WARN that NCCL's own table classifies (its back-trace returned an error)
cat >"$ND_TMP/gen.log" <<'LOG'
node1:4242:4300 [0] dev_runtime.cc:88 NCCL WARN NCCL library is too old. This application was compiled with NCCL version 2.30.1, but is running with NCCL library version 2.28.3.
node1:4242:4300 [0] NCCL INFO dev_runtime.cc:90 -> 5
LOG
run_nd logs --json "$ND_TMP/gen.log"
json_check 'd["causes"][0]["cause"] == "version_mismatch"' "a WARN only NCCL's table knows: its class"
json_check 'any("NCCL\x27s own message (dev_runtime.cc" in e["text"] for f in d["findings"] if f["id"] == "LOG_NCCL_WARNING" for e in f["evidence"])' "the table's row is named (file, versions)"
finish
