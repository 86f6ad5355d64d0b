#!/usr/bin/env bash
# bench says truthfully what was checked: a run that hangs at its first
# size checked nothing ("no result was checked", not "results checked on
# the GPU"); one that hangs later says how many sizes were checked before
# it stopped; a complete run keeps nccl-tests' table and its one line.
. "$(dirname "$0")/lib.sh"
SC="$ND_FIXTURES/fakegpu"
TAG="t146-$$"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-$TAG-*' EXIT
derive() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("faults",{}).update(eval(sys.argv[2])); json.dump(d,open(sys.argv[3],"w"))' \
    "$SC/$1.json" "$2" "$ND_TMP/$3.json"
  export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/$3.json"
}

# a hang at the first size: nothing was checked
derive nccl-p2p-hang '{"nccl_p2p_hang_min_bytes": 0}' hang-first
run_nd bench all_reduce -g 2 -b 1K -e 4K -T 2
expect_rc 2 "hang at the first size: problem"
expect_out '^# nccl-doctor: HANG\(size 1024 of op all_reduce warm-up\)' "the hang is at the first size"
expect_out '^# nccl-doctor: no result was checked: no size finished; the checks were set up on the GPU \(check kernels\)$' "it says no result was checked"
expect_no_out 'results checked' "it does not say results were checked"

# a hang at the third size: two were checked
derive nccl-p2p-hang '{"nccl_p2p_hang_min_bytes": 4096}' hang-third
run_nd bench all_reduce -g 2 -b 1K -e 16K -f 2 -T 2
expect_rc 2 "hang at the third size: problem"
expect_out '^# nccl-doctor: results checked on the GPU \(check kernels\) for the 2 sizes that finished before the run stopped$' "it says two sizes were checked"

# with --host-check: the host, as before
derive nccl-p2p-hang '{"nccl_p2p_hang_min_bytes": 0}' hang-first
run_nd bench all_reduce -g 2 -b 1K -e 4K -T 2 --host-check
expect_out '^# nccl-doctor: no result was checked: no size finished; the checks were set up on the host \(rank 0: --host-check\)$' "--host-check, hang at the first size: nothing checked"

# a complete run: the line as before
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/pcie4.json"
run_nd bench all_reduce -g 2 -b 1K -e 4K
expect_rc 0 "a complete run"
expect_out '^# nccl-doctor: results checked on the GPU \(check kernels\)$' "a complete run: results checked on the GPU"
finish
