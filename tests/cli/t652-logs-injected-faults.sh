#!/bin/bash
# logs and check --log on real failures with injected faults (H100 captures,
# tests/fixtures/logs/real-h100-faults/README.md): two ranks on one GPU,
# a NCCL_SOCKET_IFNAME naming no interface, DDP with an unused parameter,
# a collective on a CPU tensor, the VM host's own nvidia-smi -q and
# dmesg lines, rank 0 asleep past the group's timeout, a rank SIGKILLed
# under torchrun and bash's notice of a SIGKILLed command; the capture
# batches R1-R6 of docs/logs.md.
. "$(dirname "$0")/lib.sh"
F="$ND_FIXTURES/logs/real-h100-faults"
run_nd --json logs "$F/duplicate-gpu-2ranks-1gpu.log"
expect_rc 2 "duplicate GPU: a problem"
json_check "d['causes'][0]['cause'] == 'duplicate_gpu_or_device_mapping' and d['causes'][0]['confidence'] >= 0.9" "duplicate GPU: the GPU mapping, certain"
run_nd --json logs "$F/socket-ifname-nosuch0.log"
expect_rc 2 "bad NCCL_SOCKET_IFNAME: a problem"
json_check "d['causes'][0]['cause'] == 'bootstrap_network' and d['causes'][0]['confidence'] >= 0.9" "bad NCCL_SOCKET_IFNAME: the bootstrap network, certain"
run_nd logs "$F/socket-ifname-nosuch0.log"
expect_out "NCCL_SOCKET_IFNAME" "bad NCCL_SOCKET_IFNAME: the action names the variable"
run_nd --json logs "$F/ddp-unused-parameter-1rank.log"
json_check "d['causes'][0]['cause'] == 'collective_mismatch_app_bug' and d['causes'][0]['confidence'] >= 0.8" "DDP's unused parameter: an application bug (the reducer's own error, fwcat5)"
run_nd --json logs "$F/nccl-collective-cpu-tensor-1rank.log"
json_check "d['causes'][0]['cause'] == 'collective_mismatch_app_bug' and 'LOG_FRAMEWORK_APP_ARGUMENT' in d['causes'][0]['finding_ids']" "a CPU tensor in an NCCL collective: an application bug (PT14)"
run_nd --json logs "$F/host-facts-kvm-passthrough.txt"
json_check "{'LOG_VM_HINT', 'LOG_IOMMU_TRANSLATED_SEEN'} <= {f['id'] for f in d['findings']}" "the VM's own lines: VM and translating IOMMU found"
json_check "not [c for c in d['causes'] if c['cause'] in ('p2p_virtualization', 'p2p_pcie_acs_iommu') and c['confidence'] > 0]" "facts alone, no failure: no cause named"
run_nd --json logs "$F/rank0-late-store-wait-timeout-2rank.log"
json_check "d['causes'][0]['cause'] == 'collective_mismatch_app_bug' and 'LOG_RANK0_LATE' in d['causes'][0]['finding_ids']" "rank 0 late past the store's timeout: rank 0 late, not the network (PT07w)"
run_nd --json logs "$F/bash-sigkill-notice.log"
json_check "d['causes'][0]['cause'] == 'peer_died_or_oom' and 'LOG_OOM_KILLED' in d['causes'][0]['finding_ids']" "bash's notice of a SIGKILLed command: the OOM killer first"
run_nd --json logs "$F/torchrun-rank-sigkill.log"
json_check "d['causes'][0]['cause'] == 'peer_died_or_oom'" "torchrun's exit code -9: a dead rank"
run_nd --json logs "$F/store-barrier-rank-late-2rank.log"
json_check "d['causes'][0]['cause'] == 'collective_mismatch_app_bug' and 'LOG_STORE_WAIT_NO_ANSWER' in d['causes'][0]['finding_ids']" "a rank late to init_process_group's barrier (the store's waitForInput time-outs): a rank late, not the network (PT05s)"
run_nd --json logs "$F/store-barrier-rank-late-debug-2rank.log"
json_check "d['causes'][0]['cause'] == 'collective_mismatch_app_bug' and 'LOG_STORE_BARRIER_MISSING_RANKS' in d['causes'][0]['finding_ids']" "the barrier's own DEBUG line (1 of 2 joined, one node): ranks missing before init (store-barrier-count)"

