#!/usr/bin/env bash
# When libnvidia-ml.so.1 is missing, every command says plainly what is
# missing (the library, NVML, part of the NVIDIA driver) and what still
# works: topo's source note and its finding, check's p2p stage, p2p's error,
# watch's GPU sample of the job. (Before: "NVML
# unavailable", "NVML cannot be loaded: no usable NVIDIA driver here", "the
# driver did not answer topo's NVML query", "cannot list the GPUs: NVML
# error", "NVML failed".)
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the whole report (evidence, fixes, notes)
SR="$ND_FIXTURES/sysroot"
LIB='libnvidia-ml\.so\.1 \(NVML, part of the NVIDIA driver\)'
mkdir -p "$ND_TMP/empty" "$ND_TMP/onlynccl"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/empty" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1

run_nd topo --driver --sysroot "$SR/no-driver"
expect_rc 2 "topo without the library"
expect_out "^   $LIB is not installed \\('libnvidia-ml\\.so\\.1' is not installed: .*\\): the GPUs and the matrix below come from the PCI tree in sysfs; GPU names, memory, NVLink and P2P status need NVML\$" "topo: the source note says what is missing, what is shown and what needs it"
expect_out "ERROR NVML_NOT_AVAILABLE  $LIB is not installed: no GPU can be queried or tested here\$" "topo: the finding says it plainly"
expect_no_out 'NVML unavailable|no usable NVIDIA driver' "topo: not the old words"
run_nd explain NVML_NOT_AVAILABLE
expect_out 'What still works: the PCI tree' "explain: what still works"

run_nd check --driver --sysroot "$SR/h200-vm"
expect_out "p2p +- +skipped: $LIB is missing: GPU pairs cannot be tested" "check: the p2p stage says what is missing"
expect_no_out "did not answer topo's NVML query" "check: not 'did not answer'"

run_nd p2p
expect_rc 3 "p2p without the library"
expect_err "^nccl-doctor p2p: cannot test GPU pairs: $LIB is not installed \\(.*\\); 'nccl-doctor sys', 'topo' and 'kernel' still work without it\$" "p2p: what is missing and what still works"

# watch: a job that mapped libnccl (the fake one, preloaded: in a sanitizer
# build it needs its runtime, hence ASAN_OPTIONS), NVML missing for the sample
if [ -f "$ND_BUILD/tests/fakegpu/lib/libnccl.so.2" ]; then
  cp "$ND_BUILD/tests/fakegpu/lib/libnccl.so.2" "$ND_TMP/onlynccl/"
  OUT="$ND_TMP/out"; ERR="$ND_TMP/err"
  NCCL_DOCTOR_LIBRARY_PATH="$ND_TMP/onlynccl" timeout 60 "$ND_BIN" watch --stall 3 --on-stall kill -- \
    env ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 LD_PRELOAD="$ND_TMP/onlynccl/libnccl.so.2" sh -c 'sleep 20' >"$OUT" 2>"$ERR"
  expect_err "NVML +unknown \\($LIB is not installed \\(.*\\): the job's GPU memory and utilisation are not shown; the rest of the diagnosis does not need it\\)" "watch: the GPU sample says what is missing and what still works"
else
  skip "no fake libnccl built"
fi

finish
