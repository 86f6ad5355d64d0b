#!/bin/bash
# nccl-doctor logs on REAL two-rank logs from the H200 machine (two NCCL
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

# the same logs without NCCL_HOSTID's lines: two ranks on one host and one GPU
# are the duplicate GPU NCCL refuses (the check still fires)
mkdir -p "$ND_TMP/dup"
for f in "$F"/healthy/nccl.?.log; do grep -v NCCL_HOSTID "$f" >"$ND_TMP/dup/$(basename "$f")"; done
run_nd --json logs "$ND_TMP"/dup/*
json_check 'any(f["id"] == "LOG_DUPLICATE_GPU" for f in d["findings"])' "without NCCL_HOSTID: the shared GPU is a duplicate"
finish