# a user's launch mistakes (tests/device/record-user-faults.sh, H100, 6 December 2026)
run_nd --json logs "$F/user-cvd-missing.log"
json_check "d['causes'][0]['cause'] == 'duplicate_gpu_or_device_mapping' and 'LOG_CUDA_INVALID_DEVICE' in d['causes'][0]['finding_ids']" "CUDA_VISIBLE_DEVICES naming absent GPUs: 'No CUDA GPUs are available' is the GPU mapping, not a dead rank (PT10)"
run_nd --json logs "$F/user-device-ordinal.log"
json_check "d['causes'][0]['cause'] == 'duplicate_gpu_or_device_mapping'" "set_device(LOCAL_RANK) past the GPUs: the GPU mapping"
run_nd --json logs "$F/user-rank-oom.log"
json_check "d['causes'][0]['cause'] == 'peer_died_or_oom'" "a rank out of GPU memory under torchrun: a dead rank"
for n in master-unreach master-unknown port-in-use; do
  run_nd --json logs "$F/user-$n.log"
  json_check "d['causes'][0]['cause'] == 'bootstrap_network' and d['causes'][0]['confidence'] >= 0.8" "$n: the rendezvous network, first and strong"
done
run_nd --json logs "$F/user-world-too-big.log"
json_check "d['causes'][0]['cause'] == 'collective_mismatch_app_bug' and 'LOG_STORE_BARRIER_MISSING_RANKS' in {f['id'] for f in d['findings']} and [c for c in d['causes'] if c['cause'] == 'bootstrap_network' and c['confidence'] <= 0.4]" "WORLD_SIZE=3 with two ranks on one node: 2/3 clients joined is a rank never started, the network second"

# NCCL settings carried into a job (tests/device/record-config-faults.sh, H100, 7 December 2026)
C="$F/config"
for n in net-typo ib-conflict; do
  run_nd --json logs "$C-$n.log"
  json_check "d['causes'][0]['cause'] == 'nccl_config_error' and 'LOG_NET_NOT_FOUND' in d['causes'][0]['finding_ids']" "$n: no NET plugin initialized, a configuration error"
done
run_nd logs "$C-ib-conflict.log"
expect_out 'NCCL_IB_DISABLE=1 turns the IB network off' "ib-conflict: the first screen names the contradicting setting"
for n in algo-typo proto-typo; do
  run_nd --json logs "$C-$n.log"
  json_check "d['causes'][0]['cause'] == 'nccl_config_error' and 'LOG_ENV_ALGO_PROTO_TOKEN' in d['causes'][0]['finding_ids']" "$n: a token NCCL_ALGO/NCCL_PROTO does not know (S66t)"
done
run_nd logs "$C-proto-typo.log"
expect_out 'NCCL_PROTO set by environment to LL1024' "proto-typo: the first screen names the variable and its value"
expect_out 'NCCL_PROTO takes LL, LL128, Simple' "proto-typo: Next lists the names NCCL takes"
for fmt in text markdown; do # the first screen's evidence: each text once, in every rendering
  run_nd logs --format "$fmt" "$C-proto-typo.log"
  n=$(sed -n '1,/details/p' "$OUT" | grep -c 'Unrecognized element token')
  [ "$n" = 1 ] && ok "proto-typo, $fmt: the warning both ranks print shows once on the first screen" ||
    not_ok "proto-typo, $fmt: the warning shows $n times before the details"
done
run_nd --json logs "$C-conf-file-ifname.log"
json_check "d['causes'][0]['cause'] == 'bootstrap_network' and all(c['confidence'] < 0.2 and c['cause'] == 'peer_died_or_oom' for c in d['causes'][1:])" \
  "an nccl.conf's NCCL_SOCKET_IFNAME=ib0: the bootstrap interface, no hang prior beside it (only the other rank's store connection lost, a consequence: PT23)"
run_nd logs "$C-conf-file-ifname.log"
expect_out 'NCCL_SOCKET_IFNAME=ib0 \(set by the environment, or by /etc/nccl.conf' "conf-file-ifname: the value and where else it comes from"
run_nd --json logs "$C-comm-id-stale.log"
json_check "d['causes'][0]['cause'] == 'bootstrap_network' and 'LOG_BOOTSTRAP_COMM_ID_SUBNET' in d['causes'][0]['finding_ids']" "a stale NCCL_COMM_ID: 'No usable listening interface found' is NCCL_COMM_ID's subnet (S05c)"
run_nd logs "$C-comm-id-stale.log"
expect_out 'Unset NCCL_COMM_ID' "comm-id-stale: Next unsets NCCL_COMM_ID, not NCCL_SOCKET_IFNAME"
run_nd --json logs "$C-topo-file-missing.log"
expect_rc 1 "a topology file NCCL could not open, job passed: a warning, not a failure"
json_check "d['verdict'] != 'BROKEN' and not [c for c in d['causes'] if c['confidence'] > 0.3] and 'LOG_TOPO_FILE_SKIPPED' in {f['id'] for f in d['findings'] if f['severity'] == 'warning'}" "topo-file-missing: NCCL went on without the file (S23b is context)"
run_nd --json logs "$C-plugin-missing.log"
expect_rc 0 "a NET plugin path that does not exist, job passed: healthy"

