#!/bin/bash
# nccl-doctor logs on REAL two-rank logs from the H200 machine (a killed
# peer, NCCL out of GPU memory, NCCL_NET=IB without IB, NCCL variables that
# differ between ranks, a device-side assert, a duplicate GPU, two NCCL
# versions in one communicator, a rank without a usable interface, a healthy
# run whose ranks share the one GPU as two NCCL "hosts"):
# tests/fixtures/logs/real-h200-2rank/README.md.
. "$(dirname "$0")/lib.sh"
F="$ND_FIXTURES/logs/real-h200-2rank"

run_nd --json logs "$F"/healthy/*
expect_rc 0 "real healthy two-rank run"
json_check 'not d["causes"] and not any(f["id"] == "LOG_DUPLICATE_GPU" for f in d["findings"])' "healthy: no cause, the shared GPU is not a duplicate (NCCL_HOSTID differs)"
json_check 'not any(f["id"] == "LOG_ENV_DIFFERS" for f in d["findings"])' "healthy: NCCL_HOSTID differing per host is not a configuration difference"
json_check 'len(d["ranks"]) == 2' "healthy: two ranks from four files (NCCL_DEBUG_FILE)"

run_nd --json logs "$F"/version/*
expect_rc 2 "real version mismatch"
json_check 'd["causes"][0]["cause"] == "version_mismatch" and d["causes"][0]["confidence"] >= 0.9' "version: version_mismatch first"
json_check 'any(f["id"] == "LOG_NCCL_VERSION_MISMATCH" and any("22803" in e["text"] for e in f["evidence"]) for f in d["findings"])' "version: both versions named"
json_check 'len(d["causes"]) == 1' "version: nothing else claimed"

run_nd --json logs "$F"/badif/*
expect_rc 2 "real missing interface on one rank"
json_check 'd["causes"][0]["cause"] == "bootstrap_network" and d["causes"][0]["confidence"] >= 0.9' "badif: bootstrap_network first"
json_check 'any(f["id"] == "LOG_BOOTSTRAP_NO_INTERFACE" for f in d["findings"])' "badif: no socket interface named"

run_nd --json logs "$F"/collsize/*
expect_rc 2 "real size mismatch: rank 0 finished, rank 1 lost its peer"
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug"' "collsize: collective_mismatch_app_bug first, not a dead peer"
json_check 'any(f["id"] == "LOG_PEER_EXITED_CLEANLY" and "rank 0 ended normally" in f["title"] for f in d["findings"])' "collsize: rank 0's clean exit named"
json_check 'not any(c["cause"] == "peer_died_or_oom" and c["confidence"] > 0.4 for c in d["causes"])' "collsize: peer_died_or_oom at most 0.4"
# rank 1's log alone: nothing shows rank 0 ended cleanly, so a dead peer it is
run_nd --json logs "$F"/collsize/rank1.log
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom" and not any(f["id"] == "LOG_PEER_EXITED_CLEANLY" for f in d["findings"])' "collsize, rank 1 alone: peer_died_or_oom first"

# a peer killed (SIGKILL, what the OOM killer does) after two all_reduce: rank 0 loses it
run_nd --json logs "$F"/killed/*
expect_rc 2 "real killed peer"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom" and d["causes"][0]["confidence"] >= 0.6' "killed: peer_died_or_oom first"
# PyTorch's "Some NCCL operations have failed or timed out" comes after the remote error: its echo, no timeout
json_check 'any(f["id"] == "LOG_WATCHDOG_TIMEOUT" and f["severity"] == "warning" for f in d["findings"]) and not any(f["id"].startswith("LOG_HANG_") for f in d["findings"])' "killed: the failed-or-timed-out line after the error is no hang"
json_check 'not any(f["id"] == "LOG_PEER_EXITED_CLEANLY" for f in d["findings"])' "killed: rank 1's log ends without a Destroy: not a clean exit"
json_check 'not any(c["cause"] in ("p2p_pcie_acs_iommu", "p2p_virtualization") for c in d["causes"])' "killed: every connection is NET/Socket: no P2P-path candidate for the hang"
run_nd --json logs "$F"/killed/rank0.log
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom"' "killed, rank 0 alone: peer_died_or_oom first"

# the GPU full (rank 1 took all free memory): NCCL's own allocation fails in a new communicator
run_nd --json logs "$F"/oom/*
expect_rc 2 "real out of memory in NCCL init"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom" and d["causes"][0]["confidence"] >= 0.9 and len(d["causes"]) == 1' "oom: peer_died_or_oom alone"
json_check 'sum(1 for f in d["findings"] if f["id"] == "LOG_CUDA_OOM" for e in f["evidence"] if "out of memory" in e["text"]) == 2' "oom: both ranks' Cuda failure 2 named"

# NCCL_NET=IB on a machine without InfiniBand
run_nd --json logs "$F"/netib/*
expect_rc 2 "real NCCL_NET=IB without IB"
json_check 'd["causes"][0]["cause"] == "nccl_config_error" and any(f["id"] == "LOG_NET_NOT_FOUND" for f in d["findings"])' "netib: nccl_config_error, the missing network named"

# NCCL_PROTO=LL on rank 0, Simple on rank 1: "message truncated" on the socket transport
run_nd --json logs "$F"/protodiff/*
expect_rc 2 "real NCCL_PROTO differing between ranks"
json_check 'd["causes"][0]["cause"] == "nccl_config_error" and d["causes"][0]["confidence"] >= 0.85' "protodiff: nccl_config_error first, above the size mismatch's collective_mismatch_app_bug"
json_check 'any(f["id"] == "LOG_TRANSPORT_SIZE_MISMATCH" and any("NCCL_PROTO=LL, but rank 1" in e["text"] for e in f["evidence"]) for f in d["findings"])' "protodiff: the differing variable is the size mismatch's evidence"
# rank 0's log alone cannot show the other rank's setting: the size mismatch stays an application suspect
run_nd --json logs "$F"/protodiff/rank0.log
json_check 'd["causes"][0]["cause"] == "collective_mismatch_app_bug" and any(c["cause"] == "nccl_config_error" for c in d["causes"][:3])' "protodiff, rank 0 alone: mismatch first, configuration in the top 3"

# both ranks with the same NCCL_HOSTID: one host, one GPU, two ranks
run_nd --json logs "$F"/hostidsame/*
expect_rc 2 "real duplicate GPU"
json_check 'd["causes"][0]["cause"] == "duplicate_gpu_or_device_mapping" and any(f["id"] == "LOG_DUPLICATE_GPU" for f in d["findings"])' "hostidsame: duplicate GPU first"

# a device-side assert on rank 1 (index out of bounds); rank 0 then loses its peer
run_nd --json logs "$F"/devassert/*
expect_rc 2 "real device-side assert"
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom" and any(f["id"] == "LOG_RANK_ASSERT_FAILED" and any("rank1.log" in e["file"] for e in f["evidence"]) for f in d["findings"])' "devassert: the rank that died of its assert named (DA01), not only a lost connection"
run_nd --json logs "$F"/devassert/rank0.log
json_check 'd["causes"][0]["cause"] == "peer_died_or_oom"' "devassert, rank 0 alone: its peer died"

# NCCL variables that cut the data, different per rank
run_nd --json logs "$F"/buffsize/*
json_check 'd["causes"][0]["cause"] == "nccl_config_error" and any("NCCL_BUFFSIZE=1048576, but rank 1" in e["text"] for f in d["findings"] if f["id"] == "LOG_TRANSPORT_SIZE_MISMATCH" for e in f["evidence"])' "buffsize: NCCL_BUFFSIZE on one rank only, message truncated: nccl_config_error first"
run_nd --json logs "$F"/nchan/*
json_check 'd["causes"][0]["cause"] == "nccl_config_error" and all(c["confidence"] <= 0.5 for c in d["causes"] if c["cause"] == "version_mismatch")' "nchan: channel counts differ, bootstrap truncated, one NCCL version on both: configuration first, versions at most 0.5"
run_nd --json logs "$F"/algodiff/*
expect_rc 1 "real NCCL_ALGO differing, logs that stop (killed, no marker in them): a warning"
json_check 'd["causes"][0]["cause"] == "nccl_config_error" and any("NCCL_ALGO=Ring, but rank 1" in e["text"] for f in d["findings"] if f["id"] == "LOG_ENV_DIFFERS" for e in f["evidence"])' "algodiff: the differing NCCL_ALGO first"

# PyTorch's rendezvous fails before NCCL starts: rank 1 starts 40 s late, or is given another port
for s in late wrongport; do
  run_nd --json logs "$F"/$s/*
  expect_rc 2 "real $s: rendezvous failed"
  json_check 'd["causes"][0]["cause"] == "bootstrap_network" and any(f["id"] == "LOG_RENDEZVOUS_FAILED" for f in d["findings"])' "$s: bootstrap_network first, the store's timeout named"
done
# NCCL_SOCKET_FAMILY=AF_INET6 on one rank: the run completes; the variable differs: a warning only
run_nd --json logs "$F"/ipv6/*
expect_rc 1 "real ipv6 on one rank: healthy run, differing variable"
json_check '[c["cause"] for c in d["causes"]] == ["nccl_config_error"] and d["causes"][0]["confidence"] < 0.5' "ipv6: only the differing variable, weakly"

# the same logs without NCCL_HOSTID's lines: two ranks on one host and one GPU
# are the duplicate GPU NCCL refuses (the check still fires)
mkdir -p "$ND_TMP/dup"
for f in "$F"/healthy/nccl.?.log; do grep -v NCCL_HOSTID "$f" >"$ND_TMP/dup/$(basename "$f")"; done
run_nd --json logs "$ND_TMP"/dup/*
json_check 'any(f["id"] == "LOG_DUPLICATE_GPU" for f in d["findings"])' "without NCCL_HOSTID: the shared GPU is a duplicate"
finish
