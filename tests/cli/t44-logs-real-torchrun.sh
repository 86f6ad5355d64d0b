#!/usr/bin/env bash
# `logs` on the second set of real H200 captures (torchrun, PyTorch 2.11, NCCL 2.28.9).
. "$(dirname "$0")/lib.sh"
d="$ND_FIXTURES/logs/real-h200-torchrun"
run_nd logs --json "$d/torchrun-1rank-subsys.log"
expect_rc 0 "healthy torchrun run: exit 0"
json_check 'd["causes"] == [] and d["ranks"][0]["stage"] == "T9" and d["ranks"][0]["nccl_version"] == "2.28.9+cuda13.0"' "healthy: T9, NCCL 2.28.9, no cause"
run_nd logs --json "$d/torchrun-1rank-oom.log"
expect_rc 2 "OOM after init: exit 2"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom" and d["causes"][0]["confidence"] >= 0.8' "OOM: peer_died_or_oom first"
json_check 'd["causes"][0]["evidence"][0]["line"] == 314 and "OutOfMemoryError" in d["causes"][0]["evidence"][0]["text"]' "OOM: evidence is the OutOfMemoryError line"
run_nd logs --json "$d/world2-rank0-only.log"
expect_rc 2 "silent rendezvous wait killed by SIGKILL: exit 2"
json_check 'any(f["id"] == "LOG_HANG_BEFORE_NCCL" for f in d["findings"])' "SIGKILL (137) after a silent wait: hang before any NCCL line"
json_check 'd["causes"][0]["cause"] == "bootstrap_network"' "silent wait: the rendezvous / bootstrap first"
run_nd logs "$d/torchrun-p2p-level-bad.log"
expect_rc 0 "one rank with NCCL_P2P_LEVEL=pxb: NCCL says nothing, healthy"
finish
