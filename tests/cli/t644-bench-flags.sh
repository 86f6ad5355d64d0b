#!/bin/bash
# `bench` flags of nccl-tests 2.19 on the fake GPU stack: -I/-K per-iteration
# timing, -S timestamps, -M memory report, -u unalign, -z 0..3, -p, -R 1|2
# registration, -x CTA policy, -y NULL stream, -D/-V, with nccl-tests' header
# lines, columns and stderr lines; -J in nccl-tests' JSON shape (the key tree
# of tests/fixtures/bench/nccl-tests-2.19-json-shape.json); bad values.
. "$(dirname "$0")/lib.sh"
use_fake_gpus
SC="$ND_FIXTURES/fakegpu"
export NCCL_DOCTOR_FAKEGPU_SCENARIO="$SC/nvlink8.json"

# The expected shape, read from nccl-tests 2.19.6's writer (src/util.cu; the
# calls in src/common.cu):
#   version start_time args env nccl_version   jsonOutputInit
#   config.* (devices: jsonRankInfo)           writeDeviceReport
#   results[]                                  writeResultHeader (the list)
#     size count type redop root (a "%6i" string) writeBenchmarkLinePreamble
#     out_of_place in_place: time (cpu_time with -C) alg_bw bus_bw nwrong
#                                              writeBenchmarkLineBody
#     *_per_iter (-I): writePerIterReport; per_process_max_times_us where
#       more than one process measured
#     actual_iterations experiment_name        writeBenchmarkLineTerminator
#   out_of_bounds average_bus_bandwidth        writeResultFooter
#   errors                                     writeErrors
#   end_time                                   jsonOutputFinalize
# "int" a JSON integer (jsonInt, jsonSize_t), "float" a number written with a
# decimal point (jsonDouble's "%lf"), "boolstr" the strings "true"/"false"
# (jsonBool writes jsonStr), [x] a list of x; keys in the writer's order.
SHAPE='
import json, sys
def check(v, want, path, drop):
    if isinstance(want, dict):
        want = {k: x for k, x in want.items() if k not in drop}
        if not isinstance(v, dict):
            return [path + ": not an object"]
        if list(v) != list(want):
            return [path + ": keys %s, nccl-tests %s" % (list(v), list(want))]
        return [e for k in want for e in check(v[k], want[k], path + "." + k, drop)]
    if isinstance(want, list):
        if not isinstance(v, list) or not v:
            return [path + ": not a list with items"]
        return [e for x in v for e in check(x, want[0], path + "[]", drop)]
    ok = {"int": type(v) is int, "float": type(v) is float, "str": type(v) is str,
          "boolstr": v in ("true", "false")}[want]
    return [] if ok else [path + ": %r is not %s" % (v, want)]
want = json.load(open(sys.argv[1]))
drop = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else set()
if "time" in drop:  # -C: cpu_time where time was
    for r in want["results"]:
        for k in ("out_of_place", "in_place"):
            r[k] = {("cpu_time" if x == "time" else x): t for x, t in r[k].items()}
errs = check(json.load(open(sys.argv[2])), want, "$", drop)
print("\n".join(errs[:5]))
sys.exit(1 if errs else 0)
'
shape() { # FILE DROPPED-KEYS WHAT
  if python3 -c "$SHAPE" "$ND_FIXTURES/bench/nccl-tests-2.19-json-shape.json" "$1" "${2:-}" >"$ND_TMP/shape.out"; then
    ok "$3"
  else
    not_ok "$3: $(cat "$ND_TMP/shape.out")"
  fi
}

# --- -I -K -S -M -u -z 3 -p together, and -J with per-iteration objects ----
run_nd bench -g 2 -b 8 -e 64 -f 8 -n 4 -I 1 -K 1 -S 1 -M 1 -u 3 -z 3 -p 1 -J "$ND_TMP/i.json"
expect_rc 0 "-I -K -S -M -u -z 3 -p: runs"
expect_out ' validation: 1 graph: 0 unalign: 3$' "-u 3: the header's unalign field"
expect_out '^# Blocking Enabled: wait and barrier after each outer iteration \(-n\); time excludes barrier $' "-z 3: nccl-tests' line"
expect_out '^# Per-Iteration Report: CUDA event timing; i_\* uses max over process rows; summary skips first 1 iterations $' "-I -K 1: nccl-tests' line"
expect_out '^# Parallel Init Enabled: threads call into NcclInitRank concurrently $' "-p 1: nccl-tests' line"
expect_out '^#       size         count      type   redop    root     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%     time   algbw   busbw  #wrong    i_min    i_max    i_p99    i_cv%           timestamp$' "-I -S: column titles"
expect_out '^ +64 +16 +float +sum +-1( +[0-9.]+){3} +0( +[0-9.]+){4}( +[0-9.]+){3} +0( +[0-9.]+){4}  [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9]{2}:[0-9]{2}:[0-9]{2}$' "-I -S: a row with the i_* columns and a timestamp"
expect_out '^# GPU memory usage     : Initialization [0-9.]+ K?B \| User-Allocated [0-9.]+ [KMG]?B \| Collective [0-9.]+ [KMG]?B \| Total  [0-9.]+ [KMG]?B$' "-M: nccl-tests' memory line"
expect_out '^# nccl-doctor: -z 3: no barrier between the ranks here' "-z 3: what differs is said"
shape "$ND_TMP/i.json" "" "-J with -I: nccl-tests' key tree, types and order"
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["version"] == 3 and d["config"]["per_iter_timing"] == "true" and d["config"]["per_iter_skip"] == 1
assert d["config"]["blocking_collectives"] == "true" and d["config"]["parallel_init"] == "true"
assert d["args"][-2:] == ["-J", sys.argv[1]] and d["errors"] == [""]
for r in d["results"]:
    for k in ("out_of_place_per_iter", "in_place_per_iter"):
        p = r[k]
        assert p["skipped_iterations"] == 1 and len(p["times_us"]) == 4, k
        assert len(p["per_process_max_times_us"]) == 2 and all(len(x) == 4 for x in p["per_process_max_times_us"])
        assert p["min_us"] <= p["p50_us"] <= p["p99_us"] <= p["max_us"] and p["min_us"] > 0
        # each iteration: the slowest of the ranks
        assert p["times_us"] == [max(x) for x in zip(*p["per_process_max_times_us"])]
