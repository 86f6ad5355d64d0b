#!/bin/bash
# Slow is not hung: on a fake machine whose collectives are slow but never
# stuck (nccl_slow_ms_per_mib), bench's deadline for a size grows with the
# time the sizes before it measured, so a run that makes progress is not
# called HANG; the deadline of the whole run (--timeout, or the time a
# check or fix had left) ends it as NOT FINISHED, a warning that says
# nothing against the configuration; fix's trials cut that way are "not
# finished", never HANG, and the search does not end FIX_NOTHING_WORKS.
. "$(dirname "$0")/lib.sh"
ND_FULL=1 # reads the details of the reports (notes, evidence)
SC="$ND_FIXTURES/fakegpu"
TAG="t603-$$"
export NCCL_DOCTOR_LIBRARY_PATH="$ND_BUILD/tests/fakegpu/lib" NCCL_DOCTOR_LIBRARY_PATH_ONLY=1
export NCCL_DOCTOR_FAKEGPU_SHM_TAG="$TAG"
trap 'rm -rf "$ND_TMP"; rm -f /dev/shm/fakenccl-$TAG-*' EXIT
slow() { # MS_PER_MIB: nvlink8 with collectives that slow
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("faults",{})["nccl_slow_ms_per_mib"]=int(sys.argv[2]); json.dump(d,open(sys.argv[3],"w"))' \
    "$SC/nvlink8.json" "$1" "$ND_TMP/slow$1.json"
  export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/slow$1.json"
}

# 1. -T 1 and a 16 MiB cell of four calls at 60 ms/MiB (about 4 s): the
# 1 MiB size before it measured the speed, the deadline follows it
slow 60
run_nd bench all_reduce -g 2 -b 1M -e 16M -f 16 -n 2 -w 1 -T 1
expect_rc 0 "slow collectives, -T 1: finished"
expect_out '^ +16777216 +4194304 +float +sum +-1 ' "the 16 MiB row is there"
expect_no_out 'HANG' "no HANG"

# 2. the deadline of the whole run cuts it: NOT FINISHED, a warning
run_nd --timeout 6 bench all_reduce -g 2 -b 1M -e 16M -f 16 -n 2 -w 1 -T 1
# (the two ranks may be in different phases of that size: listed per phase)
expect_out '^# nccl-doctor: NOT FINISHED\(size 16777216 of op all_reduce [a-z-]+\): ranks 0[ ,].*1.* were still within the deadline of their phase when the 6 s deadline of the whole run ended them: not a hang' "--timeout 6: NOT FINISHED, not a hang"
expect_no_out 'HANG\(' "--timeout 6: no HANG"
run_nd --json --timeout 6 bench all_reduce -g 2 -b 1M -e 16M -f 16 -n 2 -w 1 -T 1
json_check 'any(f["id"] == "BENCH_NOT_FINISHED" and f["severity"] == "warning" for f in d["findings"]) and not any(f["id"] == "BENCH_HANG" for f in d["findings"])' "JSON: BENCH_NOT_FINISHED (warning), no BENCH_HANG"

# 3. a real hang after quick sizes still ends at -T (one call a cell: the
# sizes before stay quick on a loaded machine too, where 20 calls of the
# fake stack took 0.8 s a cell and the deadline grew with them)
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d.setdefault("faults",{})["nccl_p2p_hang_min_bytes"]=65536; json.dump(d,open(sys.argv[2],"w"))' \
  "$SC/nccl-p2p-hang.json" "$ND_TMP/hang.json"
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/hang.json"
t0=$(date +%s%N)
run_nd bench all_reduce -g 2 -b 1K -e 1M -f 8 -n 1 -w 1 -T 2
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
expect_out '^# nccl-doctor: HANG\(size 65536 of op all_reduce warm-up\)' "a stuck size after quick ones: HANG"
within 10000 "$ms" "and over in time, -T 2 (ms)"

# 4. fix on the slow machine with a short budget: each trial cut short is
# "not finished (deadline cut by the budget)", none HANG; no
# FIX_NOTHING_WORKS; the report says the trials were slow and how to give
# them time
slow 20
run_nd --gpus 0,1 fix --budget 12
expect_out 'as given .*not finished in [0-9]+ s \(deadline cut by the budget\)' "fix: as given not finished"
expect_no_out 'HANG' "fix: no HANG"
expect_out 'still running within every phase.s deadline .*--budget [0-9]+' "fix: says why and how to give the trials time"
expect_out 'fix .*no trial finished within the budget' "fix: the stage says no trial finished"
run_nd --json --gpus 0,1 fix --budget 12
json_check 'not any(f["id"] in ("FIX_NOTHING_WORKS", "ALLREDUCE_FAILS", "ALLREDUCE_P2P_FAILS") for f in d["findings"]) and any(f["id"] == "BENCH_NOT_FINISHED" for f in d["findings"])' "fix JSON: not finished, no failure findings"

# 5. check with a short budget on the slow machine: the bench stage is not
# finished, a warning with the longer budget to use; not BROKEN, no search
run_nd --json --gpus 0,1 check --budget 15
json_check 'd["verdict"] != "BROKEN" and [f for f in d["findings"] if f["id"] == "BENCH_NOT_FINISHED" and f["severity"] == "warning"]' "check: not BROKEN, BENCH_NOT_FINISHED (warning)"
json_check 'not any(s["stage"] == "fix" for s in d["facts"]["check"]["stages"]) and len([f for f in d["findings"] if f["id"] == "BENCH_NOT_FINISHED"]) == 1' "check: no fix search for a bench cut short, the warning once"
finish