# failures at run time (tests/device/record-runtime-faults.sh, H100, 7 December 2026)
R="$F/runtime"
run_nd --json logs "$R-gpu-mem-full.log"
json_check "d['causes'][0]['cause'] == 'peer_died_or_oom' and 'LOG_CUDA_OOM' in d['causes'][0]['finding_ids']" "GPU memory full before NCCL's buffers: out of memory"
for fmt in text markdown; do # bare and behind PyTorch's "[rankN]: " prefix: one line of evidence
  run_nd logs --format "$fmt" "$R-gpu-mem-full.log"
  n=$(sed -n '1,/details/p' "$OUT" | grep -c "Cuda failure 'out of memory'")
  [ "$n" = 1 ] && ok "gpu-mem-full, $fmt: the warning printed bare and as [rank0]:/[rank1]: shows once" ||
    not_ok "gpu-mem-full, $fmt: the warning shows $n times before the details"
done
run_nd --json logs "$R-libnccl-mixed.log"
json_check "d['causes'][0]['cause'] == 'version_mismatch' and d['causes'][0]['confidence'] >= 0.9" "a second libnccl preloaded on one rank: version mismatch, certain"
run_nd --json logs "$R-size-mismatch.log"
json_check "d['causes'][0]['cause'] == 'collective_mismatch_app_bug' and d['causes'][0]['confidence'] >= 0.9" "collectives of different sizes (DETAIL's fingerprints): the application"
run_nd --json logs "$R-skipped-collective.log"
json_check "d['causes'][0]['cause'] == 'collective_mismatch_app_bug' and 'LOG_PEER_EXITED_CLEANLY' in d['causes'][0]['finding_ids']" "a collective one rank skips: the application (the other rank ended normally)"
run_nd logs "$R-skipped-collective.log"
expect_out '^Next \(for LOG_PEER_EXITED_CLEANLY\):' "skipped collective: the first screen's next step is the peer's clean end"
expect_out 'rank 1 ended normally \(its communicator destroyed, no abort\) while rank 0 still waited on it' "skipped collective: the reading comes first among the evidence"

