#!/bin/bash
# NCCL communicators on the fake GPU stack, one worker process per rank
# (`__worker ranks`, run/ranks.c): real data through shared memory, a rank
# that never joins (hang at bootstrap within the deadline), P2P hangs routed
# the way NCCL routes (NCCL_P2P_DISABLE, NCCL_P2P_LEVEL), an SHM failure,
# cuInit failing; and the library loader on the fakes and the real libnccl.
. "$(dirname "$0")/lib.sh"
SC="$ND_FIXTURES/fakegpu"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="t210-$$"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-t210-$$-*' EXIT
scenario() { export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/$1.json"; }

scenario pcie4
run_nd __worker ranks --nranks 4 --deadline 20 --count 300000
expect_rc 0 "4 ranks: all-reduce done"
json_check 'all(r["status"] == "ok" and r["result"]["wrong"] == 0 and r["result"]["count"] == 300000 for r in d["ranks"])' "4 ranks: every rank checked 300000 values, none wrong"
json_check 'sorted(r["result"]["device"] for r in d["ranks"]) == [0, 1, 2, 3]' "one GPU per rank"
json_check 'all(r["result"]["nccl_version"] == "2.28.3" for r in d["ranks"])' "the fake reports NCCL 2.28.3"

# modelled time: 1.2 MB, ring 0-1 PIX, 1-2 PHB, 2-3 PIX, 3-0 PHB. At the default
# P2P level (PXB) the PHB links go through SHM (10 GB/s): 1.5 x 1.2 MB / 10 GB/s
# + 3 x 10 us + 5 us = 0.215 ms; with NCCL_P2P_LEVEL=PHB all is P2P and the
# bottleneck is PHB (18 GB/s): 0.135 ms; two ranks on the PIX pair: 0.065 ms
json_check 'all(abs(r["result"]["allreduce_event_ms"] - 0.215) < 1e-4 for r in d["ranks"])' "modelled time: SHM-bound ring, 0.215 ms"
NCCL_P2P_LEVEL=PHB run_nd __worker ranks --nranks 4 --deadline 20 --count 300000
json_check 'all(abs(r["result"]["allreduce_event_ms"] - 0.135) < 1e-4 for r in d["ranks"])' "modelled time: NCCL_P2P_LEVEL=PHB, PHB-bound ring, 0.135 ms"
run_nd __worker ranks --nranks 2 --devices 0,1 --deadline 20 --count 300000
json_check 'all(abs(r["result"]["allreduce_event_ms"] - 0.065) < 1e-4 for r in d["ranks"])' "modelled time: one PIX pair, 0.065 ms"

run_nd __worker ranks --nranks 3 --devices 3,1,2 --deadline 20 --count 5
expect_rc 0 "3 ranks on devices 3,1,2, tiny buffer"
json_check '[r["result"]["device"] for r in d["ranks"]] == [3, 1, 2]' "devices as asked"

# a rank that never joins: rank 0 hangs in ncclCommInitRank until the deadline
t0=$(date +%s%N)
run_nd __worker ranks --nranks 2 --start 1 --deadline 2
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_rc 2 "missing rank: problem"
json_check 'd["ranks"][0]["status"] == "hang" and d["ranks"][0]["stage"] == "ncclCommInitRank"' "rank 0: hang at ncclCommInitRank"
json_check 'd["ranks"][1]["status"] == "not_started"' "rank 1 never started"
within 5000 "$ms" "missing rank: over in time (deadline 2 s + grace 2 s) (ms)"

# a P2P path that hangs: only when NCCL would use P2P for it
scenario nccl-p2p-hang
run_nd __worker ranks --nranks 4 --deadline 3 --count 1000
expect_rc 2 "P2P hang: problem"
json_check 'all(r["status"] == "hang" and r["stage"] == "ncclAllReduce" for r in d["ranks"])' "P2P hang: every rank stuck in ncclAllReduce"
NCCL_P2P_DISABLE=1 run_nd __worker ranks --nranks 4 --deadline 20 --count 1000
expect_rc 0 "P2P hang avoided with NCCL_P2P_DISABLE=1"
NCCL_P2P_LEVEL=LOC run_nd __worker ranks --nranks 4 --deadline 20 --count 1000
expect_rc 0 "P2P hang avoided with NCCL_P2P_LEVEL=LOC"
NCCL_P2P_LEVEL=PHB run_nd __worker ranks --nranks 4 --deadline 3 --count 1000
expect_rc 2 "NCCL_P2P_LEVEL=PHB still uses the PIX pair: hang"
run_nd __worker ranks --nranks 2 --devices 2,3 --deadline 20 --count 1000
expect_rc 0 "GPUs 2 and 3 do not touch the bad pair"

# the bootstrap itself hangs
scenario nccl-init-hang
run_nd __worker ranks --nranks 2 --deadline 2
expect_rc 2 "init hang: problem"
json_check 'all(r["status"] == "hang" and r["stage"] == "ncclCommInitRank" for r in d["ranks"])' "init hang at ncclCommInitRank"

# SHM needed (P2P unsupported between 0 and 1) and /dev/shm too small
scenario shm-small
run_nd __worker ranks --nranks 2 --deadline 20
expect_rc 2 "small /dev/shm: problem"
json_check 'all(r["status"] == "error" and "/dev/shm" in r["why"] and "NCCL WARN Error: failed to extend /dev/shm" in r["tail"] and r["errors"][0]["name"] == "ncclSystemError" for r in d["ranks"])' "ncclSystemError naming /dev/shm, NCCL WARN in the output tail"
NCCL_SHM_DISABLE=1 run_nd __worker ranks --nranks 2 --deadline 20
expect_rc 0 "NCCL_SHM_DISABLE=1 avoids it"

# cuInit fails in every rank
scenario cuinit-error
run_nd __worker ranks --nranks 2 --deadline 20
expect_rc 2 "cuInit error: problem"
json_check 'd["ranks"][0]["status"] == "error" and d["ranks"][0]["errors"][0]["name"] == "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH" and d["ranks"][0]["errors"][0]["code"] == 803' "cuInit error with its code"

# the loader: the fakes, a missing --nccl, and the real libnccl where one exists
scenario pcie4
run_nd __worker libs
expect_rc 0 "libs task"
tail -1 "$OUT" >"$ND_TMP/libs.json"; cp "$ND_TMP/libs.json" "$OUT"
json_check 'd["data"]["nccl"]["version"] == "2.28.3" and d["data"]["cuda"]["version"] == "12.8" and d["data"]["nvml"]["driver_version"] == "570.86.15"' "fake versions reported"
json_check 'd["data"]["nvml"]["symbols"]["nvmlInit"] == "nvmlInit_v2" and d["data"]["cuda"]["symbols"]["cuMemAlloc"] == "cuMemAlloc_v2"' "newest symbols resolved first"
run_nd --nccl /nonexistent/libnccl.so.2 __worker libs
tail -1 "$OUT" >"$ND_TMP/libs.json"; cp "$ND_TMP/libs.json" "$OUT"
json_check 'd["data"]["nccl"]["reason"] == "not_installed" and "/nonexistent/libnccl.so.2" in d["data"]["nccl"]["error"]' "--nccl to a missing file: not installed, path named"
# the same path reaches nccl-init through the rank launcher (main.c takes
# --nccl, the worker hands it to the task)
run_nd --nccl /nonexistent/libnccl.so.2 __worker ranks --nranks 1 --deadline 20
json_check 'd["ranks"][0]["status"] == "error" and d["ranks"][0]["errors"][0]["name"] == "not_installed" and "/nonexistent/libnccl.so.2" in d["ranks"][0]["errors"][0]["message"]' "--nccl reaches nccl-init: not installed, path named"
run_nd --nccl "$NCCL_DOCTOR_LIBRARY_PATH/libnccl.so.2" __worker ranks --nranks 1 --deadline 20
json_check 'd["ranks"][0]["status"] == "ok"' "--nccl to the fake libnccl: the rank runs"
for real in /usr/local/cuda/lib/libnccl.so.2 /usr/local/cuda-13.0/lib/libnccl.so.2 /usr/lib/x86_64-linux-gnu/libnccl.so.2; do
  [ -e "$real" ] || continue
  run_nd --nccl "$real" __worker libs
  tail -1 "$OUT" >"$ND_TMP/libs.json"; cp "$ND_TMP/libs.json" "$OUT"
  json_check 'd["data"]["nccl"]["loaded"] and d["data"]["nccl"]["version"].startswith("2.") and d["data"]["nccl"]["version"] != "2.28.3"' "real libnccl at $real loads with its own version"
  break
done

finish