' "$ND_TMP/i.json"; then ok "-J -I: 4 times per cell, 1 skipped, the slowest rank each, a list per process"; else not_ok "-J -I values"; fi

# --- -C: cpu_time; without -I no per-iteration objects; --threads: one process
run_nd bench --threads 2 -b 8 -e 64 -f 8 -n 2 -C 1 -u 1 -d double -J "$ND_TMP/c.json"
expect_rc 0 "-C -u 1 -d double --threads 2: runs"
expect_out '^ +64 +8 +double +sum +-1( +[0-9.]+){3} +0( +[0-9.]+){3} +0$' "-u 1: results checked right"
shape "$ND_TMP/c.json" "out_of_place_per_iter,in_place_per_iter,time" "-J with -C, no -I: cpu_time, no per-iteration objects"

# --- -R, -x, -y on NCCL 2.28.3 and on 2.27.3 --------------------------------
run_nd bench -g 2 -b 8 -e 64 -f 8 -n 2 -R 2 -x 2 -y 1 -z 2
expect_rc 0 "-R 2 -x 2 -y 1 -z 2: runs"
expect_out '^# nccl-doctor: -R 2: both buffers registered as symmetric windows \(ncclCommWindowRegister\)$' "-R 2 on 2.28: symmetric"
expect_out "^# nccl-doctor: -x 2: NCCL's CTA policy set to 2$" "-x 2 on 2.28: set"
expect_out '^# nccl-doctor: -y 1: the calls ran on the NULL' "-y 1: said"
expect_out '^# Blocking Enabled: wait after each inner iteration \(-m\), no barrier $' "-z 2: nccl-tests' line"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["nccl_version"]=22605; json.dump(d,open(sys.argv[2],"w"))' \
  "$SC/nvlink8.json" "$ND_TMP/nccl-2.26.json"
NCCL_DOCTOR_FAKEGPU_SCENARIO="$ND_TMP/nccl-2.26.json" run_nd bench -g 2 -b 8 -e 64 -f 8 -n 2 -R 2 -x 1
expect_rc 0 "-R 2 -x 1 on 2.26.5: runs"
expect_out '^# nccl-doctor: -R 2: both buffers registered locally \(ncclCommRegister\): symmetric registration needs NCCL 2.27' "-R 2 before 2.27: local, as nccl-tests, said"
expect_out '^# nccl-doctor: -x 1: not set: NCCL 2.26.5 has no CTA policy 1' "-x 1 before 2.27: not set, said"
run_nd bench -g 2 -b 8 -e 64 -f 8 -n 2 -R 1
expect_out '^# nccl-doctor: -R 1: both buffers registered locally \(ncclCommRegister\)$' "-R 1: local"

# --- what nccl-tests disables, and bad values --------------------------------
run_nd bench -g 2 -b 8 -e 8 -n 2 -I 1 -G 1
expect_rc 0 "-I with -G: runs"
expect_err 'per-iteration timing \(-I\) is incompatible with CUDA graph mode \(-G\)\. Disabling\.' "-I with -G: disabled with nccl-tests' line"
expect_no_out 'i_min' "-I with -G: no per-iteration columns"
run_nd bench -g 2 -b 8 -e 8 -n 2 -K 1
expect_err 'per-iteration skip \(-K\) requires per-iteration timing \(-I 1\)\. Disabling\.' "-K without -I: nccl-tests' line"
for bad in "-z 4" "-I 2" "-R 3" "-u -1" "-x 3" "-V 129" "-I 1 -n 20001"; do
  run_nd bench -g 2 -b 8 -e 8 $bad
  expect_rc 64 "$bad: usage error"
done
run_nd bench -g 2 -b 8 -e 8 -D 1
expect_rc 64 "-D 1: refused"
expect_err "^nccl-doctor bench: -D 1: nccl-tests' device-API implementations are its own CUDA kernels" "-D 1: says why"
run_nd bench -g 2 -b 8 -e 8 -R 2 --cuda-alloc
expect_rc 64 "-R 2 --cuda-alloc: refused"
run_nd bench --help
missing=""
for f in b e i f n w m N c z o d r g t a T C G I K S M u R y x p D V J; do
  grep -Eq "^  (.*  )?-$f " "$OUT" || missing="$missing -$f"
done
[ -z "$missing" ] && ok "--help lists every flag of nccl-tests 2.19" || not_ok "--help lacks$missing"
finish