# capture batches R1 and R2 (tests/device/record-more-faults.sh, H100, 7 December
# 2026): the class each capture is read as now, the expected class of the
# script's header or its alternative (dtype-mismatch and root-differs stay
# misses: only the job's own check says the data was wrong)
# read_as PREFIX: each "NAME CLASS[|CLASS]" line of stdin, the capture
# PREFIX-NAME.log read with one of those classes first
read_as() {
  local n want
  while read -r n want; do
    run_nd --json logs "$1-$n.log"
    json_check "d['causes'] and d['causes'][0]['cause'] in '$want'.split('|')" "capture $n: $want first"
  done
}
M="$F/more"
read_as "$M" <<'EOF2'
buffsize-huge nccl_config_error
proto-differs nccl_config_error
gloo-ifname bootstrap_network|nccl_config_error
port-differs bootstrap_network
rank-exception peer_died_or_oom
device-assert peer_died_or_oom|collective_mismatch_app_bug
send-unmatched collective_mismatch_app_bug
straggler collective_mismatch_app_bug
allgather-size collective_mismatch_app_bug|peer_died_or_oom
shm-tiny shm_too_small
cvd-uuid-wrong duplicate_gpu_or_device_mapping
nofile-low bootstrap_network
rank-duplicate collective_mismatch_app_bug|bootstrap_network
held-memory peer_died_or_oom
EOF2
# capture batches R3 and R4 (tests/device/record-training-faults.sh, H100, 7
# December 2026): the class each is read as, the script's expected class or
# its alternative (group-order and subgroup-skip, silent hangs in the first
# collective's connection set-up, stay misses; socket-family-v6 and
# alltoall-splits did not fail and are not cases)
read_as "$F/training" <<'EOF3'
cvd-empty duplicate_gpu_or_device_mapping
rank-segv peer_died_or_oom
ddp-unused-param collective_mismatch_app_bug
net-ib-no-hca ib_rdma_config|nccl_config_error
init-twice collective_mismatch_app_bug
uneven-steps collective_mismatch_app_bug
cpu-tensor collective_mismatch_app_bug
netns-localhost bootstrap_network
rank-sigkill peer_died_or_oom
ddp-model-differs collective_mismatch_app_bug
fork-after-cuda collective_mismatch_app_bug|peer_died_or_oom
master-addr-port bootstrap_network
EOF3
# capture batches R5 and R6 (tests/device/record-field-faults.sh, H200, 7
# December 2026; tests/fixtures/logs/real-h200-faults): the class each is
# read as now. send-to-self, reduce-scatter-size and device-mesh-too-big
# were misses at first sight, read since by the rank that stopped on its
# own error and device_mesh.py's rows; rank0-dies-before-init stays a miss
# (bootstrap_network: rank 0's traceback carries no rank); init-file-stale
# is the second run's (the first passed)
read_as "$ND_FIXTURES/logs/real-h200-faults/field" <<'EOF4'
stub-libcuda version_mismatch
network-none bootstrap_network
rank-exit-early peer_died_or_oom|collective_mismatch_app_bug
send-to-self collective_mismatch_app_bug
algo-tree-allgather nccl_config_error
host-memerror peer_died_or_oom
destroy-then-use collective_mismatch_app_bug
cvd-nodevfiles duplicate_gpu_or_device_mapping
init-file-stale bootstrap_network|nccl_config_error
device-mesh-too-big collective_mismatch_app_bug
master-addr-url bootstrap_network
pickle-object collective_mismatch_app_bug|peer_died_or_oom
graph-capture-sync collective_mismatch_app_bug|custom_allreduce_or_cumem
reduce-scatter-size collective_mismatch_app_bug
rank-sigterm peer_died_or_oom
timeout-short-big-op collective_mismatch_app_bug|nccl_config_error
EOF4
H="$ND_FIXTURES/logs/real-h200-faults/field"
run_nd --json logs "$H-reduce-scatter-size.log"
json_check "d['causes'][0]['confidence'] >= 0.8 and [c for c in d['causes'] if c['cause'] == 'peer_died_or_oom' and c['confidence'] <= 0.4]" \
  "reduce-scatter-size: rank 1's own argument error decides, the lost peer capped at 0.4"
run_nd logs "$H-send-to-self.log"
expect_out 'rank 1 stopped on its own error, the others only lost their connection to it' "send-to-self: the first screen says which rank stopped and why the others failed"
# the same lines with the error on the rank that also lost its peer: no
# rank stopped alone on its error, the lost connection keeps its weight
sed 's/^\[rank1\]: ValueError/[rank0]: ValueError/' "$ND_SRC/fuzz/corpus/logs/rank-own-error-peer-lost" >"$ND_TMP/own-rank.log"
run_nd --json logs "$ND_TMP/own-rank.log"
json_check "d['causes'][0]['cause'] == 'peer_died_or_oom' and [c for c in d['causes'] if c['cause'] == 'collective_mismatch_app_bug' and c['confidence'] <= 0.3]" \
  "the error on the rank that itself lost the peer: supports, does not decide"
run_nd --json logs "$ND_SRC/fuzz/corpus/logs/rank-own-error-peer-lost"
json_check "d['causes'][0]['cause'] == 'collective_mismatch_app_bug'" "the fuzz seed: rank 1's error, rank 0's lost peer: the application"
run_nd --json logs "$H-rank-sigterm.log"
json_check "d['causes'][0]['cause'] == 'peer_died_or_oom' and d['causes'][0]['confidence'] > 0.6" "rank-sigterm: a rank that died with no error of its own stays a dead peer"
run_nd --json logs "$M-straggler.log"
json_check "any('SeqNum=2: earlier collectives' in e for f in d['findings'] for e in [x['text'] for x in f.get('evidence', [])])" "straggler: the hang finding says SeqNum=2 means the paths had worked"
run_nd logs "$M-send-unmatched.log"
expect_out '^Next \(for LOG_HANG_AFTER_COLLECTIVES\):' "send-unmatched: the next step is finding what each rank did at that SeqNum"
expect_out 'TORCH_DISTRIBUTED_DEBUG=DETAIL' "send-unmatched: Next names DETAIL and the flight recorder"

finish
